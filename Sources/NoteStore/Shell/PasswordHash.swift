import Foundation
import TextFormat

/// A password kept as PBKDF2-HMAC-SHA256 (RFC 8018) of a random salt: what `nb serve --listen` checks a sign-in
/// against, never the password itself.
///
/// Built on the SHA-256 nb already has (GitKit's, for known_hosts), not a crypto library: Foundation on Linux has
/// no PBKDF2, and swift-crypto would add a large dependency to every build for this one function. The record
/// names its iterations, so a stronger setting later still reads the records written before it.
public struct PasswordHash: Equatable, Sendable {
  /// Rounds for a new password: a sign-in costs one derivation, and failed ones are rate-limited besides.
  public static let defaultIterations = 100_000
  /// The fewest characters a password may have.
  public static let minimumLength = 8

  /// PBKDF2 rounds.
  public let iterations: Int
  /// The random salt.
  public let salt: [UInt8]
  /// The derived key (32 bytes).
  public let key: [UInt8]

  /// The hash of `password` with a fresh 16-byte salt from the system's cryptographic generator.
  public init(password: String, iterations: Int = PasswordHash.defaultIterations) {
    var generator = SystemRandomNumberGenerator()
    let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    self.init(password: password, salt: salt, iterations: iterations)
  }

  /// The hash of `password` with `salt`.
  public init(password: String, salt: [UInt8], iterations: Int) {
    self.iterations = max(1, iterations)
    self.salt = salt
    self.key = Self.pbkdf2(password: Array(password.utf8), salt: salt, iterations: self.iterations)
  }

  /// A record as ``record`` writes it (`pbkdf2-sha256$ITERATIONS$SALT$KEY`, salt and key in base64); nil for
  /// anything else.
  public init?(record: String) {
    let parts = record.trimmingWhitespacesAndNewlines().split(
      separator: "$", omittingEmptySubsequences: false)
    guard parts.count == 4, parts[0] == "pbkdf2-sha256", let iterations = Int(parts[1]), iterations > 0,
      let salt = Data(base64Encoded: String(parts[2])), let key = Data(base64Encoded: String(parts[3])), key.count == 32
    else { return nil }
    self.iterations = iterations
    self.salt = [UInt8](salt)
    self.key = [UInt8](key)
  }

  /// One line naming the method, the iterations, the salt and the key.
  public var record: String {
    "pbkdf2-sha256$\(iterations)$\(Data(salt).base64EncodedString())$\(Data(key).base64EncodedString())"
  }

  /// Whether `password` derives this key, compared in time that does not depend on where they differ.
  public func matches(_ password: String) -> Bool {
    let derived = Self.pbkdf2(password: Array(password.utf8), salt: salt, iterations: iterations)
    guard derived.count == key.count else { return false }
    var difference: UInt8 = 0
    for index in key.indices { difference |= derived[index] ^ key[index] }
    return difference == 0
  }

  /// PBKDF2-HMAC-SHA256's first block: a 32-byte key.
  static func pbkdf2(password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
    // HMAC's key: hashed when longer than a block, then padded to one.
    var key = password.count > 64 ? NoteHistory.sha256(password) : password
    key += [UInt8](repeating: 0, count: 64 - key.count)
    let inner = key.map { $0 ^ 0x36 }
    let outer = key.map { $0 ^ 0x5c }
    func hmac(_ message: [UInt8]) -> [UInt8] { NoteHistory.sha256(outer + NoteHistory.sha256(inner + message)) }
    var block = hmac(salt + [0, 0, 0, 1])
    var result = block
    for _ in 1..<max(1, iterations) {
      block = hmac(block)
      for index in result.indices { result[index] ^= block[index] }
    }
    return result
  }
}

extension NoteRepository {
  /// The password `nb serve --listen` asks other devices for, when one is set on this device. It is kept in
  /// `.git/nb/serve-password` (a ``PasswordHash`` record, readable by the owner only): device-local, never in the
  /// synced repository.
  public var servePassword: PasswordHash? {
    guard let data = try? FileSystem.read(servePasswordPath, limit: 4096),
      let text = String(data: data, encoding: .utf8)
    else { return nil }
    return PasswordHash(record: text)
  }

  /// Sets (or replaces) ``servePassword``.
  /// - Throws: ``NoteStoreError/invalidArgument(_:)`` for a password shorter than ``PasswordHash/minimumLength``
  ///   characters or on several lines.
  public func setServePassword(_ password: String, iterations: Int = PasswordHash.defaultIterations) throws {
    guard password.count >= PasswordHash.minimumLength, !password.contains(where: \.isNewline) else {
      throw NoteStoreError.invalidArgument(
        "the password must be one line of at least \(PasswordHash.minimumLength) characters")
    }
    let record = PasswordHash(password: password, iterations: iterations).record + "\n"
    try FileSystem.makeDirectory(gitDirectory.appendingPathComponent("nb").path)
    let url = URL(fileURLWithPath: servePasswordPath)
    try AtomicFile.write(Data(record.utf8), to: url, durable: true)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
  }

  /// Removes ``servePassword``, so that `nb serve` answers this machine only until one is set again. Whether there
  /// was one to remove.
  @discardableResult
  public func removeServePassword() throws -> Bool {
    guard FileSystem.lstatInfo(servePasswordPath) != nil else { return false }
    try FileSystem.remove(servePasswordPath)
    return true
  }

  private var servePasswordPath: String { gitDirectory.appendingPathComponent("nb/serve-password").path }
}
