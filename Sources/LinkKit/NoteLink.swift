import Foundation

/// How a link is written.
public enum LinkKind: String, Sendable, CaseIterable {
  /// `[[Note]]`, `[[Note#Heading|shown]]`.
  case wiki
  /// `![[Note]]`, `![[photo.png|100x145]]`, `![[Document.pdf#page=3]]`: a wiki link that shows the file inline.
  case embed
  /// `[shown](Some%20note.md)`, `[shown](<Some note.md>)`.
  case markdown
  /// `![alt](photo.png)`: a Markdown link that shows the file inline.
  case image
}

/// One link to a note or another file, as found in a note's text.
///
/// Byte offsets are UTF-8 offsets into the text that was scanned, so that a rewrite replaces exactly the bytes a
/// link's path occupies and nothing else.
public struct NoteLink: Equatable, Sendable {
  /// How the link is written.
  public var kind: LinkKind
  /// The path part, decoded: percent-escapes and backslash escapes of Markdown links undone (`Some%20note.md` ->
  /// `Some note.md`); wiki links are taken as written (trimmed of surrounding spaces). `""` for a link into the same
  /// note (`[[#Heading]]`, `[x](#Heading)`).
  public var target: String
  /// The heading chain after `#`: `["H1", "H2"]` for `[[Note#H1#H2]]`; `["page=3"]` for `![[Document.pdf#page=3]]`.
  /// Empty for none and for a block link.
  public var headings: [String]
  /// The block id after `#^`: `"37066d"` for `[[Note#^37066d]]`.
  public var block: String?
  /// What follows `|` in a wiki link (`"shown"`, `"100x145"`), the bracketed text of a Markdown link or image
  /// (possibly empty); nil for a wiki link without `|`.
  public var display: String?
  /// 1-based line of the link's first byte.
  public var line: Int
  /// UTF-8 byte offsets of the whole link, from its `!` or first `[` to its last `]` or `)`.
  public var range: Range<Int>
  /// UTF-8 byte offsets of the path part as written (still percent-encoded; inside `<…>` for an angle destination):
  /// the bytes a rename replaces. Empty (at the `#`) for a link into the same note.
  public var targetRange: Range<Int>
  /// Whether the link sits in the YAML front matter (inside a quoted value: `related: "[[X]]"`).
  public var inFrontMatter: Bool
  /// The quote around a front matter link (`"` or `'`), 0 in the body: what a rewrite must not write unescaped.
  var frontMatterQuote: UInt8 = 0
  /// Whether a Markdown link's destination is written in angle brackets (`(<Some note.md>)`), where spaces stay raw.
  var angleDestination = false

  /// A link with every value given.
  public init(
    kind: LinkKind, target: String, headings: [String] = [], block: String? = nil, display: String? = nil,
    line: Int, range: Range<Int>, targetRange: Range<Int>, inFrontMatter: Bool = false
  ) {
    self.kind = kind
    self.target = target
    self.headings = headings
    self.block = block
    self.display = display
    self.line = line
    self.range = range
    self.targetRange = targetRange
    self.inFrontMatter = inFrontMatter
  }

  /// Whether the link is written in wiki form (`[[…]]` or `![[…]]`).
  public var isWiki: Bool { kind == .wiki || kind == .embed }

  /// Whether the link shows the file inline (`![[…]]` or `![…](…)`).
  public var isEmbed: Bool { kind == .embed || kind == .image }

  /// Equal when every public value is (the quote is a consequence of the text, not part of the link).
  public static func == (lhs: NoteLink, rhs: NoteLink) -> Bool {
    lhs.kind == rhs.kind && lhs.target == rhs.target && lhs.headings == rhs.headings && lhs.block == rhs.block
      && lhs.display == rhs.display && lhs.line == rhs.line && lhs.range == rhs.range
      && lhs.targetRange == rhs.targetRange && lhs.inFrontMatter == rhs.inFrontMatter
  }
}
