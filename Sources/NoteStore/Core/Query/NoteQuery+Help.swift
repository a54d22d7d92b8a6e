extension NoteQuery {
  /// The query language, as `nb help search` prints it.
  public static var languageHelp: String { QueryLanguage.help }
}
