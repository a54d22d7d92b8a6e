import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a file's stat says about its content, compared to tell nb's own writes from later ones.
struct FileStamp: Equatable {
  var size: Int64
  var modified: Int64
  var changed: Int64
  var inode: UInt64

  /// The stamp of `path` now; nil when it does not exist.
  init?(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    size = Int64(info.st_size)
    #if canImport(Glibc)
      modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
      changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    #else
      modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
      changed = Int64(info.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(info.st_ctimespec.tv_nsec)
    #endif
    inode = UInt64(info.st_ino)
  }
}
