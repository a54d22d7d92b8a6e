import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a command's time goes: with `NB_PHASES` set, each ``mark(_:)`` prints on standard error the milliseconds
/// since the previous mark (or since the first use), for profiling an operation phase by phase on a real
/// repository. Unset, a mark costs one load of a flag.
enum Phases {
  static let enabled = getenv("NB_PHASES") != nil
  nonisolated(unsafe) private static var last = clock()

  private static func clock() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) * 1000 + Double(spec.tv_nsec) / 1e6
  }

  static func mark(_ name: @autoclosure () -> String) {
    guard enabled else { return }
    let now = clock()
    // The clock's own reading too, to line a phase up with a profiler's samples (`perf record -k CLOCK_MONOTONIC`).
    FileHandle.standardError.write(
      Data("phase \(name()): \(String(format: "%.1f", now - last)) ms (at \(String(format: "%.3f", now)))\n".utf8))
    last = now
  }
}
