#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The stat fields of an index entry, read from a file as git records them (each truncated to 32 bits).
struct IndexStatFields: Equatable {
  var ctimeSeconds: UInt32
  var ctimeNanoseconds: UInt32
  var mtimeSeconds: UInt32
  var mtimeNanoseconds: UInt32
  var dev: UInt32
  var ino: UInt32
  var uid: UInt32
  var gid: UInt32
  var size: UInt32

  init(_ info: stat) {
    ctimeSeconds = UInt32(truncatingIfNeeded: info.st_ctim.tv_sec)
    ctimeNanoseconds = UInt32(truncatingIfNeeded: info.st_ctim.tv_nsec)
    mtimeSeconds = UInt32(truncatingIfNeeded: info.st_mtim.tv_sec)
    mtimeNanoseconds = UInt32(truncatingIfNeeded: info.st_mtim.tv_nsec)
    dev = UInt32(truncatingIfNeeded: info.st_dev)
    ino = UInt32(truncatingIfNeeded: info.st_ino)
    uid = UInt32(truncatingIfNeeded: info.st_uid)
    gid = UInt32(truncatingIfNeeded: info.st_gid)
    size = UInt32(truncatingIfNeeded: info.st_size)
  }

  /// Writes the fields, big-endian, over those of the entry at `entry` in `bytes` (the mode, at 24, is left as it
  /// is: a walk refreshes only entries whose mode it found unchanged).
  fileprivate func store(in bytes: UnsafeMutableRawBufferPointer, entry: Int) {
    func put(_ value: UInt32, _ at: Int) {
      bytes.storeBytes(of: value.bigEndian, toByteOffset: entry + at, as: UInt32.self)
    }
    put(ctimeSeconds, 0)
    put(ctimeNanoseconds, 4)
    put(mtimeSeconds, 8)
    put(mtimeNanoseconds, 12)
    put(dev, 16)
    put(ino, 20)
    put(uid, 28)
    put(gid, 32)
    put(size, 36)
  }
}

/// New stat data for entries of one version of the index file, written in place: the entries keep their size and
/// order and the extensions their bytes, so only those fields and the checksum change.
struct IndexStatRefresh {
  let store: IndexFileStore
  let indexPath: String
  let loaded: IndexFileStore.Loaded
  /// The entries' offsets in the file, with their files' stat data.
  let entries: [(offset: Int, fields: IndexStatFields)]

  /// The index with the new stat data.
  func patched() -> IndexFile.Snapshot {
    var bytes = loaded.snapshot.bytes
    var first = bytes.count
    bytes.withUnsafeMutableBytes { raw in
      for (offset, fields) in entries {
        first = min(first, offset)
        fields.store(in: raw, entry: offset)
      }
    }
    let body = bytes.count - 20
    let (digest, checkpoints) = IndexFile.checksum(
      bytes, bodyCount: body, resumingFrom: loaded.snapshot.checkpoints, unchangedPrefix: first)
    bytes.replaceSubrange(body..<bytes.count, with: digest)
    return IndexFile.Snapshot(bytes: bytes, checkpoints: checkpoints)
  }

  func write() -> Bool {
    let result = patched()
    do {
      // The same entries, ids and paths: what was derived from them still holds.
      return try store.write(
        indexPath, result.bytes, checkpoints: result.checkpoints, derived: loaded.derived,
        keepingModificationTime: (loaded.identity.mtimeSeconds, loaded.identity.mtimeNanoseconds),
        ifStill: loaded.identity)
    } catch {
      return false
    }
  }
}
