// What photo sources keep in a store besides likes: a request owed in the like's own commit and
// settled once made, likes at the times their source gives, and a note of where an import
// stopped.

import Foundation
import LikeKit
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct OwedRequestTests {
    let folder = TemporaryFolder()

    func timed(_ id: String, at seconds: Double, owing url: String? = nil, seed: Int = 1) throws -> TimedLike {
        TimedLike(
            item: LikeItem(id: try PhotoID(id), image: Samples.jpeg(seed: seed)), likedAt: Date(timeIntervalSince1970: seconds), owedRequest: url)
    }

    @Test func aRequestIsOwedWhileItsPhotoIsLikedWithTheImageItWasOwedFor() throws {
        let repository = folder.repository()
        let results = try repository.like(at: [try timed("a", at: 1000, owing: "https://api.example/a"), try timed("b", at: 2000)])
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(try repository.owedRequests().map(\.url) == ["https://api.example/a"])
        #expect(try repository.statistics().owedRequests == 1)
        // An update that keeps the image keeps it owed; an unlike ends it, and so does a new
        // like of the photo with another image.
        _ = try repository.setNote("kept", for: PhotoID("a"))
        #expect(try repository.owedRequests().count == 1)
        _ = try repository.unlike(PhotoID("a"))
        #expect(try repository.owedRequests().isEmpty)
        _ = try repository.like(PhotoID("a"), image: Samples.jpeg(seed: 9))
        #expect(try repository.owedRequests().isEmpty, "a new like owes nothing of the old one")
        #expect(try repository.verify().problems.isEmpty)
    }

    @Test func settlingOneRemovesItAndWhatOwesNothing() throws {
        let repository = folder.repository()
        _ = try repository.like(at: [
            try timed("a", at: 1000, owing: "https://api.example/a"), try timed("b", at: 2000, owing: "https://api.example/b", seed: 2),
        ])
        _ = try repository.unlike(PhotoID("b"))
        let owed = try repository.owedRequests()
        #expect(owed.map(\.id) == [try PhotoID("a")])
        try repository.settle(owed[0])
        #expect(try repository.owedRequests().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.store.appendingPathComponent("owed").path).isEmpty)
    }

    @Test func likesAtTheirOwnTimesListInThatOrderAndLeaveWhatIsLikedAsItIs() throws {
        let repository = folder.repository()
        _ = try repository.like(PhotoID("now"), image: Samples.jpeg(seed: 5), note: "mine")
        let results = try repository.like(at: [try timed("old", at: 1_000), try timed("older", at: 500, seed: 2), try timed("now", at: 10, seed: 3)])
        #expect((try results[2].get()) == nil, "liked already: left as it was")
        #expect(try repository.record(for: PhotoID("now"))?.note == "mine")
        #expect(try repository.list().records.map(\.id.rawValue) == ["now", "old", "older"])
        #expect(try repository.record(for: PhotoID("older"))?.likedAt == Date(timeIntervalSince1970: 500))
        #expect(try repository.verify().problems.isEmpty)
    }

    @Test func aSourcesNoteIsReplacedWholeAndRemoved() throws {
        let repository = folder.repository()
        #expect(try repository.sourceState("unsplash-likes-alice") == nil)
        try repository.setSourceState(Data("{\"page\":2}".utf8), for: "unsplash-likes-alice")
        try repository.setSourceState(Data("{\"page\":3}".utf8), for: "unsplash-likes-alice")
        #expect(try repository.sourceState("unsplash-likes-alice") == Data("{\"page\":3}".utf8))
        try repository.setSourceState(nil, for: "unsplash-likes-alice")
        #expect(try repository.sourceState("unsplash-likes-alice") == nil)
        // The store's repair leaves both folders where they are.
        let report = try repository.repair()
        #expect(report.setAside.isEmpty)
    }
}
