import Foundation
import Stencil

/// Why a template could not be found, read or rendered.
public enum TemplateError: Error, Equatable, CustomStringConvertible {
  /// No user or built-in template has this name.
  case notFound(name: String, available: [String])
  /// The template (the one named, or one it includes) is unusable: syntax error, unknown filter, refused include,
  /// unreadable file. `line` is 1-based, when Stencil reports one.
  case invalid(name: String, line: Int?, message: String)

  /// One line naming the template and saying what went wrong.
  public var description: String {
    switch self {
    case .notFound(let name, let available):
      let list = available.isEmpty ? "none" : available.joined(separator: ", ")
      return "no template named \(Names.quote(name)) (available: \(list)); "
        + "add \(name).md to .nb/templates to create it"
    case .invalid(let name, let line, let message):
      let place = line.map { "\(Names.quote(name)) line \($0)" } ?? Names.quote(name)
      return "template \(place): \(message)"
    }
  }
}

/// The templates of a repository: the user's `.nb/templates/*.md` over the built-in defaults.
///
/// Templates arrive from other devices with `git pull`, so they are treated as untrusted input: Stencil has no tag
/// that runs commands, and `include`/`extends` can load only other templates of this library by plain name, never a
/// path, and never a file whose symbolic link leads out of the user directory.
public struct TemplateLibrary: Sendable {
  /// `<repo>/.nb/templates`, or nil when only the built-ins are wanted.
  public let userDirectory: URL?

  /// How many `include`/`extends` loads one render may make; bounds a template that includes itself, which would
  /// otherwise recurse until the stack overflows.
  public static let maxLoadsPerRender = 100

  /// `userDirectory` is `<repo>/.nb/templates` (may not exist). A user's NAME.md overrides the built-in NAME.
  public init(userDirectory: URL?) {
    self.userDirectory = userDirectory
  }

  /// The names of all templates, user and built-in: sorted, unique, without ".md".
  public func names() -> [String] {
    var result = Set(BuiltinTemplates.all.keys)
    if let directory = trustedUserDirectory(),
      let entries = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
    {
      for entry in entries where entry.hasSuffix(".md") {
        let name = String(entry.dropLast(3))
        guard Self.isPlainName(name) else { continue }
        var isDirectory: ObjCBool = false
        let path = directory.appendingPathComponent(entry).path
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
          result.insert(name)
        }
      }
    }
    return result.sorted()
  }

  /// The template text (user's or built-in). `name` may carry a ".md" suffix.
  public func source(of name: String) throws -> String {
    let canonical = try Self.canonicalName(name)
    if let text = try userSource(canonical) { return text }
    if let text = BuiltinTemplates.all[canonical] { return text }
    throw TemplateError.notFound(name: canonical, available: names())
  }

  /// Renders template `name` with `context` into the text of a whole note file.
  ///
  /// Text outside tags is kept exactly, line breaks included (Stencil's default); a template trims around a tag
  /// with `{%-` and `-%}` where it wants to.
  public func render(_ name: String, context: TemplateContext) throws -> String {
    let canonical = try Self.canonicalName(name)
    let text = try source(of: canonical)
    let loader = LibraryLoader(library: self)
    let environment = Environment(
      loader: loader,
      extensions: [TemplateFilters.makeExtension(timeZone: context.timeZone)]
    )
    let template = Template(templateString: text, environment: environment, name: canonical)
    do {
      return try template.render(context.dictionary())
    } catch let error as TemplateSyntaxError {
      throw Self.translate(error, loaderFailure: loader.failure, rendering: canonical)
    } catch let error as TemplateError {
      throw error
    } catch {
      throw TemplateError.invalid(name: canonical, line: nil, message: loader.failure?.description ?? "\(error)")
    }
  }

  /// What a template whose whole text is `{{ content }}` and a line break (the built-in `note`) renders, worked out
  /// without Stencil: the content, then that line break. nil for any other text. Setting up Stencil and rendering
  /// through it costs about two milliseconds, a tenth of a whole `nb add`, for the template nearly every note uses.
  static func contentOnlyRendering(source: String, content: String) -> String? {
    source == contentOnlySource ? content + "\n" : nil
  }

  static let contentOnlySource = "{{ content }}\n"

  // MARK: - Names and files

  /// A template name is a plain file name: the loader must never be able to turn it into a path.
  static func isPlainName(_ name: String) -> Bool {
    !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\\")
      && Names.firstControlCharacter(in: name) == nil
  }

  static func canonicalName(_ name: String) throws -> String {
    let bare = name.hasSuffix(".md") ? String(name.dropLast(3)) : name
    guard isPlainName(bare) else {
      throw TemplateError.invalid(
        name: name,
        line: nil,
        message: "a template is named by its file name in .nb/templates (like \"meeting\"), not by a path"
      )
    }
    return bare
  }

  /// The user directory, unless it is itself a symbolic link: a link committed as `.nb/templates` could otherwise
  /// point anywhere on a device that pulls it.
  private func trustedUserDirectory() -> URL? {
    guard let directory = userDirectory else { return nil }
    if (try? FileManager.default.destinationOfSymbolicLink(atPath: directory.path)) != nil { return nil }
    return directory
  }

  private func userSource(_ name: String) throws -> String? {
    guard let directory = trustedUserDirectory() else { return nil }
    let file = directory.appendingPathComponent(name + ".md")
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
      return nil
    }
    let realDirectory = directory.resolvingSymlinksInPath().standardizedFileURL.path
    let realFile = file.resolvingSymlinksInPath().standardizedFileURL.path
    guard realFile.hasPrefix(realDirectory + "/") else {
      throw TemplateError.invalid(
        name: name,
        line: nil,
        message: "\(file.path) is a symbolic link to \(realFile), outside \(directory.path); replace it with a file"
      )
    }
    let data: Data
    do {
      data = try Data(contentsOf: file)
    } catch {
      throw TemplateError.invalid(name: name, line: nil, message: "cannot read \(file.path): \(error)")
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw TemplateError.invalid(name: name, line: nil, message: "\(file.path) is not valid UTF-8; save it as UTF-8")
    }
    return text
  }

  // MARK: - Errors

  /// Maps Stencil's error to the innermost template and line, naming the include chain that led there.
  static func translate(
    _ error: TemplateSyntaxError,
    loaderFailure: TemplateError?,
    rendering name: String
  ) -> TemplateError {
    // Stencil lists the innermost token first and the outermost `include`/`extends` last.
    let tokens = error.stackTrace + (error.token.map { [$0] } ?? [])
    func line(of token: Token) -> Int? {
      let number = token.sourceMap.location.lineNumber
      return number > 0 ? Int(number) : nil
    }
    // A refusal by the loader reaches here only as Stencil's text of it; the loader kept the typed original.
    var message = error.reason
    switch loaderFailure {
    case .invalid(_, _, let detail)?: message = detail
    case let failure?: message = failure.description
    case nil: break
    }
    var failedName = name
    var failedLine: Int?
    if let innermost = tokens.first {
      failedName = innermost.sourceMap.filename ?? name
      failedLine = line(of: innermost)
      let chain = tokens.dropFirst().map { token -> String in
        let file = Names.quote(token.sourceMap.filename ?? name)
        return line(of: token).map { "\(file) line \($0)" } ?? file
      }
      if !chain.isEmpty { message += " (included from \(chain.joined(separator: ", from ")))" }
    }
    return .invalid(name: failedName, line: failedLine, message: message)
  }
}

/// Stencil's loader for `include` and `extends`: resolves plain names through the library, nothing else.
private final class LibraryLoader: Loader, CustomStringConvertible {
  let library: TemplateLibrary
  private var loads = 0
  /// The first refusal, kept because Stencil re-wraps it into a string.
  private(set) var failure: TemplateError?

  init(library: TemplateLibrary) {
    self.library = library
  }

  var description: String { "nb templates" }

  func loadTemplate(name: String, environment: Environment) throws -> Template {
    do {
      loads += 1
      guard loads <= TemplateLibrary.maxLoadsPerRender else {
        throw TemplateError.invalid(
          name: name,
          line: nil,
          message: "more than \(TemplateLibrary.maxLoadsPerRender) include/extends in one note; "
            + "does a template include itself?"
        )
      }
      let canonical: String
      do {
        canonical = try TemplateLibrary.canonicalName(name)
      } catch {
        throw TemplateError.invalid(
          name: name,
          line: nil,
          message: "include/extends of \(Names.quote(name)) refused: only templates in .nb/templates "
            + "or built-in ones can be included, by plain name (like \"header\")"
        )
      }
      let text = try library.source(of: canonical)
      return environment.templateClass.init(templateString: text, environment: environment, name: canonical)
    } catch let error as TemplateError {
      if failure == nil { failure = error }
      throw error
    }
  }
}
