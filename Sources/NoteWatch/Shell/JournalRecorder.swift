import FileWatch
import NoteStore

/// Puts what a directory watcher saw into the change journal, so that queries in any process check only those paths
/// instead of walking the tree: shared by ``RepositoryWatcher`` (`nb watch`) and ``RepositoryFeed`` (`nb serve`),
/// whichever owns the journal.
enum JournalRecorder {
  /// The request directory as the watcher reports it (relative to the root), or nil when it lies elsewhere.
  static func requestDirectory(of repository: NoteRepository, root: String) -> String? {
    let requests = ChangeJournal.requestDirectory(of: repository)
    return requests.hasPrefix(root + "/") ? String(requests.dropFirst(root.count + 1)) : nil
  }

  /// Records a batch's changes, then answers the queries' requests in it (everything before a request is in the
  /// batch or an earlier one, so it is recorded by then). Call on the notification thread, never one that waits for
  /// a query: a query waits for its answer.
  static func record(_ batch: FileWatchBatch, in journal: ChangeJournal, requestDirectory: String?) {
    switch batch {
    case .events(let events):
      var changes: [(path: String, isDirectory: Bool)] = []
      var requests: [String] = []
      for event in events {
        if let requestDirectory, event.path.hasPrefix(requestDirectory + "/") {
          if event.kind == .created || event.kind == .renamedTo {
            requests.append(String(event.path.dropFirst(requestDirectory.count + 1)))
          }
        } else if event.path != requestDirectory && !EditorFiles.isScratch(event.path) {
          changes.append((event.path, event.isDirectory))
        }
      }
      if !changes.isEmpty { journal.record(changes) }
      for request in requests { journal.acknowledge(request: request) }
    case .rescan:
      journal.recordRescan()
    case .rootGone:
      break
    }
  }
}
