// The store's index and change log: one short text line per change, appended under the lock.

import Foundation

/// One line of `likes.journal`.
///
/// Every line has seven fields separated by single spaces and ends with a newline:
///
/// ```
/// L 1763774625123 1a2b3c4d5e6f 204811 1a2b3c4d5e6f - ^dwu85^p9^s^o^ik
/// ```
///
/// operation, time in milliseconds since 1970, record generation, bytes of the record's images,
/// main image generation, user image generation, and the storage key. The operations:
///
/// - `J`: the header, the first line of every journal; its key field is the format name and its
///   bytes field the number of snapshot lines that follow it after a compaction.
/// - `L`: a photo liked for the first time; the time is its `likedAt`.
/// - `M`: a liked photo updated; `likedAt` stays that of its `L` line.
/// `L` and `M` lines of a photo in albums have an eighth field: the album names, each
/// percent-escaped (`%`, `,`, space, control and non-ASCII bytes as `%XX`), sorted by their UTF-8
/// bytes and joined by commas: `Trip%20to%20Lisbon,Cats`.
///
/// - `U`: a photo unliked; its image generations are those of the images removed, and an eighth
///   field holds the photo's id, percent-escaped, for observers in other processes.
/// - `A`: the line just before it never took effect (its writer died before the commit).
/// - `P`: an orphan file purged; the key field is its path in the store, percent-escaped.
struct JournalLine: Hashable, Sendable {
    enum Operation: UInt8, Sendable {
        case header = 0x4A  // J
        case liked = 0x4C  // L
        case updated = 0x4D  // M
        case unliked = 0x55  // U
        case aborted = 0x41  // A
        case purged = 0x50  // P
    }

    static let formatName = "likes-journal-1"

    var operation: Operation
    var at: Int64
    var generation: String
    var bytes: Int64
    var imageGeneration: String
    var userImageGeneration: String?
    var key: String
    /// On `U` lines: the id of the photo unliked (the record is gone by the time others read).
    var id: String?
    /// On `L` and `M` lines: the albums the photo is in, in canonical order.
    var albums: [AlbumName] = []

    var encoded: [UInt8] {
        var line = [operation.rawValue, 0x20]
        line += Array(String(at).utf8)
        for field in [generation, String(bytes), imageGeneration, userImageGeneration ?? "-", key] + (id.map { [Self.escapePath($0)] } ?? []) {
            line.append(0x20)
            line += Array(field.utf8)
        }
        if !albums.isEmpty {
            line.append(0x20)
            line += Self.encodeAlbums(albums)
        }
        line.append(0x0A)
        return line
    }

    /// Parses one line without its newline; `nil` for anything malformed.
    ///
    /// Fields are checked as bytes before any string is made: `verify`, `stats` and `purge` parse
    /// every line of the journal, so this is their inner loop.
    static func parse(_ line: ArraySlice<UInt8>) -> JournalLine? {
        line.withUnsafeBufferPointer { parse($0) }
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> JournalLine? {
        // Field boundaries: up to eight fields, so up to nine bounds.
        var bounds: (Int, Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0, 0)
        var fieldCount = 1
        let count = bytes.count
        for index in 0..<count where bytes[index] == 0x20 {
            guard fieldCount < 8 else { return nil }
            withUnsafeMutableBytes(of: &bounds) { $0.storeBytes(of: index + 1, toByteOffset: fieldCount * MemoryLayout<Int>.stride, as: Int.self) }
            fieldCount += 1
        }
        guard fieldCount == 7 || fieldCount == 8 else { return nil }
        withUnsafeMutableBytes(of: &bounds) { $0.storeBytes(of: count + 1, toByteOffset: fieldCount * MemoryLayout<Int>.stride, as: Int.self) }
        func field(_ index: Int) -> UnsafeBufferPointer<UInt8> {
            withUnsafeBytes(of: bounds) { raw in
                let start = raw.load(fromByteOffset: index * MemoryLayout<Int>.stride, as: Int.self)
                let end = raw.load(fromByteOffset: (index + 1) * MemoryLayout<Int>.stride, as: Int.self) - 1
                return UnsafeBufferPointer(rebasing: bytes[start..<max(start, end)])
            }
        }
        let operationField = field(0)
        guard operationField.count == 1, let operation = Operation(rawValue: operationField[0]),
            let at = number(field(1)), let size = number(field(3))
        else { return nil }
        let generation = field(2)
        let imageGeneration = field(4)
        let userGeneration = field(5)
        let key = field(6)
        func isDash(_ field: UnsafeBufferPointer<UInt8>) -> Bool { field.count == 1 && field[0] == UInt8(ascii: "-") }
        switch operation {
        case .header:
            guard Generation.isValid(generation), isDash(imageGeneration), isDash(userGeneration),
                String(decoding: key, as: UTF8.self) == formatName
            else { return nil }
        case .liked, .updated:
            guard Generation.isValid(generation), Generation.isValid(imageGeneration),
                isDash(userGeneration) || Generation.isValid(userGeneration), StorageKey.isWellFormed(key)
            else { return nil }
        case .unliked, .aborted:
            guard Generation.isValid(generation), StorageKey.isWellFormed(key),
                isDash(imageGeneration) || Generation.isValid(imageGeneration), isDash(userGeneration) || Generation.isValid(userGeneration)
            else { return nil }
        case .purged:
            guard isDash(generation), isDash(imageGeneration), isDash(userGeneration), !key.isEmpty, key.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else { return nil }
        }
        var id: String?
        var albums: [AlbumName] = []
        if fieldCount == 8 {
            let lastField = field(7)
            switch operation {
            case .unliked:
                guard !lastField.isEmpty, lastField.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
                id = unescapePath(String(decoding: lastField, as: UTF8.self))
            case .liked, .updated:
                guard let names = decodeAlbums(lastField) else { return nil }
                albums = names
            default:
                return nil
            }
        }
        return JournalLine(
            operation: operation, at: at, generation: String(decoding: generation, as: UTF8.self), bytes: size,
            imageGeneration: String(decoding: imageGeneration, as: UTF8.self),
            userImageGeneration: isDash(userGeneration) ? nil : String(decoding: userGeneration, as: UTF8.self),
            key: String(decoding: key, as: UTF8.self), id: id, albums: albums)
    }

    /// The time and key of a line, read without making its other fields: what a walk over the
    /// journal's end needs of each line. `nil` for a line whose shape or key is malformed.
    static func timeAndKey(_ line: ArraySlice<UInt8>) -> (at: Int64, key: String)? {
        line.withUnsafeBufferPointer { bytes in
            var field = 0
            var start = 0
            var at: Int64?
            var key: Range<Int>?
            for index in 0...bytes.count where index == bytes.count || bytes[index] == 0x20 {
                if field == 1 { at = number(UnsafeBufferPointer(rebasing: bytes[start..<index])) }
                if field == 6 { key = start..<index }
                field += 1
                start = index + 1
            }
            guard field == 7 || field == 8, let at, let key else { return nil }
            let keyBytes = UnsafeBufferPointer(rebasing: bytes[key])
            guard StorageKey.isWellFormed(keyBytes) else { return nil }
            return (at, String(decoding: keyBytes, as: UTF8.self))
        }
    }

    /// A decimal number as the writer writes it: digits only, no leading zero.
    private static func number(_ field: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !field.isEmpty, field.count <= 18, field.count == 1 || field[0] != UInt8(ascii: "0") else { return nil }
        var value: Int64 = 0
        for byte in field {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        return value
    }

    static func header(at: Int64, snapshotLines: Int) -> JournalLine {
        JournalLine(
            operation: .header, at: at, generation: Generation.make(), bytes: Int64(snapshotLines), imageGeneration: "-", userImageGeneration: nil,
            key: formatName)
    }

    /// The album field: each name escaped, in canonical order, joined by commas.
    static func encodeAlbums(_ albums: [AlbumName]) -> [UInt8] {
        var out: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for (index, album) in albums.enumerated() {
            if index > 0 { out.append(0x2C) }
            for byte in album.rawValue.utf8 {
                if byte > 0x20, byte < 0x7F, byte != 0x25, byte != 0x2C {
                    out.append(byte)
                } else {
                    out += [0x25, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                }
            }
        }
        return out
    }

    /// Reads an album field; `nil` unless every name is valid and the field is exactly what
    /// ``encodeAlbums(_:)`` writes for them (so that a line reads back to itself): printable
    /// ASCII but `%` and `,` as itself, every other byte as `%` and two upper-case hex digits,
    /// names in canonical order.
    static func decodeAlbums(_ field: UnsafeBufferPointer<UInt8>) -> [AlbumName]? {
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            default: nil
            }
        }
        var albums: [AlbumName] = []
        var name: [UInt8] = []
        var index = 0
        while index <= field.count {
            guard index < field.count, field[index] != 0x2C else {
                // Bytes that are not UTF-8, or not NFC, do not come back as themselves.
                guard !name.isEmpty, let album = try? AlbumName(String(decoding: name, as: UTF8.self)), album.rawValue.utf8.elementsEqual(name)
                else { return nil }
                if let last = albums.last, !(last < album) { return nil }
                albums.append(album)
                name.removeAll(keepingCapacity: true)
                index += 1
                continue
            }
            let byte = field[index]
            if byte == 0x25 {
                guard index + 2 < field.count, let high = hexValue(field[index + 1]), let low = hexValue(field[index + 2]) else { return nil }
                let value = high << 4 | low
                // Only what the writer escapes may be escaped.
                guard value <= 0x20 || value >= 0x7F || value == 0x25 || value == 0x2C else { return nil }
                name.append(value)
                index += 3
            } else {
                guard byte > 0x20, byte < 0x7F else { return nil }
                name.append(byte)
                index += 1
            }
        }
        return albums.isEmpty ? nil : albums
    }

    /// Escapes a file path for a `P` line: printable ASCII except `%` stays, the rest is `%XX`.
    static func escapePath(_ path: String) -> String {
        var out: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in path.utf8 {
            if byte > 0x20, byte < 0x7F, byte != 0x25 {
                out.append(byte)
            } else {
                out += [0x25, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func unescapePath(_ text: String) -> String {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            if byte == 0x25, bytes.count >= 2, let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) {
                out.append(value)
                bytes = bytes.dropFirst(2)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The random tokens that make every write's file names new.
enum Generation {
    static let length = 12

    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() & 0xFFFF_FFFF_FFFF
        let text = String(value, radix: 16)
        return String(repeating: "0", count: length - text.count) + text
    }

    static func isValid(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isValid($0) }
    }

    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count == length && bytes.allSatisfy(StorageKey.isLowerHex)
    }
}

/// What a liked photo's newest committed journal line says about it.
struct LiveEntry: Hashable, Sendable {
    var key: String
    var generation: String
    var likedAt: Int64
    var bytes: Int64
    var imageGeneration: String
    var userImageGeneration: String?
    /// The albums the photo is in, in canonical order.
    var albums: [AlbumName] = []
    /// The line number of the `L` line that liked it, which orders likes of one millisecond; 0
    /// when read from a record file. Not part of equality: it says where, not what.
    var sequence = 0

    static func == (left: LiveEntry, right: LiveEntry) -> Bool {
        (left.key, left.generation, left.likedAt, left.bytes, left.imageGeneration, left.userImageGeneration)
            == (right.key, right.generation, right.likedAt, right.bytes, right.imageGeneration, right.userImageGeneration)
            && left.albums == right.albums
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(generation)
    }
}

/// The journal read from start to end: the live photos it describes, and where it is damaged.
struct JournalIndex: Sendable {
    var live: [String: LiveEntry] = [:]
    /// The number of lines, the header included.
    var lineCount = 0
    /// The last complete line: it alone may describe a change whose writer died before the
    /// commit, so readers check it against the record file.
    var lastLine: JournalLine?
    /// A sentence naming the first malformed line, if any; lines after it are not read.
    var damage: String?
    /// Bytes of a last line with no newline: an append that a crash cut short.
    var tornTailBytes = 0
    /// The newest time written on any line, to keep new `likedAt` times from going back.
    var clock: Int64 = 0

    /// State before the last line was applied, so that an `A` line can take it back.
    private var undo: (key: String, entry: LiveEntry?)?

    init() {}

    init(parsing bytes: [UInt8]) {
        var start = 0
        var lineNumber = 0
        while start < bytes.count {
            guard let end = bytes[start...].firstIndex(of: 0x0A) else {
                tornTailBytes = bytes.count - start
                break
            }
            lineNumber += 1
            guard let line = JournalLine.parse(bytes[start..<end]), (line.operation == .header) == (lineNumber == 1) else {
                damage = "the index \(StoreLayout.journalFileName) is damaged at line \(lineNumber) (byte \(start))"
                break
            }
            apply(line)
            start = end + 1
        }
    }

    mutating func apply(_ line: JournalLine) {
        lineCount += 1
        clock = max(clock, line.at)
        let previousLast = lastLine
        lastLine = line
        switch line.operation {
        case .header, .purged:
            undo = nil
        case .liked:
            let entry = LiveEntry(
                key: line.key, generation: line.generation, likedAt: line.at, bytes: line.bytes,
                imageGeneration: line.imageGeneration, userImageGeneration: line.userImageGeneration, albums: line.albums,
                sequence: lineCount)
            undo = (line.key, live.updateValue(entry, forKey: line.key))  // one hash lookup: this loop is hot
        case .updated:
            let previous = live[line.key]
            let entry = LiveEntry(
                key: line.key, generation: line.generation, likedAt: previous?.likedAt ?? line.at, bytes: line.bytes,
                imageGeneration: line.imageGeneration, userImageGeneration: line.userImageGeneration, albums: line.albums,
                sequence: previous?.sequence ?? lineCount)
            live[line.key] = entry
            undo = (line.key, previous)
        case .unliked:
            undo = (line.key, live.removeValue(forKey: line.key))
        case .aborted:
            if let undo, let previousLast, undo.key == line.key, previousLast.generation == line.generation {
                live[undo.key] = undo.entry
            }
            undo = nil
        }
    }

    /// Takes back the last line, when its writer died before the commit.
    mutating func revertLastLine() {
        if let undo { live[undo.key] = undo.entry }
        undo = nil
    }

    /// Whether the last line needs checking against the record file.
    var lastLineIsUncertain: Bool {
        guard let lastLine else { return false }
        return [.liked, .updated, .unliked].contains(lastLine.operation)
    }
}
