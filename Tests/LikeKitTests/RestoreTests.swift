// Restore through LikeKit: an export read back photo for photo, checked against its index, and
// the journal kept in the listing's order however old the restored likes are.

import Foundation
import LikeKit
import LikeStore
import LikesSupport
import TestSupport
import Testing

@Suite struct RestoreTests {
    let folder = TemporaryFolder()
    var export: URL { folder.url.appendingPathComponent("backup", isDirectory: true) }

    /// A second store beside the first, empty.
    func otherRepository(_ name: String = "other") -> LikeRepository {
        LikeRepository(directory: folder.url.appendingPathComponent(name, isDirectory: true))
    }

    /// A store of photos with everything a record can hold: ids that are no file names, several
    /// albums, notes with line breaks and tabs, photographer pictures, metadata.
    func richStore() throws -> LikeRepository {
        let repository = folder.repository()
        let trips = try AlbumName("Trips"), cats = try AlbumName("Cats & dogs"), empty = try AlbumName("Lisbon, 2024")
        try repository.like(
            PhotoID(valid: "a/b"), image: Samples.coffee, userImage: Samples.chelsea, note: "line one\nline\ttwo",
            photo: PhotoMetadata(description: "Coffee", photographer: "Ann", color: "#60544D", sourceURL: "https://unsplash.com/photos/x"),
            albums: [trips, cats, empty])
        try repository.like(PhotoID(valid: "with space"), image: Samples.chelsea, albums: [trips])
        try repository.like(PhotoID(valid: "-dash"), image: Samples.astronaut, note: "\tindented")
        try repository.like(PhotoID(valid: "🌸"), image: Samples.rocket, userImage: Samples.astronaut)
        try repository.like(PhotoID(valid: "ABC"), image: Samples.coffee)
        try repository.like(PhotoID(valid: "abc"), image: Samples.chelsea, albums: [cats])
        try repository.like(PhotoID(valid: "p13.photographer"), image: Samples.astronaut)
        return repository
    }

    /// What a restore must keep of each photo: everything but where the store keeps its files.
    func comparable(_ repository: LikeRepository) throws -> [String] {
        try repository.list(LikeQuery()).records.map { record in
            let image = try Data(contentsOf: record.image.file)
            let user = try record.userImage.map { try Data(contentsOf: $0.file) }
            return [
                record.id.rawValue, "\(record.likedAt.timeIntervalSince1970)", record.note ?? "-",
                record.albums.map(\.rawValue).joined(separator: "|"),
                String(describing: record.photo), SHA256.hexDigest(of: [UInt8](image)), user.map { SHA256.hexDigest(of: [UInt8]($0)) } ?? "-",
            ].joined(separator: " ¦ ")
        }
    }

    /// index.json without the time of the export.
    func indexWithoutTime(_ url: URL) throws -> String {
        let text = try String(contentsOf: url.appendingPathComponent("index.json"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.contains("\"exportedAt\"") }.joined(separator: "\n")
    }

    @Test(.ownLane) func restoresEveryPhotoExactlyAndExportsTheSameIndexAgain() throws {
        let original = try richStore()
        try original.export(to: export)
        let restoredStore = otherRepository()
        let report = try restoredStore.restore(from: export)

        #expect(report.restored.count == 7)
        #expect(report.alreadyLiked.isEmpty && report.refused.isEmpty)
        // Oldest first, by the ids of index.json, not the file names.
        #expect(report.restored.map(\.id.rawValue) == ["a/b", "with space", "-dash", "🌸", "ABC", "abc", "p13.photographer"])
        #expect(try comparable(restoredStore) == comparable(original))
        // Photographer pictures are user images, never photos of their own.
        #expect(try restoredStore.statistics().count == 7)
        #expect(try restoredStore.record(for: PhotoID(valid: "🌸"))?.userImage?.byteCount == Samples.astronaut.count)
        #expect(try restoredStore.albums().map(\.name.rawValue) == original.albums().map(\.name.rawValue))
        #expect(try restoredStore.verify().isOK)
        // The thumbnails came with it, made for the new store's images.
        for record in try restoredStore.list(LikeQuery()).records {
            let thumbnail = try #require(try restoredStore.thumbnail(for: record.id))
            #expect(thumbnail.byteCount > 0)
        }

        let again = folder.url.appendingPathComponent("again", isDirectory: true)
        try restoredStore.export(to: again)
        #expect(try indexWithoutTime(again) == indexWithoutTime(export))
        for name in try FileManager.default.contentsOfDirectory(atPath: export.path) where name.hasSuffix(".jpg") {
            #expect(
                try Data(contentsOf: again.appendingPathComponent(name)) == Data(contentsOf: export.appendingPathComponent(name)),
                "\(name) differs")
        }
    }

    @Test(.ownLane) func theIndexCarriesTheSHA256OfEveryFile() throws {
        try richStore().export(to: export)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: export.appendingPathComponent("index.json"))) as? [String: Any])
        let photos = try #require(json["photos"] as? [[String: Any]])
        var checked = 0
        for photo in photos {
            var files = [photo]
            if let user = photo["userImage"] as? [String: Any] { files.append(user) }
            if let thumbnail = photo["thumbnail"] as? [String: Any] { files.append(thumbnail) }
            for file in files {
                let data = try Data(contentsOf: export.appendingPathComponent(try #require(file["file"] as? String)))
                #expect(file["sha256"] as? String == SHA256.hexDigest(of: [UInt8](data)))
                #expect(file["bytes"] as? Int == data.count)
                checked += 1
            }
        }
        #expect(checked == 7 + 2 + 7)
    }

    @Test(.ownLane) func aPhotoLikedAlreadyIsLeftAsItIsAndReported() throws {
        try richStore().export(to: export)
        let target = otherRepository()
        try target.like(PhotoID(valid: "with space"), image: Samples.rocket, note: "mine")
        let report = try target.restore(from: export)
        #expect(report.alreadyLiked.map(\.id.rawValue) == ["with space"])
        #expect(report.alreadyLiked.map(\.file) == ["with_space.jpg"])
        #expect(report.restored.count == 6 && report.refused.isEmpty)
        let kept = try #require(try target.record(for: PhotoID(valid: "with space")))
        #expect(kept.note == "mine" && kept.image.byteCount == Samples.rocket.count)

        // Restoring again restores nothing more and changes nothing.
        let before = try comparable(target)
        let again = try target.restore(from: export)
        #expect(again.restored.isEmpty && again.alreadyLiked.count == 7)
        #expect(try comparable(target) == before)
    }

    @Test(.ownLane) func aFileThatDiffersFromTheIndexIsRefusedAndNamedTheRestRestored() throws {
        try richStore().export(to: export)
        // The same size, one byte changed: only the digest can tell.
        let coffee = export.appendingPathComponent("a_b.jpg")
        var bytes = try [UInt8](Data(contentsOf: coffee))
        bytes[bytes.count / 2] ^= 0x55
        try Data(bytes).write(to: coffee)
        // A photographer's picture cut short, and a photo's file gone.
        let picture = export.appendingPathComponent("photo.photographer.jpg")
        try Data(try Data(contentsOf: picture).prefix(1000)).write(to: picture)
        try FileManager.default.removeItem(at: export.appendingPathComponent("ABC-2.jpg"))

        let target = otherRepository()
        let report = try target.restore(from: export)
        let refused = Dictionary(uniqueKeysWithValues: report.refused.map { ($0.file, $0) })
        #expect(refused["a_b.jpg"]?.reason == "its SHA-256 differs from index.json")
        #expect(refused["a_b.jpg"]?.id == "a/b")
        #expect(refused["photo.photographer.jpg"]?.reason == "it has 1000 bytes where index.json says \(Samples.astronaut.count)")
        #expect(refused["ABC-2.jpg"]?.reason == "it is missing or cannot be read")
        #expect(report.restored.map(\.id.rawValue).sorted() == ["-dash", "abc", "p13.photographer", "with space"])
        #expect(try target.isLiked(PhotoID(valid: "a/b")) == false)
        #expect(try target.verify().isOK)
    }

    @Test(.ownLane) func anIndexOfAnUnknownFormatStoresNothing() throws {
        try richStore().export(to: export)
        let url = export.appendingPathComponent("index.json")
        let text = try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: "likes-export-1", with: "likes-export-2")
        try text.write(to: url, atomically: true, encoding: .utf8)
        let target = otherRepository()
        #expect(LikeRepository.isExport(export))
        #expect {
            try target.restore(from: export)
        } throws: { error in
            guard case LikeRepositoryError.unusableExport(let path, let reason) = error else { return false }
            return path == export.path && reason.contains("\"likes-export-2\"")
        }
        #expect(!FileManager.default.fileExists(atPath: target.directory.path))

        for broken in ["not json", "[1, 2]", "{\"photos\": []}", "{\"format\": \"likes-export-1\", \"photos\": 3}"] {
            try broken.write(to: url, atomically: true, encoding: .utf8)
            #expect(throws: LikeRepositoryError.self) { try target.restore(from: export) }
        }
        #expect(!FileManager.default.fileExists(atPath: target.directory.path))
    }

    @Test func aRestoreThatRefusesEverythingCreatesNoStore() async throws {
        let repository = folder.repository()
        try await repository.like(PhotoID(valid: "only"), image: Samples.coffee)
        try await repository.export(to: export)
        try Data("not the photo".utf8).write(to: export.appendingPathComponent("only.jpg"))
        let target = otherRepository()
        // Through the async overload, as an app calls it.
        let report = try await target.restore(from: export)
        #expect(report.refused.map(\.file) == ["only.jpg"] && report.restored.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: target.directory.path))
    }

    @Test(.ownLane) func hostileEntriesAreRefusedOneByOne() throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "good"), image: Samples.coffee)
        try repository.like(PhotoID(valid: "twice"), image: Samples.chelsea)
        try repository.export(to: export)
        let url = export.appendingPathComponent("index.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var photos = try #require(json["photos"] as? [[String: Any]])
        var outside = photos[0]
        outside["id"] = "outside"
        outside["file"] = "../store/likes.journal"
        var twice = photos[0]
        twice["likedAt"] = "2001-01-01T00:00:00.000Z"
        var noID = photos[1]
        noID.removeValue(forKey: "id")
        var badTime = photos[1]
        badTime["id"] = "bad time"
        badTime["likedAt"] = "yesterday"
        var badNote = photos[1]
        badNote["id"] = "bad note"
        badNote["note"] = "bell\u{07}"
        photos += [outside, twice, noID, badTime, badNote]
        json["photos"] = photos
        try JSONSerialization.data(withJSONObject: json).write(to: url)

        let target = otherRepository()
        let report = try target.restore(from: export)
        #expect(report.restored.map(\.id.rawValue).sorted() == ["good", "twice"])
        let reasons = report.refused.map { "\($0.id ?? "?"): \($0.file): \($0.reason)" }.sorted()
        #expect(
            reasons == [
                "?: index.json: its entry 5 cannot be read: it has no id",
                "bad note: index.json: its note cannot be kept: it contains the control character U+0007",
                "bad time: index.json: its likedAt is not a time",
                "outside: ../store/likes.journal: index.json names it outside the export folder",
                "twice: twice.jpg: index.json lists its id twice",
            ], "\(reasons)")
    }

    @Test(.ownLane) func anExportMadeBeforeTheDigestsIsRestoredByItsSizes() throws {
        try richStore().export(to: export)
        let url = export.appendingPathComponent("index.json")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        try lines.filter { !$0.contains("\"sha256\"") }.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        let target = otherRepository()
        #expect(try target.restore(from: export).restored.count == 7)
        #expect(try comparable(target) == comparable(folder.repository()))
    }

    @Test(.ownLane) func anAlbumsExportRestoresItsPhotosWithAllTheirAlbums() throws {
        let original = try richStore()
        try original.export(to: export, query: LikeQuery(album: try AlbumName("Cats & dogs")))
        let target = otherRepository()
        let report = try target.restore(from: export)
        #expect(report.restored.map(\.id.rawValue) == ["a/b", "abc"])
        #expect(try target.record(for: PhotoID(valid: "a/b"))?.albums.map(\.rawValue) == ["Cats & dogs", "Lisbon, 2024", "Trips"])
    }

    /// Restored likes older than the store's: the journal is marked unsorted during the restore
    /// and sorted at its end, so listings, cursors and albums read it in order.
    @Test(.ownLane) func olderLikesAmongNewerOnesKeepTheListingInOrder() throws {
        let original = try richStore()
        try original.export(to: export)
        let target = otherRepository()
        for index in 0..<5 { try target.like(PhotoID(valid: "new \(index)"), image: Samples.jpeg(seed: index)) }
        try target.restore(from: export)

        let journal = try String(contentsOf: target.directory.appendingPathComponent("likes.journal"), encoding: .utf8)
        #expect(journal.hasPrefix("J ") && journal.split(separator: "\n")[0].hasSuffix(" likes-journal-3"))
        let all = try target.list(LikeQuery()).records
        #expect(all.count == 12)
        #expect(all.map(\.likedAt) == all.map(\.likedAt).sorted(by: >))
        #expect(Array(all.prefix(5).map(\.id.rawValue)) == (0..<5).reversed().map { "new \($0)" })
        // Page by page with cursors, oldest first too.
        var paged: [PhotoID] = []
        var cursor: LikeCursor?
        repeat {
            let page = try target.list(LikeQuery(limit: 5, after: cursor))
            paged += page.records.map(\.id)
            cursor = page.next
        } while cursor != nil
        #expect(paged == all.map(\.id))
        let oldestFirst = try target.list(LikeQuery(order: .oldestFirst, limit: 3, after: LikeCursor(record: all[6]))).records
        #expect(oldestFirst.map(\.id) == all[3..<6].reversed().map(\.id))
        #expect(try target.verify().isOK)
    }

    /// What a restore that died between its batches leaves: likes out of order under the header
    /// that says so. Readers list them in order; the next change sorts the journal.
    /// Also as the version before the date taken would have left it (`-u` meant its own format
    /// then): lines without the date, read all the same, the order by date taken answered from
    /// the records, and every date written in by the sort.
    @Test(.ownLane, arguments: [false, true])
    func aJournalLeftUnsortedIsReadInOrderAndSortedByTheNextChange(byTheVersionBefore: Bool) throws {
        let repository = folder.repository()
        for index in 0..<3 { try repository.like(PhotoID(valid: "now \(index)"), image: Samples.jpeg(seed: index)) }
        try repository.store.withWriteSession(restoring: true) { session in
            for (index, time) in [Int64(1_000_000_000_000), 1_500_000_000_000, 1_200_000_000_000].enumerated() {
                let request = StoreRequest(
                    id: "old \(index)", image: try StoreRequest.Image(Samples.jpeg(seed: 10 + index), kind: .image), userImage: nil, note: nil,
                    photo: nil, albums: [])
                _ = try session.restore(request, likedAt: time)
            }
            #expect(session.isUnsorted)
        }
        let journalURL = repository.directory.appendingPathComponent("likes.journal")
        #expect(try String(contentsOf: journalURL, encoding: .utf8).split(separator: "\n")[0].hasSuffix(" likes-journal-u"))
        if byTheVersionBefore {
            let text = try String(contentsOf: journalURL, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                var fields = line.split(separator: " ", omittingEmptySubsequences: false)
                if fields.first == "L" || fields.first == "M", fields.count >= 9, let colour = fields[7].split(separator: "/").first {
                    fields[7] = colour
                }
                return fields.joined(separator: " ")
            }
            let older = Data(lines.joined(separator: "\n").utf8)
            #expect(older.count < text.utf8.count)
            try older.write(to: journalURL, options: .atomic)
            let digits = String(older.count)
            try Data(("journal-bytes " + String(repeating: "0", count: 20 - digits.count) + digits + "\n").utf8)
                .write(to: repository.directory.appendingPathComponent("likes.lock"))
        }
        var byTaken = LikeQuery()
        byTaken.orderDate = .taken
        // None has a date of its own: each was taken, as far as anyone knows, when it was liked.
        #expect(try repository.list(byTaken).records.map(\.id.rawValue) == ["now 2", "now 1", "now 0", "old 1", "old 2", "old 0"])
        let expected = ["now 2", "now 1", "now 0", "old 1", "old 2", "old 0"]
        #expect(try repository.list(LikeQuery()).records.map(\.id.rawValue) == expected)
        let second = try repository.list(
            LikeQuery(limit: 2, after: LikeCursor(record: try #require(try repository.record(for: PhotoID(valid: "now 0"))))))
        #expect(second.records.map(\.id.rawValue) == ["old 1", "old 2"])
        #expect(try repository.verify().isOK)

        try repository.setNote("sorted now", for: PhotoID(valid: "old 0"))
        let sorted = try String(contentsOf: journalURL, encoding: .utf8).split(separator: "\n")
        #expect(sorted[0].hasSuffix(" likes-journal-3"))
        #expect(sorted.filter { $0.hasPrefix("L ") }.allSatisfy { $0.split(separator: " ")[7].contains("/") }, "every line has its date taken")
        #expect(try repository.list(LikeQuery()).records.map(\.id.rawValue) == expected)
        #expect(try repository.list(byTaken).records.map(\.id.rawValue) == expected)
        #expect(try repository.verify().isOK)
    }

    /// An undo of an unlike (the gallery's): the photo comes back in its place, with its date.
    @Test(.ownLane) func aPhotoLikedAgainComesBackInItsPlace() throws {
        let repository = folder.repository()
        for index in 0..<4 { try repository.like(PhotoID(valid: "p\(index)"), image: Samples.jpeg(seed: index), note: "n\(index)") }
        let before = try repository.list(LikeQuery()).records
        let middle = before[2]
        try repository.unlike(middle.id)
        try repository.like(PhotoID(valid: "newer"), image: Samples.jpeg(seed: 9))
        let change = try #require(
            try repository.likeAgain(
                middle.id, likedAt: middle.likedAt, image: Samples.jpeg(seed: 1), userImage: nil, note: middle.note, photo: nil,
                albums: []))
        #expect(change.kind == .liked && change.record?.likedAt == middle.likedAt)
        #expect(try repository.list(LikeQuery()).records.map(\.id.rawValue) == ["newer", "p3", "p2", "p1", "p0"])
        #expect(try repository.list(LikeQuery(limit: 2, after: LikeCursor(record: before[1]))).records.map(\.id.rawValue) == ["p1", "p0"])
        let journal = try String(contentsOf: repository.directory.appendingPathComponent("likes.journal"), encoding: .utf8)
        #expect(journal.split(separator: "\n")[0].hasSuffix(" likes-journal-3"))
        #expect(try repository.likeAgain(middle.id, likedAt: Date(), image: Samples.coffee, userImage: nil, note: nil, photo: nil, albums: []) == nil)
        #expect(try repository.verify().isOK)
    }

}
