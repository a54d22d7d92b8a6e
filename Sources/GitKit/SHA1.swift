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

  /// Consumes `count` bytes at `base`; `count` must be a multiple of 64 so the state stays resumable.
  mutating func updateBlocks(_ base: UnsafeRawPointer, count: Int) {
    precondition(count % 64 == 0, "SHA1.updateBlocks needs whole 64-byte blocks")
    var a0 = h0
    var b0 = h1
    var c0 = h2
    var d0 = h3
    var e0 = h4
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { w in
      var offset = 0
      while offset < count {
        let block = base + offset
        for i in 0..<16 {
          w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
        }
        for i in 16..<80 {
          let x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]
          w[i] = (x << 1) | (x >> 31)
        }
        var a = a0
        var b = b0
        var c = c0
        var d = d0
        var e = e0
        @inline(__always) func step(_ f: UInt32, _ k: UInt32, _ wi: UInt32) {
          let t = ((a << 5) | (a >> 27)) &+ f &+ e &+ k &+ wi
          e = d
          d = c
          c = (b << 30) | (b >> 2)
          b = a
          a = t
        }
        for i in 0..<20 { step((b & c) | (~b & d), 0x5A82_7999, w[i]) }
        for i in 20..<40 { step(b ^ c ^ d, 0x6ED9_EBA1, w[i]) }
        for i in 40..<60 { step((b & c) | (b & d) | (c & d), 0x8F1B_BCDC, w[i]) }
        for i in 60..<80 { step(b ^ c ^ d, 0xCA62_C1D6, w[i]) }
        a0 = a0 &+ a
        b0 = b0 &+ b
        c0 = c0 &+ c
        d0 = d0 &+ d
        e0 = e0 &+ e
        offset += 64
      }
    }
    h0 = a0
    h1 = b0
    h2 = c0
    h3 = d0
    h4 = e0
    length += count
  }

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
