import Foundation
import TextFormat

/// Which kind of user-given name failed validation; it decides how an error message refers to the text.
enum NameKind: String, Sendable, Equatable {
  /// A note title.
  case title
  /// A notebook path such as `work/projects`.
  case notebook = "notebook path"
  /// A repository-relative file path such as `work/roadmap.md`.
  case path = "path"
}

/// Why a name was refused.
enum NameProblem: Sendable, Equatable {
  /// Empty, or only whitespace.
  case empty
  /// Contains a control character (line breaks and tabs included).
  case controlCharacter(Unicode.Scalar)
  /// Contains a path separator where none is allowed (`/` or `\` in a title, `\` in a path).
  case separator(Character)
  /// Made only of dots (a title, or a path component other than `.` and `..`).
  case onlyDots(component: String)
  /// A path with an empty component (`a//b`).
  case emptyComponent
  /// A notebook path with a `.` component.
  case currentDirectory
  /// A path with a `..` component, which could leave the repository.
  case parentDirectory
  /// A component starting with a dot, which would be hidden.
  case hidden(component: String)
  /// A component reserved for git or nb (`.git`, `.nb`, in any case).
  case reserved(component: String)
  /// A path starting with `/`.
  case absolute
  /// A component longer than file systems allow (255 UTF-8 bytes).
  case componentTooLong(component: String)
  /// The repository root was given where a notebook is required.
  case rootNotAllowed
}

/// A refused title, notebook path or file path, with the text as the user gave it and the reason.
enum NameError: Error, Equatable, CustomStringConvertible {
  /// The name of kind `kind`, given as `text`, has `problem`.
  case invalid(NameKind, text: String, problem: NameProblem)

  /// One line naming the offending text (escaped, so control characters are visible) and saying what to do.
  var description: String {
    switch self {
    case .invalid(let kind, let text, let problem):
      let quoted = Names.quote(text)
      switch problem {
      case .empty:
        return "\(kind.rawValue) \(quoted) is empty; give a non-empty \(kind.rawValue)"
      case .controlCharacter(let scalar):
        let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        return "\(kind.rawValue) \(quoted) contains the control character \(code); "
          + "remove line breaks, tabs and other control characters"
      case .separator(let character):
        if kind == .title {
          return "title \(quoted) contains \"\(character)\"; a title cannot contain \"/\" or \"\\\", "
            + "give the notebook separately"
        }
        return "\(kind.rawValue) \(quoted) contains \"\\\"; separate components with \"/\""
      case .onlyDots(let component):
        if kind == .title { return "title \(quoted) is only dots; use some letters or digits" }
        return "\(kind.rawValue) \(quoted) has the component \(Names.quote(component)) made only of dots; "
          + "rename it"
      case .emptyComponent:
        return "\(kind.rawValue) \(quoted) has an empty component (\"//\"); remove the duplicate \"/\""
      case .currentDirectory:
        return "\(kind.rawValue) \(quoted) contains \".\"; write the path without \"./\" components"
      case .parentDirectory:
        return "\(kind.rawValue) \(quoted) contains \"..\"; give a path inside the repository without \"..\""
      case .hidden(let component):
        return "\(kind.rawValue) \(quoted) has the hidden component \(Names.quote(component)); "
          + "use a name that does not start with \".\""
      case .reserved(let component):
        return "\(kind.rawValue) \(quoted) uses \(Names.quote(component)), which is reserved for git and nb; "
          + "choose another name"
      case .absolute:
        return "\(kind.rawValue) \(quoted) is absolute; "
          + "give it relative to the repository root, without a leading \"/\""
      case .componentTooLong(let component):
        return "\(kind.rawValue) \(quoted) has a component of \(component.utf8.count) bytes; "
          + "shorten it to at most \(Names.maxComponentBytes) bytes"
      case .rootNotAllowed:
        return "\(kind.rawValue) \(quoted) names the repository root; give a notebook such as \"inbox\""
      }
    }
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}

/// Validation of the names a user types: titles, notebook paths and note paths.
///
/// These names become directories and files on every device that pulls the repository, so anything that could
/// escape the repository, hide a file, clash with git's or nb's own directories, or break a line-based format is
/// refused up front with a message that says what to change.
enum Names {
  /// The longest path component file systems accept, in UTF-8 bytes.
  static let maxComponentBytes = 255

  /// Directory names git and nb own; compared case-insensitively because macOS and Windows file systems are.
  // An array: two names, and a set of strings would make the runtime scan the binary's conformance records.
  static let reservedComponents = [".git", ".nb"]

  /// A note title: not empty/whitespace-only; no control characters (incl. newline, tab, DEL, U+0085, U+2028/9);
  /// no `/` or `\` (a notebook is given separately); not only dots.
  static func validateTitle(_ title: String) throws -> String {
    func fail(_ problem: NameProblem) -> NameError { .invalid(.title, text: title, problem: problem) }
    if let scalar = firstControlCharacter(in: title) { throw fail(.controlCharacter(scalar)) }
    let trimmed = trimmingWhitespace(title)
    if trimmed.isEmpty { throw fail(.empty) }
    if let separator = trimmed.first(where: { $0 == "/" || $0 == "\\" }) { throw fail(.separator(separator)) }
    if trimmed.allSatisfy({ $0 == "." }) { throw fail(.onlyDots(component: trimmed)) }
    return trimmed
  }

  /// A notebook path relative to the repository root, "/"-separated ("work/projects"): each component non-empty,
  /// not "." or "..", not only dots, no leading dot (hidden), no control chars, no "\", not ".git"/".nb" (any
  /// case); the whole not absolute. A trailing "/" is tolerated and dropped. Returns the normalized path ("" = root
  /// only if `allowRoot`).
  static func validateNotebookPath(_ path: String, allowRoot: Bool = false) throws -> String {
    func fail(_ problem: NameProblem) -> NameError { .invalid(.notebook, text: path, problem: problem) }
    try checkWhole(path, kind: .notebook)
    var body = Substring(path)
    if body.hasSuffix("/") { body = body.dropLast() }
    if body.isEmpty {
      if allowRoot { return "" }
      throw fail(path.isEmpty ? .empty : .rootNotAllowed)
    }
    let components = body.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    for component in components {
      if component.isEmpty { throw fail(.emptyComponent) }
      if component == "." { throw fail(.currentDirectory) }
      try checkComponent(component, kind: .notebook, text: path)
    }
    return joinedWithoutLookup(components, separator: "/")
  }

  /// A repository-relative file path given by a user (a NOTE argument, "work/roadmap.md"): the same component
  /// rules, and never escapes the root. Returns it normalized (no "./", no duplicate "/").
  static func validateRelativePath(_ path: String) throws -> String {
    func fail(_ problem: NameProblem) -> NameError { .invalid(.path, text: path, problem: problem) }
    try checkWhole(path, kind: .path)
    // "." and empty components are harmless spellings (shell completion produces them), so they are dropped;
    // ".." is refused rather than resolved, because a symbolic link makes lexical resolution wrong.
    let components = path.split(separator: "/").map(String.init).filter { $0 != "." }
    if components.isEmpty { throw fail(.empty) }
    for component in components {
      try checkComponent(component, kind: .path, text: path)
    }
    return joinedWithoutLookup(components, separator: "/")
  }

  /// Rules that apply to a whole path before it is split.
  private static func checkWhole(_ path: String, kind: NameKind) throws {
    func fail(_ problem: NameProblem) -> NameError { .invalid(kind, text: path, problem: problem) }
    if let scalar = firstControlCharacter(in: path) { throw fail(.controlCharacter(scalar)) }
    if path.contains("\\") { throw fail(.separator("\\")) }
    if path.hasPrefix("/") { throw fail(.absolute) }
  }

  /// Rules for one non-empty component other than ".".
  private static func checkComponent(_ component: String, kind: NameKind, text: String) throws {
    func fail(_ problem: NameProblem) -> NameError { .invalid(kind, text: text, problem: problem) }
    if component == ".." { throw fail(.parentDirectory) }
    if component.allSatisfy({ $0 == "." }) { throw fail(.onlyDots(component: component)) }
    if reservedComponents.contains(component.lowercased()) { throw fail(.reserved(component: component)) }
    if component.hasPrefix(".") { throw fail(.hidden(component: component)) }
    if component.utf8.count > maxComponentBytes { throw fail(.componentTooLong(component: component)) }
  }

  /// `text` in double quotes with `\\`, `"` and every control character escaped Swift-style (`\n`, `\u{85}`), so a
  /// message quoting it stays on one line and shows what was typed.
  static func quote(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": result += "\\\\"
      case "\"": result += "\\\""
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case "\0": result += "\\0"
      case _ where isControl(scalar):
        result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }

  /// The first control character: general category Cc (C0, DEL, C1 including U+0085) plus the Unicode line and
  /// paragraph separators, which editors and terminals treat as line breaks.
  /// `text` without the spaces and tabs at either end: what `trimmingWhitespaces()` gives (Unicode's
  /// space separators, U+0009 and, in Foundation's set, the zero-width space U+200B; scalar by scalar), without
  /// Foundation's character sets, whose first use costs half a millisecond of every `nb add`.
  static func trimmingWhitespace(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { !isWhitespace($0) }) else { return "" }
    let last = scalars.lastIndex(where: { !isWhitespace($0) })!
    if first == scalars.startIndex && last == scalars.index(before: scalars.endIndex) { return text }
    return String(scalars[first...last])
  }

  private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
    scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
  }

  static func firstControlCharacter(in text: String) -> Unicode.Scalar? {
    text.unicodeScalars.first(where: isControl)
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
  }
}

/// `parts.joined(separator: separator)`, built by hand: the library's `joined` is generic over the element type
/// and looks up a conformance at run time, a scan of every conformance record in the binary, in every command.
/// Public for the command line's output, which joins on every command that prints notes.
public func joinedWithoutLookup(_ parts: [String], separator: String) -> String {
  var joined = ""
  for (index, part) in parts.enumerated() {
    if index > 0 { joined += separator }
    joined += part
  }
  return joined
}
