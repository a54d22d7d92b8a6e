import Foundation

/// Pure helpers over repository-relative, `/`-separated paths.
enum RepoPaths {
  /// Directory part (`a/b` for `a/b/c.md`, `""` for `c.md`).
  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return String(path[..<slash])
  }

  /// Last component (`c.md` for `a/b/c.md`).
  static func lastComponent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }

  /// File name without the `.md` extension.
  static func stem(of path: String) -> String {
    let name = lastComponent(of: path)
    return name.hasSuffix(".md") ? String(name.dropLast(3)) : name
  }

  /// Joins a directory and a name; an empty directory means the root.
  static func join(_ directory: String, _ name: String) -> String {
    directory.isEmpty ? name : directory + "/" + name
  }

  /// Whether `path` is `directory` itself or lies below it (`""` contains everything).
  static func isInside(_ path: String, directory: String) -> Bool {
    directory.isEmpty || path == directory || path.hasPrefix(directory + "/")
  }

  /// The sidecar files that belong to a note and travel with it (same stem): ink today.
  static func sidecars(of notePath: String) -> [String] {
    let base = notePath.hasSuffix(".md") ? String(notePath.dropLast(3)) : notePath
    return [base + inkSuffix]
  }

  /// How an ink sidecar's name ends.
  static let inkSuffix = ".ink.jsonl"

  /// Whether a repository-relative path is a note file nb manages.
  static func isNotePath(_ path: String) -> Bool {
    path.hasSuffix(".md") && !lastComponent(of: path).hasPrefix(".")
  }
}
