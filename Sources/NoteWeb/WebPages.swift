import Foundation
import Stencil

/// The page templates (`templates/web/`, compiled in) and the one way values reach them.
///
/// Stencil writes a variable's text as it is. Every template therefore ends each `{{ value }}` with the `e` filter
/// registered here (HTML-escaping), except variables named `…_html`, which hold HTML nb itself made (cmark-gfm's
/// output, snippets whose text was escaped piece by piece); WebTemplatesTests checks every template keeps to that.
struct WebPages {
  private let environment: Environment

  init() {
    let filters = Extension()
    filters.registerFilter("e") { (value: Any?) in HTML.escape(Self.text(value)) }
    environment = Environment(loader: ParsedOnce(WebTemplates.all), extensions: [filters])
  }

  /// Each template lexed on its first use and kept: Stencil's own loaders lex the text again on every render, and
  /// for `{% extends %}` the parent's too, which was nine tenths of a page's time (12 ms a note page under load).
  private final class ParsedOnce: Loader {
    private let texts: [String: String]
    private let lock = NSLock()
    private var parsed: [String: Template] = [:]

    init(_ texts: [String: String]) { self.texts = texts }

    func loadTemplate(name: String, environment: Environment) throws -> Template {
      if let template = lock.withLock({ parsed[name] }) { return template }
      guard let text = texts[name] else { throw TemplateDoesNotExist(templateNames: [name], loader: self) }
      let template = environment.templateClass.init(templateString: text, environment: environment, name: name)
      lock.withLock { parsed[name] = template }
      return template
    }
  }

  /// The page `name` (`note.html`) filled from `context`.
  func render(_ name: String, _ context: [String: Any]) throws -> String {
    try environment.renderTemplate(name: name, context: context)
  }

  /// A value as the text a page shows: nil as nothing, anything else as Swift describes it.
  static func text(_ value: Any?) -> String {
    switch value {
    case nil: ""
    case let text as String: text
    case let text as Substring: String(text)
    case let value?: String(describing: value)
    }
  }
}
