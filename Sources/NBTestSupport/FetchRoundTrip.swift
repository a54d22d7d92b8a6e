import Foundation
import GitKit

/// The transport's own round trip as nb pays it: one libgit2 fetch from `remote` into the repository at `workTree`
/// (connect, list references, negotiate, update tips; no `FETCH_HEAD`, which a sync does not write either) — what
/// a sync with nothing to do cannot go below. The repository is opened outside the timing; returns the fetch's wall
/// time in seconds.
public func timeLibGit2Fetch(workTree: String, remote: String = "origin") throws -> Double {
  let repository = try Repository.open(at: URL(fileURLWithPath: workTree))
  let start = DispatchTime.now().uptimeNanoseconds
  _ = try repository.fetch(remote: remote, updateFetchHead: false)
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}
