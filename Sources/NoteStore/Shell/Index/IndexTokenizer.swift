import Foundation
import GRDB

/// The FTS5 tokenizer `nb_text`: SQLite's `unicode61 remove_diacritics 2` (case- and diacritic-folded words, NFD
/// text included, symbols and emoji as separators), with runs of CJK characters cut into overlapping bigrams.
///
/// Chinese and Japanese have no spaces, so `unicode61` makes a whole sentence one token and a word inside it could
/// never match. A document's run `東京都庁` becomes `東京 京都 都庁 庁` (each bigram, then the run's last character
/// alone, so a one-character prefix query finds a character at the end of a run). A query's run becomes its
/// bigrams (`東京都` → `東京 京都`), which FTS5 matches as a phrase, so a query of two or more characters finds
/// text containing it (and `東京 京都`, two runs, does not match `東京都`); its last character follows only when
/// more of the phrase does, as in the document. A one-character query stays one token, which the compiler turns
/// into a prefix.
final class IndexTokenizer: FTS5CustomTokenizer {
  static let name = "nb_text"

  private let base: any FTS5Tokenizer

  init(db: Database, arguments: [String]) throws {
    base = try db.makeTokenizer(.unicode61(diacritics: .remove))
  }

  /// What the callback for `unicode61`'s tokens needs, passed through its context pointer (a C callback cannot
  /// capture).
  private final class Context {
    let context: UnsafeMutableRawPointer?
    let callback: FTS5TokenCallback
    let isQuery: Bool
    /// In a query, a run's last character waits here: it is passed on only when another token follows, so a phrase
    /// spanning two runs lines up with the document's positions, and a query ending in a run needs none.
    var pending: (bytes: [UInt8], start: CInt, end: CInt, flags: CInt)?

    init(context: UnsafeMutableRawPointer?, callback: FTS5TokenCallback, isQuery: Bool) {
      self.context = context
      self.callback = callback
      self.isQuery = isQuery
    }

    func emit(_ token: UnsafePointer<CChar>, _ length: CInt, _ start: CInt, _ end: CInt, flags: CInt) -> CInt {
      if let waiting = pending {
        pending = nil
        let rc = waiting.bytes.withUnsafeBufferPointer { buffer in
          buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            callback(context, waiting.flags, $0, CInt(buffer.count), waiting.start, waiting.end)
          }
        }
        if rc != 0 { return rc }
      }
      return callback(context, flags, token, length, start, end)
    }
  }

  func tokenize(
    context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization, pText: UnsafePointer<CChar>?, nText: CInt,
    tokenCallback: @escaping FTS5TokenCallback
  ) -> CInt {
    let state = Context(context: context, callback: tokenCallback, isQuery: tokenization.contains(.query))
    return withExtendedLifetime(state) {
      base.tokenize(
        context: Unmanaged.passUnretained(state).toOpaque(), tokenization: tokenization, pText: pText, nText: nText
      ) { context, flags, token, length, start, end in
        guard let context, let token else { return 0 }
        let state = Unmanaged<Context>.fromOpaque(context).takeUnretainedValue()
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
    guard hasWide else { return state.emit(token, length, start, end, flags: flags) }

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
        return state.emit(token, length, start, end, flags: flags)
      }
    }
    guard scalars.contains(where: \.cjk) else { return state.emit(token, length, start, end, flags: flags) }

    // Offsets into the document are exact only when folding left the token's bytes as they were.
    let exact = Int(end - start) == count
    func emit(_ from: Int, _ to: Int) -> CInt {
      let pieceStart = exact ? start + CInt(from) : start
      let pieceEnd = exact ? start + CInt(to) : end
      return state.emit(token + from, CInt(to - from), pieceStart, pieceEnd, flags: flags)
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
        if state.isQuery {
          let last = scalars[j - 1].offset
          state.pending = (
            Array(UnsafeBufferPointer(start: bytes + last, count: runEnd - last)),
            exact ? start + CInt(last) : start, exact ? start + CInt(runEnd) : end, flags
          )
        } else {
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
