import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `nb serve`: how long the server takes to answer a note page and a notebook page (the first 50 notes), how many
/// pages a second it serves to 32 connections (`wrk`, when installed), how soon a change reaches 100 open live pages,
/// and what the server costs while they stay open and nothing happens. Every request is made over loopback by this
/// process (one connection per request, read to the end), so a row's time is the server's plus loopback's.
func serveBenchmark(options: Options) throws {
  let work = options.workDirectory + "/serve"
  let environment = try freshWorkDirectory(work)
  let pages = options.quick ? 3 : max(50, options.samples * 4)
  let pagesLive = options.quick ? 5 : 100
  let idleSeconds = options.quick ? 0.5 : 10.0
  for size in options.quick ? [options.sizes.max() ?? 50] : options.sizes {
    let root = "\(work)/repo-\(size)"
    // Notebooks of 100 notes: a notebook page shows its first 50.
    try buildNotebooks(at: root, notes: size, notebooks: max(1, size / 100), environment: environment)
    _ = must(spawn([nbPath, "--dir", root, "reindex"], cwd: root, environment: environment), "nb reindex")
    let server = try ServedRepository(root: root, environment: environment)
    defer { server.stop() }
    let note = "/note/area-0/notebook-0/note-0.md"
    let notebook = "/notebook/area-0/notebook-0"
    print("\n## nb serve, \(size) notes (index built; \(pages) requests per row, one connection each)\n")
    print("| request | first ms | p50 ms | p95 ms | status |")
    print("|---|---:|---:|---:|---|")
    // The server keeps note pages it made until a file changes: a page made anew is a note not asked for before.
    let notebooks = max(1, size / 100)
    func notePath(_ i: Int) -> String {
      let i = i % size
      return "/note/area-\(i % notebooks / 100)/notebook-\(i % notebooks)/note-\(i).md"
    }
    for (name, path) in [
      ("note page, made (a note not asked for before)", { (i: Int) in notePath(size / 2 + i) }),
      ("note page, kept (the same note again)", { _ in note }),
      ("notebook page (first 50 of 100)", { _ in notebook }), ("home page", { _ in "/" }),
      ("search (one word, 50 hits)", { _ in "/search?q=text" }),
    ] {
      var times: [Double] = []
      var statuses = Set<Int>()
      for i in 0..<pages {
        let (seconds, status) = try server.get(path(i))
        times.append(seconds)
        statuses.insert(status)
      }
      print(
        "| \(name) | \(ms(times[0])) | \(ms(percentile(Array(times.dropFirst()), 0.5))) | "
          + "\(ms(percentile(Array(times.dropFirst()), 0.95))) | \(statuses.sorted().map(String.init).joined(separator: ",")) |"
      )
    }
    if let wrk = which("wrk"), !options.quick {
      let result = try server.wrk(wrk, path: note, seconds: 10, connections: 32)
      print("| wrk, note page, 32 connections, 10 s: pages/s / p50 / p99 | \(result) | | | |")
      // Many notes in turn: each made once (the first round), then answered from what the server kept.
      let count = min(size, 2_000)
      let script = """
        local i = 0
        request = function()
          i = (i + 1) % \(count)
          local k = (i * 7919) % \(size)
          return wrk.format(nil, "/note/area-" .. math.floor((k % \(notebooks)) / 100) .. "/notebook-" .. (k % \(notebooks)) .. "/note-" .. k .. ".md")
        end
        """
      let many = try server.wrk(wrk, path: note, seconds: 10, connections: 32, script: script)
      print("| wrk, \(count) different note pages in turn, 32 connections, 10 s: pages/s / p50 / p99 | \(many) | | | |")
    } else if !options.quick {
      print("| wrk | not installed (apt-get install wrk) | | | |")
    }
    let live = try server.liveDelivery(pages: pagesLive, root: root)
    print(
      "\n| \(pagesLive) live pages: a written note reaches them | p50 \(ms(live.p50)) ms · last \(ms(live.last)) ms "
        + "· \(live.received)/\(pagesLive) received |")
    let pid = server.process.processIdentifier
    let before = cpuSeconds(pid)
    let start = monotonicSeconds()
    usleep(UInt32(idleSeconds * 1_000_000))
    let cpu = (cpuSeconds(pid) - before) / (monotonicSeconds() - start) * 100
    print(
      "| idle \(idleSeconds) s with \(pagesLive) live pages: CPU of one core / resident | "
        + String(format: "%.2f %%", cpu) + " / \(residentKiB(pid) / 1024) MiB |")
    live.close()
    server.stop()
  }
  if !options.keep { try? FileManager.default.removeItem(atPath: work) }
}

private func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

private func which(_ name: String) -> String? {
  for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
    let path = "\(directory)/\(name)"
    if FileManager.default.isExecutableFile(atPath: path) { return path }
  }
  return nil
}

/// `nb serve --port 0 --json` on a repository, and the requests the benchmark makes of it.
private final class ServedRepository {
  let process = Process()
  let port: Int
  let token: String

  init(root: String, environment: [String: String]) throws {
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: nbPath)
    process.arguments = ["--dir", root, "serve", "--port", "0", "--json"]
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    var line = Data()
    let handle = output.fileHandleForReading
    while !line.contains(UInt8(ascii: "\n")) {
      let byte = handle.readData(ofLength: 1)
      if byte.isEmpty { break }
      line.append(byte)
    }
    struct Listening: Decodable {
      var port: Int
      var token: String
    }
    guard let listening = try? JSONDecoder().decode(Listening.self, from: line) else {
      process.terminate()
      fail("nb serve printed no JSON line: \(String(decoding: line, as: UTF8.self))")
    }
    (port, token) = (listening.port, listening.token)
  }

  func stop() {
    guard process.isRunning else { return }
    process.terminate()
    process.waitUntilExit()
  }

  /// A connected socket to the server.
  private func connectSocket() throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { fail("socket: \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { fail("connect to 127.0.0.1:\(port): \(errno)") }
    return fd
  }

  private func send(_ fd: Int32, _ path: String, close: Bool) {
    let request =
      "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-NB-Token: \(token)\r\n"
      + (close ? "Connection: close\r\n" : "") + "\r\n"
    _ = request.withCString { write(fd, $0, strlen($0)) }
  }

  /// One GET on a connection of its own, read to the end: the seconds it took and the status.
  func get(_ path: String) throws -> (Double, Int) {
    let start = monotonicSeconds()
    let fd = try connectSocket()
    defer { close(fd) }
    send(fd, path, close: true)
    var response = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = read(fd, &buffer, buffer.count)
      if count <= 0 { break }
      response.append(contentsOf: buffer[0..<count])
    }
    let seconds = monotonicSeconds() - start
    let status = Int(String(decoding: response.prefix(12).dropFirst(9), as: UTF8.self)) ?? 0
    return (seconds, status)
  }

  /// wrk's pages per second and latency percentiles for `path`.
  /// With `script` (Lua), the requests are the script's.
  func wrk(_ wrk: String, path: String, seconds: Int, connections: Int, script: String? = nil) throws -> String {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("nb-bench-wrk-\(getpid()).txt").path
    let lua = FileManager.default.temporaryDirectory.appendingPathComponent("nb-bench-wrk-\(getpid()).lua").path
    defer {
      try? FileManager.default.removeItem(atPath: out)
      try? FileManager.default.removeItem(atPath: lua)
    }
    if let script { try script.write(toFile: lua, atomically: true, encoding: .utf8) }
    _ = must(
      spawn(
        [wrk, "-t2", "-c\(connections)", "-d\(seconds)s", "--latency", "-H", "X-NB-Token: \(token)"]
          + (script == nil ? [] : ["-s", lua]) + ["http://127.0.0.1:\(port)\(path)"], cwd: "/", output: out), "wrk")
    let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
    func field(_ prefix: String) -> String {
      text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(prefix) }
        .map { $0.trimmingCharacters(in: .whitespaces).dropFirst(prefix.count).trimmingCharacters(in: .whitespaces) }
        ?? "?"
    }
    let non2xx = field("Non-2xx or 3xx responses:")
    return "\(field("Requests/sec:")) / \(field("50%")) / \(field("99%"))"
      + (non2xx == "?" ? "" : " (\(non2xx) not 2xx!)")
  }

  /// Open `pages` event streams, write a note, and time its change event's arrival on each.
  func liveDelivery(pages: Int, root: String) throws -> LiveStreams {
    var sockets: [Int32] = []
    for _ in 0..<pages {
      let fd = try connectSocket()
      send(fd, "/events", close: false)
      // Until the stream's first comment: the subscription is in place.
      var seen = ""
      var buffer = [UInt8](repeating: 0, count: 4096)
      while !seen.contains(": connected") {
        let count = read(fd, &buffer, buffer.count)
        if count <= 0 { fail("an event stream closed before it opened") }
        seen += String(decoding: buffer[0..<count], as: UTF8.self)
      }
      sockets.append(fd)
    }
    let start = monotonicSeconds()
    try "---\ntitle: Live\n---\nlive\n".write(
      toFile: "\(root)/area-0/notebook-0/live-\(UUID().uuidString.prefix(8)).md", atomically: false, encoding: .utf8)
    var arrivals: [Double] = []
    var waiting = Set(sockets)
    var buffers: [Int32: String] = [:]
    while !waiting.isEmpty, monotonicSeconds() - start < 5 {
      var polls = waiting.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 4096)
      for entry in polls where entry.revents != 0 {
        let count = read(entry.fd, &buffer, buffer.count)
        if count <= 0 {
          waiting.remove(entry.fd)
          continue
        }
        buffers[entry.fd, default: ""] += String(decoding: buffer[0..<count], as: UTF8.self)
        if buffers[entry.fd]!.contains("event: change") {
          arrivals.append(monotonicSeconds() - start)
          waiting.remove(entry.fd)
        }
      }
    }
    return LiveStreams(
      sockets: sockets, p50: percentile(arrivals, 0.5), last: arrivals.max() ?? .nan, received: arrivals.count)
  }
}

/// Open event streams, and how a change reached them.
private struct LiveStreams {
  var sockets: [Int32]
  var p50: Double
  var last: Double
  var received: Int

  func close() {
    for fd in sockets { closeSocket(fd) }
  }
}

private func closeSocket(_ fd: Int32) { _ = close(fd) }
