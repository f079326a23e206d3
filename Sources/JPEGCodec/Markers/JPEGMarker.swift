// The marker codes of a JPEG file (ITU T.81, table B.1) by name, and what each kind implies for
// the walk: whether a length and payload follow, whether it starts a frame.

/// The code that follows an `FF` byte in a JPEG file: a segment's kind, or a marker that stands
/// alone (SOI, EOI, a restart marker).
public struct JPEGMarker: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The byte after `FF`.
    public let rawValue: UInt8

    /// The marker whose code is `rawValue`.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Start of image, `FF D8`: the first two bytes of every JPEG file.
    public static let startOfImage = JPEGMarker(rawValue: 0xD8)
    /// End of image, `FF D9`: the last two bytes of a whole JPEG file.
    public static let endOfImage = JPEGMarker(rawValue: 0xD9)
    /// Baseline sequential frame header (SOF0).
    public static let baseline = JPEGMarker(rawValue: 0xC0)
    /// Extended sequential frame header (SOF1).
    public static let extendedSequential = JPEGMarker(rawValue: 0xC1)
    /// Progressive frame header (SOF2).
    public static let progressive = JPEGMarker(rawValue: 0xC2)
    /// Huffman tables (DHT).
    public static let huffmanTables = JPEGMarker(rawValue: 0xC4)
    /// Arithmetic coding conditioning (DAC).
    public static let arithmeticConditioning = JPEGMarker(rawValue: 0xCC)
    /// Start of scan (SOS): a scan header, then entropy-coded data up to the next marker.
    public static let startOfScan = JPEGMarker(rawValue: 0xDA)
    /// Quantization tables (DQT).
    public static let quantizationTables = JPEGMarker(rawValue: 0xDB)
    /// Number of lines (DNL): the height, given after the first scan.
    public static let numberOfLines = JPEGMarker(rawValue: 0xDC)
    /// Restart interval (DRI).
    public static let restartInterval = JPEGMarker(rawValue: 0xDD)
    /// JFIF's application segment (APP0).
    public static let jfif = JPEGMarker(rawValue: 0xE0)
    /// Exif's application segment (APP1), also XMP's.
    public static let application1 = JPEGMarker(rawValue: 0xE1)
    /// The application segment (APP2) that carries an ICC profile, in chunks.
    public static let application2 = JPEGMarker(rawValue: 0xE2)
    /// Adobe's application segment (APP14), which names the colour transform.
    public static let adobe = JPEGMarker(rawValue: 0xEE)
    /// A comment (COM).
    public static let comment = JPEGMarker(rawValue: 0xFE)
    /// Temporary use in arithmetic coding (TEM): stands alone.
    public static let temporary = JPEGMarker(rawValue: 0x01)

    /// Restart marker `RSTn`, `FF D0` to `FF D7`, for n in 0...7.
    public static func restart(_ number: Int) -> JPEGMarker { JPEGMarker(rawValue: 0xD0 + UInt8(number & 7)) }

    /// Whether this is one of the restart markers `RST0`–`RST7`.
    public var isRestart: Bool { (0xD0...0xD7).contains(rawValue) }

    /// Whether this starts a frame header, SOF0–SOF15 (but not DHT, JPG or DAC, which share the
    /// range).
    public var isStartOfFrame: Bool { (0xC0...0xCF).contains(rawValue) && rawValue != 0xC4 && rawValue != 0xC8 && rawValue != 0xCC }

    /// Whether no length and payload follow the marker: SOI, EOI, TEM and the restart markers.
    /// (`FF 00` is no marker at all but a stuffed `FF` byte in entropy-coded data.)
    public var standsAlone: Bool { rawValue == 0x00 || rawValue == 0x01 || (0xD0...0xD9).contains(rawValue) }

    /// The marker as it is written in the file, `FF` and its code in hexadecimal: `FF D8`.
    public var description: String { "FF " + hexadecimal }

    /// The code alone in two hexadecimal digits: `D8`.
    var hexadecimal: String {
        let text = String(rawValue, radix: 16, uppercase: true)
        return rawValue < 16 ? "0" + text : text
    }
}
