// Owns the fast way to read a record file: the compact JSON this version writes, read without
// JSONDecoder. Called by StoredRecord.decode, which falls back to JSONDecoder for anything else
// (other spacing, escapes this reader does not take, damage), so what a file decodes to, and
// the error a damaged one gives, do not depend on which way it was read.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// Reads a record as ``StoredRecord/encoded()`` writes it: one JSON object with no white space,
/// strings in UTF-8 with the usual escapes. A listing decodes its page's records, and on a
/// large binary JSONDecoder's first use of each type costs more than the decoding itself.
struct RecordReader {
    /// A JSON value, as far as records need one. An object's members stay in an array: a
    /// record's objects have ten members at most, and a dictionary's first use in a process costs
    /// the runtime a search of every conformance of the binary (for `String: Hashable`). Not
    /// `indirect`: the arrays already hold their elements apart, and a box for every value cost a
    /// page of records an allocation per string.
    private enum Value {
        case null
        case int(Int)
        case string(String)
        case array([Value])
        case object(Members)
    }

    /// An object's members in the order read; each key at most once.
    private struct Members {
        var pairs: [(key: String, value: Value)] = []

        subscript(_ key: String) -> Value? {
            pairs.first { $0.key == key }?.value
        }

        /// Adds a member; false when the object has that key already.
        mutating func add(_ key: String, _ value: Value) -> Bool {
            guard self[key] == nil else { return false }
            pairs.append((key, value))
            return true
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The record in `data`, or `nil` where this reader does not take it (JSONDecoder then reads
    /// it, and names any damage).
    static func record(in data: Data) -> StoredRecord? {
        data.withUnsafeBytes { raw in
            var reader = RecordReader(raw.bindMemory(to: UInt8.self))
            guard case .object(let members)? = reader.value(), reader.index == reader.bytes.count else { return nil }
            return Self.record(members)
        }
    }

    // MARK: Records from values, checked as StoredRecord's Decodable init checks them

    private static func record(_ members: Members) -> StoredRecord? {
        guard case .int(1)? = members["format"], case .string(let idText)? = members["id"], let id = Names.id(idText),
            case .string(let generation)? = members["generation"], case .string(let likedAtText)? = members["likedAt"],
            let likedAt = Timestamp.parse(likedAtText), case .object(let imageMembers)? = members["image"], let image = Self.image(imageMembers),
            let userImage = optional(members["userImage"], { value in if case .object(let members) = value { Self.image(members) } else { nil } }),
            let note = optional(members["note"], { value in if case .string(let text) = value { text } else { nil } }),
            let photo = optional(members["photo"], { value in if case .object(let members) = value { Self.photo(members) } else { nil } }),
            let albums = Self.albums(members["albums"]), let changed = Self.changed(members["changed"]),
            let stamps = optional(members["stamps"], Self.stamps)
        else { return nil }
        guard ([generation, image.generation] + (userImage.map { [$0.generation] } ?? [])).allSatisfy(Generation.isValid) else { return nil }
        var record = StoredRecord(
            id: id, generation: generation, likedAt: likedAt, image: image, userImage: userImage, note: note, photo: photo, albums: albums)
        record.changed = changed
        record.stamps = stamps
        return record
    }

    /// An object of strings, as ``RecordStamps`` reads it; `nil` for anything else.
    private static func stamps(_ value: Value) -> RecordStamps? {
        guard case .object(let members) = value else { return nil }
        var values = [String: String](minimumCapacity: members.pairs.count)
        for (key, value) in members.pairs {
            guard case .string(let text) = value else { return nil }
            values[key] = text
        }
        return RecordStamps(read: values)
    }

    /// `.some(nil)` when absent, the fields named (unknown names passed over, as StoredRecord's
    /// Decodable init does), `nil` for anything but an array of strings.
    private static func changed(_ value: Value?) -> [RecordField]?? {
        switch value {
        case nil, .null?: return .some(nil)
        case .array(let values)?:
            var fields: [RecordField] = []
            for value in values {
                guard case .string(let name) = value else { return nil }
                if let field = RecordField(rawValue: name) { fields.append(field) }
            }
            return .some(fields)
        default: return nil
        }
    }

    /// `.some(nil)` for a member absent or null, `.some(value)` for one `make` takes, and `nil`
    /// (this reader does not take the record) for any other.
    private static func optional<Wrapped>(_ value: Value?, _ make: (Value) -> Wrapped?) -> Wrapped?? {
        switch value {
        case nil, .null?: return .some(nil)
        case let value?: return make(value).map { .some($0) }
        }
    }

    private static func image(_ members: Members) -> StoredRecord.Image? {
        guard case .string(let generation)? = members["generation"], case .int(let bytes)? = members["bytes"],
            case .int(let width)? = members["width"], case .int(let height)? = members["height"], case .string(let crc32)? = members["crc32"]
        else { return nil }
        return StoredRecord.Image(generation: generation, bytes: bytes, width: width, height: height, crc32: crc32)
    }

    private static func photo(_ members: Members) -> StoredPhoto? {
        func text(_ key: String) -> String?? { optional(members[key]) { value in if case .string(let text) = value { text } else { nil } } }
        func number(_ key: String) -> Int?? { optional(members[key]) { value in if case .int(let number) = value { number } else { nil } } }
        guard let description = text("description"), let photographer = text("photographer"),
            let username = text("photographerUsername"), let color = text("color"), let sourceURL = text("sourceURL"),
            let width = number("width"), let height = number("height"), let createdAtText = text("createdAt"),
            let photographerURL = text("photographerURL"), let title = text("title"), let license = text("license")
        else { return nil }
        var createdAt: Date?
        if let createdAtText {
            guard let milliseconds = Timestamp.parse(createdAtText) else { return nil }
            createdAt = Timestamp.date(milliseconds)
        }
        return StoredPhoto(
            description: description, photographer: photographer, photographerUsername: username, color: color, sourceURL: sourceURL,
            width: width, height: height, createdAt: createdAt, photographerURL: photographerURL, title: title, license: license)
    }

    private static func albums(_ value: Value?) -> [String]? {
        switch value {
        case nil, .null?: return []
        case .array(let values)?:
            var albums: [String] = []
            for value in values {
                guard case .string(let name) = value, let album = Names.album(name) else { return nil }
                albums.append(album)
            }
            return albums
        default: return nil
        }
    }

    // MARK: JSON, strictly

    private mutating func value() -> Value? {
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(Value.string)
        case UInt8(ascii: "n"): return null() ? .null : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return integer().map(Value.int)
        default: return nil  // true, false and anything else: not in a record
        }
    }

    private mutating func object() -> Value? {
        index += 1
        var members = Members()
        if take(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")), let value = value(), members.add(key, value) else {
                return nil  // a key twice: JSONDecoder decides which counts
            }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}")) ? .object(members) : nil
    }

    private mutating func array() -> Value? {
        index += 1
        var values: [Value] = []
        if take(UInt8(ascii: "]")) { return .array(values) }
        repeat {
            guard let value = value() else { return nil }
            values.append(value)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? .array(values) : nil
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
