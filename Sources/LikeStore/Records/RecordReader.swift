// Owns the fast way to read a record file: the compact JSON this version writes, read without
// JSONDecoder. Called by StoredRecord.decode, which falls back to JSONDecoder for anything else
// (other spacing, escapes this reader does not take, members it does not know, damage), so what a
// file decodes to, and the error a damaged one gives, do not depend on which way it was read.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// Reads a record as ``StoredRecord/encoded()`` writes it: one JSON object with no white space,
/// strings in UTF-8 with the usual escapes. A listing decodes its page's records, and on a
/// large binary JSONDecoder's first use of each type costs more than the decoding itself.
///
/// Each member is read straight into the field it fills, its name compared as bytes: a tree of
/// values built first and searched by name after cost a page of records more than the rest of
/// reading it (17 µs of a record's 25 µs at 100,000 photos).
package struct RecordReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The record in `data`, or `nil` where this reader does not take it (JSONDecoder then reads
    /// it, and names any damage).
    package static func record(in data: Data) -> StoredRecord? {
        data.withUnsafeBytes { record(in: $0.bindMemory(to: UInt8.self)) }
    }

    /// The record in `bytes`, read as from a `Data`.
    static func record(in bytes: UnsafeBufferPointer<UInt8>) -> StoredRecord? {
        var reader = RecordReader(bytes)
        guard let record = reader.record(), reader.index == reader.bytes.count else { return nil }
        return record
    }

    // MARK: Records, checked as StoredRecord's Decodable init checks them

    private static let recordNames: [StaticString] = [
        "format", "id", "generation", "likedAt", "image", "userImage", "note", "photo", "albums", "changed", "stamps", "covers",
    ]

    /// The members of a record, each read into its field; `nil` for a record this reader leaves to
    /// JSONDecoder.
    private struct RecordMembers {
        var format: Int?
        var id: String?
        var generation: String?
        var likedAt: Int64?
        var image: StoredRecord.Image?
        var userImage: StoredRecord.Image?
        var note: String?
        var photo: StoredPhoto?
        var albums: [String] = []
        var covers: [String] = []
        var changed: [RecordField]?
        var stamps: RecordStamps?

        /// Reads the member named `recordNames[name]` at the reader; false where it is not what
        /// a record keeps there.
        mutating func read(_ name: Int, from reader: inout RecordReader) -> Bool {
            switch name {
            case 0:
                format = reader.integer()
                return format == 1
            case 1:
                id = reader.string().flatMap(Names.id)
                return id != nil
            case 2:
                generation = reader.string().flatMap { Generation.isValid($0) ? $0 : nil }
                return generation != nil
            case 3:
                likedAt = reader.string().flatMap(Timestamp.parse)
                return likedAt != nil
            case 4:
                image = reader.image()
                return image != nil
            default: return readOptional(name, from: &reader)
            }
        }

        /// The members that may be `null` or left out.
        private mutating func readOptional(_ name: Int, from reader: inout RecordReader) -> Bool {
            switch name {
            case 5: reader.nullable({ $0.image() }).map { userImage = $0 } != nil
            case 6: reader.nullable({ $0.string() }).map { note = $0 } != nil
            case 7: reader.nullable({ $0.photo() }).map { photo = $0 } != nil
            case 8: reader.nullable({ $0.albums() }).map { albums = $0 ?? [] } != nil
            case 9: reader.nullable({ $0.fields() }).map { changed = $0 } != nil
            case 10: reader.nullable({ $0.stamps() }).map { stamps = $0 } != nil
            default: reader.nullable({ $0.albums() }).map { covers = $0 ?? [] } != nil
            }
        }
    }

    private mutating func record() -> StoredRecord? {
        var members = RecordMembers()
        guard self.members(named: Self.recordNames, { reader, name in members.read(name, from: &reader) }), members.format == 1,
            let id = members.id, let generation = members.generation, let likedAt = members.likedAt, let image = members.image
        else { return nil }
        var record = StoredRecord(
            id: id, generation: generation, likedAt: likedAt, image: image, userImage: members.userImage, note: members.note,
            photo: members.photo, albums: members.albums)
        // A cover of an album the photo is not in is left to JSONDecoder, which names it.
        guard members.covers.allSatisfy(record.albums.contains) else { return nil }
        record.covers = Names.canonicalAlbums(members.covers)
        record.changed = members.changed
        record.stamps = members.stamps
        return record
    }

    private static let imageNames: [StaticString] = ["generation", "bytes", "width", "height", "crc32", "orientation", "color", "exif"]

    private mutating func image() -> StoredRecord.Image? {
        var generation: String?
        var numbers: (bytes: Int?, width: Int?, height: Int?) = (nil, nil, nil)
        var crc32: String?
        var facts: (orientation: Int?, color: String?, exif: StoredRecord.StoredExif?)
        let read = members(named: Self.imageNames) { reader, name in
            switch name {
            case 5:
                facts.orientation = reader.integer()
                return facts.orientation != nil
            case 6:
                facts.color = reader.string()
                return facts.color != nil
            case 7:
                facts.exif = reader.exif()
                return facts.exif != nil
            case 0:
                generation = reader.string().flatMap { Generation.isValid($0) ? $0 : nil }
                return generation != nil
            case 1:
                numbers.bytes = reader.integer()
                return numbers.bytes != nil
            case 2:
                numbers.width = reader.integer()
                return numbers.width != nil
            case 3:
                numbers.height = reader.integer()
                return numbers.height != nil
            default:
                crc32 = reader.string()
                return crc32 != nil
            }
        }
        guard read, let generation, let bytes = numbers.bytes, let width = numbers.width, let height = numbers.height, let crc32 else {
            return nil
        }
        var image = StoredRecord.Image(generation: generation, bytes: bytes, width: width, height: height, crc32: crc32)
        (image.orientation, image.color, image.exif) = facts
        return image
    }

    private static let exifNames: [StaticString] = ["make", "model", "lens", "focalLength", "fNumber", "exposureTime", "iso", "takenAt"]

    private mutating func exif() -> StoredRecord.StoredExif? {
        var exif = StoredRecord.StoredExif()
        let read = members(named: Self.exifNames) { reader, name in
            if name == 6 {
                exif.iso = reader.integer()
                return exif.iso != nil
            }
            guard let text = reader.string() else { return false }
            switch name {
            case 0: exif.make = text
            case 1: exif.model = text
            case 2: exif.lens = text
            case 3: exif.focalLength = text
            case 4: exif.fNumber = text
            case 5: exif.exposureTime = text
            default: exif.takenAt = text
            }
            return true
        }
        return read ? exif : nil
    }

    private static let photoNames: [StaticString] = [
        "description", "photographer", "photographerUsername", "color", "sourceURL", "width", "height", "createdAt",
        "photographerURL", "title", "license",
    ]

    private mutating func photo() -> StoredPhoto? {
        var photo = StoredPhoto(
            description: nil, photographer: nil, photographerUsername: nil, color: nil, sourceURL: nil, width: nil, height: nil,
            createdAt: nil, photographerURL: nil, title: nil, license: nil)
        let read = members(named: Self.photoNames) { reader, name in
            if name == 5 || name == 6 {
                guard let number = reader.nullable({ $0.integer() }) else { return false }
                if name == 5 { photo.width = number } else { photo.height = number }
                return true
            }
            guard let text = reader.nullable({ $0.string() }) else { return false }
            switch name {
            case 0: photo.description = text
            case 1: photo.photographer = text
            case 2: photo.photographerUsername = text
            case 3: photo.color = text
            case 4: photo.sourceURL = text
            case 7:
                guard let text else { return true }
                guard let milliseconds = Timestamp.parse(text) else { return false }
                photo.createdAt = Timestamp.date(milliseconds)
            case 8: photo.photographerURL = text
            case 9: photo.title = text
            default: photo.license = text
            }
            return true
        }
        return read ? photo : nil
    }

    /// An array of album names, each as ``Names/album(_:)`` takes it.
    private mutating func albums() -> [String]? {
        guard let names = strings() else { return nil }
        var albums: [String] = []
        for name in names {
            guard let album = Names.album(name) else { return nil }
            albums.append(album)
        }
        return albums
    }

    /// The fields named (names a later version may add passed over, as StoredRecord's Decodable
    /// init does).
    private mutating func fields() -> [RecordField]? {
        strings().map { $0.compactMap(RecordField.init(rawValue:)) }
    }

    /// An object of strings, as ``RecordStamps`` reads it; each part at most once.
    private mutating func stamps() -> RecordStamps? {
        var pairs: [(String, String)] = []
        let read = members { reader, key in
            let part = String(decoding: key, as: UTF8.self)
            guard let stamp = reader.string(), !pairs.contains(where: { $0.0 == part }) else { return false }
            pairs.append((part, stamp))
            return true
        }
        return read ? RecordStamps(read: pairs) : nil
    }

    // MARK: JSON, strictly

    /// An object whose members are all among `names`, each at most once: `read` is handed each
    /// member's place in `names` with the reader at its value, and reads it.
    private mutating func members(named names: [StaticString], _ read: (inout RecordReader, Int) -> Bool) -> Bool {
        var seen: UInt32 = 0
        return members { reader, key in
            guard let name = Self.place(of: key, in: names), seen & (1 << name) == 0 else { return false }
            seen |= 1 << name
            return read(&reader, name)
        }
    }

    /// An object: `read` is handed each member's name, plain ASCII (any other is JSONDecoder's),
    /// with the reader at its value, and reads it.
    private mutating func members(_ read: (inout RecordReader, UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            let start = index + 1
            guard take(UInt8(ascii: "\"")) else { return false }
            while index < bytes.count, bytes[index] >= 0x20, bytes[index] < 0x80, bytes[index] != UInt8(ascii: "\""),
                bytes[index] != UInt8(ascii: "\\")
            {
                index += 1
            }
            let key = UnsafeBufferPointer(rebasing: bytes[start..<index])
            guard take(UInt8(ascii: "\"")), take(UInt8(ascii: ":")), read(&self, key) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    private static func place(of key: UnsafeBufferPointer<UInt8>, in names: [StaticString]) -> Int? {
        for (place, name) in names.enumerated() where name.utf8CodeUnitCount == key.count {
            if UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount).elementsEqual(key) { return place }
        }
        return nil
    }

    /// `.some(nil)` for `null`, `.some(value)` for what `read` reads, `nil` for anything else.
    private mutating func nullable<Wrapped>(_ read: (inout RecordReader) -> Wrapped?) -> Wrapped?? {
        if index < bytes.count, bytes[index] == UInt8(ascii: "n") { return null() ? .some(nil) : nil }
        return read(&self).map { .some($0) }
    }

    private mutating func strings() -> [String]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var values: [String] = []
        if take(UInt8(ascii: "]")) { return values }
        repeat {
            guard let value = string() else { return nil }
            values.append(value)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? values : nil
    }

    /// A string: UTF-8, no control byte, and the escapes `\"`, `\\`, `\/`, `\b`, `\f`, `\n`,
    /// `\r`, `\t`, and `\u` with four hex digits outside the surrogates.
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        // Most strings are ASCII with nothing escaped: made from their bytes at once.
        let start = index
        while index < bytes.count, bytes[index] >= 0x20, bytes[index] < 0x80, bytes[index] != UInt8(ascii: "\""),
            bytes[index] != UInt8(ascii: "\\")
        {
            index += 1
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            defer { index += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }
        index = start
        var decoded: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return decoded.withUnsafeBufferPointer(String.validatingUTF8)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escaped)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16),
                        let scalar = Unicode.Scalar(code)
                    else { return nil }
                    index += 4
                    decoded += Array(String(Character(scalar)).utf8)
                default: return nil
                }
            case 0..<0x20:
                return nil
            default:
                decoded.append(byte)
            }
        }
        return nil
    }

    /// A whole number as JSON writes it: no leading zero, no fraction or exponent.
    private mutating func integer() -> Int? {
        guard index < bytes.count else { return nil }
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digits = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        guard index > digits, index - digits == 1 || bytes[digits] != UInt8(ascii: "0"), index - digits <= 18 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") { return nil }
        var value = 0
        for digit in bytes[digits..<index] { value = value * 10 + Int(digit - UInt8(ascii: "0")) }
        return bytes[start] == UInt8(ascii: "-") ? -value : value
    }

    /// `null`, taken byte by byte (a comparison with a `String`'s bytes went through the
    /// standard library's generic sequence comparison).
    private mutating func null() -> Bool {
        guard index + 4 <= bytes.count, bytes[index + 1] == UInt8(ascii: "u"), bytes[index + 2] == UInt8(ascii: "l"),
            bytes[index + 3] == UInt8(ascii: "l")
        else { return false }
        index += 4
        return true
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }
}
