// Owns the bytes of a record file as this version writes them: the compact JSON that
// RecordReader reads back, written straight from the record's fields. Called by
// StoredRecord.encoded, for every change a writer commits.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// Writes a record file's JSON: byte for byte what `JSONEncoder` gives for ``StoredRecord``
/// with sorted keys and slashes left as they are (a test compares the two over records with
/// every kind of member and every character that needs an escape).
///
/// `JSONEncoder` made a tree of boxed values and sorted each object's keys on every write:
/// 7 % of a like's time in the process. Here the members are written in the order sorting
/// gives, which is fixed: byte order of their names, as `JSONEncoder` sorts.
package struct RecordWriter {
    private var out: [UInt8] = []

    /// The record's file content.
    package static func encode(_ record: StoredRecord) -> Data {
        var writer = RecordWriter()
        writer.out.reserveCapacity(1024)
        writer.write(record)
        return Data(writer.out)
    }

    private mutating func write(_ record: StoredRecord) {
        out.append(UInt8(ascii: "{"))
        if !record.albums.isEmpty {
            name("albums", first: true)
            strings(record.albums)
        }
        if let changed = record.changed {
            name("changed", first: out.count == 1)
            strings(changed.map(\.rawValue))
        }
        if !record.covers.isEmpty {
            name("covers", first: out.count == 1)
            strings(record.covers)
        }
        name("format", first: out.count == 1)
        number(record.format)
        name("generation")
        string(record.generation)
        name("id")
        string(record.id)
        name("image")
        image(record.image)
        name("likedAt")
        string(Timestamp.string(record.likedAt))
        name("note")
        optionalString(record.note)
        name("photo")
        if let photo = record.photo { value(photo.json) } else { null() }
        if let stamps = record.stamps, !stamps.values.isEmpty {
            name("stamps")
            out.append(UInt8(ascii: "{"))
            for (index, part) in stamps.written.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
                name(part.key, first: index == 0)
                string(part.value)
            }
            out.append(UInt8(ascii: "}"))
        }
        name("userImage")
        if let userImage = record.userImage { image(userImage) } else { null() }
        out.append(UInt8(ascii: "}"))
    }

    private mutating func image(_ image: StoredRecord.Image) {
        out.append(UInt8(ascii: "{"))
        name("bytes", first: true)
        number(image.bytes)
        if let color = image.color {
            name("color")
            string(color)
        }
        name("crc32")
        string(image.crc32)
        if let exif = image.exif {
            name("exif")
            value(exif.json)
        }
        name("generation")
        string(image.generation)
        name("height")
        number(image.height)
        if let orientation = image.orientation {
            name("orientation")
            number(orientation)
        }
        name("width")
        number(image.width)
        out.append(UInt8(ascii: "}"))
    }

    /// A member given as a ``JSONValue`` (the photo's, whose shape ``StoredPhoto/json`` alone
    /// defines), each object's members in byte order of their names, as `JSONEncoder` sorts them.
    private mutating func value(_ value: JSONValue) {
        switch value {
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }).enumerated() {
                name(member.0, first: index == 0)
                self.value(member.1)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                self.value(element)
            }
            out.append(UInt8(ascii: "]"))
        case .string(let text): string(text)
        case .int(let number): self.number(number)
        case .double(let number): out += String(number).utf8
        case .bool(let flag): out += (flag ? "true" : "false").utf8
        case .null: null()
        }
    }

    // MARK: Values

    private mutating func name(_ text: String, first: Bool = false) {
        if !first { out.append(UInt8(ascii: ",")) }
        string(text)
        out.append(UInt8(ascii: ":"))
    }

    private mutating func null() {
        out += "null".utf8
    }

    private mutating func number(_ value: Int) {
        out += String(value).utf8
    }

    private mutating func optionalString(_ text: String?) {
        if let text { string(text) } else { null() }
    }

    private mutating func strings(_ texts: [String]) {
        out.append(UInt8(ascii: "["))
        for (index, text) in texts.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            string(text)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// `text` quoted as `JSONEncoder` quotes it: `"` and `\` escaped, the control characters
    /// below U+0020 as `\b`, `\t`, `\n`, `\f`, `\r` or `\u00XX` (lower-case hex digits), every
    /// other byte of its UTF-8 as it is; runs with nothing to escape copied whole.
    private mutating func string(_ text: String) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                escape(byte)
                start = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        out.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
        case 0x08: out.append(UInt8(ascii: "b"))
        case 0x09: out.append(UInt8(ascii: "t"))
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0C: out.append(UInt8(ascii: "f"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        default:
            let digits: StaticString = "0123456789abcdef"
            out += "u00".utf8
            out.append(digits.utf8Start[Int(byte >> 4)])
            out.append(digits.utf8Start[Int(byte & 0x0F)])
        }
    }
}
