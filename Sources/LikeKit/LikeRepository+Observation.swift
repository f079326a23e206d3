// Observers: every change this repository makes reaches its subscribers, in order.

import Dispatch
import Foundation

extension LikeRepository {
    /// Calls `handler` with every change made through this repository from now on, until the
    /// returned token is cancelled or released.
    ///
    /// Changes arrive in the order they were made, one at a time, on a serial queue of the
    /// observer's own: a slow observer never stalls a writer, and cancelling from inside the
    /// handler is safe.
    ///
    /// ```swift
    /// let token = repository.observe { change in print(change.kind, change.id ?? "") }
    /// // … keep `token` for as long as changes should arrive
    /// ```
    ///
    /// - Parameter handler: Called with each change.
    /// - Returns: A token; delivery stops when it is cancelled or deinitialized.
    public func observe(_ handler: @escaping @Sendable (LikeChange) -> Void) -> LikeObservation {
        observers.add(handler)
    }

    /// Every change made through this repository from now on, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await change in repository.changes {
    ///     print(change.kind)
    /// }
    /// ```
    ///
    /// The sequence buffers changes without limit until they are consumed; iteration ends when
    /// the task iterating it is cancelled.
    public var changes: AsyncStream<LikeChange> {
        AsyncStream { continuation in
            let token = observers.add { change in continuation.yield(change) }
            continuation.onTermination = { _ in token.cancel() }
        }
    }
}

/// A subscription made by ``LikeRepository/observe(_:)``; delivery stops on ``cancel()`` or deinit.
public final class LikeObservation: Sendable {
    private let registry: ObserverRegistry
    let identifier: Int

    init(registry: ObserverRegistry, identifier: Int) {
        self.registry = registry
        self.identifier = identifier
    }

    /// Stops delivery; a change already being handled finishes. Calling it again does nothing.
    public func cancel() { registry.remove(identifier) }

    deinit { registry.remove(identifier) }
}

/// The subscribers of one repository, each with its own serial delivery queue.
final class ObserverRegistry: Sendable {
    private final class Subscriber: Sendable {
        let handler: @Sendable (LikeChange) -> Void
        let queue: DispatchQueue
        let active = Locked(true)

        init(handler: @escaping @Sendable (LikeChange) -> Void, identifier: Int) {
            self.handler = handler
            queue = DispatchQueue(label: "LikeKit.observer.\(identifier)")
        }
    }

    private struct State {
        var nextIdentifier = 0
        var subscribers: [Int: Subscriber] = [:]
    }

    private let state = Locked(State())

    func add(_ handler: @escaping @Sendable (LikeChange) -> Void) -> LikeObservation {
        let identifier = state.withLock { state in
            state.nextIdentifier += 1
            state.subscribers[state.nextIdentifier] = Subscriber(handler: handler, identifier: state.nextIdentifier)
            return state.nextIdentifier
        }
        return LikeObservation(registry: self, identifier: identifier)
    }

    func remove(_ identifier: Int) {
        let subscriber = state.withLock { $0.subscribers.removeValue(forKey: identifier) }
        subscriber?.active.withLock { $0 = false }
    }

    var isEmpty: Bool { state.withLock { $0.subscribers.isEmpty } }

    /// Queues `changes` for every subscriber. Called in the order the changes were made; the
    /// subscriber list is copied out of the lock before anything is queued.
    func publish(_ changes: [LikeChange]) {
        guard !changes.isEmpty else { return }
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers {
            subscriber.queue.async {
                for change in changes {
                    guard subscriber.active.withLock({ $0 }) else { return }
                    subscriber.handler(change)
                }
            }
        }
    }
}
