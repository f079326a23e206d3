// What a store owes its sync folder survives every maintenance between syncs: an unlike made and
// not yet published reaches the other device after whatever wrote the journal anew (a purge that
// compacts it, a rebuilt index, a repair, a restore's sorting, the rebuild after a journal cut
// short), whichever device made it. Through LikeStore's own interface.

import Foundation
import LikeStore
import TestSupport
import Testing

/// One device: a store of its own beside the other's, and its copy of the sync folder.
struct SyncDevice {
    let store: Store
    let folder: String

    init(_ box: TemporaryFolder, _ name: String, folder: String) {
        store = Store(path: box.path(name), durable: true, lockTimeout: 10, faults: nil)
        self.folder = folder
    }

    @discardableResult
    func like(_ id: String, _ image: Data, note: String? = nil) throws -> StoredChange {
        try store.like(StoreRequest(id: id, image: try StoreRequest.Image(image, kind: .image), userImage: nil, note: note, photo: nil, albums: []))
    }

    func note(_ id: String, _ text: String) throws {
        try store.like(StoreRequest(id: id, note: .set(text)))
    }

    func unlike(_ id: String) throws {
        _ = try store.unlike(id, onCommit: { _ in })
    }

    @discardableResult
    func sync() throws -> StoreSyncReport { try store.sync(with: folder, onCommit: { _ in }) }

    /// Each photo as the listing gives it: id and note.
    func photos() throws -> [String] {
        let all = StoreQuery(newestFirst: true, limit: nil, offset: 0, after: nil, since: nil, album: nil, color: nil, words: nil)
        return try store.page(all).items.map { "\($0.record.id): \($0.record.note ?? "-")" }.sorted()
    }
}

extension Store {
    /// A change whose commit nobody else hears.
    @discardableResult
    func like(_ request: StoreRequest) throws -> StoredChange { try like(request, onCommit: { _ in }) }
}

@Suite(.ownLane) struct SyncOwedTests {
    let box = TemporaryFolder()

    /// The maintenance run between the unlike and the next sync, each writing the journal anew.
    enum Upkeep: String, CaseIterable, CustomTestStringConvertible {
        case compactingPurge, rebuiltIndex, repairOfAGarbledLine, restoreAmongNewerPhotos, rebuildAfterACutShortJournal
        var testDescription: String { rawValue }
    }

    func journal(_ device: SyncDevice) -> URL { URL(fileURLWithPath: device.store.displayPath + "/likes.journal") }

    /// Runs `upkeep` on `device`, and checks that it did write the journal anew.
    func run(_ upkeep: Upkeep, on device: SyncDevice) throws {
        let header = try String(contentsOf: journal(device), encoding: .utf8).prefix { $0 != "\n" }
        switch upkeep {
        case .compactingPurge:
            // A journal mostly superseded (more lines than twice the files and 64) is compacted.
            for number in 0..<80 { try device.note("p2", "note \(number)") }
            _ = try device.store.purge(dryRun: false)
        case .rebuiltIndex:
            _ = try device.store.rebuildIndex()
        case .repairOfAGarbledLine:
            try device.note("p2", "a note whose line is garbled")
            var lines = try String(contentsOf: journal(device), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            lines[lines.count - 2] = "M garbled"
            try Data(lines.joined(separator: "\n").utf8).write(to: journal(device))
            _ = try device.store.repair(dryRun: false)
        case .restoreAmongNewerPhotos:
            // A photo restored at a date older than the others': the journal is sorted anew.
            let request = StoreRequest(
                id: "old", image: try StoreRequest.Image(SamplePhotos.data("astronaut.jpg"), kind: .image), userImage: nil, note: nil,
                photo: nil, albums: [])
            _ = try device.store.restore([(request, likedAt: 1_000_000)], onCommit: { _ in })
            try device.store.sortJournalAfterRestore()
        case .rebuildAfterACutShortJournal:
            // The last line (a note) lost as a disk may lose it: shorter than its noted length,
            // the journal is rebuilt from the records by the next writer.
            try device.note("p2", "the line lost")
            let text = try String(contentsOf: journal(device), encoding: .utf8)
            let kept = text.dropLast().prefix(upTo: text.dropLast().lastIndex(of: "\n").map { text.index(after: $0) } ?? text.endIndex)
            try Data(kept.utf8).write(to: journal(device))
            try device.like("p4", SamplePhotos.data("chelsea.jpg"))
        }
        let after = try String(contentsOf: journal(device), encoding: .utf8).prefix { $0 != "\n" }
        #expect(after != header, "\(upkeep) did not write the journal anew")
    }

    @Test(arguments: Upkeep.allCases, [0, 1])
    func anUnlikeNotYetPublishedReachesTheOtherDeviceAfterUpkeep(_ upkeep: Upkeep, unlikedOn device: Int) throws {
        let shared = box.path("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        let devices = [SyncDevice(box, "laptop", folder: shared), SyncDevice(box, "phone", folder: shared)]
        for (id, name) in [("p1", "rocket.jpg"), ("p2", "coffee.jpg"), ("p3", "chelsea.jpg")] {
            try devices[0].like(id, SamplePhotos.data(name))
        }
        for device in devices + devices { try device.sync() }
        #expect(try devices[1].photos() == devices[0].photos())

        let unliking = devices[device]
        try unliking.unlike("p1")
        try run(upkeep, on: unliking)
        #expect(try unliking.sync().published >= 1, "the unlike is published")
        let other = devices[1 - device]
        try other.sync()
        try unliking.sync()
        let photos = try other.photos()
        #expect(!photos.contains { $0.hasPrefix("p1:") }, "\(photos)")
        #expect(try other.photos() == unliking.photos())
        // Published once: the journal the sync then leaves keeps no line it owes.
        try run(.rebuiltIndex, on: unliking)
        #expect(try unliking.sync().published == 0)
    }

    /// A sync that runs while the journal ends in half a line (a process killed while appending
    /// it) keeps where the whole lines end, not the file: the note the next writer commits over
    /// those bytes is read from where it begins, and reaches the other device.
    @Test func aChangeWrittenOverATornEndAfterASyncIsPublished() throws {
        let shared = box.path("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        let devices = [SyncDevice(box, "laptop", folder: shared), SyncDevice(box, "phone", folder: shared)]
        try devices[0].like("p1", SamplePhotos.data("rocket.jpg"))
        for device in devices + devices { try device.sync() }
        try devices[0].like("p2", SamplePhotos.data("coffee.jpg"))
        // The first half of the last line again after it, as a killed append leaves it.
        let lines = try String(contentsOf: journal(devices[0]), encoding: .utf8).split(separator: "\n")
        let handle = try FileHandle(forWritingTo: journal(devices[0]))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(lines[lines.count - 1].prefix(lines[lines.count - 1].count / 2).utf8))
        try handle.close()
        // A sync that publishes the like and merges nothing: it writes no line of its own.
        #expect(try devices[0].sync().published == 1)
        try devices[0].note("p1", "a note long enough to run past the bytes the torn line left")
        #expect(try devices[0].sync().published == 1)
        try devices[1].sync()
        #expect(try devices[1].photos() == ["p1: a note long enough to run past the bytes the torn line left", "p2: -"])
    }

    /// A store that never synced owes its first sync every unlike it made, the newest of each
    /// photo: a journal written anew keeps them, and the first sync publishes the unlike, which
    /// ends a like another device made before it (seed 100091 of the replay: an unlike, a rebuilt
    /// index, then the first sync, and the other device's earlier like lived on).
    @Test func aStoreThatNeverSyncedCarriesItsUnlikesToItsFirstSync() throws {
        let shared = box.path("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        let laptop = SyncDevice(box, "laptop", folder: shared)
        let phone = SyncDevice(box, "phone", folder: shared)
        try phone.like("p1", SamplePhotos.data("coffee.jpg"), note: "liked on the phone first")
        try phone.sync()
        try laptop.like("p1", SamplePhotos.data("rocket.jpg"))
        try laptop.like("p2", SamplePhotos.data("chelsea.jpg"))
        try laptop.unlike("p1")
        try laptop.like("p1", SamplePhotos.data("rocket.jpg"))
        try laptop.unlike("p1")
        _ = try laptop.store.rebuildIndex()
        let lines = try String(contentsOf: journal(laptop), encoding: .utf8).split(separator: "\n")
        #expect(lines.map { $0.prefix(1) } == ["J", "U", "L"], "the newest unlike of p1, once")
        try laptop.sync()
        try phone.sync()
        #expect(try phone.photos() == ["p2: -"])
        #expect(try laptop.photos() == ["p2: -"])
    }
}
