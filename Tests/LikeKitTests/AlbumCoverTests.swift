// An album's chosen cover: kept in the photo's record and the journal's catalog, listed by
// `albums`, kept by a rename and a restore, gone with the photo's membership, and synced so that
// every device ends with the newest choice.

import Foundation
import LikeKit
import LikeStore
import LikesSupport
import TestSupport
import Testing

@Suite(.ownLane) struct AlbumCoverTests {
    let folder = TemporaryFolder()
    let trip = try! AlbumName("Trip")

    /// Likes `ids` a few milliseconds apart, oldest first, and puts them all in `album`.
    func liked(_ repository: LikeRepository, _ ids: [String], in album: AlbumName) throws -> [PhotoID] {
        let photos = try ids.map { try PhotoID($0) }
        for (index, id) in photos.enumerated() {
            try repository.like(id, image: Samples.jpeg(seed: index, scanBytes: 100 + index))
            Thread.sleep(forTimeInterval: 0.003)
        }
        try repository.addPhotos(photos, toAlbum: album)
        return photos
    }

    func cover(_ repository: LikeRepository, _ album: AlbumName) throws -> (id: String?, chosen: Bool) {
        let summary = try repository.albums().first { $0.name.sameAlbum(as: album) }
        return (summary?.cover?.id.rawValue, summary?.coverChosen ?? false)
    }

    @Test func aChosenCoverIsListedUntilItsPhotoLeavesTheAlbum() throws {
        let repository = folder.repository()
        let photos = try liked(repository, ["a", "b", "c"], in: trip)
        #expect(try cover(repository, trip) == ("c", false))

        let first = try repository.setCover(photos[0], ofAlbum: trip)
        #expect(first.compactMap(\.id?.rawValue) == ["a"])
        #expect(try cover(repository, trip) == ("a", true))
        #expect(try repository.record(for: photos[0])?.covers == [trip])
        // Choosing it again changes nothing; another choice takes the first back.
        #expect(try repository.setCover(photos[0], ofAlbum: trip).isEmpty)
        let second = try repository.setCover(photos[1], ofAlbum: try AlbumName("trip"))
        #expect(Set(second.compactMap(\.id?.rawValue)) == ["a", "b"])
        #expect(try cover(repository, trip) == ("b", true))
        #expect(try repository.record(for: photos[0])?.covers == [])

        // Renamed, the album keeps its cover.
        let lisbon = try AlbumName("Lisbon")
        try repository.renameAlbum(trip, to: lisbon)
        #expect(try cover(repository, lisbon) == ("b", true))
        #expect(try repository.record(for: photos[1])?.covers == [lisbon])

        // Out of the album, the photo is no longer its cover, nor when put back.
        try repository.removePhotos([photos[1]], fromAlbum: lisbon)
        #expect(try cover(repository, lisbon) == ("c", false))
        try repository.addPhotos([photos[1]], toAlbum: lisbon)
        #expect(try cover(repository, lisbon) == ("c", false))

        // Back to the newest photo; an unlike takes the choice with the photo.
        try repository.setCover(photos[0], ofAlbum: lisbon)
        let back = try repository.setCover(nil, ofAlbum: lisbon)
        #expect(back.compactMap(\.id?.rawValue) == ["a"])
        #expect(try cover(repository, lisbon) == ("c", false))
        try repository.setCover(photos[0], ofAlbum: lisbon)
        try repository.unlike(photos[0])
        #expect(try cover(repository, lisbon) == ("c", false))
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test func aCoverMustBeALikedPhotoOfAnAlbumThatExists() throws {
        let repository = folder.repository()
        let photos = try liked(repository, ["a", "b"], in: trip)
        try repository.like(try PhotoID("loose"), image: Samples.coffee)
        #expect(throws: LikeRepositoryError.noSuchAlbum(try AlbumName("Nope"))) { try repository.setCover(photos[0], ofAlbum: try AlbumName("Nope")) }
        #expect(throws: LikeRepositoryError.notInAlbum(id: try PhotoID("loose"), album: trip)) {
            try repository.setCover(try PhotoID("loose"), ofAlbum: trip)
        }
        #expect(throws: LikeRepositoryError.notLiked(id: try PhotoID("gone"))) { try repository.setCover(try PhotoID("gone"), ofAlbum: trip) }
        #expect(try cover(repository, trip) == ("b", false))
    }

    /// The choice is in the record file, read back the same by both readers, and in the
    /// catalog's album field; the index rebuilt from the records and a repaired journal keep it.
    @Test func theChoiceIsKeptInTheRecordAndTheCatalog() throws {
        let repository = folder.repository()
        let photos = try liked(repository, ["a", "b", "c"], in: trip)
        try repository.addPhotos([photos[0]], toAlbum: try AlbumName("Été 100%"))
        try repository.setCover(photos[0], ofAlbum: try AlbumName("Été 100%"))
        try repository.setCover(photos[0], ofAlbum: trip)
        let records = folder.store.appendingPathComponent("records")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: records.path).first { $0 == "a.json" })
        let bytes = try Data(contentsOf: records.appendingPathComponent(file))
        let fast = try #require(RecordReader.record(in: bytes))
        let slow = try JSONDecoder().decode(StoredRecord.self, from: bytes)
        #expect(fast == slow && fast.covers == ["Trip", "Été 100%"])
        #expect(RecordWriter.encode(fast) == bytes)
        let journal = try String(contentsOf: folder.store.appendingPathComponent("likes.journal"), encoding: .utf8)
        #expect(journal.contains(" Trip,%C3%89t%C3%A9%20100%25,%*Trip,%*%C3%89t%C3%A9%20100%25\n"))

        let expected = try repository.albums()
        try FileManager.default.removeItem(at: folder.store.appendingPathComponent("likes.journal"))
        #expect(try repository.albums() == expected)
        try repository.purge()
        #expect(try repository.albums() == expected)
        #expect(expected.filter(\.coverChosen).map(\.cover?.id.rawValue) == ["a", "a"])
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
    }

    /// A cover in a record of an album the photo is not in is damage, as a bad album name is.
    @Test func aCoverOfAnAlbumThePhotoIsNotInIsDamage() throws {
        var record = StoredRecord(
            id: "a", generation: Generation.make(), likedAt: 1,
            image: .init(generation: Generation.make(), bytes: 1, width: 1, height: 1, crc32: "00000000"),
            userImage: nil, note: nil, photo: nil, albums: ["Trip"])
        record.covers = ["Trip"]
        var text = String(decoding: RecordWriter.encode(record), as: UTF8.self)
        #expect(try StoredRecord.decode(Data(text.utf8)).covers == ["Trip"])
        text = text.replacingOccurrences(of: #""covers":["Trip"]"#, with: #""covers":["Other"]"#)
        #expect(RecordReader.record(in: Data(text.utf8)) == nil)
        #expect(throws: DecodingError.self) { try StoredRecord.decode(Data(text.utf8)) }
    }

    @Test func anExportAndItsRestoreKeepTheCover() throws {
        let repository = folder.repository()
        let photos = try liked(repository, ["a", "b", "c"], in: trip)
        try repository.setCover(photos[1], ofAlbum: trip)
        let destination = folder.url.appendingPathComponent("export")
        try repository.export(to: destination)
        let index = try String(contentsOf: destination.appendingPathComponent("index.json"), encoding: .utf8)
        #expect(index.contains(#""covers":["Trip"]"#) || index.contains(#""covers" : ["#))

        let other = TemporaryFolder("restored")
        let restored = other.repository()
        try restored.restore(from: destination)
        #expect(try cover(restored, trip) == ("b", true))
    }
}

/// Covers chosen on two devices: each device ends with the same cover, the newest choice, and a
/// photo taken out of the album on one device after it was chosen on the other is no cover.
@Suite(.ownLane) struct AlbumCoverSyncTests {
    let laptopFolder = TemporaryFolder("laptop")
    let phoneFolder = TemporaryFolder("phone")
    let folder: URL
    let laptop: LikeRepository
    let phone: LikeRepository
    let trip = try! AlbumName("Trip")

    init() throws {
        folder = laptopFolder.url.appendingPathComponent("sync-folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        laptop = laptopFolder.repository(durability: .relaxed)
        phone = phoneFolder.repository(durability: .relaxed)
    }

    func syncBoth() throws {
        for repository in [laptop, phone, laptop] { _ = try repository.sync(with: folder) }
    }

    func cover(_ repository: LikeRepository) throws -> String? {
        let summary = try repository.albums().first { $0.name == trip }
        return summary?.coverChosen == true ? summary?.cover?.id.rawValue : nil
    }

    func photos(_ ids: [String]) throws -> [PhotoID] {
        let photos = try ids.map { try PhotoID($0) }
        for (index, id) in photos.enumerated() {
            try laptop.like(id, image: Samples.jpeg(seed: index, scanBytes: 120 + index), albums: [trip])
            Thread.sleep(forTimeInterval: 0.003)
        }
        try syncBoth()
        return photos
    }

    @Test func aChoiceMadeOnOneDeviceIsTheCoverOnTheOther() throws {
        let photos = try photos(["a", "b", "c"])
        try laptop.setCover(photos[0], ofAlbum: trip)
        try syncBoth()
        #expect(try cover(phone) == "a")
        try phone.setCover(photos[1], ofAlbum: trip)
        try syncBoth()
        #expect(try cover(laptop) == "b" && cover(phone) == "b")
        #expect(try laptop.record(for: photos[0])?.covers == [])
        try laptop.setCover(nil, ofAlbum: trip)
        try syncBoth()
        #expect(try cover(laptop) == nil && cover(phone) == nil)
    }

    @Test func twoChoicesMadeAtOnceEndWithTheNewerEverywhere() throws {
        let photos = try photos(["a", "b", "c"])
        try laptop.setCover(photos[0], ofAlbum: trip)
        Thread.sleep(forTimeInterval: 0.005)
        try phone.setCover(photos[1], ofAlbum: trip)
        try syncBoth()
        #expect(try cover(laptop) == "b" && cover(phone) == "b")
        // Both photos still say they were chosen; the newer choice is the cover on each device.
        #expect(try laptop.albums().first?.name == trip)
        // A choice on the laptop afterwards is the cover everywhere, taking back both.
        Thread.sleep(forTimeInterval: 0.005)
        try laptop.setCover(photos[0], ofAlbum: trip)
        try syncBoth()
        #expect(try cover(laptop) == "a" && cover(phone) == "a")
        #expect(try phone.record(for: photos[1])?.covers == [])
    }

    @Test func aPhotoTakenOutAfterItWasChosenElsewhereIsNoCoverEvenPutBack() throws {
        let photos = try photos(["a", "b", "c"])
        try laptop.setCover(photos[0], ofAlbum: trip)
        Thread.sleep(forTimeInterval: 0.005)
        try phone.removePhotos([photos[0]], fromAlbum: trip)
        Thread.sleep(forTimeInterval: 0.005)
        try phone.addPhotos([photos[0]], toAlbum: trip)
        try syncBoth()
        #expect(try cover(laptop) == nil && cover(phone) == nil)
        #expect(try laptop.record(for: photos[0])?.albums == [trip])
        // Renamed on one device, chosen cover and all, the other follows.
        try laptop.setCover(photos[2], ofAlbum: trip)
        try syncBoth()
        let lisbon = try AlbumName("Lisbon")
        try phone.renameAlbum(trip, to: lisbon)
        try syncBoth()
        let summary = try #require(try laptop.albums().first { $0.name == lisbon })
        #expect(summary.coverChosen && summary.cover?.id.rawValue == "c")
    }
}
