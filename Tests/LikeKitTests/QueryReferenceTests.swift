// Every kind of query against a plain reference implementation of the README's query rules on randomized stores:
// search (accents, case, Hangul, kana, emoji, ligatures, full-width letters), colour families and
// hex colours, albums, dates, orders, offsets and cursors, alone and combined; cursors while other
// likes land; and the same answers from a journal written before the catalog, before and after a
// writer upgrades it.

import Foundation
import LikeKit
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct QueryReferenceTests {
    let folder = TemporaryFolder()

    // MARK: The reference

    /// The query rules written plainly over decoded records: no catalog, no bytes, no early stop.
    struct Reference {
        var records: [PhotoID: LikeRecord] = [:]

        static let families = ["black", "white", "gray", "yellow", "orange", "red", "purple", "magenta", "green", "teal", "blue", "brown"]

        static func rgb(_ text: String?) -> (Int, Int, Int)? {
            guard var digits = text?.trimmingCharacters(in: .whitespaces) else { return nil }
            if digits.hasPrefix("#") { digits.removeFirst() }
            guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = Int(digits, radix: 16) else { return nil }
            return (value >> 16, value >> 8 & 255, value & 255)
        }

        /// The contract's rule, written out plainly: OKLab from sRGB, then lightness, chroma
        /// and hue against the bounds.
        static func family(_ color: (Int, Int, Int)) -> String {
            func linear(_ value: Int) -> Double {
                let c = Double(value) / 255
                return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
            }
            let (r, g, b) = (linear(color.0), linear(color.1), linear(color.2))
            let l = cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b)
            let m = cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b)
            let s = cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
            let lightness = 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s
            let a = 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s
            let bb = 0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s
            let chroma = (a * a + bb * bb).squareRoot()
            let hue = (atan2(bb, a) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
            if chroma < 0.035 { return lightness < 0.30 ? "black" : lightness > 0.90 ? "white" : "gray" }
            if lightness < 0.22 { return "black" }
            if (20..<100).contains(hue), chroma < 0.13, lightness < 0.70 { return "brown" }
            switch hue {
            case ..<45: return "red"
            case ..<75: return "orange"
            case ..<110: return "yellow"
            case ..<175: return "green"
            case ..<215: return "teal"
            case ..<285: return "blue"
            case ..<320: return "purple"
            default: return lightness >= 0.55 ? "magenta" : "purple"
            }
        }

        static func colorMatches(_ filter: String, _ color: String?) -> Bool {
            guard let photo = rgb(color) else { return false }
            if let wanted = rgb(filter) { return wanted == photo }
            return family(photo) == filter.lowercased()
        }

        static func scalars(_ text: String) -> [Unicode.Scalar] { Array(TextFolding.fold(text).unicodeScalars) }

        static func contains(_ text: [Unicode.Scalar], _ word: [Unicode.Scalar]) -> Bool {
            guard word.count <= text.count else { return false }
            return (0...(text.count - word.count)).contains { Array(text[$0..<($0 + word.count)]) == word }
        }

        static func searchMatches(_ search: String, _ record: LikeRecord) -> Bool {
            let fields =
                [record.id.rawValue, record.photo?.description, record.photo?.photographer, record.photo?.photographerUsername, record.note]
                .compactMap { $0 } + record.albums.map(\.rawValue)
            let words = search.split(whereSeparator: \.isWhitespace).map { scalars(String($0)) }.filter { !$0.isEmpty }
            return words.allSatisfy { word in fields.contains { contains(scalars($0), word) } }
        }

        static func place(_ record: LikeRecord) -> (Int64, String) { (Timestamp.milliseconds(record.likedAt), record.id.storageKey) }
        /// The contract's date taken: the camera's date (read as UTC without an offset), else the
        /// source's, else the like's.
        static func taken(_ record: LikeRecord) -> Date {
            if let text = record.exif?.takenAt {
                let formatter = ISO8601DateFormatter()
                if let date = formatter.date(from: text.count == 19 ? text + "Z" : text) { return date }
            }
            return record.photo?.createdAt ?? record.likedAt
        }
        static func place(_ record: LikeRecord, _ orderDate: LikeQuery.OrderDate) -> (Int64, String) {
            orderDate == .liked ? place(record) : (Int64((taken(record).timeIntervalSince1970 * 1000).rounded()), record.id.storageKey)
        }

        /// The listing a query asks for, and whether more follows it.
        func list(_ query: LikeQuery) -> (ids: [PhotoID], more: Bool) {
            var matching = records.values.filter { record in
                if let album = query.album, !record.albums.contains(album) { return false }
                if let since = query.since, record.likedAt < since { return false }
                if let color = query.color, !Self.colorMatches(color, record.photo?.color) { return false }
                if let search = query.search, !Self.searchMatches(search, record) { return false }
                if let after = query.after {
                    let cursor = (after.place.likedAt, after.place.key)
                    let place = Self.place(record, query.orderDate)
                    return query.order == .newestFirst ? place < cursor : cursor < place
                }
                return true
            }
            let date = query.orderDate
            matching.sort { query.order == .newestFirst ? Self.place($0, date) > Self.place($1, date) : Self.place($0, date) < Self.place($1, date) }
            let rest = matching.dropFirst(query.offset)
            let page = rest.prefix(query.limit ?? rest.count)
            return (page.map(\.id), rest.count > page.count)
        }
    }

    // MARK: A randomized store

    /// Deterministic, so that a failure names a seed that reproduces it.
    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let words = [
        "Café", "cafe", "CAFÉ", "naïve", "Straße", "STRASSE", "서울", "한국어", "ソウル", "ガギグ", "カキク", "ﾊﾟﾝ", "😀", "🐈‍⬛", "👍🏽",
        "Ñandú", "Ærøskøbing", "İstanbul", "ﬁsh", "ｃａｔ", "cat", "Dog", "tram", "Lisbon", "ℌello", "ǅemal", "Ⅻ",
    ]
    static let albums = ["Trip to Lisbon", "Été", "서울", "Cats", "ガ", "ete"].map { try! AlbumName($0) }
    static let colors: [String?] = ["#60544D", "#0C2340", "#D9D9D9", "#262626", "#A67359", "#FFD700", "#1e90ff", "ff8c00", " #228B22 ", "red", nil]

    static func text(_ random: inout Random, words count: Int) -> String {
        (0..<count).map { _ in words.randomElement(using: &random)! }.joined(separator: Bool.random(using: &random) ? " " : "\n")
    }

    static func metadata(_ random: inout Random) -> PhotoMetadata? {
        guard random.next() % 5 != 0 else { return nil }
        return PhotoMetadata(
            description: random.next() % 4 == 0 ? nil : text(&random, words: Int(random.next() % 4)),
            photographer: text(&random, words: 1 + Int(random.next() % 2)),
            photographerUsername: random.next() % 3 == 0 ? nil : "user\(random.next() % 9)",
            color: colors.randomElement(using: &random)!,
            // Days of a few years, many shared: the order by date taken breaks ties by key.
            createdAt: random.next() % 3 == 0 ? nil : Date(timeIntervalSince1970: 1_400_000_000 + Double(random.next() % 40) * 86_400 * 30))
    }

    /// A store of liked, updated, unliked and liked-again photos, and the reference beside it.
    func makeStore(seed: UInt64, count: Int) throws -> (LikeRepository, Reference, Random) {
        var random = Random(state: seed)
        let repository = folder.repository(durability: .relaxed)
        var reference = Reference()
        func keep(_ change: LikeChange) {
            if let record = change.record, let id = change.id { reference.records[id] = record }
        }
        var ids: [PhotoID] = []
        for index in 0..<count {
            let suffix = random.next() % 3 == 0 ? "-" + Self.words.randomElement(using: &random)! : ""
            ids.append(try PhotoID("P\(index)\(suffix)"))
        }
        let items = ids.map { id in
            LikeItem(
                id: id, image: Samples.jpeg(seed: Int(random.next() % 1000), scanBytes: 16),
                note: random.next() % 4 == 0 ? Self.text(&random, words: 2) : nil, photo: Self.metadata(&random),
                albums: Array(Self.albums.shuffled(using: &random).prefix(Int(random.next() % 3))))
        }
        for result in try repository.likeAll(items) { keep(try result.get()) }
        for _ in 0..<(count / 2) {
            let id = ids.randomElement(using: &random)!
            let liked = reference.records[id] != nil
            switch random.next() % 6 {
            case 0 where liked:
                // nil: the photo had that note already.
                if let change = try repository.setNote(random.next() % 3 == 0 ? nil : Self.text(&random, words: 2), for: id) { keep(change) }
            case 1 where liked:
                for change in try repository.addPhotos([id], toAlbum: Self.albums.randomElement(using: &random)!) { keep(change) }
            case 2 where liked && !reference.records[id]!.albums.isEmpty:
                for change in try repository.removePhotos([id], fromAlbum: reference.records[id]!.albums.first!) { keep(change) }
            case 3 where liked:
                keep(try repository.like(id, image: nil, photo: Self.metadata(&random) ?? PhotoMetadata(color: "#FFFFFF")))
            case 4 where liked:
                _ = try repository.unlike(id)
                reference.records[id] = nil
            default:
                keep(try repository.like(id, image: Samples.jpeg(seed: 7, scanBytes: 16), note: liked ? nil : "again"))
            }
        }
        return (repository, reference, random)
    }

    /// A random query built from what the store holds, so that most filters find something.
    static func query(_ random: inout Random, _ reference: Reference) -> LikeQuery {
        let records = Array(reference.records.values)
        var query = LikeQuery(order: random.next() % 3 == 0 ? .oldestFirst : .newestFirst)
        query.orderDate = random.next() % 2 == 0 ? .taken : .liked
        query.limit = [nil, 1, 3, 10, 40].randomElement(using: &random)!
        query.offset = [0, 0, 0, 2, 7].randomElement(using: &random)!
        if random.next() % 2 == 0 {
            var words: [String] = []
            for _ in 0..<(1 + random.next() % 2) {
                let word = Self.words.randomElement(using: &random)!
                // Whole words, parts of them, and other spellings of them.
                switch random.next() % 4 {
                case 0: words.append(String(word.prefix(2)))
                case 1: words.append(word.uppercased())
                case 2: words.append("zz" + word)
                default: words.append(word)
                }
            }
            query.search = words.joined(separator: " ")
        }
        if random.next() % 3 == 0 {
            query.color = (Reference.families + ["#60544d", "0C2340", "#FFD700"]).randomElement(using: &random)!
        }
        if random.next() % 4 == 0 { query.album = Self.albums.randomElement(using: &random)! }
        if random.next() % 5 == 0, let record = records.randomElement(using: &random) { query.since = record.likedAt }
        if random.next() % 3 == 0, let record = records.randomElement(using: &random) {
            query.after = LikeCursor(record: record, orderDate: query.orderDate)
        }
        return query
    }

    static func check(_ repository: LikeRepository, _ reference: Reference, _ query: LikeQuery, _ context: String) throws {
        let listing = try repository.list(query)
        let expected = reference.list(query)
        #expect(listing.records.map(\.id) == expected.ids, "\(context): \(query)")
        #expect((listing.next != nil) == expected.more, "\(context): more after \(query)")
        if let next = listing.next, let last = listing.records.last { #expect(next == LikeCursor(record: last, orderDate: query.orderDate)) }
        #expect(listing.damage.isEmpty, "\(context)")
    }

    /// Rewrites the store's journal as the format before the date taken joined the catalog
    /// (`likes-journal-2`: a colour with no `/` and date after it), and notes its length in the
    /// lock file. Returns the journal's place.
    @discardableResult
    func writeJournalWithoutTaken() throws -> URL {
        let journal = folder.store.appendingPathComponent("likes.journal")
        let lines = try String(contentsOf: journal, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var fields = line.split(separator: " ", omittingEmptySubsequences: false)
            if fields.first == "J" { fields[6] = "likes-journal-2" }
            if fields.first == "L" || fields.first == "M", fields.count >= 9 {
                fields[7] = try #require(fields[7].split(separator: "/").first)
            }
            return fields.joined(separator: " ")
        }
        let converted = Data(lines.joined(separator: "\n").utf8)
        #expect(converted.count < (try Data(contentsOf: journal)).count, "the dates were there to take out")
        try converted.write(to: journal, options: .atomic)
        let digits = String(converted.count)
        try Data(("journal-bytes " + String(repeating: "0", count: 20 - digits.count) + digits + "\n").utf8)
            .write(to: folder.store.appendingPathComponent("likes.lock"))
        return journal
    }

    /// Rewrites the store's journal as the format before the catalog wrote it (no colour and no
    /// text on `L` and `M` lines), optionally with its middle line garbled, and notes its length
    /// in the lock file, as the writer of that journal would have. Returns the journal's place.
    @discardableResult
    func writeJournalWithoutCatalog(garblingTheMiddleLine: Bool = false) throws -> URL {
        let journal = folder.store.appendingPathComponent("likes.journal")
        var lines = try String(contentsOf: journal, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var fields = line.split(separator: " ", omittingEmptySubsequences: false)
            if fields.first == "J" { fields[6] = "likes-journal-1" }
            if fields.first == "L" || fields.first == "M", fields.count >= 9 { fields.removeSubrange(7...8) }
            return fields.joined(separator: " ")
        }
        if garblingTheMiddleLine { lines[lines.count / 2] = "garbled" }
        let converted = Data(lines.joined(separator: "\n").utf8)
        try converted.write(to: journal, options: .atomic)  // a new file, as that writer made it: no note on it
        let digits = String(converted.count)
        try Data(("journal-bytes " + String(repeating: "0", count: 20 - digits.count) + digits + "\n").utf8)
            .write(to: folder.store.appendingPathComponent("likes.lock"))
        return journal
    }

    // MARK: The tests

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyKindOfQueryAgreesWithTheReference(seed: UInt64) throws {
        var (repository, reference, random) = try makeStore(seed: seed, count: 160)
        for index in 0..<250 {
            try Self.check(repository, reference, Self.query(&random, reference), "seed \(seed), query \(index)")
        }
        // Counted from the catalog as the reference counts them.
        let statistics = try repository.statistics()
        #expect(statistics.count == reference.records.count)
        #expect(statistics.bytes == reference.records.values.reduce(0) { $0 + $1.totalBytes })
        #expect(statistics.newest == reference.records.values.map(\.likedAt).max())
        for summary in try repository.albums() {
            let members = reference.records.values.filter { $0.albums.contains(summary.name) }
            #expect(summary.count == members.count, "\(summary.name)")
            #expect(summary.bytes == members.reduce(0) { $0 + $1.totalBytes })
            #expect(summary.cover?.id == members.max { Reference.place($0) < Reference.place($1) }?.id)
        }
        #expect(try repository.verify().problems.isEmpty)
    }

    /// The months of a listing against Foundation's calendar at the same offset, for filtered
    /// listings too, with each month's cursor starting its page at the month's newest photo.
    @Test(arguments: [0, 3600, -5 * 3600 - 1800, 14 * 3600] as [Int])
    func monthsAgreeWithTheCalendarAndTheirCursorsStartEachMonth(offset: Int) throws {
        var random = Random(state: UInt64(abs(offset) + 11))
        let repository = folder.repository(durability: .relaxed)
        // Around month ends and a leap day, across years, and one before 1970 (a restored photo
        // may have been liked then by its clock).
        let base = Date(timeIntervalSince1970: 1_709_164_800)  // 2024-02-29T00:00Z
        for index in 0..<120 {
            let shift = Double(Int(random.next() % 900) - 600) * 86_400 + Double(Int(random.next() % 86_400))
            let likedAt = index == 0 ? Date(timeIntervalSince1970: -86_400 * 40) : base.addingTimeInterval(shift)
            let id = try PhotoID("M\(index)")
            _ = try repository.likeAgain(
                id, likedAt: likedAt, image: Samples.jpeg(seed: index, scanBytes: 16), userImage: nil, note: nil,
                photo: Self.metadata(&random), albums: index % 3 == 0 ? [try AlbumName("Thirds")] : [])
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: offset)!
        for query in [LikeQuery(), LikeQuery(album: try AlbumName("thirds")), LikeQuery(color: "blue")] {
            let listed = try repository.list(query).records
            var expected: [(Int, Int, Int)] = []
            for record in listed {
                let parts = calendar.dateComponents([.year, .month], from: record.likedAt)
                if let last = expected.last, last.0 == parts.year!, last.1 == parts.month! {
                    expected[expected.count - 1].2 += 1
                } else {
                    expected.append((parts.year!, parts.month!, 1))
                }
            }
            #expect(try repository.listedIDs(query) == listed.map(\.id), "\(query)")
            let months = try repository.months(query, utcOffset: offset)
            #expect(months.map { [$0.year, $0.month, $0.count] } == expected.map { [$0.0, $0.1, $0.2] }, "\(query)")
            #expect(months.first?.start == nil)
            var seen = 0
            for month in months {
                var page = query
                page.limit = 1
                page.after = month.start
                let got = try repository.list(page).records.map { ($0.id, $0.likedAt) }
                #expect(got.first?.0 == listed[seen].id, "\(month): \(got)")
                seen += month.count
            }
        }
    }

    @Test func foldingFindsAccentsCaseHangulKanaAndCompatibilityForms() throws {
        let repository = folder.repository(durability: .relaxed)
        let texts = [
            "a": "Café au lait", "b": "서울의 밤", "c": "ガギグ and ﾊﾟﾝ", "d": "STRASSE", "e": "ﬁsh and ｃａｔ", "f": "🐈‍⬛ at İstanbul",
            "g": "naïve\u{00A0}art",
        ]
        for (id, text) in texts { try repository.like(PhotoID(valid: id), image: Samples.jpeg(scanBytes: 8), note: text) }
        try repository.like(PhotoID(valid: "h"), image: Samples.jpeg(scanBytes: 8), note: "tram", photo: PhotoMetadata(description: "way"))
        func ids(_ search: String) throws -> [String] { try repository.list(LikeQuery(search: search)).records.map(\.id.rawValue).sorted() }
        #expect(try ids("cafe") == ["a"])
        #expect(try ids("CAFÉ LAIT") == ["a"])
        #expect(try ids("서울") == ["b"])
        #expect(try ids("서") == ["b"])  // a syllable's first jamo, as folded text is decomposed
        #expect(try ids("カキク") == ["c"])  // voicing marks folded away
        #expect(try ids("パン") == ["c"])  // half-width kana are kana
        #expect(try ids("straße") == ["d"])
        #expect(try ids("fish cat") == ["e"])
        #expect(try ids("🐈‍⬛ istanbul") == ["f"])
        #expect(try ids("naive art") == ["g"])
        #expect(try ids("naive\u{00A0}art") == ["g"])  // a no-break space separates words too
        #expect(try ids("ve ar") == ["g"])  // each word on its own
        #expect(try ids("waytram") == [] && ids("ytr") == [])  // no word matches across two fields
        #expect(try ids("way tram") == ["h"])
        #expect(try ids("zzz") == [])
    }

    @Test func colourFamiliesFollowTheOKLChRule() throws {
        let repository = folder.repository(durability: .relaxed)
        // The contract's examples, each in the family it names; and a colour that is none.
        let examples = [
            "#363F56": "blue", "#0C2640": "blue", "#1A3326": "green", "#8C7355": "brown", "#60544D": "gray", "#D9A640": "yellow",
            "#F0A0C0": "magenta", "#800080": "purple", "#262626": "black", "#D9D9D9": "gray", "#F3F3F3": "white",
        ]
        var colors = ["none": "not a colour", "blue": "#1e90ff"]
        for (index, color) in examples.keys.sorted().enumerated() { colors["example\(index)"] = color }
        for (id, color) in colors { try repository.like(PhotoID(valid: id), image: Samples.jpeg(scanBytes: 8), photo: PhotoMetadata(color: color)) }
        for (color, family) in examples {
            #expect(Reference.rgb(color).map(Reference.family) == family, "the reference puts \(color) elsewhere")
            let found = try repository.list(LikeQuery(color: family)).records.compactMap { $0.photo?.color }
            #expect(found.contains(color), "\(color) is not listed as \(family)")
        }
        for name in Reference.families {
            let found = try repository.list(LikeQuery(color: name)).records.map(\.id.rawValue).sorted()
            let expected = colors.filter { Reference.rgb($0.value).map(Reference.family) == name }.keys.sorted()
            #expect(found == expected, "\(name)")
        }
        // Every 24-bit colour on a coarse grid, the library's rule against the reference's.
        for red in stride(from: 0, through: 255, by: 15) {
            for green in stride(from: 0, through: 255, by: 15) {
                for blue in stride(from: 0, through: 255, by: 15) {
                    let value = UInt32(red << 16 | green << 8 | blue)
                    #expect(ColorFilter.families[ColorFilter.family(of: value)] == Reference.family((red, green, blue)), "\(red) \(green) \(blue)")
                }
            }
        }
        #expect(try repository.list(LikeQuery(color: "#1E90FF")).records.map(\.id.rawValue) == ["blue"])
        #expect(throws: LikeRepositoryError.self) { try repository.list(LikeQuery(color: "bluish")) }
    }

    @Test(arguments: [LikeQuery.Order.newestFirst, .oldestFirst], [LikeQuery.OrderDate.liked, .taken])
    func cursorPagesNeverRepeatOrSkipAPhotoWhileOthersAreLikedAndUnliked(order: LikeQuery.Order, orderDate: LikeQuery.OrderDate) throws {
        let repository = folder.repository(durability: .relaxed)
        var random = Random(state: 42)
        // Taken on one of 30 days, in no order of the likes: new likes land before and after
        // the pages already read.
        func taken() -> PhotoMetadata { PhotoMetadata(createdAt: Date(timeIntervalSince1970: 1_500_000_000 + Double(random.next() % 30) * 86_400)) }
        for index in 0..<60 { try repository.like(PhotoID(valid: "p\(index)"), image: Samples.jpeg(seed: index, scanBytes: 8), photo: taken()) }
        var stayed = Set((0..<60).map { PhotoID(valid: "p\($0)") })
        var seen: [LikeRecord] = []
        var query = LikeQuery(order: order, limit: 7)
        query.orderDate = orderDate
        var added = 0
        while true {
            let listing = try repository.list(query)
            seen += listing.records
            guard let next = listing.next else { break }
            query.after = next
            // Between two pages: new likes, and unlikes of photos seen and not yet seen.
            for _ in 0..<2 {
                try repository.like(PhotoID(valid: "new\(added)"), image: Samples.jpeg(seed: 100 + added, scanBytes: 8), photo: taken())
                added += 1
            }
            if let gone = stayed.randomElement(using: &random) {
                _ = try repository.unlike(gone)
                stayed.remove(gone)
            }
        }
        let ids = seen.map(\.id)
        #expect(Set(ids).count == ids.count, "no photo twice")
        #expect(stayed.isSubset(of: Set(ids)), "every photo liked throughout was listed")
        let places = seen.map { Reference.place($0, orderDate) }
        #expect(zip(places, places.dropFirst()).allSatisfy { order == .newestFirst ? $0 > $1 : $0 < $1 }, "in the listing's order")
    }

    @Test func aJournalWrittenBeforeTheCatalogAnswersTheSameAndTheNextWriterUpgradesIt() throws {
        var (repository, reference, random) = try makeStore(seed: 9, count: 60)
        let journal = try writeJournalWithoutCatalog()
        for index in 0..<80 { try Self.check(repository, reference, Self.query(&random, reference), "old journal, query \(index)") }
        #expect(try repository.verify().problems.isEmpty)

        let id = try #require(reference.records.keys.first)
        reference.records[id] = try #require(try repository.setNote("upgraded", for: id)?.record)
        #expect(
            try String(contentsOf: journal, encoding: .utf8).hasPrefix("J ")
                && String(contentsOf: journal, encoding: .utf8).contains("likes-journal-3"))
        for index in 0..<80 { try Self.check(repository, reference, Self.query(&random, reference), "upgraded journal, query \(index)") }
        #expect(try repository.verify().problems.isEmpty)
    }

    @Test func aJournalWrittenBeforeTheDateTakenAnswersTheSameAndTheNextWriterUpgradesIt() throws {
        var (repository, reference, random) = try makeStore(seed: 13, count: 60)
        let journal = try writeJournalWithoutTaken()
        for index in 0..<80 { try Self.check(repository, reference, Self.query(&random, reference), "journal 2, query \(index)") }
        #expect(try repository.verify().problems.isEmpty)

        let id = try #require(reference.records.keys.first)
        reference.records[id] = try #require(try repository.setNote("upgraded", for: id)?.record)
        let text = try String(contentsOf: journal, encoding: .utf8)
        #expect(text.split(separator: "\n")[0].hasSuffix(" likes-journal-3"))
        let likes = text.split(separator: "\n").filter { $0.hasPrefix("L ") }
        #expect(likes.count == reference.records.count && likes.allSatisfy { $0.split(separator: " ")[7].contains("/") })
        for index in 0..<80 { try Self.check(repository, reference, Self.query(&random, reference), "upgraded journal, query \(index)") }
        #expect(try repository.verify().problems.isEmpty)
    }

    @Test func aDamagedJournalStillListsWhatTheQueryAsks() throws {
        var (repository, reference, random) = try makeStore(seed: 5, count: 40)
        let journal = folder.store.appendingPathComponent("likes.journal")
        // Cut short (the lock file notes its length): every query takes the sure path.
        let bytes = try Data(contentsOf: journal)
        try bytes.prefix(bytes.count / 2).write(to: journal)
        for index in 0..<60 {
            let query = Self.query(&random, reference)
            let listing = try repository.list(query)
            #expect(listing.records.map(\.id) == reference.list(query).ids, "query \(index): \(query)")
            #expect(!listing.damage.isEmpty)
        }
    }

    @Test func upgradingAJournalDamagedInTheMiddleRebuildsItFromTheRecordsAndLosesNoPhoto() throws {
        let (repository, reference, _) = try makeStore(seed: 11, count: 40)
        try writeJournalWithoutCatalog(garblingTheMiddleLine: true)  // the end sound
        // The next change upgrades the journal; every photo must still be listed by it.
        try repository.like(PhotoID(valid: "new"), image: Samples.jpeg(seed: 3, scanBytes: 8))
        let listed = Set(try repository.list().records.map(\.id))
        #expect(listed == Set(reference.records.keys).union([PhotoID(valid: "new")]))
        #expect(try repository.verify().problems.isEmpty)
    }
}
