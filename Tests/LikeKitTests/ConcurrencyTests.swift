// Many threads and tasks on one store: nothing lost, observers hear every change in order.

import Foundation
import LikeKit
import LikeStore
import LikesSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct ConcurrencyTests {
    let folder = TemporaryFolder()

    @Test func concurrentTasksOnOneRepositoryLoseNothing() async throws {
        let repository = folder.repository(durability: .relaxed)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        try repository.like(PhotoID(valid: "w\(worker)-\(index)"), image: Samples.jpeg(seed: worker * 100 + index))
                    }
                    // Every worker toggles the same shared ids.
                    for index in 0..<5 { try repository.toggle(PhotoID(valid: "shared\(index)"), image: Samples.jpeg(seed: index)) }
                }
            }
            try await group.waitForAll()
        }
        let ids = await Set(try repository.list().records.map(\.id.rawValue))
        #expect(ids.filter { $0.hasPrefix("w") }.count == 200)
        #expect(ids.filter { $0.hasPrefix("shared") }.isEmpty, "8 toggles of each shared id cancel out")
        await #expect(try repository.verify() == VerificationReport(problems: [], orphans: []))
    }

    @Test func twoRepositoriesOnOneStoreExcludeEachOther() async throws {
        let first = folder.repository(durability: .relaxed)
        let second = folder.repository(durability: .relaxed)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, repository) in [("a", first), ("b", second)] {
                group.addTask {
                    for index in 0..<40 { try repository.like(PhotoID(valid: "\(name)\(index)"), image: Samples.jpeg(seed: index)) }
                }
            }
            try await group.waitForAll()
        }
        await #expect(try first.statistics().count == 80)
        await #expect(try second.verify().isOK)
    }

    @Test func anObserverWithoutAWakePipeStillHearsChangesAndLeavesStandardInputAlone() async throws {
        // As if pipe(2) had failed: before the fix the follower used descriptor 0 as both ends,
        // writing to and reading from standard input, and closed it twice.
        let standardInput = fcntl(0, F_GETFD)
        let repository = folder.repository(durability: .relaxed, faults: FaultInjector(withoutPipe: true))
        let heard = Locked<[String]>([])
        var token: LikeObservation? = repository.observe { change in heard.withLock { $0.append(change.id?.rawValue ?? "-") } }
        try await repository.like(PhotoID(valid: "a"), image: Samples.rocket)
        try await waitUntil { heard.withLock { $0 } == ["a"] }
        let follower = try #require(repository.observers.follower)
        token?.cancel()
        token = nil
        // Without a pipe, the follower ends on its timer's next wake-up, closing what it opened.
        try await waitUntil { follower.hasEnded }
        #expect(fcntl(0, F_GETFD) == standardInput, "standard input was closed")
    }

    @Test func observerHearsEveryChangeInOrder() async throws {
        let repository = folder.repository(durability: .relaxed)
        let heard = Locked<[String]>([])
        let token = repository.observe { change in
            heard.withLock { $0.append("\(change.kind.rawValue) \(change.id?.rawValue ?? "-")") }
        }
        try await repository.like(PhotoID(valid: "a"), image: Samples.rocket)
        try await repository.like(PhotoID(valid: "a"), image: nil, note: "n")
        try await repository.toggle(PhotoID(valid: "b"), image: Samples.coffee)
        try await repository.unlike(PhotoID(valid: "a"))
        try Data("x".utf8).write(to: folder.store.appendingPathComponent("images/zz~0123456789ab.jpg"))
        try await repository.purge()
        try await waitUntil { heard.withLock { $0.count } == 5 }
        #expect(heard.withLock { $0 } == ["liked a", "updated a", "liked b", "unliked a", "purged -"])
        token.cancel()
        // Cancelled, it is no longer among those a change is handed to, nor is a follower left.
        #expect(repository.observers.count == 0 && repository.observers.followerCount == 0)
        try await repository.unlike(PhotoID(valid: "b"))
        #expect(heard.withLock { $0.count } == 5, "nothing arrives after cancel")
    }

    @Test func releasingTheTokenStopsDelivery() async throws {
        let repository = folder.repository(durability: .relaxed)
        let count = Locked(0)
        var token: LikeObservation? = repository.observe { _ in count.withLock { $0 += 1 } }
        try await repository.like(PhotoID(valid: "a"), image: Samples.rocket)
        try await waitUntil { count.withLock { $0 } == 1 }
        _ = token
        token = nil
        #expect(repository.observers.count == 0 && repository.observers.followerCount == 0)
        try await repository.unlike(PhotoID(valid: "a"))
        #expect(count.withLock { $0 } == 1)
    }

    @Test func cancellingFromInsideTheCallbackNeitherDeadlocksNorDeliversMore() async throws {
        let repository = folder.repository(durability: .relaxed)
        let count = Locked(0)
        let holder = Locked<LikeObservation?>(nil)
        holder.withLock {
            $0 = repository.observe { _ in
                count.withLock { $0 += 1 }
                holder.withLock { $0?.cancel() }
            }
        }
        // A witness, subscribed after it: once it heard the five, each was handed to both.
        let witnessed = Locked(0)
        let witness = repository.observe { _ in witnessed.withLock { $0 += 1 } }
        for index in 0..<5 { try await repository.like(PhotoID(valid: "p\(index)"), image: Samples.jpeg(seed: index)) }
        try await waitUntil { witnessed.withLock { $0 } == 5 && count.withLock { $0 } == 1 }
        // Its own queue ran the first and cancelled; what followed on that queue found it cancelled.
        #expect(repository.observers.count == 1, "the cancelled observer is gone, the witness stays")
        #expect(count.withLock { $0 } == 1)
        witness.cancel()
    }

    @Test func slowObserverDoesNotStallTheWriter() async throws {
        let repository = folder.repository(durability: .relaxed)
        // An observer held in its first change until the test lets it go: a writer that waited
        // for it to handle each change would find it past the first once its likes are done.
        let hold = DispatchSemaphore(value: 0)
        let held = Locked(0)
        let token = repository.observe { _ in
            held.withLock { $0 += 1 }
            _ = hold.wait(timeout: .now() + 10 * patienceAgainstHanging)
        }
        // The synchronous likes, on this thread: awaited, each would also wait for a thread of the
        // cooperative pool, which the tests running beside this one keep busy.
        func likeFive() throws {
            for index in 0..<5 { try repository.like(PhotoID(valid: "p\(index)"), image: Samples.jpeg(seed: index)) }
        }
        try likeFive()
        #expect(held.withLock { $0 } <= 1, "five likes done while the observer still holds the first")
        for _ in 0..<5 { hold.signal() }
        try await waitUntil { held.withLock { $0 } == 5 }
        token.cancel()
    }

    @Test func asyncSequenceDeliversChanges() async throws {
        let repository = folder.repository(durability: .relaxed)
        let changes = repository.changes
        let reader = Task {
            var kinds: [LikeChange.Kind] = []
            for await change in changes {
                kinds.append(change.kind)
                if kinds.count == 3 { break }
            }
            return kinds
        }
        try await repository.like(PhotoID(valid: "a"), image: Samples.rocket)
        try await repository.like(PhotoID(valid: "a"), image: Samples.coffee)
        try await repository.unlike(PhotoID(valid: "a"))
        #expect(await reader.value == [.liked, .updated, .unliked])
    }
}

/// Polls `condition` until it holds (a hang is a failure).
func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(patienceAgainstHanging)
    while !condition() {
        guard Date() < deadline else {
            Issue.record("condition not met within \(patienceAgainstHanging) s")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

extension ConcurrencyTests {
    /// Another repository (to an observer, as another process) changes one photo six times in a
    /// burst, all of it committed before the observer's follower reads a line: each change still
    /// arrives alone, with its own fields and the record as it committed it.
    @Test func aBurstOfAnotherWritersChangesArrivesChangeByChange() async throws {
        let observed = folder.repository(durability: .relaxed)
        let writer = folder.repository(durability: .relaxed)
        let id = PhotoID(valid: "burst")
        // Synchronous, one after the other with no pause.
        func burst() throws -> JournalPosition {
            try writer.like(id, image: Samples.jpeg(seed: 1), note: "n1")
            let start = JournalFollower.currentPosition(of: observed.store)
            for n in 2...5 { try writer.setNote("n\(n)", for: id) }
            try writer.like(id, image: Samples.jpeg(seed: 2))
            try writer.like(id, image: nil, photo: PhotoMetadata(description: "a description"))
            return start
        }
        let start = try burst()
        // Subscribed from before the burst: the follower reads all six lines at once.
        let heard = Locked<[LikeChange]>([])
        let token = observed.observers.add({ change in heard.withLock { $0.append(change) } }, start: start)
        defer { observed.observers.remove(token) }
        let deadline = Date().addingTimeInterval(patienceAgainstHanging)
        while heard.withLock({ $0.count < 6 }), Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let changes = heard.withLock { $0 }
        try #require(changes.count == 6, "heard \(changes.map(\.fields))")
        #expect(changes.map(\.kind) == Array(repeating: .updated, count: 6))
        #expect(changes.map(\.fields) == [[.note], [.note], [.note], [.note], [.image], [.photo]])
        #expect(changes.map { $0.record?.note } == ["n2", "n3", "n4", "n5", "n5", "n5"])
        #expect(
            changes.map { $0.record?.image.byteCount } == Array(repeating: Samples.jpeg(seed: 1).count, count: 4)
                + Array(repeating: Samples.jpeg(seed: 2).count, count: 2))
        #expect(changes.map { $0.record?.photo?.description } == [nil, nil, nil, nil, nil, "a description"])
    }
}
