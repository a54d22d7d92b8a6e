import Foundation
import InboxKit

/// The inbox model's cache file under `.git/nb/inbox/`: plain lines a process reads in a fraction of the time JSON
/// takes (the model has a row per word and word pair of every notebook).
///
/// ```
/// nb-inbox-model 1
/// <signature>
/// N<TAB><documents><TAB><total><TAB><notebook, percent-encoded>
/// <count><TAB><feature>
/// ```
/// Features never hold a tab or a line break (the tokenizer splits on them); a file that does not read back is
/// ignored and rebuilt.
enum InboxModelFile {
  static let header = "nb-inbox-model 1"

  static func encode(signature: String, _ classifier: InboxClassifier) -> Data {
    var text = header + "\n" + signature.replacingOccurrences(of: "\n", with: " ") + "\n"
    for name in classifier.notebooks.keys.sorted() {
      guard let counts = classifier.notebooks[name] else { continue }
      let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
      text += "N\t\(counts.documents)\t\(counts.total)\t\(encoded)\n"
      for (feature, count) in counts.terms { text += "\(count)\t\(feature)\n" }
    }
    return Data(text.utf8)
  }

  /// The classifier, when the file is one and holds `signature`; nil otherwise.
  static func decode(_ data: Data, signature: String) -> InboxClassifier? {
    var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)[...]
    guard lines.popFirst().map({ String(decoding: $0, as: UTF8.self) }) == header,
      lines.popFirst().map({ String(decoding: $0, as: UTF8.self) }) == signature.replacingOccurrences(of: "\n", with: " ")
    else { return nil }
    var notebooks: [String: NotebookCounts] = [:]
    var current: String?
    var counts = NotebookCounts()
    for line in lines where !line.isEmpty {
      guard let tab = line.firstIndex(of: 0x09) else { return nil }
      let first = String(decoding: line[line.startIndex..<tab], as: UTF8.self)
      let rest = line[line.index(after: tab)...]
      if first == "N" {
        if let current { notebooks[current] = counts }
        let parts = rest.split(separator: 0x09, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let documents = Double(String(decoding: parts[0], as: UTF8.self)),
          let total = Double(String(decoding: parts[1], as: UTF8.self)),
          let name = String(decoding: parts[2], as: UTF8.self).removingPercentEncoding
        else { return nil }
        current = name
        counts = NotebookCounts(terms: [:], total: total, documents: documents)
      } else {
        guard current != nil, let count = Double(first) else { return nil }
        counts.terms[String(decoding: rest, as: UTF8.self)] = count
      }
    }
    if let current { notebooks[current] = counts }
    return InboxClassifier(notebooks: notebooks)
  }
}
