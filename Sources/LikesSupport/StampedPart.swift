// Owns the names of the parts of a liked photo that carry their own stamp (the period's start,
// each field, each album's membership and chosen cover): the vocabulary a store's records and the sync merge
// share. It sits beneath both, from when neither depended on the other; LikeStore depends on
// LikeSync now, which could hold it as well. Called by LikeStore's RecordStamps and LikeSync.

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
        name(ofPart: part, prefix: "album:")
    }

    /// The part of an album's chosen cover: `cover:` and the name's UTF-8 bytes in hex, stamped
    /// by the change that last chose the photo as that album's cover or took the choice back.
    /// The photo is the album's chosen cover while it is in the album, chosen, and chosen no
    /// earlier than it was last put in it (see ``isChosenCover(album:cover:)``).
    package static func cover(_ name: String) -> String {
        "cover:" + Hex.string(name.utf8)
    }

    /// The album whose cover a part names, or `nil` for another part.
    package static func coverName(ofPart part: String) -> String? {
        name(ofPart: part, prefix: "cover:")
    }

    /// Whether a choice of cover made at `cover` (a stamp's milliseconds) still holds for a photo
    /// whose membership of the album was last decided at `album`: a photo taken out of the album
    /// and put back after the choice is no longer its cover, wherever those changes were made.
    /// Compared by milliseconds, the clock every device's stamps share (a rename stamps both at
    /// once).
    package static func isChosenCover(album: Int64?, cover: Int64?) -> Bool {
        guard let cover else { return false }
        return cover >= (album ?? cover)
    }

    /// The milliseconds a stamp (`MILLIS` or `MILLIS.COUNTER.DEVICE`) starts with; 0 when none.
    package static func milliseconds(of stamp: String) -> Int64 {
        Int64(stamp.prefix { $0 != "." }) ?? 0
    }

    private static func name(ofPart part: String, prefix: String) -> String? {
        guard part.hasPrefix(prefix) else { return nil }
        let digits = Array(part.utf8.dropFirst(prefix.utf8.count))
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
