// Observers hear changes made by other processes; `likes watch` prints them line by line.

import Foundation
import LikeKit
import LikesSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A running `likes watch --json`, read line by line.
final class Watcher {
    let process = Process()
    private let lines = Locked<[String]>([])
    private let errors = Locked("")

    init(store: URL, arguments: [String] = ["--json"]) throws {
        process.executableURL = Binary.url
        process.arguments = ["--store", store.path, "watch"] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let lines = self.lines
        let errors = self.errors
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { return }
                pending += chunk
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    lines.withLock { $0.append(line) }
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
        }
        Thread.detachNewThread {
            while true {
                let chunk = err.fileHandleForReading.availableData
                if chunk.isEmpty { return }
                errors.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
        }
        // It has begun watching once it says so.
        let deadline = Date().addingTimeInterval(patienceAgainstHanging)
        while !errors.withLock({ $0 }).contains("Watching"), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }

    /// Waits up to `seconds` for line number `index` and returns it decoded.
    func line(_ index: Int, within seconds: Double = patienceAgainstHanging) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while lines.withLock({ $0 }).count <= index {
            guard Date() < deadline else {
                Issue.record("no line \(index) within \(seconds) s; got \(lines.withLock { $0 })")
                throw CancellationError()
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        let text = lines.withLock { $0 }[index]
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    var count: Int { lines.withLock { $0 }.count }

    /// The lines printed so far, as text.
    var text: [String] { lines.withLock { $0 } }

    /// Ends the watch with SIGTERM, as a service manager would; it must exit at once.
    func stop() {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(patienceAgainstHanging)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning {
            Issue.record("likes watch did not end on SIGTERM")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }
}

@Suite struct ObservationTests {
    let box = TemporaryFolder()

    /// An empty store (a photo liked and unliked): `watch` watches a store that is there.
    func makeEmptyStore() throws {
        #expect(try box.run(["like", "seed", "--image", Samples.photo("coffee.jpg").path]).status == 0)
        #expect(try box.run(["unlike", "seed"]).status == 0)
    }

    /// As soon as the journal grows: the time it took is printed, not judged, since it is the
    /// machine's (the second the documentation promises is the timer behind inotify).
    @Test func anObserverHearsAnotherProcess() async throws {
        #expect(try box.run(["like", "first", "--image", Samples.photo("chelsea.jpg").path]).status == 0)
        let repository = LikeRepository(directory: box.store)
        let heard = Locked<[(LikeChange, Date)]>([])
        let token = repository.observe { change in heard.withLock { $0.append((change, Date())) } }
        let started = Date()
        #expect(try box.run(["like", "rocket", "--image", Samples.photo("rocket.jpg").path, "--note", "from afar"]).status == 0)
        let done = Date()
        while heard.withLock({ $0 }).isEmpty, Date().timeIntervalSince(done) < patienceAgainstHanging { try await Task.sleep(for: .milliseconds(5)) }
        token.cancel()
        let changes = heard.withLock { $0 }
        try #require(changes.count == 1, "heard \(changes.map(\.0.kind))")
        #expect(changes[0].0.kind == .liked)
        #expect(changes[0].0.id?.rawValue == "rocket")
        #expect(changes[0].0.record?.note == "from afar")
        print("an observer heard another process's like \(changes[0].1.timeIntervalSince(done)) s after it was done")
        #expect(changes[0].1 > started)
    }

    @Test func changesOfAnotherProcessCarryTheRecordTheyCommittedAndWhatTheyTouched() async throws {
        #expect(try box.run(["like", "first", "--image", Samples.photo("chelsea.jpg").path]).status == 0)
        let repository = LikeRepository(directory: box.store)
        let heard = Locked<[LikeChange]>([])
        let token = repository.observe { change in heard.withLock { $0.append(change) } }
        defer { token.cancel() }
        let rocket = Samples.photo("rocket.jpg").path
        let commands: [[String]] = [
            ["like", "a", "--image", rocket], ["note", "a", "a note"], ["album", "add", "Sky", "a"],
            ["like", "a", "--image", Samples.photo("coffee.jpg").path],
            // Liked and unliked at once: the like is read after its record is gone.
            ["like", "b", "--image", rocket, "--note", "gone soon"], ["unlike", "b"],
        ]
        for command in commands { #expect(try box.run(command).status == 0) }
        let deadline = Date().addingTimeInterval(patienceAgainstHanging)
        while heard.withLock({ $0 }).count < commands.count, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let changes = heard.withLock { $0 }
        try #require(changes.count == commands.count, "heard \(changes.map(\.kind))")
        #expect(changes.map(\.kind) == [.liked, .updated, .updated, .updated, .liked, .unliked])
        #expect(changes.map(\.fields) == [[.image], [.note], [.albums], [.image], [.image, .note], []])
        for change in changes where change.kind != .unliked {
            #expect(change.record != nil, "\(change.kind) \(change.id?.rawValue ?? "") arrived without its record")
        }
        #expect(changes[1].record?.note == "a note" && changes[2].record?.albums.map(\.rawValue) == ["Sky"])
        #expect(changes[4].record?.note == "gone soon")
    }

    @Test(.ownLane) func watchJSONPrintsEachChangeOfOtherProcessesLineByLine() throws {
        try makeEmptyStore()
        let watcher = try Watcher(store: box.store)
        defer { watcher.stop() }
        let rocket = Samples.photo("rocket.jpg").path

        #expect(try box.run(["like", "a", "--image", rocket, "--note", "one"]).status == 0)
        var line = try watcher.line(0)
        #expect(line["change"] as? String == "liked" && line["id"] as? String == "a")
        #expect((line["record"] as? [String: Any])?["note"] as? String == "one")
        #expect(line["files"] is NSNull)
        #expect(line["fields"] as? [String] == ["image", "note"])
        #expect((line["at"] as? String)?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)

        #expect(try box.run(["like", "a", "--image", Samples.photo("coffee.jpg").path]).status == 0)
        line = try watcher.line(1)
        #expect(line["change"] as? String == "updated")
        #expect(((line["record"] as? [String: Any])?["image"] as? [String: Any])?["width"] as? Int == 600)
        #expect(line["fields"] as? [String] == ["image"])

        #expect(try box.run(["unlike", "a"]).status == 0)
        line = try watcher.line(2)
        #expect(line["change"] as? String == "unliked" && line["id"] as? String == "a" && line["record"] is NSNull)
        #expect((line["files"] as? [String])?.first == "records/a.json")
        #expect((line["files"] as? [String])?.count == 2)
        #expect(line["fields"] is NSNull)

        box.file("store/images/stray~0123456789ab.jpg", Data(count: 10))
        #expect(try box.run(["purge"]).status == 0)
        line = try watcher.line(3)
        #expect(line["change"] as? String == "purged" && line["id"] is NSNull)
        #expect(line["files"] as? [String] == ["images/stray~0123456789ab.jpg"])

        // Nothing else: a failed command prints no change, so the line after the purge's is the
        // change made after the failure.
        #expect(try box.run(["unlike", "a"]).status == 1)
        #expect(try box.run(["like", "b", "--image", rocket]).status == 0)
        line = try watcher.line(4)
        #expect(line["change"] as? String == "liked" && line["id"] as? String == "b")
    }

    @Test(.ownLane) func watchGoesOnAfterPurgeRebuildsTheJournal() throws {
        let repository = LikeRepository(directory: box.store, durability: .relaxed)
        let image = Samples.data("chelsea.jpg")
        try repository.like(try PhotoID("keep"), image: image)
        let watcher = try Watcher(store: box.store)
        defer { watcher.stop() }
        // Enough churn that purge compacts the journal into a new file: notes written over one
        // another (an unlike of a photo would stay, for the store's first sync to publish).
        for index in 0..<80 {
            try repository.setNote("note \(index)", for: try PhotoID("keep"))
        }
        _ = try watcher.line(79)
        let before = box.store.appendingPathComponent("likes.journal")
        let sizeBefore = try FileManager.default.attributesOfItem(atPath: before.path)[.size] as? Int ?? 0
        try repository.purge()
        let sizeAfter = try FileManager.default.attributesOfItem(atPath: before.path)[.size] as? Int ?? 0
        #expect(sizeAfter < sizeBefore / 4, "purge compacted the journal")
        #expect(try box.run(["like", "after", "--image", Samples.photo("rocket.jpg").path]).status == 0)
        let line = try watcher.line(80)
        #expect(line["change"] as? String == "liked" && line["id"] as? String == "after")
        #expect(watcher.count == 81)
    }

    /// A restore among newer photos marks the journal, appends, and puts a sorted journal in
    /// its place: a watcher hears every photo restored, once, and what follows.
    @Test(.ownLane) func watchHearsEveryPhotoARestoreBringsBack() throws {
        let source = box.url.appendingPathComponent("source", isDirectory: true)
        let backup = box.path("backup")
        for index in 0..<70 {
            #expect(
                try TemporaryFolder.execute(["--store", source.path, "like", "r\(index)", "--image", Samples.photo("chelsea.jpg").path]).status == 0)
        }
        #expect(try TemporaryFolder.execute(["--store", source.path, "export", backup]).status == 0)
        #expect(try box.run(["like", "newer", "--image", Samples.photo("coffee.jpg").path]).status == 0)
        let watcher = try Watcher(store: box.store)
        defer { watcher.stop() }
        #expect(try box.run(["import", backup]).status == 0)
        #expect(try box.run(["like", "after", "--image", Samples.photo("rocket.jpg").path]).status == 0)
        let last = try watcher.line(70)
        #expect(last["change"] as? String == "liked" && last["id"] as? String == "after")
        let heard = try (0..<70).map { try watcher.line($0)["id"] as? String ?? "" }
        #expect(heard == (0..<70).map { "r\($0)" })  // oldest first, as restored
        // Each once: the line after that like's is the next change's.
        #expect(try box.run(["note", "after", "last"]).status == 0)
        let next = try watcher.line(71)
        #expect(next["change"] as? String == "updated" && next["id"] as? String == "after")
    }

    @Test(.ownLane) func humanWatchLines() throws {
        try makeEmptyStore()
        let watcher = try Watcher(store: box.store, arguments: [])
        defer { watcher.stop() }
        // Each change is waited for: a record replaced before the watcher reads its line is
        // reported without it.
        for (number, command) in [
            ["like", "a", "--image", Samples.photo("rocket.jpg").path], ["note", "a", "first\nlight"], ["album", "add", "Sky", "a"], ["unlike", "a"],
        ].enumerated() {
            #expect(try box.run(command).status == 0)
            let deadline = Date().addingTimeInterval(patienceAgainstHanging)
            while watcher.count <= number, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        }
        let lines = watcher.text
        #expect(lines.count == 4)
        #expect(lines.first?.contains(#/\sliked +a +109\.89 KB +640×427$/#) == true, "\(lines)")
        #expect(lines.dropFirst().first?.hasSuffix("  updated  a  109.89 KB  640×427  note: first light  (changed: note)") == true, "\(lines)")
        #expect(lines.dropFirst(2).first?.hasSuffix("  note: first light  albums: Sky  (changed: albums)") == true, "\(lines)")
        #expect(lines.last?.hasSuffix("  unliked  a") == true, "\(lines)")
    }
}
