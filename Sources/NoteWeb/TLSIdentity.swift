import Foundation
import HummingbirdCore
import HummingbirdTLS

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The certificate and private key `nb serve` answers HTTPS with (`--tls-cert FILE --tls-key FILE`), read and
/// checked when made, before the server listens: a wrong file is then one line naming it, not a server whose every
/// handshake fails.
public struct TLSIdentity: Sendable {
  /// The certificate file, as given.
  public let certificateFile: String
  /// The private key file, as given.
  public let keyFile: String
  /// The end of the first (the server's own) certificate's validity.
  public let notValidAfter: Date
  /// The start of the first certificate's validity.
  public let notValidBefore: Date
  /// swift-nio-ssl's server settings: the chain and key; TLS 1.2 or later.
  let configuration: TLSConfiguration

  /// Why a certificate or key cannot be used.
  public enum Failure: Error, CustomStringConvertible {
    /// The file cannot be read: the option, the file, and the system's reason.
    case unreadable(option: String, file: String, reason: String)
    /// The certificate file holds no PEM certificate.
    case notACertificate(file: String)
    /// The key file holds no PEM private key.
    case notAKey(file: String)
    /// The key file's key is protected by a passphrase, which nb cannot ask for when a page connects.
    case encryptedKey(file: String)
    /// The key is not the one the certificate was made for (or of a kind TLS cannot use).
    case keyDoesNotMatch(key: String, certificate: String)

    /// One line for a person: the file, and what to do.
    public var description: String {
      switch self {
      case .unreadable(let option, let file, let reason):
        "\(option) \(file): cannot read it (\(reason)); give the path of a PEM file"
      case .notACertificate(let file):
        "--tls-cert \(file) holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the server's certificate, "
          + "e.g. one made by mkcert or 'openssl req -x509'"
      case .notAKey(let file):
        "--tls-key \(file) holds no PEM private key (-----BEGIN PRIVATE KEY-----); give the key the certificate "
          + "was made with"
      case .encryptedKey(let file):
        "--tls-key \(file) is protected by a passphrase, which nb serve cannot ask for; write it without one: "
          + "openssl pkey -in \(file) -out KEY.pem"
      case .keyDoesNotMatch(let key, let certificate):
        "--tls-key \(key) is not the key of the certificate in --tls-cert \(certificate); give the key the "
          + "certificate was made with"
      }
    }
  }

  /// Reads and checks `certificateFile` (PEM: the server's certificate first, then any intermediate ones) and
  /// `keyFile` (its PEM private key, without a passphrase); they may be one file holding both.
  /// - Throws: ``Failure`` naming the file that cannot be used.
  public init(certificateFile: String, keyFile: String) throws {
    let certificateText = try Self.read(certificateFile, option: "--tls-cert")
    let keyText = try Self.read(keyFile, option: "--tls-key")
    guard let chain = try? NIOSSLCertificate.fromPEMBytes(certificateText), let first = chain.first else {
      throw Failure.notACertificate(file: certificateFile)
    }
    let key: NIOSSLPrivateKey
    do {
      key = try NIOSSLPrivateKey(bytes: keyText, format: .pem)
    } catch {
      // BoringSSL never prompts; an encrypted key just fails to load, so say why rather than "no key".
      let text = String(decoding: keyText, as: UTF8.self)
      if text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED") {
        throw Failure.encryptedKey(file: keyFile)
      }
      throw Failure.notAKey(file: keyFile)
    }
    var configuration = TLSConfiguration.makeServerConfiguration(
      certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    // TLS 1.0 and 1.1 are deprecated (RFC 8996), and every browser that can draw on a tablet speaks 1.2.
    configuration.minimumTLSVersion = .tlsv12
    // The SSL context is where BoringSSL checks the key against the certificate (swift-nio-ssl reports only
    // failedToLoadPrivateKey, the same for a key TLS cannot use); TLSChannel makes one at once, the way
    // HummingbirdTLS offers without importing swift-nio-ssl itself. The responder never runs.
    do {
      _ = try TLSChannel(HTTP1Channel(responder: { _, _, _ in }), tlsConfiguration: configuration)
    } catch {
      throw Failure.keyDoesNotMatch(key: keyFile, certificate: certificateFile)
    }
    self.certificateFile = certificateFile
    self.keyFile = keyFile
    self.configuration = configuration
    notValidAfter = Date(timeIntervalSince1970: TimeInterval(first.notValidAfter))
    notValidBefore = Date(timeIntervalSince1970: TimeInterval(first.notValidBefore))
  }

  /// The file's bytes; a directory, a missing or unreadable file, or one over 1 MiB (no PEM file is: a device or
  /// a wrong path) is refused with the reason.
  private static func read(_ file: String, option: String) throws -> [UInt8] {
    let limit = 1 << 20
    let descriptor = open(file, O_RDONLY)
    guard descriptor >= 0 else {
      throw Failure.unreadable(option: option, file: file, reason: String(cString: strerror(errno)))
    }
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    var status = stat()
    if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
      throw Failure.unreadable(option: option, file: file, reason: String(cString: strerror(EISDIR)))
    }
    var bytes: [UInt8] = []
    while bytes.count <= limit {
      let piece: Data?
      do {
        piece = try handle.read(upToCount: limit + 1 - bytes.count)
      } catch {
        throw Failure.unreadable(option: option, file: file, reason: "\(error.localizedDescription)")
      }
      guard let piece, !piece.isEmpty else { break }
      bytes += piece
    }
    guard bytes.count <= limit else {
      throw Failure.unreadable(option: option, file: file, reason: "larger than 1 MiB, which no PEM file is")
    }
    return bytes
  }
}
