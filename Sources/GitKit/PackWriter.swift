#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes many new objects as pack files (`objects/pack/pack-<sha>.pack` and its `.idx`), the way `git
/// fast-import` and `index-pack` leave them, instead of one loose file each.
///
/// libgit2 writes every object it is given as a zlib-compressed loose file: temporary file, write, rename into one
/// of 256 directories. Adopting a folder of 6 000 files made 6 000 of them, and creating a file is what costs on
/// many file systems, far more than hashing or compressing. Here objects are compressed into a buffer, and every
/// `limit` bytes of it become one pack (its object count must be known before its first byte, and a buffer bounded
/// in size keeps the memory of a large adoption bounded too): a handful of files for any adoption.
///
/// Objects are written whole (no deltas: what git's own `gc` adds later), each checked against the repository and
/// this writer first, so nothing is stored twice.
final class PackWriter {
  private let packDirectory: String
  private let zlib: Zlib
  private let stream: Zlib.Stream
  private let limit: Int
  /// The objects of the current pack: id, offset in the pack, CRC-32 of their packed bytes.
  private var objects: [(id: [UInt8], offset: Int, crc: UInt32)] = []
  /// The current pack's bytes, without the 12-byte header (its count is known at the end).
  private var body: [UInt8] = []
  /// Every id written by this writer, across its packs.
  private var written = Set<[UInt8]>()
  /// How many packs were installed.
  private(set) var packs = 0

  /// nil when zlib cannot be loaded.
  init?(objectsDirectory: String, limit: Int = 16 << 20) {
    guard let zlib = Zlib.shared, let stream = Zlib.Stream(zlib, level: 1) else { return nil }
    self.zlib = zlib
    self.stream = stream
    self.packDirectory = objectsDirectory + "/pack"
    self.limit = limit
    // Room for a full pack and the compressor's slack on its last object, once: growing by doubling copied the
    // buffer each time and left it at twice the limit.
    body.reserveCapacity(limit + limit / 8 + (64 << 10))
  }

  typealias ObjectType = PackObjectType

  /// Whether this writer already holds `id`.
  func contains(_ id: [UInt8]) -> Bool { written.contains(id) }

  /// Adds an object whose id the caller computed from the same bytes.
  func add(_ type: ObjectType, id: [UInt8], data: UnsafeRawBufferPointer) throws {
    guard written.insert(id).inserted else { return }
    if !body.isEmpty, body.count + data.count > limit { try flush() }
    let start = body.count
    type.appendHeader(size: data.count, to: &body)
    // Already-compressed content (images, video) is stored rather than deflated again, judged by its first 8 KiB:
    // a larger probe costs more than it saves (an adoption's photos are mostly tens of KiB, each deflated in vain
    // up to the probe's end).
    try stream.compress(data, into: &body, storeIfIncompressible: type == .blob, probe: 8 * 1024)
    let crc = body.withUnsafeBytes { zlib.crc32(0, UnsafeRawBufferPointer(rebasing: $0[start...])) }
    objects.append((id, 12 + start, crc))
  }

  /// Installs what is pending as one pack; nothing when nothing is.
  func finish() throws {
    try flush()
  }

  /// Writes the current pack and its index durably, then moves them into place (pack first: readers look for the
  /// index), as git does.
  private func flush() throws {
    guard !objects.isEmpty else { return }
    var header: [UInt8] = Array("PACK".utf8)
    Self.append(&header, UInt32(2))
    Self.append(&header, UInt32(objects.count))
    // The pack's checksum covers header and body.
    let checksum = body.withUnsafeBytes { GitObjectHash.digest(prefix: header, $0) }
    let name = lowercaseHex(checksum)
    let index = makeIndex(packChecksum: checksum)

    let packPath = packDirectory + "/pack-\(name).pack"
    let indexPath = packDirectory + "/pack-\(name).idx"
    mkdir(packDirectory, 0o777)
    let temporaryPack = try Self.writeTemporary(in: packDirectory, parts: [header, body, checksum])
    let temporaryIndex: String
    do {
      temporaryIndex = try Self.writeTemporary(in: packDirectory, parts: [index])
    } catch {
      unlink(temporaryPack)
      throw error
    }
    // git makes packs read-only; a later repack replaces them rather than writing into them.
    chmod(temporaryPack, 0o444)
    chmod(temporaryIndex, 0o444)
    guard rename(temporaryPack, packPath) == 0 else {
      let error = IndexFileStore.posixError("rename(\(packPath))")
      unlink(temporaryPack)
      unlink(temporaryIndex)
      throw error
    }
    guard rename(temporaryIndex, indexPath) == 0 else {
      let error = IndexFileStore.posixError("rename(\(indexPath))")
      unlink(temporaryIndex)
      throw error
    }
    packs += 1
    objects.removeAll(keepingCapacity: true)
    body.removeAll(keepingCapacity: true)
  }

  /// The version 2 pack index: fan-out table, sorted ids, CRC-32s, 31-bit offsets (with a 64-bit table for larger
  /// ones), the pack's checksum and the index's own.
  private func makeIndex(packChecksum: [UInt8]) -> [UInt8] {
    let sorted = objects.sorted { $0.id.lexicographicallyPrecedes($1.id) }
    var out: [UInt8] = [0xFF, 0x74, 0x4F, 0x63]
    Self.append(&out, UInt32(2))
    var fanout = [UInt32](repeating: 0, count: 256)
    for object in sorted { fanout[Int(object.id[0])] += 1 }
    var running: UInt32 = 0
    for i in 0..<256 {
      running += fanout[i]
      Self.append(&out, running)
    }
    for object in sorted { out.append(contentsOf: object.id) }
    for object in sorted { Self.append(&out, object.crc) }
    var large: [UInt64] = []
    for object in sorted {
      if object.offset < 0x8000_0000 {
        Self.append(&out, UInt32(object.offset))
      } else {
        Self.append(&out, 0x8000_0000 | UInt32(large.count))
        large.append(UInt64(object.offset))
      }
    }
    for offset in large {
      Self.append(&out, UInt32(offset >> 32))
      Self.append(&out, UInt32(offset & 0xFFFF_FFFF))
    }
    out.append(contentsOf: packChecksum)
    out.append(contentsOf: out.withUnsafeBytes { SHA1.hash($0) })
    return out
  }

  /// Writes `parts` to a new temporary file in `directory` and flushes it to disk; its path.
  private static func writeTemporary(in directory: String, parts: [[UInt8]]) throws -> String {
    var template = Array((directory + "/tmp_nb_pack_XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw IndexFileStore.posixError("mkstemp(\(directory))") }
    let path = String(cString: template)
    defer { close(fd) }
    for part in parts {
      var done = 0
      try part.withUnsafeBytes { buffer in
        while done < buffer.count {
          let n = write(fd, buffer.baseAddress! + done, buffer.count - done)
          if n < 0 && errno == EINTR { continue }
          if n <= 0 {
            let error = IndexFileStore.posixError("write(\(path))")
            unlink(path)
            throw error
          }
          done += n
        }
      }
    }
    // A commit will name these objects: the pack must be on disk before anything refers to it.
    guard fsync(fd) == 0 else {
      let error = IndexFileStore.posixError("fsync(\(path))")
      unlink(path)
      throw error
    }
    return path
  }

  private static func append(_ out: inout [UInt8], _ value: UInt32) {
    out.append(UInt8(value >> 24))
    out.append(UInt8((value >> 16) & 0xFF))
    out.append(UInt8((value >> 8) & 0xFF))
    out.append(UInt8(value & 0xFF))
  }
}

/// The types of the objects nb writes into packs, numbered as a pack entry's header numbers them (deltas, 6 and 7,
/// are never written).
enum PackObjectType: UInt8 {
  case commit = 1
  case tree = 2
  case blob = 3

  /// Appends a pack entry's header for an object of `size` bytes: 3 bits of type and the low 4 bits of size in the
  /// first byte, then 7 more bits of size a byte, low first, the high bit saying another byte follows.
  func appendHeader(size: Int, to body: inout [UInt8]) {
    var size = size
    var byte = (rawValue << 4) | UInt8(size & 0x0F)
    size >>= 4
    while size > 0 {
      body.append(byte | 0x80)
      byte = UInt8(size & 0x7F)
      size >>= 7
    }
    body.append(byte)
  }
}
