import Foundation

@testable import GitKit

/// An `IndexFileStore` that counts what reaches the disk. Given to a `Repository` (`indexFileStore`), it shows
/// which writer a save went through (only the byte patcher writes through the store; libgit2 writes the index
/// itself) and whether our own writes were read back.
final class CountingIndexFileStore: IndexFileStore, @unchecked Sendable {
  private let lock = NSLock()
  private var reads = 0
  private var written = 0
  private var verifications = 0
  private var nextWriteHook: (() throws -> Void)?

  /// Runs `hook` once, at the start of the next `write` (before its lock is taken): another writer that gets in
  /// between a reader and its write.
  func beforeNextWrite(_ hook: @escaping () throws -> Void) {
    lock.lock()
    nextWriteHook = hook
    lock.unlock()
  }

  /// Index files whose whole checksum was computed to verify them.
  var verified: Int {
    lock.lock()
    defer { lock.unlock() }
    return verifications
  }

  /// Index files read from disk and verified.
  var diskReads: Int {
    lock.lock()
    defer { lock.unlock() }
    return reads
  }

  /// Index files written (renamed into place).
  var writes: Int {
    lock.lock()
    defer { lock.unlock() }
    return written
  }

  /// A new store (empty cache) attached to `repository`.
  static func attached(to repository: Repository) -> CountingIndexFileStore {
    let store = CountingIndexFileStore()
    repository.indexFileStore = store
    return store
  }

  override func readFromDisk(_ fd: Int32, size: Int, path: String, identity: Identity) -> Outcome<Loaded> {
    let result = super.readFromDisk(fd, size: size, path: path, identity: identity)
    if case .success = result {
      lock.lock()
      reads += 1
      lock.unlock()
    }
    return result
  }

  override func verify(_ bytes: [UInt8]) -> IndexFile.Snapshot? {
    lock.lock()
    verifications += 1
    lock.unlock()
    return super.verify(bytes)
  }

  override func write(
    _ path: String, _ bytes: [UInt8], checkpoints: [SHA1], derived: Derived = Derived(),
    keepingModificationTime mtime: (seconds: Int, nanoseconds: Int)? = nil, ifStill expected: Identity? = nil
  ) throws -> Bool {
    lock.lock()
    let hook = nextWriteHook
    nextWriteHook = nil
    lock.unlock()
    try hook?()
    let wrote = try super.write(
      path, bytes, checkpoints: checkpoints, derived: derived, keepingModificationTime: mtime, ifStill: expected)
    lock.lock()
    if wrote { written += 1 }
    lock.unlock()
    return wrote
  }
}
