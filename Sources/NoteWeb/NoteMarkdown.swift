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
    guard let target else {
      if link.target.isEmpty { return text }
      return "[\(text)](/search?q=\(WebPath.queryValue("\"" + link.target + "\"")) \"not found\")"
    }
    if link.kind == .embed, !target.isNote, isImage(target.path) {
      return "![\(escaped(link.target))](\(url(target)))"
    }
    return "[\(text)](\(url(target)))"
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
