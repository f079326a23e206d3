// Owns the names of the parts of a liked photo that carry their own stamp (the period's start,
// each field, each album's membership): the vocabulary a store's records and the sync merge
// share, so that neither depends on the other. Called by LikeStore's RecordStamps and LikeSync.

/// The parts of a liked photo that each change stamps.
package enum StampedPart {
    /// The start of the photo's liked period.
    package static let liked = "liked"

    /// The fields, by the names records and sync changes give them (a store's `RecordField`).
    package static let fields = ["image", "userImage", "note", "albums", "photo"]

    /// Every part: the period's start, then each field.
    package static let all = [liked] + fields

    /// The part of one album's membership: `album:` and the name's UTF-8 bytes in hex, stamped
    /// by the change that last put the photo in that album or took it out.
    package static func album(_ name: String) -> String {
        "album:" + Hex.string(name.utf8)
    }

    /// The album a part names, or `nil` for another part.
    package static func albumName(ofPart part: String) -> String? {
        guard part.hasPrefix("album:") else { return nil }
        let digits = Array(part.utf8.dropFirst(6))
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        default: nil
        }
    }
}
