// The one definition of the JSON shapes of a record, its images and its metadata, and a writer
// of JSON by hand. LikeKit's Codable encoding of those types goes through the same values, and
// the command line (in this package) renders them itself: Foundation's JSONEncoder took half of
// the instructions of `likes list --limit 20 --json` on a store of 100,000 (callgrind: 9.1 M of
// 17.7 M), through its generic Codable machinery.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// A JSON document: what ``LikeRecord``'s `encode(to:)` encodes and the command line prints.
package indirect enum JSONValue: Encodable, Sendable {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case int(Int)
    case bool(Bool)
    case null

    package static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    package static func int(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
    package static func date(_ value: Date?) -> JSONValue { value.map { .string(LikeTimestamp.string(from: $0)) } ?? .null }
    package static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }

    /// Encodes the document into any `Encoder`: members in their order, `null` as `null`.
    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let members):
            var container = encoder.container(keyedBy: MemberName.self)
            for (name, value) in members { try container.encode(value, forKey: MemberName(name)) }
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        }
    }

    private struct MemberName: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Pretty: two-space indents and sorted keys, for `--json`; compact: one line, for `watch`.
    package func rendered(pretty: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(into: &out, pretty: pretty, depth: 0)
        return String(decoding: out, as: UTF8.self)
    }

    private func write(into out: inout [UInt8], pretty: Bool, depth: Int) {
        func newline(_ depth: Int) {
            guard pretty else { return }
            out.append(0x0A)
            out.append(contentsOf: repeatElement(0x20, count: 2 * depth))
        }
        switch self {
        case .null: out += "null".utf8
        case .bool(let value): out += (value ? "true" : "false").utf8
        case .int(let value): out += String(value).utf8
        case .string(let value): Self.quote(value, into: &out)
        case .array(let values):
            guard !values.isEmpty else {
                out += "[]".utf8
                return
            }
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                value.write(into: &out, pretty: pretty, depth: depth + 1)
            }
            newline(depth)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else {
                out += "{}".utf8
                return
            }
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.0 < $1.0 }).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                Self.quote(member.0, into: &out)
                out += (pretty ? " : " : ":").utf8
                member.1.write(into: &out, pretty: pretty, depth: depth + 1)
            }
            newline(depth)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string: `"` and `\` escaped, control characters (C0, DEL, C1) and the line
    /// separators U+2028/U+2029 as `\u` escapes, everything else as its UTF-8 bytes.
    private static func quote(_ text: String, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        func escape(_ value: UInt32) {
            out += "\\u".utf8
            for shift in [12, 8, 4, 0] { out.append(hex[Int((value >> UInt32(shift)) & 0xF)]) }
        }
        out.append(UInt8(ascii: "\""))
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            switch byte {
            case UInt8(ascii: "\""): out += "\\\"".utf8
            case UInt8(ascii: "\\"): out += "\\\\".utf8
            case 0x0A: out += "\\n".utf8
            case 0x0D: out += "\\r".utf8
            case 0x09: out += "\\t".utf8
            case 0x00..<0x20, 0x7F: escape(UInt32(byte))
            case 0xC2 where (0x80...0x9F).contains(bytes.first ?? 0):
                escape(UInt32(bytes.removeFirst()))
            case 0xE2
            where bytes.count >= 2 && bytes[bytes.startIndex] == 0x80 && (bytes[bytes.startIndex + 1] == 0xA8 || bytes[bytes.startIndex + 1] == 0xA9):
                bytes.removeFirst()
                escape(0x2000 + UInt32(bytes.removeFirst()) - 0x80)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension LikeRecord {
    /// The record's JSON shape (see ``LikeRecord``), `file` an absolute path.
    package var json: JSONValue {
        .object([
            ("id", .string(id.rawValue)), ("likedAt", .date(likedAt)), ("image", image.json), ("userImage", userImage?.json ?? .null),
            ("thumbnail", thumbnail?.json ?? .null),
            ("note", .string(note)), ("photo", photo?.json ?? .null), ("albums", .strings(albums.map(\.rawValue))),
        ])
    }
}

extension StoredImage {
    /// `{"file", "bytes", "width", "height"}`, `file` an absolute path.
    package var json: JSONValue {
        .object([("file", .string(file.path)), ("bytes", .int(byteCount)), ("width", .int(width)), ("height", .int(height))])
    }
}

extension PhotoMetadata {
    /// Every property, `nil` ones as `null` (the source's attribution only when set), dates as
    /// ISO 8601 with milliseconds.
    package var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("description", .string(description)), ("photographer", .string(photographer)),
            ("photographerUsername", .string(photographerUsername)), ("color", .string(color)), ("sourceURL", .string(sourceURL)),
            ("width", .int(width)), ("height", .int(height)), ("createdAt", .date(createdAt)),
        ]
        if let photographerURL { members.append(("photographerURL", .string(photographerURL))) }
        if let title { members.append(("title", .string(title))) }
        if let license { members.append(("license", .string(license))) }
        return .object(members)
    }
}

extension Optional where Wrapped == LikeRecord {
    package var json: JSONValue { map(\.json) ?? .null }
}
