import CLibGit2

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension CacheTree {
  /// The cache tree of `table` with every directory whose index entries are exactly those of the matching
  /// directory of `tree` marked valid with that tree's id, as `git commit` leaves it: after nb's commit the index
  /// usually equals the new HEAD tree, and a valid cache tree lets `scanWorkTree` (and git) see that nothing is
  /// staged without reading a tree.
  ///
  /// A directory already valid is trusted (its id describes the index, whatever HEAD holds); an invalid one is
  /// compared entry by entry with `tree`, reading only the trees of such directories. Only ids of trees that exist
  /// (`tree`'s own) are recorded, so git may reuse them when it writes a tree.
  static func revalidated(_ table: IndexTable, against tree: OpaquePointer, repository: OpaquePointer) throws -> Node {
    try validate(
      existing(in: table), name: [], table: table, prefix: [], range: 0..<table.entries.count, tree: tree,
      repository: repository
    ).node
  }

  /// The cache tree `table` holds; nil when it has none or it cannot be read (then every directory is made anew).
  static func existing(in table: IndexTable) -> Node? {
    guard let range = table.cacheTree, !range.isEmpty else { return nil }
    var cursor = 0
    return try? parse(Array(table.bytes[range]), &cursor)
  }

  private static func validate(
    _ node: Node?, name: [UInt8], table: IndexTable, prefix: [UInt8], range: Range<Int>, tree: OpaquePointer,
    repository: OpaquePointer
  ) throws -> (node: Node, equal: Bool) {
    let treeID = Repository.bytes(of: git_tree_id(tree).pointee)
    if let node, node.entryCount >= 0, let id = node.id {
      return (node, id == treeID)
    }
    let kids = table.children(prefixCount: prefix.count, range: range)
    let count = git_tree_entrycount(tree)
    var byName: [ArraySlice<UInt8>: OpaquePointer] = [:]
    byName.reserveCapacity(count)
    for i in 0..<count {
      guard let entry = git_tree_entry_byindex(tree, i), let cName = git_tree_entry_name(entry) else { continue }
      let entryName = UnsafeBufferPointer(
        start: UnsafeRawPointer(cName).assumingMemoryBound(to: UInt8.self), count: strlen(cName))
      byName[ArraySlice(entryName)] = entry
    }
    var equal = kids.count == count
    var children: [Node] = []
    for kid in kids {
      let kidName = table.name(kid)
      let entry = byName[kidName]
      if !kid.isDirectory {
        guard let entry else {
          equal = false
          continue
        }
        let e = table.entries[kid.entry]
        if git_tree_entry_type(entry) != GIT_OBJECT_BLOB || git_tree_entry_filemode_raw(entry).rawValue != table.mode(e)
          || !table.id(e).elementsEqual(Repository.bytes(of: git_tree_entry_id(entry).pointee))
        {
          equal = false
        }
        continue
      }
      let previous = node?.children.first { $0.name.elementsEqual(kidName) }
      guard let entry, git_tree_entry_type(entry) == GIT_OBJECT_TREE else {
        equal = false
        children.append(previous ?? Node(name: Array(kidName), entryCount: -1, id: nil, children: []))
        continue
      }
      // A directory the cache tree already holds as valid is settled by its id: reading its tree object (a
      // loose file to open and inflate, for every sibling of the one changed path) would tell nothing more.
      if let previous, previous.entryCount >= 0, let id = previous.id {
        children.append(previous)
        equal = equal && id.elementsEqual(Repository.bytes(of: git_tree_entry_id(entry).pointee))
        continue
      }
      var subtree: OpaquePointer?
      try check("git_tree_lookup", git_tree_lookup(&subtree, repository, git_tree_entry_id(entry)))
      defer { git_tree_free(subtree) }
      let sub = try validate(
        previous, name: Array(kidName), table: table, prefix: prefix + kidName + [0x2F], range: kid.range,
        tree: subtree!,
        repository: repository)
      children.append(sub.node)
      equal = equal && sub.equal
    }
    // git keeps subtrees ordered by name length, then bytes (subtree_name_cmp), and writes them in that order.
    children.sort {
      $0.name.count != $1.name.count ? $0.name.count < $1.name.count : $0.name.lexicographicallyPrecedes($1.name)
    }
    if equal { return (Node(name: name, entryCount: range.count, id: treeID, children: children), true) }
    return (Node(name: name, entryCount: -1, id: nil, children: children), false)
  }
}

extension IndexFile {
  /// `snapshot` (decoded as `table`) with its `TREE` extension replaced by `root`, other extensions kept, and the
  /// checksum recomputed from the first changed byte on.
  static func replacingCacheTree(_ snapshot: Snapshot, table: IndexTable, root: CacheTree.Node) -> Snapshot {
    var result = snapshot
    replaceCacheTree(&result, entriesEnd: table.entriesEnd, root: root)
    return result
  }

  /// Replaces the `TREE` extension of `snapshot`, whose entries end at `entriesEnd`, by `root`, keeping the other
  /// extensions, and recomputes the checksum from `entriesEnd` on. In place when the caller holds the only
  /// reference to the bytes (no `IndexTable` of them alive): an index of 100 000 entries is not copied again.
  static func replaceCacheTree(_ snapshot: inout Snapshot, entriesEnd: Int, root: CacheTree.Node) {
    let bodyEnd = snapshot.bytes.count - 20
    var tail = Array("TREE".utf8)
    var tree: [UInt8] = []
    CacheTree.serialize(root, into: &tree)
    appendUInt32(&tail, UInt32(tree.count))
    tail.append(contentsOf: tree)
    var offset = entriesEnd
    while offset + 8 <= bodyEnd {
      let size = Int(readUInt32(snapshot.bytes, offset + 4))
      let isTree = snapshot.bytes[offset..<(offset + 4)].elementsEqual("TREE".utf8)
      if !isTree { tail.append(contentsOf: snapshot.bytes[offset..<min(bodyEnd, offset + 8 + size)]) }
      offset += 8 + size
    }
    snapshot.bytes.replaceSubrange(entriesEnd..., with: tail)
    let (digest, checkpoints) = checksum(
      snapshot.bytes, bodyCount: snapshot.bytes.count, resumingFrom: snapshot.checkpoints, unchangedPrefix: entriesEnd)
    snapshot.bytes.append(contentsOf: digest)
    snapshot.checkpoints = checkpoints
  }
}

extension Repository {
  /// Marks the index's cache tree valid for every directory whose entries are `commit`'s, as `git checkout` and
  /// `git clone` leave it. libgit2's checkout writes the index without one, so until the next commit every status —
  /// a sync with nothing to do saves first — declined `scanWorkTree` and paid libgit2's comparison of the whole index
  /// with HEAD's tree and the work tree (35 ms at 10 000 notes, against 15 for the walk).
  ///
  /// Best effort, never throwing: without it the index is as correct, only slower to read. Only the `TREE`
  /// extension changes, so the rewritten file keeps the old one's mtime: an entry racily clean before (a file the
  /// checkout wrote in the index's second) stays racily clean and is still compared by content when next looked at,
  /// where a newer mtime would have had to be paid for by reading every such file now (45 ms for a thousand).
  func revalidateIndexCacheTree(against commit: ObjectID) {
    let indexPath = gitDirectory.appendingPathComponent("index").path
    guard case .success(let loaded) = indexFileStore.load(indexPath), let table = try? IndexTable(loaded.snapshot),
      !table.hasUnusualEntries, let tree = try? commitTree(commit)
    else { return }
    defer { git_tree_free(tree) }
    guard let root = try? CacheTree.revalidated(table, against: tree, repository: pointer) else { return }
    let result = IndexFile.replacingCacheTree(loaded.snapshot, table: table, root: root)
    var derived = IndexFileStore.Derived()
    derived.hasConflicts = loaded.derived.hasConflicts
    derived.attributeFiles = loaded.derived.attributeFiles
    _ = try? indexFileStore.write(
      indexPath, result.bytes, checkpoints: result.checkpoints, derived: derived,
      keepingModificationTime: (loaded.identity.mtimeSeconds, loaded.identity.mtimeNanoseconds))
  }
}
