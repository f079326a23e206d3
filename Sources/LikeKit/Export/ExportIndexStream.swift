// An export's index.json and index.html written a photo at a time: each photo's entry and figure
// appended to a part file as it is written, and the files joined once the count and the size at
// their top are known. Called by the export (LikeRepository+Export).

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// The index files of an export under way: the same bytes ``ExportIndex/encoded()`` and
/// ``ContactSheet`` give for the whole, with at most about a megabyte of them in memory.
struct ExportIndexStream {
    /// Bytes gathered before they are appended to a part file.
    private static let flushSize = 1 << 20

    private let query: LikeQuery
    private let exportedAt = Timestamp.string(Timestamp.now())
    private var count = 0
    private var bytes = 0
    private var json: [UInt8] = []
    private var html: [UInt8] = []
    private let encoder = ExportIndex.encoder()

    init(query: LikeQuery) {
        self.query = query
    }

    /// Adds a photo written, and gives it as the report names it.
    mutating func add(_ exported: ExportedPhoto, _ writer: ExportWriter) throws -> ExportReport.Photo {
        let photo = ExportIndex.Photo(exported)
        if count > 0 { json += Array(",\n".utf8) }
        // The entry as the whole index's encoder writes it: two levels in (a blank line, as in
        // an empty list, stays blank).
        let lines = try encoder.encode(photo).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() {
            if number > 0 { json.append(UInt8(ascii: "\n")) }
            if !line.isEmpty { json += Array("    ".utf8) + line }
        }
        count += 1
        let report = photo.report
        bytes += report.byteCount
        html += Array(ContactSheet.figure(photo, number: count).utf8)
        if json.count + html.count >= Self.flushSize { try flush(writer) }
        return report
    }

    /// Writes `index.json` and `index.html`.
    mutating func finish(_ writer: ExportWriter) throws {
        try flush(writer)
        var whole = ExportIndex(photos: [], query: query, format: LikeRepository.exportFormat)
        (whole.exportedAt, whole.count, whole.bytes) = (exportedAt, count, bytes)
        let empty = Array(try whole.encoded())
        // The photos go where the empty index has `"photos" : [`, a blank line and `]`: the
        // last such place, as no key after `photos` is a list.
        let opening = Array("\"photos\" : [\n".utf8)
        guard count > 0, let start = Self.lastRange(of: opening + Array("\n  ]".utf8), in: empty) else {
            try writer.finish("index.json", head: empty, tail: [])
            try writer.finish("index.html", head: Array(head.utf8), tail: Array(ContactSheet.tail(empty: true).utf8))
            return
        }
        try writer.finish("index.json", head: Array(empty[..<(start + opening.count)]), tail: Array(empty[(start + opening.count)...]))
        try writer.finish("index.html", head: Array(head.utf8), tail: Array(ContactSheet.tail(empty: false).utf8))
    }

    private var head: String {
        ContactSheet.head(
            album: query.album?.rawValue, since: query.since.map(Timestamp.string), exportedAt: exportedAt, count: count, bytes: bytes)
    }

    private mutating func flush(_ writer: ExportWriter) throws {
        if !json.isEmpty { try writer.append(json, toPart: "index.json") }
        if !html.isEmpty { try writer.append(html, toPart: "index.html") }
        json.removeAll(keepingCapacity: true)
        html.removeAll(keepingCapacity: true)
    }

    /// Where the last occurrence of `pattern` in `bytes` starts.
    private static func lastRange(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        return stride(from: bytes.count - pattern.count, through: 0, by: -1).first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }
}
