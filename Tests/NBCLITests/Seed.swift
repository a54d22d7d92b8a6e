import Foundation

/// A note to start a scenario with.
struct Seed {
  var title: String
  var notebook: String? = nil
  var content: String
  var tags: String? = nil
}
