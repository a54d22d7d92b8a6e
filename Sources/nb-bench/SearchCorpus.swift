import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// SplitMix64: a small, fast generator; the same seed gives the same corpus on every machine.
struct SeededRandom: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Uniform in [0, 1).
  mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

  mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

  mutating func chance(_ p: Double) -> Bool { unit() < p }
}

/// Draws ranks 0..<n with probability ∝ 1 / (rank + 1)^s in O(1) (Vose's alias method).
struct ZipfSampler {
  private var probability: [Double]
  private var alias: [Int]

  init(count n: Int, exponent s: Double = 1.0) {
    let weights = (0..<n).map { 1 / pow(Double($0 + 1), s) }
    let total = weights.reduce(0, +)
    var scaled = weights.map { $0 * Double(n) / total }
    probability = Array(repeating: 0, count: n)
    alias = Array(repeating: 0, count: n)
    var small = scaled.indices.filter { scaled[$0] < 1 }
    var large = scaled.indices.filter { scaled[$0] >= 1 }
    while let s = small.popLast(), let l = large.last {
      probability[s] = scaled[s]
      alias[s] = l
      scaled[l] -= 1 - scaled[s]
      if scaled[l] < 1 {
        large.removeLast()
        small.append(l)
      }
    }
    for i in small + large { probability[i] = 1 }
  }

  func draw(_ random: inout SeededRandom) -> Int {
    let column = random.below(probability.count)
    return random.unit() < probability[column] ? column : alias[column]
  }
}

/// The words a search benchmark looks for, and in how many notes each really occurs (nil when not known).
struct SearchTerms {
  var rare: String
  var rareNotes: Int?
  var common: String
  var commonNotes: Int?
  var phrase: [String]
  var phraseNotes: Int?
  var prefix: String
  var tag: String?
  var tagNotes: Int?
}

/// What was laid out: the notes' paths (relative to the root), their bytes, and the planted terms.
struct SearchCorpus {
  var paths: [String]
  var textBytes: Int64
  var terms: SearchTerms
  var notebooks: Int
}

/// A synthetic vault: log-uniform note sizes of 200 B – 20 KB, Zipf-distributed words from a vocabulary of
/// pseudo-words and English words, accented and CJK text in a few % of notes, YAML front matter as nb writes it,
/// three levels of notebooks and Zipf-distributed tags. Files are written directly; nothing here runs nb or git.
enum SyntheticCorpus {
  // Planted words use letters the pseudo-word syllables never do (q, x, z, y, h, j, w), so no generated word equals
  // one by chance.
  static let rare = "quixotrex"
  static let common = "zephyrwood"
  static let phrase = ["quasar", "jukebox"]

  static let english = """
    the of and to in is it that for on with as was be at by this have from or an are not but had they we you all
    were can one there which their if will has more about would so what up out them some when could into other
    then time only its new two may first over also after way any these our work note notes plan meeting project
    team review design data report week today idea draft list release issue question answer follow change update
    customer budget code test build server client budget market research paper reading book chapter summary goal
    task todo done later next call email write read think decide agree open close small large early late simple
    """.split(whereSeparator: \.isWhitespace).map(String.init)

  static let accented = [
    "café", "naïve", "Müller", "résumé", "façade", "Zürich", "jalapeño", "Ångström", "crème brûlée", "São Paulo",
    "Björk", "Dvořák", "über", "déjà vu", "Gödel", "Straße",
  ]

  static let cjk = [
    "会议记录", "项目计划", "今天的天气很好", "我们需要讨论预算", "数据分析报告", "学习笔记", "东京", "日本語のメモ",
    "読書ノート", "北京大学", "软件开发", "问题和答案",
  ]

  static let tagWords = """
    work personal idea meeting project reading journal todo research draft review inbox archive finance health
    travel recipe book paper code design writing family learning someday reference howto bug release planning
    """.split(whereSeparator: \.isWhitespace).map(String.init)

  /// Pseudo-words from consonant-vowel syllables (no q, x, z, y, h, j, w), deduplicated, in a seeded order.
  static func pseudoWords(count: Int, random: inout SeededRandom) -> [String] {
    let consonants = Array("bdfgklmnprstv")
    let vowels = Array("aeiou")
    var seen = Set(english)
    var words: [String] = []
    while words.count < count {
      var word = ""
      for _ in 0..<(1 + random.below(4)) {
        word.append(consonants[random.below(consonants.count)])
        word.append(vowels[random.below(vowels.count)])
        if random.chance(0.3) { word.append(consonants[random.below(consonants.count)]) }
      }
      if word.count >= 2, seen.insert(word).inserted { words.append(word) }
    }
    return words
  }

  static func write(at root: String, count: Int, seed: UInt64) throws -> SearchCorpus {
    var random = SeededRandom(seed: seed)
    // The vocabulary by rank: English function words first (as in real text), then pseudo-words mixed with the rest.
    let pseudo = pseudoWords(count: 4_000, random: &random)
    var tail = Array(english.dropFirst(40)) + pseudo
    tail.shuffle(using: &random)
    let vocabulary = (Array(english.prefix(40)) + tail).map { Array($0.utf8) }
    let words = ZipfSampler(count: vocabulary.count, exponent: 1.05)
    let prefix = String(
      decoding: vocabulary[vocabulary.firstIndex { $0.count >= 6 && $0.allSatisfy { $0 < 128 } }!].prefix(4),
      as: UTF8.self)

    // Tags: a Zipf vocabulary of real words, pseudo-words and a few nested ones.
    var tagNames = tagWords + pseudo.suffix(120).map { "t-" + $0 }
    tagNames += ["work/meetings", "work/projects", "personal/health", "research/papers"]
    tagNames.shuffle(using: &random)
    let tags = ZipfSampler(count: tagNames.count, exponent: 1.1)

    // Notebooks, 3 levels: 4 top-level, 3 children each, 2 grandchildren each (40 in all).
    let top = ["work", "personal", "research", "journal"]
    let middle = ["projects", "meetings", "archive", "ideas", "reading", "people"]
    var notebooks: [String] = []
    for t in top {
      notebooks.append(t)
      for m in middle.shuffled(using: &random).prefix(3) {
        notebooks.append("\(t)/\(m)")
        for g in ["2025", "2026"] { notebooks.append("\(t)/\(m)/\(g)") }
      }
    }
    let fileManager = FileManager.default
    for notebook in notebooks {
      try fileManager.createDirectory(atPath: "\(root)/\(notebook)", withIntermediateDirectories: true)
      try Data("created: 2024-01-01T09:00:00+01:00\n".utf8).write(
        to: URL(fileURLWithPath: "\(root)/\(notebook)/.notebook.yaml"))
    }
    let folders = ZipfSampler(count: notebooks.count, exponent: 0.8)

    // Which notes get the planted words.
    let rareCount = max(1, count / 1_000)
    var rareNotes = Set<Int>()
    while rareNotes.count < min(rareCount, count) { rareNotes.insert(random.below(count)) }

    let space = UInt8(ascii: " ")
    let newline = UInt8(ascii: "\n")
    let start = 1_704_067_200.0  // 2024-01-01T00:00:00Z
    // Two and a half years, all in the past: an mtime in the future is not what a real vault holds.
    let span = 912 * 86_400.0
    var paths: [String] = []
    paths.reserveCapacity(count)
    var textBytes: Int64 = 0
    var commonNotes = 0
    var phraseNotes = 0
    var tagNotes = Array(repeating: 0, count: tagNames.count)
    var buffer: [UInt8] = []
    buffer.reserveCapacity(32_768)

    func append(_ string: String) { buffer.append(contentsOf: string.utf8) }

    for i in 0..<count {
      buffer.removeAll(keepingCapacity: true)
      let target = Int(200 * pow(100, random.unit()))  // log-uniform 200 B – 20 KB
      let titleWords = (0..<(2 + random.below(4))).map { _ in
        String(decoding: vocabulary[words.draw(&random)], as: UTF8.self)
      }
      let title = titleWords.joined(separator: " ").capitalizedFirst
      var noteTags: [Int] = []
      for _ in 0..<(1 + random.below(5)) {
        let tag = tags.draw(&random)
        if !noteTags.contains(tag) { noteTags.append(tag) }
      }
      for tag in noteTags { tagNotes[tag] += 1 }
      let created = start + random.unit() * span
      let updated = min(start + span, created + random.unit() * random.unit() * 90 * 86_400)
      var id = [UInt8](repeating: 0, count: 16)
      for k in 0..<16 { id[k] = UInt8(truncatingIfNeeded: random.next()) }
      id[6] = (id[6] & 0x0f) | 0x40
      id[8] = (id[8] & 0x3f) | 0x80
      append("---\nid: \(uuid(id))\ntitle: \(title)\ncreated: \(rfc3339(created))\nupdated: \(rfc3339(updated))\n")
      append("tags: [\(noteTags.map { tagNames[$0] }.joined(separator: ", "))]\n---\n# \(title)\n\n")

      // Planted words go in at random sentence boundaries; remember which ones are still due.
      var extras: [String] = []
      if rareNotes.contains(i) { extras.append("the \(rare) showed up") }
      if random.chance(0.4) {
        extras.append(common)
        commonNotes += 1
      }
      if random.chance(0.01) {
        extras.append(phrase.joined(separator: " "))
        phraseNotes += 1
      } else if random.chance(0.1) {
        extras.append("\(phrase[0]) and later a \(phrase[1])")
      }
      if random.chance(0.03) { extras.append(accented[random.below(accented.count)]) }
      if random.chance(0.03) {
        extras.append(
          (0..<(1 + random.below(4))).map { _ in cjk[random.below(cjk.count)] }.joined(separator: "，") + "。")
      }
      extras.shuffle(using: &random)

      var sentenceIndex = 0
      while buffer.count < target || !extras.isEmpty {
        // A paragraph: a heading or a list now and then, else sentences of 5–20 words.
        let kind = random.below(12)
        if kind == 0 {
          append("## ")
          buffer.append(contentsOf: vocabulary[words.draw(&random)])
          buffer.append(newline)
          buffer.append(newline)
          continue
        }
        for _ in 0..<(2 + random.below(5)) {
          if kind == 1 { append("- ") }
          let length = 5 + random.below(16)
          for w in 0..<length {
            var word = vocabulary[words.draw(&random)]
            if w == 0, let first = word.first, first >= 97, first <= 122 { word[0] = first - 32 }
            buffer.append(contentsOf: word)
            if w == length / 2, !extras.isEmpty, sentenceIndex % 2 == 0 {
              buffer.append(space)
              append(extras.removeLast())
            }
            buffer.append(w == length - 1 ? UInt8(ascii: ".") : space)
          }
          sentenceIndex += 1
          buffer.append(kind == 1 ? newline : space)
          if buffer.count >= target && extras.isEmpty { break }
        }
        buffer.append(newline)
        buffer.append(newline)
      }
      buffer.removeLast()  // one trailing newline
      let path = "\(notebooks[folders.draw(&random)])/\(slug(titleWords))-\(i).md"
      try writeFile("\(root)/\(path)", buffer)
      // As in a vault edited over time; a file written in the last 2 s is one nb's cache must not trust yet.
      setModified("\(root)/\(path)", updated)
      paths.append(path)
      textBytes += Int64(buffer.count)
    }

    // The tag filter looks for a tag on about 5 % of notes.
    let tagIndex = tagNotes.indices.min { abs(tagNotes[$0] - count / 20) < abs(tagNotes[$1] - count / 20) }!
    let terms = SearchTerms(
      rare: rare, rareNotes: rareNotes.count, common: common, commonNotes: commonNotes, phrase: phrase,
      phraseNotes: phraseNotes, prefix: prefix, tag: tagNames[tagIndex], tagNotes: tagNotes[tagIndex])
    return SearchCorpus(paths: paths, textBytes: textBytes, terms: terms, notebooks: notebooks.count)
  }

  static func uuid(_ bytes: [UInt8]) -> String {
    let hex = bytes.map { String(format: "%02x", $0) }.joined()
    let c = Array(hex)
    return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-"
      + String(c[20..<32])
  }

  private static let formatter: DateFormatter = {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(secondsFromGMT: 3_600)
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssxxx"
    return formatter
  }()

  static func rfc3339(_ seconds: Double) -> String {
    formatter.string(from: Date(timeIntervalSince1970: seconds.rounded(.down)))
  }

  static func slug(_ words: [String]) -> String {
    words.prefix(3).map { $0.lowercased() }.joined(separator: "-")
  }
}

/// A directory of Markdown files someone already has (a real vault), copied into a fresh repository, with search
/// terms picked from its own words.
enum CopiedCorpus {
  static func copy(from source: String, to root: String) throws -> SearchCorpus {
    let fileManager = FileManager.default
    let sourceURL = URL(fileURLWithPath: source).standardizedFileURL
    guard
      let enumerator = fileManager.enumerator(
        at: sourceURL, includingPropertiesForKeys: [.isRegularFileKey, .contentModificationDateKey],
        options: [.skipsHiddenFiles])
    else { throw CocoaError(.fileReadNoSuchFile) }
    var paths: [String] = []
    var textBytes: Int64 = 0
    var documentFrequency: [String: Int] = [:]
    var bigramFrequency: [String: Int] = [:]
    var tagFrequency: [String: Int] = [:]
    let base = sourceURL.path.hasSuffix("/") ? sourceURL.path : sourceURL.path + "/"
    for case let url as URL in enumerator {
      let ext = url.pathExtension.lowercased()
      guard ext == "md" || ext == "markdown",
        (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
      else { continue }
      let full = url.standardizedFileURL.path
      guard full.hasPrefix(base) else { continue }
      let relative = String(full.dropFirst(base.count))
      let data = try Data(contentsOf: url)
      let destination = URL(fileURLWithPath: "\(root)/\(relative)")
      try fileManager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
      try writeFile(destination.path, [UInt8](data))
      if let modified = try? url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate {
        setModified(destination.path, modified.timeIntervalSince1970)
      }
      paths.append(relative)
      textBytes += Int64(data.count)

      let text = String(decoding: data, as: UTF8.self)
      let words = tokens(text)
      for word in Set(words.map(\.word)) where word.count >= 4 { documentFrequency[word, default: 0] += 1 }
      // Phrases as written: two words with one space between them, as `rg -F` finds them too.
      var bigrams = Set<String>()
      for (a, b) in zip(words, words.dropFirst())
      where b.afterSpace && a.word.count >= 4 && b.word.count >= 4 && a.word != b.word {
        bigrams.insert(a.word + " " + b.word)
      }
      for bigram in bigrams { bigramFrequency[bigram, default: 0] += 1 }
      for tag in frontMatterTags(text) { tagFrequency[tag, default: 0] += 1 }
    }
    let n = paths.count
    guard n > 0 else {
      FileHandle.standardError.write(Data("nb-bench: no Markdown files under \(source)\n".utf8))
      exit(2)
    }
    /// The key whose count is nearest `target` (ties: the longer, then alphabetically first key).
    func nearest(_ counts: [String: Int], _ target: Double, minimumLength: Int = 0) -> (String, Int)? {
      counts.filter { $0.key.count >= minimumLength }.min { a, b in
        let da = abs(Double(a.value) - target)
        let db = abs(Double(b.value) - target)
        if da != db { return da < db }
        if a.key.count != b.key.count { return a.key.count > b.key.count }
        return a.key < b.key
      }.map { ($0.key, $0.value) }
    }
    let common = nearest(documentFrequency, 0.4 * Double(n)) ?? ("note", 0)
    let rare = nearest(documentFrequency, max(1, 0.001 * Double(n)), minimumLength: 6) ?? common
    let phrase = nearest(bigramFrequency, max(1, 0.01 * Double(n))) ?? (common.0 + " " + rare.0, 0)
    let prefixWord = nearest(documentFrequency, 0.05 * Double(n), minimumLength: 6) ?? common
    let tag = nearest(tagFrequency, 0.05 * Double(n))
    let terms = SearchTerms(
      rare: rare.0, rareNotes: rare.1, common: common.0, commonNotes: common.1,
      phrase: phrase.0.split(separator: " ").map(String.init), phraseNotes: phrase.1,
      prefix: String(prefixWord.0.prefix(4)), tag: tag?.0, tagNotes: tag?.1)
    let notebooks = Set(paths.map { ($0 as NSString).deletingLastPathComponent }).count
    return SearchCorpus(paths: paths, textBytes: textBytes, terms: terms, notebooks: notebooks)
  }

  /// Lower-cased runs of letters, each with whether a single space (and nothing else) came before it.
  static func tokens(_ text: String) -> [(word: String, afterSpace: Bool)] {
    var result: [(word: String, afterSpace: Bool)] = []
    var current = ""
    var separator = ""
    for scalar in text.unicodeScalars {
      if CharacterSet.letters.contains(scalar) {
        current.unicodeScalars.append(scalar)
      } else {
        if !current.isEmpty {
          result.append((current.lowercased(), separator == " "))
          current = ""
          separator = ""
        }
        separator.unicodeScalars.append(scalar)
      }
    }
    if !current.isEmpty { result.append((current.lowercased(), separator == " ")) }
    return result
  }

  /// The `tags: [a, b]` (or `tags: a b`) of a front matter block, lower-cased; list items (`- a`) too.
  static func frontMatterTags(_ text: String) -> [String] {
    guard text.hasPrefix("---") else { return [] }
    var tags: [String] = []
    var inList = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().prefix(200) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed == "---" || trimmed == "..." { break }
      if inList, trimmed.hasPrefix("- ") {
        tags.append(
          String(trimmed.dropFirst(2)).trimmingCharacters(in: CharacterSet(charactersIn: "\"' #")).lowercased())
        continue
      }
      inList = false
      guard trimmed.hasPrefix("tags:") else { continue }
      let value = trimmed.dropFirst(5).trimmingCharacters(in: CharacterSet(charactersIn: " []"))
      if value.isEmpty {
        inList = true
        continue
      }
      tags += value.split(whereSeparator: { $0 == "," || $0 == " " }).map {
        $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"' #")).lowercased()
      }.filter { !$0.isEmpty }
    }
    return tags
  }
}

/// Writes a file with open/write/close: Foundation's `Data.write` fsyncs each file, which made generating a large
/// vault take minutes.
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
  defer { close(fd) }
  var written = 0
  while written < bytes.count {
    let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
    guard n > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    written += n
  }
}

/// Sets a file's access and modification times.
func setModified(_ path: String, _ seconds: Double) {
  let whole = seconds.rounded(.down)
  let time = timeval(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1e6))
  _ = [time, time].withUnsafeBufferPointer { utimes(path, $0.baseAddress) }
}

extension String {
  fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
