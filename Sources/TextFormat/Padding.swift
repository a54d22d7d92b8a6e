// Foundation's `padding(toLength:withPad:startingAt:)` bridges to NSString on Linux, and the first bridge back makes
// the runtime scan every conformance record in the binary twice: a fifth of a millisecond of `nb show`, which pads
// the labels of its rows. This pads (and cuts) the same way in Swift.

extension String {
  /// The string cut or padded with spaces to `length` UTF-16 code units: what Foundation's
  /// `padding(toLength: length, withPad: " ", startingAt: 0)` gives (a cut through a surrogate pair leaves U+FFFD,
  /// as bridging Foundation's result does).
  package func paddedWithSpaces(toLength length: Int) -> String {
    let count = utf16.count
    if count == length { return self }
    if count < length { return self + String(repeating: " ", count: length - count) }
    return String(decoding: Array(utf16.prefix(max(0, length))), as: UTF16.self)
  }
}
