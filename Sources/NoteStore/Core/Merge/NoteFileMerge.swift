import Foundation

/// The conflict markers a merge writes around a chunk both sides changed, in git's format: `<<<<<<< ours-label`,
/// ours' lines, `=======`, theirs' lines, `>>>>>>> theirs-label`, each marker `size` characters long.
public struct ConflictMarkers: Equatable, Sendable {
  /// How many `<`, `=` and `>` characters a marker has (git's `%L`, 7 unless a `conflict-marker-size` attribute says
  /// otherwise).
  public var size: Int
  /// The text after `<<<<<<<` (empty: none).
  public var oursLabel: String
  /// The text after `>>>>>>>` (empty: none).
  public var theirsLabel: String

  /// Markers of `size` characters labelled `oursLabel` and `theirsLabel`.
  public init(size: Int = 7, oursLabel: String = "ours", theirsLabel: String = "theirs") {
    self.size = size
    self.oursLabel = oursLabel
    self.theirsLabel = theirsLabel
  }

  /// The lines that replace a conflicting chunk. Lines both sides have at the chunk's start or end stay outside the
  /// markers (as git's merge trims them), so the markers hold only what really differs; the markers use the line
  /// break `ending` (the file's), and a side whose last line has none gets one so a marker never joins a line.
  func lines(around ours: ArraySlice<Substring>, _ theirs: ArraySlice<Substring>, ending: String) -> [Substring] {
    var ours = ours
    var theirs = theirs
    var before: [Substring] = []
    // Bytes, not Characters: "\r\n" is one Character, so `hasSuffix("\n")` would miss it.
    func broken(_ line: Substring) -> Bool { line.utf8.last == UInt8(ascii: "\n") }
    while let first = ours.first, first == theirs.first, broken(first) {
      before.append(first)
      ours = ours.dropFirst()
      theirs = theirs.dropFirst()
    }
    var after: [Substring] = []
    while let last = ours.last, last == theirs.last {
      after.insert(last, at: 0)
      ours = ours.dropLast()
      theirs = theirs.dropLast()
    }
    func marker(_ character: Character, _ label: String) -> Substring {
      Substring(String(repeating: character, count: max(size, 1)) + (label.isEmpty ? "" : " " + label) + ending)
    }
    func closed(_ side: ArraySlice<Substring>) -> [Substring] {
      var lines = Array(side)
      if let last = lines.last, !broken(last) { lines[lines.count - 1] = last + ending }
      return lines
    }
    return before + [marker("<", oursLabel)] + closed(ours) + [marker("=", "")] + closed(theirs)
      + [marker(">", theirsLabel)] + after
  }
}

/// Three-way merge of one note file's bytes, as a git merge driver needs it: never fails, and on a conflict keeps
/// both sides in the text between git's markers.
///
/// A UTF-8 note is merged by `NoteMerge` (front matter key by key, the later `updated`, the body by
/// `TextMerge`). When that finds a conflict, the front matter is still merged by those rules if it can be and only
/// the body's conflicting lines get markers; otherwise (a front matter key changed on both sides, front matter that
/// cannot be parsed) the whole file is merged line by line with markers, as git would. Bytes that are not UTF-8 are
/// merged line by line too, byte for byte, so neither side is lost.
public enum NoteFileMerge {
  /// The merged file.
  public enum Outcome: Equatable, Sendable {
    /// Both sides' changes combined, without markers.
    case merged(Data)
    /// The text with conflict markers around what both sides changed; `reason` says what (a key, the body).
    case conflicted(Data, reason: String)
  }

  /// Merges `ours` and `theirs` (each a note file's bytes) derived from `base` (empty when both sides added the
  /// file, as git passes it).
  public static func merge(base: Data, ours: Data, theirs: Data, markers: ConflictMarkers = ConflictMarkers())
    -> Outcome
  {
    guard let baseText = NoteRepository.decodeUTF8(base), let ourText = NoteRepository.decodeUTF8(ours),
      let theirText = NoteRepository.decodeUTF8(theirs)
    else {
      return mergeBytes(base: base, ours: ours, theirs: theirs, markers: markers)
    }
    let reason: String
    switch NoteMerge.merge(base: base.isEmpty ? nil : baseText, ours: ourText, theirs: theirText) {
    case .clean(let text): return .merged(Data(text.utf8))
    case .conflict(let why): reason = why
    }
    if let marked = mergeFrontMatterThenMarkBody(base: baseText, ours: ourText, theirs: theirText, markers: markers) {
      return marked.conflicts == 0
        ? .merged(Data(marked.text.utf8)) : .conflicted(Data(marked.text.utf8), reason: reason)
    }
    let marked = TextMerge.mergeMarkingConflicts(base: baseText, ours: ourText, theirs: theirText, markers: markers)
    return marked.conflicts == 0 ? .merged(Data(marked.text.utf8)) : .conflicted(Data(marked.text.utf8), reason: reason)
  }

  /// The front matter merged by `NoteMerge`'s rules with every body set to ours' (so only the front matter can
  /// differ), then ours' body replaced by the marked body merge; nil when the front matter alone conflicts.
  private static func mergeFrontMatterThenMarkBody(
    base: String, ours: String, theirs: String, markers: ConflictMarkers
  ) -> (text: String, conflicts: Int)? {
    let ourBody = FrontMatter.body(of: ours)
    func withOurBody(_ text: String) -> String {
      String(text[..<FrontMatter.body(of: text).startIndex]) + ourBody
    }
    let matterBase = base.isEmpty ? nil : withOurBody(base)
    guard case .clean(let matter) = NoteMerge.merge(base: matterBase, ours: ours, theirs: withOurBody(theirs)) else {
      return nil
    }
    let matterBody = FrontMatter.body(of: matter)
    // NoteMerge edits only front matter lines here, so the body it returns is ours'; anything else is unexpected and
    // left to the plain line merge.
    guard matterBody == ourBody else { return nil }
    let body = TextMerge.mergeMarkingConflicts(
      base: String(FrontMatter.body(of: base)), ours: String(ourBody), theirs: String(FrontMatter.body(of: theirs)),
      markers: markers)
    return (String(matter[..<matterBody.startIndex]) + body.text, body.conflicts)
  }

  /// A line merge of bytes that are not UTF-8: each byte read as the Unicode scalar of the same number (ISO 8859-1),
  /// so line breaks are found and every byte comes back out unchanged.
  private static func mergeBytes(base: Data, ours: Data, theirs: Data, markers: ConflictMarkers) -> Outcome {
    func latin1(_ data: Data) -> String {
      var scalars = String.UnicodeScalarView()
      scalars.append(contentsOf: data.map { Unicode.Scalar($0) })
      return String(scalars)
    }
    // The labels go in as their UTF-8 bytes too, so every scalar of the result is one byte.
    var byteMarkers = markers
    byteMarkers.oursLabel = latin1(Data(markers.oursLabel.utf8))
    byteMarkers.theirsLabel = latin1(Data(markers.theirsLabel.utf8))
    let marked = TextMerge.mergeMarkingConflicts(
      base: latin1(base), ours: latin1(ours), theirs: latin1(theirs), markers: byteMarkers)
    let bytes = Data(marked.text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
    return marked.conflicts == 0 ? .merged(bytes) : .conflicted(bytes, reason: "not UTF-8 text")
  }
}
