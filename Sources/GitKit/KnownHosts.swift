import Foundation

/// What `~/.ssh/known_hosts` says about one host, read the way OpenSSH matches it.
///
/// libgit2 only tells the certificate callback "not trusted": it does not say whether the host is unknown or known
/// with another key. Those need opposite advice (add the key / suspect an impostor), so GitKit reads the file again
/// itself, for the message only: the trust decision stays libgit2's.
struct KnownHosts {
  /// The key blobs (decoded base64) recorded for the host, in file order; `@revoked` and `@cert-authority` lines
  /// are not host keys and are left out.
  let keys: [Data]

  /// Reads the entries for `host` on `port` from `text` (a known_hosts file's content).
  init(text: String, host: String, port: Int?) {
    // OpenSSH writes a non-default port as `[host]:port` and matches the plain name only for port 22.
    let name = port.map { "[\(host)]:\($0)" } ?? host
    var keys: [Data] = []
    for line in text.split(whereSeparator: \.isNewline) {
      let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
      guard let first = fields.first, !first.hasPrefix("#"), !first.hasPrefix("@"), fields.count >= 3,
        Self.matches(patterns: first, name: name), let blob = Data(base64Encoded: fields[2])
      else { continue }
      keys.append(blob)
    }
    self.keys = keys
  }

  /// Reads `$HOME/.ssh/known_hosts`, the one file libgit2 consults; no entries when it cannot be read.
  static func forHost(_ host: String, port: Int?) -> KnownHosts {
    let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
    let path = URL(fileURLWithPath: home).appendingPathComponent(".ssh/known_hosts").path
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return KnownHosts(text: text, host: host, port: port)
  }

  /// True when the comma-separated host field names `name`: literally, or hashed (`|1|salt|hmac`, what
  /// `HashKnownHosts yes`, Debian's default, writes). Wildcard patterns are not expanded: an entry the message
  /// misses only makes it give the unknown-host advice, never the trust decision.
  static func matches(patterns field: String, name: String) -> Bool {
    if field.hasPrefix("|1|") {
      let parts = field.split(separator: "|", omittingEmptySubsequences: false)
      guard parts.count == 4, let salt = Data(base64Encoded: String(parts[2])),
        let hash = Data(base64Encoded: String(parts[3]))
      else { return false }
      return Data(hmacSHA1(key: [UInt8](salt), message: Array(name.utf8))) == hash
    }
    return field.split(separator: ",").contains { $0.lowercased() == name.lowercased() }
  }

  /// `SHA256:<base64 without padding>`, the fingerprint OpenSSH prints for a key blob.
  static func fingerprint(sha256 digest: [UInt8]) -> String {
    var base64 = Data(digest).base64EncodedString()
    while base64.hasSuffix("=") { base64.removeLast() }
    return "SHA256:\(base64)"
  }

  /// The fingerprint of a key blob as `ssh-keygen -l` prints it.
  static func fingerprint(ofKey blob: Data) -> String { fingerprint(sha256: SHA256.hash([UInt8](blob))) }

  /// HMAC-SHA1 (RFC 2104), what OpenSSH hashes host names with.
  static func hmacSHA1(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var block = key.count > 64 ? key.withUnsafeBytes { SHA1.hash($0) } : key
    block += [UInt8](repeating: 0, count: 64 - block.count)
    let inner = block.map { $0 ^ 0x36 } + message
    let innerHash = inner.withUnsafeBytes { SHA1.hash($0) }
    let outer = block.map { $0 ^ 0x5c } + innerHash
    return outer.withUnsafeBytes { SHA1.hash($0) }
  }
}

/// Plain SHA-256 (FIPS 180-4), for showing the fingerprint of a key recorded in known_hosts (and, through
/// NoteStore's `NoteHistory`, the inbox command's cache keys): libgit2 exports no hash function and Foundation on
/// Linux has no CryptoKit.
package enum SHA256 {
  private static let k: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]

  /// The 32-byte digest of `message`.
  package static func hash(_ message: [UInt8]) -> [UInt8] {
    var h: [UInt32] = [
      0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    var data = message + [0x80]
    while data.count % 64 != 56 { data.append(0) }
    let bits = UInt64(message.count) * 8
    for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
    var w = [UInt32](repeating: 0, count: 64)
    for start in stride(from: 0, to: data.count, by: 64) {
      for i in 0..<16 {
        w[i] = (0..<4).reduce(UInt32(0)) { ($0 << 8) | UInt32(data[start + 4 * i + $1]) }
      }
      for i in 16..<64 {
        let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
        let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
        w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
      }
      var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
      for i in 0..<64 {
        let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
        let choice = (e & f) ^ (~e & g)
        let t1 = hh &+ s1 &+ choice &+ k[i] &+ w[i]
        let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
        let majority = (a & b) ^ (a & c) ^ (b & c)
        let t2 = s0 &+ majority
        (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
      }
      for (i, value) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ value }
    }
    return h.flatMap { word in
      stride(from: 24, through: 0, by: -8).map { UInt8(truncatingIfNeeded: word >> UInt32($0)) }
    }
  }
}
