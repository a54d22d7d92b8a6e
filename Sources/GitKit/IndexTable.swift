#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Every entry of a verified index file, decoded once into a table a status walk can search: the entries' fixed
/// fields stay in the file's bytes (read on demand), and so do their paths in versions 2 and 3 (`paths` is then the
/// file's own buffer, shared, not copied); version 4 compresses paths, so they are gathered into a buffer of their
/// own.
///
/// libgit2's own index load allocates an entry per path and sorts them; a status that only compares stat data needs
/// neither, and reads this table in a fraction of the time.
struct IndexTable {
  /// One entry: where its fixed fields are in `bytes`, where its path is in `paths`.
  struct Entry {
    /// Offset of the entry (its ctime field) in the file.
    var offset: Int32
    var pathStart: Int32
    var pathCount: Int32
    /// The 16-bit flags (stage in bits 12-13, assume-valid in bit 15).
    var flags: UInt16
    /// The version 3 extended flags (skip-worktree, intent-to-add); 0 when absent.
    var extendedFlags: UInt16

    var stage: Int { Int((flags >> 12) & 3) }

    /// A conflict stage, assume-valid, skip-worktree or intent-to-add (see ``IndexTable/hasUnusualEntries``).
    static func isUnusual(flags: UInt16, extendedFlags: UInt16) -> Bool { flags & 0xB000 != 0 || extendedFlags != 0 }
  }

  /// The whole index file.
  let bytes: [UInt8]
  let version: UInt32
  private(set) var entries: [Entry] = []
  /// Where `Entry.pathStart` points: `bytes` itself in versions 2 and 3; in version 4, every path back to back,
  /// `/`-separated, no terminators.
  private(set) var paths: [UInt8] = []
  /// The `TREE` extension's payload, when the file has one.
  private(set) var cacheTree: Range<Int>?
  /// Where the entries end (and the extensions, if any, start).
  private(set) var entriesEnd = 12
  /// True when an entry has a conflict stage, assume-valid, skip-worktree or intent-to-add: states a status walk
  /// that only compares stat data does not model.
  private(set) var hasUnusualEntries = false

  /// A table gathered while the file was written (``IndexFile/patch(_:_:racyCutoff:buildTable:isRacilyModified:)``),
  /// equal to the one decoded from `bytes`.
  init(
    bytes: [UInt8], version: UInt32, entries: [Entry], paths: [UInt8]?, cacheTree: Range<Int>?, entriesEnd: Int,
    hasUnusualEntries: Bool
  ) {
    self.bytes = bytes
    self.version = version
    self.entries = entries
    self.paths = paths ?? bytes
    self.cacheTree = cacheTree
    self.entriesEnd = entriesEnd
    self.hasUnusualEntries = hasUnusualEntries
  }

  /// Decodes `snapshot` (already checksum-verified); throws `IndexNotHandled` for anything malformed or unknown.
  init(_ snapshot: IndexFile.Snapshot) throws {
    bytes = snapshot.bytes
    let input = bytes
    guard input.count >= 32, input[0] == 0x44, input[1] == 0x49, input[2] == 0x52, input[3] == 0x43 else {
      throw IndexNotHandled(reason: "not an index file (no DIRC signature)")
    }
    version = IndexFile.readUInt32(input, 4)
    guard (2...4).contains(version) else { throw IndexNotHandled(reason: "index version \(version)") }
    let count = Int(IndexFile.readUInt32(input, 8))
    let bodyEnd = input.count - 20
    var entries: [Entry] = []
    entries.reserveCapacity(count)
    var paths: [UInt8] = []
    // A version 4 path averages well under 64 bytes; the reservation avoids most regrowth at 100k entries.
    if version == 4 { paths.reserveCapacity(min(bodyEnd, count * 48)) }
    var unusual = false
    var offset = 12
    let version = version
    try input.withUnsafeBufferPointer { buffer in
      let base = buffer.baseAddress!
      var last: [UInt8] = []
      last.reserveCapacity(512)
      for _ in 0..<count {
        guard offset + 62 <= bodyEnd else { throw IndexNotHandled(reason: "truncated entry at \(offset)") }
        let flags = UInt16(base[offset + 60]) << 8 | UInt16(base[offset + 61])
        var headerSize = 62
        var extended: UInt16 = 0
        if flags & 0x4000 != 0 {
          guard version >= 3, offset + 64 <= bodyEnd else {
            throw IndexNotHandled(reason: "extended flag in a version 2 index")
          }
          extended = UInt16(base[offset + 62]) << 8 | UInt16(base[offset + 63])
          headerSize = 64
        }
        if Entry.isUnusual(flags: flags, extendedFlags: extended) { unusual = true }
        if version < 4 {
          let pathStart = offset + headerSize
          // The flags hold the length below 0xFFF; only longer paths need their terminator looked for.
          var nul = pathStart + Int(flags & 0xFFF)
          if flags & 0xFFF == 0xFFF {
            guard let found = memchr(base + pathStart, 0, bodyEnd - pathStart) else {
              throw IndexNotHandled(reason: "unterminated path at \(offset)")
            }
            nul = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
          }
          // As git reads it: the length field is trusted, and must end at the terminator.
          guard nul < bodyEnd, base[nul] == 0 else { throw IndexNotHandled(reason: "malformed path at \(offset)") }
          let size = (headerSize + (nul - pathStart) + 8) & ~7
          guard offset + size <= bodyEnd else { throw IndexNotHandled(reason: "malformed entry at \(offset)") }
          entries.append(
            Entry(
              offset: Int32(offset), pathStart: Int32(pathStart), pathCount: Int32(nul - pathStart), flags: flags,
              extendedFlags: extended))
          offset += size
        } else {
          let start = paths.count
          // Version 4: the path is the previous one less `strip` trailing bytes, then this entry's suffix.
          var cursor = offset + headerSize
          guard cursor < bodyEnd else { throw IndexNotHandled(reason: "malformed version 4 entry at \(offset)") }
          var byte = base[cursor]
          cursor += 1
          var strip = Int(byte & 0x7F)
          while byte & 0x80 != 0 {
            guard cursor < bodyEnd, strip < (Int.max >> 8) else {
              throw IndexNotHandled(reason: "malformed version 4 entry at \(offset)")
            }
            byte = base[cursor]
            cursor += 1
            strip = ((strip + 1) << 7) | Int(byte & 0x7F)
          }
          guard strip <= last.count else { throw IndexNotHandled(reason: "malformed version 4 entry at \(offset)") }
          var nul = cursor
          while nul < bodyEnd, base[nul] != 0 { nul += 1 }
          guard nul < bodyEnd else { throw IndexNotHandled(reason: "unterminated path at \(offset)") }
          // The previous path is kept in `last` (not read back out of `paths`, whose growth would copy it).
          last.removeLast(strip)
          last.append(contentsOf: UnsafeBufferPointer(start: base + cursor, count: nul - cursor))
          paths.append(contentsOf: last)
          entries.append(
            Entry(
              offset: Int32(offset), pathStart: Int32(start), pathCount: Int32(last.count), flags: flags,
              extendedFlags: extended))
          offset = nul + 1
        }
      }
    }
    entriesEnd = offset
    // Extensions: remember TREE; an unknown required one (upper-case first letter means optional) is declined.
    while offset < bodyEnd {
      guard bodyEnd - offset >= 8 else { throw IndexNotHandled(reason: "truncated extension header") }
      let size = Int(IndexFile.readUInt32(input, offset + 4))
      guard size <= bodyEnd - offset - 8 else { throw IndexNotHandled(reason: "truncated extension") }
      if input[offset] == 0x54, input[offset + 1] == 0x52, input[offset + 2] == 0x45, input[offset + 3] == 0x45 {
        cacheTree = (offset + 8)..<(offset + 8 + size)
      } else if !(0x41...0x5A).contains(input[offset]) {
        throw IndexNotHandled(reason: "required extension")
      }
      offset += 8 + size
    }
    self.entries = entries
    self.paths = version == 4 ? paths : bytes
    self.hasUnusualEntries = unusual
  }

  // MARK: Fields

  func mtimeSeconds(_ e: Entry) -> UInt32 { field(e, 8) }
  func mtimeNanoseconds(_ e: Entry) -> UInt32 { field(e, 12) }
  func ctimeSeconds(_ e: Entry) -> UInt32 { field(e, 0) }
  func ctimeNanoseconds(_ e: Entry) -> UInt32 { field(e, 4) }
  func ino(_ e: Entry) -> UInt32 { field(e, 20) }
  func mode(_ e: Entry) -> UInt32 { field(e, 24) }
  func uid(_ e: Entry) -> UInt32 { field(e, 28) }
  func gid(_ e: Entry) -> UInt32 { field(e, 32) }
  func size(_ e: Entry) -> UInt32 { field(e, 36) }

  /// The 20-byte blob id.
  func id(_ e: Entry) -> ArraySlice<UInt8> {
    let start = Int(e.offset) + 40
    return bytes[start..<(start + 20)]
  }

  func path(_ e: Entry) -> ArraySlice<UInt8> {
    paths[Int(e.pathStart)..<Int(e.pathStart + e.pathCount)]
  }

  func pathString(_ e: Entry) -> String {
    String(decoding: path(e), as: UTF8.self)
  }

  /// The entry as the patcher's record (stat fields, mode, id, path).
  func record(_ e: Entry) -> IndexEntryRecord {
    IndexEntryRecord(
      ctimeSeconds: ctimeSeconds(e), ctimeNanoseconds: ctimeNanoseconds(e), mtimeSeconds: mtimeSeconds(e),
      mtimeNanoseconds: mtimeNanoseconds(e), dev: field(e, 16), ino: ino(e), mode: mode(e), uid: uid(e), gid: gid(e),
      size: size(e), id: Array(id(e)), path: Array(path(e)))
  }

  private func field(_ e: Entry, _ at: Int) -> UInt32 {
    bytes.withUnsafeBufferPointer { IndexFile.readUInt32($0.baseAddress!, Int(e.offset) + at) }
  }

  // MARK: Searching

  /// What the index holds directly in a directory: a file entry, or a subdirectory's range of entries.
  struct Child {
    /// The name, as a range of `paths`.
    var nameStart: Int
    var nameCount: Int
    /// The entry of a file; -1 for a directory.
    var entry: Int
    /// The entries below a directory (the file's own entry for a file).
    var range: Range<Int>

    var isDirectory: Bool { entry < 0 }
  }

  /// The direct children of the directory whose entries are `range` and whose paths all start with a prefix of
  /// `prefixCount` bytes (a directory and `/`; 0 for the root), in index order (a directory sorts as `name/`, which
  /// is also the order of a git tree's entries).
  func children(prefixCount: Int, range: Range<Int>) -> [Child] {
    var children: [Child] = []
    var i = range.lowerBound
    while i < range.upperBound {
      let e = entries[i]
      let start = Int(e.pathStart) + prefixCount
      let end = Int(e.pathStart + e.pathCount)
      var slash = start
      paths.withUnsafeBufferPointer { paths in
        while slash < end, paths[slash] != 0x2F { slash += 1 }
      }
      if slash == end {
        children.append(Child(nameStart: start, nameCount: end - start, entry: i, range: i..<(i + 1)))
        i += 1
      } else {
        let directory = Array(paths[Int(e.pathStart)...slash])
        let sub = self.range(withPrefix: directory, in: i..<range.upperBound)
        children.append(Child(nameStart: start, nameCount: slash - start, entry: -1, range: sub))
        i = max(sub.upperBound, i + 1)
      }
    }
    return children
  }

  func name(_ child: Child) -> ArraySlice<UInt8> {
    paths[child.nameStart..<(child.nameStart + child.nameCount)]
  }

  /// The first entry index in `range` whose path is not ordered before `key` (byte order, as the index sorts).
  func lowerBound(_ key: UnsafeBufferPointer<UInt8>, in range: Range<Int>) -> Int {
    var low = range.lowerBound
    var high = range.upperBound
    paths.withUnsafeBufferPointer { all in
      while low < high {
        let mid = (low + high) / 2
        let e = entries[mid]
        let path = UnsafeBufferPointer(rebasing: all[Int(e.pathStart)..<Int(e.pathStart + e.pathCount)])
        if IndexFile.compare(path, key) < 0 { low = mid + 1 } else { high = mid }
      }
    }
    return low
  }

  /// The entries whose path starts with `prefix` (a directory followed by `/`), within `range`: contiguous,
  /// because every path between two that share a prefix shares it too.
  func range(withPrefix prefix: [UInt8], in range: Range<Int>) -> Range<Int> {
    prefix.withUnsafeBufferPointer { key in
      let start = lowerBound(key, in: range)
      var end = start
      // Gallop, then bisect: a directory's entries are usually few next to the whole range.
      var step = 1
      while end + step <= range.upperBound, hasPrefix(entries[end + step - 1], key) {
        end += step
        step *= 2
      }
      var high = min(end + step, range.upperBound)
      while end < high {
        let mid = (end + high) / 2
        if hasPrefix(entries[mid], key) { end = mid + 1 } else { high = mid }
      }
      return start..<end
    }
  }

  func hasPrefix(_ e: Entry, _ prefix: UnsafeBufferPointer<UInt8>) -> Bool {
    guard Int(e.pathCount) >= prefix.count else { return false }
    return paths.withUnsafeBufferPointer { all in
      prefix.isEmpty || memcmp(all.baseAddress! + Int(e.pathStart), prefix.baseAddress!, prefix.count) == 0
    }
  }
}
