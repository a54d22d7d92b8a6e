import Foundation

/// `nb sync --json` as these tests read it: parsed with JSONSerialization rather than with a copy of the command's
/// types, so a change to the command's encoder cannot change what the tests expect. The properties are named after
/// the documented keys; reading fails, as decoding did, when one is missing or holds another type.
struct SyncJSON {
  /// One conflict of the summary.
  struct Conflict {
    var path: String
    var winner: String
    var loser: String
    var kept_at: String
    var reason: String

    init(_ object: JSONObject) throws {
      path = try object["path"]
      winner = try object["winner"]
      loser = try object["loser"]
      kept_at = try object["kept_at"]
      reason = try object["reason"]
    }
  }

  /// One link the merge rewrote to follow a renamed or moved note.
  struct FollowedLink: Equatable {
    var path: String
    var line: Int
    var old: String
    var new: String

    init(path: String, line: Int, old: String, new: String) {
      self.path = path
      self.line = line
      self.old = old
      self.new = new
    }

    init(_ object: JSONObject) throws {
      path = try object["path"]
      line = try object["line"]
      old = try object["old"]
      new = try object["new"]
    }
  }

  var outcome: String
  var remote: String
  var dry_run: Bool
  var received: Int
  var sent: Int
  var saved: [String]
  var merged: [String]
  var conflicts: [Conflict]
  var resurrected: [String]
  var warnings: [String]
  var backup_ref: String?
  var attempts: Int
  var links_followed: [FollowedLink]

  init(_ data: Data) throws {
    let object = try JSONObject(data)
    outcome = try object["outcome"]
    remote = try object["remote"]
    dry_run = try object["dry_run"]
    received = try object["received"]
    sent = try object["sent"]
    saved = try object["saved"]
    merged = try object["merged"]
    conflicts = try object.objects("conflicts").map(Conflict.init)
    resurrected = try object["resurrected"]
    warnings = try object["warnings"]
    backup_ref = try object.optional("backup_ref")
    attempts = try object["attempts"]
    links_followed = try object.objects("links_followed").map(FollowedLink.init)
  }
}

/// A JSON object as JSONSerialization reads it, with typed reads that throw (naming the key) instead of trapping.
struct JSONObject {
  struct Mismatch: Error, CustomStringConvertible {
    var description: String
  }

  let values: [String: Any]

  init(_ data: Data) throws {
    try self.init(JSONSerialization.jsonObject(with: data), what: "the document")
  }

  init(_ value: Any, what: String) throws {
    guard let values = value as? [String: Any] else { throw Mismatch(description: "\(what) is not a JSON object") }
    self.values = values
  }

  /// The value of `key`, which must be there and be a `T`.
  subscript<T>(key: String) -> T {
    get throws {
      guard let value = values[key] else { throw Mismatch(description: "no key '\(key)'") }
      guard let typed = value as? T else { throw Mismatch(description: "'\(key)' is not a \(T.self): \(value)") }
      return typed
    }
  }

  /// The value of `key` when it is there and not null (then it must be a `T`).
  func optional<T>(_ key: String) throws -> T? {
    guard let value = values[key], !(value is NSNull) else { return nil }
    let typed: T = try self[key]
    return typed
  }

  /// The array of objects at `key`.
  func objects(_ key: String) throws -> [JSONObject] {
    let array: [Any] = try self[key]
    return try array.enumerated().map { try JSONObject($1, what: "'\(key)'[\($0)]") }
  }
}
