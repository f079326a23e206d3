// repair: every kind of damage brought back to a store that verifies, with nothing deleted.

import Foundation
import Testing

@testable import LikeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct RepairTests {
    let folder = TemporaryDirectory()

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

    func prepare() throws -> LikeRepository {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "Keep"), image: Samples.coffee, note: "stays", albums: [AlbumName("Trip")])
        try repository.like(
            PhotoID(valid: "Hurt"), image: Samples.rocket, userImage: Samples.chelsea, note: "lost with the record",
            photo: PhotoMetadata(photographer: "Ann"), albums: [AlbumName("Trip"), AlbumName("Sky")])
        try repository.like(PhotoID(valid: "Last"), image: Samples.astronaut)
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

    func damage(_ kind: Damage) throws {
        let record = "records/" + PhotoID(valid: "Hurt").storageKey + ".json"
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
            let image = try file(of: "Hurt")
            let data = try Data(contentsOf: URL(fileURLWithPath: path(image)))
            try data.prefix(1000).write(to: URL(fileURLWithPath: path(image)))
        case .imageMissing: try manager.removeItem(atPath: path(try file(of: "Hurt")))
        case .imageChanged:
            let image = try file(of: "Hurt")
            var data = try Data(contentsOf: URL(fileURLWithPath: path(image)))
            data[data.count / 2] ^= 0x55
            try data.write(to: URL(fileURLWithPath: path(image)))
        case .userImageChanged:
            let image = try file(of: "Hurt", user: true)
            var data = try Data(contentsOf: URL(fileURLWithPath: path(image)))
            data[data.count / 2] ^= 0x55
            try data.write(to: URL(fileURLWithPath: path(image)))
        case .journalGarbled:
            let handle = try #require(FileHandle(forWritingAtPath: path("likes.journal")))
            try handle.seek(toOffset: 40)
            try handle.write(contentsOf: Data("§§ not a journal line §§\n".utf8))
            try handle.close()
        case .journalCut:
            let data = try Data(contentsOf: URL(fileURLWithPath: path("likes.journal")))
            try data.prefix(data.count - 30).write(to: URL(fileURLWithPath: path("likes.journal")))
        case .journalMissing: try manager.removeItem(atPath: path("likes.journal"))
        case .strayFile: try Data("notes".utf8).write(to: URL(fileURLWithPath: path("notes.txt")))
        case .strayFolder:
            try manager.createDirectory(atPath: path("Backup/inner"), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: path("Backup/inner/file")))
        case .strayFolderInRecords: try manager.createDirectory(atPath: path("records/old"), withIntermediateDirectories: false)
        case .leftoverRecord:
            try Data("{\"half".utf8).write(to: URL(fileURLWithPath: path("records/" + PhotoID(valid: "Hurt").storageKey + "~0123456789ab.tmp")))
        case .leftoverImage:
            try Samples.jpeg(seed: 3).write(to: URL(fileURLWithPath: path("images/" + PhotoID(valid: "Hurt").storageKey + "~0123456789ab.jpg")))
        case .leftoverJournal: try Data("J half a rebuilt journal".utf8).write(to: URL(fileURLWithPath: path("likes.journal.new")))
        }
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
                let bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: path(relative)))) ?? Data())
                result[relative] = SHA256.hexDigest(of: bytes)
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
