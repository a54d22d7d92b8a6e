import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The resumable SHA-1 states of one version of the index file, kept on disk between processes.
///
/// Verifying the index's trailing checksum hashes the whole file: 10 MB at 100 000 entries, a tenth of an
/// `nb add` there, in every process, although the file is usually the one the process before wrote or verified.
/// The states of that version are kept with the file's stat identity and trailing checksum; a process that finds
/// the index with the same identity and the same last 20 bytes takes them instead of hashing again. git itself
/// does not verify the checksum when it reads the index (only `git fsck` does): an index can only change without
/// its ctime changing by damage below the file system.
///
/// The file: a magic line, the identity (seven little-endian 64-bit values), the index's 20-byte checksum, the
/// interval and the count (64-bit), the states (five 32-bit words and a 64-bit length each), whether the index has
/// conflict entries (one byte: 0 not known, 1 none, 2 some), and the SHA-1 of all of it. A file that does not check
/// out in every respect (one of version 1, without the conflicts byte, too) is ignored, and the index is verified
/// as before.
///
/// The conflicts byte spares a save the walk over every entry that asks whether it may commit (`git status` would
/// list conflicts): a commit that patched an index without conflicts knows the result has none.
enum IndexCheckpoints {
  private static let magic = Array("nb index checkpoints 2\n".utf8)

  /// What is kept for one version of the index.
  struct Kept {
    var states: [SHA1]
    /// Whether the index has conflict entries; nil when it was not known.
    var hasConflicts: Bool?
  }

  /// What is kept at `file` for the index version `identity` whose bytes are `bytes`, or nil.
  static func load(_ file: String, identity: IndexFileStore.Identity, bytes: [UInt8]) -> Kept? {
    guard bytes.count >= 32, let stored = GitFiles.contents(of: file, limit: 1 << 20) else { return nil }
    // A slice: `suffix` picked as a Sequence's walks all 10 MB to copy 20 bytes.
    let checksum = bytes[(bytes.count - 20)...]
    guard stored.count > magic.count + 20, stored.starts(with: magic) else { return nil }
    let body = stored[..<(stored.count - 20)]
    guard body.withUnsafeBytes({ SHA1.hash($0) }).elementsEqual(stored.suffix(20)) else { return nil }
    var reader = Reader(bytes: Array(body.dropFirst(magic.count)))
    guard let fields = reader.int64s(7), fields == identityFields(identity),
      let trailer = reader.bytes(20), trailer.elementsEqual(checksum),
      let interval = reader.int64s(1)?.first, interval == IndexFile.checkpointInterval,
      let count = reader.int64s(1)?.first, count == (bytes.count - 20) / interval + 1
    else { return nil }
    var states: [SHA1] = []
    states.reserveCapacity(count)
    for index in 0..<count {
      guard let words = reader.uint32s(5), let length = reader.int64s(1)?.first, length == index * interval else {
        return nil
      }
      states.append(SHA1(words: (words[0], words[1], words[2], words[3], words[4]), length: length))
    }
    guard let conflicts = reader.bytes(1)?.first, conflicts <= 2, reader.isAtEnd, let last = states.last else {
      return nil
    }
    // The last state must finish into the file's checksum: a wrong one would give the next write a bad checksum.
    let offset = (count - 1) * interval
    let digest = bytes.withUnsafeBytes { last.finish($0.baseAddress! + offset, count: bytes.count - 20 - offset) }
    guard digest.elementsEqual(checksum) else { return nil }
    return Kept(states: states, hasConflicts: conflicts == 0 ? nil : conflicts == 2)
  }

  /// Keeps `states` and `hasConflicts` (nil: not known) for the index version `identity` whose bytes are `bytes`.
  /// Failures are ignored: the next process verifies the index instead.
  ///
  /// Written over the old file in place, not renamed over it: a rename frees the old file's block, and on a file
  /// system mounted with `discard` (without a journal) that waits for the device, in the middle of a commit. A file
  /// cut short or mixed by a crash or a concurrent writer fails its own checksum and is ignored like any damage.
  static func save(
    _ file: String, identity: IndexFileStore.Identity, bytes: [UInt8], states: [SHA1], hasConflicts: Bool?
  ) {
    guard bytes.count >= 32 else { return }
    var out = magic
    for value in identityFields(identity) { append(value, to: &out) }
    out.append(contentsOf: bytes[(bytes.count - 20)...])
    append(IndexFile.checkpointInterval, to: &out)
    append(states.count, to: &out)
    for state in states {
      let (a, b, c, d, e) = state.words
      for word in [a, b, c, d, e] { withUnsafeBytes(of: word.littleEndian) { out.append(contentsOf: $0) } }
      append(state.length, to: &out)
    }
    out.append(hasConflicts.map { $0 ? 2 : 1 } ?? 0)
    out += out.withUnsafeBytes { SHA1.hash($0) }
    // POSIX calls, not FileManager and NSString: this runs in every save of a large index, and their first use in
    // a process costs more than the write (Foundation's setup, a bridge to NSString).
    guard let slash = file.lastIndex(of: "/") else { return }
    let directory = String(file[..<slash])
    guard (try? IndexFileStore.makeDirectories(directory)) != nil else { return }
    sweepLeftovers(of: file, in: directory)
    let fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0o666)
    guard fd >= 0 else { return }
    defer { close(fd) }
    // The truncation cuts a longer file; at the length it already has, it frees nothing.
    guard (try? IndexFileStore.writeAll(fd, out, what: file)) != nil, ftruncate(fd, off_t(out.count)) == 0 else {
      // Whatever is there fails its checksum; an empty file says so at once.
      _ = ftruncate(fd, 0)
      return
    }
  }

  /// Removes the temporary files an older nb (which renamed a whole new file into place) left when it was killed
  /// between writing one and renaming it: `<file>.<pid>.tmp` of a process that no longer runs.
  static func sweepLeftovers(of file: String, in directory: String) {
    guard let listing = opendir(directory) else { return }
    defer { closedir(listing) }
    let prefix = String(file[(file.lastIndex(of: "/").map { file.index(after: $0) } ?? file.startIndex)...]) + "."
    while let entry = readdir(listing) {
      let name = withUnsafePointer(to: entry.pointee.d_name) {
        String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
      }
      guard name.hasPrefix(prefix), name.hasSuffix(".tmp"),
        let pid = Int32(name.dropFirst(prefix.count).dropLast(".tmp".count)), pid > 0, pid != getpid()
      else { continue }
      if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory + "/" + name) }
    }
  }

  private static func identityFields(_ identity: IndexFileStore.Identity) -> [Int] {
    [
      Int(truncatingIfNeeded: identity.dev), Int(truncatingIfNeeded: identity.ino), Int(identity.size),
      identity.mtimeSeconds, identity.mtimeNanoseconds, identity.ctimeSeconds, identity.ctimeNanoseconds,
    ]
  }

  private static func append(_ value: Int, to out: inout [UInt8]) {
    withUnsafeBytes(of: Int64(value).littleEndian) { out.append(contentsOf: $0) }
  }

  private struct Reader {
    let bytes: [UInt8]
    var position = 0

    var isAtEnd: Bool { position == bytes.count }

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
      guard bytes.count - position >= count else { return nil }
      defer { position += count }
      return bytes[position..<(position + count)]
    }

    mutating func int64s(_ count: Int) -> [Int]? {
      guard let raw = bytes(8 * count) else { return nil }
      return (0..<count).map { index in
        raw.dropFirst(8 * index).prefix(8).reversed().reduce(0) { $0 << 8 | Int($1) }
      }
    }

    mutating func uint32s(_ count: Int) -> [UInt32]? {
      guard let raw = bytes(4 * count) else { return nil }
      return (0..<count).map { index in
        raw.dropFirst(4 * index).prefix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
      }
    }
  }
}
