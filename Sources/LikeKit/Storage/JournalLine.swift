// Owns the format of one journal line: what each field means, how a line is written and the one
// parser that reads it back. Called by Journal (writing), JournalReader (reading) and, for the
// constructors of the lines a change writes, by WriteSession and the façade's purge.

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
/// `L` and `M` lines of a photo in albums have an eighth field: the album names, each escaped by
/// ``PercentEscaping/albumName`` (`%`, `,`, space, control and non-ASCII bytes as `%XX`), sorted
/// by their UTF-8 bytes and joined by commas: `Trip%20to%20Lisbon,Cats`.
///
/// - `U`: a photo unliked; its image generations are those of the images removed, and an eighth
///   field holds the photo's id, escaped by ``PercentEscaping/journalField``, for observers in
///   other processes.
/// - `A`: the line just before it never took effect (its writer died before the commit).
/// - `P`: an orphan file purged; the key field is its path in the store, escaped by
///   ``PercentEscaping/journalField``.
///
/// The parser accepts only what the writer writes, so every line reads back to itself.
struct JournalLine: Hashable, Sendable {
    enum Operation: UInt8, Sendable {
        case header = 0x4A  // J
        case liked = 0x4C  // L
        case updated = 0x4D  // M
        case unliked = 0x55  // U
        case aborted = 0x41  // A
        case purged = 0x50  // P

        /// Whether the line describes a change to one photo, which an `A` line may take back and
        /// whose commit a reader may have to check.
        var changesPhoto: Bool { self == .liked || self == .updated || self == .unliked }
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

    // MARK: The lines a change writes

    static func header(at: Int64, snapshotLines: Int) -> JournalLine {
        JournalLine(
            operation: .header, at: at, generation: Generation.make(), bytes: Int64(snapshotLines), imageGeneration: "-", userImageGeneration: nil,
            key: formatName)
    }

    /// The `A` line that takes back `line`, whose change did not happen.
    static func aborting(_ line: JournalLine) -> JournalLine {
        JournalLine(
            operation: .aborted, at: line.at, generation: line.generation, bytes: 0, imageGeneration: "-", userImageGeneration: nil, key: line.key)
    }

    /// The `P` line of an orphan file removed, by its path inside the store.
    static func purged(path: String, bytes: Int, at: Int64) -> JournalLine {
        JournalLine(
            operation: .purged, at: at, generation: "-", bytes: Int64(bytes), imageGeneration: "-", userImageGeneration: nil,
            key: PercentEscaping.journalField.escape(path))
    }

    /// On `P` lines: the path of the file purged.
    var purgedPath: String? {
        guard operation == .purged, let bytes = PercentEscaping.journalField.unescape(key) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `other` is the line this `A` line takes back.
    func takesBack(_ other: JournalLine) -> Bool {
        operation == .aborted && other.operation.changesPhoto && other.key == key && other.generation == generation
    }

    // MARK: Writing

    var encoded: [UInt8] {
        var line = [operation.rawValue, 0x20]
        line += Array(String(at).utf8)
        for field in [generation, String(bytes), imageGeneration, userImageGeneration ?? "-", key] {
            line.append(0x20)
            line += Array(field.utf8)
        }
        if let id {
            line.append(0x20)
            PercentEscaping.journalField.escape(id.utf8, into: &line)
        }
        if !albums.isEmpty {
            line.append(0x20)
            line += Self.encodeAlbums(albums)
        }
        line.append(0x0A)
        return line
    }

    /// The album field: each name escaped, in canonical order, joined by commas.
    static func encodeAlbums(_ albums: [AlbumName]) -> [UInt8] {
        var out: [UInt8] = []
        for (index, album) in albums.enumerated() {
            if index > 0 { out.append(0x2C) }
            PercentEscaping.albumName.escape(album.rawValue.utf8, into: &out)
        }
        return out
    }

    // MARK: Reading

    /// Parses one line without its newline; `nil` for anything the writer would not have written.
    ///
    /// Fields are checked as bytes before any string is made: reading the index parses every line
    /// of the journal, so this is its inner loop.
    static func parse(_ line: ArraySlice<UInt8>) -> JournalLine? {
        line.withUnsafeBufferPointer { parse($0) }
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> JournalLine? {
        guard let fields = Fields(splitting: bytes), fields.count == 7 || fields.count == 8 else { return nil }
        let operationField = fields[0]
        guard operationField.count == 1, let operation = Operation(rawValue: operationField[0]),
            let at = number(fields[1]), let size = number(fields[3]),
            fieldsAreValid(operation, generation: fields[2], image: fields[4], userImage: fields[5], key: fields[6])
        else { return nil }
        func text(_ field: UnsafeBufferPointer<UInt8>) -> String { String(decoding: field, as: UTF8.self) }
        var line = JournalLine(
            operation: operation, at: at, generation: text(fields[2]), bytes: size, imageGeneration: text(fields[4]),
            userImageGeneration: isDash(fields[5]) ? nil : text(fields[5]), key: text(fields[6]))
        if fields.count == 8 {
            guard line.readLastField(fields[7]) else { return nil }
        }
        return line
    }

    /// The seven fields every operation has, checked as that operation's writer writes them.
    private static func fieldsAreValid(
        _ operation: Operation, generation: UnsafeBufferPointer<UInt8>, image: UnsafeBufferPointer<UInt8>, userImage: UnsafeBufferPointer<UInt8>,
        key: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        func generationOrDash(_ field: UnsafeBufferPointer<UInt8>) -> Bool { isDash(field) || Generation.isValid(field) }
        switch operation {
        case .header:
            return Generation.isValid(generation) && isDash(image) && isDash(userImage) && key.elementsEqual(formatName.utf8)
        case .liked, .updated:
            return Generation.isValid(generation) && Generation.isValid(image) && generationOrDash(userImage) && StorageKey.isWellFormed(key)
        case .unliked, .aborted:
            return Generation.isValid(generation) && StorageKey.isWellFormed(key) && generationOrDash(image) && generationOrDash(userImage)
        case .purged:
            return isDash(generation) && isDash(image) && isDash(userImage) && !key.isEmpty && PercentEscaping.journalField.isCanonical(key)
        }
    }

    /// The eighth field: a `U` line's id, or an `L` or `M` line's albums. False where the
    /// operation has no eighth field or it is malformed.
    private mutating func readLastField(_ field: UnsafeBufferPointer<UInt8>) -> Bool {
        switch operation {
        case .unliked:
            guard !field.isEmpty, let bytes = PercentEscaping.journalField.unescape(field) else { return false }
            id = String(decoding: bytes, as: UTF8.self)
            return true
        case .liked, .updated:
            guard let names = Self.decodeAlbums(field) else { return false }
            albums = names
            return true
        default:
            return false
        }
    }

    /// Reads an album field; `nil` unless every name is valid, escaped as the writer escapes it,
    /// and the names are in canonical order.
    static func decodeAlbums(_ field: UnsafeBufferPointer<UInt8>) -> [AlbumName]? {
        var albums: [AlbumName] = []
        var start = 0
        for end in 0...field.count where end == field.count || field[end] == 0x2C {
            guard let name = PercentEscaping.albumName.unescape(UnsafeBufferPointer(rebasing: field[start..<end])), !name.isEmpty,
                let album = try? AlbumName(String(decoding: name, as: UTF8.self)),
                // Bytes that are not UTF-8, or not NFC, do not come back as themselves.
                album.rawValue.utf8.elementsEqual(name)
            else { return nil }
            if let last = albums.last, !(last < album) { return nil }
            albums.append(album)
            start = end + 1
        }
        return albums
    }

    private static func isDash(_ field: UnsafeBufferPointer<UInt8>) -> Bool { field.count == 1 && field[0] == UInt8(ascii: "-") }

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

    /// A line's fields, split at single spaces without allocating: up to eight.
    private struct Fields {
        /// Where each field starts, and one past the last field's end (as if a space followed).
        private var starts: (Int, Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0, 0)
        private let bytes: UnsafeBufferPointer<UInt8>
        private(set) var count = 1

        @inline(__always)
        init?(splitting bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            var index = 0
            while index < bytes.count {
                if bytes[index] == 0x20 {
                    guard count < 8 else { return nil }
                    setStart(count, index + 1)
                    count += 1
                }
                index += 1
            }
            setStart(count, bytes.count + 1)
        }

        @inline(__always)
        private mutating func setStart(_ field: Int, _ offset: Int) {
            withUnsafeMutableBytes(of: &starts) { $0.storeBytes(of: offset, toByteOffset: field * MemoryLayout<Int>.stride, as: Int.self) }
        }

        @inline(__always)
        private func start(_ field: Int) -> Int {
            withUnsafeBytes(of: starts) { $0.load(fromByteOffset: field * MemoryLayout<Int>.stride, as: Int.self) }
        }

        @inline(__always)
        subscript(_ field: Int) -> UnsafeBufferPointer<UInt8> {
            let start = start(field)
            return UnsafeBufferPointer(rebasing: bytes[start..<max(start, self.start(field + 1) - 1)])
        }
    }
}
