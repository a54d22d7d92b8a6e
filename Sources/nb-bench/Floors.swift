import Foundation

#if canImport(Glibc)
  import Glibc
#endif

// Floors that no implementation of a command can go below on this machine, measured in this process so that no
// process start-up is in them: what a goal missed by a little is up against.

/// Seconds to visit every directory (readdir) and lstat every entry under `root`, skipping `.git`: what any
/// `status` must do to see changes (git's included), with nothing else.
func walkFloorSeconds(root: String) -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  var pending = [root]
  var count = 0
  while let directory = pending.popLast() {
    guard let handle = opendir(directory) else { continue }
    defer { closedir(handle) }
    let fd = dirfd(handle)
    while let entry = readdir(handle) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
      }
      if name == "." || name == ".." || (directory == root && name == ".git") { continue }
      var info = stat()
      guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
      count += 1
      if info.st_mode & S_IFMT == S_IFDIR { pending.append(directory + "/" + name) }
    }
  }
  if count == 0 { fail("walked nothing under \(root)") }
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Seconds for the durable writes one `nb add` makes and `git add && git commit` does not (git calls no fsync by
/// default): the journal written and flushed (fdatasync) and renamed into place, its directory flushed, the note
/// written, flushed and renamed, the commit record appended and flushed. Small files in `directory`, removed after.
func durableWritesFloorSeconds(directory: String) -> Double {
  let journal = directory + "/nb-bench-journal"
  let note = directory + "/nb-bench-note.md"
  let record = [UInt8](repeating: UInt8(ascii: "j"), count: 300)
  func write(_ path: String, _ bytes: [UInt8], flags: Int32) -> Int32 {
    let fd = open(path, flags | O_WRONLY | O_CLOEXEC, 0o644)
    if fd < 0 { fail("cannot write \(path)") }
    if bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) != bytes.count { fail("cannot write \(path)") }
    return fd
  }
  let start = DispatchTime.now().uptimeNanoseconds
  var fd = write(journal + ".new", record, flags: O_CREAT | O_TRUNC)
  fdatasync(fd)
  close(fd)
  rename(journal + ".new", journal)
  let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
  fsync(directoryFD)
  close(directoryFD)
  fd = write(note + ".tmp", record, flags: O_CREAT | O_TRUNC)
  fsync(fd)
  close(fd)
  rename(note + ".tmp", note)
  fd = write(journal, record, flags: O_APPEND)
  fdatasync(fd)
  close(fd)
  let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  unlink(journal)
  unlink(note)
  return elapsed
}
