import Foundation

extension Array {
  /// `transform` of each element, in order, computed on up to `threads` threads (at most one per core): for work
  /// that is pure computation and reading files, such as parsing the thousand notes a rename rewrites, which on two
  /// cores then takes about half as long. Small inputs stay on the calling thread.
  func concurrentMap<Result>(threads: Int = 4, minimum: Int = 64, _ transform: (Element) -> Result) -> [Result] {
    let workers = Swift.min(threads, ProcessInfo.processInfo.activeProcessorCount, count / Swift.max(1, minimum))
    guard workers > 1 else { return map(transform) }
    let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: count)
    results.initialize(repeating: nil)
    defer {
      results.deinitialize()
      results.deallocate()
    }
    // Interleaved slices: the expensive elements of a sorted input (one large folder) are spread over the threads.
    withoutActuallyEscaping(transform) { transform in
      DispatchQueue.concurrentPerform(iterations: workers) { worker in
        for index in stride(from: worker, to: count, by: workers) { results[index] = transform(self[index]) }
      }
    }
    return results.map { $0! }
  }
}

/// A value computed on another thread while the caller goes on with other work; ``wait()`` returns it once done.
/// On a single core it costs only the thread's start.
final class Concurrently<Value>: @unchecked Sendable {
  private let done = DispatchSemaphore(value: 0)
  /// Set once, before `done` is first signalled: every read follows a wait on `done`.
  private var value: Value?

  init(_ compute: @escaping () -> Value) {
    DispatchQueue.global(qos: .userInitiated).async {
      self.value = compute()
      self.done.signal()
    }
  }

  /// The value, waiting for it the first time; later calls return it at once.
  @discardableResult
  func wait() -> Value {
    done.wait()
    // Signalled again for the next wait.
    defer { done.signal() }
    return value!
  }
}
