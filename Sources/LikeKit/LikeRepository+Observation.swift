// Observers: every change to the store reaches its subscribers, in order, whichever process made it.

import Foundation

extension LikeRepository {
    /// Calls `handler` with every change made to the store from now on, by this repository, by
    /// another repository, or by another process, until the returned token is cancelled or
    /// released.
    ///
    /// Changes arrive in the order they were committed, one at a time, on a thread of the
    /// observer's own: a slow observer never stalls a writer or another observer, and cancelling
    /// from inside the handler is safe. Changes made in this process arrive at once; those of
    /// other processes within a second (on Linux, as soon as inotify reports them). Each observer
    /// follows the store's journal, so it never rereads the whole store.
    ///
    /// ```swift
    /// let token = repository.observe { change in print(change.kind, change.id ?? "") }
    /// // … keep `token` for as long as changes should arrive
    /// ```
    ///
    /// - Parameter handler: Called with each change.
    /// - Returns: A token; delivery stops when it is cancelled or deinitialized.
    public func observe(_ handler: @escaping @Sendable (LikeChange) -> Void) -> LikeObservation {
        let directory = self.directory
        let follower = JournalFollower(store: store, start: JournalFollower.currentPosition(of: store)) { change in
            handler(LikeRepository.publicChange(change, in: directory))
        }
        return LikeObservation(registry: observers, identifier: observers.add(follower))
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

/// The followers of one repository, so that its own writes can wake them at once.
final class ObserverRegistry: Sendable {
    private struct State {
        var nextIdentifier = 0
        var followers: [Int: JournalFollower] = [:]
    }

    private let state = Locked(State())

    func add(_ follower: JournalFollower) -> Int {
        state.withLock { state in
            state.nextIdentifier += 1
            state.followers[state.nextIdentifier] = follower
            return state.nextIdentifier
        }
    }

    func remove(_ identifier: Int) {
        state.withLock { $0.followers.removeValue(forKey: identifier) }?.stop()
    }

    /// Wakes every follower: called after each change this repository commits.
    func changed() {
        let followers = state.withLock { Array($0.followers.values) }
        for follower in followers { follower.kick() }
    }
}
