import Foundation

/// Pure rules for attachments: the Markdown line that links one, and the name a copy gets in the folder.
enum AttachmentLinks {
  /// The line `nb attach` appends for a file: `[name](plan.files/name)`, relative to the note's own directory so it
  /// keeps working when the note and its folder move together.
  ///
  /// The destination is percent-encoded rather than written in the `<…>` form: CommonMark, GitHub and Obsidian all
  /// decode `%20` in a link, while Obsidian does not read every `<…>` destination as a link. Space, the
  /// parentheses (which would end the destination), `<`, `>`, `[`, `]`, `#` and `?` (a fragment or query to a
  /// browser), `%` itself, `\` and control characters are encoded; other characters, non-ASCII included, stay as
  /// they are so the line stays readable. In the link text `\`, `[` and `]` are escaped with a backslash.
  static func markdown(name: String, folder: String) -> String {
    "[\(escapedText(name))](\(encodedPath(folder))/\(encodedPath(name)))"
  }

  /// `name` with the characters a link destination cannot hold as they are percent-encoded (UTF-8 bytes).
  static func encodedPath(_ name: String) -> String {
    var result = ""
    for scalar in name.unicodeScalars {
      if scalar.value < 0x21 || scalar.value == 0x7F || " ()<>[]#?%\\".unicodeScalars.contains(scalar) {
        for byte in String(scalar).utf8 { result += String(format: "%%%02X", byte) }
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Link text with `\`, `[` and `]` escaped, so a name such as `a]b` cannot end the text early.
  static func escapedText(_ name: String) -> String {
    var result = ""
    for character in name {
      if character == "\\" || character == "[" || character == "]" { result.append("\\") }
      result.append(character)
    }
    return result
  }

  /// The name a copy of `name` gets when `taken(name)` says the folder already holds it: `name-2.ext`, `name-3.ext`,
  /// … (the number goes before the last extension; a name without one, or a dot-file, gets it at the end).
  static func unique(_ name: String, taken: (String) -> Bool) -> String {
    guard taken(name) else { return name }
    let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
    let base = dot.map { String(name[..<$0]) } ?? name
    let ext = dot.map { String(name[$0...]) } ?? ""
    var number = 2
    while taken("\(base)-\(number)\(ext)") { number += 1 }
    return "\(base)-\(number)\(ext)"
  }

  /// `text` with its links into the attachment folder `old` pointing into `new` instead (a renamed note's folder is
  /// renamed with it): destinations starting `old/` in the percent-encoded form nb writes, the raw form, or the
  /// `<…>` form. Other text, and links elsewhere, are left as they are.
  static func retargeting(_ text: String, from old: String, to new: String) -> String {
    var result = text
    for (before, after) in [
      ("](" + encodedPath(old) + "/", "](" + encodedPath(new) + "/"),
      ("](" + old + "/", "](" + encodedPath(new) + "/"),
      ("](<" + old + "/", "](<" + new + "/"),
    ] where before != after {
      result = result.replacingOccurrences(of: before, with: after)
    }
    return result
  }
}
