import Foundation

/// What an app offers for drawing new strokes: the inks, colours and nib widths, and how a nib's width follows the
/// pressure. nb serve's Draw page draws with it, so a stroke drawn there renders as `nb ink render` draws it.
public enum InkPalette {
  /// A colour of the palette and the name an app shows for it.
  public struct Swatch: Hashable, Sendable {
    /// What a person calls the colour ("Blue").
    public var name: String
    /// The colour, opaque: translucent inks (marker, highlighter) are made see-through by the renderer.
    public var color: InkColor

    /// A swatch.
    public init(name: String, color: InkColor) {
      self.name = name
      self.color = color
    }
  }

  /// The inks offered for drawing, in the order shown: the eraser is a tool that removes strokes, not an ink.
  public static let inks: [InkType] = [.pen, .pencil, .fountainPen, .marker, .highlighter]

  /// The colours offered, in the order shown; the first is the default.
  public static let colors: [Swatch] = [
    Swatch(name: "Black", color: InkColor(red: 0x1a, green: 0x1a, blue: 0x1a)),
    Swatch(name: "Grey", color: InkColor(red: 0x6e, green: 0x77, blue: 0x81)),
    Swatch(name: "Blue", color: InkColor(red: 0x1f, green: 0x5f, blue: 0xd1)),
    Swatch(name: "Red", color: InkColor(red: 0xd1, green: 0x24, blue: 0x2f)),
    Swatch(name: "Green", color: InkColor(red: 0x1a, green: 0x7f, blue: 0x37)),
    Swatch(name: "Orange", color: InkColor(red: 0xe1, green: 0x6f, blue: 0x24)),
    Swatch(name: "Purple", color: InkColor(red: 0x82, green: 0x50, blue: 0xdf)),
    Swatch(name: "Yellow", color: InkColor(red: 0xf5, green: 0xc4, blue: 0x00)),
  ]

  /// The nib widths offered (diameters, points), thinnest first.
  public static let widths: [Double] = [1, 2, 3, 5, 8, 12, 16]

  /// The diameter (points) the renderer draws a stroke of `ink` with when the stroke records no width of its own:
  /// an app's default width for that ink.
  public static func nominalWidth(for ink: InkType) -> Double {
    StrokeOutline.nominalWidth(for: ink)
  }

  /// The diameter a nib of `width` points draws when pressed with `force` (1 a normal press): exactly how the
  /// renderer thins and thickens a stroke that has a force channel but no width channel, so an app that records
  /// this as a point's width draws what a force-only stroke of that nominal width draws. Force is clamped to 0…3;
  /// a force that is not finite counts as 1.
  public static func diameter(nib width: Double, force: Double) -> Double {
    let force = min(max(force.isFinite ? force : 1, 0), 3)
    return width * (1 + StrokeOutline.Options.standard.thinning * (force - 1))
  }
}
