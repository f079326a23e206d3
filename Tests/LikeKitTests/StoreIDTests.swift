// Ids against a real store: nothing escapes it, twins stay apart or merge as they should.

import Foundation
import LikeKit
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct StoreIDTests {
    let folder = TemporaryFolder()

    @Test func hostileIDsStayInsideTheStore() throws {
        let repository = folder.repository()
        let hostile = ["../../etc/passwd", "../outside", "a/b", "..", ".", "/", "/tmp/x", "C:\\..\\x", "%2e%2e%2f", "~", "x.json", ".lock"]
        for (index, text) in hostile.enumerated() {
            try repository.like(PhotoID(valid: text), image: Samples.jpeg(seed: index))
        }
        let everything = folder.files()
        #expect(everything.allSatisfy { $0.hasPrefix("store/") }, "written outside the store: \(everything)")
        #expect(Set(try repository.list().records.map(\.id.rawValue)) == Set(hostile))
        for (index, text) in hostile.enumerated() {
            let record = try #require(try repository.record(for: PhotoID(valid: text)))
            #expect(try Data(contentsOf: record.image.file) == Samples.jpeg(seed: index))
        }
        #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test func caseTwinsAreSeparateRecordsWithSeparateFiles() throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "abc"), image: Samples.rocket)
        try repository.like(PhotoID(valid: "ABC"), image: Samples.coffee)
        try repository.unlike(PhotoID(valid: "abc"))
        let left = try #require(try repository.record(for: PhotoID(valid: "ABC")))
        #expect(try Data(contentsOf: left.image.file) == Samples.coffee)
        #expect(try repository.list().records.map(\.id.rawValue) == ["ABC"])
        let names = folder.files(under: "store").filter { !$0.hasPrefix("likes.") }
        #expect(Set(names.map { $0.lowercased() }).count == names.count, "names must differ in more than case: \(names)")
    }

    @Test func normalizationTwinsAreOneRecordKeepingTheFirstSpelling() throws {
        let repository = folder.repository()
        let composed = "caf\u{E9}"
        try repository.like(PhotoID(valid: composed), image: Samples.rocket)
        let change = try repository.like(PhotoID(valid: "cafe\u{301}"), image: nil, note: "same photo")
        #expect(change.kind == .updated)
        let records = try repository.list().records
        #expect(records.count == 1)
        #expect(records[0].id.rawValue.unicodeScalars.elementsEqual(composed.unicodeScalars))
        #expect(records[0].note == "same photo")
        try repository.unlike(PhotoID(valid: "cafe\u{301}"))
        #expect(try repository.list().records.isEmpty)
    }

    @Test func longestIDWorksAndTheNextByteIsRefused() throws {
        let repository = folder.repository()
        let longest = String(repeating: "📷", count: 64)
        try repository.like(PhotoID(valid: longest), image: Samples.rocket)
        #expect(try repository.record(for: PhotoID(valid: longest))?.id.rawValue == longest)
        #expect(throws: LikeRepositoryError.invalidID(longest + "x", reason: "it is 257 UTF-8 bytes long")) { try PhotoID(longest + "x") }
        #expect(try repository.verify().isOK)
        try repository.unlike(PhotoID(valid: longest))
        #expect(try repository.purge(dryRun: true).count == 0)
    }

    @Test func aPlantedLinkIsNeverFollowed() throws {
        let repository = folder.repository()
        try repository.like(PhotoID(valid: "seed"), image: Samples.rocket)
        let target = folder.url.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: target)
        // A link where a record would go.
        try FileManager.default.createSymbolicLink(
            atPath: folder.store.appendingPathComponent("records/evil.json").path, withDestinationPath: target.path)
        // Read as a damaged record, never through the link; a new like puts its record in the
        // link's place, and the file it pointed at is untouched.
        #expect(throws: LikeRepositoryError.self) { try repository.record(for: PhotoID(valid: "evil")) }
        try repository.like(PhotoID(valid: "evil"), image: Samples.coffee)
        #expect(try Data(contentsOf: target) == Data("precious".utf8))
        #expect(try repository.record(for: PhotoID(valid: "evil"))?.image.byteCount == Samples.coffee.count)
        try repository.purge()
        #expect(try Data(contentsOf: target) == Data("precious".utf8))
        #expect(try repository.verify().isOK)
    }
}
