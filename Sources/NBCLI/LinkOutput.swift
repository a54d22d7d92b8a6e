import Foundation
import LinkKit
import NoteStore

/// The JSON shape of one link in `links`, `backlinks` and `check links` (documented in README.md): where it is, how
/// it is written, and what it reaches.
struct LinkJSON: Encodable {
  var link: IndexedLink
  /// `check links` only: `unresolved` or `ambiguous`.
  var problem: String?

  enum CodingKeys: String, CodingKey {
    case source, line, kind, target, headings, block, display, text, resolution, path, others, ambiguous, problem
    case sourceTitle = "source_title"
    case frontMatter = "front_matter"
  }

  func encode(to encoder: Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(link.source, forKey: .source)
    try c.encode(link.sourceTitle, forKey: .sourceTitle)
    try c.encode(link.line, forKey: .line)
    try c.encode(link.kind.rawValue, forKey: .kind)
    try c.encode(link.target, forKey: .target)
    try c.encode(link.headings, forKey: .headings)
    try c.encode(link.block, forKey: .block)
    try c.encode(link.display, forKey: .display)
    try c.encode(link.inFrontMatter, forKey: .frontMatter)
    try c.encode(link.text, forKey: .text)
    try c.encode(link.resolution.kindName, forKey: .resolution)
    try c.encode(link.resolution.path, forKey: .path)
    try c.encode(link.resolution.others, forKey: .others)
    try c.encode(link.resolution.isAmbiguous, forKey: .ambiguous)
    if let problem { try c.encode(problem, forKey: .problem) }
  }
}

extension LinkResolution {
  /// `note`, `attachment` or `unresolved`, as the JSON shapes say it.
  var kindName: String {
    switch self {
    case .note: "note"
    case .attachment: "attachment"
    case .unresolved: "unresolved"
    }
  }
}

extension IndexedLink {
  /// The link's path and anchor as a person reads them: `Roadmap#Goals`, `Roadmap#^b1`, `#Intro`.
  var written: String {
    target + headings.map { "#" + $0 }.joined() + (block.map { "#^" + $0 } ?? "")
  }
}
