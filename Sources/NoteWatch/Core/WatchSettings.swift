import Foundation

/// What `nb watch` does, from the command line first, then `.nb/config.yaml`'s `watch:` mapping, then defaults.
public struct WatchSettings: Equatable, Sendable {
  /// Quiet time after the last edit before a commit (default 2 s).
  public var debounce: TimeInterval = 2
  /// The longest an edit waits for its commit while files keep changing (30 s).
  public var maxDelay: TimeInterval = 30
  /// Whether to sync after each commit and pull what the remote gets meanwhile.
  public var sync = false
  /// How often the remote is asked whether it moved, when syncing (3 s: with the 2 s debounce, an edit reaches
  /// the other device within 5 s, the promise of the apps nb serves).
  public var interval: TimeInterval = 3
  /// The remote synced with.
  public var remote = "origin"

  /// The defaults.
  public init() {}

  /// The settings `config` (the `watch:` mapping of `file`) gives over these; a bad value is an error naming the
  /// file, the key and what is accepted.
  public func applying(config: [String: String], file: String) throws -> WatchSettings {
    var settings = self
    for (key, value) in config.sorted(by: { $0.key < $1.key }) {
      let name = "\(file): watch.\(key)"
      switch key {
      case "debounce": settings.debounce = try Self.duration(value, name: name)
      case "interval": settings.interval = try Self.duration(value, name: name, minimum: 0.1)
      case "max_delay": settings.maxDelay = try Self.duration(value, name: name)
      case "remote": settings.remote = value
      case "sync":
        switch value.lowercased() {
        case "true", "yes", "on": settings.sync = true
        case "false", "no", "off": settings.sync = false
        default: throw WatchError.invalidSetting("\(name): '\(value)' is not true or false")
        }
      default:
        throw WatchError.invalidSetting(
          "\(name): unknown setting; known: debounce, interval, max_delay, remote, sync")
      }
    }
    return settings
  }

  /// Seconds in `text`: a number with `ms`, `s` or `m` (`200ms`, `2s`, `1.5m`); a bare number is seconds.
  public static func duration(_ text: String, name: String, minimum: TimeInterval = 0) throws -> TimeInterval {
    let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
    var number = Substring(trimmed)
    var scale = 1.0
    for (suffix, factor) in [("ms", 0.001), ("s", 1.0), ("m", 60.0)] where trimmed.hasSuffix(suffix) {
      number = trimmed.dropLast(suffix.count)
      scale = factor
      break
    }
    guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0,
      !number.isEmpty
    else {
      throw WatchError.invalidSetting("\(name): '\(text)' is not a duration; write e.g. 200ms, 2s or 1m")
    }
    let seconds = value * scale
    guard seconds >= minimum, seconds <= 24 * 3600 else {
      throw WatchError.invalidSetting(
        "\(name): '\(text)' is out of range; use \(minimum > 0 ? "at least \(minimum)s and " : "")at most 24h")
    }
    return seconds
  }
}

/// What can stop a watcher from starting or running.
public enum WatchError: Error, Equatable, CustomStringConvertible {
  /// A setting (argument or `.nb/config.yaml`) has a value that cannot be used.
  case invalidSetting(String)
  /// The repository's directory was deleted or moved away while watching.
  case repositoryGone(path: String)
  /// Watching could not start (the kernel refused, the root is not a directory …).
  case cannotWatch(String)

  public var description: String {
    switch self {
    case .invalidSetting(let message): message
    case .repositoryGone(let path):
      "the repository at \(path) was deleted or moved away; nb watch stopped (start it again where it is now)"
    case .cannotWatch(let message): message
    }
  }
}
