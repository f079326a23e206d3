// A JSON document as values, read and written: written by hand, since Foundation's JSONEncoder
// took half of the instructions of `likes list --limit 20 --json` on a store of 100,000
// (callgrind: 9.1 M of 17.7 M) through its generic Codable machinery, and read through any
// Decoder for the answers whose shapes vary (Flickr's, a file that may hold one photo or many).

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// A JSON document: what a record's `encode(to:)` encodes and the command line prints, and what
/// an answer of any shape decodes as. Not `indirect`: an object's members and an array's values
/// are held apart by their arrays already, and a box for every value cost each printed record an
/// allocation per member.
package enum JSONValue: Codable, Sendable {
    /// Members in their order (written sorted by name).
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case int(Int)
    /// A number that is not an integer, as read.
    case double(Double)
    case bool(Bool)
    case null

    package static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    package static func int(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
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
        case .double(let value):
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

    /// Reads any JSON document: members in the order the decoder gives them.
    package init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: MemberName.self) {
            self = .object(try container.allKeys.map { key in (key.stringValue, try container.decode(JSONValue.self, forKey: key)) })
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !container.isAtEnd { values.append(try container.decode(JSONValue.self)) }
            self = .array(values)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// An object's members by name (the last of a name given twice); `nil` for anything else.
    package var object: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return Dictionary(members, uniquingKeysWith: { $1 })
    }

    /// An array's objects, leaving out what is not one; `nil` for anything but an array.
    package var objects: [[String: JSONValue]]? {
        guard case .array(let values) = self else { return nil }
        return values.compactMap(\.object)
    }

    /// An object's member `name`; `nil` for anything else.
    package subscript(_ name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == name }?.1
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

    /// As ``rendered(pretty:)``, as its UTF-8 bytes and a line feed: what the command line
    /// writes, with no `String` made of a page of records and checked back to bytes.
    package func renderedLine(pretty: Bool) -> [UInt8] {
        var out: [UInt8] = []
        // About a kilobyte a value of an array (a record takes less), so that a page is written
        // into one buffer rather than into one twice as large after another.
        if case .array(let values) = self { out.reserveCapacity(max(1024, 1024 * values.count)) } else { out.reserveCapacity(1024) }
        write(into: &out, pretty: pretty, depth: 0)
        out.append(0x0A)
        return out
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
        case .double(let value): out += String(value).utf8
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
            // Sorted by their places, so that no member is copied (and retained) to sort them.
            let order = members.indices.sorted { members[$0].0 < members[$1].0 }
            for (index, place) in order.enumerated() {
                let member = members[place]
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
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Runs of bytes that stand for themselves are copied whole.
            var start = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                let length = escapedLength(bytes, at: index)
                guard length > 0 else {
                    index += 1  // the start of a character written as itself
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                escape(bytes, at: index, length: length, into: &out)
                index += length
                start = index
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// How many bytes at `index` make one character that is written escaped; 0 when the byte
    /// there is written as itself.
    private static func escapedLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        switch bytes[index] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x00..<0x20, 0x7F: return 1
        case 0xC2 where index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1]): return 2
        case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
            return 3
        default: return 0
        }
    }

    /// Writes the character of `length` bytes at `index` escaped.
    private static func escape(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, length: Int, into out: inout [UInt8]) {
        let scalar: UInt32
        switch length {
        case 1:
            switch bytes[index] {
            case UInt8(ascii: "\""): return out += "\\\"".utf8
            case UInt8(ascii: "\\"): return out += "\\\\".utf8
            case 0x0A: return out += "\\n".utf8
            case 0x0D: return out += "\\r".utf8
            case 0x09: return out += "\\t".utf8
            default: scalar = UInt32(bytes[index])
            }
        case 2: scalar = UInt32(bytes[index + 1])  // C1 controls: U+0080 to U+009F
        default: scalar = 0x2000 + UInt32(bytes[index + 2]) - 0x80  // U+2028, U+2029
        }
        out += "\\u".utf8
        for shift: UInt32 in [12, 8, 4, 0] {
            let digit = UInt8((scalar >> shift) & 0xF)
            out.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
        }
    }
}
