// repair: every kind of damage brought back to a store that verifies, with nothing deleted.

import Foundation
import LikeKit
import LikeStore
import LikesSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite(.ownLane) struct RepairTests {
    let folder = TemporaryFolder()

    /// Ways a store gets damaged: by power cuts on file systems that lie, by hand, by tools.
    enum Damage: String, CaseIterable, Sendable {
        case recordCut, recordEmptied, recordGarbled, recordIsDirectory, recordIsFIFO, recordIsLink, recordMissing
        case imageCut, imageMissing, imageChanged, userImageChanged
        case journalGarbled, journalCut, journalMissing
        case strayFile, strayFolder, strayFolderInRecords
        case leftoverRecord, leftoverImage, leftoverJournal

        /// Whether the damaged photo comes back as a rebuilt record (the rest stay as they were,
        /// or are set aside).
        var rebuildsTheRecord: Bool {
            [.recordCut, .recordEmptied, .recordGarbled, .recordIsDirectory, .recordIsFIFO, .recordIsLink, .recordMissing].contains(self)
        }

        /// Whether the damaged photo is set aside whole: its image is gone or not what was liked.
        var setsThePhotoAside: Bool { [.imageCut, .imageMissing, .imageChanged].contains(self) }
    }

    /// The photos of the store: Keep, Hurt (with a photographer's picture) and Last.
    struct Photos {
        var keep = Samples.coffee
        var hurt = Samples.rocket
        var hurtUser = Samples.chelsea
        var last = Samples.astronaut
        /// Small made-up JPEGs that no thumbnail is made of: for the many stores of the pairs.
        static let small = Photos(
            keep: Samples.jpeg(seed: 61), hurt: Samples.jpeg(seed: 62), hurtUser: Samples.jpeg(seed: 63), last: Samples.jpeg(seed: 64))
    }

    func prepare(_ photos: Photos = Photos(), durability: Durability = .full) throws -> LikeRepository {
        let repository = folder.repository(durability: durability)
        try repository.like(PhotoID(valid: "Keep"), image: photos.keep, note: "stays", albums: [AlbumName("Trip")])
        try repository.like(
            PhotoID(valid: "Hurt"), image: photos.hurt, userImage: photos.hurtUser, note: "lost with the record",
            photo: PhotoMetadata(photographer: "Ann"), albums: [AlbumName("Trip"), AlbumName("Sky")])
        try repository.like(PhotoID(valid: "Last"), image: photos.last)
        return repository
    }

    var store: URL { folder.store }
    func path(_ relative: String) -> String { store.appendingPathComponent(relative).path }

    /// The damaged photo's files, found by its key.
    func file(of id: String, user: Bool = false) throws -> String {
        let key = PhotoID(valid: id).storageKey
        let names = try FileManager.default.contentsOfDirectory(atPath: path("images"))
        return "images/" + (try #require(names.first { $0.hasPrefix(key + "~") && $0.hasSuffix(".user.jpg") == user }))
    }

    /// The byte range of the journal line that liked `id`.
    func journalLine(of id: String) throws -> Range<Int>? {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path("likes.journal")))
        let key = PhotoID(valid: id).storageKey
        var start = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            let fields = line.split(separator: 0x20)
            if fields.count > 6, fields[0].elementsEqual("L".utf8), fields[6].elementsEqual(key.utf8) { return start..<(start + line.count) }
            start += line.count + 1
        }
        return nil
    }

    /// Damages the store as `kind` says, on the photo `target` where it is about one photo (the
    /// journal's damage: on that photo's line).
    func damage(_ kind: Damage, on target: String = "Hurt") throws {
        let record = "records/" + PhotoID(valid: target).storageKey + ".json"
        let journal = URL(fileURLWithPath: path("likes.journal"))
        let hasJournal = FileManager.default.fileExists(atPath: journal.path)
        let manager = FileManager.default
        switch kind {
        case .recordCut:
            let data = try Data(contentsOf: URL(fileURLWithPath: path(record)))
            try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path(record)))
        case .recordEmptied: try Data().write(to: URL(fileURLWithPath: path(record)))
        case .recordGarbled: try Data("{\"format\": 1, \"id\": 42}".utf8).write(to: URL(fileURLWithPath: path(record)))
        case .recordIsDirectory:
            try manager.removeItem(atPath: path(record))
            try manager.createDirectory(atPath: path(record), withIntermediateDirectories: false)
        case .recordIsFIFO:
            try manager.removeItem(atPath: path(record))
            #expect(mkfifo(path(record), 0o600) == 0)
        case .recordIsLink:
            try manager.removeItem(atPath: path(record))
            try manager.createSymbolicLink(atPath: path(record), withDestinationPath: "/etc/passwd")
        case .recordMissing: try manager.removeItem(atPath: path(record))
        case .imageCut:
            let image = try file(of: target)
            let data = try Data(contentsOf: URL(fileURLWithPath: path(image)))
            try data.prefix(1000).write(to: URL(fileURLWithPath: path(image)))
        case .imageMissing: try manager.removeItem(atPath: path(try file(of: target)))
        case .imageChanged:
            let image = try file(of: target)
            var data = try Data(contentsOf: URL(fileURLWithPath: path(image)))
            data[data.count / 2] ^= 0x55
            try data.write(to: URL(fileURLWithPath: path(image)))
        case .userImageChanged:
            let key = PhotoID(valid: target).storageKey
            guard
                let name = try manager.contentsOfDirectory(atPath: path("images")).first(where: {
                    $0.hasPrefix(key + "~") && $0.hasSuffix(".user.jpg")
                })
            else { return }
            let image = "images/" + name
            var data = try Data(contentsOf: URL(fileURLWithPath: path(image)))
            data[data.count / 2] ^= 0x55
            try data.write(to: URL(fileURLWithPath: path(image)))
        case .journalGarbled:
            // The target's own line, where it has one; else the header.
            guard hasJournal else { return }
            var bytes = try Data(contentsOf: journal)
            let at = try journalLine(of: target)?.lowerBound ?? 0
            bytes.replaceSubrange(at..<min(at + 30, bytes.count), with: Data("§§ not a journal line §§".utf8))
            try bytes.write(to: journal)
        case .journalCut:
            // Inside the target's line: it and every line after it are gone.
            guard hasJournal else { return }
            let bytes = try Data(contentsOf: journal)
            try bytes.prefix(try journalLine(of: target).map { $0.lowerBound + 10 } ?? (bytes.count - 30)).write(to: journal)
        case .journalMissing: if hasJournal { try manager.removeItem(at: journal) }
        case .strayFile: try Data("notes \(target)".utf8).write(to: URL(fileURLWithPath: path("notes.txt")))
        case .strayFolder:
            try manager.createDirectory(atPath: path("Backup/inner"), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: path("Backup/inner/file")))
        case .strayFolderInRecords: try? manager.createDirectory(atPath: path("records/old"), withIntermediateDirectories: false)
        case .leftoverRecord:
            try Data("{\"half".utf8).write(to: URL(fileURLWithPath: path("records/" + PhotoID(valid: target).storageKey + "~0123456789ab.tmp")))
        case .leftoverImage:
            try Samples.jpeg(seed: 3).write(to: URL(fileURLWithPath: path("images/" + PhotoID(valid: target).storageKey + "~0123456789ab.jpg")))
        case .leftoverJournal: try Data("J half a rebuilt journal".utf8).write(to: URL(fileURLWithPath: path("likes.journal.new")))
        }
    }

    /// A file's bytes, told apart by their size and CRC-32.
    static func fingerprint(_ data: Data) -> String {
        "\(data.count) " + String(data.withUnsafeBytes { CRC32.checksum($0) }, radix: 16)
    }

    /// Every file (by its bytes) and every other entry below the store, by path.
    func inventory() -> [String: String] {
        var result: [String: String] = [:]
        let walker = FileManager.default.enumerator(atPath: store.path)
        while let relative = walker?.nextObject() as? String {
            var info = stat()
            guard lstat(path(relative), &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                result[relative] = Self.fingerprint((try? Data(contentsOf: URL(fileURLWithPath: path(relative)))) ?? Data())
            case S_IFDIR: result[relative] = "folder"
            case S_IFLNK: result[relative] = "link"
            default: result[relative] = "special"
            }
        }
        return result
    }

    @Test(arguments: Damage.allCases)
    func repairMendsTheDamageDeletingNothing(_ kind: Damage) throws {
        let repository = try prepare()
        let keep = try #require(try repository.record(for: PhotoID(valid: "Keep")))
        let hurt = try #require(try repository.record(for: PhotoID(valid: "Hurt")))
        try damage(kind)
        let damaged = inventory()

        // A dry run reports and changes nothing.
        let dry = try repository.repair(dryRun: true)
        #expect(dry.dryRun)
        #expect(inventory() == damaged, "the dry run changed the store")

        let report = try repository.repair()
        #expect(report.isOK, "\(kind): \(report)")
        let verified = try repository.verify()
        #expect(verified.isOK, "\(kind): \(verified.problems)")
        #expect(dry.rebuilt == report.rebuilt && dry.setAside.map(\.files) == report.setAside.map(\.files), "the dry run foresaw another repair")

        // Nothing deleted: each file is where it was or under damaged/REPAIR/ at the same path;
        // only record files were added (rebuilt) and the journal written anew.
        let now = inventory()
        for (relative, content) in damaged where !relative.hasSuffix("likes.journal") || kind == .journalGarbled || kind == .journalCut {
            // Folders are checked through their files; the lock file notes the journal's length.
            if content == "folder" || relative == "likes.lock" { continue }
            let setAside = now.first { $0.key.hasPrefix("damaged/") && $0.key.hasSuffix("/" + relative) }
            #expect(now[relative] == content || setAside?.value == content, "\(kind): \(relative) was lost: \(now.keys.sorted())")
        }

        // The photo untouched by the damage is exactly as it was, with a thumbnail made now.
        var kept = try #require(try repository.record(for: PhotoID(valid: "Keep")))
        #expect(kept.thumbnail != nil, "\(kind): repair made no thumbnail")
        kept.thumbnail = nil
        #expect(kept == keep)
        let repaired = try repository.record(for: PhotoID(valid: "Hurt"))
        if kind.rebuildsTheRecord {
            let rebuilt = try #require(repaired, "\(kind): not rebuilt")
            #expect(report.rebuilt == [PhotoID(valid: "Hurt")])
            #expect(rebuilt.likedAt == hurt.likedAt && rebuilt.albums == hurt.albums)
            #expect(try Data(contentsOf: rebuilt.image.file) == Samples.rocket)
            #expect(try Data(contentsOf: try #require(rebuilt.userImage).file) == Samples.chelsea)
            #expect(rebuilt.note == nil && rebuilt.photo == nil, "only the record held them")
        } else if kind.setsThePhotoAside {
            #expect(repaired == nil)
            let item = try #require(report.setAside.first { $0.id == "Hurt" })
            #expect(item.files.contains { $0.hasPrefix("records/") } && item.files.contains { $0.hasPrefix("images/") }, "\(item)")
        } else if kind == .userImageChanged {
            let kept = try #require(repaired)
            #expect(kept.userImage == nil && kept.note == hurt.note && kept.albums == hurt.albums)
            #expect(try Data(contentsOf: kept.image.file) == Samples.rocket)
        } else {
            #expect(repaired == hurt || (repaired.map { $0.id == hurt.id && $0.image.byteCount == hurt.image.byteCount } ?? false))
        }
        // Lists, albums and a new like work on the repaired store; a second repair finds nothing.
        #expect(try repository.list().records.count == (kind.setsThePhotoAside ? 2 : 3))
        try repository.like(PhotoID(valid: "After"), image: Samples.jpeg(seed: 8))
        let again = try repository.repair()
        #expect(again.rebuilt.isEmpty && again.setAside.isEmpty && again.isOK, "\(again)")
        // purge and verify leave damaged/ alone.
        try repository.purge()
        #expect(inventory().filter { $0.key.hasPrefix("damaged/") } == now.filter { $0.key.hasPrefix("damaged/") })
    }

    /// Every two kinds of damage, the first on one photo and the second on another (the
    /// journal's on that photo's line).
    static let pairs: [(Damage, Damage)] = Damage.allCases.enumerated().flatMap { index, first in
        Damage.allCases.dropFirst(index + 1).map { (first, $0) }
    }

    @Test(arguments: pairs)
    func twoDamagesAtOnceAreMendedAndNoPhotosOnlyImageEverLeaves(_ first: Damage, _ second: Damage) throws {
        // Not flushed, and small: 190 stores, and what is checked here is the repair.
        let photos = Photos.small
        let repository = try prepare(photos, durability: .relaxed)
        let originals = ["Hurt": photos.hurt, "Keep": photos.keep, "Last": photos.last]
        let before = try Dictionary(
            uniqueKeysWithValues: ["Hurt", "Keep", "Last"].map { ($0, try #require(try repository.record(for: PhotoID(valid: $0)))) })
        try damage(first, on: "Hurt")
        try damage(second, on: "Keep")
        let damaged = inventory()
        let label = "\(first) on Hurt, \(second) on Keep"

        let report = try repository.repair()
        #expect(report.isOK, "\(label): \(report)")
        #expect(try repository.verify().isOK, "\(label)")
        // Nothing deleted: every file is in place or under damaged/ with its bytes.
        let now = inventory()
        for (relative, content) in damaged where content != "folder" && !["likes.lock", "likes.journal"].contains(relative) {
            let setAside = now.first { $0.key.hasPrefix("damaged/") && $0.key.hasSuffix("/" + relative) }
            #expect(now[relative] == content || setAside?.value == content, "\(label): \(relative) was lost")
        }
        // A photo that lost its record keeps its image, liked again; no photo's image is lost.
        for (photo, kind) in [("Hurt", first), ("Keep", second)] where kind.rebuildsTheRecord {
            let rebuilt = try #require(try repository.record(for: PhotoID(valid: photo)), "\(label): \(photo) was not rebuilt: \(report)")
            #expect(try Data(contentsOf: rebuilt.image.file) == originals[photo], "\(label)")
        }
        try repository.purge()
        let bytes = Set(inventory().values)
        for (photo, image) in originals where !([("Hurt", first), ("Keep", second)].contains { $0.0 == photo && $0.1.setsThePhotoAside }) {
            #expect(bytes.contains(Self.fingerprint(image)), "\(label): the only copy of \(photo)'s image left the store")
        }
        #expect(try repository.record(for: PhotoID(valid: "Last"))?.likedAt == before["Last"]?.likedAt, "\(label): an untouched photo changed")
        let again = try repository.repair()
        #expect(again.rebuilt.isEmpty && again.setAside.isEmpty && again.isOK, "\(label): \(again)")
    }

    @Test func aLostRecordsFolderIsRebuiltFromTheJournalAndTheImages() throws {
        let repository = try prepare()
        let before = try repository.list().records
        try FileManager.default.removeItem(atPath: path("records"))
        let report = try repository.repair()
        #expect(report.isOK && Set(report.rebuilt.map(\.rawValue)) == ["Keep", "Hurt", "Last"], "\(report)")
        let after = try repository.list().records
        #expect(after.map(\.id) == before.map(\.id))
        #expect(after.map(\.likedAt) == before.map(\.likedAt) && after.map(\.albums) == before.map(\.albums))
        for (old, new) in zip(before, after) { #expect(try Data(contentsOf: old.image.file) == Data(contentsOf: new.image.file)) }
        #expect(try repository.purge(dryRun: true).count == 0, "no image was left to look orphaned")
    }

    @Test func aStoreWithNoDamageIsLeftAsItIsButForItsThumbnails() throws {
        let repository = try prepare()
        let before = inventory()
        let report = try repository.repair()
        #expect(report.isOK && report.rebuilt.isEmpty && report.setAside.isEmpty)
        // The thumbnails, a cache, are made; every other file is as it was.
        let photos = try repository.list().records
        #expect(report.thumbnailsMade == photos.count)
        #expect(inventory().filter { !$0.key.hasPrefix("thumbnails") } == before)
        for photo in photos { #expect(FileManager.default.fileExists(atPath: try #require(photo.thumbnail).file.path)) }
        let again = try repository.repair()
        #expect(again.thumbnailsMade == 0 && again.setAside.isEmpty)
    }

    @Test func aFIFOPlantedAsARecordNeitherHangsReadsNorStopsTheRepair() throws {
        let repository = try prepare()
        try damage(.recordIsFIFO)
        // Before the fix, opening the FIFO waited for a writer: show and list hung.
        #expect(throws: LikeRepositoryError.self) { try repository.record(for: PhotoID(valid: "Hurt")) }
        #expect(try repository.list().records.count == 2)
        #expect(try repository.repair().isOK)
    }
}
