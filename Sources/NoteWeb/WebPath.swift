import Foundation

/// A repository path taken from a request's URL, checked before any file is touched.
///
/// The path of a URL is attacker-controlled text: it must name a file inside the repository, never climb out of it
/// (`..`, also percent-encoded), never start at the file system's root, and never reach git's own files.
public enum WebPath {
  /// Why a path is refused; the message says so to the client.
  public struct Refused: Error, Equatable, CustomStringConvertible {
    /// One line for the client.
    public var description: String
  }

  /// The repository-relative path the raw (still percent-encoded) URL path `raw` names, e.g. `work/My%20note.md` ->
  /// `work/My note.md`.
  ///
  /// Each segment is decoded on its own, so an encoded slash (`%2F`) can only make a segment that is then refused;
  /// empty segments, `.` and `..`, a `.git` segment in any case (a case-insensitive file system finds `.GIT`), a
  /// backslash, a NUL or another control character, and text that does not decode to UTF-8 are refused.
  /// - Throws: ``Refused``.
  public static func repositoryPath(_ raw: Substring) throws -> String {
    if raw.isEmpty { throw Refused(description: "no path") }
    var segments: [String] = []
    for part in raw.split(separator: "/", omittingEmptySubsequences: false) {
      guard let segment = percentDecoded(part) else {
        throw Refused(description: "the path is not valid percent-encoded UTF-8")
      }
      if segment.isEmpty || segment == "." || segment == ".." {
        throw Refused(description: "the path has an empty, '.' or '..' segment")
      }
      if segment.unicodeScalars.contains(where: { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }) {
        throw Refused(description: "the path has a slash, backslash or control character inside a segment")
      }
      if segment.lowercased() == ".git" {
        throw Refused(description: "git's own files are not served")
      }
      segments.append(segment)
    }
    return segments.joined(separator: "/")
  }

  /// The file `path` (from ``repositoryPath(_:)``) names under `root`, when it exists and, with every symbolic link
  /// on the way followed, still lies inside `root`. nil for a file that does not exist.
  /// - Throws: ``Refused`` for a path that leaves the repository through a symbolic link.
  public static func file(_ path: String, in root: URL) throws -> URL? {
    let base = root.resolvingSymlinksInPath().standardizedFileURL.path
    let candidate = root.appendingPathComponent(path)
    guard FileManager.default.fileExists(atPath: candidate.path) else { return nil }
    guard let real = realPath(candidate.path) else { return nil }
    let prefix = base.hasSuffix("/") ? base : base + "/"
    guard real == base || real.hasPrefix(prefix) else {
      throw Refused(description: "the path leads out of the repository")
    }
    // A symbolic link inside the repository into .git (notes/x -> ../.git/config) is git's file all the same.
    let inside = real.dropFirst(prefix.count)
    if inside.split(separator: "/").contains(where: { $0.lowercased() == ".git" }) {
      throw Refused(description: "git's own files are not served")
    }
    return URL(fileURLWithPath: real)
  }

  /// The URL path segment for a repository path: each segment percent-encoded but for RFC 3986's unreserved
  /// characters, joined with `/`.
  public static func encoded(_ path: String) -> String {
    path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
      segment.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }.joined(separator: "/")
  }

  /// A query-string value (application/x-www-form-urlencoded's space as `%20`, which every reader takes).
  public static func queryValue(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
  }

  private static let unreserved = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

  /// `%XX` sequences decoded, the result read as UTF-8; nil for a malformed escape or bytes that are not UTF-8.
  static func percentDecoded<S: StringProtocol>(_ text: S, plusIsSpace: Bool = false) -> String? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
      if byte == UInt8(ascii: "%") {
        guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
          return nil
        }
        bytes.append(high << 4 | low)
      } else if plusIsSpace && byte == UInt8(ascii: "+") {
        bytes.append(UInt8(ascii: " "))
      } else {
        bytes.append(byte)
      }
    }
    return String(validating: bytes, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
