import Foundation

/// The SHA-1 states of an index whose header gets a new entry count, computed on another core while a patch walks
/// the entries.
///
/// A patch that adds or removes entries changes the count in the header, so the new file's checksum cannot resume
/// from the old file's states (``IndexFile/checksum(_:bodyCount:resumingFrom:unchangedPrefix:)``): all of it is
/// hashed again, 7 MB at 100 000 entries, after the walk. Up to the first entry the patch changes, the new file is
/// the old one with the new count, so these states are hashed from the old bytes as soon as the patch starts,
/// with the count expected if every upsert adds a path and every removal takes one away. If the count comes out
/// otherwise (an edit, a removed folder), the states are not used.
final class SpeculativeChecksum: @unchecked Sendable {
  /// The entry count the states were computed with.
  let entryCount: UInt32
  private let lock = NSLock()
  private let done = DispatchSemaphore(value: 0)
  private var stopped = false
  private var states: [SHA1] = []

  /// Starts hashing `bytes` (a verified index, the patch's input) with `entryCount` in its header, one
  /// ``IndexFile/checkpointInterval`` at a time, up to its checksum.
  init(_ bytes: [UInt8], entryCount: UInt32) {
    self.entryCount = entryCount
    Thread.detachNewThread { [self] in
      hash(bytes)
      done.signal()
    }
  }

  private func hash(_ bytes: [UInt8]) {
    let interval = IndexFile.checkpointInterval
    let body = bytes.count - 20
    guard body >= interval, publish(SHA1()) else { return }
    bytes.withUnsafeBytes { raw in
      // The first block with the new count; then the old bytes as they are.
      var state = SHA1()
      var first = Array(raw[0..<64])
      first.replaceSubrange(8..<12, with: withUnsafeBytes(of: entryCount.bigEndian) { Array($0) })
      first.withUnsafeBytes { state.updateBlocks($0.baseAddress!, count: 64) }
      state.updateBlocks(raw.baseAddress! + 64, count: interval - 64)
      var offset = interval
      while publish(state), body - offset >= interval {
        state.updateBlocks(raw.baseAddress! + offset, count: interval)
        offset += interval
      }
    }
  }

  /// Adds `state` to the states reached; false once ``finish()`` has asked to stop.
  private func publish(_ state: SHA1) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    states.append(state)
    return !stopped
  }

  /// Stops the hashing without waiting for it (a patch that declined needs no states).
  func cancel() {
    lock.lock()
    stopped = true
    lock.unlock()
  }

  /// Stops the hashing and returns the states it reached: the first is the empty state, the one at index i covers
  /// the first i intervals of the file with the new count.
  func finish() -> [SHA1] {
    cancel()
    done.wait()
    lock.lock()
    defer { lock.unlock() }
    return states
  }
}
