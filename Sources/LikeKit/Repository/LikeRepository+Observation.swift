// Observers: every change to the store reaches its subscribers, in order, whichever process made it.

import Dispatch
import LikeStore
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension LikeRepository {
    /// Calls `handler` with every change made to the store from now on, by this repository, by
    /// another repository, or by another process, until the returned token is cancelled or
    /// released.
    ///
    /// Changes arrive in the order they were committed, one at a time, on a serial queue of the
    /// observer's own: a slow observer never stalls a writer or another observer, and cancelling
    /// from inside the handler is safe. Changes made in this process arrive at once; those of
    /// other processes as soon as the system reports the journal grew (inotify on Linux, a
    /// kqueue source on Apple platforms), and within a second anyway. One follower of the store's
    /// journal per repository feeds all its observers, so it never rereads the whole store, and
    /// subscribing never waits for the store's lock.
    ///
    /// ```swift
    /// let token = repository.observe { change in print(change.kind, change.id ?? "") }
    /// // … keep `token` for as long as changes should arrive
    /// ```
    ///
    /// - Parameter handler: Called with each change.
    /// - Returns: A token; delivery stops when it is cancelled or deinitialized.
    public func observe(_ handler: @escaping @Sendable (LikeChange) -> Void) -> LikeObservation {
        LikeObservation(registry: observers, identifier: observers.add(handler))
    }

    /// Every change made to the store from now on, as an asynchronous sequence; see
    /// ``observe(_:)`` for what is delivered and when.
    ///
    /// ```swift
    /// for await change in repository.changes {
    ///     print(change.kind)
    /// }
    /// ```
    ///
    /// Observation starts when the property is read. Changes are buffered without limit until
    /// consumed; iteration ends when the task iterating it is cancelled.
    public var changes: AsyncStream<LikeChange> {
        AsyncStream { continuation in
            let token = observe { change in continuation.yield(change) }
            continuation.onTermination = { _ in token.cancel() }
        }
    }
}

/// A subscription made by ``LikeRepository/observe(_:)``; delivery stops on ``cancel()`` or deinit.
public final class LikeObservation: Sendable {
    private let registry: ObserverRegistry
    private let identifier: Int

    init(registry: ObserverRegistry, identifier: Int) {
        self.registry = registry
        self.identifier = identifier
    }

    /// Stops delivery; a change already being handled finishes. Calling it again does nothing.
    public func cancel() { registry.remove(identifier) }

    deinit { registry.remove(identifier) }
}

/// The observers of one repository and the one follower of the journal that feeds them, which
/// runs while there is an observer.
package final class ObserverRegistry: Sendable {
    /// One subscriber: its handler, its own serial queue, and where in the journal it started.
    private final class Observer: Sendable {
        let handler: @Sendable (LikeChange) -> Void
        // Serial, in order; on the shared global queue, so observers share its threads (as many
        // as there are cores, more while some are blocked) rather than taking one each.
        let queue = DispatchQueue(label: "LikeKit.LikeObservation", target: .global(qos: .default))
        let start: JournalPosition
        /// Whether the follower has passed `start`: from then on every change is delivered.
        let reachedStart: Locked<Bool>
        let cancelled = Locked(false)

        init(handler: @escaping @Sendable (LikeChange) -> Void, start: JournalPosition) {
            self.handler = handler
            self.start = start
            reachedStart = Locked(start.inode == nil)
        }

        /// Whether `change` was committed after this observer subscribed.
        func follows(_ change: FollowedChange) -> Bool {
            reachedStart.withLock { reached in
                if !reached, change.position.inode == start.inode, change.position.offset > start.offset { reached = true }
                return reached
            }
        }
    }

    private struct State {
        var nextIdentifier = 0
        var observers: [Int: Observer] = [:]
        var follower: JournalFollower?
        /// Records this repository committed lately, by key and generation, newest last.
        var recent: [(key: String, generation: String, record: StoredRecord)] = []
        /// The journal files (by inode) the follower has finished: replaced by rebuilt ones.
        var finishedJournals: Set<UInt64> = []
        /// The store's device id as its sync state last said, with that file's mark.
        var device: (mark: String?, id: String?)?
    }

    private let store: Store
    private let state = Locked(State())

    init(store: Store) {
        self.store = store
    }

    /// How many observers there are: what a test of a model released checks.
    package var count: Int { state.withLock { $0.observers.count } }

    func add(_ handler: @escaping @Sendable (LikeChange) -> Void) -> Int {
        add(handler, start: JournalFollower.currentPosition(of: store))
    }

    /// Adds an observer that hears the changes after `start`, a place in the journal read a
    /// moment ago (the follower may have left that journal since).
    package func add(_ handler: @escaping @Sendable (LikeChange) -> Void, start: JournalPosition) -> Int {
        let observer = Observer(handler: handler, start: start)
        return state.withLock { state in
            // Started in a journal the follower has left already: everything it reads follows.
            if let inode = start.inode, state.finishedJournals.contains(inode) { observer.reachedStart.withLock { $0 = true } }
            state.nextIdentifier += 1
            state.observers[state.nextIdentifier] = observer
            if state.follower == nil {
                state.follower = JournalFollower(
                    store: store, start: start, recentRecord: { [weak self] key, generation in self?.recentRecord(key, generation) },
                    leftJournal: { [weak self] inode in self?.leftJournal(inode) }, deliver: { [weak self] change in self?.deliver(change) })
            }
            return state.nextIdentifier
        }
    }

    package func remove(_ identifier: Int) {
        let stopping = state.withLock { state -> JournalFollower? in
            state.observers.removeValue(forKey: identifier)?.cancelled.withLock { $0 = true }
            guard state.observers.isEmpty, let follower = state.follower else { return nil }
            state.follower = nil
            state.recent = []
            state.finishedJournals = []
            return follower
        }
        stopping?.stop()
    }

    /// How many followers run for this repository: one while it has observers, else none.
    package var followerCount: Int { state.withLock { $0.follower == nil ? 0 : 1 } }
    /// The follower running for this repository, if one is: what a test waits on to end.
    package var follower: JournalFollower? { state.withLock { $0.follower } }

    /// Notes a record this repository committed and wakes the follower: called after each change.
    func changed(_ records: [StoredRecord] = []) {
        let follower = state.withLock { state -> JournalFollower? in
            guard let follower = state.follower else { return nil }
            for record in records { state.recent.append((record.key, record.generation, record)) }
            if state.recent.count > 1024 { state.recent.removeFirst(state.recent.count - 512) }
            return follower
        }
        follower?.kick()
    }

    /// The store's device id for syncing, `nil` before its first sync: read from its sync state
    /// again only when that file changed (a look at the file per change).
    func ownDevice() -> String? {
        let mark = try? store.syncFileMark(Store.syncStateName)
        if let known = state.withLock({ $0.device }), known.mark == mark { return known.id }
        struct Saved: Decodable {
            struct Engine: Decodable { var device: String }
            var engine: Engine
        }
        let id = (try? store.syncFile(Store.syncStateName)).flatMap { $0 }.flatMap { try? JSONDecoder().decode(Saved.self, from: $0) }?
            .engine
            .device
        state.withLock { $0.device = (mark, id) }
        return id
    }

    private func recentRecord(_ key: String, _ generation: String) -> StoredRecord? {
        state.withLock { state in state.recent.last { $0.key == key && $0.generation == generation }?.record }
    }

    private func leftJournal(_ inode: UInt64?) {
        let observers = state.withLock { state in
            if let inode { state.finishedJournals.insert(inode) }
            return Array(state.observers.values)
        }
        for observer in observers where observer.start.inode == inode { observer.reachedStart.withLock { $0 = true } }
    }

    private func deliver(_ followed: FollowedChange) {
        let observers = state.withLock { state in state.observers.sorted { $0.key < $1.key }.map(\.value) }
        let change = LikeRepository.publicChange(followed.change, in: store.path, ownDevice: ownDevice)
        for observer in observers where observer.follows(followed) {
            observer.queue.async {
                guard !observer.cancelled.withLock({ $0 }) else { return }
                observer.handler(change)
            }
        }
    }
}
