import Foundation

/// File-name slugs derived from note titles.
///
/// A slug becomes a file name on every device that pulls the repository, so it keeps only characters that are safe
/// and meaningful on all common file systems, while still reading naturally in any script.
enum Slug {
  /// The longest slug in characters (grapheme clusters).
  static let maxCharacters = 80

  /// The longest slug in UTF-8 bytes. File systems limit names to 255 bytes; the cap leaves room for the `.md`,
  /// `.ink.jsonl` and conflict-copy suffixes nb appends, even when every character is a multi-byte one or carries
  /// several combining marks.
  static let maxBytes = 160

  /// The slug used when a title has no letters or digits at all.
  static let fallback = "untitled"

  /// File-name slug for a title: NFC, lower-cased; Unicode letters, digits and marks kept; `_` kept; every run of
  /// other characters (spaces, punctuation, symbols, `/`, `\`, control chars) becomes one `-`; leading/trailing `-`
  /// and `.` trimmed; at most 80 characters (cut on a character boundary, no trailing `-`). Empty → "untitled".
  ///
  /// A combining mark is kept only after a kept character: a mark that followed a replaced character would
  /// otherwise end up attached to a `-` or start the name on its own.
  static func make(_ title: String) -> String {
    // Lower-casing can decompose (e.g. "İ" → "i" + U+0307), so normalise after it as well as before. ASCII is its
    // own normal form, and Foundation's normalisation bridges through NSString and UTF-16 (two generic conformances
    // the runtime finds by scanning every conformance record in the binary, at every `nb add`).
    let lowered =
      title.utf8.allSatisfy { $0 < 0x80 }
      ? title.lowercased()
      : title.precomposedStringWithCanonicalMapping.lowercased().precomposedStringWithCanonicalMapping

    var scalars = String.UnicodeScalarView()
    var pendingSeparator = false
    var previousKept = false
    for scalar in lowered.unicodeScalars {
      let keep: Bool
      switch scalar.properties.generalCategory {
      case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber:
        keep = true
      case .nonspacingMark, .spacingMark, .enclosingMark:
        keep = previousKept
      default:
        keep = scalar == "_"
      }
      if keep {
        if pendingSeparator && !scalars.isEmpty { scalars.append("-") }
        pendingSeparator = false
        scalars.append(scalar)
      } else {
        pendingSeparator = true
      }
      previousKept = keep
    }

    let cut = truncate(String(scalars))
    return cut.isEmpty ? fallback : cut
  }

  /// `base` if `isTaken(base)` is false, else base-2, base-3, ...
  static func unique(_ base: String, isTaken: (String) -> Bool) -> String {
    guard isTaken(base) else { return base }
    var number = 2
    while isTaken("\(base)-\(number)") { number += 1 }
    return "\(base)-\(number)"
  }

  /// Cuts to the length limits on a character boundary and trims separators the cut may have exposed.
  private static func truncate(_ slug: String) -> String {
    var result = ""
    var bytes = 0
    for character in slug.prefix(maxCharacters) {
      let size = character.utf8.count
      if bytes + size > maxBytes { break }
      result.append(character)
      bytes += size
    }
    return trimSeparators(result)
  }

  private static func trimSeparators(_ text: String) -> String {
    let isSeparator: (Character) -> Bool = { $0 == "-" || $0 == "." }
    guard let first = text.firstIndex(where: { !isSeparator($0) }),
      let last = text.lastIndex(where: { !isSeparator($0) })
    else { return "" }
    return String(text[first...last])
  }
}
