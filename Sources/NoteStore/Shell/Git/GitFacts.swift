import Foundation

/// What an earlier process learnt from libgit2 that a later one can trust without starting it: the settings the
/// work-tree walk needs and the branch's upstream (both valid while the config files' bytes stay the same), a
/// packed HEAD commit's tree and summary (commits never change), and the ahead/behind counts of one pair of commits.
///
/// Derived data in `.git/nb/cache/git-facts`, safe to delete: a missing, damaged or outdated file only means
/// libgit2 answers once more and the file is written again.
struct GitFacts: Equatable {
  struct Config: Equatable {
    /// ``GitFiles/configDigest(environment:)`` when this was learnt.
    var digest: String
    /// False when a setting keeps the walk from answering (``NoteHistory`` then asks libgit2 for the status).
    var walk: Bool
    var trustCtime: Bool
    /// The branch this upstream belongs to, and its tracking reference (nil: none).
    var branch: String?
    var upstream: String?
  }

  struct CommitFacts: Equatable {
    var id: String
    var tree: String
    var summary: CommitSummary
  }

  struct Counts: Equatable {
    var local: String
    var remote: String
    var ahead: Int
    var behind: Int
  }

  var config: Config?
  var commit: CommitFacts?
  var counts: Counts?

  private static let header = "nb git facts 1"

  /// The facts of `text`; nothing for text in another shape (a file from another version, a torn write).
  init(text: String) {
    let lines = text.split(separator: "\n")
    guard lines.first == Self.header[...] else { return }
    for line in lines.dropFirst() {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map {
        CacheShard.unescape(ArraySlice($0.utf8))
      }
      switch fields.first {
      case "config" where fields.count == 6:
        config = Config(
          digest: fields[1], walk: fields[2] == "1", trustCtime: fields[3] == "1",
          branch: fields[4].isEmpty ? nil : fields[4], upstream: fields[5].isEmpty ? nil : fields[5])
      case "commit" where fields.count == 8:
        guard let seconds = Int64(fields[3]), let offset = Int(fields[4]) else { continue }
        commit = CommitFacts(
          id: fields[1], tree: fields[2],
          summary: CommitSummary(
            id: fields[1], subject: fields[7], author: fields[5], email: fields[6],
            date: Timestamp(
              date: Date(timeIntervalSince1970: TimeInterval(seconds)), offsetSeconds: offset * 60)))
      case "counts" where fields.count == 5:
        guard let ahead = Int(fields[3]), let behind = Int(fields[4]) else { continue }
        counts = Counts(local: fields[1], remote: fields[2], ahead: ahead, behind: behind)
      default: continue
      }
    }
  }

  init() {}

  var text: String {
    var text = Self.header + "\n"
    func line(_ fields: [String]) { text += fields.map(CacheShard.escape).joined(separator: "\t") + "\n" }
    if let config {
      line([
        "config", config.digest, config.walk ? "1" : "0", config.trustCtime ? "1" : "0", config.branch ?? "",
        config.upstream ?? "",
      ])
    }
    if let commit {
      let summary = commit.summary
      line([
        "commit", commit.id, commit.tree, String(Int64(summary.date.date.timeIntervalSince1970)),
        String(summary.date.offsetSeconds / 60), summary.author, summary.email, summary.subject,
      ])
    }
    if let counts {
      line(["counts", counts.local, counts.remote, String(counts.ahead), String(counts.behind)])
    }
    return text
  }

  /// The file's facts (empty when there is none).
  static func load(from path: String) -> GitFacts {
    guard let data = try? FileSystem.read(path, limit: 64 * 1024) else { return GitFacts() }
    return GitFacts(text: String(decoding: data, as: UTF8.self))
  }

  /// Replaces the file; a failure is ignored (the facts are learnt again next time).
  func save(to path: String) {
    try? FileSystem.makeDirectory(containing: path)
    try? AtomicFile.write(Data(utf8Of: text), to: URL(fileURLWithPath: path), durable: false)
  }
}

/// What committing without libgit2 needs from the config, or that the config rules it out (`plain` false), as
/// libgit2 read it while the config files' digest was `digest` (``GitFiles/configDigest(environment:)``);
/// ``NoteHistory`` turns it into GitKit's settings.
///
/// Derived data in `.git/nb/cache/commit-settings`, safe to delete: a missing, damaged or outdated file only means
/// the next commit starts libgit2, which learns them again. A file of its own, so that a process keeping
/// ``GitFacts`` it loaded earlier never writes over what a commit learnt meanwhile.
struct CommitSettingsFacts: Equatable {
  var digest: String
  var plain: Bool
  /// `user.name` and `user.email`; nil when unset or empty.
  var name: String?
  var email: String?
  /// False when `core.logAllRefUpdates` is false.
  var logsRefUpdates: Bool

  private static let header = "nb commit settings 1"

  init(digest: String, plain: Bool, name: String?, email: String?, logsRefUpdates: Bool) {
    self.digest = digest
    self.plain = plain
    self.name = name.flatMap { $0.isEmpty ? nil : $0 }
    self.email = email.flatMap { $0.isEmpty ? nil : $0 }
    self.logsRefUpdates = logsRefUpdates
  }

  /// The facts of `text`; nil for text in another shape (a file from another version, a torn write).
  init?(text: String) {
    let lines = text.split(separator: "\n")
    guard lines.count == 2, lines[0] == Self.header[...] else { return nil }
    let fields = lines[1].split(separator: "\t", omittingEmptySubsequences: false).map {
      CacheShard.unescape(ArraySlice($0.utf8))
    }
    guard fields.count == 5, fields[1] == "0" || fields[1] == "1" else { return nil }
    // An empty name or e-mail is an unset one.
    self.init(
      digest: fields[0], plain: fields[1] == "1", name: fields[2], email: fields[3], logsRefUpdates: fields[4] == "1")
  }

  var text: String {
    let fields = [digest, plain ? "1" : "0", name ?? "", email ?? "", logsRefUpdates ? "1" : "0"]
    return Self.header + "\n" + fields.map(CacheShard.escape).joined(separator: "\t") + "\n"
  }

  /// The file's facts; nil when there is none or it cannot be read.
  static func load(from path: String) -> CommitSettingsFacts? {
    guard let data = try? FileSystem.read(path, limit: 64 * 1024) else { return nil }
    return CommitSettingsFacts(text: String(decoding: data, as: UTF8.self))
  }

  /// Replaces the file; a failure is ignored (the settings are learnt again next time).
  func save(to path: String) {
    try? FileSystem.makeDirectory(containing: path)
    try? AtomicFile.write(Data(utf8Of: text), to: URL(fileURLWithPath: path), durable: false)
  }
}
