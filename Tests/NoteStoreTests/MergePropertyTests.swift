import NBTestSupport
import XCTest

@testable import NoteStore

/// Random two-device histories synced through a simulated remote: nothing either side committed is lost, both
/// devices converge, and no file ever holds conflict markers.
final class MergePropertyTests: XCTestCase {
  /// A device's committed tree and the tree it last exchanged with the remote (the merge base of its next sync).
  private struct Device {
    var name: String
    var tree: [String: FileVersion]
    var base: [String: FileVersion]
    var clock: Date
    var counter = 0
  }

  private let start = Date(timeIntervalSince1970: 1_795_000_000)
  private let notePaths = ["a/x.md", "a/y.md", "b/z.md", "n.md", "c/d/deep.md"]
  private var merges = 0
  private var conflicts = 0
  private var mergedNotes = 0
  private var resurrected = 0

  func testRandomTwoDeviceHistoriesLoseNothingAndConverge() throws {
    let histories = 1_500
    for seed in 0..<histories {
      try runHistory(seed: UInt64(seed))
    }
    // The generator must actually exercise the interesting rows, or the properties prove little.
    XCTAssertGreaterThan(conflicts, histories / 10)
    XCTAssertGreaterThan(mergedNotes, histories / 10)
    XCTAssertGreaterThan(resurrected, histories / 50)
    print("merges \(merges), conflicts \(conflicts), merged notes \(mergedNotes), resurrected \(resurrected)")
  }

  private func runHistory(seed: UInt64) throws {
    var random = SplitMix64(seed: seed &* 0x2545_f491_4f6c_dd1d)
    var initial: [String: FileVersion] = [:]
    for path in notePaths.prefix(3) {
      let text =
        "---\nid: \(NoteID.make(using: &random))\nupdated: 2026-11-18T00:00:00Z\ntags: [a]\n---\nl1\nl2\nl3\nl4\nl5\n"
      initial[path] = FileVersion(bytes: Data(text.utf8), commitTime: start)
    }
    var remote = initial
    var devices = [
      Device(name: "laptop", tree: initial, base: initial, clock: start),
      Device(name: "desk top", tree: initial, base: initial, clock: start),
    ]
    let rounds = Int.random(in: 1...4, using: &random)
    for _ in 0..<rounds {
      for index in devices.indices {
        for _ in 0..<Int.random(in: 0...3, using: &random) {
          try edit(&devices[index], random: &random)
        }
      }
      // Either device may sync first; the other then merges with ours = itself and theirs = the first.
      let order = Bool.random(using: &random) ? [0, 1] : [1, 0]
      for index in order where Bool.random(using: &random) {
        try sync(&devices[index], remote: &remote, seed: seed)
      }
    }
    // Syncing twice, once each way round, brings both devices to one tree.
    for index in [0, 1, 0, 1] { try sync(&devices[index], remote: &remote, seed: seed) }
    let first = devices[0].tree.mapValues(\.bytes)
    let second = devices[1].tree.mapValues(\.bytes)
    XCTAssertEqual(first, second, "seed \(seed): devices did not converge")
    XCTAssertEqual(first, remote.mapValues(\.bytes), "seed \(seed): remote differs")
  }

  // MARK: - Syncing

  private func sync(_ device: inout Device, remote: inout [String: FileVersion], seed: UInt64) throws {
    let local = device.tree.mapValues(\.bytes)
    let base = device.base.mapValues(\.bytes)
    let upstream = remote.mapValues(\.bytes)
    if base == upstream {
      remote = device.tree
      device.base = device.tree
      return
    }
    if local == base {
      device.tree = remote
      device.base = remote
      return
    }
    merges += 1
    var resolution = SyncPolicy.resolve(
      base: device.base, ours: device.tree, theirs: remote, device: device.name, now: device.clock)
    if case .needsForce = resolution {
      // The person confirmed with --force; the refusal itself is covered by the table tests.
      resolution = SyncPolicy.resolve(
        base: device.base, ours: device.tree, theirs: remote, device: device.name, now: device.clock, force: true)
    }
    guard case .resolved(let tree, let report) = resolution else { return XCTFail("seed \(seed): not resolved") }
    let again = SyncPolicy.resolve(
      base: device.base, ours: device.tree, theirs: remote, device: device.name, now: device.clock, force: true)
    XCTAssertEqual(again, .resolved(tree: tree, report: report), "seed \(seed): not deterministic")
    conflicts += report.conflicts.count
    mergedNotes += report.merged.count
    resurrected += report.resurrected.count
    checkNothingLost(base: device.base, sides: [device.tree, remote], result: tree, report: report, seed: seed)
    // The same merge run by the other device (roles swapped) must keep everything too.
    let swapped = SyncPolicy.resolve(
      base: device.base, ours: remote, theirs: device.tree, device: "other", now: device.clock, force: true)
    if case .resolved(let swappedTree, let swappedReport) = swapped {
      checkNothingLost(
        base: device.base, sides: [remote, device.tree], result: swappedTree, report: swappedReport, seed: seed)
      checkNoConflictMarkers(swappedTree, seed: seed)
    }
    checkNoConflictMarkers(tree, seed: seed)
    // The merge commit's files: unchanged ones keep the time of the commit that last changed them.
    var merged: [String: FileVersion] = [:]
    for (path, bytes) in tree {
      if let ours = device.tree[path], ours.bytes == bytes {
        merged[path] = ours
      } else if let theirs = remote[path], theirs.bytes == bytes {
        merged[path] = theirs
      } else {
        merged[path] = FileVersion(bytes: bytes, commitTime: device.clock)
      }
    }
    device.tree = merged
    device.base = merged
    remote = merged
  }

  /// Every version a side changed since the base is in the result: byte for byte at some path, as a conflict copy
  /// (equal but for its `id` and `conflict_of` lines), or combined into a note the report calls merged, whose body
  /// then holds every line that side added.
  private func checkNothingLost(
    base: [String: FileVersion], sides: [[String: FileVersion]], result: [String: Data], report: SyncReport,
    seed: UInt64
  ) {
    let baseBytes = Set(base.values.map(\.bytes))
    let resultBytes = Set(result.values)
    let copies = Set(
      result.filter { $0.key.contains(".conflict-") && $0.key.hasSuffix(".md") }.map { stripIdentity($0.value) })
    let resultByID = Dictionary(
      result.filter { $0.key.hasSuffix(".md") }.compactMap { path, bytes in
        (try? FrontMatter.read(String(decoding: bytes, as: UTF8.self)).id).flatMap { $0 }.map { ($0, path) }
      }, uniquingKeysWith: { first, _ in first })
    let baseByID = Dictionary(
      base.filter { $0.key.hasSuffix(".md") }.compactMap { path, version in
        (try? FrontMatter.read(String(decoding: version.bytes, as: UTF8.self)).id).flatMap { $0 }.map { ($0, path) }
      }, uniquingKeysWith: { first, _ in first })
    for side in sides {
      for (path, version) in side where !baseBytes.contains(version.bytes) {
        if resultBytes.contains(version.bytes) { continue }
        if path.hasSuffix(".md") && copies.contains(stripIdentity(version.bytes)) { continue }
        let text = String(decoding: version.bytes, as: UTF8.self)
        if path.hasSuffix(".md"), let id = try? FrontMatter.read(text).id, let resultPath = resultByID[id],
          report.merged.contains(resultPath)
        {
          let resultBody = Set(TextMerge.lines(of: String(FrontMatter.body(of: decode(result[resultPath]!)))))
          let baseBody = Set(
            baseByID[id].map { TextMerge.lines(of: String(FrontMatter.body(of: decode(base[$0]!.bytes)))) } ?? [])
          let added = TextMerge.lines(of: String(FrontMatter.body(of: text))).filter { !baseBody.contains($0) }
          if added.allSatisfy(resultBody.contains) { continue }
        }
        XCTFail("seed \(seed): the version of '\(path)' is lost:\n\(text)\nresult: \(dump(result))\n\(report)")
      }
    }
  }

  private func dump(_ tree: [String: Data]) -> String {
    tree.sorted { $0.key < $1.key }.map { "## \($0.key)\n\(decode($0.value))" }.joined()
  }

  private func decode(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

  private func stripIdentity(_ data: Data) -> String {
    decode(data).split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.hasPrefix("id:") && !$0.hasPrefix("conflict_of:") }.joined(separator: "\n")
  }

  private func checkNoConflictMarkers(_ tree: [String: Data], seed: UInt64) {
    for (path, bytes) in tree {
      for line in decode(bytes).split(separator: "\n")
      where ["<<<<<<<", "=======", ">>>>>>>"].contains(where: line.hasPrefix) {
        XCTFail("seed \(seed): '\(path)' holds a conflict marker")
      }
    }
  }

  // MARK: - Editing

  private func edit(_ device: inout Device, random: inout SplitMix64) throws {
    device.clock += TimeInterval(Int.random(in: 0...3, using: &random) * 3600)
    device.counter += 1
    let notes = device.tree.keys.filter { $0.hasSuffix(".md") }.sorted()
    let stamp = "\(device.name.prefix(1))\(device.counter)"
    let operation = notes.isEmpty ? 0 : Int.random(in: 0...7, using: &random)
    guard operation != 0 else {
      let path = notePaths.randomElement(using: &random)!
      guard device.tree[path] == nil else { return }
      let text = "---\nid: \(NoteID.make(using: &random))\n---\nnew \(stamp)\n"
      device.tree[path] = try version(touch(text, device, &random), device)
      return
    }
    let path = notes.randomElement(using: &random)!
    let sidecar = RepoPaths.sidecars(of: path)[0]
    var text = decode(device.tree[path]!.bytes)
    switch operation {
    case 1, 2:
      var lines = TextMerge.lines(of: String(FrontMatter.body(of: text)))
      let index = Int.random(in: 0...lines.count, using: &random)
      if index < lines.count && Bool.random(using: &random) {
        lines[index] = "\(stamp)\n"
      } else {
        lines.insert("\(stamp)\n", at: index)
      }
      let bodyStart = text.utf8.count - FrontMatter.body(of: text).utf8.count
      text = String(decoding: Array(text.utf8)[..<bodyStart], as: UTF8.self) + lines.joined()
    case 3:
      text = try FrontMatter.setting(
        "status", to: ["draft", "review", "done"].randomElement(using: &random)!, in: text)
    case 4:
      var tags = try FrontMatter.read(text).tags
      let tag = ["a", "b", "c"].randomElement(using: &random)!
      if let found = tags.firstIndex(of: tag) { tags.remove(at: found) } else { tags.append(tag) }
      text = try FrontMatter.settingTags(tags, in: text)
    case 5:
      let target = notePaths.randomElement(using: &random)!
      let targetSidecar = RepoPaths.sidecars(of: target)[0]
      guard device.tree[target] == nil, device.tree[targetSidecar] == nil else { return }
      device.tree[target] = device.tree.removeValue(forKey: path)
      if let ink = device.tree.removeValue(forKey: sidecar) { device.tree[targetSidecar] = ink }
      return
    case 6:
      device.tree[path] = nil
      device.tree[sidecar] = nil
      return
    default:
      let ink = device.tree[sidecar].map { decode($0.bytes) } ?? "{\"nbink\":1}\n"
      device.tree[sidecar] = version(ink + "{\"k\":\"s\",\"id\":\"\(stamp)\"}\n", device)
    }
    device.tree[path] = try version(touch(text, device, &random), device)
  }

  /// Sets `updated` as nb does on save; now and then to a time days ahead, as a device with a wrong clock would.
  private func touch(_ text: String, _ device: Device, _ random: inout SplitMix64) throws -> String {
    let previous = try FrontMatter.read(text).updated
    var now = Timestamp(date: device.clock, offsetSeconds: Bool.random(using: &random) ? 0 : 3600)
    if Int.random(in: 0..<20, using: &random) == 0 { now.date += 3 * 86_400 }
    return try FrontMatter.settingUpdated(Timestamp.nextUpdated(previous: previous, now: now), in: text)
  }

  private func version(_ text: String, _ device: Device) -> FileVersion {
    FileVersion(bytes: Data(text.utf8), commitTime: device.clock)
  }
}
