// Files from the future: a journal, record or sync file a later version wrote is named as such
// (newerFormat), never read as damage, and nothing (repair included) changes the store.

import Foundation
import LikeKit
import LikeStore
import LikesSupport
import TestSupport
import Testing

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

    @Test(.ownLane) func aJournalFromALaterVersionIsRefusedAndLeftAlone() throws {
        let repository = folder.repository()
        try repository.like(PhotoID("a"), image: Samples.rocket)
        let journal = folder.store.appendingPathComponent("likes.journal")
        let text = try String(contentsOf: journal, encoding: .utf8)
        #expect(text.contains(" likes-journal-3\n"))
        try Data(text.replacingOccurrences(of: " likes-journal-3\n", with: " likes-journal-9\n").utf8).write(to: journal)
        try expectRefused(repository, file: "likes.journal", format: "likes-journal-9")
        // A header damaged otherwise is still damage, which repair mends.
        try Data(text.replacingOccurrences(of: " likes-journal-3\n", with: " garbled-name-2\n").utf8).write(to: journal)
        #expect(try repository.list().records.map(\.id.rawValue) == ["a"])
        #expect(!(try repository.verify().isOK))
    }

    @Test(.ownLane) func aRecordFromALaterVersionIsRefusedAndLeftAlone() throws {
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

    /// After `change`, `sync` (and for the state, with a new device id too), a sync session,
    /// `verify` and `repair` refuse the store, and the whole store stays as it was, byte for byte:
    /// every file a round reads is read before it writes. Listing and liking are not sync's and go on.
    func expectSyncRefused(
        _ repository: LikeRepository, _ shared: URL, file: URL, format: String, state: Bool, change: () throws -> Void
    ) async throws {
        try change()
        let before = try files()
        let refusal = LikeRepositoryError.newerFormat(file: file.path, format: format)
        #expect(throws: refusal) { try repository.sync(with: shared) }
        if state { #expect(throws: refusal) { try repository.sync(with: shared, newDevice: true) } }
        try await expectSessionRefused(repository, shared, refusal)
        #expect(throws: refusal) { try repository.verify() }
        #expect(throws: refusal) { try repository.repair() }
        let after = try files()
        let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
        #expect(changed.isEmpty, "the store changed: \(changed)")
        #expect(try await repository.list().records.count >= 2)
    }

    /// A sync session on the store ends on its first sync, with the refusal as its one failure.
    func expectSessionRefused(_ repository: LikeRepository, _ shared: URL, _ refusal: LikeRepositoryError) async throws {
        let session = repository.startSyncing(with: shared)
        var failures: [LikeRepositoryError] = []
        for await failure in session.failures { failures.append(failure) }
        #expect(failures == [refusal])
        #expect(session.isStopped)
        var reports = 0
        for await _ in session.reports { reports += 1 }
        #expect(reports == 0)
    }

    /// A store that never synced, whose journal or one record a later version wrote: `sync` and
    /// a session refuse it before anything is made, not even the sync folder's lock.
    @Test(arguments: ["journal", "record"])
    func aStoreNeverSyncedIsRefusedUntouched(_ newer: String) async throws {
        let repository = folder.repository()
        for name in ["a", "b", "c"] { try await repository.like(PhotoID(name), image: Samples.rocket) }
        let file: URL
        let format: String
        if newer == "journal" {
            file = folder.store.appendingPathComponent("likes.journal")
            let text = try String(contentsOf: file, encoding: .utf8)
            try Data(text.replacingOccurrences(of: " likes-journal-3\n", with: " likes-journal-9\n").utf8).write(to: file)
            format = "likes-journal-9"
        } else {
            file = folder.store.appendingPathComponent("records/b.json")
            let text = try String(contentsOf: file, encoding: .utf8)
            try Data(text.replacingOccurrences(of: #""format":1,"#, with: #""format":2,"#).utf8).write(to: file)
            format = "record format 2"
        }
        let shared = folder.url.appendingPathComponent("shared", isDirectory: true)
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let before = try files()
        let refusal = LikeRepositoryError.newerFormat(file: newer == "journal" ? "likes.journal" : file.path, format: format)
        #expect(throws: refusal) { try repository.sync(with: shared) }
        try await expectSessionRefused(repository, shared, refusal)
        #expect(try files() == before)
        #expect(!FileManager.default.fileExists(atPath: folder.store.appendingPathComponent("sync").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path).isEmpty, "nothing in the sync folder either")
    }

    @Test func syncFilesFromALaterVersionAreRefusedAndLeftAlone() async throws {
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
            try await expectSyncRefused(repository, shared, file: file, format: "\(kind) format 3", state: kind == "sync state", change: change)
            try Data(#"{"format":4,"body":[1,2,3]}"#.utf8).write(to: file)
            try await expectSyncRefused(repository, shared, file: file, format: "\(kind) format 4", state: kind == "sync state", change: change)
            try original.write(to: file)
        }
        #expect(try await repository.verify().isOK)
        _ = try await repository.sync(with: shared)
        // Nothing made while the sync was refused was lost: another device gets all of it.
        let other = TemporaryFolder()
        let second = other.repository()
        _ = try await second.sync(with: shared)
        #expect(try await second.list().records.count == 2 + changes)
        #expect(try #require(try await second.record(for: PhotoID("a"))).note == "note \(changes)")
    }

    @Test(.ownLane) func syncFilesFromBeforeVersionsAreReadAndRewrittenWithOne() throws {
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
