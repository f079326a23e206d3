// LikeKit's sync as an app calls it: the async form between two repositories, observers hearing
// a merged change with the device that made it and their own with their own, likes and unlikes
// made around another device's changes ending as the later one says, and two syncs of one store
// at once taking turns.

import Foundation
import LikeKit
import LikeStore
import LikesSupport
import TestSupport
import Testing

@Suite struct SyncTests {
    let laptopFolder = TemporaryFolder("laptop")
    let phoneFolder = TemporaryFolder("phone")

    var folder: URL { laptopFolder.url.appendingPathComponent("sync-folder") }

    init() throws {
        try FileManager.default.createDirectory(at: laptopFolder.url.appendingPathComponent("sync-folder"), withIntermediateDirectories: true)
    }

    @Test func observersHearMergedChangesWithTheirDeviceThroughTheAsyncSync() async throws {
        let laptop = laptopFolder.repository()
        let phone = phoneFolder.repository()
        let laptopID = try await laptop.sync(with: folder).device
        let phoneID = try await phone.sync(with: folder).device
        #expect(laptopID != phoneID)

        let heard = Heard()
        let token = phone.observe { heard.append($0) }
        try await laptop.like(try PhotoID("rocket"), image: Samples.rocket, note: "launch")
        let published = try await laptop.sync(with: folder)
        #expect(published.published == 1)
        let merged = try await phone.sync(with: folder)
        #expect(merged.merged == 1 && merged.devices.map(\.id).sorted() == [laptopID, phoneID].sorted())
        let own = try await phone.like(try PhotoID("coffee"), image: Samples.coffee)
        #expect(own.device == phoneID)
        try await laptop.unlike(try PhotoID("rocket"))
        _ = try await laptop.sync(with: folder)
        _ = try await phone.sync(with: folder)
        try await heard.waitFor(3)
        let changes = heard.changes.map { "\($0.kind.rawValue) \($0.id?.rawValue ?? "") \($0.device ?? "nil")" }
        #expect(changes == ["liked rocket \(laptopID)", "liked coffee \(phoneID)", "unliked rocket \(laptopID)"], "\(changes)")
        #expect(heard.changes.first?.record?.note == "launch")
        withExtendedLifetime(token) {}
    }

    /// A like of a photo the phone still holds, made after the laptop unliked it and before the
    /// phone merged that unlike, likes it again everywhere: a like that carries an image is a
    /// like, even when the image is the one the photo had (SPEC §13: it starts a liked period).
    @Test func aLikeOfAPhotoAnotherDeviceUnlikedMeanwhileLikesItAgainEverywhere() async throws {
        let (laptop, phone) = (laptopFolder.repository(), phoneFolder.repository())
        let rocket = try PhotoID("rocket")
        try await laptop.like(rocket, image: Samples.rocket, note: "launch")
        _ = try await laptop.sync(with: folder)
        _ = try await phone.sync(with: folder)
        try await laptop.unlike(rocket)
        _ = try await laptop.sync(with: folder)
        try await Task.sleep(for: .milliseconds(5))
        try await phone.like(rocket, image: Samples.rocket, note: "again")
        for repository in [phone, laptop, phone] { _ = try await repository.sync(with: folder) }
        #expect(try await laptop.record(for: rocket)?.note == "again")
        #expect(try await phone.record(for: rocket)?.note == "again")
    }

    /// An unlike the store made and never published (before its first sync, or between two
    /// syncs) still reaches a device that liked the photo before it: the later change wins.
    @Test func anUnlikeNeverPublishedStillWinsOverAnEarlierLikeElsewhere() async throws {
        let (laptop, phone) = (laptopFolder.repository(), phoneFolder.repository())
        // Liked on the laptop, then on the phone (which publishes it), then unliked on the laptop.
        func likedThereThenUnlikedHere(_ name: String, _ image: Data) async throws {
            let id = try PhotoID(name)
            try await laptop.like(id, image: image)
            try await Task.sleep(for: .milliseconds(5))
            try await phone.like(id, image: image, note: "from the phone")
            _ = try await phone.sync(with: folder)
            try await Task.sleep(for: .milliseconds(5))
            try await laptop.unlike(id)
            _ = try await laptop.sync(with: folder)
            _ = try await phone.sync(with: folder)
            #expect(try await laptop.record(for: id) == nil, "\(name)")
            #expect(try await phone.record(for: id) == nil, "\(name)")
        }
        // Before the laptop's first sync, then between two of its syncs.
        try await likedThereThenUnlikedHere("rocket", Samples.rocket)
        try await likedThereThenUnlikedHere("coffee", Samples.coffee)
        #expect(try await laptop.verify().isOK)
        #expect(try await phone.verify().isOK)
    }

    @Test func twoSyncsOfOneStoreAtOnceTakeTurnsAndBothSucceed() async throws {
        let laptop = laptopFolder.repository()
        for index in 0..<20 { try await laptop.like(try PhotoID("photo-\(index)"), image: Samples.jpeg(seed: index)) }
        let other = LikeRepository(directory: laptopFolder.store)
        async let first = laptop.sync(with: folder)
        async let second = other.sync(with: folder)
        let reports = try await [first, second]
        #expect(reports.map(\.published).reduce(0, +) == 20 && reports[0].device == reports[1].device)
        #expect(try await laptop.verify().isOK)
    }
}

/// What an observer heard, in order.
final class Heard: @unchecked Sendable {
    private let lock = NSLock()
    private var heard: [LikeChange] = []

    func append(_ change: LikeChange) { lock.withLock { heard.append(change) } }
    var changes: [LikeChange] { lock.withLock { heard } }

    func waitFor(_ count: Int, seconds: Double = patienceAgainstHanging) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while changes.count < count, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
    }
}

/// A sync over what stores kept before or left behind: records written before album
/// memberships had stamps of their own, bookkeeping a killed sync left behind the store, and
/// images a device let go of once a later change replaced them. Each was found by
/// Tests/Tools/sync_replay.py or reading its runs.
@Suite(.ownLane) struct SyncOfWhatStoresLeftTests {
    let laptopFolder = TemporaryFolder("laptop")
    let phoneFolder = TemporaryFolder("phone")
    let folder: URL
    let laptop: LikeRepository
    let phone: LikeRepository

    init() throws {
        folder = laptopFolder.url.appendingPathComponent("sync-folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        laptop = laptopFolder.repository(durability: .relaxed)
        phone = phoneFolder.repository(durability: .relaxed)
    }

    /// A record from before membership stamps: its first sync still publishes its albums.
    @Test func aRecordWithoutMembershipPartsPublishesItsAlbums() throws {
        let rocket = try PhotoID("rocket")
        try laptop.like(rocket, image: Samples.rocket, note: "launch", albums: [AlbumName("Trips"), AlbumName("Été")])
        // The record as the version before wrote it: no `album:` parts among its stamps.
        let records = laptopFolder.store.appendingPathComponent("records")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: records.path).first { $0.hasSuffix(".json") })
        let path = records.appendingPathComponent(file)
        let text = try String(contentsOf: path, encoding: .utf8)
        let older = text.replacingOccurrences(of: #""album:[0-9a-f]*":"[0-9.a-f]*",?"#, with: "", options: .regularExpression)
        #expect(older != text && !older.contains("album:"))
        try Data(older.utf8).write(to: path)

        _ = try laptop.sync(with: folder)
        _ = try phone.sync(with: folder)
        let merged = try #require(try phone.record(for: rocket))
        #expect(merged.albums.map(\.rawValue).sorted() == ["Trips", "Été"])
        #expect(merged.note == "launch")
    }

    /// A merged image is written whenever the store does not hold it, whatever the bookkeeping
    /// says (a sync killed after writing the store and before keeping that; seed 10002).
    @Test func aMergedImageIsWrittenWhereTheBookkeepingWronglySaysTheStoreHasIt() throws {
        let rocket = try PhotoID("rocket")
        try laptop.like(rocket, image: Samples.rocket)
        _ = try laptop.sync(with: folder)
        _ = try phone.sync(with: folder)
        #expect(try Data(contentsOf: try #require(try phone.record(for: rocket)).image.file) == Samples.rocket)

        // The phone's bookkeeping says it holds the image the laptop gives next.
        let shard = phoneFolder.store.appendingPathComponent("sync/\(PhotoShards.name(PhotoShards.shard(of: "rocket"))).json")
        var kept = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: shard)) as? [String: Any])
        kept["images"] = ["rocket": Samples.coffee.withUnsafeBytes { SHA256.hexDigest(of: $0) }]
        try JSONSerialization.data(withJSONObject: kept).write(to: shard)

        try laptop.like(rocket, image: Samples.coffee)
        _ = try laptop.sync(with: folder)
        _ = try phone.sync(with: folder)
        #expect(try Data(contentsOf: try #require(try phone.record(for: rocket)).image.file) == Samples.coffee)
        #expect(try phone.verify().isOK)
    }

    /// A change whose image a later change of the photo replaced is merged without it: the note
    /// it gave and its date stay (seed 10217, where such a change waited for ever).
    @Test func aChangeWhoseImageWasReplacedIsMergedWithoutIt() throws {
        let rocket = try PhotoID("rocket")
        let first = try laptop.like(rocket, image: Samples.rocket, note: "launch", albums: [AlbumName("Space")])
        let report = try laptop.sync(with: folder)
        try laptop.like(rocket, image: Samples.coffee)
        _ = try laptop.sync(with: folder)
        // The first image leaves the folder before the phone ever sees it.
        let gone = folder.appendingPathComponent("\(report.device)/images/\(Samples.rocket.withUnsafeBytes { SHA256.hexDigest(of: $0) }).jpg")
        try FileManager.default.removeItem(at: gone)

        for _ in 0..<2 { _ = try phone.sync(with: folder) }
        let merged = try #require(try phone.record(for: rocket))
        #expect(try Data(contentsOf: merged.image.file) == Samples.coffee)
        #expect(merged.note == "launch" && merged.albums.map(\.rawValue) == ["Space"])
        #expect(merged.likedAt == first.record?.likedAt)
    }
}
