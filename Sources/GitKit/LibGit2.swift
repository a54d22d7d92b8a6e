import CLibGit2
import Foundation

/// Process-wide libgit2 settings.
public enum LibGit2 {
  /// The config levels whose search path can be redirected (see `setConfigSearchPath`).
  public enum ConfigLevel: Sendable {
    /// `/etc/gitconfig` and friends.
    case system
    /// `$XDG_CONFIG_HOME/git/config`.
    case xdg
    /// `~/.gitconfig`.
    case global
    /// `%PROGRAMDATA%\Git\config` (Windows only).
    case programData

    var raw: Int32 {
      switch self {
      case .system: return GIT_CONFIG_LEVEL_SYSTEM.rawValue
      case .xdg: return GIT_CONFIG_LEVEL_XDG.rawValue
      case .global: return GIT_CONFIG_LEVEL_GLOBAL.rawValue
      case .programData: return GIT_CONFIG_LEVEL_PROGRAMDATA.rawValue
      }
    }
  }

  /// The linked libgit2 version, e.g. `"1.5.1"`.
  public static var version: String {
    initialize()
    var major: Int32 = 0
    var minor: Int32 = 0
    var patch: Int32 = 0
    git_libgit2_version(&major, &minor, &patch)
    return "\(major).\(minor).\(patch)"
  }

  /// Redirects where libgit2 looks for the config of `level` (directories separated by `:`); nil restores the
  /// default.
  ///
  /// libgit2 resolves `$HOME` and `$XDG_CONFIG_HOME` once per process, so changing the environment later has no
  /// effect; tests that need an isolated identity point the global/xdg/system levels at a temporary directory.
  public static func setConfigSearchPath(_ path: String?, for level: ConfigLevel) throws {
    initialize()
    let rc: Int32
    if let path {
      rc = path.withCString { nb_git_set_search_path(level.raw, $0) }
    } else {
      rc = nb_git_set_search_path(level.raw, nil)
    }
    if rc < 0 { throw GitError.last("git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH)", rc) }
  }

  /// The current config search path of `level`.
  public static func configSearchPath(for level: ConfigLevel) throws -> String {
    initialize()
    var buf = git_buf()
    defer { git_buf_dispose(&buf) }
    let rc = nb_git_get_search_path(level.raw, &buf)
    if rc < 0 { throw GitError.last("git_libgit2_opts(GIT_OPT_GET_SEARCH_PATH)", rc) }
    guard let ptr = buf.ptr else { return "" }
    return String(cString: ptr)
  }

  /// Initialises libgit2 exactly once. Swift runs a global's initialiser lazily under `swift_once`, which gives
  /// the thread-safe "first use wins" behaviour without a lock of our own. libgit2 is never shut down: the
  /// process exit cleans up, and a shutdown racing another thread's use would crash.
  static func initialize() {
    _ = initOnce
  }

  /// Starts loading and initialising libgit2 on another thread, for a caller sure to need it soon that has other
  /// work to do first: loading it takes about 4 ms, and the first call then waits only for what is left of that.
  /// Only the first call starts a thread; later ones find libgit2 loaded or loading.
  public static func preload() {
    _ = preloadOnce
  }

  /// The preload's thread, started by the first use, under `swift_once` as ``initialize()`` is.
  private static let preloadOnce: Void = {
    preloading.enter()
    Thread.detachNewThread {
      initialize()
      preloading.leave()
    }
  }()

  /// Waits until a load ``preload()`` started has finished. A process that fails early (no repository, a format
  /// it cannot read) must not exit while another thread is inside the dynamic loader or libgit2's initialisation:
  /// glibc's exit handlers then race that thread and the process can crash on its way out.
  public static func waitForPreload() {
    preloading.wait()
  }

  private static let preloading = DispatchGroup()

  /// Runs `body` with libgit2's check that every object a new tree or commit names exists switched off, for a
  /// caller that knows they do. The setting is the process's: a count under a lock switches it back on only when
  /// the last overlapping caller is done (another thread creating objects meanwhile goes unchecked too, and only
  /// the ids it passes are then trusted).
  static func withoutStrictObjectCreation<R>(_ body: () throws -> R) rethrows -> R {
    initialize()
    strictness.lock()
    if relaxedCallers == 0 { _ = nb_git_set_strict_object_creation(0) }
    relaxedCallers += 1
    strictness.unlock()
    defer {
      strictness.lock()
      relaxedCallers -= 1
      if relaxedCallers == 0 { _ = nb_git_set_strict_object_creation(1) }
      strictness.unlock()
    }
    return try body()
  }

  private static let strictness = NSLock()
  nonisolated(unsafe) private static var relaxedCallers = 0
}

private let initOnce: Int32 = git_libgit2_init()

/// Throws `GitError` naming `function` when a libgit2 call returned a negative code.
@inline(__always)
func check(_ function: @autoclosure () -> String, _ rc: Int32) throws {
  if rc < 0 { throw GitError.last(function(), rc) }
}

/// Copies libgit2's trailing-slash directory path into a standardized URL without one.
func directoryURL(fromGitPath cString: UnsafePointer<CChar>) -> URL {
  var path = String(cString: cString)
  while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
  return URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
}

/// Runs `body` with a `git_strarray` view of `strings`; the C strings live only for the call.
func withStrArray<R>(_ strings: [String], _ body: (inout git_strarray) throws -> R) rethrows -> R {
  var cStrings: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
  defer { cStrings.forEach { free($0) } }
  return try cStrings.withUnsafeMutableBufferPointer { buffer in
    var array = git_strarray(strings: buffer.baseAddress, count: buffer.count)
    return try body(&array)
  }
}
