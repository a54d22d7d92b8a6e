import Foundation

/// What a backend's `next` came back with.
enum WatchStep {
  /// Batches to deliver in order (possibly none); `.rootGone` is always last.
  case deliver([FileWatchBatch])
  /// The wake pipe was signalled: the watcher is stopping.
  case woken
  /// inotify cannot go on (the watch limit was hit while running): switch the whole tree to polling. `notice` says
  /// why and what to do.
  case fallBackToPolling(notice: String)
}

/// A backend: owned by one thread at a time (the thread that creates the watcher until `start`, the watcher's
/// thread after it), so it needs no locks of its own.
protocol WatchSource: AnyObject {
  /// Directories currently watched or scanned.
  var watchedDirectories: Int { get }
  /// Blocks (in poll(2), never spinning) until there is something to deliver or `wakeFD` becomes readable.
  func next(wakeFD: Int32) -> WatchStep
  /// Releases kernel resources; called once.
  func close()
}

/// The messages that tell a user why the watcher polls and what to do about it.
enum Notice {
  static func watchLimit(limit: Int?, watched: Int, pollInterval: TimeInterval) -> String {
    let suggestion = max(524_288, (limit ?? 0) * 2)
    return "the per-user inotify watch limit (fs.inotify.max_user_watches = \(limit.map(String.init) ?? "unknown")) "
      + "was reached after \(watched) \(watched == 1 ? "directory" : "directories"); "
      + "polling every \(seconds(pollInterval)) s instead; "
      + "raise it with 'sudo sysctl fs.inotify.max_user_watches=\(suggestion)'"
  }

  static func instanceLimit(limit: Int?, pollInterval: TimeInterval) -> String {
    let suggestion = max(1024, (limit ?? 0) * 2)
    return "the per-user inotify instance limit (fs.inotify.max_user_instances = "
      + "\(limit.map(String.init) ?? "unknown")) was reached; polling every \(seconds(pollInterval)) s instead; "
      + "raise it with 'sudo sysctl fs.inotify.max_user_instances=\(suggestion)'"
  }

  /// `1`, `0.5`, `2.25`: no trailing zeros.
  static func seconds(_ interval: TimeInterval) -> String {
    interval == interval.rounded() && abs(interval) < 1e15 ? String(Int(interval)) : String(format: "%g", interval)
  }
}
