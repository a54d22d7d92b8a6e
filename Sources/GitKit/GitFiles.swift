#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import Foundation

/// What git keeps in plain files under `.git`, read without libgit2: where HEAD points, a reference's commit, the
/// operation in progress, the config files' bytes and a loose commit.
///
/// libgit2's start-up (loading it and its libraries, `git_libgit2_init`) costs more than a whole `git status` of a
/// small repository; a command that only looks (`nb status` on a clean tree) reads these files instead. Every
/// answer is nil where the files do not settle it (an unusual layout, a reference libgit2 would resolve through
/// something else, a packed commit): the caller then asks libgit2, so nothing here has to model all of git.
public struct GitFiles: Sendable {
  /// Where HEAD points.
  public enum Head: Equatable, Sendable {
    /// A branch (`main`), which may have no commit yet.
    case branch(String)
    /// A commit, straight (detached HEAD).
    case detached(ObjectID)
  }

  /// The per-worktree git directory (`.git`, or what a gitlink names).
  public let gitDirectory: String
  /// Where the shared files live: the same directory, or what `commondir` names for a linked worktree.
  public let commonDirectory: String

  /// Reads the git directory `gitDirectory` (as ``Repository/gitDirectory`` names it).
  public init(gitDirectory: URL) {
    var directory = gitDirectory.path
    while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
    self.gitDirectory = directory
    if let common = Self.firstLine(directory + "/commondir") {
      commonDirectory = common.hasPrefix("/") ? common : directory + "/" + common
    } else {
      commonDirectory = directory
    }
  }

  /// Where HEAD points; nil when the file is missing or holds something else (a symbolic ref outside `refs/`).
  public func head() -> Head? {
    guard let line = Self.firstLine(gitDirectory + "/HEAD") else { return nil }
    if let id = ObjectID(hex: line) { return .detached(id) }
    guard line.hasPrefix("ref:") else { return nil }
    let target = Self.trimmed(line.utf8.dropFirst(4))
    let prefix = "refs/heads/"
    guard target.hasPrefix(prefix), target.count > prefix.count, !target.contains("..") else { return nil }
    return .branch(String(target.dropFirst(prefix.count)))
  }

  /// The commit HEAD resolves to: `.some(nil)` on a branch without commits, nil when the files do not say.
  public func headCommit() -> ObjectID?? {
    switch head() {
    case .detached(let id): return .some(id)
    case .branch(let name):
      let reference = "refs/heads/" + name
      if let id = resolve(reference) { return .some(id) }
      // Unborn only when neither a loose ref nor a packed one exists; a loose ref holding something else is
      // libgit2's to judge.
      return isAbsent(reference) ? .some(nil) : nil
    case nil: return nil
    }
  }

  /// The commit a full reference name (`refs/heads/main`, `refs/remotes/origin/main`) points to: a loose ref,
  /// else `packed-refs`; nil when neither holds it as an id.
  public func resolve(_ reference: String) -> ObjectID? {
    guard reference.hasPrefix("refs/"), !reference.contains("..") else { return nil }
    for base in directories {
      if let line = Self.firstLine(base + "/" + reference) { return ObjectID(hex: line) }
    }
    return packedReference(reference)
  }

  private func isAbsent(_ reference: String) -> Bool {
    for base in directories where access(base + "/" + reference, F_OK) == 0 {
      return false
    }
    return packedReference(reference) == nil
  }

  /// The per-worktree directory first, as git looks.
  private var directories: [String] {
    commonDirectory == gitDirectory ? [gitDirectory] : [gitDirectory, commonDirectory]
  }

  private func packedReference(_ reference: String) -> ObjectID? {
    guard let data = Self.contents(of: commonDirectory + "/packed-refs", limit: 64 << 20) else { return nil }
    let wanted = Array(reference.utf8)
    return data.withUnsafeBufferPointer { bytes -> ObjectID? in
      var start = 0
      while start < bytes.count {
        let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
        // "<40 hex> <name>": the name runs to the end of the line (peeled "^" lines and comments never match).
        if end - start == 41 + wanted.count, bytes[start + 40] == 0x20,
          bytes[(start + 41)..<end].elementsEqual(wanted)
        {
          return ObjectID(hex: String(decoding: bytes[start..<(start + 40)], as: UTF8.self))
        }
        start = end + 1
      }
      return nil
    }
  }

  /// The operation git has left in progress, judged by the files libgit2's `git_repository_state` looks for.
  public var state: RepositoryState {
    func exists(_ name: String) -> Bool { access(gitDirectory + "/" + name, F_OK) == 0 }
    if exists("rebase-apply") {
      return exists("rebase-apply/rebasing") ? .rebase : .applyMailbox
    }
    if exists("rebase-merge") { return .rebase }
    if exists("MERGE_HEAD") { return .merge }
    if exists("REVERT_HEAD") { return .revert }
    if exists("CHERRY_PICK_HEAD") { return .cherryPick }
    if exists("BISECT_LOG") { return .bisect }
    return .none
  }

  /// A digest of every config file libgit2 reads for this repository (system, XDG, global, the repository's and
  /// its worktree's), so that what was learnt from the config can be kept until one of them changes; nil when a
  /// file includes another (whose changes the digest would not see) or cannot be read.
  /// `environment` nil reads the process's two variables it needs (copying the whole environment into a
  /// dictionary costs more than the digest).
  public func configDigest(environment: [String: String]? = nil) -> String? {
    func variable(_ name: String) -> String? {
      if let environment { return environment[name] }
      return getenv(name).map { String(cString: $0) }
    }
    var files = ["/etc/gitconfig"]
    let home = variable("HOME") ?? ""
    if let xdg = variable("XDG_CONFIG_HOME"), !xdg.isEmpty {
      files.append(xdg + "/git/config")
    } else if !home.isEmpty {
      files.append(home + "/.config/git/config")
    }
    if !home.isEmpty { files.append(home + "/.gitconfig") }
    files.append(commonDirectory + "/config")
    files.append(gitDirectory + "/config.worktree")
    var hashed: [UInt8] = []
    for file in files {
      hashed.append(contentsOf: file.utf8)
      hashed.append(0)
      guard let bytes = Self.contents(of: file, limit: 1 << 20) else {
        // Missing is an answer (the file adds nothing); unreadable or too large is not.
        if errno == ENOENT || errno == ENOTDIR { continue }
        return nil
      }
      if Self.mentionsInclude(bytes) { return nil }
      hashed.append(contentsOf: "\(bytes.count)\0".utf8)
      hashed.append(contentsOf: bytes)
    }
    return lowercaseHex(hashed.withUnsafeBytes { SHA1.hash($0) })
  }

  /// True when the config text has an `[include]` or `[includeIf …]` section (any case): a cheap, conservative
  /// look at the bytes.
  static func mentionsInclude(_ bytes: [UInt8]) -> Bool {
    let needle = Array("include".utf8)
    guard bytes.count >= needle.count else { return false }
    for start in 0...(bytes.count - needle.count) {
      var matches = true
      for offset in 0..<needle.count where bytes[start + offset] | 0x20 != needle[offset] {
        matches = false
        break
      }
      if matches { return true }
    }
    return false
  }

  /// A commit stored as a loose object, parsed; nil when it is not loose (packed commits are libgit2's to read) or
  /// is not a commit.
  public func looseCommit(_ id: ObjectID) -> Commit? {
    guard let object = looseObject(id, limit: 4 << 20), object.type == "commit" else { return nil }
    return Self.parseCommit(id: id, object.body)
  }

  /// One entry of a tree object.
  public struct TreeEntry: Equatable, Sendable {
    /// The name's bytes (git does not promise UTF-8).
    public var name: [UInt8]
    /// The octal mode: `100644`, `100755`, `120000` (symlink), `40000` (tree), `160000` (submodule).
    public var mode: UInt32
    public var id: ObjectID
    /// True for a subtree.
    public var isTree: Bool { mode == 0o40000 }
  }

  /// A loose object's type and contents after its header; nil when it is not loose, or damaged (its bytes do not
  /// hash to its id).
  func looseObject(_ id: ObjectID, limit: Int = 64 << 20) -> (type: String, body: ArraySlice<UInt8>)? {
    let hex = id.hex
    let path = "\(commonDirectory)/objects/\(hex.prefix(2))/\(hex.dropFirst(2))"
    guard let compressed = Self.contents(of: path, limit: limit), let zlib = Zlib.shared,
      let raw = compressed.withUnsafeBytes({ zlib.inflate($0, limit: limit + 64) }),
      let space = raw.prefix(16).firstIndex(of: 0x20), let nul = raw.prefix(32).firstIndex(of: 0), space < nul,
      Int(String(decoding: raw[(space + 1)..<nul], as: UTF8.self)) == raw.count - nul - 1,
      lowercaseHex(raw.withUnsafeBytes { SHA1.hash($0) }) == hex
    else { return nil }
    return (String(decoding: raw[0..<space], as: UTF8.self), raw[(nul + 1)...])
  }

  /// A loose tree's entries, in the tree's order; nil when it is not loose or not a tree.
  public func looseTree(_ id: ObjectID) -> [TreeEntry]? {
    guard let object = looseObject(id), object.type == "tree" else { return nil }
    var entries: [TreeEntry] = []
    let body = object.body
    var index = body.startIndex
    while index < body.endIndex {
      guard let space = body[index...].firstIndex(of: 0x20), let nul = body[space...].firstIndex(of: 0),
        nul + 21 <= body.endIndex, let mode = UInt32(String(decoding: body[index..<space], as: UTF8.self), radix: 8)
      else { return nil }
      entries.append(
        TreeEntry(name: Array(body[(space + 1)..<nul]), mode: mode, id: ObjectID(raw: body[(nul + 1)..<(nul + 21)])))
      index = nul + 21
    }
    return entries
  }

  /// A loose blob's bytes; nil when it is not loose or not a blob.
  public func looseBlob(_ id: ObjectID) -> [UInt8]? {
    guard let object = looseObject(id), object.type == "blob" else { return nil }
    return Array(object.body)
  }

  /// The entry at `path` (`/`-separated) in the tree `tree`: `.some(nil)` when there is none, nil when a tree on
  /// the way is not loose.
  public func entry(at path: String, inTree tree: ObjectID) -> TreeEntry?? {
    var current = tree
    let components = path.split(separator: "/", omittingEmptySubsequences: false)
    for (position, component) in components.enumerated() {
      guard let entries = looseTree(current) else { return nil }
      guard let found = entries.first(where: { $0.name.elementsEqual(component.utf8) }) else { return .some(nil) }
      if position == components.count - 1 { return .some(found) }
      guard found.isTree else { return .some(nil) }
      current = found.id
    }
    return .some(nil)
  }

  /// The files that differ between two trees (`old` nil: the empty tree), as `git diff-tree -r` names them, from
  /// loose trees only: only the subtrees whose ids differ are read. nil when one of them is not loose.
  public func changedPaths(fromTree old: ObjectID?, toTree new: ObjectID) -> Set<String>? {
    var paths = Set<String>()
    func compare(_ old: ObjectID?, _ new: ObjectID?, prefix: String) -> Bool {
      if old == new { return true }
      let oldEntries = old.map { looseTree($0) } ?? []
      let newEntries = new.map { looseTree($0) } ?? []
      guard let oldEntries, let newEntries else { return false }
      var byName: [[UInt8]: (old: TreeEntry?, new: TreeEntry?)] = [:]
      for entry in oldEntries { byName[entry.name, default: (nil, nil)].old = entry }
      for entry in newEntries { byName[entry.name, default: (nil, nil)].new = entry }
      for (name, pair) in byName where pair.old != pair.new {
        let path = prefix + String(decoding: name, as: UTF8.self)
        // A file on one side and a tree on the other is the file's change and every file of the tree.
        if let old = pair.old, !old.isTree { paths.insert(path) }
        if let new = pair.new, !new.isTree { paths.insert(path) }
        let oldTree = pair.old.flatMap { $0.isTree ? $0.id : nil }
        let newTree = pair.new.flatMap { $0.isTree ? $0.id : nil }
        if oldTree != nil || newTree != nil {
          guard compare(oldTree, newTree, prefix: path + "/") else { return false }
        }
      }
      return true
    }
    return compare(old, new, prefix: "") ? paths : nil
  }

  /// A commit object's body (headers, a blank line, the message), as git writes it.
  static func parseCommit(id: ObjectID, _ body: ArraySlice<UInt8>) -> Commit? {
    var tree: ObjectID?
    var parents: [ObjectID] = []
    var author: Signature?
    var committer: Signature?
    var index = body.startIndex
    while index < body.endIndex {
      let end = body[index...].firstIndex(of: 0x0A) ?? body.endIndex
      let line = body[index..<end]
      index = end < body.endIndex ? end + 1 : end
      if line.isEmpty { break }
      // Continuation lines (a signature's armour) start with a space.
      if line.first == 0x20 { continue }
      guard let space = line.firstIndex(of: 0x20) else { continue }
      let key = String(decoding: line[line.startIndex..<space], as: UTF8.self)
      let value = line[(space + 1)...]
      switch key {
      case "tree": tree = ObjectID(hex: String(decoding: value, as: UTF8.self))
      case "parent":
        guard let parent = ObjectID(hex: String(decoding: value, as: UTF8.self)) else { return nil }
        parents.append(parent)
      case "author": author = parseSignature(value)
      case "committer": committer = parseSignature(value)
      case "encoding":
        // A message in another encoding is libgit2's to hand over as it does.
        let encoding = String(decoding: value, as: UTF8.self).lowercased()
        if encoding != "utf-8" && encoding != "utf8" { return nil }
      default: continue
      }
    }
    guard let tree, let author, let committer else { return nil }
    // libgit2 hands the message over without the line breaks it may start with.
    while index < body.endIndex, body[index] == 0x0A { index += 1 }
    let message = String(decoding: body[index...], as: UTF8.self)
    return Commit(
      id: id, parents: parents, author: author, committer: committer, message: message,
      summary: summary(of: message), tree: tree)
  }

  /// `Name <email> seconds ±hhmm`.
  private static func parseSignature(_ bytes: ArraySlice<UInt8>) -> Signature? {
    guard let open = bytes.lastIndex(of: 0x3C), let close = bytes.lastIndex(of: 0x3E), open < close else {
      return nil
    }
    var name = String(decoding: bytes[bytes.startIndex..<open], as: UTF8.self)
    while name.hasSuffix(" ") { name.removeLast() }
    let email = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
    let rest = String(decoding: bytes[(close + 1)...], as: UTF8.self).split(separator: " ")
    guard rest.count == 2, let seconds = Int64(rest[0]), let zone = Int(rest[1].dropFirst()),
      rest[1].first == "+" || rest[1].first == "-"
    else { return nil }
    let minutes = (zone / 100 * 60 + zone % 100) * (rest[1].first == "-" ? -1 : 1)
    return Signature(
      name: name, email: email, date: Date(timeIntervalSince1970: TimeInterval(seconds)),
      timeZoneOffsetMinutes: minutes)
  }

  /// The subject as `git_commit_summary` gives it (and `git log --format=%s` for every message nb or git writes):
  /// the first paragraph, each run of white space that holds a line break made one space, other runs kept, the
  /// white space at the end dropped.
  static func summary(of message: String) -> String {
    let bytes = Array(message.utf8)
    var summary: [UInt8] = []
    var space: Int?
    var spaceHasNewline = false
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == 0x0A {
        // A paragraph ends at a line that is empty or only white space.
        var next = index + 1
        while next < bytes.count, bytes[next] != 0x0A, isSpace(bytes[next]) { next += 1 }
        if next >= bytes.count || bytes[next] == 0x0A { break }
      }
      if isSpace(byte) {
        if space == nil {
          space = index
          spaceHasNewline = false
        }
        spaceHasNewline = spaceHasNewline || byte == 0x0A
      } else {
        if let start = space {
          if spaceHasNewline { summary.append(0x20) } else { summary.append(contentsOf: bytes[start..<index]) }
        }
        space = nil
        summary.append(byte)
      }
      index += 1
    }
    return String(decoding: summary, as: UTF8.self)
  }

  // MARK: - Files

  static func firstLine(_ path: String) -> String? {
    guard let bytes = contents(of: path, limit: 4096) else { return nil }
    let end = bytes.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) ?? bytes.count
    return trimmed(bytes[0..<end])
  }

  /// The text of `bytes` without the spaces and tabs around it (Foundation's trimming starts its character sets,
  /// which costs more than reading the file).
  static func trimmed<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> String {
    let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
    guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) })
    else { return "" }
    return String(decoding: bytes[first...last], as: UTF8.self)
  }

  /// The whole file, when it is a regular file of at most `limit` bytes; nil otherwise, with `errno` telling why.
  static func contents(of path: String, limit: Int) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) <= limit else {
      errno = EFBIG
      return nil
    }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var done = 0
    while done < bytes.count {
      let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return nil }
      done += count
    }
    return bytes
  }
}
