import Foundation

/// One pixel, 8 bits per channel, not premultiplied.
public struct RGBA: Equatable, Sendable, CustomStringConvertible {
  /// Red, green, blue, alpha.
  public var red, green, blue, alpha: UInt8

  /// A pixel.
  public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
    self.red = red
    self.green = green
    self.blue = blue
    self.alpha = alpha
  }

  /// Mean of the three colour channels, 0 (black) to 255 (white); ignores alpha.
  public var brightness: Double { (Double(red) + Double(green) + Double(blue)) / 3 }

  public var description: String { "rgba(\(red),\(green),\(blue),\(alpha))" }
}

/// A decoded image: rows top to bottom, RGBA bytes.
public struct RasterImage: Sendable {
  /// Size in pixels.
  public let width, height: Int
  /// `width × height × 4` bytes.
  public let rgba: [UInt8]

  /// An image from its pixels.
  public init(width: Int, height: Int, rgba: [UInt8]) {
    precondition(rgba.count == width * height * 4, "\(rgba.count) bytes for \(width)×\(height) RGBA")
    self.width = width
    self.height = height
    self.rgba = rgba
  }

  /// The pixel at column `x`, row `y` (0 at the top left).
  public func pixel(_ x: Int, _ y: Int) -> RGBA {
    precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
    let offset = (y * width + x) * 4
    return RGBA(red: rgba[offset], green: rgba[offset + 1], blue: rgba[offset + 2], alpha: rgba[offset + 3])
  }

  /// How many pixels of row `y` satisfy `test`.
  public func count(row y: Int, where test: (RGBA) -> Bool) -> Int {
    (0..<width).reduce(0) { $0 + (test(pixel($1, y)) ? 1 : 0) }
  }

  /// How many pixels of column `x` satisfy `test`.
  public func count(column x: Int, where test: (RGBA) -> Bool) -> Int {
    (0..<height).reduce(0) { $0 + (test(pixel(x, $1)) ? 1 : 0) }
  }
}

/// Why an SVG could not be turned into pixels.
public enum RasterError: Error, CustomStringConvertible {
  /// `rsvg-convert` is not on PATH.
  case rendererMissing
  /// `python3` (which inflates the PNG with zlib) is not on PATH.
  case pythonMissing
  /// `rsvg-convert` refused the SVG.
  case rendererFailed(status: Int32, stderr: String)
  /// The PNG could not be read; what is wrong.
  case badPNG(String)

  public var description: String {
    switch self {
    case .rendererMissing:
      "rsvg-convert is not installed; install Debian's librsvg2-bin (apt-get install librsvg2-bin) to run the SVG"
        + " rendering tests"
    case .pythonMissing: "python3 is not installed; the PNG decoder needs it for zlib"
    case .rendererFailed(let status, let stderr): "rsvg-convert exited with status \(status): \(stderr)"
    case .badPNG(let reason): "cannot decode the PNG: \(reason)"
    }
  }
}

/// Renders SVG with a real renderer (librsvg's `rsvg-convert`) and decodes the result, so tests can assert on
/// pixels.
public enum Raster {
  /// Renders `svg` to pixels. With `width`/`height`, the image is scaled to that size; otherwise librsvg's
  /// default of 96 dpi applies to the SVG's `width`/`height`.
  public static func render(svg: String, width: Int? = nil, height: Int? = nil) throws -> RasterImage {
    let executable: URL
    do {
      executable = try ProcessRunner.resolve("rsvg-convert")
    } catch {
      throw RasterError.rendererMissing
    }
    var arguments = ["--format", "png"]
    if let width { arguments += ["--width", String(width)] }
    if let height { arguments += ["--height", String(height)] }
    let result = try ProcessRunner.run(executable, arguments: arguments, stdin: Data(svg.utf8), timeout: 60)
    guard result.succeeded else { throw RasterError.rendererFailed(status: result.status, stderr: result.stderr) }
    return try decodePNG(result.stdoutData)
  }

  /// Reads the chunks and inflates the image data in python3 (zlib, which Swift on Linux does not expose), then
  /// undoes PNG's row filters here. 8-bit grey, grey+alpha, RGB and RGBA, not interlaced: what librsvg writes.
  private static let inflater = """
    import sys, zlib, struct
    data = sys.stdin.buffer.read()
    if data[:8] != b'\\x89PNG\\r\\n\\x1a\\n':
        sys.exit('not a PNG signature')
    pos, header, idat = 8, None, []
    while pos + 8 <= len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length or pos + 12 + length > len(data):
            sys.exit('truncated %s chunk at byte %d' % (kind.decode('latin-1'), pos))
        (crc,) = struct.unpack('>I', data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            sys.exit('bad CRC in %s chunk at byte %d' % (kind.decode('latin-1'), pos))
        if kind == b'IHDR':
            header = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        elif kind == b'IEND':
            break
        pos += 12 + length
    if header is None:
        sys.exit('no IHDR chunk')
    w, h, depth, colour, _, _, interlace = header
    out = sys.stdout.buffer
    out.write(b'%d %d %d %d %d\\n' % (w, h, depth, colour, interlace))
    out.write(zlib.decompress(b''.join(idat)))
    """

  /// Decodes a PNG into RGBA.
  public static func decodePNG(_ png: Data) throws -> RasterImage {
    let result: ProcessResult
    do {
      result = try ProcessRunner.run("python3", arguments: ["-c", inflater], stdin: png, timeout: 60)
    } catch ProcessRunnerError.executableNotFound {
      throw RasterError.pythonMissing
    }
    guard result.succeeded else { throw RasterError.badPNG(result.stderr.trimmingCharacters(in: .whitespaces)) }
    let output = [UInt8](result.stdoutData)
    guard let newline = output.firstIndex(of: 0x0a) else { throw RasterError.badPNG("no header from the inflater") }
    let fields = String(decoding: output[..<newline], as: UTF8.self).split(separator: " ").compactMap { Int($0) }
    guard fields.count == 5 else { throw RasterError.badPNG("bad header from the inflater") }
    let (width, height, depth, colour, interlace) = (fields[0], fields[1], fields[2], fields[3], fields[4])
    let channels: Int
    switch colour {
    case 0: channels = 1
    case 2: channels = 3
    case 4: channels = 2
    case 6: channels = 4
    default: throw RasterError.badPNG("colour type \(colour) is not supported")
    }
    guard depth == 8 else { throw RasterError.badPNG("bit depth \(depth) is not supported") }
    guard interlace == 0 else { throw RasterError.badPNG("interlaced images are not supported") }
    let stride = width * channels
    let raw = output[(newline + 1)...]
    guard raw.count == height * (stride + 1) else {
      throw RasterError.badPNG("\(raw.count) bytes of image data, expected \(height * (stride + 1))")
    }
    var pixels = [UInt8](repeating: 0, count: height * stride)
    var index = raw.startIndex
    for row in 0..<height {
      let filter = raw[index]
      index += 1
      let base = row * stride
      for column in 0..<stride {
        let byte = raw[index + column]
        let left = column >= channels ? Int(pixels[base + column - channels]) : 0
        let up = row > 0 ? Int(pixels[base - stride + column]) : 0
        let upLeft = row > 0 && column >= channels ? Int(pixels[base - stride + column - channels]) : 0
        let predictor: Int
        switch filter {
        case 0: predictor = 0
        case 1: predictor = left
        case 2: predictor = up
        case 3: predictor = (left + up) / 2
        case 4:
          let estimate = left + up - upLeft
          let (toLeft, toUp, toUpLeft) = (abs(estimate - left), abs(estimate - up), abs(estimate - upLeft))
          predictor = toLeft <= toUp && toLeft <= toUpLeft ? left : (toUp <= toUpLeft ? up : upLeft)
        default: throw RasterError.badPNG("unknown filter \(filter) on row \(row)")
        }
        pixels[base + column] = byte &+ UInt8(truncatingIfNeeded: predictor)
      }
      index += stride
    }
    var rgba = [UInt8](repeating: 255, count: width * height * 4)
    for pixel in 0..<(width * height) {
      let source = pixel * channels
      let target = pixel * 4
      switch channels {
      case 1, 2:
        rgba[target] = pixels[source]
        rgba[target + 1] = pixels[source]
        rgba[target + 2] = pixels[source]
        if channels == 2 { rgba[target + 3] = pixels[source + 1] }
      default:
        rgba[target] = pixels[source]
        rgba[target + 1] = pixels[source + 1]
        rgba[target + 2] = pixels[source + 2]
        if channels == 4 { rgba[target + 3] = pixels[source + 3] }
      }
    }
    return RasterImage(width: width, height: height, rgba: rgba)
  }
}
