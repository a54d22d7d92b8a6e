import Foundation

/// Why a `DirectoryWatcher` could not start; `description` is one line naming the path or the call that failed.
public enum FileWatchError: Error, Equatable, CustomStringConvertible, LocalizedError {
  /// The root does not exist.
  case rootMissing(path: String)
  /// The root exists but is not a directory.
  case notADirectory(path: String)
  /// The requested backend does not exist on this platform (inotify anywhere but Linux).
  case unsupportedBackend(String)
  /// A system call failed; `call` names it, `path` is what it was called on (if anything).
  case system(call: String, path: String?, errno: Int32)

  public var description: String {
    switch self {
    case .rootMissing(let path): return "cannot watch '\(path)': no such directory"
    case .notADirectory(let path): return "cannot watch '\(path)': not a directory"
    case .unsupportedBackend(let name): return "the \(name) backend is not available on this platform; use polling"
    case .system(let call, let path, let code):
      let on = path.map { " on '\($0)'" } ?? ""
      return "\(call)\(on) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
  }

  public var errorDescription: String? { description }
}
