import Foundation
import LinkKit
import TextFormat

/// One link of a note, from the index, with what it reaches among the repository's files now.
public struct IndexedLink: Equatable, Sendable {
  /// The note the link is in.
  public var source: String
  /// That note's title.
  public var sourceTitle: String
  /// The link's position among the note's links, from 0, in text order.
  public var ordinal: Int
  /// How it is written: `[[…]]`, `![[…]]`, `[…](…)` or `![…](…)`.
  public var kind: LinkKind
  /// The path part as written (percent-escapes decoded); `""` for a link into the same note (`[[#Heading]]`).
  public var target: String
  /// The heading chain after `#` (`["Goals"]` for `[[Roadmap#Goals]]`); empty for none.
  public var headings: [String]
  /// The block id after `#^`.
  public var block: String?
  /// The text after `|`, or a Markdown link's bracketed text.
  public var display: String?
  /// 1-based line in the note's file.
  public var line: Int
  /// Whether the link is a front matter property's value (`related: "[[X]]"`).
  public var inFrontMatter: Bool
  /// The link's line, trimmed; a long line is cut to a window around the link, `…` marking the cuts.
  public var text: String
  /// The note or file the link reaches (``LinkResolution/others`` when several could be meant), or unresolved.
  public var resolution: LinkResolution

  /// A link as given.
  public init(
    source: String, sourceTitle: String, ordinal: Int, kind: LinkKind, target: String, headings: [String],
    block: String?, display: String?, line: Int, inFrontMatter: Bool, text: String, resolution: LinkResolution
  ) {
    self.source = source
    self.sourceTitle = sourceTitle
    self.ordinal = ordinal
    self.kind = kind
    self.target = target
    self.headings = headings
    self.block = block
    self.display = display
    self.line = line
    self.inFrontMatter = inFrontMatter
    self.text = text
    self.resolution = resolution
  }
}

/// Every link of the repository checked: how many reach what, and the ones that need fixing.
public struct LinkCheck: Equatable, Sendable {
  /// Links in all notes.
  public var links = 0
  /// Notes in the repository.
  public var notes = 0
  /// Notes holding at least one link.
  public var notesWithLinks = 0
  /// Links reaching a note (another, or the same one by name); links into the same note are counted apart.
  public var toNotes = 0
  /// Links into the same note (`[[#Heading]]`, `[x](#^id)`).
  public var sameNote = 0
  /// Links reaching another file (an image, a PDF).
  public var toAttachments = 0
  /// Links reaching no file.
  public var unresolved = 0
  /// Resolved links a tie-break decided (they are counted in `toNotes` or `toAttachments` too).
  public var ambiguous = 0
  /// Every unresolved or ambiguous link, in path and text order.
  public var problems: [IndexedLink] = []

  /// Whether no link is unresolved or ambiguous.
  public var isClean: Bool { unresolved == 0 && ambiguous == 0 }

  /// An empty check.
  public init() {}
}

extension NoteRepository {
  /// The links `note` holds, in text order, each resolved against the repository's files — answered from the
  /// index, which reads only the files named like the links' targets (none of their text).
  public func links(from note: Note) throws -> [IndexedLink] {
    try index.read { db in try NoteIndex.links(db, from: note.path) } ?? []
  }

  /// The links that reach the note or file at `path` (repository-relative), in source path and text order,
  /// including the note's links into itself. Answered from the index without reading any note.
  public func backlinks(to path: String) throws -> [IndexedLink] {
    try index.read { db in try NoteIndex.backlinks(db, to: path) }
  }

  /// How many notes link to the note or file at `path`, and with how many links: ``backlinks(to:)`` counted, without
  /// reading more of each link than resolving needs.
  public func backlinkCount(to path: String) throws -> (notes: Int, links: Int) {
    try index.read { db in try NoteIndex.backlinkCount(db, to: path) }
  }

  /// Every link of every note resolved with one resolver over every path: counts, and each unresolved or
  /// ambiguous link.
  public func checkLinks() throws -> LinkCheck {
    try index.read { db in try NoteIndex.checkLinks(db) }
  }

  /// What a link target argument names: the path of a note or of another file (`Attachments/photo.png`; not in a
  /// dot-directory) when it is one — with or without `.md` for a note, relative to the root or absolute inside it —
  /// else a NOTE selector (``resolve(_:)``: an id, a title, a file name). A path reads no note.
  public func linkTarget(_ selector: String) throws -> String {
    var relative = selector.trimmingWhitespaces()
    if relative.hasPrefix("/") {
      let real = FileSystem.realPath(relative) ?? relative
      guard real.hasPrefix(realRoot + "/") else { throw NoteStoreError.outsideRepository(path: selector) }
      relative = String(real.dropFirst(realRoot.count + 1))
    }
    while relative.hasPrefix("./") { relative.removeFirst(2) }
    if let valid = try? Names.validateRelativePath(relative), !NoteIndex.isHidden(valid) {
      for path in valid.hasSuffix(".md") ? [valid] : [valid + ".md", valid]
      where FileSystem.lstatInfo(absolute(path))?.isRegular == true {
        try checkInside(path)
        return path
      }
    }
    return try resolve(selector).path
  }

  /// The path each link filter's NOTE argument names (see ``linkTarget(_:)``); a name that matches nothing, or
  /// several notes, is a query error pointing at the filter.
  func linkTargets(_ expression: QueryExpression, query text: String) throws -> [String: String] {
    var targets: [String: String] = [:]
    for filter in expression.filters {
      guard let selector = filter.linkSelector, targets[selector] == nil else { continue }
      do {
        // `links-to:` may name an attachment; the others need a note (only notes have links, titles, aliases).
        if case .linksTo = filter {
          targets[selector] = try linkTarget(selector)
        } else {
          targets[selector] = try resolve(selector).path
        }
      } catch let error as NoteStoreError {
        let message: String
        switch error {
        case .noteNotFound:
          message = "no note matches '\(selector)'; give a path, id or title\(filter.isLinksTo ? " (or a file's path)" : "")"
        case .ambiguousNote(_, let candidates):
          message = "'\(selector)' matches several notes: \(candidates.joined(separator: ", ")); give a path"
        default:
          message = error.description
        }
        let place = QueryLexer.place(ofFilterValue: selector, in: text)
        throw NoteStoreError.badQuery(
          QueryError(query: text, column: place?.column ?? 1, length: place?.length ?? 1, message: message))
      }
    }
    return targets
  }
}

extension QueryFilter {
  fileprivate var isLinksTo: Bool {
    if case .linksTo = self { return true }
    return false
  }
}
