import CLibGit2

/// A failed libgit2 call: which function failed, the code it returned and libgit2's own explanation.
///
/// GitKit reports every failure with this one type so that callers can react to the few codes that matter
/// (`isLocked`, `isNotFound`) and still log exactly which call failed.
public struct GitError: Error, CustomStringConvertible, Equatable, Sendable {
  /// The libgit2 function that failed, e.g. `"git_index_write"` (or a GitKit operation for checks done in Swift).
  public let function: String
  /// The libgit2 return code (`GIT_ENOTFOUND` = -3, `GIT_ELOCKED` = -14, ...).
  public let code: Int32
  /// `git_error_last()`'s text at the time of the failure, or `""` if libgit2 gave none.
  public let message: String

  /// Creates an error value; GitKit makes these itself, the initialiser is public for tests and fakes.
  public init(function: String, code: Int32, message: String) {
    self.function = function
    self.code = code
    self.message = message
  }

  /// The libgit2 code for "a lock file is in the way" (for example a stale `.git/index.lock`).
  public static let lockedCode: Int32 = GIT_ELOCKED.rawValue
  /// The libgit2 code for "the requested object, reference or path does not exist".
  public static let notFoundCode: Int32 = GIT_ENOTFOUND.rawValue

  /// True when another process holds (or left behind) a lock file, e.g. `.git/index.lock`.
  public var isLocked: Bool { code == Self.lockedCode }
  /// True when the object, reference, path or repository does not exist.
  public var isNotFound: Bool { code == Self.notFoundCode }

  /// `"git_index_write failed (-14): <message>"`.
  public var description: String {
    message.isEmpty ? "\(function) failed (\(code))" : "\(function) failed (\(code)): \(message)"
  }
}

extension GitError {
  /// Builds the error for a libgit2 call that just returned `code`, picking up the thread's last error text.
  static func last(_ function: String, _ code: Int32) -> GitError {
    var message = ""
    if let last = git_error_last(), let text = last.pointee.message {
      message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    return GitError(function: function, code: code, message: message)
  }
}
