import Foundation
import GRDB

/// The FTS5 tokenizer `nb_text`: SQLite's `unicode61 remove_diacritics 2` (case- and diacritic-folded words, NFD
/// text included, symbols and emoji as separators), with runs of CJK characters cut into overlapping bigrams.
///
/// Chinese and Japanese have no spaces, so `unicode61` makes a whole sentence one token and a word inside it could
/// never match. A document's run `東京都庁` becomes `東京 京都 都庁 庁` (each bigram, then the run's last character
/// alone, so a one-character prefix query finds a character at the end of a run). A query's run becomes its
/// bigrams only (`東京都` → `東京 京都`), which FTS5 matches as a phrase, so a query of two or more characters finds
/// text containing it; a one-character query stays one token, which the compiler turns into a prefix.
final class IndexTokenizer: FTS5CustomTokenizer {
  static let name = "nb_text"

  private let base: any FTS5Tokenizer

  init(db: Database, arguments: [String]) throws {
    base = try db.makeTokenizer(.unicode61(diacritics: .remove))
  }

  /// What the callback for `unicode61`'s tokens needs, passed through its context pointer (a C callback cannot
  /// capture).
  private struct Context {
    var context: UnsafeMutableRawPointer?
    var callback: FTS5TokenCallback
    var isQuery: Bool
  }

  func tokenize(
    context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization, pText: UnsafePointer<CChar>?, nText: CInt,
    tokenCallback: @escaping FTS5TokenCallback
  ) -> CInt {
    var state = Context(context: context, callback: tokenCallback, isQuery: tokenization.contains(.query))
    return withUnsafeMutablePointer(to: &state) { pointer in
      base.tokenize(context: pointer, tokenization: tokenization, pText: pText, nText: nText) {
        context, flags, token, length, start, end in
        guard let context, let token else { return 0 }
        let state = context.assumingMemoryBound(to: Context.self).pointee
        return IndexTokenizer.split(state, flags: flags, token: token, length: length, start: start, end: end)
      }
    }
  }

  /// Passes a token on, cutting its CJK runs into bigrams.
  private static func split(
    _ state: Context, flags: CInt, token: UnsafePointer<CChar>, length: CInt, start: CInt, end: CInt
  ) -> CInt {
    let bytes = UnsafeRawPointer(token).assumingMemoryBound(to: UInt8.self)
    let count = Int(length)
    // Every CJK character is three or four bytes in UTF-8, so a token of smaller bytes passes through untouched.
    var hasWide = false
    for i in 0..<count where bytes[i] >= 0xE1 {
      hasWide = true
      break
    }
    guard hasWide else { return state.callback(state.context, flags, token, length, start, end) }

    // The token's scalars with their byte offsets.
    var scalars: [(offset: Int, length: Int, cjk: Bool)] = []
    var offset = 0
    let buffer = UnsafeBufferPointer(start: bytes, count: count)
    var iterator = buffer.makeIterator()
    var decoder = UTF8()
    decoding: while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar):
        let width = UTF8.width(scalar)
        scalars.append((offset, width, isCJK(scalar)))
        offset += width
      case .emptyInput:
        break decoding
      case .error:
        return state.callback(state.context, flags, token, length, start, end)
      }
    }
    guard scalars.contains(where: \.cjk) else { return state.callback(state.context, flags, token, length, start, end) }

    // Offsets into the document are exact only when folding left the token's bytes as they were.
    let exact = Int(end - start) == count
    func emit(_ from: Int, _ to: Int) -> CInt {
      let pieceStart = exact ? start + CInt(from) : start
      let pieceEnd = exact ? start + CInt(to) : end
      return state.callback(state.context, flags, token + from, CInt(to - from), pieceStart, pieceEnd)
    }
    var i = 0
    while i < scalars.count {
      var j = i
      while j < scalars.count, scalars[j].cjk == scalars[i].cjk { j += 1 }
      let runStart = scalars[i].offset
      let runEnd = scalars[j - 1].offset + scalars[j - 1].length
      if !scalars[i].cjk {
        let rc = emit(runStart, runEnd)
        if rc != 0 { return rc }
      } else if j - i == 1 {
        let rc = emit(runStart, runEnd)
        if rc != 0 { return rc }
      } else {
        for k in i..<(j - 1) {
          let rc = emit(scalars[k].offset, scalars[k + 1].offset + scalars[k + 1].length)
          if rc != 0 { return rc }
        }
        if !state.isQuery {
          let rc = emit(scalars[j - 1].offset, runEnd)
          if rc != 0 { return rc }
        }
      }
      i = j
    }
    return 0
  }

  /// Han, Hiragana, Katakana and Hangul: the scripts written without spaces between words.
  static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x1100...0x11FF, 0x3005...0x3007, 0x3021...0x3029, 0x3040...0x30FF, 0x3130...0x318F, 0x31F0...0x31FF,
      0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA960...0xA97F, 0xAC00...0xD7FF, 0xF900...0xFAFF, 0xFF66...0xFF9F,
      0x20000...0x3134F:
      return true
    default:
      return false
    }
  }
}
