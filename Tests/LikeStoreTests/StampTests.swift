// Every change a store makes stamps the parts it changes, in the record it commits, so that a
// sync can tell what this store changed, and when, from what it merged. Through LikeStore's own
// interface.

import Foundation
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct StampTests {
    let folder = TemporaryFolder()

    /// A local stamp's milliseconds; -1 for anything else.
    func time(_ text: String?) -> Int64 { text.flatMap { Int64($0) } ?? -1 }

    func stamps(_ store: Store, _ id: String) throws -> [String: String] {
        try #require(try store.storedRecord(for: id)).stamps?.values ?? [:]
    }

    func store() -> Store { Store(path: folder.store.path, durable: false, lockTimeout: 10, faults: nil) }

    func like(_ store: Store, _ id: String, seed: Int, note: String? = nil, albums: [String] = []) throws {
        try store.like(
            StoreRequest(
                id: id, image: try StoreRequest.Image(MadeUpJPEG.data(seed: seed), kind: .image), userImage: nil, note: note, photo: nil,
                albums: albums))
    }

    @Test func eachChangeStampsWhatItChangesAndKeepsTheRest() throws {
        let store = store()
        let id = "rocket"
        let before = Timestamp.now()
        try like(store, id, seed: 1, note: "first")
        let liked = try stamps(store, id)
        #expect(Set(liked.keys) == ["liked", "image", "userImage", "note", "albums", "photo"])
        // What the like gave at its time; what it did not give, never given (SPEC §13: a sync
        // publishes this like giving only the image and the note).
        #expect(liked["liked"] == liked["image"] && liked["note"] == liked["liked"])
        #expect(liked["userImage"] == RecordStamps.neverGiven && liked["albums"] == RecordStamps.neverGiven)
        #expect(liked["photo"] == RecordStamps.neverGiven)
        let likedAt = time(liked["liked"])
        #expect(likedAt >= before)

        // (Each next change a few milliseconds later, so that its stamp is a later one.)
        Thread.sleep(forTimeInterval: 0.005)
        try store.like(StoreRequest(id: id, note: .set("second")))
        let noted = try stamps(store, id)
        #expect(time(noted["note"]) > likedAt)
        #expect(noted.filter { $0.key != "note" } == liked.filter { $0.key != "note" })

        Thread.sleep(forTimeInterval: 0.005)
        try store.like(StoreRequest(id: id, addAlbums: ["Sky"]))
        let albums = try stamps(store, id)
        #expect(time(albums["albums"]) > time(noted["note"]))
        #expect(albums["note"] == noted["note"] && albums["image"] == liked["image"])
        // The membership has its own stamp.
        #expect(albums[RecordStamps.album("Sky")] == albums["albums"])

        // The same things again: no change, no new stamp.
        try like(store, id, seed: 1, note: "second", albums: ["Sky"])
        #expect(try stamps(store, id) == albums)
        // A new image: only the image's stamp moves.
        Thread.sleep(forTimeInterval: 0.005)
        try like(store, id, seed: 2)
        let imaged = try stamps(store, id)
        // A like of the liked photo: the image's stamp moves, and the like has a part of its own.
        let like = RecordStamps.like(at: time(imaged["image"]))
        #expect(imaged["image"] != albums["image"] && imaged[like] == imaged["image"])
        #expect(imaged.filter { $0.key != "image" && $0.key != like } == albums.filter { $0.key != "image" })
        // A like giving an album the photo is in already gives it again: its membership is stamped.
        Thread.sleep(forTimeInterval: 0.005)
        try self.like(store, id, seed: 3, albums: ["Sky"])
        let again = try stamps(store, id)
        #expect(again[RecordStamps.album("Sky")] == again["image"] && again["image"] != imaged["image"])
    }

    @Test func aMergedChangeKeepsItsOwnStampAndARestoredLikeIsAChangeMadeNow() throws {
        let store = store()
        let id = "coffee"
        try like(store, id, seed: 3)
        let merged = "1900000000000.4.b000000000000002"
        var request = StoreRequest(id: id, note: .set("from the phone"))
        request.stamps = ["note": merged]
        _ = try store.edit([id], onCommit: { _ in }) { _, _ in request }
        let after = try stamps(store, id)
        #expect(after["note"] == merged && after["image"] != merged)

        // A photo liked long ago, brought back now: its date is old, its change is new.
        let longAgo: Int64 = 1_600_000_000_000
        let now = Timestamp.now()
        let restored = StoreRequest(
            id: "restored", image: try StoreRequest.Image(MadeUpJPEG.data(seed: 4), kind: .image), userImage: nil, note: nil, photo: nil,
            albums: [])
        _ = try store.likeAgain(restored, likedAt: longAgo, onCommit: { _ in })
        let stamped = try stamps(store, "restored")
        #expect(time(stamped["liked"]) >= now)
        #expect(try store.storedRecord(for: "restored")?.likedAt == longAgo)
    }

    @Test func stampsReadBackByBothReadersAndUnknownOnesArePassedOver() throws {
        // As the store writes a record: compact.
        let record =
            #"{"format":1,"generation":"0123456789ab","id":"a","image":{"bytes":10,"crc32":"00000000","generation":"0123456789ab","height":1,"#
            + #""width":1},"likedAt":"2026-11-25T10:00:00.000Z","note":null,"photo":null,"#
            + #""stamps":{"image":"not a stamp","later":"1","liked":"1795000000000","note":"1795000000001.2.b000000000000002"},"userImage":null}"#
        let fast = try #require(RecordReader.record(in: Data(record.utf8)))
        let decoded = try JSONDecoder().decode(StoredRecord.self, from: Data(record.utf8))
        // Parts left out have the period's stamp; unknown parts and values are passed over.
        #expect(
            fast.stamps?.values == [
                "liked": "1795000000000", "image": "1795000000000", "userImage": "1795000000000", "note": "1795000000001.2.b000000000000002",
                "albums": "1795000000000", "photo": "1795000000000",
            ])
        #expect(fast.stamps?.written == ["liked": "1795000000000", "note": "1795000000001.2.b000000000000002"])
        #expect(decoded.stamps == fast.stamps)
        let written = try JSONDecoder().decode(StoredRecord.self, from: fast.encoded())
        #expect(written.stamps == fast.stamps)
    }
}
