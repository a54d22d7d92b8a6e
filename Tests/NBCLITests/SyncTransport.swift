import Foundation

/// How a device reaches the bare remote in a two-device test.
enum SyncTransport: String {
  /// A plain file-system path to the bare repository.
  case path
  /// `file://` URL of the bare repository.
  case file
  /// `git daemon` on 127.0.0.1 (`git://`), push enabled.
  case daemon
  /// Smart HTTP (`git http-backend` behind NBTestSupport's small python3 server) on 127.0.0.1.
  case http
}
