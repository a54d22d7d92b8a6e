import CLibGit2
import Foundation

/// Who made a commit, and when (whole seconds, as git stores it) in which time zone.
public struct Signature: Equatable, Sendable {
  /// The person's name, e.g. `"Ada Lovelace"`.
  public var name: String
  /// The e-mail address, without angle brackets.
  public var email: String
  /// The instant; git keeps whole seconds, so a read-back signature has no fraction.
  public var date: Date
  /// The offset from UTC that was in effect for the author, in minutes (east positive).
  public var timeZoneOffsetMinutes: Int

  /// A signature at `date` with the offset `timeZone` has at that instant.
  public init(name: String, email: String, date: Date = Date(), timeZone: TimeZone = .current) {
    self.init(
      name: name, email: email, date: date, timeZoneOffsetMinutes: timeZone.secondsFromGMT(for: date) / 60)
  }

  /// A signature with an explicit UTC offset in minutes.
  public init(name: String, email: String, date: Date, timeZoneOffsetMinutes: Int) {
    self.name = name
    self.email = email
    self.date = date
    self.timeZoneOffsetMinutes = timeZoneOffsetMinutes
  }

  /// The time zone matching `timeZoneOffsetMinutes`.
  public var timeZone: TimeZone {
    TimeZone(secondsFromGMT: timeZoneOffsetMinutes * 60) ?? TimeZone(identifier: "UTC")!
  }

  init(_ sig: UnsafePointer<git_signature>) {
    let value = sig.pointee
    self.init(
      name: value.name.map { String(cString: $0) } ?? "",
      email: value.email.map { String(cString: $0) } ?? "",
      date: Date(timeIntervalSince1970: TimeInterval(value.when.time)),
      timeZoneOffsetMinutes: Int(value.when.offset))
  }

  /// Creates a libgit2 signature; the caller frees it with `git_signature_free`.
  func makeGitSignature() throws -> UnsafeMutablePointer<git_signature> {
    var out: UnsafeMutablePointer<git_signature>?
    // Git stores whole seconds; rounding down matches what `git commit` does with the clock.
    let seconds = git_time_t(date.timeIntervalSince1970.rounded(.down))
    let rc = git_signature_new(&out, name, email, seconds, Int32(timeZoneOffsetMinutes))
    try check("git_signature_new", rc)
    guard let out else { throw GitError(function: "git_signature_new", code: -1, message: "no signature returned") }
    return out
  }
}
