import Foundation

/// Files tests read: `Tests/Fixtures/` in this repository (real files from other tools, with their licences).
public enum TestData {
  /// `Tests/Fixtures`, found from this source file's place in the repository, so any clone finds it.
  public static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/Fixtures")

  /// A fixture by its path below `Tests/Fixtures`.
  public static func url(_ relative: String) -> URL { directory.appendingPathComponent(relative) }
}
