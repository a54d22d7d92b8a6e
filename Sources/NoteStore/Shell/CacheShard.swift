import Foundation

/// One directory's slice of the note metadata cache: a text file of tab-separated lines, parsed at the byte level
/// because it sits on the path of every listing.
///
/// Line 1 is `nb-notes-cache 2\t<directory>`; each further line is
/// `name size mtime inode id title created updated tags aliases conflict_of warning`, with `\\`, tab, newline and
/// CR escaped, list items separated by U+001F, and timestamps as `<seconds bit pattern>/<offset>`.
struct CacheShard {
  struct Entry {
    var size: Int64
    var mtime: Int64
    var inode: UInt64
    var note: Note
  }

  let path: String
  let directory: String
  var entries: [String: Entry] = [:]

  private static let magic = "nb-notes-cache 2"

  /// Loads the shard; a missing, foreign or damaged file is an empty cache, never an error.
  init(path: String, directory: String) {
    self.path = path
    self.directory = directory
    guard let data = try? FileSystem.read(path) else { return }
    let bytes = [UInt8](data)
    var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true)[...]
    guard let header = lines.first, String(decoding: header, as: UTF8.self) == Self.magic + "\t" + directory else {
      return
    }
    lines = lines.dropFirst()
    entries.reserveCapacity(lines.count)
    for line in lines {
      let fields = line.split(separator: 0x09, omittingEmptySubsequences: false)
      guard fields.count == 12, let size = Int64(Self.text(fields[1])), let mtime = Int64(Self.text(fields[2])),
        let inode = UInt64(Self.text(fields[3]))
      else { continue }
      let name = Self.unescape(fields[0])
      let note = Note(
        path: RepoPaths.join(directory, name), id: Self.optional(fields[4]), title: Self.unescape(fields[5]),
        created: Self.timestamp(fields[6]), updated: Self.timestamp(fields[7]), tags: Self.list(fields[8]),
        aliases: Self.list(fields[9]), conflictOf: Self.optional(fields[10]), warning: Self.optional(fields[11]))
      entries[name] = Entry(size: size, mtime: mtime, inode: inode, note: note)
    }
  }

  /// Writes the shard atomically; failures are ignored because a cache only saves time.
  func save() {
    var out = Self.magic + "\t" + directory + "\n"
    for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
      let n = entry.note
      out += [
        Self.escape(name), String(entry.size), String(entry.mtime), String(entry.inode), Self.escape(n.id ?? ""),
        Self.escape(n.title), Self.encode(n.created), Self.encode(n.updated),
        n.tags.map(Self.escape).joined(separator: "\u{1F}"), n.aliases.map(Self.escape).joined(separator: "\u{1F}"),
        Self.escape(n.conflictOf ?? ""), Self.escape(n.warning ?? ""),
      ].joined(separator: "\t")
      out += "\n"
    }
    try? AtomicFile.write(Data(out.utf8), to: URL(fileURLWithPath: path), durable: false)
  }

  private static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

  private static func optional(_ bytes: ArraySlice<UInt8>) -> String? { bytes.isEmpty ? nil : unescape(bytes) }

  private static func list(_ bytes: ArraySlice<UInt8>) -> [String] {
    bytes.isEmpty ? [] : bytes.split(separator: 0x1F, omittingEmptySubsequences: false).map(unescape)
  }

  private static func timestamp(_ bytes: ArraySlice<UInt8>) -> Timestamp? {
    guard let slash = bytes.firstIndex(of: 0x2F), let bits = UInt64(text(bytes[..<slash])),
      let offset = Int(text(bytes[(slash + 1)...]))
    else { return nil }
    return Timestamp(date: Date(timeIntervalSince1970: Double(bitPattern: bits)), offsetSeconds: offset)
  }

  private static func encode(_ t: Timestamp?) -> String {
    t.map { "\($0.date.timeIntervalSince1970.bitPattern)/\($0.offsetSeconds)" } ?? ""
  }

  static func escape(_ s: String) -> String {
    guard s.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x1F }) else {
      return s
    }
    var out = [UInt8]()
    for byte in s.utf8 {
      switch byte {
      case 0x5C: out += [0x5C, 0x5C]
      case 0x09: out += [0x5C, UInt8(ascii: "t")]
      case 0x0A: out += [0x5C, UInt8(ascii: "n")]
      case 0x0D: out += [0x5C, UInt8(ascii: "r")]
      case 0x1F: out += [0x5C, UInt8(ascii: "u")]
      default: out.append(byte)
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  static func unescape(_ bytes: ArraySlice<UInt8>) -> String {
    guard bytes.contains(0x5C) else { return text(bytes) }
    var out = [UInt8]()
    var escaping = false
    for byte in bytes {
      if escaping {
        switch byte {
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "u"): out.append(0x1F)
        default: out.append(byte)
        }
        escaping = false
      } else if byte == 0x5C {
        escaping = true
      } else {
        out.append(byte)
      }
    }
    return String(decoding: out, as: UTF8.self)
  }
}
