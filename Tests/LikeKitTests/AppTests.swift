// LikeKit as an app uses it: async calls that never hold a thread of the cooperative pool while
// another process holds the lock, cancellation, the heart button's calls, files taken without
// being read into memory, observers fed by one follower, errors an app can show.

import Foundation
import LikeKit
import LikeStore
import LikesSupport
import TestSupport
import Testing

/// Another process holding the store's exclusive lock: util-linux's `flock` running a shell
/// that holds it until its standard input ends.
final class LockHolder: Sendable {
    private let process: Process
    private let input: Pipe
    private let closed = Locked(false)

    /// Returns once the lock is held; it is held for `seconds`, or until ``release()``.
    init(store: URL, seconds: Double) throws {
        let ready = store.deletingLastPathComponent().appendingPathComponent("held-\(UUID().uuidString)")
        process = Process()
        input = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        process.arguments = ["--exclusive", store.appendingPathComponent("likes.lock").path, "sh", "-c", "touch \"$0\" && read line", ready.path]
        process.standardInput = input
        try process.run()
        let deadline = Date().addingTimeInterval(patienceAgainstHanging)
        while !FileManager.default.fileExists(atPath: ready.path) {
            guard Date() < deadline else { throw CancellationError() }
            Thread.sleep(forTimeInterval: 0.005)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in endInput() }
    }

    private func endInput() {
        let wasClosed = closed.withLock { value in
            defer { value = true }
            return value
        }
        if !wasClosed { try? input.fileHandleForWriting.close() }
    }

    /// Waits for the holder to let go.
    func finish() { process.waitUntilExit() }

    /// Whether the lock is still held.
    var isHolding: Bool { process.isRunning }

    /// Lets go of the lock at once.
    func release() {
        endInput()
        process.waitUntilExit()
    }
}

@Suite struct AppTests {
    let folder = TemporaryFolder()

    // MARK: Never blocking

    // What an awaiting caller sees while another process holds the lock (a ticker that keeps
    // ticking, a cancelled wait that ends at once) is measured in a process of its own, where no
    // other test holds threads of the cooperative pool: likesTests/LikeKitInAnAppTests.swift.

    @Test func workOfATaskCancelledBeforeItStartsNeverStarts() async throws {
        let repository = folder.repository(durability: .relaxed)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await repository.like(PhotoID(valid: "never"), image: Samples.jpeg(seed: 3))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await repository.isLiked(PhotoID(valid: "never")) == false)
    }

    /// A page is read on the awaiting task's thread while the lock is free; while another process
    /// holds it, the read waits for it (on a queue of its own), and one cancelled meanwhile ends.
    @Test func aReadWaitsForAnotherProcessesLockAndACancelledOneEnds() async throws {
        let repository = folder.repository(durability: .relaxed)
        try await repository.like(PhotoID(valid: "first"), image: Samples.jpeg(seed: 1))
        #expect(try await repository.list().records.map(\.id) == [PhotoID(valid: "first")])

        let holder = try LockHolder(store: folder.store, seconds: patienceAgainstHanging)
        let finished = Locked(false)
        let waiting = Task {
            defer { finished.withLock { $0 = true } }
            return try await repository.list().records.map(\.id)
        }
        let cancelled = Task { try await repository.list() }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        // The cancelled read ended while the lock was held, and the other had not.
        #expect(holder.isHolding)
        #expect(!finished.withLock { $0 }, "a page was read while another process held the lock")
        holder.release()
        #expect(try await waiting.value == [PhotoID(valid: "first")])
    }

    @Test func subscribingNeverWaitsForTheLock() async throws {
        let repository = folder.repository(durability: .relaxed)
        try await repository.like(PhotoID(valid: "first"), image: Samples.jpeg(seed: 1))
        // Held until let go: subscribing returns while the other process still holds it.
        let holder = try LockHolder(store: folder.store, seconds: patienceAgainstHanging)
        let heard = Locked<[LikeChange]>([])
        let token = repository.observe { change in heard.withLock { $0.append(change) } }
        let stream = repository.changes
        #expect(holder.isHolding, "subscribing waited for the lock")
        holder.release()
        try await repository.like(PhotoID(valid: "second"), image: Samples.jpeg(seed: 2), note: "hello")
        var iterator = stream.makeAsyncIterator()
        let change = try #require(await iterator.next())
        #expect(change.kind == .liked && change.id == PhotoID(valid: "second"))
        #expect(change.record?.note == "hello")
        #expect(change.fields == [.image, .note])
        let deadline = Date().addingTimeInterval(patienceAgainstHanging)
        while heard.withLock({ $0.isEmpty }), Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(heard.withLock { $0.map(\.id) } == [PhotoID(valid: "second")])
        token.cancel()
    }

    // MARK: The heart button

    @Test func likedIDsAmongAPageOfResults() async throws {
        let repository = folder.repository(durability: .relaxed)
        func likedSynchronously(_ ids: [PhotoID]) throws -> Set<PhotoID> { try repository.likedIDs(among: ids) }
        #expect(try likedSynchronously([PhotoID(valid: "a")]).isEmpty, "no store yet")
        for id in ["a", "c", "e"] { try await repository.like(PhotoID(valid: id), image: Samples.jpeg(seed: id.count)) }
        let page = ["a", "b", "c", "d", "e", "f", "a"].map { PhotoID(valid: $0) }
        #expect(try likedSynchronously(page) == Set(["a", "c", "e"].map { PhotoID(valid: $0) }))
        #expect(try await repository.likedIDs(among: page) == Set(["a", "c", "e"].map { PhotoID(valid: $0) }))
        #expect(try await repository.likedIDs(among: []).isEmpty)
    }

    @Test func toggleCallsForTheImageOnlyWhenItLikes() async throws {
        let repository = folder.repository(durability: .relaxed)
        let id = PhotoID(valid: "heart")
        let calls = Locked(0)
        func image() throws -> Data {
            calls.withLock { $0 += 1 }
            return Samples.jpeg(seed: 7)
        }
        func toggleSynchronously() throws -> LikeChange { try repository.toggle(id, note: "tapped", image: image) }
        #expect(try toggleSynchronously().kind == .liked)
        #expect(calls.withLock { $0 } == 1)
        #expect(try await repository.record(for: id)?.note == "tapped")
        #expect(try toggleSynchronously().kind == .unliked)
        #expect(calls.withLock { $0 } == 1, "the image was asked for to unlike")

        // The async form awaits its closure, a download for instance.
        let liked = try await repository.toggle(id) {
            try await Task.sleep(for: .milliseconds(5))
            return try image()
        }
        #expect(liked.kind == .liked && calls.withLock { $0 } == 2)
        let unliked = try await repository.toggle(id) { () async throws -> Data in
            Issue.record("asked for the image to unlike")
            return Data()
        }
        #expect(unliked.kind == .unliked)

        // What the closure throws is thrown as it is, and nothing is liked.
        struct Offline: Error {}
        await #expect(throws: Offline.self) { try await repository.toggle(id) { () async throws -> Data in throw Offline() } }
        #expect(try await repository.isLiked(id) == false)
    }

    /// A photo liked from a file is copied whole, byte for byte. (What it costs in memory is
    /// measured on the `likes` process alone, in likesTests' MemoryTests: this process runs every
    /// other test beside it.)
    @Test func likeFromAFileCopiesItWhole() async throws {
        let sample = Samples.jpeg(seed: 5)
        let file = folder.url.appendingPathComponent("large.jpg")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        try handle.write(contentsOf: sample.dropLast(2))
        let block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) })
        for _ in 0..<20 { try handle.write(contentsOf: block) }
        try handle.write(contentsOf: Data([0xFF, 0xD9]))
        try handle.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)

        let repository = folder.repository(durability: .relaxed)
        let change = try await repository.like(PhotoID(valid: "large"), imageFile: file, note: "big")
        let record = try #require(change.record)
        #expect(record.image.byteCount == size)
        #expect(try Data(contentsOf: record.image.file) == Data(contentsOf: file))
        await #expect(try repository.verify().isOK)
    }

    @Test func likeFromAFileChecksItAndSaysWhichFileIsWrong() async throws {
        let repository = folder.repository(durability: .relaxed)
        let cut = folder.url.appendingPathComponent("cut.jpg")
        try Samples.jpeg(seed: 1).dropLast(5).write(to: cut)
        let good = folder.url.appendingPathComponent("good.jpg")
        try Samples.jpeg(seed: 2).write(to: good)
        #expect {
            try repository.like(PhotoID(valid: "x"), imageFile: cut)
        } throws: { error in
            guard case LikeRepositoryError.notJPEG(.image, let reason) = error else { return false }
            return reason.contains("EOI")
        }
        #expect {
            try repository.like(PhotoID(valid: "x"), imageFile: good, userImageFile: cut)
        } throws: { error in
            if case LikeRepositoryError.notJPEG(.userImage, _) = error { true } else { false }
        }
        #expect {
            try repository.like(PhotoID(valid: "x"), imageFile: folder.url.appendingPathComponent("missing.jpg"))
        } throws: { error in
            if case LikeRepositoryError.io(_, let path, ENOENT) = error { path.hasSuffix("missing.jpg") } else { false }
        }
        await #expect(try repository.isLiked(PhotoID(valid: "x")) == false)
        let change = try await repository.like(PhotoID(valid: "x"), imageFile: good, userImageFile: good)
        #expect(try Data(contentsOf: try #require(change.record?.userImage?.file)) == Samples.jpeg(seed: 2))
    }

    @Test(.ownLane) func aFileThatChangesBetweenItsCheckAndItsCopyIsNotLiked() throws {
        let repository = folder.repository(durability: .relaxed)
        let file = folder.url.appendingPathComponent("photo.jpg")
        try Samples.jpeg(seed: 1).write(to: file)
        let request = StoreRequest(
            id: "p", image: try StoreRequest.Image(file: file.path, kind: .image), userImage: nil, note: nil, photo: nil, albums: [])
        // Rewritten in place with other bytes of the same length, a moment later.
        Thread.sleep(forTimeInterval: 0.01)
        let handle = try FileHandle(forWritingTo: file)
        try handle.write(contentsOf: Samples.jpeg(seed: 2))
        try handle.close()
        #expect {
            try repository.store.withWriteSession { session in try session.like(request) }
        } throws: { error in
            if case StoreError.notJPEG(_, let reason) = error { reason.contains("changed while it was being liked") } else { false }
        }
        #expect(try repository.isLiked(PhotoID(valid: "p")) == false)
        #expect(try repository.verify().orphans.isEmpty)
    }

    // MARK: Changes

    @Test func changesSayWhatTheyTouched() async throws {
        let repository = folder.repository(durability: .relaxed)
        let id = PhotoID(valid: "p")
        let stream = repository.changes
        var iterator = stream.makeAsyncIterator()
        try await repository.like(id, image: Samples.jpeg(seed: 1))
        try await repository.setNote("a note", for: id)
        try await repository.addPhotos([id], toAlbum: AlbumName(valid: "Sky"))
        try await repository.like(id, image: Samples.jpeg(seed: 2), userImage: Samples.jpeg(seed: 3))
        try await repository.like(id, image: nil, photo: PhotoMetadata(photographer: "Ann"))
        try await repository.unlike(id)
        var seen: [(LikeChange.Kind, Set<LikeChange.Field>, Bool)] = []
        for _ in 0..<6 {
            let change = try #require(await iterator.next())
            seen.append((change.kind, change.fields, change.record != nil))
        }
        let expected: [(LikeChange.Kind, Set<LikeChange.Field>, Bool)] = [
            (.liked, [.image], true), (.updated, [.note], true), (.updated, [.albums], true), (.updated, [.image, .userImage], true),
            (.updated, [.photo], true), (.unliked, [], false),
        ]
        #expect(seen.map(\.0) == expected.map(\.0))
        #expect(seen.map(\.1) == expected.map(\.1))
        #expect(seen.map(\.2) == expected.map(\.2))
    }

    @Test func aLikeReadOnlyAfterItsPhotoWasUnlikedStillCarriesItsRecord() async throws {
        // The follower starts behind two changes another process made, as when it reads a like
        // only after that process has unliked the photo again.
        let other = folder.repository(durability: .relaxed)
        try await other.like(PhotoID(valid: "first"), image: Samples.jpeg(seed: 1))
        let store = folder.repository().store
        let start = JournalFollower.currentPosition(of: store)
        try await other.like(PhotoID(valid: "brief"), image: Samples.jpeg(seed: 2), note: "gone soon", albums: [AlbumName(valid: "Sky")])
        try await other.setNote("changed", for: PhotoID(valid: "brief"))
        try await other.unlike(PhotoID(valid: "brief"))
        let heard = Locked<[StoredChange]>([])
        let follower = JournalFollower(store: store, start: start, recentRecord: { _, _ in nil }, leftJournal: { _ in }) { followed in
            heard.withLock { $0.append(followed.change) }
        }
        defer { follower.stop() }
        let deadline = Date().addingTimeInterval(patienceAgainstHanging)
        while heard.withLock({ $0.count < 3 }), Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let changes = heard.withLock { $0 }
        try #require(changes.count == 3)
        #expect(changes.map(\.kind) == [.liked, .updated, .unliked])
        // Each as it committed it, though the photo is gone: from the records the latest changes
        // kept (likes.recent).
        #expect(changes[1].record?.note == "changed" && changes[1].fields == [.note])
        #expect(changes[0].record?.note == "gone soon" && changes[0].record?.albums == ["Sky"])
        #expect(changes[0].fields == [.image, .note, .albums])
    }

    @Test func oneFollowerFeedsEveryObserver() async throws {
        let repository = folder.repository(durability: .relaxed)
        try await repository.like(PhotoID(valid: "first"), image: Samples.jpeg(seed: 1))
        let heard = Locked([Int](repeating: 0, count: 20))
        let tokens = (0..<20).map { index in repository.observe { _ in heard.withLock { $0[index] += 1 } } }
        #expect(repository.observers.followerCount == 1)
        for index in 0..<3 { try await repository.like(PhotoID(valid: "p\(index)"), image: Samples.jpeg(seed: 10 + index)) }
        let deadline = Date().addingTimeInterval(patienceAgainstHanging)
        while heard.withLock({ $0.contains { $0 < 3 } }), Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(heard.withLock { $0 } == [Int](repeating: 3, count: 20))
        for token in tokens.dropFirst() { token.cancel() }
        #expect(repository.observers.followerCount == 1)
        tokens[0].cancel()
        #expect(repository.observers.followerCount == 0)
    }

    @Test func aSlowObserverDoesNotHoldUpAnother() async throws {
        let repository = folder.repository(durability: .relaxed)
        // The slow one stays in its first change until let go; the quick one hears all three
        // meanwhile. Were it held up by the slow one, it would hear none of them.
        let letGo = DispatchSemaphore(value: 0)
        let slowHeard = Locked(0)
        let slow = repository.observe { _ in
            slowHeard.withLock { $0 += 1 }
            letGo.wait()
        }
        let heard = Locked(0)
        let quick = repository.observe { _ in heard.withLock { $0 += 1 } }
        for index in 0..<3 { try await repository.like(PhotoID(valid: "p\(index)"), image: Samples.jpeg(seed: index)) }
        let deadline = Date().addingTimeInterval(patienceAgainstHanging)
        while heard.withLock({ $0 < 3 }), Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(heard.withLock { $0 } == 3, "the quick observer waited for the slow one")
        #expect(slowHeard.withLock { $0 } <= 1, "the slow observer went on before it was let go")
        for _ in 0..<3 { letGo.signal() }
        let slowDeadline = Date().addingTimeInterval(patienceAgainstHanging)
        while slowHeard.withLock({ $0 < 3 }), Date() < slowDeadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(slowHeard.withLock { $0 } == 3, "the slow observer heard \(slowHeard.withLock { $0 }) of 3")
        slow.cancel()
        quick.cancel()
    }

    @Test func anObserverAddedLaterHearsOnlyWhatFollows() async throws {
        let repository = folder.repository(durability: .relaxed)
        let early = Locked<[PhotoID?]>([])
        let first = repository.observe { change in early.withLock { $0.append(change.id) } }
        try await repository.like(PhotoID(valid: "one"), image: Samples.jpeg(seed: 1))
        let late = Locked<[PhotoID?]>([])
        let second = repository.observe { change in late.withLock { $0.append(change.id) } }
        try await repository.like(PhotoID(valid: "two"), image: Samples.jpeg(seed: 2))
        // A last like: once both have heard it, they have heard everything before it.
        let last = PhotoID(valid: "three")
        try await repository.like(last, image: Samples.jpeg(seed: 3))
        let deadline = Date().addingTimeInterval(patienceAgainstHanging)
        while !(late.withLock { $0.contains(last) } && early.withLock { $0.contains(last) }), Date() < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(late.withLock { $0 } == [PhotoID(valid: "two"), last])
        #expect(early.withLock { $0 } == [PhotoID(valid: "one"), PhotoID(valid: "two"), last])
        first.cancel()
        second.cancel()
    }

    @Test func anObserverThatStartedInAJournalTheFollowerHasLeftHearsWhatFollows() async throws {
        // Subscribing reads the journal's end without the lock; a purge may replace the journal,
        // and the follower leave it, before the new observer is added.
        let repository = folder.repository(durability: .relaxed)
        try await repository.like(PhotoID(valid: "keep"), image: Samples.jpeg(seed: 1))
        for index in 0..<40 {
            try await repository.like(PhotoID(valid: "t\(index)"), image: Samples.jpeg(seed: 2))
            try await repository.unlike(PhotoID(valid: "t\(index)"))
        }
        let early = Locked<[PhotoID?]>([])
        let first = repository.observe { change in early.withLock { $0.append(change.id) } }
        let oldPlace = JournalFollower.currentPosition(of: repository.store)
        try await repository.purge()
        #expect(JournalFollower.currentPosition(of: repository.store).inode != oldPlace.inode, "purge rebuilt the journal")
        try await repository.like(PhotoID(valid: "marker"), image: Samples.jpeg(seed: 3))
        let deadline = Date().addingTimeInterval(patienceAgainstHanging)
        while !early.withLock({ $0.contains(PhotoID(valid: "marker")) }), Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        // The first observer too started in the old journal, which its follower may never have
        // opened: it hears what follows all the same.
        #expect(early.withLock { $0 }.contains(PhotoID(valid: "marker")))
        // The follower is in the new journal now; an observer placed in the old one is added.
        let late = Locked<[PhotoID?]>([])
        let second = repository.observers.add({ change in late.withLock { $0.append(change.id) } }, start: oldPlace)
        try await repository.like(PhotoID(valid: "after"), image: Samples.jpeg(seed: 4))
        while late.withLock({ $0.isEmpty }), Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(late.withLock { $0 } == [PhotoID(valid: "after")])
        repository.observers.remove(second)
        first.cancel()
    }

    // MARK: Errors and places

    @Test(.ownLane) func errorsReadWellInAnAppAndNameNoCommand() throws {
        let id = PhotoID(valid: "p")
        let errors: [LikeRepositoryError] = [
            .invalidID("", reason: "it is empty"), .notJPEG(image: .image, reason: "it is cut short"), .notLiked(id: id), .imageRequired(id: id),
            .storeBusy(directory: "/s", waitedSeconds: 10), .io(action: "read", path: "/s/x", code: ENOENT),
            .damagedRecord(file: "records/p.json", reason: "not JSON"), .idCollision(id: id, existing: PhotoID(valid: "q")),
            .invalidArgument("The limit must not be negative."), .invalidAlbumName("", reason: "it is empty"), .invalidNote(reason: "it is blank"),
            .noSuchAlbum(AlbumName(valid: "Sky")), .notInAlbum(id: id, album: AlbumName(valid: "Sky")),
            .exportDestinationUnusable(path: "/e", reason: "it is a file"),
        ]
        for error in errors {
            let described = try #require(error.errorDescription)
            #expect(error.localizedDescription == described)
            #expect(described.hasSuffix(".") && !described.contains("likes "), "\(described)")
            if let suggestion = error.recoverySuggestion {
                #expect(suggestion.hasSuffix(".") && !suggestion.contains("likes ") && !suggestion.contains("`"))
                #expect(error.description == described + " " + suggestion)
            } else {
                #expect(error.description == described)
            }
        }
        #expect(LikeRepositoryError.storeBusy(directory: "/s", waitedSeconds: 10).recoverySuggestion == "Try again when it has finished.")
    }

    @Test(.ownLane) func defaultPlaces() throws {
        #if os(Linux)
            let environment = ProcessInfo.processInfo.environment
            #expect(LikeRepository.defaultDirectory == LikeRepository.dataDirectory(environment: environment))
            #expect(LikeRepository.dataDirectory(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/a"]).path == "/data/likes")
            #expect(LikeRepository.dataDirectory(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/a"]).path == "/home/a/.local/share/likes")
            #expect(LikeRepository.defaultDirectory(appGroup: "group.com.example.photos") == nil)
        #endif
    }
}

extension AlbumName {
    init(valid text: String) { try! self.init(text) }
}
