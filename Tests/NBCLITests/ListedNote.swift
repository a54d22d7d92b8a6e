import Foundation

/// One note as `nb list --json` / `nb conflicts --json` print it (the keys these tests need).
struct ListedNote: Decodable {
  var path: String
  var id: String?
  var conflictOf: String?

  enum CodingKeys: String, CodingKey {
    case path, id
    case conflictOf = "conflict_of"
  }
}
