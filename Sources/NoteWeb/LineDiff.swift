/// A line diff of two texts, shown as `git diff` shows one: hunks of changed lines with three lines of context,
/// removed lines before added ones. Myers' algorithm (the one git uses by default), so a change is shown with as
/// few lines as possible.
struct LineDiff: Equatable {
  /// One line of the diff.
  struct Line: Equatable {
    enum Kind: String { case context, removed, added, hunk }
    var kind: Kind
    var text: String
  }

  /// The hunks' lines in order, each hunk starting with its `@@ -a,b +c,d @@` line.
  var lines: [Line]
  /// Lines added and removed (what `git diff --numstat` counts).
  var added: Int
  var removed: Int

  /// The lines of `text`, without their line breaks (a last line without one is a line too).
  static func split(_ text: String) -> [Substring] {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    if lines.last == "" { lines.removeLast() }
    return lines
  }

  init(from old: String, to new: String, context: Int = 3) {
    let a = Self.split(old)
    let b = Self.split(new)
    let script = Self.script(a, b)
    added = script.filter { $0 == .insert }.count
    removed = script.filter { $0 == .delete }.count
    lines = Self.hunks(script, a, b, context: context)
  }

  enum Step: Equatable { case keep, delete, insert }

  /// Edits the diff may take before it gives up looking for the shortest script: its time and memory grow with
  /// the square of this (a frontier saved per edit; 2 000 edits: about 32 MB).
  static let editLimit = 2_000

  /// The shortest edit script from `a` to `b` (Myers 1986): common first and last lines kept, then the middle
  /// diffed; a middle needing more than ``editLimit`` edits (two unrelated texts) is shown as removed and added
  /// whole, which is correct if not shortest.
  static func script(_ a: [Substring], _ b: [Substring]) -> [Step] {
    var prefix = 0
    while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
    var suffix = 0
    while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
      suffix += 1
    }
    let middle =
      shortest(Array(a[prefix..<(a.count - suffix)]), Array(b[prefix..<(b.count - suffix)]))
      ?? Array(repeating: .delete, count: a.count - prefix - suffix)
      + Array(repeating: .insert, count: b.count - prefix - suffix)
    return Array(repeating: .keep, count: prefix) + middle + Array(repeating: .keep, count: suffix)
  }

  /// Myers' shortest edit script, nil when it takes more than ``editLimit`` edits.
  private static func shortest(_ a: [Substring], _ b: [Substring]) -> [Step]? {
    let n = a.count
    let m = b.count
    let max = n + m
    if max == 0 { return [] }
    var v = [Int](repeating: 0, count: 2 * max + 2)
    // The frontier before each step, only the diagonals that step can read (-d-1 ... d+1): memory grows with the
    // square of the edits, not with the texts' length times the edits.
    var trace: [(base: Int, values: [Int])] = []
    var found = false
    for d in 0...max {
      if d > editLimit { return nil }
      let lower = Swift.max(0, max - d - 1)
      let upper = Swift.min(v.count - 1, max + d + 1)
      trace.append((lower, Array(v[lower...upper])))
      for k in stride(from: -d, through: d, by: 2) {
        var x: Int
        if k == -d || (k != d && v[k - 1 + max] < v[k + 1 + max]) {
          x = v[k + 1 + max]
        } else {
          x = v[k - 1 + max] + 1
        }
        var y = x - k
        while x < n, y < m, a[x] == b[y] {
          x += 1
          y += 1
        }
        v[k + max] = x
        if x >= n, y >= m {
          found = true
          break
        }
      }
      if found { break }
    }
    // Walk back through the saved frontiers.
    var steps: [Step] = []
    var x = n
    var y = m
    for d in stride(from: trace.count - 1, through: 0, by: -1) {
      let saved = trace[d]
      func v(_ index: Int) -> Int { saved.values[index - saved.base] }
      let k = x - y
      let previousK: Int
      if k == -d || (k != d && v(k - 1 + max) < v(k + 1 + max)) {
        previousK = k + 1
      } else {
        previousK = k - 1
      }
      let previousX = d == 0 ? 0 : v(previousK + max)
      let previousY = previousX - previousK
      while x > previousX, y > previousY {
        steps.append(.keep)
        x -= 1
        y -= 1
      }
      if d > 0 {
        steps.append(x == previousX ? .insert : .delete)
      }
      x = previousX
      y = previousY
    }
    return steps.reversed()
  }

  /// Unified hunks: changes with `context` lines around them, nearby changes in one hunk.
  private static func hunks(_ script: [Step], _ a: [Substring], _ b: [Substring], context: Int) -> [Line] {
    // Positions in both texts before each step.
    var positions: [(old: Int, new: Int)] = []
    var oldIndex = 0
    var newIndex = 0
    for step in script {
      positions.append((oldIndex, newIndex))
      switch step {
      case .keep:
        oldIndex += 1
        newIndex += 1
      case .delete: oldIndex += 1
      case .insert: newIndex += 1
      }
    }
    let changed = script.indices.filter { script[$0] != .keep }
    guard !changed.isEmpty else { return [] }
    // Ranges of steps, each a change group widened by the context, merged when they touch.
    var ranges: [Range<Int>] = []
    for index in changed {
      let lower = Swift.max(0, index - context)
      let upper = Swift.min(script.count, index + context + 1)
      if let last = ranges.last, lower <= last.upperBound {
        ranges[ranges.count - 1] = last.lowerBound..<Swift.max(last.upperBound, upper)
      } else {
        ranges.append(lower..<upper)
      }
    }
    var lines: [Line] = []
    for range in ranges {
      let steps = script[range]
      let oldCount = steps.filter { $0 != .insert }.count
      let newCount = steps.filter { $0 != .delete }.count
      let start = positions[range.lowerBound]
      // As git writes it: a range of no lines starts at the line before it.
      let oldStart = oldCount == 0 ? start.old : start.old + 1
      let newStart = newCount == 0 ? start.new : start.new + 1
      // A count of 1 is left out, as git leaves it out.
      func span(_ start: Int, _ count: Int) -> String { count == 1 ? "\(start)" : "\(start),\(count)" }
      lines.append(Line(kind: .hunk, text: "@@ -\(span(oldStart, oldCount)) +\(span(newStart, newCount)) @@"))
      // Removed lines of a change group first, then the added ones.
      var removed: [Line] = []
      var added: [Line] = []
      func flush() {
        lines += removed + added
        removed = []
        added = []
      }
      for index in range {
        let position = positions[index]
        switch script[index] {
        case .keep:
          flush()
          lines.append(Line(kind: .context, text: String(a[position.old])))
        case .delete: removed.append(Line(kind: .removed, text: String(a[position.old])))
        case .insert: added.append(Line(kind: .added, text: String(b[position.new])))
        }
      }
      flush()
    }
    return lines
  }
}
