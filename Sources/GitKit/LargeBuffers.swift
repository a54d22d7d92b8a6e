#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Backing for the few buffers as large as the whole index (7 MB at 100 000 entries): the buffer it is read into
/// and the one a patch writes. Each is fresh memory, and the kernel hands it out a 4 KB page per fault: 1 700
/// faults per buffer, a tenth of an `nb add` there. Asking for transparent huge pages (2 MB each) over the aligned
/// middle of the buffer makes that a handful. Advice only: where huge pages are off, or none is free, nothing
/// changes.
enum LargeBuffers {
  /// Below this, a buffer takes few enough faults that the advice is not worth a system call.
  static let minimumSize = 4 << 20

  /// Advises huge pages for the 2 MB-aligned part of `count` bytes at `start`, before they are first written.
  static func adviseHugePages(_ start: UnsafeMutableRawPointer?, count: Int) {
    #if os(Linux)
      guard let start, count >= minimumSize else { return }
      let huge = 2 << 20
      let first = (Int(bitPattern: start) + huge - 1) & ~(huge - 1)
      let end = (Int(bitPattern: start) + count) & ~(huge - 1)
      guard end > first else { return }
      _ = madvise(UnsafeMutableRawPointer(bitPattern: first), end - first, 14)  // MADV_HUGEPAGE
    #endif
  }
}
