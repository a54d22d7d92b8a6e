import Foundation
import LinkKit

/// A note's body made ready for cmark-gfm: its links rewritten to this server's pages.
///
/// cmark-gfm knows nothing of `[[wiki links]]` and would send `[x](Some%20note.md)` to a path relative to the page.
/// Each link LinkKit finds (the same scanner the index uses, so code spans and blocks are left alone) is replaced
/// by a plain Markdown link to the page or file it resolves to; the text shown is escaped for Markdown, so nothing
/// in a link can open raw HTML or another construct.
public enum NoteMarkdown {
  /// What a link resolved to: its repository path, and whether that is a note (else another file).
  public struct Target: Equatable, Sendable {
    /// Repository-relative path.
    public var path: String
    /// Whether it is a Markdown note (a page) rather than an attachment (a file).
    public var isNote: Bool

    /// A target.
    public init(path: String, isNote: Bool) {
      self.path = path
      self.isNote = isNote
    }
  }

  /// The body of `text` (from byte `bodyStart`, the front matter left out) with every link in it rewritten.
  /// - Parameters:
  ///   - links: the links of the whole text, in text order (`LinkScanner.links(in: text)`).
  ///   - targets: what each link reaches, by its position in `links`; a link without one is unresolved.
  public static func body(of text: String, bodyStart: Int, links: [NoteLink], targets: [Int: Target]) -> String {
    let bytes = Array(text.utf8)
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count - bodyStart + 64)
    var position = bodyStart
    for (ordinal, link) in links.enumerated()
    where !link.inFrontMatter && link.range.lowerBound >= position && link.range.upperBound <= bytes.count {
      let target = targets[ordinal]
      switch link.kind {
      case .wiki, .embed:
        output += bytes[position..<link.range.lowerBound]
        output += Array(wikiReplacement(link, target).utf8)
        position = link.range.upperBound
      case .markdown, .image:
        guard let target, link.targetRange.lowerBound >= position, !link.targetRange.isEmpty else { continue }
        output += bytes[position..<link.targetRange.lowerBound]
        output += Array(url(target).utf8)
        position = link.targetRange.upperBound
      }
    }
    output += bytes[min(position, bytes.count)...]
    return String(decoding: output, as: UTF8.self)
  }

  /// The page or file URL of a target on this server.
  public static func url(_ target: Target) -> String {
    (target.isNote ? "/note/" : "/file/") + WebPath.encoded(target.path)
  }

  /// Markdown for a wiki link or embed: a link to what it reaches (an image embed shows the image), or to a search
  /// for its name when it reaches nothing.
  static func wikiReplacement(_ link: NoteLink, _ target: Target?) -> String {
    let written = link.target + link.headings.map { "#" + $0 }.joined() + (link.block.map { "#^" + $0 } ?? "")
    // An embed's text after `|` is a size (`100x145`), not words to show.
    let shown = link.kind == .embed ? nil : link.display
    let text = escaped(shown ?? (written.isEmpty ? "#" : written))
    // A heading link lands on the heading: the fragment is the id ``addingHeadingIDs(to:)`` gives it.
    let fragment = link.block == nil ? link.headings.last.map { "#" + WebPath.queryValue(anchor($0)) } ?? "" : ""
    guard let target else {
      if link.target.isEmpty { return fragment.isEmpty ? text : "[\(text)](\(fragment))" }
      return "[\(text)](/search?q=\(WebPath.queryValue("\"" + link.target + "\"")) \"not found\")"
    }
    if link.kind == .embed, !target.isNote, isImage(target.path) {
      return "![\(escaped(link.target))](\(url(target)))"
    }
    return "[\(text)](\(url(target))\(target.isNote ? fragment : ""))"
  }

  /// The id of a heading with this text: lower case, letters, digits, `-` and `_` kept, spaces (and tabs) made `-`,
  /// anything else dropped, as GitHub names its headings' anchors. Both ends use it: a `[[Note#Heading]]` link's
  /// fragment, and the heading's id on the note page.
  public static func anchor(_ heading: String) -> String {
    var result = ""
    for character in heading.trimmingCharacters(in: .whitespaces).lowercased() {
      if character.isLetter || character.isNumber || character == "-" || character == "_" {
        result.append(character)
      } else if character == " " || character == "\t" {
        result.append("-")
      }
    }
    return result
  }

  /// cmark-gfm's HTML with an `id` on every heading (`<h2 id="goals">`), from ``anchor(_:)`` of its text; a second
  /// heading of the same text gets `-1`, a third `-2`, as on GitHub. cmark-gfm writes a heading's tag with no
  /// attributes and passes no raw HTML through, so `<h1>`…`<h6>` in its output are headings and nothing else.
  public static func addingHeadingIDs(to html: String) -> String {
    var result = ""
    result.reserveCapacity(html.utf8.count + 64)
    var used: [String: Int] = [:]
    var rest = Substring(html)
    while let open = rest.range(of: "<h") {
      let afterTag = open.upperBound
      guard afterTag < rest.endIndex, let level = rest[afterTag].wholeNumberValue, (1...6).contains(level),
        rest[rest.index(after: afterTag)...].hasPrefix(">"),
        let close = rest.range(of: "</h\(level)>", range: afterTag..<rest.endIndex)
      else {
        result += rest[..<open.upperBound]
        rest = rest[open.upperBound...]
        continue
      }
      let contentStart = rest.index(afterTag, offsetBy: 2)
      var id = anchor(plainText(rest[contentStart..<close.lowerBound]))
      if let count = used[id] {
        used[id] = count + 1
        id += "-\(count)"
      } else {
        used[id] = 1
      }
      result += rest[..<open.lowerBound]
      result += id.isEmpty ? "<h\(level)>" : "<h\(level) id=\"\(HTML.escape(id))\">"
      rest = rest[contentStart...]
    }
    return result + rest
  }

  /// The text of a piece of cmark-gfm's HTML: tags dropped, the character references it writes read back.
  private static func plainText(_ html: Substring) -> String {
    var text = ""
    var inTag = false
    for character in html {
      if character == "<" {
        inTag = true
      } else if character == ">" {
        inTag = false
      } else if !inTag {
        text.append(character)
      }
    }
    for (reference, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
      text = text.replacingOccurrences(of: reference, with: character)
    }
    return text
  }

  /// `text` with every ASCII punctuation character backslash-escaped (CommonMark lets any be), and line breaks
  /// made spaces: it then reads as itself and nothing else inside a link's brackets.
  static func escaped(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      if scalar == "\n" || scalar == "\r" {
        result += " "
      } else if scalar.isASCII, scalar.properties.isPatternSyntax || scalar == "_" {
        result += "\\"
        result.unicodeScalars.append(scalar)
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Whether a file shows as an image: the raster formats browsers draw without running anything (never SVG).
  public static func isImage(_ path: String) -> Bool {
    imageTypes[(path as NSString).pathExtension.lowercased()] != nil
  }

  /// Content types of the images served for viewing, by lowercase extension.
  static let imageTypes: [String: String] = [
    "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
    "avif": "image/avif", "bmp": "image/bmp",
  ]
}
