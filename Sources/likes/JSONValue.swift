// The command line's JSON output, written by hand.
//
// Foundation's JSONEncoder took half of the instructions of `likes list --limit 20 --json` on a
// store of 100,000 (callgrind: 9.1 M of 17.7 M), through its generic Codable machinery.

import Foundation
import LikeKit

/// A JSON document to print.
indirect enum JSONValue {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case int(Int)
    case bool(Bool)
    case null

    static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    static func int(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
    static func date(_ value: Date?) -> JSONValue { value.map { .string(LikeTimestamp.string(from: $0)) } ?? .null }
    static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }

    /// Pretty: two-space indents and sorted keys, for `--json`; compact: one line, for `watch`.
    func rendered(pretty: Bool) -> String {
        var out = ""
        write(into: &out, pretty: pretty, depth: 0)
        return out
    }

    private func write(into out: inout String, pretty: Bool, depth: Int) {
        func newline(_ depth: Int) {
            if pretty { out += "\n" + String(repeating: "  ", count: depth) }
        }
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .string(let value): Self.quote(value, into: &out)
        case .array(let values):
            guard !values.isEmpty else {
                out += "[]"
                return
            }
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                newline(depth + 1)
                value.write(into: &out, pretty: pretty, depth: depth + 1)
            }
            newline(depth)
            out += "]"
        case .object(let members):
            guard !members.isEmpty else {
                out += "{}"
                return
            }
            out += "{"
            for (index, member) in members.sorted(by: { $0.0 < $1.0 }).enumerated() {
                if index > 0 { out += "," }
                newline(depth + 1)
                Self.quote(member.0, into: &out)
                out += pretty ? " : " : ":"
                member.1.write(into: &out, pretty: pretty, depth: depth + 1)
            }
            newline(depth)
            out += "}"
        }
    }

    private static func quote(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _
            where scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) || scalar.value == 0x2028
                || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension LikeRecord {
    /// The record as SPEC §4 shows it, `file` an absolute path.
    var json: JSONValue {
        .object([
            ("id", .string(id.rawValue)), ("likedAt", .date(likedAt)), ("image", image.json), ("userImage", userImage?.json ?? .null),
            ("note", .string(note)), ("photo", photo?.json ?? .null),
        ])
    }
}

extension StoredImage {
    var json: JSONValue {
        .object([("file", .string(file.path)), ("bytes", .int(byteCount)), ("width", .int(width)), ("height", .int(height))])
    }
}

extension PhotoMetadata {
    var json: JSONValue {
        .object([
            ("description", .string(description)), ("photographer", .string(photographer)),
            ("photographerUsername", .string(photographerUsername)), ("color", .string(color)), ("sourceURL", .string(sourceURL)),
            ("width", .int(width)), ("height", .int(height)), ("createdAt", .date(createdAt)),
        ])
    }
}

extension Optional where Wrapped == LikeRecord {
    var json: JSONValue { map(\.json) ?? .null }
}
