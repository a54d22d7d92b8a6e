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
    environment = Environment(loader: DictionaryLoader(templates: WebTemplates.all), extensions: [filters])
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
