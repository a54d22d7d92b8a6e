import CLibGit2
import Foundation

/// Seconds from nothing to an initialised libgit2 in this process: the first call through CLibGit2's trampolines
/// loads libgit2 and its libraries, then `git_libgit2_init` runs. Called once, in a process that did nothing else.
func libGit2StartSeconds() -> Double {
  var start = timespec()
  var end = timespec()
  clock_gettime(CLOCK_MONOTONIC, &start)
  _ = git_libgit2_init()
  clock_gettime(CLOCK_MONOTONIC, &end)
  return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
}
