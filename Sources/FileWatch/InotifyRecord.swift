import Foundation

/// The inotify event bits nb uses, with the values of the Linux ABI (`<sys/inotify.h>`), spelled out so the decoder
/// and its tests compile on every platform; a Linux test checks them against Glibc's.
struct InotifyMask: OptionSet, Hashable {
  let rawValue: UInt32

  static let modify = InotifyMask(rawValue: 0x0000_0002)
  static let attrib = InotifyMask(rawValue: 0x0000_0004)
  static let closeWrite = InotifyMask(rawValue: 0x0000_0008)
  static let movedFrom = InotifyMask(rawValue: 0x0000_0040)
  static let movedTo = InotifyMask(rawValue: 0x0000_0080)
  static let create = InotifyMask(rawValue: 0x0000_0100)
  static let delete = InotifyMask(rawValue: 0x0000_0200)
  static let deleteSelf = InotifyMask(rawValue: 0x0000_0400)
  static let moveSelf = InotifyMask(rawValue: 0x0000_0800)
  static let unmount = InotifyMask(rawValue: 0x0000_2000)
  static let queueOverflow = InotifyMask(rawValue: 0x0000_4000)
  static let ignored = InotifyMask(rawValue: 0x0000_8000)
  static let onlyDirectory = InotifyMask(rawValue: 0x0100_0000)
  static let dontFollow = InotifyMask(rawValue: 0x0200_0000)
  static let excludeUnlinked = InotifyMask(rawValue: 0x0400_0000)
  static let isDirectory = InotifyMask(rawValue: 0x4000_0000)

  /// What every directory is watched for. Both close-after-write and modify, because an editor that keeps the file
  /// open only modifies; both moves, because an atomic save arrives as a rename onto the note with no write on it.
  static let watched: InotifyMask = [
    .create, .modify, .closeWrite, .attrib, .movedFrom, .movedTo, .delete, .deleteSelf, .moveSelf,
    .onlyDirectory, .excludeUnlinked,
  ]
}

/// One `struct inotify_event` as read(2) returns it: `int wd; uint32_t mask, cookie, len; char name[len]`, the name
/// NUL-terminated and NUL-padded (empty, `len` 0, for an event on the watched directory itself or a queue overflow).
struct InotifyRecord: Equatable {
  var wd: Int32
  var mask: InotifyMask
  var cookie: UInt32
  var name: String

  /// The size of the fixed header before the name.
  static let headerSize = 16

  /// The records in `buffer`, in order; a record cut short at the end (never from the kernel, which returns whole
  /// records) is dropped. Integers are in host byte order, as the kernel writes them.
  static func decode(_ buffer: UnsafeRawBufferPointer) -> [InotifyRecord] {
    var records: [InotifyRecord] = []
    var offset = 0
    while buffer.count - offset >= headerSize {
      let wd = buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self)
      let mask = buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
      let cookie = buffer.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
      let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
      let end = offset + headerSize + length
      guard end <= buffer.count else { break }
      let nameBytes = UnsafeRawBufferPointer(rebasing: buffer[(offset + headerSize)..<end])
      let nameLength = nameBytes.firstIndex(of: 0) ?? nameBytes.count
      let name = String(decoding: nameBytes.prefix(nameLength), as: UTF8.self)
      records.append(InotifyRecord(wd: wd, mask: InotifyMask(rawValue: mask), cookie: cookie, name: name))
      offset = end
    }
    return records
  }

  /// `decode` over bytes held in an array.
  static func decode(_ bytes: [UInt8]) -> [InotifyRecord] {
    bytes.withUnsafeBytes { decode($0) }
  }
}
