#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// zlib's deflate and crc32, for writing pack files (`PackWriter`), and its inflate, for reading a loose object
/// without starting libgit2 (`GitFiles`).
///
/// zlib is already in the process whenever libgit2 is (libgit2 depends on it, on every platform nb runs on), but
/// no module exposes it to Swift and libgit2 offers no deflate of its own; it is looked up with dlopen, so the
/// package's link settings stay as they are. Its API has been stable since 1.2 (the ABI check is the stream size
/// and the version's first digit, both passed to `deflateInit_`). nil when it cannot be found: callers then leave
/// object writing to libgit2.
final class Zlib: @unchecked Sendable {
  private typealias DeflateInit = @convention(c) (UnsafeMutableRawPointer, Int32, UnsafePointer<CChar>, Int32) -> Int32
  private typealias Deflate = @convention(c) (UnsafeMutableRawPointer, Int32) -> Int32
  private typealias DeflateEnd = @convention(c) (UnsafeMutableRawPointer) -> Int32
  private typealias DeflateParams = @convention(c) (UnsafeMutableRawPointer, Int32, Int32) -> Int32
  private typealias CRC32 = @convention(c) (UInt, UnsafePointer<UInt8>?, UInt32) -> UInt
  private typealias InflateInit = @convention(c) (UnsafeMutableRawPointer, UnsafePointer<CChar>, Int32) -> Int32

  private let deflateInit: DeflateInit
  private let deflateCall: Deflate
  private let deflateReset: DeflateEnd
  private let deflateEnd: DeflateEnd
  private let deflateParams: DeflateParams
  private let crc: CRC32
  private let inflateInit: InflateInit
  private let inflateCall: Deflate
  private let inflateEnd: DeflateEnd

  /// The loaded library, or nil.
  static let shared: Zlib? = Zlib()

  private init?() {
    #if canImport(Darwin)
      let names = ["libz.1.dylib", "libz.dylib"]
    #else
      let names = ["libz.so.1", "libz.so"]
    #endif
    guard let handle = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first,
      let initSymbol = dlsym(handle, "deflateInit_"), let deflateSymbol = dlsym(handle, "deflate"),
      let resetSymbol = dlsym(handle, "deflateReset"), let endSymbol = dlsym(handle, "deflateEnd"),
      let paramsSymbol = dlsym(handle, "deflateParams"), let crcSymbol = dlsym(handle, "crc32"),
      let inflateInitSymbol = dlsym(handle, "inflateInit_"), let inflateSymbol = dlsym(handle, "inflate"),
      let inflateEndSymbol = dlsym(handle, "inflateEnd")
    else { return nil }
    deflateInit = unsafeBitCast(initSymbol, to: DeflateInit.self)
    deflateCall = unsafeBitCast(deflateSymbol, to: Deflate.self)
    deflateReset = unsafeBitCast(resetSymbol, to: DeflateEnd.self)
    deflateEnd = unsafeBitCast(endSymbol, to: DeflateEnd.self)
    deflateParams = unsafeBitCast(paramsSymbol, to: DeflateParams.self)
    crc = unsafeBitCast(crcSymbol, to: CRC32.self)
    inflateInit = unsafeBitCast(inflateInitSymbol, to: InflateInit.self)
    inflateCall = unsafeBitCast(inflateSymbol, to: Deflate.self)
    inflateEnd = unsafeBitCast(inflateEndSymbol, to: DeflateEnd.self)
  }

  /// The bytes of the zlib stream `input`, at most `limit` of them; nil when the stream is damaged or longer.
  func inflate(_ input: UnsafeRawBufferPointer, limit: Int) -> [UInt8]? {
    guard MemoryLayout<Int>.size == 8, let base = input.baseAddress else { return nil }
    let stream = UnsafeMutableRawPointer.allocate(byteCount: Stream.size, alignment: 16)
    stream.initializeMemory(as: UInt8.self, repeating: 0, count: Stream.size)
    defer { stream.deallocate() }
    guard inflateInit(stream, "1.2.11", Int32(Stream.size)) == 0 else { return nil }
    defer { _ = inflateEnd(stream) }
    stream.storeBytes(of: base, toByteOffset: 0, as: UnsafeRawPointer.self)
    stream.storeBytes(of: UInt32(input.count), toByteOffset: 8, as: UInt32.self)
    var output = [UInt8](repeating: 0, count: min(limit, max(4096, input.count * 4)))
    var produced = 0
    while true {
      if produced == output.count {
        guard output.count < limit else { return nil }
        output.append(contentsOf: repeatElement(0, count: min(limit, output.count * 2) - output.count))
      }
      let rc = output.withUnsafeMutableBytes { out -> Int32 in
        stream.storeBytes(of: out.baseAddress! + produced, toByteOffset: 24, as: UnsafeMutableRawPointer.self)
        stream.storeBytes(of: UInt32(out.count - produced), toByteOffset: 32, as: UInt32.self)
        return inflateCall(stream, 0)
      }
      produced = output.count - Int(stream.load(fromByteOffset: 32, as: UInt32.self))
      // Z_STREAM_END: done. Z_OK: more to come. Z_BUF_ERROR with room left: the input ended early.
      if rc == 1 { return Array(output[0..<produced]) }
      if rc != 0 && !(rc == -5 && produced == output.count) { return nil }
    }
  }

  /// CRC-32 of `bytes`, continuing from `value`.
  func crc32(_ value: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return value }
    return UInt32(truncatingIfNeeded: crc(UInt(value), base.assumingMemoryBound(to: UInt8.self), UInt32(bytes.count)))
  }

  /// A deflate stream, reused object after object (`reset`).
  final class Stream {
    // z_stream on LP64: next_in 0, avail_in 8, total_in 16, next_out 24, avail_out 32, total_out 40, msg 48,
    // state 56, zalloc 64, zfree 72, opaque 80, data_type 88, adler 96, reserved 104; 112 bytes. zalloc, zfree and
    // opaque zero mean zlib's own allocator.
    static let size = 112
    private let zlib: Zlib
    private let raw: UnsafeMutableRawPointer
    private var level: Int32
    /// How many streams this one switched to stored blocks after their probe (tests look).
    private(set) var storedAfterProbe = 0

    init?(_ zlib: Zlib, level: Int32) {
      guard MemoryLayout<Int>.size == 8 else { return nil }
      self.zlib = zlib
      self.level = level
      raw = UnsafeMutableRawPointer.allocate(byteCount: Self.size, alignment: 16)
      raw.initializeMemory(as: UInt8.self, repeating: 0, count: Self.size)
      guard zlib.deflateInit(raw, level, "1.2.11", Int32(Self.size)) == 0 else {
        raw.deallocate()
        return nil
      }
    }

    deinit {
      _ = zlib.deflateEnd(raw)
      raw.deallocate()
    }

    /// Compresses all of `input` as one zlib stream (header and Adler-32 included), appending to `output`. With
    /// `storeIfIncompressible`, a stream longer than `probe` bytes whose first `probe` bytes do not shrink (a photo,
    /// a video, an archive) is written with stored blocks for the rest: inflating it is the same, and deflating
    /// what cannot shrink would cost most of an adoption's CPU for nothing (zlib's fastest level deflates random
    /// bytes at half the speed of text).
    func compress(
      _ input: UnsafeRawBufferPointer, into output: inout [UInt8], storeIfIncompressible: Bool, probe: Int = 64 * 1024
    ) throws {
      _ = zlib.deflateReset(raw)
      if level != 1 {
        // Right after a reset nothing is pending, so changing the level writes nothing.
        _ = zlib.deflateParams(raw, 1, 0)
        level = 1
      }
      var consumed = 0
      let objectStart = output.count
      while true {
        let probing = storeIfIncompressible && level == 1 && consumed == 0 && input.count > probe
        let size = probing ? probe : min(input.count - consumed, 256 * 1024)
        raw.storeBytes(of: input.baseAddress.map { UnsafeRawPointer($0 + consumed) }, toByteOffset: 0, as: UnsafeRawPointer?.self)
        raw.storeBytes(of: UInt32(size), toByteOffset: 8, as: UInt32.self)
        consumed += size
        let finishing = consumed == input.count
        // Z_FINISH at the end; Z_BLOCK after the probe, so what it produced is all out and can be measured.
        let rc = try run(flush: finishing ? 4 : (probing ? 5 : 0), room: size + size / 8 + 1024, into: &output)
        if finishing {
          guard rc == 1 else { throw ZlibError() }
          return
        }
        if probing, output.count - objectStart >= size - size / 16 {
          // Stored blocks from here on; deflateParams flushes whatever is pending first, so it gets room too.
          _ = try run(room: 1024, into: &output) { self.zlib.deflateParams(self.raw, 0, 0) }
          level = 0
          storedAfterProbe += 1
        }
      }
    }

    /// Calls deflate (or `body`) until the input is consumed and, for Z_FINISH, the stream has ended, growing
    /// `output` as needed; the last return code.
    @discardableResult
    private func run(flush: Int32 = 0, room: Int, into output: inout [UInt8], _ body: (() -> Int32)? = nil) throws
      -> Int32
    {
      var rc: Int32 = 0
      var first = true
      while true {
        let start = output.count
        let grant = max(room, 4096)
        output.append(contentsOf: repeatElement(0, count: grant))
        output.withUnsafeMutableBufferPointer { out in
          raw.storeBytes(of: UnsafeMutableRawPointer(out.baseAddress! + start), toByteOffset: 24, as: UnsafeMutableRawPointer.self)
          raw.storeBytes(of: UInt32(grant), toByteOffset: 32, as: UInt32.self)
          rc = body.map { first ? $0() : zlib.deflateCall(raw, 5) } ?? zlib.deflateCall(raw, flush)
        }
        first = false
        let availableOut = Int(raw.load(fromByteOffset: 32, as: UInt32.self))
        output.removeLast(availableOut)
        // Z_BUF_ERROR (-5) only means no progress was possible; anything else negative is a failure.
        if rc < 0 && rc != -5 { throw ZlibError() }
        let availableIn = raw.load(fromByteOffset: 8, as: UInt32.self)
        let done = availableIn == 0 && availableOut > 0 && (flush != 4 || rc == 1)
        if done || rc == 1 { return rc }
        if rc == -5 && availableOut > 0 { return rc }
      }
    }
  }
}

struct ZlibError: Error {}
