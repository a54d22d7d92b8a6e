import Foundation
import TextFormat

extension NoteRepository {
  /// The searches pinned on this device (`nb serve`'s home page lists them), in the order they were pinned. They
  /// are kept in `.git/nb/pinned-searches`, one query a line: a device's own shortcuts, never synced, so pinning
  /// makes no commit and another device's pins do not arrive with a pull. No file is no pins.
  public var pinnedSearches: [String] {
    guard let data = try? FileSystem.read(pinsPath, limit: 1 << 20), let text = String(data: data, encoding: .utf8)
    else { return [] }
    return text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
  }

  /// Pins `query` last (it stays where it is when pinned already).
  /// - Throws: ``NoteStoreError/invalidArgument(_:)`` for an empty query or one on several lines.
  public func pinSearch(_ query: String) throws {
    let query = query.trimmingWhitespaces()
    guard !query.isEmpty, !query.contains(where: \.isNewline) else {
      throw NoteStoreError.invalidArgument("a pinned search is one line of query text, not '\(query)'")
    }
    let pins = pinnedSearches
    guard !pins.contains(query) else { return }
    try writePins(pins + [query])
  }

  /// Removes `query` from the pinned searches; nothing happens when it is not pinned.
  public func unpinSearch(_ query: String) throws {
    let pins = pinnedSearches
    let query = query.trimmingWhitespaces()
    guard pins.contains(query) else { return }
    try writePins(pins.filter { $0 != query })
  }

  private var pinsPath: String { gitDirectory.appendingPathComponent("nb/pinned-searches").path }

  private func writePins(_ pins: [String]) throws {
    try FileSystem.makeDirectory(gitDirectory.appendingPathComponent("nb").path)
    try AtomicFile.write(
      Data(pins.map { $0 + "\n" }.joined().utf8), to: URL(fileURLWithPath: pinsPath), durable: true)
  }
}
