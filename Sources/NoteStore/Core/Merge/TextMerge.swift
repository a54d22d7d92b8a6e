import Foundation

/// The result of a line-level three-way merge.
enum TextMergeResult: Equatable, Sendable {
  /// Both sides' changes combined; the text holds no conflict markers.
  case clean(String)
  /// Both sides changed the same lines (or inserted different lines at the same place) differently.
  case conflict
}

/// Line-level three-way merge (diff3) of plain texts.
///
/// A line is compared together with its line break (`\n`, `\r\n`, or none for a last line without one), so the
/// merged text carries every line break exactly as the side that contributed the line wrote it; a change of line
/// ending style is a change like any other. Conflicts are reported, never written into the text.
///
/// Complexity: the two diffs use Myers' O((N + M) · D) algorithm (D = number of differing lines) after the common
/// prefix and suffix are stripped, with O(D²) memory for the path; the diff3 walk is linear. Typical note edits
/// have a small D, so merging is close to linear in the note's size. Past ``LineDiff/maxEditDistance`` differing
/// lines the diff gives up on matching the changed middle: the merge stays correct (it can only report more
/// conflicts), and time and memory stay bounded.
enum TextMerge {
  /// Merges `ours` and `theirs`, both derived from `base`.
  static func merge(base: String, ours: String, theirs: String) -> TextMergeResult {
    if ours == theirs || theirs == base { return .clean(ours) }
    if ours == base { return .clean(theirs) }
    guard let text = walk(base: base, ours: ours, theirs: theirs, resolving: { _, _ in nil }) else {
      return .conflict
    }
    return .clean(text)
  }

  /// Merges like ``merge(base:ours:theirs:)``, but writes each conflicting chunk into the text between git's
  /// conflict markers (ours, then theirs, as git's default merge style does) instead of giving up, so that a
  /// person or a merge tool resolves it as after a plain git merge. Returns the text and how many conflicts it holds.
  static func mergeMarkingConflicts(
    base: String, ours: String, theirs: String, markers: ConflictMarkers
  ) -> (text: String, conflicts: Int) {
    // Like git, markers take the line break of the file's first line (ours, else theirs), so a CRLF file stays CRLF.
    let firstLine =
      lines(of: ours).first { $0.utf8.last == UInt8(ascii: "\n") }
      ?? lines(of: theirs).first { $0.utf8.last == UInt8(ascii: "\n") }
    let ending = firstLine.map { $0.utf8.suffix(2).elementsEqual("\r\n".utf8) } == true ? "\r\n" : "\n"
    var conflicts = 0
    let text = walk(base: base, ours: ours, theirs: theirs) { ourChunk, theirChunk in
      conflicts += 1
      return markers.lines(around: ourChunk, theirChunk, ending: ending)
    }
    return (text ?? ours, conflicts)
  }

  /// The diff3 walk both merges share: stable lines are kept, a chunk only one side changed takes that side, and a
  /// chunk both changed differently goes to `resolving`, whose lines replace it (nil stops the merge: nil result).
  private static func walk(
    base: String, ours: String, theirs: String,
    resolving: (ArraySlice<Substring>, ArraySlice<Substring>) -> [Substring]?
  ) -> String? {
    let baseLines = lines(of: base)
    let ourLines = lines(of: ours)
    let theirLines = lines(of: theirs)
    let ourMatch = LineDiff.matches(baseLines, ourLines)
    let theirMatch = LineDiff.matches(baseLines, theirLines)

    var result: [Substring] = []
    var baseIndex = 0
    var ourIndex = 0
    var theirIndex = 0
    while true {
      // Stable lines: the base line is kept at the current position by both sides.
      while baseIndex < baseLines.count, ourMatch[baseIndex] == ourIndex, theirMatch[baseIndex] == theirIndex {
        result.append(baseLines[baseIndex])
        baseIndex += 1
        ourIndex += 1
        theirIndex += 1
      }
      if baseIndex == baseLines.count && ourIndex == ourLines.count && theirIndex == theirLines.count { break }
      // An unstable chunk runs to the next base line both sides kept (or to the ends).
      var next = baseIndex
      while next < baseLines.count, ourMatch[next] == nil || theirMatch[next] == nil { next += 1 }
      let ourEnd = next < baseLines.count ? ourMatch[next]! : ourLines.count
      let theirEnd = next < baseLines.count ? theirMatch[next]! : theirLines.count
      let baseChunk = baseLines[baseIndex..<next]
      let ourChunk = ourLines[ourIndex..<ourEnd]
      let theirChunk = theirLines[theirIndex..<theirEnd]
      if ourChunk.elementsEqual(baseChunk) {
        result.append(contentsOf: theirChunk)
      } else if theirChunk.elementsEqual(baseChunk) || ourChunk.elementsEqual(theirChunk) {
        result.append(contentsOf: ourChunk)
      } else {
        guard let resolved = resolving(ourChunk, theirChunk) else { return nil }
        result.append(contentsOf: resolved)
      }
      baseIndex = next
      ourIndex = ourEnd
      theirIndex = theirEnd
    }
    var text = ""
    text.reserveCapacity(max(ours.utf8.count, theirs.utf8.count))
    for line in result { text += line }
    return text
  }

  /// The text's lines, each with its line break (the last one may have none). Splitting at `\n` keeps a `\r\n`
  /// pair whole and a lone `\r` inside its line.
  static func lines(of text: String) -> [Substring] {
    var lines: [Substring] = []
    var start = text.startIndex
    let utf8 = text.utf8
    var index = utf8.startIndex
    while index < utf8.endIndex {
      let next = utf8.index(after: index)
      if utf8[index] == UInt8(ascii: "\n") {
        lines.append(text[start..<next])
        start = next
      }
      index = next
    }
    if start < text.endIndex { lines.append(text[start...]) }
    return lines
  }
}

/// Myers' shortest edit script over lines, reduced to the matching of old lines to new lines.
enum LineDiff {
  /// The largest edit distance searched for; O(D²) memory makes a larger one cost more than a conflict does.
  static let maxEditDistance = 4_000

  /// For each line of `old`, the index of the line of `new` it is matched to in a longest common subsequence
  /// (nil when it was deleted). Matched indices increase strictly.
  static func matches<Line: Hashable>(_ old: [Line], _ new: [Line]) -> [Int?] {
    var result = [Int?](repeating: nil, count: old.count)
    var prefix = 0
    while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] {
      result[prefix] = prefix
      prefix += 1
    }
    var suffix = 0
    while suffix < old.count - prefix, suffix < new.count - prefix,
      old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
    {
      result[old.count - 1 - suffix] = new.count - 1 - suffix
      suffix += 1
    }
    // Hashing lines to integers once keeps the inner loop to integer comparisons.
    var codes: [Line: Int] = [:]
    func code(_ line: Line) -> Int {
      if let known = codes[line] { return known }
      let fresh = codes.count
      codes[line] = fresh
      return fresh
    }
    let a = old[prefix..<(old.count - suffix)].map(code)
    let b = new[prefix..<(new.count - suffix)].map(code)
    for (i, j) in middleSnakes(a, b) { result[prefix + i] = prefix + j }
    return result
  }

  /// Matched (old, new) index pairs of a shortest edit script between `a` and `b` (Myers 1986, greedy forward
  /// search, then a backtrack through the saved frontier of each edit distance).
  private static func middleSnakes(_ a: [Int], _ b: [Int]) -> [(Int, Int)] {
    let n = a.count
    let m = b.count
    if n == 0 || m == 0 { return [] }
    let maxD = min(n + m, maxEditDistance)
    let offset = maxD + 1
    var frontier = [Int](repeating: 0, count: 2 * maxD + 3)
    // trace[d] holds frontier[offset - d ... offset + d] before step d.
    var trace: [[Int]] = []
    var finalD = -1
    search: for d in 0...maxD {
      trace.append(Array(frontier[(offset - d)...(offset + d)]))
      for k in stride(from: -d, through: d, by: 2) {
        var x: Int
        if k == -d || (k != d && frontier[offset + k - 1] < frontier[offset + k + 1]) {
          x = frontier[offset + k + 1]
        } else {
          x = frontier[offset + k - 1] + 1
        }
        var y = x - k
        while x < n, y < m, a[x] == b[y] {
          x += 1
          y += 1
        }
        frontier[offset + k] = x
        if x >= n && y >= m {
          finalD = d
          break search
        }
      }
    }
    // No matching within the limit: an empty common subsequence is still a valid (if coarse) alignment.
    guard finalD >= 0 else { return [] }
    var pairs: [(Int, Int)] = []
    var x = n
    var y = m
    for d in stride(from: finalD, through: 0, by: -1) {
      let saved = trace[d]
      func before(_ k: Int) -> Int { saved[k + d] }
      let k = x - y
      let previousK: Int
      if d == 0 {
        previousK = 0
      } else if k == -d || (k != d && before(k - 1) < before(k + 1)) {
        previousK = k + 1
      } else {
        previousK = k - 1
      }
      let previousX = d == 0 ? 0 : before(previousK)
      let previousY = previousX - previousK
      let snakeStartX = d == 0 ? 0 : (previousK == k + 1 ? previousX : previousX + 1)
      let snakeStartY = snakeStartX - k
      while x > snakeStartX && y > snakeStartY {
        x -= 1
        y -= 1
        pairs.append((x, y))
      }
      x = previousX
      y = previousY
    }
    return pairs.reversed()
  }
}
