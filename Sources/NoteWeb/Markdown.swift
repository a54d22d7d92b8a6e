import CCmarkGFM
import Foundation

/// Markdown to HTML through GitHub's cmark-gfm, in its safe mode: what a note page shows of a note's body.
public enum Markdown {
  /// Why Markdown cannot be rendered (cmark-gfm could not be loaded).
  public struct Unavailable: Error, CustomStringConvertible {
    /// The loader's account: the library names tried and why each failed.
    public var description: String
  }

  /// `text` as HTML: CommonMark with GitHub's tables, strikethrough, autolinks and task lists. Raw HTML in the
  /// text is never passed through: it is shown as text (a block as a code block), and a link or image whose address is
  /// `javascript:`, `vbscript:`, `file:` or a `data:` URL other than an image gets an empty address.
  /// - Parameter hardBreaks: a line break inside a paragraph becomes `<br />` (Obsidian's default reading view).
  /// - Throws: ``Unavailable`` when the system has no cmark-gfm.
  public static func html(_ text: String, hardBreaks: Bool = false) throws -> String {
    var options: Int32 = Int32(NB_CMARK_FOOTNOTES)
    if hardBreaks { options |= Int32(NB_CMARK_HARD_BREAKS) }
    var text = text
    let rendered = text.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { nb_cmark_render($0.baseAddress, $0.count, options) }
    }
    guard let rendered else {
      throw Unavailable(description: String(cString: nb_cmark_load_error()))
    }
    defer { nb_cmark_free(rendered) }
    return String(cString: rendered)
  }

  /// Whether this process has loaded cmark-gfm (it does so on the first ``html(_:hardBreaks:)``).
  public static var isLoaded: Bool { nb_cmark_is_loaded() != 0 }
}
