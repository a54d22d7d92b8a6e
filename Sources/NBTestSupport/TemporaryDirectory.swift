import Foundation

/// A fresh, uniquely named directory under the system temporary directory, removed when the object goes away.
///
/// The path has symlinks resolved (e.g. macOS `/var` -> `/private/var`) so it compares equal to paths that git,
/// libgit2 or `realpath` report for the same place.
public final class TemporaryDirectory {
  /// The directory.
  public let url: URL

  /// The directory's path.
  public var path: String { url.path }

  /// Creates the directory; `prefix` makes leftovers of a crashed run recognisable.
  public init(prefix: String = "nb-test") throws {
    let base = FileManager.default.temporaryDirectory.resolvingSymlinksInPath()
    let url = base.appendingPathComponent("\(prefix)-\(UUID().uuidString.lowercased())", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    self.url = url.resolvingSymlinksInPath()
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }

  /// The URL of `relative` (a `/`-separated path) inside the directory; nothing is created.
  public func file(_ relative: String) -> URL {
    url.appendingPathComponent(relative)
  }

  /// Writes `contents` (UTF-8) to `relative`, creating intermediate directories; returns the file's URL.
  @discardableResult
  public func write(_ relative: String, _ contents: String) throws -> URL {
    try write(relative, Data(contents.utf8))
  }

  /// Writes `data` to `relative`, creating intermediate directories; returns the file's URL.
  @discardableResult
  public func write(_ relative: String, _ data: Data) throws -> URL {
    let target = file(relative)
    try FileManager.default.createDirectory(
      at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: target)
    return target
  }

  /// Creates the subdirectory `relative` (and its parents); returns its URL.
  @discardableResult
  public func directory(_ relative: String) throws -> URL {
    let target = file(relative)
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    return target
  }
}
