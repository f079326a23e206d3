// Owns the format of one journal line: what each field means, how a line is written and the one
// parser that reads it back. Called by Journal (writing), JournalReader (reading) and, for the
// constructors of the lines a change writes, by WriteSession and the store's purge.

import LikesSupport

/// One line of `likes.journal`.
///
/// Every line has seven fields separated by single spaces and ends with a newline:
///
/// ```
/// L 1763774625123 1a2b3c4d5e6f 204811 1a2b3c4d5e6f - ^dwu85^p9^s^o^ik 60544d dwu85p9sioik␟a cat
/// ```
///
/// operation, time in milliseconds since 1970, record generation, bytes of the record's images,
/// main image generation, user image generation, and the storage key. The operations:
///
/// - `J`: the header, the first line of every journal; its key field is the format name and its
///   bytes field the number of snapshot lines that follow it after a compaction.
/// - `L`: a photo liked for the first time; the time is its `likedAt`.
/// - `M`: a liked photo updated; `likedAt` stays that of its `L` line.
///
/// `L` and `M` lines then carry the photo's catalog (see ``CatalogFields``), what queries read
/// instead of decoding records: its colour (six lower-case hex digits, or `-`) followed by `/`
/// and when it was taken (milliseconds since 1970, see ``StoredRecord/taken``), and its searchable
/// text, folded, with every white space and control character written as U+001F (so the field
/// holds no space or newline). Lines of a `likes-journal-1` journal have neither field, those of a
/// `likes-journal-2` journal no date taken; both are still read. Last, for a photo in albums, the album names, each escaped by
/// ``PercentEscaping/albumName`` (`%`, `,`, space, control and non-ASCII bytes as `%XX`), sorted
/// by their UTF-8 bytes and joined by commas: `Trip%20to%20Lisbon,Cats`. After them, for an album
/// whose chosen cover the photo is, its name escaped the same way after `%*` (which no escaped
/// name holds): `Cats,Trip%20to%20Lisbon,%*Cats`. (Versions before chosen covers read such a
/// line as damage; it is written only once a cover is chosen.)
///
/// - `U`: a photo unliked; its image generations are those of the images removed, and an eighth
///   field holds the photo's id, escaped by ``PercentEscaping/journalField``, for observers in
///   other processes. A ninth holds the record file's bytes as they were, escaped the same way:
///   an observer that reads a like only after the photo was unliked again still delivers the
///   record that like committed. (Lines written before this field existed have eight fields.)
/// - `A`: the line just before it never took effect (its writer died before the commit).
/// - `P`: an orphan file purged; the key field is its path in the store, escaped by
///   ``PercentEscaping/journalField``.
///
/// The parser accepts only what the writer writes, so every line reads back to itself.
package struct JournalLine: Hashable, Sendable {
    package enum Operation: UInt8, Sendable {
        case header = 0x4A  // J
        case liked = 0x4C  // L
        case updated = 0x4D  // M
        case unliked = 0x55  // U
        case aborted = 0x41  // A
        case purged = 0x50  // P

        /// Whether the line describes a change to one photo, which an `A` line may take back and
        /// whose commit a reader may have to check.
        package var changesPhoto: Bool { self == .liked || self == .updated || self == .unliked }
    }

    /// The format this version writes: `L` and `M` lines carry the catalog with the date taken.
    package static let formatName = "likes-journal-3"
    /// The format before the date taken, still read (its catalog's lines give no date taken, and
    /// a listing by date taken takes the sure path); the next change writes it anew.
    static let formatWithoutTaken = "likes-journal-2"
    /// The format before the catalog, still read.
    static let formatWithoutCatalog = "likes-journal-1"
    /// This format, in a journal whose `L` lines may be out of the listing's order: a restore
    /// appends the likes of an export at their own times, and sorts the journal at its end. No
    /// reader jumps in such a journal, and the next change that is not part of a restore sorts
    /// it (a restore that died leaves it so). As long as ``formatName``, so that a restore marks
    /// a journal by writing over the name in its header, in place (see `Journal.markUnsorted`).
    package static let unsortedFormatName = "likes-journal-u"

    /// Whether a header's format name is one a later version wrote: a journal's name
    /// (`likes-journal-` and more) that this version does not know.
    static func isNewerFormat(_ name: String) -> Bool {
        name.hasPrefix("likes-journal-") && ![formatName, unsortedFormatName, formatWithoutTaken, formatWithoutCatalog].contains(name)
    }

    package var operation: Operation
    package var at: Int64
    var generation: String
    package var bytes: Int64
    var imageGeneration: String
    var userImageGeneration: String?
    package var key: String
    /// On `U` lines: the id of the photo unliked (the record is gone by the time others read).
    package var id: String?
    /// On `U` lines: the record file as it was before the unlike, when it could be read.
    var unlikedRecord: [UInt8]?
    /// On `L` and `M` lines: the albums the photo is in, in canonical order.
    package var albums: [String] = []
    /// On `L` and `M` lines: the albums whose chosen cover the photo is, in canonical order.
    var covers: [String] = []
    /// On `L` and `M` lines: what queries need of the photo; `nil` on lines of the format before.
    var catalog: CatalogFields?

    /// A line from its fields, as the changes write them.
    package init(
        operation: Operation, at: Int64, generation: String, bytes: Int64, imageGeneration: String, userImageGeneration: String?,
        key: String, id: String? = nil, unlikedRecord: [UInt8]? = nil, albums: [String] = [], covers: [String] = [],
        catalog: CatalogFields? = nil
    ) {
        self.operation = operation
        self.at = at
        self.generation = generation
        self.bytes = bytes
        self.imageGeneration = imageGeneration
        self.userImageGeneration = userImageGeneration
        self.key = key
        self.id = id
        self.unlikedRecord = unlikedRecord
        self.albums = albums
        self.covers = covers
        self.catalog = catalog
    }

    // MARK: The lines a change writes

    package static func header(at: Int64, snapshotLines: Int, format: String = formatName) -> JournalLine {
        JournalLine(
            operation: .header, at: at, generation: Generation.make(), bytes: Int64(snapshotLines), imageGeneration: "-", userImageGeneration: nil,
            key: format)
    }

    /// The `A` line that takes back `line`, whose change did not happen.
    package static func aborting(_ line: JournalLine) -> JournalLine {
        JournalLine(
            operation: .aborted, at: line.at, generation: line.generation, bytes: 0, imageGeneration: "-", userImageGeneration: nil, key: line.key)
    }

    /// The `P` line of an orphan file removed, by its path inside the store.
    package static func purged(path: String, bytes: Int, at: Int64) -> JournalLine {
        JournalLine(
            operation: .purged, at: at, generation: "-", bytes: Int64(bytes), imageGeneration: "-", userImageGeneration: nil,
            key: PercentEscaping.journalField.escape(path))
    }

    /// The `L` or `M` line of a photo as `entry` describes it, at `at`.
    static func describing(_ entry: LiveEntry, operation: Operation, at: Int64) -> JournalLine {
        JournalLine(
            operation: operation, at: at, generation: entry.generation, bytes: entry.bytes, imageGeneration: entry.imageGeneration,
            userImageGeneration: entry.userImageGeneration, key: entry.key, albums: entry.albums, covers: entry.covers,
            catalog: entry.catalog)
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

    package var encoded: [UInt8] {
        var line = [operation.rawValue, 0x20]
        line += Array(String(at).utf8)
        for field in [generation, String(bytes), imageGeneration, userImageGeneration ?? "-", key] {
            line.append(0x20)
            line += Array(field.utf8)
        }
        if let id {
            line.append(0x20)
            PercentEscaping.journalField.escape(id.utf8, into: &line)
            if let unlikedRecord, !unlikedRecord.isEmpty {
                line.append(0x20)
                PercentEscaping.journalField.escape(unlikedRecord, into: &line)
            }
        }
        if let catalog {
            line.append(0x20)
            line += Array((catalog.color ?? "-").utf8)
            if let taken = catalog.taken {
                line.append(0x2F)
                line += Array(String(taken).utf8)
            }
            line.append(0x20)
            line += Array(catalog.text.utf8)
        }
        if !albums.isEmpty {
            line.append(0x20)
            line += Self.encodeAlbums(albums, covers: covers)
        }
        line.append(0x0A)
        return line
    }

    /// The album field: each name escaped, in canonical order, then each cover's name after
    /// ``coverMark``, joined by commas.
    static func encodeAlbums(_ albums: [String], covers: [String] = []) -> [UInt8] {
        var out: [UInt8] = []
        for (index, album) in albums.enumerated() {
            if index > 0 { out.append(0x2C) }
            PercentEscaping.albumName.escape(album.utf8, into: &out)
        }
        for cover in covers {
            out.append(0x2C)
            out += coverMark
            PercentEscaping.albumName.escape(cover.utf8, into: &out)
        }
        return out
    }

    /// What starts a cover's entry in an album field: `%*`, which no escaped name holds.
    static let coverMark: [UInt8] = [0x25, 0x2A]

    /// Whether an album field's entry is a cover's (see ``coverMark``).
    static func isCoverEntry(_ entry: UnsafeBufferPointer<UInt8>) -> Bool {
        entry.count > 2 && entry[0] == 0x25 && entry[1] == 0x2A
    }

    // MARK: Reading

    /// Parses one line without its newline; `nil` for anything the writer would not have written.
    package static func parse(_ line: ArraySlice<UInt8>) -> JournalLine? {
        line.withUnsafeBufferPointer { parse($0) }
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> JournalLine? {
        View(bytes).flatMap(JournalLine.init(view:))
    }

    /// Reads an album field; `nil` unless every name is valid, escaped as the writer escapes it,
    /// the names are in canonical order, and each cover (after them, in canonical order) is one
    /// of them.
    static func decodeAlbums(_ field: UnsafeBufferPointer<UInt8>) -> (albums: [String], covers: [String])? {
        var albums: [String] = []
        var covers: [String] = []
        var start = 0
        for end in 0...field.count where end == field.count || field[end] == 0x2C {
            var entry = UnsafeBufferPointer(rebasing: field[start..<end])
            let isCover = isCoverEntry(entry)
            if isCover { entry = UnsafeBufferPointer(rebasing: entry.dropFirst(2)) }
            guard !albums.isEmpty || !isCover, let name = PercentEscaping.albumName.unescape(entry), !name.isEmpty,
                let album = Names.album(String(decoding: name, as: UTF8.self)),
                // Bytes that are not UTF-8, or not NFC, do not come back as themselves.
                album.utf8.elementsEqual(name)
            else { return nil }
            if isCover {
                guard albums.contains(album), covers.last.map({ $0 < album }) ?? true else { return nil }
                covers.append(album)
            } else {
                guard covers.isEmpty, albums.last.map({ $0 < album }) ?? true else { return nil }
                albums.append(album)
            }
            start = end + 1
        }
        return (albums, covers)
    }

    /// One line's fields over its bytes, each checked as the writer writes it, with no string
    /// made: what a scan of the whole journal reads (see ``JournalReader/backwardViews(_:)``).
    ///
    /// It checks album names as bytes (their escaping) and the searchable text not at all; a
    /// ``JournalLine`` made from it also checks that names are UTF-8, NFC and in order, and that
    /// the text is UTF-8 without control bytes. So a scan of the catalog, which reads views only,
    /// does no more than it needs, and a line that reads as a whole line is what the writer wrote.
    package struct View {
        /// The whole line, without its newline.
        var line: UnsafeBufferPointer<UInt8>
        var operation: Operation
        package var at: Int64
        var bytes: Int64
        /// Where the other fields lie in ``line``: eight bytes each where a buffer takes sixteen
        /// (seventeen for an optional one), so that a view, which a scan hands on by value for
        /// every line, is half as large to copy.
        private var places = Places()

        var generation: UnsafeBufferPointer<UInt8> { field(places.generation) ?? UnsafeBufferPointer(start: nil, count: 0) }
        var image: UnsafeBufferPointer<UInt8> { field(places.image) ?? UnsafeBufferPointer(start: nil, count: 0) }
        /// `-` when the photo has no user image.
        var userImage: UnsafeBufferPointer<UInt8> { field(places.userImage) ?? UnsafeBufferPointer(start: nil, count: 0) }
        package var key: UnsafeBufferPointer<UInt8> { field(places.key) ?? UnsafeBufferPointer(start: nil, count: 0) }
        /// On `L` and `M` lines with a catalog: `-` or six lower-case hex digits.
        package var color: UnsafeBufferPointer<UInt8>? { field(places.color) }
        /// On `L` and `M` lines with a catalog of this format: when the photo was taken, in
        /// milliseconds (``StoredRecord/taken``).
        var taken: Int64? { field(places.taken).flatMap(Self.signedNumber) }
        /// On `L` and `M` lines with a catalog: the folded searchable text.
        package var text: UnsafeBufferPointer<UInt8>? { field(places.text) }
        /// The album field of an `L` or `M` line in albums, or the escaped id of a `U` line.
        package var last: UnsafeBufferPointer<UInt8>? { field(places.last) }
        /// On `U` lines that have it: the escaped record as it was.
        var unlikedRecord: UnsafeBufferPointer<UInt8>? { field(places.unlikedRecord) }

        /// A field's start in the line and its length; `start` `UInt32.max` for none.
        private struct Place {
            var start: UInt32
            var count: UInt32
            static let none = Place(start: .max, count: 0)
        }

        private struct Places {
            var generation = Place.none
            var image = Place.none
            var userImage = Place.none
            var key = Place.none
            var color = Place.none
            var taken = Place.none
            var text = Place.none
            var last = Place.none
            var unlikedRecord = Place.none
        }

        @inline(__always)
        private func field(_ place: Place) -> UnsafeBufferPointer<UInt8>? {
            guard place.start != .max, let base = line.baseAddress else { return nil }
            return UnsafeBufferPointer(start: base + Int(place.start), count: Int(place.count))
        }

        /// Where `field`, a part of ``line``, lies in it.
        @inline(__always)
        private func place(_ field: UnsafeBufferPointer<UInt8>) -> Place {
            guard let start = field.baseAddress, let base = line.baseAddress else { return Place(start: 0, count: 0) }
            return Place(start: UInt32(truncatingIfNeeded: start - base), count: UInt32(truncatingIfNeeded: field.count))
        }

        /// Parses one line without its newline; `nil` for anything the writer would not write.
        ///
        /// `checkingEveryField` false: a scan of the catalog, which reads only the operation,
        /// time, bytes, key, colour, text and albums, checks the fields' number and those it reads
        /// as numbers (the generations and the key's and albums' escaping are left to the full
        /// parse, which the index, verify and repair use).
        package init?(_ bytes: UnsafeBufferPointer<UInt8>, checkingEveryField: Bool = true) {
            guard let fields = Fields(splitting: bytes), fields.count >= 7, fields[0].count == 1,
                let operation = Operation(rawValue: fields[0][0]), let at = Self.signedNumber(fields[1]), let size = Self.number(fields[3])
            else { return nil }
            (line, self.operation, self.at, self.bytes) = (bytes, operation, at, size)
            (places.generation, places.image, places.userImage) = (place(fields[2]), place(fields[4]), place(fields[5]))
            places.key = place(fields[6])
            if checkingEveryField {
                guard hasValidFields, readOptionalFields(fields, checking: true) else { return nil }
            } else {
                // Keys are printable ASCII (escaped by StorageKey): bytes that are not could not
                // be told apart once made strings, and a scan's order rests on telling them apart.
                guard !key.isEmpty, key.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), readOptionalFields(fields, checking: false) else { return nil }
            }
        }

        /// The seven fields every operation has, checked as that operation's writer writes them.
        private var hasValidFields: Bool {
            func generationOrDash(_ field: UnsafeBufferPointer<UInt8>) -> Bool { Self.isDash(field) || Generation.isValid(field) }
            switch operation {
            case .header:
                return Generation.isValid(generation) && Self.isDash(image) && Self.isDash(userImage)
                    && (key.elementsEqual(JournalLine.formatName.utf8) || key.elementsEqual(JournalLine.unsortedFormatName.utf8)
                        || key.elementsEqual(JournalLine.formatWithoutTaken.utf8) || key.elementsEqual(JournalLine.formatWithoutCatalog.utf8))
            case .liked, .updated:
                return Generation.isValid(generation) && Generation.isValid(image) && generationOrDash(userImage) && StorageKey.isWellFormed(key)
            case .unliked, .aborted:
                return Generation.isValid(generation) && StorageKey.isWellFormed(key) && generationOrDash(image) && generationOrDash(userImage)
            case .purged:
                return Self.isDash(generation) && Self.isDash(image) && Self.isDash(userImage) && !key.isEmpty
                    && PercentEscaping.journalField.isCanonical(key)
            }
        }

        /// The fields after the seventh: a `U` line's id; an `L` or `M` line's catalog (two
        /// fields) and albums. False where the operation has no such fields, or (`checking`) one
        /// is malformed.
        private mutating func readOptionalFields(_ fields: Fields, checking: Bool) -> Bool {
            switch (operation, fields.count) {
            case (_, 7):
                return true
            case (.unliked, 8), (.unliked, 9):
                for field in 7..<fields.count {
                    guard !checking || (!fields[field].isEmpty && PercentEscaping.journalField.isCanonical(fields[field])) else { return false }
                }
                places.last = place(fields[7])
                if fields.count == 9 { places.unlikedRecord = place(fields[8]) }
                return true
            case (.liked, 8), (.updated, 8):
                places.last = place(fields[7])
                return !checking || Self.isAlbumField(fields[7])
            case (.liked, 9...), (.updated, 9...):
                var color = fields[7]
                if let slash = color.firstIndex(of: 0x2F) {
                    let taken = UnsafeBufferPointer(rebasing: color[(slash + 1)...])
                    guard !checking || Self.signedNumber(taken) != nil else { return false }
                    places.taken = place(taken)
                    color = UnsafeBufferPointer(rebasing: color[..<slash])
                }
                guard !checking || Self.isColor(color) else { return false }
                (places.color, places.text) = (place(color), place(fields[8]))
                if fields.count == 10 {
                    places.last = place(fields[9])
                    return !checking || Self.isAlbumField(fields[9])
                }
                return true
            default:
                return false
            }
        }

        static func isDash(_ field: UnsafeBufferPointer<UInt8>) -> Bool { field.count == 1 && field[0] == UInt8(ascii: "-") }

        private static func isColor(_ field: UnsafeBufferPointer<UInt8>) -> Bool {
            isDash(field) || (field.count == 6 && field.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        }

        /// Names escaped as the writer escapes them, none empty, joined by commas; a cover's
        /// after its mark.
        private static func isAlbumField(_ field: UnsafeBufferPointer<UInt8>) -> Bool {
            var start = 0
            for end in 0...field.count where end == field.count || field[end] == 0x2C {
                var name = UnsafeBufferPointer(rebasing: field[start..<end])
                if JournalLine.isCoverEntry(name) { name = UnsafeBufferPointer(rebasing: name.dropFirst(2)) }
                guard !name.isEmpty, PercentEscaping.albumName.isCanonical(name) else { return false }
                start = end + 1
            }
            return true
        }

        /// A time as the writer writes it: a number, with a minus sign before 1970 (a restored
        /// photo may have been liked then by its clock).
        private static func signedNumber(_ field: UnsafeBufferPointer<UInt8>) -> Int64? {
            guard field.first == UInt8(ascii: "-") else { return number(field) }
            return number(UnsafeBufferPointer(rebasing: field.dropFirst())).flatMap { $0 == 0 ? nil : -$0 }
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
    }

    /// A line's fields, split at single spaces without allocating: up to ten.
    fileprivate struct Fields {
        static let most = 10
        /// Where each field starts, and one past the last field's end (as if a space followed).
        private var starts: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        private let bytes: UnsafeBufferPointer<UInt8>
        private(set) var count = 1

        @inline(__always)
        init?(splitting bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            var index = 0
            // Eight bytes at a time: a mask with the high bit of each byte that is a space, and a
            // step to each set bit (a line's first 60 bytes hold seven short fields, which a byte
            // at a time walked one branch per byte); the last few bytes one by one.
            if let base = UnsafeRawPointer(bytes.baseAddress) {
                while index + 8 <= bytes.count {
                    let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ 0x2020_2020_2020_2020
                    // Exact for every byte (no borrow from one byte into the next): the high bit
                    // set where the byte is zero, that is, where it was a space.
                    var spaces = ~(((word & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | word | 0x7F7F_7F7F_7F7F_7F7F)
                    while spaces != 0 {
                        guard count < Self.most else { return nil }
                        setStart(count, index + spaces.trailingZeroBitCount / 8 + 1)
                        count += 1
                        spaces &= spaces &- 1
                    }
                    index += 8
                }
                while index < bytes.count {
                    if bytes[index] == 0x20 {
                        guard count < Self.most else { return nil }
                        setStart(count, index + 1)
                        count += 1
                    }
                    index += 1
                }
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

extension JournalLine {
    /// The line a view shows, with its strings made and its album names and text checked as
    /// names and text (which the view checks only as bytes); `nil` when they are not.
    init?(view: View) {
        func text(_ field: UnsafeBufferPointer<UInt8>) -> String { String(decoding: field, as: UTF8.self) }
        self.init(
            operation: view.operation, at: view.at, generation: text(view.generation), bytes: view.bytes, imageGeneration: text(view.image),
            userImageGeneration: View.isDash(view.userImage) ? nil : text(view.userImage), key: text(view.key))
        if let last = view.last {
            if operation == .unliked {
                // Bytes that are not UTF-8 would not read back as themselves.
                guard let bytes = PercentEscaping.journalField.unescape(last), let text = bytes.withUnsafeBufferPointer(String.validatingUTF8)
                else { return nil }
                id = text
                if let escaped = view.unlikedRecord {
                    guard let bytes = PercentEscaping.journalField.unescape(escaped) else { return nil }
                    unlikedRecord = Array(bytes)
                }
            } else {
                guard let names = Self.decodeAlbums(last) else { return nil }
                (albums, covers) = names
            }
        }
        if let color = view.color, let searchable = view.text {
            // Not UTF-8 would not read back as itself; the writer writes no control byte there
            // but the separator (a scan of the catalog does not look).
            guard searchable.allSatisfy({ $0 == TextFolding.separator || ($0 >= 0x20 && $0 != 0x7F) }),
                let text = String.validatingUTF8(searchable)
            else { return nil }
            catalog = CatalogFields(color: View.isDash(color) ? nil : String(decoding: color, as: UTF8.self), text: text, taken: view.taken)
        }
    }
}
