// An app's repository keeps what it can between reads (the journal's mapping, the journal found
// settled): whatever another process does to the store in between, each read shows the store as
// a repository opened afresh reads it.

import Foundation
import LikeKit
import Testing

@Suite struct KeptReadsTests {
    /// The listing, as ids with their notes and albums: what a grid shows.
    static func shown(_ repository: LikeRepository) async throws -> [String] {
        try await repository.list().records.map { "\($0.id.rawValue) \($0.note ?? "-") \($0.albums.map(\.rawValue))" }
    }

    @Test func eachReadShowsWhatAnotherProcessDidSinceAsAFreshRepositoryDoes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kept-reads-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store")
        let app = LikeRepository(directory: store)
        for number in 0..<5 {
            try await app.like(PhotoID("p\(number)"), image: try Data(contentsOf: Repository.samplePhoto))
        }
        let journal = store.appendingPathComponent("likes.journal")
        // Each step changes the journal another way: it grows, is written anew under its name,
        // has a torn line cut off its end and a line written where the torn one was.
        let steps: [(String, () throws -> Void)] = [
            ("a like", { try #require(OtherProcess.likes(store, "like", "q1", "--image", Repository.samplePhoto.path) == 0) }),
            ("a note", { try #require(OtherProcess.likes(store, "note", "p2", "written elsewhere") == 0) }),
            (
                "the journal written anew, then a note",
                {
                    try #require(OtherProcess.likes(store, "purge", "--rebuild-index") == 0)
                    try #require(OtherProcess.likes(store, "note", "p1", "after the rebuild") == 0)
                }
            ),
            ("an unlike", { try #require(OtherProcess.likes(store, "unlike", "p0") == 0) }),
            (
                "a torn line cut off and another written in its place",
                {
                    let handle = try FileHandle(forWritingTo: journal)
                    try handle.seekToEnd()
                    try handle.write(contentsOf: Data(repeating: 0x41, count: 3000))
                    try handle.close()
                    try #require(OtherProcess.likes(store, "album", "add", "Trip", "p3", "q1") == 0)
                }
            ),
            ("a like after all that", { try #require(OtherProcess.likes(store, "like", "q2", "--image", Repository.samplePhoto.path) == 0) }),
        ]
        var before = try await Self.shown(app)
        for (name, step) in steps {
            try step()
            let fresh = try await Self.shown(LikeRepository(directory: store))
            #expect(fresh != before, "\(name) changed nothing a listing shows: the step tests nothing")
            #expect(try await Self.shown(app) == fresh, "after \(name), the app's repository shows another store than a fresh one")
            before = fresh
        }
        #expect(before.contains("p2 written elsewhere []") && before.contains("p1 after the rebuild []"))
        #expect(before.contains { $0.hasPrefix("q1 - [\"Trip\"]") })
        #expect(!before.contains { $0.hasPrefix("p0 ") })
    }
}
