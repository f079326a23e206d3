// Notes and albums through LikeKit: what the record files, the index and observers say after each.

import Foundation
import LikeKit
import LikeStore
import LikesSupport
import TestSupport
import Testing

@Suite(.ownLane) struct NoteTests {
    @Test func settingReplacingAndClearingANoteKeepsTheImagesAndTheDate() throws {
        let folder = TemporaryFolder()
        let repository = folder.repository()
        let id = PhotoID(valid: "rocket")
        let liked = try #require(try repository.like(id, image: Samples.rocket, userImage: Samples.chelsea).record)

        let noted = try #require(try repository.setNote("Launch day\nsecond line", for: id))
        #expect(noted.kind == .updated)
        #expect(noted.record?.note == "Launch day\nsecond line")
        #expect(noted.record?.image == liked.image && noted.record?.userImage == liked.userImage)
        #expect(noted.record?.likedAt == liked.likedAt)
        #expect(try Data(contentsOf: liked.image.file) == Samples.rocket)

        // The record file on disk holds the note; the same note again writes nothing.
        let recordFile = folder.store.appendingPathComponent("records/rocket.json")
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: recordFile)) as? [String: Any]
        #expect(stored?["note"] as? String == "Launch day\nsecond line")
        let journalBefore = try Data(contentsOf: folder.store.appendingPathComponent("likes.journal"))
        #expect(try repository.setNote("Launch day\nsecond line", for: id) == nil)
        #expect(try Data(contentsOf: folder.store.appendingPathComponent("likes.journal")) == journalBefore)

        try repository.setNote("replaced", for: id)
        #expect(try repository.record(for: id)?.note == "replaced")
        #expect(try repository.list(LikeQuery(search: "REPLACED")).records.map(\.id) == [id])
        #expect(try repository.setNote(nil, for: id)?.record?.note == nil)
        #expect(try repository.record(for: id)?.note == nil)
        #expect(try repository.setNote(nil, for: id) == nil)
        #expect(try repository.list(LikeQuery(search: "replaced")).records.isEmpty)
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test(arguments: ["", "   \n", String(repeating: "x", count: 10_001), "bell\u{7}", "nul\u{0}", "c1\u{85}"])
    func badNotesAreRefusedAndChangeNothing(note: String) throws {
        let folder = TemporaryFolder()
        let repository = folder.repository()
        let id = PhotoID(valid: "a")
        try repository.like(id, image: Samples.rocket, note: "kept")
        #expect {
            try repository.setNote(note, for: id)
        } throws: { error in
            guard case .invalidNote = error as? LikeRepositoryError else { return false }
            return true
        }
        #expect(throws: LikeRepositoryError.self) { try repository.like(id, image: nil, note: note) }
        #expect(try repository.record(for: id)?.note == "kept")
    }

    @Test func aLongNoteWithTabsAndLineBreaksIsKept() throws {
        let folder = TemporaryFolder()
        let repository = folder.repository()
        let id = PhotoID(valid: "a")
        let note = String(repeating: "é\tline\r\n", count: 1_000)  // 9,000 bytes
        try repository.like(id, image: Samples.rocket)
        try repository.setNote(note, for: id)
        #expect(try folder.repository().record(for: id)?.note == note)
    }

    @Test func notesOfPhotosNotLikedAreRefused() throws {
        let folder = TemporaryFolder()
        let repository = folder.repository()
        #expect(throws: LikeRepositoryError.notLiked(id: PhotoID(valid: "ghost"))) { try repository.setNote("x", for: PhotoID(valid: "ghost")) }
        #expect(!FileManager.default.fileExists(atPath: folder.store.appendingPathComponent("records/ghost.json").path))
    }
}

@Suite struct AlbumTests {
    let folder = TemporaryFolder()
    let lisbon = try! AlbumName("Trip to Lisbon")
    let cats = try! AlbumName("Cats")

    /// Likes `ids` one millisecond apart at least, oldest first.
    func like(_ repository: LikeRepository, _ ids: [String]) throws {
        for (index, id) in ids.enumerated() {
            try repository.like(PhotoID(valid: id), image: Samples.jpeg(seed: index, scanBytes: 100 + index))
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    /// The catalog's walk back keeps in its table only photos met first at a newer line than
    /// their like: a photo liked again is met at its new `L` line, then at the `U` line before,
    /// and never at its earlier lives' lines. Each answer that walks the whole journal (albums,
    /// a search, the counts) must still see such a photo once, as it is now.
    @Test(.ownLane) func aPhotoLikedAgainIsMetOnceAsItIsNow() throws {
        let repository = folder.repository()
        let again = PhotoID(valid: "again")
        try like(repository, ["older", "again", "newer"])
        try repository.addPhotos([again], toAlbum: lisbon)
        try repository.setNote("first life", for: again)
        try repository.unlike(again)
        Thread.sleep(forTimeInterval: 0.002)
        try repository.like(again, image: Samples.jpeg(seed: 9, scanBytes: 300), note: "second life")
        try repository.addPhotos([again], toAlbum: cats)

        let albums = try repository.albums()
        #expect(albums.map(\.name) == [cats])
        #expect(albums.first?.count == 1 && albums.first?.cover?.id == again)
        #expect(try repository.list(LikeQuery(search: "life")).records.map(\.id) == [again])
        #expect(try repository.list(LikeQuery(search: "first")).records.isEmpty)
        #expect(try repository.list(LikeQuery()).records.map(\.id.rawValue) == ["again", "newer", "older"])
        #expect(try repository.statistics().count == 3)
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
    }

    /// The catalog's test of a line's album field, which decides ASCII names by their escaped
    /// bytes and leaves the others to `Names.sameAlbum`, against `Names.sameAlbum` itself: every
    /// pair of names, each in a field of one, two or three names.
    @Test(.ownLane) func theCatalogFindsAnAlbumInALineAsSameAlbumDoes() throws {
        let names = [
            "Cats", "cats", "CATS", "Cat", "Cats ", "Trip to Lisbon", "trip to lisbon", "Trip to Lisbon 2", "Trip  to Lisbon", "50%", "50% off",
            "a,b", "A,B", "a%2Cb", "Été", "été", "ÉTÉ", "Ete", "über", "Über", "ÜBER 2", "Kelvin", "kelvin", "\u{212A}elvin", "İstanbul",
            "istanbul", "ß", "SS", "한국", "かな", "~!@#$^&*()_+", "tab\tin", "Album 7", "album 7", "Album 17", "Album%207",
        ].compactMap(Names.album)
        func escaped(_ name: String) -> [UInt8] {
            var out: [UInt8] = []
            PercentEscaping.albumName.escape(name.utf8, into: &out)
            return out
        }
        for name in names {
            for (index, other) in names.enumerated() {
                let neighbours = [names[(index + 7) % names.count], names[(index + 13) % names.count]]
                for field in [[other], [neighbours[0], other], [neighbours[0], other, neighbours[1]]] {
                    let line = Array(field.map(escaped).joined(separator: [UInt8(ascii: ",")]))
                    let expected = field.contains { Names.sameAlbum($0, name) }
                    let found = line.withUnsafeBufferPointer { CatalogQuery.albumField($0, contains: escaped(name)) }
                    #expect(found == expected, "\(name) in \(field)")
                }
            }
        }
    }

    @Test(.ownLane) func albumsAreListedIgnoringCaseAndAccentsInEveryLocale() throws {
        let repository = folder.repository(durability: .relaxed)
        let names = ["Zoo", "apple", "Été", "banana", "Apple", "eta", "Ünter", "über", "한국", "かな"]
        try like(repository, names.indices.map { "p\($0)" })
        for (index, name) in names.enumerated() { try repository.addPhotos([PhotoID(valid: "p\(index)")], toAlbum: AlbumName(name)) }
        // Byte order would put "Zoo" before "apple" and "Été" after "Zoo"; people expect neither.
        // (Hangul decomposes to jamo, U+1100…, which come before kana, U+3040…)
        #expect(try repository.albums().map(\.name.rawValue) == ["Apple", "apple", "banana", "eta", "Été", "über", "Ünter", "Zoo", "한국", "かな"])
        // A record keeps its albums in byte order still, which the journal's lines rely on.
        try repository.addPhotos([PhotoID(valid: "p0")], toAlbum: AlbumName("apple"))
        #expect(try repository.record(for: PhotoID(valid: "p0"))?.albums.map(\.rawValue) == ["Zoo", "apple"])
    }

    /// Issue 35: an album is found by its name in any case, through the catalog's escaped names
    /// (`%C3%89t%C3%A9`) as through the index; renamed and deleted, its photos stay liked.
    @Test(.ownLane) func albumsMatchWithoutRegardToCaseAndAreRenamedAndDeleted() throws {
        let repository = folder.repository(durability: .relaxed)
        try like(repository, ["p0", "p1", "p2", "p3"])
        let (p0, p1, p2, p3) = (PhotoID(valid: "p0"), PhotoID(valid: "p1"), PhotoID(valid: "p2"), PhotoID(valid: "p3"))
        try repository.addPhotos([p0, p1], toAlbum: AlbumName("Été à Lisbonne"))
        try repository.addPhotos([p2], toAlbum: AlbumName("Apple, Pie"))
        let ids = { (name: String) in try repository.list(LikeQuery(album: AlbumName(name))).records.map(\.id.rawValue) }
        #expect(try ids("été À LISBONNE") == ["p1", "p0"])
        #expect(try ids("apple, pie") == ["p2"])
        #expect(try ids("APPLE, PIE") == ["p2"])
        #expect(try ids("Ete a Lisbonne").isEmpty)  // case, not accents
        #expect(try repository.list(LikeQuery(search: "pie", album: AlbumName("apple, PIE"))).records.map(\.id.rawValue) == ["p2"])
        #expect(try AlbumName("Été").sameAlbum(as: AlbumName("éTÉ")) && !(try AlbumName("Été").sameAlbum(as: AlbumName("Ete"))))

        let renamed = try repository.renameAlbum(AlbumName("ÉTÉ À LISBONNE"), to: AlbumName("Summer"))
        #expect(renamed.map(\.kind) == [.updated, .updated])
        #expect(try repository.albums().map(\.name.rawValue) == ["Apple, Pie", "Summer"])
        try repository.addPhotos([p3], toAlbum: AlbumName("Summer"))
        try repository.renameAlbum(AlbumName("apple, pie"), to: AlbumName("Summer"))
        #expect(try repository.albums().map { "\($0.name.rawValue) \($0.count)" } == ["Summer 4"])
        let deleted = try repository.deleteAlbum(AlbumName("summer"))
        #expect(deleted.count == 4)
        #expect(try repository.albums().isEmpty)
        #expect(try repository.list().records.count == 4)
        #expect(throws: LikeRepositoryError.noSuchAlbum(try AlbumName("Summer"))) { try repository.deleteAlbum(AlbumName("Summer")) }
        #expect(try repository.verify().isOK)
    }

    @Test(.ownLane) func namesAreValidatedLikeIdsAndKeptInNFC() throws {
        #expect(throws: LikeRepositoryError.self) { try AlbumName("") }
        #expect(throws: LikeRepositoryError.self) { try AlbumName("tab\there") }
        #expect(throws: LikeRepositoryError.self) { try AlbumName(String(repeating: "a", count: 257)) }
        #expect(try AlbumName(String(repeating: "a", count: 256)).rawValue.utf8.count == 256)
        let composed = try AlbumName("Caf\u{E9}")
        let decomposed = try AlbumName("Cafe\u{301}")
        #expect(composed == decomposed)
        #expect(Array(decomposed.rawValue.utf8) == Array("Caf\u{E9}".utf8))
        #expect(try AlbumName("../..").rawValue == "../..")
    }

    @Test(.ownLane) func addingListingAndRemovingPhotos() throws {
        let repository = folder.repository()
        try like(repository, ["a", "b", "c", "d"])
        let (a, b, c, d) = (PhotoID(valid: "a"), PhotoID(valid: "b"), PhotoID(valid: "c"), PhotoID(valid: "d"))

        let added = try repository.addPhotos([a, c, a], toAlbum: lisbon)
        #expect(added.map(\.kind) == [.updated, .updated])
        #expect(added.compactMap(\.record).allSatisfy { $0.albums == [lisbon] })
        #expect(try repository.addPhotos([c], toAlbum: lisbon).isEmpty)  // in it already: nothing written
        try repository.addPhotos([c, d], toAlbum: cats)

        #expect(try repository.list(LikeQuery(album: lisbon)).records.map(\.id) == [c, a])
        #expect(try repository.list(LikeQuery(order: .oldestFirst, album: lisbon)).records.map(\.id) == [a, c])
        #expect(try repository.list(LikeQuery(limit: 1, offset: 1, album: cats)).records.map(\.id) == [c])
        #expect(try repository.record(for: c)?.albums == [cats, lisbon])
        #expect(try repository.record(for: b)?.albums == [])

        let albums = try repository.albums()
        #expect(albums.map(\.name) == [cats, lisbon])
        #expect(albums.map(\.count) == [2, 2])
        #expect(albums[0].cover?.id == d && albums[1].cover?.id == c)
        let bytes = try repository.list().records.reduce(into: [PhotoID: Int]()) { $0[$1.id] = $1.totalBytes }
        #expect(albums[1].bytes == bytes[a]! + bytes[c]!)
        #expect(albums[0].newest == (try repository.record(for: d))?.likedAt)

        // The record file and the journal line carry the albums (the line after the catalog's
        // colour with the date taken, and the folded text, in which the album names are searched
        // too).
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.store.appendingPathComponent("records/c.json"))) as? [String: Any]
        #expect(file?["albums"] as? [String] == ["Cats", "Trip to Lisbon"])
        let journal = try String(contentsOf: folder.store.appendingPathComponent("likes.journal"), encoding: .utf8)
        let last = try #require(journal.split(separator: "\n").last)
        let takenAt = try #require(try repository.record(for: d)).takenAt
        #expect(last.hasSuffix(" d -/\(Timestamp.milliseconds(takenAt)) d\u{1F}cats Cats"), "\(last)")

        // Removing checks every photo first: one not in the album changes nothing.
        #expect(throws: LikeRepositoryError.notInAlbum(id: b, album: lisbon)) { try repository.removePhotos([a, b], fromAlbum: lisbon) }
        #expect(try repository.list(LikeQuery(album: lisbon)).records.count == 2)
        try repository.removePhotos([a, c], fromAlbum: lisbon)
        #expect(try repository.albums().map(\.name) == [cats])  // an empty album is gone
        #expect(try repository.list(LikeQuery(album: lisbon)).records.isEmpty)
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test(.ownLane) func addingAPhotoNotLikedChangesNothing() throws {
        let repository = folder.repository()
        try like(repository, ["a"])
        let journal = folder.store.appendingPathComponent("likes.journal")
        let before = try Data(contentsOf: journal)
        #expect(throws: LikeRepositoryError.notLiked(id: PhotoID(valid: "ghost"))) {
            try repository.addPhotos([PhotoID(valid: "a"), PhotoID(valid: "ghost")], toAlbum: lisbon)
        }
        #expect(try Data(contentsOf: journal) == before)
        #expect(try repository.albums().isEmpty)
    }

    @Test(.ownLane) func unlikingTakesAPhotoOutOfEveryAlbum() throws {
        let repository = folder.repository()
        try like(repository, ["a", "b"])
        try repository.addPhotos([PhotoID(valid: "a")], toAlbum: lisbon)
        try repository.addPhotos([PhotoID(valid: "a"), PhotoID(valid: "b")], toAlbum: cats)
        try repository.unlike(PhotoID(valid: "a"))
        #expect(try repository.albums().map { "\($0.name) \($0.count) \($0.cover?.id.rawValue ?? "-")" } == ["Cats 1 b"])
        // Liked again, it starts in no album.
        try repository.like(PhotoID(valid: "a"), image: Samples.rocket)
        #expect(try repository.record(for: PhotoID(valid: "a"))?.albums == [])
        #expect(try repository.verify().isOK)
    }

    @Test(.ownLane) func likingIntoAlbumsAddsToThoseAPhotoIsIn() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "a")
        #expect(try repository.like(id, image: Samples.rocket, albums: [lisbon, lisbon]).record?.albums == [lisbon])
        #expect(try repository.like(id, image: Samples.coffee, albums: [cats]).record?.albums == [cats, lisbon])
        #expect(try repository.toggle(PhotoID(valid: "b"), image: Samples.chelsea, albums: [cats]).record?.albums == [cats])
        let batch = try repository.likeAll([LikeItem(id: PhotoID(valid: "c"), image: Samples.astronaut, albums: [lisbon])])
        #expect(try batch[0].get().record?.albums == [lisbon])
        #expect(try repository.albums().map(\.count) == [2, 2])
    }

    @Test(.ownLane) func theIndexRebuiltFromRecordsKeepsTheAlbums() throws {
        let repository = folder.repository()
        try like(repository, ["a", "b", "c"])
        try repository.addPhotos([PhotoID(valid: "a"), PhotoID(valid: "c")], toAlbum: try AlbumName("Éte, 2026 100%"))
        let expected = try repository.albums()
        // Lose the journal: reads fall back to the record files, purge rebuilds it.
        try FileManager.default.removeItem(at: folder.store.appendingPathComponent("likes.journal"))
        #expect(try repository.albums().map(\.count) == expected.map(\.count))
        try repository.purge()
        #expect(try repository.albums() == expected)
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
        let journal = try String(contentsOf: folder.store.appendingPathComponent("likes.journal"), encoding: .utf8)
        #expect(journal.contains(" %C3%89te%2C%202026%20100%25\n"))
    }

    @Test(.ownLane) func verifyCountsEachRecordTheIndexLacksOrDescribesWrongly() throws {
        // Verify compares the index with the records by a sum of digests and, only where the sums
        // differ, entry by entry: the counts must be those of the entry by entry comparison.
        let repository = folder.repository()
        try like(repository, ["a", "b", "c", "d", "e"])
        let records = folder.store.appendingPathComponent("records")
        func edit(_ name: String, _ change: (inout [String: Any]) -> Void) throws {
            let file = records.appendingPathComponent(name + ".json")
            var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            change(&object)
            try JSONSerialization.data(withJSONObject: object).write(to: file)
        }
        try edit("a") { $0["note"] = "edited by hand" }
        try edit("b") { $0["albums"] = ["Edited"] }
        // A record the journal never named: c's, copied under another photo's key.
        var copy = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: records.appendingPathComponent("c.json"))) as? [String: Any])
        copy["id"] = "f"
        try JSONSerialization.data(withJSONObject: copy).write(to: records.appendingPathComponent("f.json"))
        try Data("not a record".utf8).write(to: records.appendingPathComponent("d.json"))  // damaged: named on its own
        let report = try repository.verify()
        #expect(report.problems.contains { $0.hasPrefix("The record file") && $0.contains("d.json") })
        #expect(
            report.problems.contains {
                $0.hasSuffix("disagrees with the record files (1 records missing from it, 2 entries stale). Repairing the store rebuilds it.")
            }, "\(report.problems)")
        #expect(report.problems.contains { $0.contains("images/f~") })  // f's record names an image f never had
        #expect(report.problems.count == 3)
    }

    @Test(.ownLane) func verifyNoticesAnIndexWhoseAlbumsDisagreeWithTheRecords() throws {
        let repository = folder.repository()
        try like(repository, ["a"])
        try repository.addPhotos([PhotoID(valid: "a")], toAlbum: lisbon)
        // Rewrite the record file without its album, as a tool editing the JSON by hand might.
        let file = folder.store.appendingPathComponent("records/a.json")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        object["albums"] = nil
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        let report = try repository.verify()
        #expect(report.problems.count == 1)
        #expect(
            report.problems.first?.hasSuffix(
                "disagrees with the record files (0 records missing from it, 1 entries stale). Repairing the store rebuilds it.") == true)
        // repair rebuilds it too, and keeps the record as it is.
        let copy = TemporaryFolder()
        try FileManager.default.removeItem(at: copy.url)
        try FileManager.default.copyItem(at: folder.url, to: copy.url)
        #expect(try copy.repository().repair().isOK)
        #expect(try copy.repository().record(for: PhotoID(valid: "a"))?.albums == [])
        // A purge trusts an index that names the records present; rebuilding it reads them.
        try repository.purge()
        #expect(!(try repository.verify().isOK))
        #expect(try repository.rebuildIndex() == 1)
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
        #expect(try repository.albums().isEmpty)
    }

    @Test(.ownLane) func aRecordWithABadAlbumNameIsDamage() throws {
        let repository = folder.repository()
        try like(repository, ["a", "b"])
        let file = folder.store.appendingPathComponent("records/a.json")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        object["albums"] = ["ok", "bad\u{1}"]
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        #expect(try repository.verify().problems.contains { $0.contains("records/a.json") })
        #expect(throws: LikeRepositoryError.self) { try repository.record(for: PhotoID(valid: "a")) }
    }

    /// Random likes, unlikes, album changes and notes; after each step, every page the journal walk
    /// answers (album, date, limit, offset) must be what the full listing filtered gives.
    @Test(.ownLane) func pagesOfAnAlbumFromTheJournalsEndMatchTheFullListing() throws {
        let repository = folder.repository(durability: .relaxed)
        let names = [try AlbumName("A"), try AlbumName("B b"), try AlbumName("Ç")]
        var generator = SystemRandomNumberGenerator()
        var dates: [Date] = []
        for step in 0..<150 {
            let id = PhotoID(valid: "p\(Int.random(in: 0..<15, using: &generator))")
            let album = names[Int.random(in: 0..<names.count, using: &generator)]
            let liked = try repository.isLiked(id)
            switch Int.random(in: 0..<6, using: &generator) {
            case 0, 1: try repository.like(id, image: Samples.jpeg(seed: step), albums: Bool.random(using: &generator) ? [album] : [])
            case 2 where liked: try repository.unlike(id)
            case 3 where liked: try repository.addPhotos([id], toAlbum: album)
            case 4 where liked: _ = try? repository.removePhotos([id], fromAlbum: album)
            case 5 where liked: try repository.setNote("n\(step)", for: id)
            default: try repository.like(id, image: Samples.jpeg(seed: step))
            }
            if step % 10 == 0 { dates.append(Date()) }
            guard step % 5 == 0 else { continue }
            let all = try repository.list().records
            for album in names + [nil] {
                for since in [nil, dates.randomElement(using: &generator)] {
                    let expected = all.filter { record in
                        (album.map(record.albums.contains) ?? true)
                            && (since.map { record.likedAt >= Timestamp.date(Timestamp.milliseconds($0)) } ?? true)
                    }
                    for (limit, offset) in [(1, 0), (3, 0), (2, 2), (50, 0)] {
                        let page = try repository.list(LikeQuery(limit: limit, offset: offset, album: album, since: since)).records
                        #expect(page == Array(expected.dropFirst(offset).prefix(limit)), "step \(step), \(album?.rawValue ?? "-"), limit \(limit)")
                    }
                }
            }
        }
    }

    @Test(.ownLane) func aPhotoInHundredsOfLongNamedAlbumsKeepsTheJournalWhole() throws {
        let repository = folder.repository(durability: .relaxed)
        try like(repository, ["a"])
        let id = PhotoID(valid: "a")
        var names: [AlbumName] = []
        for number in 0..<100 {
            let name = try AlbumName(String(repeating: "é", count: 120) + " \(number)")
            names.append(name)
            try repository.addPhotos([id], toAlbum: name)
        }
        let journal = folder.store.appendingPathComponent("likes.journal")
        let text = try String(contentsOf: journal, encoding: .utf8)
        let longest = text.split(separator: "\n").map(\.utf8.count).max() ?? 0
        #expect(longest > 70_000)
        // The next change reads the long last line back whole instead of rebuilding the journal.
        let header = text.prefix { $0 != "\n" }
        try like(repository, ["b"])
        #expect(try String(contentsOf: journal, encoding: .utf8).hasPrefix(header + "\n"))
        #expect(try String(contentsOf: journal, encoding: .utf8).split(separator: "\n").count == 103)
        #expect(try repository.record(for: id)?.albums == names.sorted())
        #expect(try repository.albums().count == 100)
        #expect(try repository.list(LikeQuery(limit: 1)).records.map(\.id.rawValue) == ["b"])
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test(.ownLane) func repositoriesAddingOnePhotoToAlbumsAtOnceLoseNoAlbum() throws {
        try like(folder.repository(), ["shared"])
        let done = DispatchSemaphore(value: 0)
        let failures = Locked([String]())
        for worker in 0..<4 {
            Thread.detachNewThread {
                // A repository each: they exclude each other through the store's file lock, as
                // processes do.
                let repository = folder.repository()
                for round in 0..<10 {
                    do {
                        try repository.addPhotos([PhotoID(valid: "shared")], toAlbum: try AlbumName("w\(worker) r\(round)"))
                        if round % 3 == 0 { try repository.setNote("worker \(worker)", for: PhotoID(valid: "shared")) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
                done.signal()
            }
        }
        for _ in 0..<4 { done.wait() }
        #expect(failures.withLock { $0 }.isEmpty)
        let record = try #require(try folder.repository().record(for: PhotoID(valid: "shared")))
        #expect(record.albums.count == 40)
        #expect(try folder.repository().albums().count == 40)
        #expect(try folder.repository().verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test func observersHearNoteAndAlbumChanges() async throws {
        let repository = folder.repository()
        try like(repository, ["a", "b"])
        var changes = repository.changes.makeAsyncIterator()
        let other = folder.repository()  // another repository: the change comes through the journal
        var seen: [String] = []
        func next() async {
            let change = await changes.next()
            let record = change?.record.map { record in "\(record.note ?? "-") \(record.albums.map { $0.rawValue })" } ?? "nil"
            seen.append("\(change?.kind.rawValue ?? "end") \(change?.id?.rawValue ?? "?") \(record)")
        }
        try await other.setNote("hello", for: PhotoID(valid: "a"))
        await next()
        try await other.addPhotos([PhotoID(valid: "a")], toAlbum: lisbon)
        await next()
        try await other.addPhotos([PhotoID(valid: "b")], toAlbum: lisbon)
        await next()
        try await other.removePhotos([PhotoID(valid: "b")], fromAlbum: lisbon)
        await next()
        try await other.unlike(PhotoID(valid: "a"))
        await next()
        #expect(
            seen == [
                "updated a hello []", "updated a hello [\"Trip to Lisbon\"]", "updated b - [\"Trip to Lisbon\"]", "updated b - []", "unliked a nil",
            ])
    }
}
