extension CacheTree {
  /// The cache tree of `table` with every directory valid: a directory `existing` already holds as valid keeps its
  /// id; every other one gets the id of a tree made from its index entries (and its subdirectories' ids), each new
  /// tree handed to `store` as its id and content. The root's id is then the tree of the whole index, as `git
  /// write-tree` makes it from its cache tree.
  ///
  /// The trees are made from the index rather than by editing HEAD's: a commit of a thousand notes spread over a
  /// hundred folders of a thousand notes each made libgit2 read, edit and write back each folder's tree (130 ms at
  /// 100 000 notes), then compare each written tree with the index again to mark the cache tree valid (130 ms more).
  /// Made from the index, each tree is serialized once and is valid by construction.
  ///
  /// `table` must have no unusual entries (conflict stages, intent-to-add, skip-worktree): the caller checks
  /// ``IndexTable/hasUnusualEntries``.
  static func built(
    _ table: IndexTable, existing: Node?, store: (_ id: [UInt8], _ content: [UInt8]) throws -> Void
  ) throws -> Node {
    try build(existing, name: [], table: table, prefixCount: 0, range: 0..<table.entries.count, store: store)
  }

  private static func build(
    _ node: Node?, name: [UInt8], table: IndexTable, prefixCount: Int, range: Range<Int>,
    store: (_ id: [UInt8], _ content: [UInt8]) throws -> Void
  ) throws -> Node {
    // A valid directory's id describes exactly its entries (git's cache-tree invariant; nb's patch invalidates
    // every directory above a path it touches).
    if let node, node.entryCount == range.count, node.id != nil { return node }
    var content: [UInt8] = []
    var children: [Node] = []
    for kid in table.children(prefixCount: prefixCount, range: range) {
      let kidName = table.name(kid)
      if kid.isDirectory {
        let previous = node?.children.first { $0.name.elementsEqual(kidName) }
        let sub = try build(
          previous, name: Array(kidName), table: table, prefixCount: prefixCount + kidName.count + 1,
          range: kid.range, store: store)
        content.append(contentsOf: directoryMode)
        content.append(contentsOf: kidName)
        content.append(0)
        content.append(contentsOf: sub.id!)
        children.append(sub)
      } else {
        let entry = table.entries[kid.entry]
        content.append(contentsOf: Array(String(table.mode(entry), radix: 8).utf8))
        content.append(0x20)
        content.append(contentsOf: kidName)
        content.append(0)
        content.append(contentsOf: table.id(entry))
      }
    }
    let id = content.withUnsafeBytes { GitObjectHash.digest(prefix: Array("tree \(content.count)\0".utf8), $0) }
    try store(id, content)
    // git keeps subtrees ordered by name length, then bytes (subtree_name_cmp), and writes them in that order.
    children.sort {
      $0.name.count != $1.name.count ? $0.name.count < $1.name.count : $0.name.lexicographicallyPrecedes($1.name)
    }
    return Node(name: name, entryCount: range.count, id: id, children: children)
  }

  /// A tree entry's mode for a subdirectory, and the space after it.
  private static let directoryMode = Array("40000 ".utf8)
}
