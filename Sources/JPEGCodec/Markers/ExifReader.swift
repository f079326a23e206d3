// What a camera wrote in a JPEG's Exif segment (APP1): how its pixels are turned for display,
// and the facts a person asks of a photo (camera, lens, exposure, when it was taken). Read from
// untrusted bytes: every offset is checked against the segment, only IFD0 and the Exif IFD it
// points to are visited, and an entry that makes no sense is passed over.

/// The facts of a photo that its camera wrote in Exif; each `nil` when the file does not say.
///
/// The one description of them: LikeKit shows them as this type too (its `CameraDetails`),
/// and a store's record keeps them as text (its `StoredExif`). Encodes as `{"make", "model",
/// "lens", "focalLength", "fNumber", "exposureTime", "iso", "takenAt"}`, those without a value
/// left out.
public struct CameraFacts: Sendable, Hashable, Codable {
    /// The camera's maker (`Make`).
    public var make: String?
    /// The camera's model (`Model`).
    public var model: String?
    /// The lens's model (`LensModel`).
    public var lens: String?
    /// The focal length in millimetres (`FocalLength`).
    public var focalLength: Double?
    /// The aperture's f-number (`FNumber`).
    public var fNumber: Double?
    /// The exposure time in seconds as a photographer writes it: `1/250`, `0.5`, `2`.
    public var exposureTime: String?
    /// The sensitivity (`PhotographicSensitivity`, once `ISOSpeedRatings`).
    public var iso: Int?
    /// When the photo was taken (`DateTimeOriginal`), ISO 8601: `2026-05-03T11:00:28`, with the
    /// offset when the file gives one (`OffsetTimeOriginal`): `2026-05-03T11:00:28+02:00`.
    public var takenAt: String?

    /// Facts of the given values.
    public init(
        make: String? = nil, model: String? = nil, lens: String? = nil, focalLength: Double? = nil, fNumber: Double? = nil,
        exposureTime: String? = nil, iso: Int? = nil, takenAt: String? = nil
    ) {
        self.make = make
        self.model = model
        self.lens = lens
        self.focalLength = focalLength
        self.fNumber = fNumber
        self.exposureTime = exposureTime
        self.iso = iso
        self.takenAt = takenAt
    }

    /// Whether the file said nothing of these.
    public var isEmpty: Bool { self == CameraFacts() }
}

/// The numbers of the Exif and TIFF tags read here (as Exif 2.32, CIPA DC-008, numbers them):
/// IFD0's first, then the Exif IFD's.
enum ExifTag {
    static let make = 0x010F
    static let model = 0x0110
    static let orientation = 0x0112
    /// IFD0's pointer to the Exif IFD.
    static let exifDirectory = 0x8769
    static let exposureTime = 0x829A
    static let fNumber = 0x829D
    /// Once `ISOSpeedRatings`.
    static let photographicSensitivity = 0x8827
    static let dateTimeOriginal = 0x9003
    static let offsetTimeOriginal = 0x9011
    static let focalLength = 0x920A
    static let lensModel = 0xA434
}

/// What an Exif block says: the orientation (1 when it gives none or one outside 1–8) and the
/// camera's facts.
public struct ExifFacts: Sendable, Hashable {
    /// How the stored pixels are turned and mirrored for display, 1–8 (TIFF's `Orientation`).
    public var orientation: Int = 1
    /// The camera's facts; empty when the block has none.
    public var camera = CameraFacts()

    /// Reads the payload of an APP1 segment: `Exif\0\0` then a TIFF header and its IFDs. Bytes
    /// that are no Exif, or whatever in them is malformed, give what could be read safely.
    public init(app1 payload: some Collection<UInt8>) {
        let bytes = Array(payload)
        guard bytes.count > 14, bytes.starts(with: ExifFacts.signature) else { return }
        var reader = TIFFReader(bytes: bytes, base: ExifFacts.signature.count)
        guard let first = reader.firstDirectory() else { return }
        var exifDirectory: Int?
        reader.entries(at: first) { entry in
            switch entry.tag {
            case ExifTag.orientation:
                if let value = reader.integer(entry), (1...8).contains(value) { orientation = value }
            case ExifTag.make: camera.make = reader.text(entry)
            case ExifTag.model: camera.model = reader.text(entry)
            case ExifTag.exifDirectory: exifDirectory = reader.integer(entry)
            default: break
            }
        }
        var taken: String?
        var offset: String?
        // Only the Exif IFD that IFD0 names, and never IFD0 again: no link is followed twice.
        if let exifDirectory, exifDirectory != first {
            reader.entries(at: exifDirectory) { entry in
                switch entry.tag {
                case ExifTag.exposureTime: camera.exposureTime = reader.rational(entry).flatMap(ExifFacts.exposureText)
                case ExifTag.fNumber: camera.fNumber = reader.rational(entry).flatMap(ExifFacts.decimal)
                case ExifTag.photographicSensitivity: camera.iso = reader.integer(entry).flatMap { $0 > 0 ? $0 : nil }
                case ExifTag.dateTimeOriginal: taken = reader.text(entry)
                case ExifTag.offsetTimeOriginal: offset = reader.text(entry)
                case ExifTag.focalLength: camera.focalLength = reader.rational(entry).flatMap(ExifFacts.decimal)
                case ExifTag.lensModel: camera.lens = reader.text(entry)
                default: break
                }
            }
        }
        camera.takenAt = taken.flatMap { ExifFacts.isoDate($0, offset: offset) }
    }

    /// An Exif block with nothing in it.
    public init() {}

    /// What an APP1 payload that holds Exif starts with.
    package static let signature: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]

    /// Exif's `YYYY:MM:DD HH:MM:SS` (and `±HH:MM`) as ISO 8601; `nil` for anything else (a date
    /// of spaces or zeros, as cameras without a clock write).
    static func isoDate(_ text: String, offset: String?) -> String? {
        let digits = Array(text.utf8)
        guard digits.count >= 19 else { return nil }
        let shape = Array("dddd:dd:dd dd:dd:dd".utf8)
        for (byte, expected) in zip(digits, shape) {
            if expected == UInt8(ascii: "d") {
                guard (0x30...0x39).contains(byte) else { return nil }
            } else if byte != expected, !(expected == UInt8(ascii: " ") && byte == UInt8(ascii: "T")) {
                return nil
            }
        }
        func number(_ range: Range<Int>) -> Int { digits[range].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        let month = number(5..<7)
        let day = number(8..<10)
        guard number(0..<4) > 0, (1...12).contains(month), (1...31).contains(day), number(11..<13) < 24, number(14..<16) < 60,
            number(17..<19) < 61
        else { return nil }
        let date = String(decoding: digits[0..<4] + [0x2D] + digits[5..<7] + [0x2D] + digits[8..<10], as: UTF8.self)
        var result = date + "T" + String(decoding: digits[11..<19], as: UTF8.self)
        if let offset, let zone = zoneText(offset) { result += zone }
        return result
    }

    /// `+02:00`, `-05:30` or `Z` as written; `nil` for anything else.
    private static func zoneText(_ text: String) -> String? {
        let bytes = Array(text.utf8.prefix(6))
        guard bytes.count == 6, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"), bytes[3] == UInt8(ascii: ":"),
            [1, 2, 4, 5].allSatisfy({ (0x30...0x39).contains(bytes[$0]) })
        else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A positive rational as a number, rounded to two decimals; `nil` for a zero denominator.
    static func decimal(_ value: (numerator: Int, denominator: Int)) -> Double? {
        guard value.denominator > 0, value.numerator > 0 else { return nil }
        return (Double(value.numerator) / Double(value.denominator) * 100).rounded() / 100
    }

    /// An exposure time as photographers write it: `1/250` below a second, else seconds.
    static func exposureText(_ value: (numerator: Int, denominator: Int)) -> String? {
        guard value.denominator > 0, value.numerator > 0 else { return nil }
        if value.numerator >= value.denominator {
            let seconds = Double(value.numerator) / Double(value.denominator)
            return seconds == seconds.rounded() ? String(Int(seconds)) : String((seconds * 10).rounded() / 10)
        }
        return "1/" + String(Int((Double(value.denominator) / Double(value.numerator)).rounded()))
    }
}

/// Reads a TIFF structure (an Exif block after its signature) with every offset checked: an
/// entry or value outside the bytes is passed over, never read.
struct TIFFReader {
    /// One entry of an IFD: its tag, type, count, and where its value is (inline or not).
    struct Entry {
        let tag: Int
        let type: Int
        let count: Int
        let valueOffset: Int
    }

    let bytes: [UInt8]
    /// Where the TIFF header starts: every offset in the block counts from here.
    let base: Int
    private var littleEndian = false

    /// The most entries an IFD is read for: a camera writes a few dozen.
    static let maximumEntries = 512

    init(bytes: [UInt8], base: Int) {
        self.bytes = bytes
        self.base = base
    }

    /// Reads the header's byte order and returns where IFD0 is; `nil` for no TIFF header.
    mutating func firstDirectory() -> Int? {
        guard bytes.count >= base + 8 else { return nil }
        switch (bytes[base], bytes[base + 1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        guard number(at: base + 2, size: 2) == 42, let offset = number(at: base + 4, size: 4) else { return nil }
        return offset
    }

    /// Calls `body` with each entry of the IFD at `offset` (from the TIFF header) that lies
    /// within the bytes, at most ``maximumEntries``.
    func entries(at offset: Int, _ body: (Entry) -> Void) {
        let start = base + offset
        guard offset >= 8, let count = number(at: start, size: 2) else { return }
        for index in 0..<min(count, Self.maximumEntries) {
            let place = start + 2 + 12 * index
            guard let tag = number(at: place, size: 2), let type = number(at: place + 2, size: 2),
                let count = number(at: place + 4, size: 4)
            else { return }
            body(Entry(tag: tag, type: type, count: count, valueOffset: place + 8))
        }
    }

    /// The size in bytes of one value of a TIFF type; `nil` for a type this reader skips.
    private static func size(of type: Int) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9: 4
        case 5, 10: 8
        default: nil
        }
    }

    /// Where an entry's values start, when all of them lie within the bytes.
    private func values(of entry: Entry) -> Int? {
        guard let size = Self.size(of: entry.type), entry.count > 0, entry.count <= bytes.count else { return nil }
        let total = size * entry.count
        if total <= 4 { return entry.valueOffset + total <= bytes.count ? entry.valueOffset : nil }
        guard let offset = number(at: entry.valueOffset, size: 4), offset >= 8, base + offset + total <= bytes.count else { return nil }
        return base + offset
    }

    /// The first value of a SHORT or LONG entry.
    func integer(_ entry: Entry) -> Int? {
        guard entry.type == 3 || entry.type == 4, let start = values(of: entry) else { return nil }
        return number(at: start, size: entry.type == 3 ? 2 : 4)
    }

    /// The first value of a RATIONAL entry.
    func rational(_ entry: Entry) -> (numerator: Int, denominator: Int)? {
        guard entry.type == 5, let start = values(of: entry), let numerator = number(at: start, size: 4),
            let denominator = number(at: start + 4, size: 4)
        else { return nil }
        return (numerator, denominator)
    }

    /// An ASCII entry up to its first NUL, white space trimmed; `nil` when empty or not UTF-8.
    func text(_ entry: Entry) -> String? {
        guard entry.type == 2 || entry.type == 7, let start = values(of: entry) else { return nil }
        var characters = bytes[start..<(start + entry.count)].prefix { $0 != 0 }
        while let last = characters.last, last == 0x20 { characters.removeLast() }
        while let first = characters.first, first == 0x20 { characters.removeFirst() }
        guard !characters.isEmpty, characters.count <= 256, characters.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else { return nil }
        let text = String(decoding: characters, as: UTF8.self)
        return text.utf8.elementsEqual(characters) ? text : nil
    }

    /// The unsigned number of `size` bytes at `offset` in the block's byte order; `nil` when
    /// they are not all within the bytes.
    func number(at offset: Int, size: Int) -> Int? {
        guard offset >= 0, offset <= bytes.count - size else { return nil }
        var value = 0
        for index in 0..<size {
            let byte = Int(bytes[offset + (littleEndian ? size - 1 - index : index)])
            value = value << 8 | byte
        }
        return value
    }
}
