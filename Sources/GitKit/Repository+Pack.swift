import CLibGit2
import Foundation

/// What one path of a tree written by ``Repository/writeTree(updating:with:)`` holds.
public enum NewTreeFile: Sendable, Equatable {
  /// A blob (or submodule commit) the repository already has.
  case stored(TreeEntry)
  /// New bytes, stored as a blob with this mode.
  case bytes(Data, mode: FileMode)
}

extension Repository {
  /// Writes the tree of commit `base` (nil: the empty tree) with `changes` applied — a path to the file it now
  /// holds, or nil to remove it (a directory left empty goes too; a file may replace a directory or the reverse) —
  /// and returns its id. Only the trees on the way to a changed path are rebuilt; the others are reused as they
  /// are.
  ///
  /// Every new object (the blobs of `.bytes`, the rebuilt trees) goes into one pack written through the object
  /// database (`git_odb_write_pack`), not into a loose file each: a merge of a thousand notes wrote a few hundred
  /// loose objects, each a file created, written, linked and unlinked. Until a commit refers to the tree the
  /// objects are unreferenced, as loose ones would be; a process killed while the pack is written leaves at
  /// most a temporary file in `objects/pack`.
  public func writeTree(updating base: ObjectID?, with changes: [String: NewTreeFile?]) throws -> ObjectID {
    var pack = PackStream()
    var root: [String: TreeChangeNode] = [:]
    for (path, change) in changes {
      let components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
      guard !components.isEmpty else {
        throw GitError(function: "Repository.writeTree", code: GIT_EINVALIDSPEC.rawValue, message: "empty path")
      }
      TreeChangeNode.insert(components[...], change, into: &root)
    }
    var baseTree: git_oid?
    if let base {
      let tree = try commitTree(base)
      baseTree = git_tree_id(tree).pointee
      git_tree_free(tree)
    }
    let id = try buildTree(baseTree, root, into: &pack) ?? pack.add(.tree, [UInt8]())
    try pack.write(to: self)
    return ObjectID(id)
  }

  /// The tree `tree` (nil: none) with `changes` applied, its new objects added to `pack`; nil when it ends empty.
  private func buildTree(_ tree: git_oid?, _ changes: [String: TreeChangeNode], into pack: inout PackStream) throws
    -> git_oid?
  {
    if changes.isEmpty { return tree }
    var entries: [String: RawTreeEntry] = [:]
    if var tree {
      var handle: OpaquePointer?
      try check("git_tree_lookup", git_tree_lookup(&handle, pointer, &tree))
      defer { git_tree_free(handle) }
      for index in 0..<git_tree_entrycount(handle) {
        guard let entry = git_tree_entry_byindex(handle, index) else { continue }
        let name = String(cString: git_tree_entry_name(entry))
        entries[name] = RawTreeEntry(
          name: Array(name.utf8), mode: git_tree_entry_filemode_raw(entry).rawValue,
          id: git_tree_entry_id(entry).pointee)
      }
    }
    for (name, change) in changes {
      switch change {
      case .file(nil):
        entries[name] = nil
      case .file(.some(let file)):
        let entry: TreeEntry
        switch file {
        case .stored(let stored): entry = stored
        case .bytes(let data, let mode): entry = TreeEntry(id: ObjectID(pack.add(.blob, data)), mode: mode)
        }
        entries[name] = RawTreeEntry(name: Array(name.utf8), mode: entry.mode.rawValue, id: entry.id.oid)
      case .directory(let children):
        // A file in the way of a directory is replaced by it (its removal is among the changes).
        let existing = entries[name].flatMap { $0.mode == Self.treeMode ? $0.id : nil }
        if let id = try buildTree(existing, children, into: &pack) {
          entries[name] = RawTreeEntry(name: Array(name.utf8), mode: Self.treeMode, id: id)
        } else {
          entries[name] = nil
        }
      }
    }
    if entries.isEmpty { return nil }
    var bytes: [UInt8] = []
    for entry in entries.values.sorted(by: RawTreeEntry.gitOrder) {
      bytes += Array(String(entry.mode, radix: 8).utf8)
      bytes.append(0x20)
      bytes += entry.name
      bytes.append(0)
      withUnsafeBytes(of: entry.id.id) { bytes += $0 }
    }
    return pack.add(.tree, bytes)
  }

  /// A directory's mode in a tree (040000).
  fileprivate static let treeMode: UInt32 = 0o040000
}

/// The changes below one directory, by name: a file (nil: removed) or a directory of changes.
private enum TreeChangeNode {
  case file(NewTreeFile?)
  case directory([String: TreeChangeNode])

  static func insert(
    _ components: ArraySlice<String>, _ change: NewTreeFile?, into level: inout [String: TreeChangeNode]
  ) {
    let name = components.first!
    if components.count == 1 {
      // A file's own change wins over changes below a directory of that name only when it puts a file there;
      // removing the file leaves the directory's changes standing.
      if change != nil || level[name] == nil { level[name] = .file(change) }
      return
    }
    var children: [String: TreeChangeNode] = [:]
    switch level[name] {
    case .file(.some):
      // A file put at `name` replaces whatever was below it: what is changed there goes with it.
      return
    case .directory(let existing):
      children = existing
    case .file(.none), nil:
      break
    }
    insert(components.dropFirst(), change, into: &children)
    level[name] = .directory(children)
  }
}

/// One entry of a tree object as it is serialised.
private struct RawTreeEntry {
  var name: [UInt8]
  var mode: UInt32
  var id: git_oid

  /// git's order: names compared byte by byte, a directory's as if it ended in `/`.
  static func gitOrder(_ a: RawTreeEntry, _ b: RawTreeEntry) -> Bool {
    let length = min(a.name.count, b.name.count)
    for i in 0..<length where a.name[i] != b.name[i] { return a.name[i] < b.name[i] }
    let slash = UInt8(ascii: "/")
    let nextA = a.name.count > length ? a.name[length] : (a.mode == Repository.treeMode ? slash : 0)
    let nextB = b.name.count > length ? b.name[length] : (b.mode == Repository.treeMode ? slash : 0)
    return nextA < nextB
  }
}

/// A pack being assembled in memory: objects whole (no deltas), each in a zlib stream of stored (uncompressed)
/// blocks — the pack exists to save the files of loose objects, not bytes; `git gc` compresses it like any other.
struct PackStream {
  typealias ObjectType = PackObjectType

  private var body: [UInt8] = []
  private var ids: Set<String> = []
  private(set) var count = 0

  /// Adds an object (once, however often it is added) and returns its id.
  @discardableResult
  mutating func add(_ type: ObjectType, _ data: some ContiguousBytes) -> git_oid {
    data.withUnsafeBytes { bytes in
      var oid = git_oid()
      _ = git_odb_hash(&oid, bytes.baseAddress, bytes.count, type.libgit2)
      guard ids.insert(ObjectID(oid).hex).inserted else { return oid }
      count += 1
      type.appendHeader(size: bytes.count, to: &body)
      Self.appendZlibStored(bytes, to: &body)
      return oid
    }
  }

  /// zlib's format (RFC 1950) around deflate's stored blocks (RFC 1951, at most 65 535 bytes each).
  static func appendZlibStored(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
    out += [0x78, 0x01]
    var offset = 0
    repeat {
      let length = min(65_535, bytes.count - offset)
      let final: UInt8 = offset + length == bytes.count ? 1 : 0
      out += [final, UInt8(length & 0xff), UInt8(length >> 8), UInt8(~length & 0xff), UInt8((~length >> 8) & 0xff)]
      out += bytes[offset..<(offset + length)]
      offset += length
    } while offset < bytes.count
    var a: UInt32 = 1
    var b: UInt32 = 0
    var index = 0
    while index < bytes.count {
      // 5 552 bytes is the most that can be summed before the modulo without overflowing 32 bits.
      let end = min(bytes.count, index + 5_552)
      for i in index..<end {
        a &+= UInt32(bytes[i])
        b &+= a
      }
      a %= 65_521
      b %= 65_521
      index = end
    }
    let adler = (b << 16) | a
    out += [UInt8(adler >> 24), UInt8((adler >> 16) & 0xff), UInt8((adler >> 8) & 0xff), UInt8(adler & 0xff)]
  }

  /// The pack file's bytes: header, objects, SHA-1 trailer.
  var bytes: [UInt8] {
    var pack: [UInt8] = Array("PACK".utf8) + [0, 0, 0, 2]
    pack += [UInt8(count >> 24 & 0xff), UInt8(count >> 16 & 0xff), UInt8(count >> 8 & 0xff), UInt8(count & 0xff)]
    pack += body
    pack += pack.withUnsafeBytes { SHA1.hash($0) }
    return pack
  }

  /// Hands the pack to the repository's object database, which indexes it (`.idx`) next to the others; nothing
  /// when no object was added.
  func write(to repository: Repository) throws {
    guard count > 0 else { return }
    var odb: OpaquePointer?
    try check("git_repository_odb", git_repository_odb(&odb, repository.pointer))
    defer { git_odb_free(odb) }
    var writer: UnsafeMutablePointer<git_odb_writepack>?
    try check("git_odb_write_pack", git_odb_write_pack(&writer, odb, nil, nil))
    guard let writer else {
      throw GitError(function: "git_odb_write_pack", code: -1, message: "no pack writer")
    }
    defer { writer.pointee.free?(writer) }
    guard let append = writer.pointee.append, let commit = writer.pointee.commit else {
      throw GitError(function: "git_odb_write_pack", code: -1, message: "the pack writer cannot append")
    }
    var stats = git_indexer_progress()
    let pack = bytes
    try check("git_odb_writepack.append", pack.withUnsafeBytes { append(writer, $0.baseAddress, $0.count, &stats) })
    try check("git_odb_writepack.commit", commit(writer, &stats))
  }
}

extension PackObjectType {
  var libgit2: git_object_t {
    switch self {
    case .commit: GIT_OBJECT_COMMIT
    case .tree: GIT_OBJECT_TREE
    case .blob: GIT_OBJECT_BLOB
    }
  }
}
