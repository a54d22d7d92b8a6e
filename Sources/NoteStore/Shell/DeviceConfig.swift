import Foundation
import TextFormat
import Yams

/// `$XDG_CONFIG_HOME/nb/config.yaml`: settings of this device alone, never synced and never read from the
/// repository. It is the only place that may name a command for nb to run: `.nb/config.yaml` arrives from other
/// devices, so a command named there would be run on a pull.
///
/// ```yaml
/// inbox:
///   command: ["/usr/local/bin/llm-file", "--model", "x"]   # or a string, run with /bin/sh -c
///   timeout: 5       # seconds for one item (default 5)
///   budget: 10       # seconds for all the items of one nb run (default twice the timeout)
/// ```
public struct DeviceConfig: Equatable, Sendable {
  /// The inbox command, when one is set and its settings read.
  public var inboxCommand: InboxCommandSettings?

  /// Creates settings.
  public init(inboxCommand: InboxCommandSettings? = nil) {
    self.inboxCommand = inboxCommand
  }

  /// `$XDG_CONFIG_HOME/nb/config.yaml`, or `~/.config/nb/config.yaml` when `XDG_CONFIG_HOME` is unset, empty or
  /// not an absolute path (as the XDG base directory specification says).
  public static func location(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
    location(variable: { environment[$0] })
  }

  /// ``location(environment:)`` reading each environment variable with `variable`.
  public static func location(variable: (String) -> String?) -> URL {
    let base: String
    if let xdg = variable("XDG_CONFIG_HOME"), xdg.hasPrefix("/") {
      base = xdg
    } else {
      let home = variable("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
      base = home + "/.config"
    }
    return URL(fileURLWithPath: base).appendingPathComponent("nb/config.yaml")
  }

  /// The settings in the file at `url` and a one-line warning for each problem (`file:line: ...`); no file is no
  /// settings and no warning. Never throws: settings that do not read leave nb working as without them.
  static func read(at url: URL) -> (config: DeviceConfig, problems: [String]) {
    let path = url.path
    let data: Data
    do {
      data = try FileSystem.read(path, limit: 1 << 20)
    } catch {
      if !FileSystem.exists(path) { return (DeviceConfig(), []) }
      return (DeviceConfig(), ["\(path): cannot be read (\(error)); \(ignored)"])
    }
    guard let text = String(data: data, encoding: .utf8) else {
      return (DeviceConfig(), ["\(path): not UTF-8 text; \(ignored)"])
    }
    return parse(text, file: path)
  }

  /// What a warning about settings that do not read says happens instead.
  static let ignored = "the inbox command is not run, suggestions come from the built-in classifier"

  /// The keys `inbox:` may hold.
  static let inboxKeys = ["command", "timeout", "budget"]

  /// The settings in `text`, read from `file` (named in each warning).
  static func parse(_ text: String, file: String) -> (config: DeviceConfig, problems: [String]) {
    let root: Node?
    do {
      root = try Yams.compose(yaml: text, .basic)
    } catch let error as YamlError {
      return (DeviceConfig(), [yamlProblem(error, file: file)])
    } catch {
      return (DeviceConfig(), ["\(file): not valid YAML (\(error)); \(ignored)"])
    }
    func at(_ node: Node?) -> String { "\(file):\(node?.mark?.line ?? 1)" }
    guard let root else { return (DeviceConfig(), []) }
    guard let mapping = root.mapping else {
      return (DeviceConfig(), ["\(at(root)): expected settings such as 'inbox: {command: ...}'; \(ignored)"])
    }
    guard let inbox = mapping["inbox"] else { return (DeviceConfig(), []) }
    guard let settings = inbox.mapping else {
      return (DeviceConfig(), ["\(at(inbox)): 'inbox' must hold settings such as 'command: ...'; \(ignored)"])
    }
    var problems: [String] = []
    for key in settings.keys {
      let name = key.scalar?.string ?? "\(key)"
      if !inboxKeys.contains(name) {
        problems.append(
          "\(at(key)): unknown setting 'inbox.\(DeviceConfig.oneLine(name))' (nb reads "
            + inboxKeys.map { "inbox.\($0)" }.joined(separator: ", ") + ")")
      }
    }
    guard let commandNode = settings["command"] else { return (DeviceConfig(), problems) }
    let arguments: [String]
    let display: String
    if let scalar = commandNode.scalar {
      let line = scalar.string.trimmingWhitespacesAndNewlines()
      guard !line.isEmpty else {
        return (DeviceConfig(), problems + ["\(at(commandNode)): 'inbox.command' is empty; \(ignored)"])
      }
      arguments = ["/bin/sh", "-c", scalar.string]
      display = line
    } else if let sequence = commandNode.sequence {
      let words = sequence.map { $0.scalar?.string }
      guard let first = words.first, let program = first, !program.isEmpty, !words.contains(nil) else {
        return (
          DeviceConfig(),
          problems + [
            "\(at(commandNode)): 'inbox.command' must be a program and its arguments, such as "
              + "[\"/usr/local/bin/llm-file\", \"--model\", \"x\"]; \(ignored)"
          ]
        )
      }
      arguments = words.compactMap { $0 }
      display = arguments.map(quoted).joined(separator: " ")
    } else {
      return (
        DeviceConfig(),
        problems + ["\(at(commandNode)): 'inbox.command' must be a list of arguments or a string; \(ignored)"]
      )
    }
    var command = InboxCommandSettings(arguments: arguments, display: display)
    if let node = settings["timeout"] {
      if let seconds = node.scalar.flatMap({ seconds($0.string) }) {
        command.timeout = seconds
        command.budget = 2 * seconds
      } else {
        problems.append(
          "\(at(node)): 'inbox.timeout' must be a number of seconds such as 5; the default, "
            + "\(Int(InboxCommandSettings.defaultTimeout)) s, holds")
      }
    }
    if let node = settings["budget"] {
      if let seconds = node.scalar.flatMap({ seconds($0.string) }) {
        command.budget = seconds
      } else {
        problems.append(
          "\(at(node)): 'inbox.budget' must be a number of seconds such as 10; twice the timeout holds")
      }
    }
    return (DeviceConfig(inboxCommand: command), problems)
  }

  /// A positive number of seconds: `5`, `2.5`, `5s` or `500ms`; nil otherwise.
  static func seconds(_ text: String) -> TimeInterval? {
    var number = text.trimmingWhitespaces().lowercased()
    var scale = 1.0
    if number.hasSuffix("ms") {
      number.removeLast(2)
      scale = 0.001
    } else if number.hasSuffix("s") {
      number.removeLast()
    }
    guard let value = Double(number.trimmingWhitespaces()), value.isFinite, value > 0 else {
      return nil
    }
    return value * scale
  }

  /// A one-line warning for YAML that does not parse, with the line Yams names.
  static func yamlProblem(_ error: YamlError, file: String) -> String {
    let detail: String
    var line: Int?
    switch error {
    case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
      .composer(let context, let problem, let mark, _):
      line = mark.line
      detail = context.map { "\(problem) \($0.text)" } ?? problem
    case .duplicatedKeysInMapping(let duplicates, let context):
      line = context.mark.line
      detail = "duplicate key " + duplicates.map { "'\($0)'" }.joined(separator: ", ")
    case .reader(let problem, _, _, _):
      detail = problem
    default:
      detail = "\(error)"
    }
    return "\(file)\(line.map { ":\($0)" } ?? ""): not valid YAML (\(oneLine(detail))); \(ignored)"
  }

  /// An argument as a shell would need it written, for naming the command in a warning.
  static func quoted(_ word: String) -> String {
    let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_./=:,@%+"))
    guard word.isEmpty || word.unicodeScalars.contains(where: { !plain.contains($0) }) else { return word }
    return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  static func oneLine(_ text: String) -> String { InboxCommandExchange.shortened(text) }
}
