// Files from the future: a journal, record or sync file a later version wrote is named as such
// (newerFormat), never read as damage, and nothing (repair included) changes the store.

import Foundation
import TestSupport
import Testing

@testable import LikeKit
@testable import LikeStore
@testable import LikesSupport

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

    /// A store synced once with a folder, and the folder.
    func synced() throws -> (LikeRepository, URL) {
        let repository = folder.repository()
        try repository.like(PhotoID("a"), image: Samples.rocket)
        try repository.like(PhotoID("b"), image: Samples.coffee)
        let shared = folder.url.appendingPathComponent("shared", isDirectory: true)
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        _ = try repository.sync(with: shared)
        return (repository, shared)
    }

    /// The first file of sync/ whose name begins with `prefix`.
    func syncFile(_ prefix: String) throws -> URL {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.store.appendingPathComponent("sync").path).sorted()
        let name = try #require(names.first { $0.hasPrefix(prefix) && $0.hasSuffix(".json") })
        return folder.store.appendingPathComponent("sync/" + name)
    }

    /// After `change`, `sync` (and for the state, with a new device id too), `verify` and
    /// `repair` refuse the store. The later version's file stays as it was, byte for byte, and so
    /// does the whole store when that file is the state, which a sync reads first. A shard is read
    /// part way through a sync, whose own progress until then is kept in the state as a sync cut
    /// short keeps it; every other file stays as it was. Listing and liking are not sync's and go on.
    func expectSyncRefused(
        _ repository: LikeRepository, _ shared: URL, file: URL, format: String, state: Bool, change: () throws -> Void
    ) throws {
        try change()
        let before = try files()
        let refusal = LikeRepositoryError.newerFormat(file: file.path, format: format)
        #expect(throws: refusal) { try repository.sync(with: shared) }
        if state { #expect(throws: refusal) { try repository.sync(with: shared, newDevice: true) } }
        #expect(throws: refusal) { try repository.verify() }
        #expect(throws: refusal) { try repository.repair() }
        let after = try files()
        let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
        #expect(changed.isEmpty || (!state && changed == ["sync/state.json"]), "the store changed: \(changed)")
        #expect(try repository.list().records.count >= 2)
    }

    @Test func syncFilesFromALaterVersionAreRefusedAndLeftAlone() throws {
        let (repository, shared) = try synced()
        let sync = folder.store.appendingPathComponent("sync")
        // The files a sync reads once photo a's note changed and photo c shares a's image.
        let rocket = SHA256.hexDigest(of: Array(Samples.rocket))
        let cases = [
            ("sync state", sync.appendingPathComponent("state.json")),
            ("sync shard", sync.appendingPathComponent(PhotoShards.name(PhotoShards.shard(of: "a")) + ".json")),
            ("sync uses", sync.appendingPathComponent(PhotoShards.usesName(PhotoShards.usesShard(of: rocket)) + ".json")),
        ]
        var changes = 0
        let change = {
            changes += 1
            _ = try repository.setNote("note \(changes)", for: PhotoID("a"))
            try repository.like(PhotoID("c\(changes)"), image: Samples.rocket)
        }
        for (kind, file) in cases {
            let original = try Data(contentsOf: file)
            let text = String(decoding: original, as: UTF8.self)
            #expect(text.contains(#""format":2"#), "\(file.lastPathComponent) names no version")
            // The later version in a file of this version's shape, then in one of another shape.
            try Data(text.replacingOccurrences(of: #""format":2"#, with: #""format":3"#).utf8).write(to: file)
            try expectSyncRefused(repository, shared, file: file, format: "\(kind) format 3", state: kind == "sync state", change: change)
            try Data(#"{"format":4,"body":[1,2,3]}"#.utf8).write(to: file)
            try expectSyncRefused(repository, shared, file: file, format: "\(kind) format 4", state: kind == "sync state", change: change)
            try original.write(to: file)
        }
        #expect(try repository.verify().isOK)
        _ = try repository.sync(with: shared)
        // Nothing made while the sync was refused was lost: another device gets all of it.
        let other = TemporaryFolder()
        let second = other.repository()
        _ = try second.sync(with: shared)
        #expect(try second.list().records.count == 2 + changes)
        #expect(try #require(try second.record(for: PhotoID("a"))).note == "note \(changes)")
    }

    @Test func syncFilesFromBeforeVersionsAreReadAndRewrittenWithOne() throws {
        let (repository, shared) = try synced()
        let state = try syncFile("state")
        var files = [state]
        for prefix in ["photos-", "uses-"] { files.append(try syncFile(prefix)) }
        for file in files {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            let older = text.replacingOccurrences(of: #","format":2"#, with: "").replacingOccurrences(of: #""format":2,"#, with: "")
            #expect(!older.contains("format"))
            try Data(older.utf8).write(to: file)
        }
        #expect(try repository.verify().isOK)
        try repository.setNote("kept", for: PhotoID("a"))
        #expect(try repository.sync(with: shared).published == 1)
        #expect(String(decoding: try Data(contentsOf: state), as: UTF8.self).contains(#""format":2"#))
        // A second device reads what the first published across the upgrade.
        let other = TemporaryFolder()
        let second = other.repository()
        _ = try second.sync(with: shared)
        #expect(try #require(try second.record(for: PhotoID("a"))).note == "kept")
    }
}
