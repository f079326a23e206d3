// A decoded picture as the codec passes it around: one plane of 8-bit samples per component,
// Y (or gray) then Cb and Cr, all of one size. Colour stays YCbCr from decoder to encoder.

/// A picture of `width` x `height` samples in one plane (grayscale) or three (Y, Cb, Cr; JFIF's
/// full-range YCbCr), each stored row by row.
public struct PlanarImage: Sendable, Equatable {
    /// The width in samples (pixels).
    public let width: Int
    /// The height in samples (pixels).
    public let height: Int
    /// `planes[i][y * width + x]`: one plane for grayscale, three for YCbCr.
    public var planes: [[UInt8]]
    /// What was wrong with the JPEG's data, when something was (cut short, a code no Huffman
    /// table has, a restart marker missing): the picture shows what could be read, as libjpeg's
    /// does when it warns. `nil` for a sound file.
    public var damage: String?

    /// A picture of the given planes, each `width * height` samples row by row: one (gray) or
    /// three (Y, Cb, Cr).
    public init(width: Int, height: Int, planes: [[UInt8]]) {
        precondition(width > 0 && height > 0 && (planes.count == 1 || planes.count == 3))
        precondition(planes.allSatisfy { $0.count == width * height })
        self.width = width
        self.height = height
        self.planes = planes
    }

    /// Whether the picture has one plane.
    public var isGrayscale: Bool { planes.count == 1 }
}
