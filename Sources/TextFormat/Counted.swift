/// `1 note`, `3 notes`: the one pluralizer for commit subjects, messages and command output (English, regular
/// plurals, which is all nb's nouns need).
package func counted(_ count: Int, _ noun: String) -> String {
  "\(count) \(noun)\(count == 1 ? "" : "s")"
}
