import CSHA1

/// Plain SHA-1 (FIPS 180-4), used only for the index file's trailing checksum.
///
/// libgit2 does not export a raw hash function (its `git_odb_hash` prefixes an object header), and its
/// collision-detecting SHA-1 is slower than a plain one. The index checksum is an integrity check over our own
/// file, not an object name, so collision detection buys nothing there.
///
/// The state can be copied at any 64-byte boundary and resumed later: the index patcher keeps such snapshots so
/// that re-hashing a file whose first bytes did not change starts at the first changed block.
struct SHA1 {
  /// The five chaining words.
  private(set) var h0: UInt32 = 0x6745_2301
  private(set) var h1: UInt32 = 0xEFCD_AB89
  private(set) var h2: UInt32 = 0x98BA_DCFE
  private(set) var h3: UInt32 = 0x1032_5476
  private(set) var h4: UInt32 = 0xC3D2_E1F0
  /// Bytes consumed so far (whole blocks only: partial blocks are handled by `finish`).
  private(set) var length: Int = 0

  /// A fresh state.
  init() {}

  /// A state as ``words`` gave it (one kept on disk).
  init(words: (UInt32, UInt32, UInt32, UInt32, UInt32), length: Int) {
    (h0, h1, h2, h3, h4) = words
    self.length = length
  }

  /// The five chaining words.
  var words: (UInt32, UInt32, UInt32, UInt32, UInt32) { (h0, h1, h2, h3, h4) }

  /// Whether this CPU has the SHA extensions: ``updateBlocks(_:count:)`` then runs them (CSHA1), three times the
  /// speed of the Swift rounds below on the 7 MB index of 100 000 notes.
  static let accelerated = nb_sha1_accelerated() != 0

  /// Consumes `count` bytes at `base`; `count` must be a multiple of 64 so the state stays resumable. `accelerated`
  /// false runs the Swift rounds whatever the CPU (tests compare the two).
  mutating func updateBlocks(_ base: UnsafeRawPointer, count: Int, accelerated: Bool = SHA1.accelerated) {
    precondition(count % 64 == 0, "SHA1.updateBlocks needs whole 64-byte blocks")
    if accelerated {
      // A homogeneous tuple is laid out as a C array.
      var state = (h0, h1, h2, h3, h4)
      withUnsafeMutableBytes(of: &state) { words in
        nb_sha1_blocks(
          words.baseAddress!.assumingMemoryBound(to: UInt32.self), base.assumingMemoryBound(to: UInt8.self),
          count / 64)
      }
      (h0, h1, h2, h3, h4) = state
      length += count
      return
    }
    var a = h0
    var b = h1
    var c = h2
    var d = h3
    var e = h4
    var offset = 0
    // Fully unrolled with the message schedule in 16 locals and the five working variables renamed per round
    // instead of shifted: generated, like the fast C implementations, so the optimiser keeps all in registers.
    while offset < count {
      let block = base + offset
      var w0 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
      var w1 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
      var w2 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
      var w3 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
      var w4 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
      var w5 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 20, as: UInt32.self))
      var w6 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 24, as: UInt32.self))
      var w7 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 28, as: UInt32.self))
      var w8 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 32, as: UInt32.self))
      var w9 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 36, as: UInt32.self))
      var w10 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 40, as: UInt32.self))
      var w11 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 44, as: UInt32.self))
      var w12 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 48, as: UInt32.self))
      var w13 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 52, as: UInt32.self))
      var w14 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 56, as: UInt32.self))
      var w15 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 60, as: UInt32.self))
      let (sa, sb, sc, sd, se) = (a, b, c, d, e)
      e = e &+ rotl5(a) &+ ((b & c) | (~b & d)) &+ 0x5A82_7999 &+ w0
      b = rotl30(b)
      d = d &+ rotl5(e) &+ ((a & b) | (~a & c)) &+ 0x5A82_7999 &+ w1
      a = rotl30(a)
      c = c &+ rotl5(d) &+ ((e & a) | (~e & b)) &+ 0x5A82_7999 &+ w2
      e = rotl30(e)
      b = b &+ rotl5(c) &+ ((d & e) | (~d & a)) &+ 0x5A82_7999 &+ w3
      d = rotl30(d)
      a = a &+ rotl5(b) &+ ((c & d) | (~c & e)) &+ 0x5A82_7999 &+ w4
      c = rotl30(c)
      e = e &+ rotl5(a) &+ ((b & c) | (~b & d)) &+ 0x5A82_7999 &+ w5
      b = rotl30(b)
      d = d &+ rotl5(e) &+ ((a & b) | (~a & c)) &+ 0x5A82_7999 &+ w6
      a = rotl30(a)
      c = c &+ rotl5(d) &+ ((e & a) | (~e & b)) &+ 0x5A82_7999 &+ w7
      e = rotl30(e)
      b = b &+ rotl5(c) &+ ((d & e) | (~d & a)) &+ 0x5A82_7999 &+ w8
      d = rotl30(d)
      a = a &+ rotl5(b) &+ ((c & d) | (~c & e)) &+ 0x5A82_7999 &+ w9
      c = rotl30(c)
      e = e &+ rotl5(a) &+ ((b & c) | (~b & d)) &+ 0x5A82_7999 &+ w10
      b = rotl30(b)
      d = d &+ rotl5(e) &+ ((a & b) | (~a & c)) &+ 0x5A82_7999 &+ w11
      a = rotl30(a)
      c = c &+ rotl5(d) &+ ((e & a) | (~e & b)) &+ 0x5A82_7999 &+ w12
      e = rotl30(e)
      b = b &+ rotl5(c) &+ ((d & e) | (~d & a)) &+ 0x5A82_7999 &+ w13
      d = rotl30(d)
      a = a &+ rotl5(b) &+ ((c & d) | (~c & e)) &+ 0x5A82_7999 &+ w14
      c = rotl30(c)
      e = e &+ rotl5(a) &+ ((b & c) | (~b & d)) &+ 0x5A82_7999 &+ w15
      b = rotl30(b)
      w0 = rotl1(w13 ^ w8 ^ w2 ^ w0)
      d = d &+ rotl5(e) &+ ((a & b) | (~a & c)) &+ 0x5A82_7999 &+ w0
      a = rotl30(a)
      w1 = rotl1(w14 ^ w9 ^ w3 ^ w1)
      c = c &+ rotl5(d) &+ ((e & a) | (~e & b)) &+ 0x5A82_7999 &+ w1
      e = rotl30(e)
      w2 = rotl1(w15 ^ w10 ^ w4 ^ w2)
      b = b &+ rotl5(c) &+ ((d & e) | (~d & a)) &+ 0x5A82_7999 &+ w2
      d = rotl30(d)
      w3 = rotl1(w0 ^ w11 ^ w5 ^ w3)
      a = a &+ rotl5(b) &+ ((c & d) | (~c & e)) &+ 0x5A82_7999 &+ w3
      c = rotl30(c)
      w4 = rotl1(w1 ^ w12 ^ w6 ^ w4)
      e = e &+ rotl5(a) &+ (b ^ c ^ d) &+ 0x6ED9_EBA1 &+ w4
      b = rotl30(b)
      w5 = rotl1(w2 ^ w13 ^ w7 ^ w5)
      d = d &+ rotl5(e) &+ (a ^ b ^ c) &+ 0x6ED9_EBA1 &+ w5
      a = rotl30(a)
      w6 = rotl1(w3 ^ w14 ^ w8 ^ w6)
      c = c &+ rotl5(d) &+ (e ^ a ^ b) &+ 0x6ED9_EBA1 &+ w6
      e = rotl30(e)
      w7 = rotl1(w4 ^ w15 ^ w9 ^ w7)
      b = b &+ rotl5(c) &+ (d ^ e ^ a) &+ 0x6ED9_EBA1 &+ w7
      d = rotl30(d)
      w8 = rotl1(w5 ^ w0 ^ w10 ^ w8)
      a = a &+ rotl5(b) &+ (c ^ d ^ e) &+ 0x6ED9_EBA1 &+ w8
      c = rotl30(c)
      w9 = rotl1(w6 ^ w1 ^ w11 ^ w9)
      e = e &+ rotl5(a) &+ (b ^ c ^ d) &+ 0x6ED9_EBA1 &+ w9
      b = rotl30(b)
      w10 = rotl1(w7 ^ w2 ^ w12 ^ w10)
      d = d &+ rotl5(e) &+ (a ^ b ^ c) &+ 0x6ED9_EBA1 &+ w10
      a = rotl30(a)
      w11 = rotl1(w8 ^ w3 ^ w13 ^ w11)
      c = c &+ rotl5(d) &+ (e ^ a ^ b) &+ 0x6ED9_EBA1 &+ w11
      e = rotl30(e)
      w12 = rotl1(w9 ^ w4 ^ w14 ^ w12)
      b = b &+ rotl5(c) &+ (d ^ e ^ a) &+ 0x6ED9_EBA1 &+ w12
      d = rotl30(d)
      w13 = rotl1(w10 ^ w5 ^ w15 ^ w13)
      a = a &+ rotl5(b) &+ (c ^ d ^ e) &+ 0x6ED9_EBA1 &+ w13
      c = rotl30(c)
      w14 = rotl1(w11 ^ w6 ^ w0 ^ w14)
      e = e &+ rotl5(a) &+ (b ^ c ^ d) &+ 0x6ED9_EBA1 &+ w14
      b = rotl30(b)
      w15 = rotl1(w12 ^ w7 ^ w1 ^ w15)
      d = d &+ rotl5(e) &+ (a ^ b ^ c) &+ 0x6ED9_EBA1 &+ w15
      a = rotl30(a)
      w0 = rotl1(w13 ^ w8 ^ w2 ^ w0)
      c = c &+ rotl5(d) &+ (e ^ a ^ b) &+ 0x6ED9_EBA1 &+ w0
      e = rotl30(e)
      w1 = rotl1(w14 ^ w9 ^ w3 ^ w1)
      b = b &+ rotl5(c) &+ (d ^ e ^ a) &+ 0x6ED9_EBA1 &+ w1
      d = rotl30(d)
      w2 = rotl1(w15 ^ w10 ^ w4 ^ w2)
      a = a &+ rotl5(b) &+ (c ^ d ^ e) &+ 0x6ED9_EBA1 &+ w2
      c = rotl30(c)
      w3 = rotl1(w0 ^ w11 ^ w5 ^ w3)
      e = e &+ rotl5(a) &+ (b ^ c ^ d) &+ 0x6ED9_EBA1 &+ w3
      b = rotl30(b)
      w4 = rotl1(w1 ^ w12 ^ w6 ^ w4)
      d = d &+ rotl5(e) &+ (a ^ b ^ c) &+ 0x6ED9_EBA1 &+ w4
      a = rotl30(a)
      w5 = rotl1(w2 ^ w13 ^ w7 ^ w5)
      c = c &+ rotl5(d) &+ (e ^ a ^ b) &+ 0x6ED9_EBA1 &+ w5
      e = rotl30(e)
      w6 = rotl1(w3 ^ w14 ^ w8 ^ w6)
      b = b &+ rotl5(c) &+ (d ^ e ^ a) &+ 0x6ED9_EBA1 &+ w6
      d = rotl30(d)
      w7 = rotl1(w4 ^ w15 ^ w9 ^ w7)
      a = a &+ rotl5(b) &+ (c ^ d ^ e) &+ 0x6ED9_EBA1 &+ w7
      c = rotl30(c)
      w8 = rotl1(w5 ^ w0 ^ w10 ^ w8)
      e = e &+ rotl5(a) &+ ((b & c) | (b & d) | (c & d)) &+ 0x8F1B_BCDC &+ w8
      b = rotl30(b)
      w9 = rotl1(w6 ^ w1 ^ w11 ^ w9)
      d = d &+ rotl5(e) &+ ((a & b) | (a & c) | (b & c)) &+ 0x8F1B_BCDC &+ w9
      a = rotl30(a)
      w10 = rotl1(w7 ^ w2 ^ w12 ^ w10)
      c = c &+ rotl5(d) &+ ((e & a) | (e & b) | (a & b)) &+ 0x8F1B_BCDC &+ w10
      e = rotl30(e)
      w11 = rotl1(w8 ^ w3 ^ w13 ^ w11)
      b = b &+ rotl5(c) &+ ((d & e) | (d & a) | (e & a)) &+ 0x8F1B_BCDC &+ w11
      d = rotl30(d)
      w12 = rotl1(w9 ^ w4 ^ w14 ^ w12)
      a = a &+ rotl5(b) &+ ((c & d) | (c & e) | (d & e)) &+ 0x8F1B_BCDC &+ w12
      c = rotl30(c)
      w13 = rotl1(w10 ^ w5 ^ w15 ^ w13)
      e = e &+ rotl5(a) &+ ((b & c) | (b & d) | (c & d)) &+ 0x8F1B_BCDC &+ w13
      b = rotl30(b)
      w14 = rotl1(w11 ^ w6 ^ w0 ^ w14)
      d = d &+ rotl5(e) &+ ((a & b) | (a & c) | (b & c)) &+ 0x8F1B_BCDC &+ w14
      a = rotl30(a)
      w15 = rotl1(w12 ^ w7 ^ w1 ^ w15)
      c = c &+ rotl5(d) &+ ((e & a) | (e & b) | (a & b)) &+ 0x8F1B_BCDC &+ w15
      e = rotl30(e)
      w0 = rotl1(w13 ^ w8 ^ w2 ^ w0)
      b = b &+ rotl5(c) &+ ((d & e) | (d & a) | (e & a)) &+ 0x8F1B_BCDC &+ w0
      d = rotl30(d)
      w1 = rotl1(w14 ^ w9 ^ w3 ^ w1)
      a = a &+ rotl5(b) &+ ((c & d) | (c & e) | (d & e)) &+ 0x8F1B_BCDC &+ w1
      c = rotl30(c)
      w2 = rotl1(w15 ^ w10 ^ w4 ^ w2)
      e = e &+ rotl5(a) &+ ((b & c) | (b & d) | (c & d)) &+ 0x8F1B_BCDC &+ w2
      b = rotl30(b)
      w3 = rotl1(w0 ^ w11 ^ w5 ^ w3)
      d = d &+ rotl5(e) &+ ((a & b) | (a & c) | (b & c)) &+ 0x8F1B_BCDC &+ w3
      a = rotl30(a)
      w4 = rotl1(w1 ^ w12 ^ w6 ^ w4)
      c = c &+ rotl5(d) &+ ((e & a) | (e & b) | (a & b)) &+ 0x8F1B_BCDC &+ w4
      e = rotl30(e)
      w5 = rotl1(w2 ^ w13 ^ w7 ^ w5)
      b = b &+ rotl5(c) &+ ((d & e) | (d & a) | (e & a)) &+ 0x8F1B_BCDC &+ w5
      d = rotl30(d)
      w6 = rotl1(w3 ^ w14 ^ w8 ^ w6)
      a = a &+ rotl5(b) &+ ((c & d) | (c & e) | (d & e)) &+ 0x8F1B_BCDC &+ w6
      c = rotl30(c)
      w7 = rotl1(w4 ^ w15 ^ w9 ^ w7)
      e = e &+ rotl5(a) &+ ((b & c) | (b & d) | (c & d)) &+ 0x8F1B_BCDC &+ w7
      b = rotl30(b)
      w8 = rotl1(w5 ^ w0 ^ w10 ^ w8)
      d = d &+ rotl5(e) &+ ((a & b) | (a & c) | (b & c)) &+ 0x8F1B_BCDC &+ w8
      a = rotl30(a)
      w9 = rotl1(w6 ^ w1 ^ w11 ^ w9)
      c = c &+ rotl5(d) &+ ((e & a) | (e & b) | (a & b)) &+ 0x8F1B_BCDC &+ w9
      e = rotl30(e)
      w10 = rotl1(w7 ^ w2 ^ w12 ^ w10)
      b = b &+ rotl5(c) &+ ((d & e) | (d & a) | (e & a)) &+ 0x8F1B_BCDC &+ w10
      d = rotl30(d)
      w11 = rotl1(w8 ^ w3 ^ w13 ^ w11)
      a = a &+ rotl5(b) &+ ((c & d) | (c & e) | (d & e)) &+ 0x8F1B_BCDC &+ w11
      c = rotl30(c)
      w12 = rotl1(w9 ^ w4 ^ w14 ^ w12)
      e = e &+ rotl5(a) &+ (b ^ c ^ d) &+ 0xCA62_C1D6 &+ w12
      b = rotl30(b)
      w13 = rotl1(w10 ^ w5 ^ w15 ^ w13)
      d = d &+ rotl5(e) &+ (a ^ b ^ c) &+ 0xCA62_C1D6 &+ w13
      a = rotl30(a)
      w14 = rotl1(w11 ^ w6 ^ w0 ^ w14)
      c = c &+ rotl5(d) &+ (e ^ a ^ b) &+ 0xCA62_C1D6 &+ w14
      e = rotl30(e)
      w15 = rotl1(w12 ^ w7 ^ w1 ^ w15)
      b = b &+ rotl5(c) &+ (d ^ e ^ a) &+ 0xCA62_C1D6 &+ w15
      d = rotl30(d)
      w0 = rotl1(w13 ^ w8 ^ w2 ^ w0)
      a = a &+ rotl5(b) &+ (c ^ d ^ e) &+ 0xCA62_C1D6 &+ w0
      c = rotl30(c)
      w1 = rotl1(w14 ^ w9 ^ w3 ^ w1)
      e = e &+ rotl5(a) &+ (b ^ c ^ d) &+ 0xCA62_C1D6 &+ w1
      b = rotl30(b)
      w2 = rotl1(w15 ^ w10 ^ w4 ^ w2)
      d = d &+ rotl5(e) &+ (a ^ b ^ c) &+ 0xCA62_C1D6 &+ w2
      a = rotl30(a)
      w3 = rotl1(w0 ^ w11 ^ w5 ^ w3)
      c = c &+ rotl5(d) &+ (e ^ a ^ b) &+ 0xCA62_C1D6 &+ w3
      e = rotl30(e)
      w4 = rotl1(w1 ^ w12 ^ w6 ^ w4)
      b = b &+ rotl5(c) &+ (d ^ e ^ a) &+ 0xCA62_C1D6 &+ w4
      d = rotl30(d)
      w5 = rotl1(w2 ^ w13 ^ w7 ^ w5)
      a = a &+ rotl5(b) &+ (c ^ d ^ e) &+ 0xCA62_C1D6 &+ w5
      c = rotl30(c)
      w6 = rotl1(w3 ^ w14 ^ w8 ^ w6)
      e = e &+ rotl5(a) &+ (b ^ c ^ d) &+ 0xCA62_C1D6 &+ w6
      b = rotl30(b)
      w7 = rotl1(w4 ^ w15 ^ w9 ^ w7)
      d = d &+ rotl5(e) &+ (a ^ b ^ c) &+ 0xCA62_C1D6 &+ w7
      a = rotl30(a)
      w8 = rotl1(w5 ^ w0 ^ w10 ^ w8)
      c = c &+ rotl5(d) &+ (e ^ a ^ b) &+ 0xCA62_C1D6 &+ w8
      e = rotl30(e)
      w9 = rotl1(w6 ^ w1 ^ w11 ^ w9)
      b = b &+ rotl5(c) &+ (d ^ e ^ a) &+ 0xCA62_C1D6 &+ w9
      d = rotl30(d)
      w10 = rotl1(w7 ^ w2 ^ w12 ^ w10)
      a = a &+ rotl5(b) &+ (c ^ d ^ e) &+ 0xCA62_C1D6 &+ w10
      c = rotl30(c)
      w11 = rotl1(w8 ^ w3 ^ w13 ^ w11)
      e = e &+ rotl5(a) &+ (b ^ c ^ d) &+ 0xCA62_C1D6 &+ w11
      b = rotl30(b)
      w12 = rotl1(w9 ^ w4 ^ w14 ^ w12)
      d = d &+ rotl5(e) &+ (a ^ b ^ c) &+ 0xCA62_C1D6 &+ w12
      a = rotl30(a)
      w13 = rotl1(w10 ^ w5 ^ w15 ^ w13)
      c = c &+ rotl5(d) &+ (e ^ a ^ b) &+ 0xCA62_C1D6 &+ w13
      e = rotl30(e)
      w14 = rotl1(w11 ^ w6 ^ w0 ^ w14)
      b = b &+ rotl5(c) &+ (d ^ e ^ a) &+ 0xCA62_C1D6 &+ w14
      d = rotl30(d)
      w15 = rotl1(w12 ^ w7 ^ w1 ^ w15)
      a = a &+ rotl5(b) &+ (c ^ d ^ e) &+ 0xCA62_C1D6 &+ w15
      c = rotl30(c)
      a = sa &+ a
      b = sb &+ b
      c = sc &+ c
      d = sd &+ d
      e = se &+ e
      offset &+= 64
    }
    h0 = a
    h1 = b
    h2 = c
    h3 = d
    h4 = e
    length += count
  }

  @inline(__always) private func rotl1(_ x: UInt32) -> UInt32 { (x &<< 1) | (x &>> 31) }
  @inline(__always) private func rotl5(_ x: UInt32) -> UInt32 { (x &<< 5) | (x &>> 27) }
  @inline(__always) private func rotl30(_ x: UInt32) -> UInt32 { (x &<< 30) | (x &>> 2) }

  /// Consumes the final `count` bytes (any length) and returns the 20-byte digest; `self` is left unchanged.
  func finish(_ base: UnsafeRawPointer?, count: Int) -> [UInt8] {
    var copy = self
    let whole = count & ~63
    if whole > 0, let base { copy.updateBlocks(base, count: whole) }
    let rest = count - whole
    let totalBits = UInt64(length + count) * 8
    var tail = [UInt8](repeating: 0, count: rest + 9 <= 64 ? 64 : 128)
    if rest > 0, let base {
      for i in 0..<rest { tail[i] = base.load(fromByteOffset: whole + i, as: UInt8.self) }
    }
    tail[rest] = 0x80
    for i in 0..<8 { tail[tail.count - 1 - i] = UInt8(truncatingIfNeeded: totalBits >> (8 * UInt64(i))) }
    tail.withUnsafeBytes { copy.updateBlocks($0.baseAddress!, count: $0.count) }
    var digest = [UInt8]()
    digest.reserveCapacity(20)
    for word in [copy.h0, copy.h1, copy.h2, copy.h3, copy.h4] {
      for shift in stride(from: 24, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> shift)) }
    }
    return digest
  }

  /// The digest of `bytes`.
  static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    SHA1().finish(bytes.baseAddress, count: bytes.count)
  }
}
