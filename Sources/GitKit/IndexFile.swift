#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One stage-0 index entry as the patcher writes it (all stat fields already truncated to 32 bits, as git does).
struct IndexEntryRecord: Equatable {
  /// Status change time, seconds.
  var ctimeSeconds: UInt32 = 0
  /// Status change time, nanoseconds.
  var ctimeNanoseconds: UInt32 = 0
  /// Modification time, seconds.
  var mtimeSeconds: UInt32 = 0
  /// Modification time, nanoseconds.
  var mtimeNanoseconds: UInt32 = 0
  /// `st_dev`.
  var dev: UInt32 = 0
  /// `st_ino`.
  var ino: UInt32 = 0
  /// The git mode: 0o100644, 0o100755 or 0o120000.
  var mode: UInt32 = 0
  /// `st_uid`.
  var uid: UInt32 = 0
  /// `st_gid`.
  var gid: UInt32 = 0
  /// `st_size`, truncated to 32 bits.
  var size: UInt32 = 0
  /// The blob id (20 bytes).
  var id: [UInt8] = []
  /// The path, `/`-separated, relative to the work tree.
  var path: [UInt8] = []
}

/// A change the patcher applies to the index.
enum IndexPatchOperation: Equatable {
  /// Insert or replace the stage-0 entry of `record.path`.
  case upsert(IndexEntryRecord)
  /// Remove the entry of `path`, and with `descendants` every entry below `path/` too.
  case remove(path: [UInt8], descendants: Bool)

  var path: [UInt8] {
    switch self {
    case .upsert(let record): return record.path
    case .remove(let path, _): return path
    }
  }
}

/// Why the patcher declined: the caller falls back to libgit2, which knows every corner of the format.
struct IndexNotHandled: Error, Equatable {
  /// A human-readable reason, for logs and tests.
  var reason: String
}

/// The patched index.
struct IndexPatchResult {
  /// The complete new file, checksum included.
  var bytes: [UInt8]
  /// SHA-1 states of `bytes` at every `IndexFile.checkpointInterval` bytes (see `IndexFile.Snapshot`).
  var checkpoints: [SHA1]
  /// The stage-0 entries the touched paths had before (a path absent from it had none).
  var previous: PreviousEntries
  /// True when entries below a removed path (a tracked directory) were dropped.
  var removedDescendants: Bool
  /// The tree id the cache tree gave the whole index before the patch (nil: it had none, or not a valid one).
  var previousRootTreeID: [UInt8]? = nil
  /// The table of `bytes`, gathered while they were written (only when asked for): decoding them again would walk
  /// the whole index a second time.
  var table: IndexTable? = nil
}

/// The entries a patch replaced or dropped, by path. Gathered in the index's order, so sorted: looked up by
/// binary search. Not a dictionary: the first dictionary keyed by byte arrays in a process makes the runtime check
/// their `Hashable` conformance by scanning every conformance record in the binary.
struct PreviousEntries {
  private var paths: [[UInt8]] = []
  private var records: [IndexEntryRecord] = []

  /// Adds the entry `record` had at `path`, which sorts after every path added before.
  mutating func append(_ path: [UInt8], _ record: IndexEntryRecord) {
    precondition(paths.last.map { IndexFile.lexicographicallyPrecedes($0, path) } ?? true, "paths come in index order")
    paths.append(path)
    records.append(record)
  }

  subscript(path: [UInt8]) -> IndexEntryRecord? {
    var low = 0
    var high = paths.count
    while low < high {
      let middle = (low + high) / 2
      if IndexFile.lexicographicallyPrecedes(paths[middle], path) { low = middle + 1 } else { high = middle }
    }
    return low < paths.count && paths[low] == path ? records[low] : nil
  }
}

/// A byte-level editor for git's index file (https://git-scm.com/docs/index-format, versions 2 to 4).
///
/// Loading a 100 000-entry index into libgit2 costs a malloc per entry and a sort, and writing it back re-encodes
/// all of them; a save touches a handful. This copies every untouched entry's bytes verbatim and encodes only the
/// touched entries (and, in version 4, the one entry after each change point, whose path is prefix-compressed
/// against its predecessor). Anything unusual is declined with `IndexNotHandled` rather than guessed at.
enum IndexFile {
  /// Distance between the SHA-1 states kept for resuming the checksum (a multiple of 64).
  static let checkpointInterval = 64 * 1024

  /// The smallest index whose checksum a patch that changes the entry count starts on another core
  /// (``SpeculativeChecksum``): below it, the thread costs about what it saves. Variable so that tests can
  /// send small indexes through it.
  nonisolated(unsafe) static var speculativeChecksumMinimumSize = 512 * 1024

  /// An index file's bytes whose checksum has been verified, with resumable SHA-1 states.
  struct Snapshot {
    /// The whole file.
    var bytes: [UInt8]
    /// `checkpoints[k]` is the SHA-1 state after `k * checkpointInterval` bytes.
    var checkpoints: [SHA1]
  }

  /// Verifies the trailing checksum of `bytes`; nil when the file is too short or the checksum is wrong. A
  /// corrupt index must reach libgit2 (which refuses it), never be "repaired" by a fresh checksum.
  static func verify(_ bytes: [UInt8]) -> Snapshot? {
    guard bytes.count >= 32 else { return nil }
    let (digest, checkpoints) = checksum(bytes, bodyCount: bytes.count - 20, resumingFrom: [], unchangedPrefix: 0)
    guard bytes[(bytes.count - 20)...].elementsEqual(digest) else { return nil }
    return Snapshot(bytes: bytes, checkpoints: checkpoints)
  }

  /// SHA-1 of `bytes[0..<bodyCount]`, resuming from the last of `previous` that covers only the first
  /// `unchangedPrefix` bytes (which must equal the bytes those states were computed over).
  static func checksum(_ bytes: [UInt8], bodyCount: Int, resumingFrom previous: [SHA1], unchangedPrefix: Int)
    -> (digest: [UInt8], checkpoints: [SHA1])
  {
    let usable = min(previous.count, unchangedPrefix / checkpointInterval + 1)
    var checkpoints = Array(previous.prefix(usable))
    var state = checkpoints.last ?? SHA1()
    if checkpoints.isEmpty { checkpoints.append(state) }
    var offset = (checkpoints.count - 1) * checkpointInterval
    return bytes.withUnsafeBytes { raw in
      let base = raw.baseAddress!
      while bodyCount - offset >= checkpointInterval {
        state.updateBlocks(base + offset, count: checkpointInterval)
        offset += checkpointInterval
        checkpoints.append(state)
      }
      return (state.finish(base + offset, count: bodyCount - offset), checkpoints)
    }
  }

  /// Applies `operations` (at most one per path) to the verified index `snapshot`.
  ///
  /// - Parameters:
  ///   - racyCutoff: the old index file's mtime in seconds. An entry modified at or after it may have changed
  ///     within the timestamp's granularity after it was recorded ("racy git"); once the index is rewritten with
  ///     a later mtime, git would trust its stat data. Like git, such entries are checked and smudged (size 0).
  ///   - buildTable: also return the result's ``IndexTable`` (``IndexPatchResult/table``).
  ///   - isRacilyModified: asked for each such entry; true smudges it.
  /// - Throws: `IndexNotHandled` for anything this patcher does not do (the caller then uses libgit2).
  static func patch(
    _ snapshot: Snapshot, _ operations: [IndexPatchOperation], racyCutoff: UInt32?, buildTable: Bool = false,
    isRacilyModified: (IndexEntryRecord) -> Bool = { _ in true }
  ) throws -> IndexPatchResult {
    let input = snapshot.bytes
    let (version, entryCount) = try header(input)
    let ops = operations.sorted { lexicographicallyPrecedes($0.path, $1.path) }
    for i in ops.indices.dropFirst() where ops[i].path == ops[i - 1].path {
      throw IndexNotHandled(reason: "two operations for one path")
    }

    let lookup = OperationLookup(ops)
    // An addition or a removal changes the count in the header, and the checksum is hashed from the start again:
    // on another core, while the entries are walked, with the count expected.
    var expectedCount = entryCount
    for op in ops {
      if case .upsert = op { expectedCount += 1 } else { expectedCount -= 1 }
    }
    let speculation =
      expectedCount != entryCount && expectedCount >= 0 && input.count >= speculativeChecksumMinimumSize
      ? SpeculativeChecksum(input, entryCount: UInt32(expectedCount)) : nil
    defer { speculation?.cancel() }
    // Room for the inserted entries, and for a cache tree made whole again in place (`replaceCacheTree`).
    var writer = EntryWriter(version: version, capacity: input.count + 256 * ops.count + 4096)
    writer.out.append(contentsOf: input[0..<12])
    var previous = PreviousEntries()
    var removedDescendants = false
    var previousRootTreeID: [UInt8]?
    var nextOp = 0
    var offset = 12
    let bodyEnd = input.count - 20
    // Version 4 paths are prefix-compressed: the previous and current full paths.
    var v4 = PathPair()
    defer { v4.deallocate() }
    var table = TableBuilder(version: version, entryCount: buildTable ? entryCount + ops.count : 0)

    try input.withUnsafeBufferPointer { buffer in
      let base = buffer.baseAddress!
      for _ in 0..<entryCount {
        guard offset + 62 <= bodyEnd else { throw IndexNotHandled(reason: "truncated entry at \(offset)") }
        let flags = readUInt16(base, offset + 60)
        var headerSize = 62
        var extendedFlags: UInt16 = 0
        if flags & 0x4000 != 0 {
          guard version >= 3 else { throw IndexNotHandled(reason: "extended flag in a version 2 index") }
          extendedFlags = readUInt16(base, offset + 62)
          headerSize = 64
        }
        let stage = (flags >> 12) & 3
        let pathStart: Int
        let pathCount: Int
        let entrySize: Int
        if version < 4 {
          pathStart = offset + headerSize
          var length = Int(flags & 0xFFF)
          if length == 0xFFF {
            guard let nul = findNul(base, from: pathStart, end: bodyEnd) else {
              throw IndexNotHandled(reason: "unterminated path at \(offset)")
            }
            length = nul - pathStart
          }
          pathCount = length
          entrySize = (headerSize + length + 8) & ~7
          guard offset + entrySize <= bodyEnd, base[pathStart + length] == 0 else {
            throw IndexNotHandled(reason: "malformed entry at \(offset)")
          }
        } else {
          var cursor = offset + headerSize
          guard let strip = readVarint(base, &cursor, end: bodyEnd), strip <= v4.previousCount,
            let nul = findNul(base, from: cursor, end: bodyEnd)
          else { throw IndexNotHandled(reason: "malformed version 4 entry at \(offset)") }
          v4.decode(strip: strip, suffix: base + cursor, count: nul - cursor)
          pathStart = -1
          pathCount = v4.currentCount
          entrySize = nul + 1 - offset
        }
        let path = pathStart >= 0 ? UnsafeBufferPointer(start: base + pathStart, count: pathCount) : v4.current

        let decision: EntryDecision
        decide: do {
          // Insert the upserts that sort before this entry.
          var order = nextOp < ops.count ? lookup.compare(op: nextOp, path) : 1
          while order < 0 {
            if case .upsert(let record) = ops[nextOp] {
              try writer.flush(from: base, to: offset)
              if buildTable { table.add(record, at: writer.out.count) }
              writer.insert(record, previousPath: version == 4 ? Array(v4.previous) : [])
            }
            nextOp += 1
            order = nextOp < ops.count ? lookup.compare(op: nextOp, path) : 1
          }
          if order == 0 {
            guard stage == 0 else { throw IndexNotHandled(reason: "conflict stages for a touched path") }
            guard flags & 0x8000 == 0, extendedFlags == 0 else {
              throw IndexNotHandled(reason: "assume-valid, skip-worktree or intent-to-add on a touched path")
            }
            previous.append(Array(path), record(base, offset, path))
            decision = .drop
            break decide
          }
          switch lookup.relation(of: path) {
          case .below(let op):
            guard case .remove(_, true) = ops[op], stage == 0, extendedFlags == 0 else {
              throw IndexNotHandled(reason: "a touched path is a directory in the index, or below it is unusual")
            }
            removedDescendants = true
            decision = .drop
            break decide
          case .aboveUpsert:
            throw IndexNotHandled(reason: "an upserted path is below a file in the index")
          case .unrelated:
            break
          }
          if let racyCutoff, readUInt32(base, offset + 8) >= racyCutoff, stage == 0,
            isRacilyModified(record(base, offset, path))
          {
            decision = .keepSmudged
          } else {
            decision = .keep
          }
        }
        switch decision {
        case .drop:
          try writer.flush(from: base, to: offset)
          writer.drop(through: offset + entrySize, previousPath: version == 4 ? Array(v4.previous) : [])
        case .keep, .keepSmudged:
          let reencode = version == 4 && !writer.lastEmittedIsPreviousInput
          if buildTable {
            // Where the entry lands: after what is written and the input not yet copied before it (which a
            // re-encoded or smudged entry flushes first).
            let at = writer.out.count + offset - writer.runStart
            table.add(at: at, headerSize: headerSize, path: path, flags: flags, extendedFlags: extendedFlags)
          }
          if reencode || decision == .keepSmudged {
            try writer.flush(from: base, to: offset)
            let start = writer.out.count
            if reencode {
              writer.reencode(base, offset, headerSize: headerSize, path: Array(v4.current), end: offset + entrySize)
            } else {
              try writer.flush(from: base, to: offset + entrySize)
            }
            if decision == .keepSmudged { writer.out.replaceSubrange((start + 36)..<(start + 40), with: [0, 0, 0, 0]) }
          }
        }
        if version == 4 { v4.advance() }
        offset += entrySize
      }
      try writer.flush(from: base, to: offset)
      while nextOp < ops.count {
        if case .upsert(let record) = ops[nextOp] {
          if buildTable { table.add(record, at: writer.out.count) }
          writer.insert(record, previousPath: version == 4 ? Array(v4.previous) : [])
        }
        nextOp += 1
      }
    }
    let entriesEnd = writer.out.count
    var cacheTreeRange: Range<Int>?

    // Extensions: keep TREE (with the touched paths invalidated), drop optional caches, decline required ones.
    while offset < bodyEnd {
      guard bodyEnd - offset >= 8 else { throw IndexNotHandled(reason: "truncated extension header") }
      let signature = Array(input[offset..<(offset + 4)])
      let size = Int(readUInt32(input, offset + 4))
      guard size <= bodyEnd - offset - 8 else { throw IndexNotHandled(reason: "truncated extension") }
      let data = input[(offset + 8)..<(offset + 8 + size)]
      if signature == Array("TREE".utf8) {
        let (tree, rootID) = try CacheTree.invalidating(data, paths: ops.map(\.path))
        previousRootTreeID = rootID
        if tree.isEmpty {
          offset += 8 + size
          continue
        }
        writer.out.append(contentsOf: signature)
        appendUInt32(&writer.out, UInt32(tree.count))
        cacheTreeRange = writer.out.count..<(writer.out.count + tree.count)
        writer.out.append(contentsOf: tree)
      } else if !(0x41...0x5A).contains(signature[0]) {
        throw IndexNotHandled(reason: "required extension \(String(decoding: signature, as: UTF8.self))")
      }
      offset += 8 + size
    }

    let newCount = entryCount + writer.inserted - writer.dropped
    writer.out.replaceSubrange(8..<12, with: bigEndianBytes(UInt32(newCount)))
    var resumable = snapshot.checkpoints
    var unchangedPrefix = commonPrefixCount(writer.out, input)
    if let speculation {
      let states = speculation.finish()
      if newCount == speculation.entryCount {
        resumable = states
        unchangedPrefix = commonPrefixCount(writer.out, input, from: 12)
      }
    }
    let (digest, checkpoints) = checksum(
      writer.out, bodyCount: writer.out.count, resumingFrom: resumable, unchangedPrefix: unchangedPrefix)
    writer.out.append(contentsOf: digest)
    return IndexPatchResult(
      bytes: writer.out, checkpoints: checkpoints, previous: previous, removedDescendants: removedDescendants,
      previousRootTreeID: previousRootTreeID,
      table: buildTable
        ? IndexTable(
          bytes: writer.out, version: version, entries: table.entries, paths: version == 4 ? table.paths : nil,
          cacheTree: cacheTreeRange, entriesEnd: entriesEnd, hasUnusualEntries: table.hasUnusualEntries) : nil)
  }

  /// Version 4's previous and current full paths, in two buffers that trade places after each entry: a patch
  /// rebuilds every path of the index (100 000 at that size), and arrays made that a tenth of an `nb add`.
  private struct PathPair {
    private var previousBuffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1024)
    private var currentBuffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1024)
    private(set) var previousCount = 0
    private(set) var currentCount = 0

    var previous: UnsafeBufferPointer<UInt8> {
      UnsafeBufferPointer(start: previousBuffer.baseAddress, count: previousCount)
    }
    var current: UnsafeBufferPointer<UInt8> {
      UnsafeBufferPointer(start: currentBuffer.baseAddress, count: currentCount)
    }

    /// The current path becomes the previous one without its last `strip` bytes (at most its length), then the
    /// `count` bytes at `suffix`.
    mutating func decode(strip: Int, suffix: UnsafePointer<UInt8>, count: Int) {
      let kept = previousCount - strip
      if kept + count > currentBuffer.count {
        let grown = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 2 * (kept + count))
        currentBuffer.deallocate()
        currentBuffer = grown
      }
      let target = currentBuffer.baseAddress!
      if kept > 0 { target.update(from: previousBuffer.baseAddress!, count: kept) }
      if count > 0 { (target + kept).update(from: suffix, count: count) }
      currentCount = kept + count
    }

    /// The current path becomes the previous one.
    mutating func advance() {
      swap(&previousBuffer, &currentBuffer)
      swap(&previousCount, &currentCount)
    }

    func deallocate() {
      previousBuffer.deallocate()
      currentBuffer.deallocate()
    }
  }

  /// Gathers the ``IndexTable`` of the patch's output as its entries are decided.
  private struct TableBuilder {
    let version: UInt32
    var entries: [IndexTable.Entry] = []
    /// Version 4's paths (below it, the table points into the file's bytes).
    var paths: [UInt8] = []
    var hasUnusualEntries = false

    init(version: UInt32, entryCount: Int) {
      self.version = version
      entries.reserveCapacity(entryCount)
      if version == 4 { paths.reserveCapacity(entryCount * 48) }
    }

    /// An entry kept from the input, written at output offset `at`.
    mutating func add(at: Int, headerSize: Int, path: UnsafeBufferPointer<UInt8>, flags: UInt16, extendedFlags: UInt16)
    {
      if IndexTable.Entry.isUnusual(flags: flags, extendedFlags: extendedFlags) { hasUnusualEntries = true }
      var pathStart = at + headerSize
      if version == 4 {
        pathStart = paths.count
        paths.append(contentsOf: path)
      }
      entries.append(
        IndexTable.Entry(
          offset: Int32(at), pathStart: Int32(pathStart), pathCount: Int32(path.count), flags: flags,
          extendedFlags: extendedFlags))
    }

    /// An inserted entry (no extended flags), written at output offset `at`.
    mutating func add(_ record: IndexEntryRecord, at: Int) {
      record.path.withUnsafeBufferPointer { path in
        add(at: at, headerSize: 62, path: path, flags: UInt16(min(record.path.count, 0xFFF)), extendedFlags: 0)
      }
    }
  }

  /// True when some entry has a conflict stage (1-3), found by walking the entries without decoding paths; so
  /// that a caller can ask before a save without loading the whole index into libgit2.
  static func hasConflicts(_ snapshot: Snapshot) throws -> Bool {
    let input = snapshot.bytes
    let (version, entryCount) = try header(input)
    let bodyEnd = input.count - 20
    return try input.withUnsafeBufferPointer { buffer in
      let base = buffer.baseAddress!
      var offset = 12
      for _ in 0..<entryCount {
        guard offset + 62 <= bodyEnd else { throw IndexNotHandled(reason: "truncated entry at \(offset)") }
        let flags = readUInt16(base, offset + 60)
        if flags & 0x3000 != 0 { return true }
        let headerSize = flags & 0x4000 != 0 ? 64 : 62
        if version < 4 {
          var length = Int(flags & 0xFFF)
          if length == 0xFFF {
            guard let nul = findNul(base, from: offset + headerSize, end: bodyEnd) else {
              throw IndexNotHandled(reason: "unterminated path at \(offset)")
            }
            length = nul - offset - headerSize
          }
          offset += (headerSize + length + 8) & ~7
        } else {
          var cursor = offset + headerSize
          guard readVarint(base, &cursor, end: bodyEnd) != nil, let nul = findNul(base, from: cursor, end: bodyEnd)
          else { throw IndexNotHandled(reason: "malformed version 4 entry at \(offset)") }
          offset = nul + 1
        }
      }
      return false
    }
  }

  /// The stage-0 entries whose last path component is `name` (e.g. every `.gitattributes`), with their ids and
  /// modes; stat fields are left zero.
  static func entries(named name: String, in snapshot: Snapshot) throws -> [IndexEntryRecord] {
    let input = snapshot.bytes
    let (version, entryCount) = try header(input)
    let bodyEnd = input.count - 20
    let suffix = Array(name.utf8)
    var found: [IndexEntryRecord] = []
    var path: [UInt8] = []
    path.reserveCapacity(512)
    try input.withUnsafeBufferPointer { buffer in
      let base = buffer.baseAddress!
      var offset = 12
      for _ in 0..<entryCount {
        guard offset + 62 <= bodyEnd else { throw IndexNotHandled(reason: "truncated entry at \(offset)") }
        let flags = readUInt16(base, offset + 60)
        let headerSize = flags & 0x4000 != 0 ? 64 : 62
        let start: Int
        let end: Int
        let next: Int
        if version < 4 {
          start = offset + headerSize
          guard let nul = findNul(base, from: start, end: bodyEnd) else {
            throw IndexNotHandled(reason: "unterminated path at \(offset)")
          }
          end = nul
          next = offset + ((headerSize + (nul - start) + 8) & ~7)
        } else {
          var cursor = offset + headerSize
          guard let strip = readVarint(base, &cursor, end: bodyEnd), strip <= path.count,
            let nul = findNul(base, from: cursor, end: bodyEnd)
          else { throw IndexNotHandled(reason: "malformed version 4 entry at \(offset)") }
          path.removeLast(strip)
          path.append(contentsOf: UnsafeBufferPointer(start: base + cursor, count: nul - cursor))
          start = -1
          end = nul
          next = nul + 1
        }
        let matches = withPath(base, start, start < 0 ? path.count : end - start, path) { current -> Bool in
          guard flags & 0x3000 == 0, current.count >= suffix.count,
            current.count == suffix.count || current[current.count - suffix.count - 1] == 0x2F
          else { return false }
          return current[(current.count - suffix.count)...].elementsEqual(suffix)
        }
        if matches {
          let full = start < 0 ? path : Array(UnsafeBufferPointer(start: base + start, count: end - start))
          let entry = full.withUnsafeBufferPointer { record(base, offset, $0) }
          found.append(IndexEntryRecord(mode: entry.mode, id: entry.id, path: entry.path))
        }
        offset = next
      }
    }
    return found
  }

  private enum EntryDecision { case keep, keepSmudged, drop }

  /// Up to this many operations, a patch compares each entry with each operation directly: a save of a few notes
  /// into a 10 000-entry index otherwise hashed every directory of every entry's path (a dictionary lookup per `/`).
  /// Variable only so that a test can send a few operations through the hashed lookup too.
  nonisolated(unsafe) static var directLookupLimit = 8

  /// Answers, for each index entry, whether it lies below a touched path or above an upserted one, in time linear
  /// in the entry's path: comparing every entry with every operation made a save of 6 000 new files into a
  /// 100 000-entry index cost 600 million comparisons.
  private final class OperationLookup {
    enum Relation {
      /// The entry lies below the path of operation `op` (that path is a directory in the index).
      case below(op: Int)
      /// An upserted path lies below the entry (the entry is a file where a directory is upserted into).
      case aboveUpsert
      case unrelated
    }

    let ops: [IndexPatchOperation]
    /// FNV-1a of each operation's path -> the operations with that hash.
    private var byHash: [UInt64: [Int]] = [:]
    /// FNV-1a of every directory above an upserted path.
    private var upsertParents: Set<UInt64> = []
    /// Every operation's path, one after the other, and where each starts and ends: the comparisons made for every
    /// entry read these bytes without retaining an array per operation and entry.
    private let flat: UnsafeMutableBufferPointer<UInt8>
    private let bounds: UnsafeMutableBufferPointer<(start: Int, end: Int, upsert: Bool)>

    init(_ ops: [IndexPatchOperation]) {
      self.ops = ops
      flat = .allocate(capacity: max(1, ops.reduce(0) { $0 + $1.path.count }))
      bounds = .allocate(capacity: max(1, ops.count))
      var end = 0
      for (i, op) in ops.enumerated() {
        let path = op.path
        _ = UnsafeMutableBufferPointer(rebasing: flat[end..<(end + path.count)]).initialize(from: path)
        var upsert = false
        if case .upsert = op { upsert = true }
        bounds[i] = (end, end + path.count, upsert)
        end += path.count
      }
      // Only the hashed walk reads these: building them makes the runtime check UInt64's Hashable conformance (see
      // PreviousEntries), a scan of the binary, in every save of a few notes.
      guard ops.count > IndexFile.directLookupLimit else { return }
      for (i, op) in ops.enumerated() {
        byHash[Self.hash(op.path[...]), default: []].append(i)
        guard case .upsert = op else { continue }
        var h = Self.offset
        for byte in op.path {
          if byte == 0x2F { upsertParents.insert(h) }
          h = Self.step(h, byte)
        }
      }
    }

    deinit {
      flat.deallocate()
      bounds.deallocate()
    }

    /// The byte order of operation `op`'s path against `path` (negative, zero, positive), as ``IndexFile/compare``.
    func compare(op: Int, _ path: UnsafeBufferPointer<UInt8>) -> Int {
      let (start, end, _) = bounds[op]
      return IndexFile.compare(UnsafeBufferPointer(rebasing: flat[start..<end]), path)
    }

    private static let offset: UInt64 = 0xcbf2_9ce4_8422_2325
    @inline(__always) private static func step(_ h: UInt64, _ byte: UInt8) -> UInt64 {
      (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    private static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 { bytes.reduce(offset, step) }

    func relation(of path: UnsafeBufferPointer<UInt8>) -> Relation {
      if ops.count <= IndexFile.directLookupLimit { return directRelation(of: path) }
      var h = Self.offset
      for i in 0..<path.count {
        if path[i] == 0x2F, let candidates = byHash[h] {
          for op in candidates where ops[op].path.elementsEqual(path[0..<i]) { return .below(op: op) }
        }
        h = Self.step(h, path[i])
      }
      if upsertParents.contains(h) {
        for op in ops {
          if case .upsert = op, op.path.count > path.count, op.path[path.count] == 0x2F,
            op.path[0..<path.count].elementsEqual(path)
          {
            return .aboveUpsert
          }
        }
      }
      return .unrelated
    }

    /// ``relation(of:)`` by comparing with each operation. Operations are sorted, and a path sorts before the paths
    /// below it, so the first one found above the entry is the shortest, as the hashed walk finds it.
    private func directRelation(of path: UnsafeBufferPointer<UInt8>) -> Relation {
      guard let base = path.baseAddress else { return .unrelated }
      for index in 0..<ops.count {
        let (start, end, upsert) = bounds[index]
        let count = end - start
        guard count > 0 else { continue }
        let opPath = flat.baseAddress! + start
        if count < path.count {
          if path[count] == 0x2F, memcmp(opPath, base, count) == 0 { return .below(op: index) }
        } else if count > path.count, upsert, opPath[path.count] == 0x2F,
          path.count == 0 || memcmp(opPath, base, path.count) == 0
        {
          return .aboveUpsert
        }
      }
      return .unrelated
    }
  }

  /// Accumulates the output: runs of untouched input entries are copied in one go.
  private struct EntryWriter {
    let version: UInt32
    var out: [UInt8]
    /// Start of the input range not yet copied.
    var runStart = 12
    var inserted = 0
    var dropped = 0
    /// Version 4: true when the last entry in `out` is the previous input entry, so the next input entry's
    /// prefix compression is still valid; otherwise `lastEmittedPath` holds the last path written.
    var lastEmittedIsPreviousInput = true
    var lastEmittedPath: [UInt8] = []

    init(version: UInt32, capacity: Int) {
      self.version = version
      out = []
      out.reserveCapacity(capacity)
      out.withUnsafeMutableBufferPointer { LargeBuffers.adviseHugePages($0.baseAddress, count: capacity) }
    }

    /// Copies input bytes `runStart..<end` verbatim.
    mutating func flush(from base: UnsafePointer<UInt8>, to end: Int) throws {
      guard end > runStart else { return }
      out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: end - runStart))
      runStart = end
    }

    /// Leaves out the input entry ending at `end`; `previousPath` is the input path before it (version 4).
    mutating func drop(through end: Int, previousPath: [UInt8]) {
      runStart = end
      dropped += 1
      if version == 4 && lastEmittedIsPreviousInput {
        lastEmittedPath = previousPath
        lastEmittedIsPreviousInput = false
      }
    }

    private func lastPath(_ previousPath: [UInt8]) -> [UInt8] {
      lastEmittedIsPreviousInput ? previousPath : lastEmittedPath
    }

    mutating func insert(_ record: IndexEntryRecord, previousPath: [UInt8]) {
      let start = out.count
      for value in [
        record.ctimeSeconds, record.ctimeNanoseconds, record.mtimeSeconds, record.mtimeNanoseconds, record.dev,
        record.ino, record.mode, record.uid, record.gid, record.size,
      ] {
        appendUInt32(&out, value)
      }
      out.append(contentsOf: record.id)
      let flags = UInt16(min(record.path.count, 0xFFF))
      out.append(UInt8(flags >> 8))
      out.append(UInt8(flags & 0xFF))
      appendPath(record.path, headerStart: start, previousPath: previousPath)
      inserted += 1
    }

    /// Writes a kept input entry (ending at input offset `end`) whose version 4 path must be re-encoded against
    /// a new predecessor; the entries after it are again compressed against their input predecessor.
    mutating func reencode(_ base: UnsafePointer<UInt8>, _ offset: Int, headerSize: Int, path: [UInt8], end: Int) {
      let start = out.count
      out.append(contentsOf: UnsafeBufferPointer(start: base + offset, count: headerSize))
      appendPath(path, headerStart: start, previousPath: [])
      runStart = end
      lastEmittedIsPreviousInput = true
    }

    private mutating func appendPath(_ path: [UInt8], headerStart: Int, previousPath: [UInt8]) {
      if version == 4 {
        let last = lastPath(previousPath)
        var common = 0
        while common < last.count, common < path.count, last[common] == path[common] { common += 1 }
        appendVarint(&out, last.count - common)
        out.append(contentsOf: path[common...])
        out.append(0)
        lastEmittedPath = path
        lastEmittedIsPreviousInput = false
      } else {
        out.append(contentsOf: path)
        let size = (62 + path.count + 8) & ~7
        out.append(contentsOf: repeatElement(0, count: headerStart + size - out.count))
      }
    }
  }

  private static func record(_ base: UnsafePointer<UInt8>, _ offset: Int, _ path: UnsafeBufferPointer<UInt8>)
    -> IndexEntryRecord
  {
    var r = IndexEntryRecord()
    r.ctimeSeconds = readUInt32(base, offset)
    r.ctimeNanoseconds = readUInt32(base, offset + 4)
    r.mtimeSeconds = readUInt32(base, offset + 8)
    r.mtimeNanoseconds = readUInt32(base, offset + 12)
    r.dev = readUInt32(base, offset + 16)
    r.ino = readUInt32(base, offset + 20)
    r.mode = readUInt32(base, offset + 24)
    r.uid = readUInt32(base, offset + 28)
    r.gid = readUInt32(base, offset + 32)
    r.size = readUInt32(base, offset + 36)
    r.id = Array(UnsafeBufferPointer(start: base + offset + 40, count: 20))
    r.path = Array(path)
    return r
  }

  private static func withPath<R>(
    _ base: UnsafePointer<UInt8>, _ start: Int, _ count: Int, _ v4Path: [UInt8],
    _ body: (UnsafeBufferPointer<UInt8>) throws -> R
  ) rethrows -> R {
    if start >= 0 { return try body(UnsafeBufferPointer(start: base + start, count: count)) }
    return try v4Path.withUnsafeBufferPointer { try body($0) }
  }

  /// Byte-wise order, as git sorts index entries.
  static func compare(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> Int {
    a.withUnsafeBufferPointer { compare($0, b) }
  }

  /// Byte-wise order, as git sorts index entries.
  static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
    let n = min(a.count, b.count)
    if n > 0 {
      let c = memcmp(a.baseAddress!, b.baseAddress!, n)
      if c != 0 { return c < 0 ? -1 : 1 }
    }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
  }

  /// The length of the longest common prefix of `a` and `b`, or with `from`, of the two after their first `from`
  /// bytes (counted from the start: `from` if they differ there, and at most their length).
  static func commonPrefixCount(_ a: [UInt8], _ b: [UInt8], from: Int = 0) -> Int {
    a.withUnsafeBufferPointer { a in
      b.withUnsafeBufferPointer { b in
        let n = min(a.count, b.count)
        var i = min(from, n)
        while i + 8 <= n {
          let x = UnsafeRawPointer(a.baseAddress! + i).loadUnaligned(as: UInt64.self)
          let y = UnsafeRawPointer(b.baseAddress! + i).loadUnaligned(as: UInt64.self)
          if x != y { break }
          i += 8
        }
        while i < n, a[i] == b[i] { i += 1 }
        return i
      }
    }
  }

  static func lexicographicallyPrecedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { compare(a, $0) < 0 } }
  }

  /// The version and entry count from an index's header, after checking it is one this patcher reads.
  private static func header(_ input: [UInt8]) throws -> (version: UInt32, entryCount: Int) {
    guard input.count >= 32, input[0] == 0x44, input[1] == 0x49, input[2] == 0x52, input[3] == 0x43 else {
      throw IndexNotHandled(reason: "not an index file (no DIRC signature)")
    }
    let version = readUInt32(input, 4)
    guard (2...4).contains(version) else { throw IndexNotHandled(reason: "index version \(version)") }
    return (version, Int(readUInt32(input, 8)))
  }

  private static func findNul(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int? {
    guard start < end, let found = memchr(base + start, 0, end - start) else { return nil }
    return UnsafeRawPointer(found) - UnsafeRawPointer(base)
  }

  /// git's offset varint (varint.c): big-endian 7-bit groups, each continuation adding one.
  private static func readVarint(_ base: UnsafePointer<UInt8>, _ cursor: inout Int, end: Int) -> Int? {
    guard cursor < end else { return nil }
    var byte = base[cursor]
    cursor += 1
    var value = Int(byte & 0x7F)
    while byte & 0x80 != 0 {
      guard cursor < end, value < (Int.max >> 8) else { return nil }
      byte = base[cursor]
      cursor += 1
      value = ((value + 1) << 7) | Int(byte & 0x7F)
    }
    return value
  }

  static func appendVarint(_ out: inout [UInt8], _ value: Int) {
    var bytes: [UInt8] = [UInt8(value & 0x7F)]
    var rest = value >> 7
    while rest != 0 {
      rest -= 1
      bytes.append(0x80 | UInt8(rest & 0x7F))
      rest >>= 7
    }
    out.append(contentsOf: bytes.reversed())
  }

  static func readUInt32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    bytes.withUnsafeBufferPointer { readUInt32($0.baseAddress!, offset) }
  }

  static func readUInt32(_ base: UnsafePointer<UInt8>, _ offset: Int) -> UInt32 {
    UInt32(bigEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt32.self))
  }

  private static func readUInt16(_ base: UnsafePointer<UInt8>, _ offset: Int) -> UInt16 {
    UInt16(base[offset]) << 8 | UInt16(base[offset + 1])
  }

  private static func bigEndianBytes(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
  }

  static func appendUInt32(_ out: inout [UInt8], _ value: UInt32) {
    out.append(contentsOf: bigEndianBytes(value))
  }
}

/// The `TREE` extension (git's cache-tree): tree ids of directories whose entries have not changed since.
enum CacheTree {
  struct Node {
    var name: [UInt8]
    var entryCount: Int
    var id: [UInt8]?
    var children: [Node]
  }

  /// Re-encodes `data` with, for each of `paths`, every ancestor directory invalidated (entry count -1, no id)
  /// and a subtree named by the path itself dropped: exactly what git's `cache_tree_invalidate_path` does. Also
  /// the root's id before, when it was valid.
  static func invalidating(_ data: ArraySlice<UInt8>, paths: [[UInt8]]) throws -> (bytes: [UInt8], rootID: [UInt8]?) {
    let bytes = Array(data)
    var cursor = 0
    guard !bytes.isEmpty else { return ([], nil) }
    var root = try parse(bytes, &cursor)
    guard cursor == bytes.count else { throw IndexNotHandled(reason: "trailing bytes in TREE") }
    let rootID = root.entryCount >= 0 ? root.id : nil
    for path in paths {
      invalidate(&root, path.split(separator: 0x2F, omittingEmptySubsequences: false)[...])
    }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    serialize(root, into: &out)
    return (out, rootID)
  }

  static func parse(_ bytes: [UInt8], _ cursor: inout Int) throws -> Node {
    func fail() -> IndexNotHandled { IndexNotHandled(reason: "malformed TREE extension") }
    guard let nul = bytes[cursor...].firstIndex(of: 0) else { throw fail() }
    let name = Array(bytes[cursor..<nul])
    cursor = nul + 1
    guard let space = bytes[cursor...].firstIndex(of: 0x20), let newline = bytes[space...].firstIndex(of: 0x0A),
      let count = Int(String(decoding: bytes[cursor..<space], as: UTF8.self)),
      let subtrees = Int(String(decoding: bytes[(space + 1)..<newline], as: UTF8.self)), subtrees >= 0
    else { throw fail() }
    cursor = newline + 1
    var id: [UInt8]?
    if count >= 0 {
      guard cursor + 20 <= bytes.count else { throw fail() }
      id = Array(bytes[cursor..<(cursor + 20)])
      cursor += 20
    }
    var children: [Node] = []
    for _ in 0..<subtrees { children.append(try parse(bytes, &cursor)) }
    return Node(name: name, entryCount: count, id: id, children: children)
  }

  private static func invalidate(_ node: inout Node, _ components: ArraySlice<ArraySlice<UInt8>>) {
    node.entryCount = -1
    node.id = nil
    guard let first = components.first else { return }
    guard let index = node.children.firstIndex(where: { $0.name.elementsEqual(first) }) else { return }
    if components.count == 1 {
      node.children.remove(at: index)
    } else {
      invalidate(&node.children[index], components.dropFirst())
    }
  }

  static func serialize(_ node: Node, into out: inout [UInt8]) {
    out.append(contentsOf: node.name)
    out.append(0)
    out.append(contentsOf: Array("\(node.entryCount) \(node.children.count)\n".utf8))
    if let id = node.id { out.append(contentsOf: id) }
    for child in node.children { serialize(child, into: &out) }
  }
}
