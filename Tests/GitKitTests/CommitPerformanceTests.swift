import Foundation
import GitKit
import NBTestSupport
import XCTest

/// Latency of `commit(paths:)` for one note in a large repository. Opt-in because building the fixture takes
/// a while: `NB_GITKIT_PERF=10000 swift test --filter CommitPerformanceTests` (optionally `NB_GITKIT_INDEX_V2=1`).
final class CommitPerformanceTests: GitKitTestCase {
  func testSingleNoteCommitLatency() throws {
    guard let count = ProcessInfo.processInfo.environment["NB_GITKIT_PERF"].flatMap(Int.init) else {
      throw XCTSkip("set NB_GITKIT_PERF=<notes> to run")
    }
    let perDirectory = 100
    for i in 0..<count {
      let path = "nb\(i / (perDirectory * perDirectory))/d\((i / perDirectory) % perDirectory)/note-\(i).md"
      try write(path, "---\nid: \(i)\n---\n# Note \(i)\n\nSome text for note \(i).\n")
    }
    // Created as nb does (index v4); NB_GITKIT_INDEX_V2=1 measures a repository made by `git init` instead.
    if ProcessInfo.processInfo.environment["NB_GITKIT_INDEX_V2"] == "1" {
      try git.run("init", "-q", "-b", "main")
    } else {
      _ = try Repository.create(at: workTree)
    }
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "fixture")
    // The fixture's files are all "racily clean" against an index written in the same second; let time pass so
    // the measurement sees the steady state of a repository that was not just created.
    Thread.sleep(forTimeInterval: 1.1)
    try git.run("update-index", "--refresh")

    let repo = try Repository.open(at: workTree)
    var timings: [Double] = []
    let rounds = ProcessInfo.processInfo.environment["NB_GITKIT_PERF_ROUNDS"].flatMap(Int.init) ?? 60
    for round in 0..<rounds {
      let i = (round * 7919) % count
      let path = "nb\(i / (perDirectory * perDirectory))/d\((i / perDirectory) % perDirectory)/note-\(i).md"
      try write(path, "---\nid: \(i)\n---\n# Note \(i)\n\nEdited in round \(round).\n")
      let start = DispatchTime.now().uptimeNanoseconds
      XCTAssertNotNil(try repo.commit(paths: [path], message: "edit \(round)"))
      timings.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    timings.sort()
    let p50 = timings[timings.count / 2]
    let p90 = timings[timings.count * 9 / 10]
    print(
      "commit(paths:) at \(count) notes: p50 \(String(format: "%.2f", p50)) ms, p90 \(String(format: "%.2f", p90)) ms")
    XCTAssertEqual(try git.statusPorcelain(), "")
  }
}
