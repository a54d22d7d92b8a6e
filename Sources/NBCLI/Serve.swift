import ArgumentParser
import Foundation
import NoteStore
import NoteWeb

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

struct Serve: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Browse the notes in a web browser: a server on this machine only, until Ctrl-C.",
    discussion: """
      Prints the address to open, with a session token (random per run) that the browser trades for a cookie on \
      the first request; scripts may send it as 'Authorization: Bearer TOKEN' or 'X-NB-Token: TOKEN' instead. Only \
      127.0.0.1 and localhost are answered, with the port in the Host header; other web pages cannot read or change \
      the notes, and nothing in a note runs in the browser. With --listen beyond this machine (0.0.0.0:8642), \
      other devices sign in with the password set by 'nb serve --set-password'; failed sign-ins are limited to 5 a \
      minute per address. The traffic is not encrypted unless --tls-cert and --tls-key give a certificate and its \
      key (PEM files, e.g. made by mkcert or openssl, trusted by the other devices): then it is HTTPS, the printed \
      address is https://, and the session cookie is Secure.
      """)

  @Option(help: "The port to listen on, 1-65535, or 0 for any free port.")
  var port: Int = 8642

  @Option(
    help: ArgumentHelp(
      "Listen on this address instead of 127.0.0.1:PORT, e.g. 0.0.0.0:8642 for the other devices of your network "
        + "(needs a password: --set-password; the traffic is not encrypted without --tls-cert/--tls-key).",
      valueName: "HOST:PORT"))
  var listen: String?

  @Option(
    help: ArgumentHelp(
      "Serve HTTPS with this certificate (PEM; the server's first, then any intermediate ones), with --tls-key.",
      valueName: "FILE"))
  var tlsCert: String?

  @Option(help: ArgumentHelp("The certificate's private key (PEM, no passphrase), with --tls-cert.", valueName: "FILE"))
  var tlsKey: String?

  @Flag(help: "Set the password other devices sign in with (read from standard input), then exit.")
  var setPassword = false

  @Flag(help: "Remove that password (--listen beyond this machine is refused until one is set again), then exit.")
  var removePassword = false

  // For tests and slow machines: PBKDF2 rounds of the password set (the record keeps its own count).
  @Option(help: .hidden) var passwordIterations = PasswordHash.defaultIterations

  @Flag(help: "Viewing only: every write answers 403.")
  var readOnly = false

  @Option(help: ArgumentHelp("The largest request body accepted, in MB.", valueName: "MB"))
  var maxBody: Int = 20

  @Flag(help: "Open the address in the system's browser once listening (xdg-open; open on macOS).")
  var open = false

  @OptionGroup var repository: RepositoryOptions
  @Flag(name: .long, help: "Print one JSON line {url, port, token} once listening, for scripts.") var json = false

  func validate() throws {
    // One line naming the option, not the usage text ArgumentParser adds after a ValidationError.
    guard (0...65535).contains(port) else {
      throw CommandError("--port must be a number from 0 to 65535 (0: any free port), not \(port)")
    }
    guard (1...4096).contains(maxBody) else { throw CommandError("--max-body must be from 1 to 4096 (MB)") }
    if let listen, NoteWebServer.listenAddress(listen) == nil {
      throw CommandError(
        "--listen must be HOST:PORT such as 0.0.0.0:8642, 127.0.0.1:0 or [::]:8642 (PORT 0-65535), not '\(listen)'")
    }
    switch (tlsCert, tlsKey) {
    case (.some, nil): throw CommandError("--tls-cert needs --tls-key: the certificate's private key (a PEM file)")
    case (nil, .some): throw CommandError("--tls-key needs --tls-cert: the certificate it is the key of (a PEM file)")
    default: break
    }
    if setPassword && removePassword {
      throw CommandError("--set-password and --remove-password exclude each other; give one")
    }
    guard (1...10_000_000).contains(passwordIterations) else {
      throw CommandError("--password-iterations must be from 1 to 10000000")
    }
  }

  /// `--set-password`: the password from a prompt (without echo) on a terminal, else the first line of standard
  /// input, stored as a salted hash in the repository's device-local `.git/nb/`.
  private func storePassword(_ notes: NoteRepository) throws {
    let password: String
    if isatty(STDIN_FILENO) == 1 {
      guard let first = getpass("Password for nb serve --listen: ").map({ String(cString: $0) }),
        let again = getpass("Again: ").map({ String(cString: $0) })
      else { throw CommandError("no password read") }
      guard first == again else { throw CommandError("the two passwords differ; nothing was changed") }
      password = first
    } else {
      guard let line = readLine(strippingNewline: true) else {
        throw CommandError("--set-password reads the password from standard input, which is empty")
      }
      password = line.hasSuffix("\r") ? String(line.dropLast()) : line
    }
    try notes.setServePassword(password, iterations: passwordIterations)
    print("Password set for nb serve --listen on this device (a salted hash in .git/nb/serve-password, never synced).")
  }

  func run() throws {
    let notes = try repository.open()
    if setPassword { return try storePassword(notes) }
    if removePassword {
      print(
        try notes.removeServePassword()
          ? "Password removed: nb serve --listen beyond this machine is refused until 'nb serve --set-password'."
          : "No password was set on this device; nothing changed.")
      return
    }
    // The progress line would draw over the server's output; a page has nothing to show it in.
    notes.progress = nil
    var settings = NoteWebServer.Configuration()
    settings.port = port
    // Read and checked before anything listens or is printed: a wrong file is one line naming it.
    if let tlsCert, let tlsKey {
      let identity: TLSIdentity
      do {
        identity = try TLSIdentity(certificateFile: tlsCert, keyFile: tlsKey)
      } catch {
        throw CommandError("\(error)")
      }
      settings.tls = identity
      // Served all the same (a browser lets a person go on past its warning), but the reason is said here, not
      // left to a browser's vaguer page.
      let day = ISO8601DateFormatter()
      day.formatOptions = [.withFullDate]
      if identity.notValidAfter < Date() {
        FileHandle.standardError.write(
          Data(
            ("warning: the certificate in --tls-cert \(tlsCert) expired on \(day.string(from: identity.notValidAfter)) "
              + "(UTC): browsers will refuse it; make a new one\n").utf8))
      } else if identity.notValidBefore > Date() {
        FileHandle.standardError.write(
          Data(
            ("warning: the certificate in --tls-cert \(tlsCert) is valid only from "
              + "\(day.string(from: identity.notValidBefore)) (UTC): browsers will refuse it until then; is this "
              + "machine's clock right?\n").utf8))
      }
    }
    if let listen, let address = NoteWebServer.listenAddress(listen) {
      (settings.host, settings.port) = address
      if !NoteWebServer.isLoopback(address.host) {
        guard let password = notes.servePassword else {
          throw CommandError(
            "--listen \(listen) lets other devices in: set a password first with 'nb serve --set-password' (kept on "
              + "this device only, never synced)")
        }
        settings.password = password
        // Before anything else is printed, and on every start: a person must not miss it.
        if settings.tls == nil {
          FileHandle.standardError.write(
            Data(
              ("warning: traffic to \(listen) is not encrypted: anyone on the network can read the notes and the "
                + "password as they pass. Use it on a network you trust, or serve HTTPS with --tls-cert FILE "
                + "--tls-key FILE (a certificate the other devices trust, and its key).\n").utf8))
        }
      }
    }
    settings.readOnly = readOnly
    settings.bodyLimit = maxBody << 20
    let json = self.json
    let open = self.open
    let passwordMode = settings.password != nil
    let root = notes.root.path
    let outcome = Outcome()
    let finished = DispatchSemaphore(value: 0)
    // The server is async (SwiftNIO underneath); this command is not: it waits here until the server returns.
    Task {
      do {
        try await NoteWebServer.serve(notes, configuration: settings) { listening in
          if json {
            let line = ServeJSON(url: listening.url, port: listening.port, token: listening.token)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            FileHandle.standardOutput.write((try? encoder.encode(line)) ?? Data())
            FileHandle.standardOutput.write(Data("\n".utf8))
          } else {
            FileHandle.standardOutput.write(Data((listening.url + "\n").utf8))
            FileHandle.standardError.write(Data("Serving \(root)\(readOnly ? " read-only" : ""); Ctrl-C stops.\n".utf8))
            if passwordMode {
              FileHandle.standardError.write(
                Data("Other devices open this server's address on your network and sign in with the password.\n".utf8))
            }
          }
          if open { Self.openInBrowser(listening.url) }
        }
      } catch {
        outcome.error = error
      }
      finished.signal()
    }
    finished.wait()
    if let error = outcome.error { throw CommandError("\(error)") }
  }

  /// The program that opens a URL in the user's browser.
  static let opener: String = {
    #if os(macOS)
      "open"
    #else
      "xdg-open"
    #endif
  }()

  /// Hands `url` to the system's opener, without waiting for it: a browser that fails to start must not stop the
  /// server, so a failure is one warning line and the URL stays printed above it.
  static func openInBrowser(_ url: String) {
    let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    guard
      let program = paths.map({ URL(fileURLWithPath: String($0)).appendingPathComponent(opener) })
        .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
    else {
      FileHandle.standardError.write(
        Data("warning: no \(opener) on PATH to open a browser with; open the URL yourself\n".utf8))
      return
    }
    let process = Process()
    process.executableURL = program
    process.arguments = [url]
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    // Reaped when it ends, so it never lingers as a zombie of a long-running server.
    process.terminationHandler = { _ in }
    do {
      try process.run()
    } catch {
      FileHandle.standardError.write(Data("warning: \(program.path) could not open a browser: \(error)\n".utf8))
    }
  }

  private struct ServeJSON: Encodable {
    var url: String
    var port: Int
    var token: String
  }

  /// How the server ended, handed from its task to the waiting command.
  private final class Outcome: @unchecked Sendable {
    var error: Error?
  }
}
