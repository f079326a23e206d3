// Files from the future: a journal or record a later version wrote is named as such
// (newerFormat), never read as damage, and nothing (repair included) changes the store.

import Foundation
import TestSupport
import Testing

@testable import LikeKit
@testable import LikeStore

@Suite struct NewerFormatTests {
    let folder = TemporaryFolder()

    /// Every file of the store, by path, with its bytes.
    func files() throws -> [String: Data] {
        var found: [String: Data] = [:]
        let root = folder.store
        for case let path as String in FileManager.default.enumerator(atPath: root.path) ?? FileManager.DirectoryEnumerator() {
            let url = root.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found[path] = try Data(contentsOf: url)
            }
        }
        return found
    }

    func expectRefused(_ repository: LikeRepository, file: String, format: String) throws {
        let before = try files()
        let refusal = LikeRepositoryError.newerFormat(file: file, format: format)
        #expect(throws: refusal) { try repository.list() }
        #expect(throws: refusal) { try repository.record(for: PhotoID("a")) }
        #expect(throws: refusal) { try repository.like(PhotoID("new"), image: Samples.coffee) }
        #expect(throws: refusal) { try repository.repair() }
        #expect(throws: refusal) { try repository.verify() }
        #expect(throws: refusal) { try repository.purge() }
        #expect(try files() == before, "the store changed")
    }

    @Test func aJournalFromALaterVersionIsRefusedAndLeftAlone() throws {
        let repository = folder.repository()
        try repository.like(PhotoID("a"), image: Samples.rocket)
        let journal = folder.store.appendingPathComponent("likes.journal")
        let text = try String(contentsOf: journal, encoding: .utf8)
        #expect(text.contains(" likes-journal-2\n"))
        try Data(text.replacingOccurrences(of: " likes-journal-2\n", with: " likes-journal-3\n").utf8).write(to: journal)
        try expectRefused(repository, file: "likes.journal", format: "likes-journal-3")
        // A header damaged otherwise is still damage, which repair mends.
        try Data(text.replacingOccurrences(of: " likes-journal-2\n", with: " garbled-name-2\n").utf8).write(to: journal)
        #expect(try repository.list().records.map(\.id.rawValue) == ["a"])
        #expect(!(try repository.verify().isOK))
    }

    @Test func aRecordFromALaterVersionIsRefusedAndLeftAlone() throws {
        let repository = folder.repository()
        try repository.like(PhotoID("a"), image: Samples.rocket)
        let record = folder.store.appendingPathComponent("records/a.json")
        let text = try String(contentsOf: record, encoding: .utf8)
        #expect(text.contains(#""format":1,"#))
        try Data(text.replacingOccurrences(of: #""format":1,"#, with: #""format":2,"#).utf8).write(to: record)
        let before = try files()
        let refusal = LikeRepositoryError.newerFormat(file: record.path, format: "record format 2")
        #expect(throws: refusal) { try repository.record(for: PhotoID("a")) }
        #expect(throws: refusal) { try repository.list() }
        #expect(throws: refusal) { try repository.repair() }
        #expect(throws: refusal) { try repository.verify() }
        #expect(try files() == before, "the store changed")
    }
}
