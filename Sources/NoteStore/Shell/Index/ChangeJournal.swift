// TEMPORARY STUB
public final class ChangeJournal {
  public static func open(repository: NoteRepository) throws -> ChangeJournal? { nil }
  public func record(_ changes: [(path: String, isDirectory: Bool)]) {}
  public func recordRescan() {}
  public func close() {}
}
