// Every operation of the repository on real files: what lands on disk and what comes back.

import Foundation
import LikeKit
import LikeStore
import LikesSupport
import TestSupport
import Testing

@Suite(.ownLane) struct LikeRepositoryTests {
    let folder = TemporaryFolder()

    @Test func likingStoresTheRecordAndAByteIdenticalImage() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "Dwu85P9SOIk")
        let change = try repository.like(id, image: Samples.rocket, note: "launch", photo: PhotoMetadata(photographer: "SpaceX", color: "#60544D"))

        #expect(change.kind == .liked)
        let record = try #require(try repository.record(for: id))
        #expect(record == change.record)
        #expect(record.id == id)
        #expect(record.note == "launch")
        #expect(record.photo?.photographer == "SpaceX")
        #expect(record.image.byteCount == Samples.rocket.count)
        #expect(record.image.width == 640 && record.image.height == 427)
        #expect(record.image.file.path.hasPrefix(folder.store.path + "/images/"))
        #expect(try Data(contentsOf: record.image.file) == Samples.rocket)
        #expect(try repository.isLiked(id))
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test func theStoreDirectoryIsStandardizedAsFoundationStandardizesIt() throws {
        try FileManager.default.createDirectory(at: folder.store, withIntermediateDirectories: true)
        let base = folder.store.path
        let relative = FileManager.default.currentDirectoryPath
        let paths = [
            base, base + "/", base + "//", base + "/.", base + "/./", base + "/../" + folder.store.lastPathComponent, base + "/missing",
            base + "/missing/", base + "/...", base + "/a/..", "/", "relative/store", "./relative", "../up", relative,
        ]
        for path in paths {
            for url in [URL(fileURLWithPath: path), URL(fileURLWithPath: path, isDirectory: true), URL(fileURLWithPath: path, isDirectory: false)] {
                let (ours, ourPath) = LikeRepository.standardized(url)
                #expect(ours == url.standardizedFileURL, "\(path)")
                #expect(ours.path == url.standardizedFileURL.path && ours.hasDirectoryPath == url.standardizedFileURL.hasDirectoryPath)
                #expect(ourPath == url.standardizedFileURL.path, "\(path)")
            }
            // The command line's way in, from the path as given.
            let repository = LikeRepository(path: path, durability: .full, lockTimeout: 1)
            let expected = URL(fileURLWithPath: path).standardizedFileURL
            #expect(repository.directory == expected, "\(path)")
            #expect(repository.directory.hasDirectoryPath == expected.hasDirectoryPath, "\(path)")
            #expect(repository.path == expected.path, "\(path)")
        }
    }

    @Test func storeDirectoryIsPrivate() throws {
        try folder.repository().like(PhotoID(valid: "a"), image: Samples.chelsea)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.store.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
    }

    @Test func likingAgainUpdatesOnlyWhatIsGivenAndKeepsLikedAt() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "photo")
        let first = try #require(
            try repository.like(
                id, image: Samples.rocket, userImage: Samples.chelsea, note: "first", photo: PhotoMetadata(description: "a rocket", color: "#111111")
            ).record)
        Thread.sleep(forTimeInterval: 0.005)

        let second = try #require(try repository.like(id, image: Samples.coffee, photo: PhotoMetadata(photographer: "Rachel")).record)

        #expect(second.likedAt == first.likedAt)
        #expect(second.note == "first")
        #expect(second.photo == PhotoMetadata(description: "a rocket", photographer: "Rachel", color: "#111111"))
        #expect(second.userImage == first.userImage)
        #expect(try Data(contentsOf: second.image.file) == Samples.coffee)
        #expect(!FileManager.default.fileExists(atPath: first.image.file.path), "the replaced image is removed")
        #expect(try Data(contentsOf: try #require(second.userImage).file) == Samples.chelsea)
        #expect(try repository.purge(dryRun: true).files == [])
    }

    @Test func updatingWithoutAnImageKeepsTheImage() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "photo")
        let first = try #require(try repository.like(id, image: Samples.rocket).record)
        let change = try repository.like(id, image: nil, note: "only a note")
        #expect(change.kind == .updated)
        #expect(change.record?.image == first.image)
        #expect(change.record?.note == "only a note")
    }

    @Test func firstLikeWithoutAnImageIsRefused() throws {
        let id = PhotoID(valid: "nothing")
        #expect(throws: LikeRepositoryError.imageRequired(id: id)) { try folder.repository().like(id, image: nil) }
    }

    @Test func notAJPEGIsRefusedAndNothingIsWritten() throws {
        let repository = folder.repository()
        #expect(throws: LikeRepositoryError.notJPEG(image: .image, reason: "the data is empty")) {
            try repository.like(PhotoID(valid: "x"), image: Data())
        }
        #expect(throws: LikeRepositoryError.notJPEG(image: .userImage, reason: "it is a GIF image, not a JPEG")) {
            try repository.like(PhotoID(valid: "x"), image: Samples.rocket, userImage: Data("GIF89a".utf8))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.store.path))
    }

    @Test func unlikingRemovesTheRecordAndEveryImageOfIt() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "photo")
        let other = PhotoID(valid: "other")
        try repository.like(id, image: Samples.rocket, userImage: Samples.chelsea)
        try repository.like(other, image: Samples.coffee)

        let change = try repository.unlike(id)

        #expect(change.kind == .unliked)
        #expect(change.files.count == 3)
        #expect(try repository.record(for: id) == nil)
        #expect(try !repository.isLiked(id))
        let remaining = folder.files(under: "store").filter { $0.hasPrefix("images/") || $0.hasPrefix("records/") }
        #expect(
            remaining == [
                "images/other~\(try #require(try repository.record(for: other)).image.fileName.split(separator: "~")[1])", "records/other.json",
            ])
        #expect(try repository.verify().isOK)
    }

    @Test func unlikingWhatIsNotLikedSaysSo() throws {
        let id = PhotoID(valid: "ghost")
        let error = #expect(throws: LikeRepositoryError.notLiked(id: id)) { try folder.repository().unlike(id) }
        #expect(error?.description == "Photo \"ghost\" is not liked.")
        // An app shows it as it is: no command of the command line in it.
        #expect(error?.localizedDescription.contains("likes ") == false)
    }

    @Test func toggleFlipsTheState() throws {
        let repository = folder.repository()
        let id = PhotoID(valid: "heart")
        #expect(try repository.toggle(id, image: Samples.rocket).kind == .liked)
        #expect(try repository.isLiked(id))
        #expect(try repository.toggle(id, image: nil).kind == .unliked)
        #expect(try !repository.isLiked(id))
        #expect(throws: LikeRepositoryError.imageRequired(id: id)) { try repository.toggle(id, image: nil) }
    }

    @Test func listIsNewestFirstWithPagingAndOldestFirstOnRequest() throws {
        let repository = folder.repository()
        let ids = (0..<7).map { PhotoID(valid: "p\($0)") }
        for (index, id) in ids.enumerated() {
            try repository.like(id, image: Samples.jpeg(seed: index))
        }
        #expect(try repository.list().records.map(\.id) == ids.reversed())
        #expect(try repository.list(LikeQuery(limit: 3)).records.map(\.id) == Array(ids.reversed().prefix(3)))
        #expect(try repository.list(LikeQuery(limit: 3, offset: 5)).records.map(\.id) == [ids[1], ids[0]])
        #expect(try repository.list(LikeQuery(order: .oldestFirst, limit: 2, offset: 1)).records.map(\.id) == [ids[1], ids[2]])
        #expect(try repository.list(LikeQuery(limit: 0)).records.isEmpty)
        #expect(try repository.list(LikeQuery(offset: 99)).records.isEmpty)
        // Updating keeps the place in the order.
        try repository.like(ids[0], image: nil, note: "updated")
        #expect(try repository.list(LikeQuery(limit: 1, offset: 6)).records.first?.note == "updated")
        let dates = try repository.list().records.map(\.likedAt)
        #expect(dates == dates.sorted(by: >))
    }

    @Test func newestPageFromTheJournalEndAgreesWithTheFullListing() throws {
        let repository = folder.repository(durability: .relaxed)
        var generator = SystemRandomNumberGenerator()
        // Likes, re-likes, updates and unlikes, many within one millisecond.
        for step in 0..<300 {
            let id = PhotoID(valid: "p\(Int.random(in: 0..<40, using: &generator))")
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: _ = try? repository.unlike(id)
            case 1: try repository.like(id, image: Samples.jpeg(seed: step), note: "step \(step)")
            default: try repository.toggle(id, image: Samples.jpeg(seed: step))
            }
        }
        let all = try repository.list().records
        #expect(!all.isEmpty)
        for limit in [1, 2, 5, 17, all.count, all.count + 3] {
            for offset in [0, 1, 7] {
                let page = try repository.list(LikeQuery(limit: limit, offset: offset)).records
                #expect(page == Array(all.dropFirst(offset).prefix(limit)), "limit \(limit) offset \(offset)")
            }
        }
    }

    @Test func listFiltersByColourAndText() throws {
        let repository = folder.repository()
        try repository.like(
            PhotoID(valid: "a"), image: Samples.jpeg(seed: 1), photo: PhotoMetadata(description: "Black and white cat", color: "#262626"))
        try repository.like(
            PhotoID(valid: "b"), image: Samples.jpeg(seed: 2), photo: PhotoMetadata(photographer: "Paweł Czerwiński", color: "#0C2340"))
        try repository.like(PhotoID(valid: "c"), image: Samples.jpeg(seed: 3), note: "Cat on the sofa")
        try repository.like(PhotoID(valid: "d"), image: Samples.jpeg(seed: 4), photo: PhotoMetadata(color: "#262626"))

        #expect(try repository.list(LikeQuery(color: "262626")).records.map(\.id.rawValue) == ["d", "a"])
        #expect(try repository.list(LikeQuery(color: "#0c2340")).records.map(\.id.rawValue) == ["b"])
        #expect(try repository.list(LikeQuery(search: "CAT")).records.map(\.id.rawValue) == ["c", "a"])
        #expect(try repository.list(LikeQuery(search: "paweł")).records.map(\.id.rawValue) == ["b"])
        #expect(try repository.list(LikeQuery(limit: 1, offset: 1, color: "#262626", search: "cat")).records.isEmpty)
        #expect(try repository.list(LikeQuery(order: .oldestFirst, limit: 1, offset: 1, search: "cat")).records.map(\.id.rawValue) == ["c"])
    }

    @Test func negativePagingIsRefused() {
        let repository = folder.repository()
        #expect(throws: LikeRepositoryError.invalidArgument("The limit must not be negative; it was -1.")) {
            try repository.list(LikeQuery(limit: -1))
        }
        #expect(throws: LikeRepositoryError.invalidArgument("The offset must not be negative; it was -2.")) {
            try repository.list(LikeQuery(offset: -2))
        }
    }

    @Test func anOffsetPageIsTheSliceOfTheFullListing() throws {
        let repository = folder.repository(durability: .relaxed)
        let count = 300
        let image = Samples.jpeg(seed: 1, scanBytes: 16)
        let results = try repository.likeAll((0..<count).map { LikeItem(id: PhotoID(valid: "p\($0)"), image: image) })
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        let all = try repository.list().records.map(\.id)
        #expect(all.count == count)
        for offset in [0, 7, 150, count - 3, count + 1] {
            let page = try repository.list(LikeQuery(limit: 5, offset: offset)).records.map(\.id)
            #expect(page == Array(all[min(offset, count)..<min(offset + 5, count)]), "offset \(offset)")
        }
    }

    @Test func statisticsCountBytesAndDates() throws {
        let repository = folder.repository()
        let empty = try repository.statistics()
        #expect(empty.count == 0 && empty.bytes == 0 && empty.oldest == nil && empty.newest == nil)
        // One syncfs only where it flushes every file; file by file everywhere else.
        let wholeFlush = ["ext2/ext3/ext4", "xfs", "btrfs", "f2fs", "tmpfs"].contains(empty.fileSystem)
        #expect(empty.flushStrategy == (wholeFlush ? .wholeFileSystem : .eachFile), "\(empty.fileSystem)")
        #expect(try LikeRepository(directory: folder.store, durability: .relaxed).statistics().flushStrategy == .none)
        let first = try #require(try repository.like(PhotoID(valid: "a"), image: Samples.rocket).record)
        let second = try #require(try repository.like(PhotoID(valid: "b"), image: Samples.coffee, userImage: Samples.chelsea).record)
        try repository.like(PhotoID(valid: "c"), image: Samples.astronaut)
        try repository.unlike(PhotoID(valid: "c"))
        let statistics = try repository.statistics()
        #expect(statistics.count == 2)
        #expect(statistics.bytes == Samples.rocket.count + Samples.coffee.count + Samples.chelsea.count)
        #expect(statistics.oldest == first.likedAt)
        #expect(statistics.newest == second.likedAt)
    }

    @Test func readingAMissingStoreCreatesNothing() throws {
        let repository = folder.repository()
        #expect(try repository.list().records.isEmpty)
        #expect(try repository.record(for: PhotoID(valid: "x")) == nil)
        #expect(try repository.verify().isOK)
        #expect(try repository.purge(dryRun: true).count == 0)
        #expect(try repository.purge().count == 0)
        #expect(try repository.statistics().count == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.store.path))
    }

    @Test func purgeRemovesOrphansAndOnlyOrphans() throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "keep"), image: Samples.rocket, userImage: Samples.chelsea)
        let orphanImage = folder.store.appendingPathComponent("images/lost~0123456789ab.jpg")
        try Data("half".utf8).write(to: orphanImage)
        try Data("tmp".utf8).write(to: folder.store.appendingPathComponent("records/keep~0123456789ab.tmp"))
        try Data("junk".utf8).write(to: folder.store.appendingPathComponent(".dat.nosync1234.abcdef"))
        try FileManager.default.createSymbolicLink(
            atPath: folder.store.appendingPathComponent("images/link.jpg").path, withDestinationPath: "/etc/passwd")

        let dry = try repository.purge(dryRun: true)
        #expect(dry.dryRun)
        #expect(dry.files == [".dat.nosync1234.abcdef", "images/link.jpg", "images/lost~0123456789ab.jpg", "records/keep~0123456789ab.tmp"])
        #expect(dry.bytes == 4 + "/etc/passwd".utf8.count + 4 + 3)
        #expect(FileManager.default.fileExists(atPath: orphanImage.path))
        #expect(try repository.verify().orphans == dry.files)
        #expect(try repository.verify().isOK, "orphans alone are not a problem")

        let report = try repository.purge()
        #expect(report.files == dry.files && report.bytes == dry.bytes && !report.dryRun)
        #expect(FileManager.default.fileExists(atPath: "/etc/passwd"), "the link is removed, not its target")
        #expect(try repository.purge(dryRun: true).count == 0)
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
        #expect(try Data(contentsOf: try #require(try repository.record(for: PhotoID(valid: "keep"))).image.file) == Samples.rocket)
    }

    @Test func verifyFindsMissingCutShortAndChangedImages() throws {
        let repository = folder.repository()
        let a = try #require(try repository.like(PhotoID(valid: "a"), image: Samples.rocket).record)
        let b = try #require(try repository.like(PhotoID(valid: "b"), image: Samples.coffee).record)
        let c = try #require(try repository.like(PhotoID(valid: "c"), image: Samples.chelsea).record)
        try FileManager.default.removeItem(at: a.image.file)
        try Samples.coffee.prefix(1000).write(to: b.image.file)
        var changed = Samples.chelsea
        changed[500] ^= 0xFF
        try changed.write(to: c.image.file)

        let report = try repository.verify()
        #expect(
            report.problems
                == [
                    "The image \(a.image.fileName) of photo \"a\" is missing.",
                    "The image \(b.image.fileName) of photo \"b\" has 1000 bytes where \(Samples.coffee.count) were liked: it was cut short or changed.",
                    "The image \(c.image.fileName) of photo \"c\" changed since it was liked (its checksum differs).",
                ].sorted())
        #expect(!report.isOK)
    }

    @Test func theStoreHoldsNoAbsolutePathsAndWorksAfterAMove() throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "a"), image: Samples.rocket, userImage: Samples.chelsea, note: "n")
        for path in folder.files(under: "store") {
            let text = String(decoding: try Data(contentsOf: folder.store.appendingPathComponent(path)), as: UTF8.self)
            #expect(!text.contains(folder.url.path), "\(path) names an absolute path")
        }
        let moved = folder.url.appendingPathComponent("moved", isDirectory: true)
        try FileManager.default.moveItem(at: folder.store, to: moved)
        let reopened = LikeRepository(directory: moved)
        let record = try #require(try reopened.record(for: PhotoID(valid: "a")))
        #expect(try Data(contentsOf: record.image.file) == Samples.rocket)
        #expect(try reopened.verify() == VerificationReport(problems: [], orphans: []))
        try reopened.unlike(PhotoID(valid: "a"))
        #expect(try reopened.list().records.isEmpty)
    }

    @Test func recordJSONHasTheContractShape() throws {
        let repository = folder.repository()
        let record = try #require(try repository.like(PhotoID(valid: "Dwu85P9SOIk"), image: Samples.rocket).record)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(record)) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "id", "likedAt", "image", "userImage", "thumbnail", "note", "photo", "albums", "exif", "color", "colorFrom", "takenAt", "takenFrom",
            ])
        // Neither the camera nor a source dated it: taken, as far as anyone knows, when it was liked.
        #expect(object["takenAt"] as? String == object["likedAt"] as? String && object["takenFrom"] as? String == "liked")
        #expect(object["thumbnail"] is NSNull, "a like's record has no thumbnail yet: it is made after the like")
        #expect(object["id"] as? String == "Dwu85P9SOIk")
        #expect((object["likedAt"] as? String).flatMap(Timestamp.parse) == Timestamp.milliseconds(record.likedAt))
        let image = try #require(object["image"] as? [String: Any])
        #expect(image["file"] as? String == record.image.file.path)
        #expect(image["bytes"] as? Int == Samples.rocket.count)
        #expect(object["userImage"] is NSNull)
        #expect(try JSONDecoder().decode(LikeRecord.self, from: JSONEncoder().encode(record)) == record)
    }
}

extension LikeRepositoryTests {
    /// Liking a photo again with what it has already changes nothing, writes nothing and is
    /// heard by no observer; an update that also brings the same bytes touches only what differs.
    @Test func likingTheSameThingsAgainIsUnchangedAndWritesNothing() throws {
        let folder = TemporaryFolder()
        let repository = folder.repository()
        let id = PhotoID(valid: "same")
        let file = folder.url.appendingPathComponent("same.jpg")
        try Samples.rocket.write(to: file)
        try repository.like(id, image: Samples.rocket, userImage: Samples.chelsea, note: "n", photo: PhotoMetadata(photographer: "Ann"))
        let before = try #require(try repository.record(for: id))
        let files = folder.files(under: "store")
        let journal = try Data(contentsOf: folder.store.appendingPathComponent("likes.journal"))
        let heard = Locked<[LikeChange]>([])
        let token = repository.observe { change in heard.withLock { $0.append(change) } }
        defer { token.cancel() }

        for change in [
            try repository.like(id, image: Samples.rocket),
            try repository.like(id, image: Samples.rocket, userImage: Samples.chelsea, note: "n", photo: PhotoMetadata(photographer: "Ann")),
            try repository.like(id, imageFile: file), try repository.like(id, image: nil, note: "n"),
        ] {
            #expect(change.kind == .unchanged && change.fields.isEmpty && change.record == before)
        }
        #expect(folder.files(under: "store") == files, "a file was written or renamed")
        #expect(try Data(contentsOf: folder.store.appendingPathComponent("likes.journal")) == journal)

        // The same bytes with a new note: only the note, and the image file stays as it was.
        let noted = try repository.like(id, image: Samples.rocket, note: "new")
        #expect(noted.kind == .updated && noted.fields == [.note] && noted.record?.image == before.image)
        // Other bytes of the same size are a new image.
        var other = Samples.rocket
        other[other.count / 2] ^= 0x01
        let changed = try repository.like(id, image: other)
        #expect(changed.kind == .updated && changed.fields == [.image])
        // A last change after them all: once it is heard, so is every change before it.
        _ = try repository.setNote("the last", for: id)
        let deadline = Date().addingTimeInterval(patienceAgainstHanging)
        while !heard.withLock({ $0.contains { $0.record?.note == "the last" } }), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(
            heard.withLock { $0.map(\.fields) } == [[.note], [.image], [.note]], "observers heard \(heard.withLock { $0.map(\.fields) })")
    }
}
