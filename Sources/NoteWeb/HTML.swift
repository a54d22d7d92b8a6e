/// Text made safe to place in an HTML page.
public enum HTML {
  /// `text` with the five characters that can end a text node or an attribute value (`&`, `<`, `>`, `"`, `'`)
  /// written as character references: safe between tags and inside a quoted attribute value. Everything a note
  /// holds reaches a page through this (or through cmark-gfm's own escaping).
  public static func escape(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else {
      return text
    }
    var result = ""
    result.reserveCapacity(text.utf8.count + 16)
    for character in text.unicodeScalars {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&#39;"
      default: result.unicodeScalars.append(character)
      }
    }
    return result
  }
}
