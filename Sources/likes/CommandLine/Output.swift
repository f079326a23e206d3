// Everything the command line prints: streams, terminal facts, sizes, dates and JSON.

import LikeKit
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where output goes. Tests of the command line run the real binary, so this is plain stdio.
struct Output {
    var environment: [String: String]

    var standardErrorIsTerminal: Bool { isatty(2) == 1 }
    var standardOutputIsTerminal: Bool { isatty(1) == 1 }
    var useColor: Bool { environment["NO_COLOR"].map(\.isEmpty) ?? true }

    /// The terminal's width: `$COLUMNS`, else the window size of stdout, else nil (piped).
    var terminalWidth: Int? {
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        var size = winsize()
        if standardOutputIsTerminal, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return nil
    }

    func print(_ text: String) {
        System.write(text + "\n", to: 1)
    }

    func printError(_ text: String) {
        System.write(text + "\n", to: 2)
    }

    /// Prints aligned columns, the last one cut to the terminal's width.
    func printTable(header: [String], rows: [[String]], rightAligned: Set<Int>) {
        let last = header.count - 1
        var widths = header.map(Format.columns)
        for row in rows { for column in 0..<last { widths[column] = max(widths[column], Format.columns(row[column])) } }
        func line(_ row: [String]) -> String {
            var text = ""
            var used = 0
            for column in 0..<last {
                let cell = row[column]
                let padding = String(repeating: " ", count: widths[column] - Format.columns(cell))
                text += (rightAligned.contains(column) ? padding + cell : cell + padding) + "  "
                used += widths[column] + 2
            }
            let whole = terminalWidth.map { text + Format.cut(row[last], to: $0 - used) } ?? text + row[last]
            // No spaces at the end of a line (an empty last cell leaves the padding before it).
            var trimmed = Substring(whole)
            while trimmed.last == " " { trimmed.removeLast() }
            return String(trimmed)
        }
        print(line(header))
        for row in rows { print(line(row)) }
    }

    /// Prints one JSON document on stdout.
    func printJSON(_ value: JSONValue, compact: Bool = false) {
        value.renderedLine(pretty: !compact).withUnsafeBytes { System.write($0, to: 1) }
    }
}

enum Format {
    /// `2.31 MB`: sizes in units of 1024, as the photo apps we learn from show them.
    static func size(_ bytes: Int) -> String { ByteCount.formatted(bytes) }

    /// `2026-11-22 01:23` in the local time zone.
    ///
    /// Shifted by the zone's offset and written by LikeKit's own ISO formatter: a `DateFormatter`
    /// per row cost more than the rest of a long listing.
    static func localDate(_ date: Date, seconds: Bool = false) -> String {
        let local = date.addingTimeInterval(Double(System.localOffset(at: date)))
        let text = LikeTimestamp.string(from: local)  // 2026-11-22T01:23:45.123Z
        return text.prefix(10) + " " + text.dropFirst(11).prefix(seconds ? 8 : 5)
    }

    /// Text safe to print on one line: control characters shown as escapes.
    static func oneLine(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                result += scalar == "\n" ? " " : scalar.escaped(asASCII: false)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` as one word for a POSIX shell: in single quotes, each of its own quotes written
    /// `'\''`, and its control characters shown as escapes (so that it prints on one line).
    static func shellQuoted(_ text: String) -> String {
        "'" + oneLine(text).replacing("'", with: "'\\''") + "'"
    }

    /// Cuts `text` to `width` characters, ending with `…` when cut.
    static func cut(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard columns(text) > width else { return text }
        var kept = ""
        var used = 0
        for character in text {
            let next = columns(of: character)
            if used + next > width - 1 { break }
            kept.append(character)
            used += next
        }
        return kept + "…"
    }

    /// The columns `text` takes on a terminal: two for each wide character (CJK ideographs,
    /// Hangul, kana, full-width forms, emoji), none for a character of combining marks alone,
    /// one for the rest.
    static func columns(_ text: String) -> Int {
        text.utf8.allSatisfy { $0 < 0x80 } ? text.utf8.count : text.reduce(0) { $0 + columns(of: $1) }
    }

    static func columns(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.properties.isEmojiPresentation || $0.value == 0xFE0F }) { return 2 }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xAC00...0xD7A3,
            0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return first.properties.generalCategory == .nonspacingMark || first.properties.generalCategory == .enclosingMark ? 0 : 1
        }
    }
}
