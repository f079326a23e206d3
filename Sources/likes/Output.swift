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
        var widths = header.map(\.count)
        for row in rows { for column in 0..<last { widths[column] = max(widths[column], row[column].count) } }
        func line(_ row: [String]) -> String {
            var text = ""
            for column in 0..<last {
                let cell = row[column]
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                text += (rightAligned.contains(column) ? padding + cell : cell + padding) + "  "
            }
            if let width = terminalWidth { return text + Format.cut(row[last], to: width - text.count) }
            return text + row[last]
        }
        print(line(header))
        for row in rows { print(line(row)) }
    }

    /// Prints one JSON document on stdout.
    func printJSON(_ value: JSONValue) {
        print(value.rendered(pretty: true))
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
        return text.count <= width ? text : String(text.prefix(max(0, width - 1))) + "…"
    }
}
