// Owns sync as an app runs it: a session that syncs the store with a folder whenever either side
// changes, retries what may pass, and reports each sync; `likes sync --watch` is one. Runs on a
// queue of its own, looking at the store's change mark and the folder's fingerprint.

import Dispatch
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// A store kept in step with a sync folder for as long as the session runs: made by
/// ``LikeRepository/startSyncing(with:)``. It stops on ``stop()``, or when it is released.
///
/// It syncs at once, then within 2 seconds of a change on either side (a like in any process, a
/// file another device's sync wrote into the folder), every 2 seconds while changes wait for an
/// image the folder does not have yet, and every 5 seconds anyway. A failure that may pass (the
/// folder's drive gone a moment, the store busy) is reported and the session goes on; a store
/// found to be a copy of another device's, or one a later version wrote, ends it.
///
/// On Apple platforms each sync writes into the folder as a coordinated write (`NSFileCoordinator`),
/// which an iCloud Drive folder asks of its writers; on iOS, watchOS and visionOS it runs as an
/// expiring activity, so that a sync under way when the app leaves the foreground gets the time the
/// system allows, and none begins once the system grants no more.
///
/// ```swift
/// let session = repository.startSyncing(with: iCloudFolder)
/// Task {
///     for await report in session.reports where report.merged > 0 {
///         print("merged \(report.merged) changes from other devices")
///     }
/// }
/// // … when the app goes to the background:
/// session.stop()
/// ```
public final class SyncSession: Sendable {
    /// Each sync the session made, in order; finished when the session stops. Nobody need read
    /// it: it keeps the newest ``unreadReportsKept`` not read yet, so that a session running for
    /// weeks holds no more memory than one running for minutes.
    public let reports: AsyncStream<SyncReport>
    /// Each sync that failed, in order; finished when the session stops. It keeps the newest
    /// ``unreadReportsKept`` not read yet, as ``reports`` does.
    public let failures: AsyncStream<LikeRepositoryError>

    /// How many reports (and failures) not read yet a session keeps: the newest.
    public static let unreadReportsKept = 32

    private let loop: Loop

    init(
        repository: LikeRepository, folder: URL, interval: Double = 0.25,
        handler: (@Sendable (Result<SyncReport, LikeRepositoryError>) -> Void)? = nil
    ) {
        let (reports, reportSink) = AsyncStream.makeStream(of: SyncReport.self, bufferingPolicy: .bufferingNewest(Self.unreadReportsKept))
        let (failures, failureSink) = AsyncStream.makeStream(
            of: LikeRepositoryError.self, bufferingPolicy: .bufferingNewest(Self.unreadReportsKept))
        self.reports = reports
        self.failures = failures
        loop = Loop(reports: reportSink, failures: failureSink, handler: handler)
        let loop = self.loop
        // A queue of its own: the loop blocks between looks, never a thread of the cooperative pool.
        DispatchQueue(label: "LikeKit.SyncSession").async { loop.run(repository, folder, interval) }
    }

    /// Stops the session when the app lets go of it.
    deinit { loop.stop() }

    /// Syncs as soon as the sync running (if any) ends, without waiting for a change.
    public func syncNow() { loop.syncNow() }

    /// Ends the session once the sync running (if any) ends; ``reports`` and ``failures`` then
    /// finish. Calling it again does nothing.
    public func stop() { loop.stop() }

    /// Whether the session has ended (stopped, or a copied store found).
    public var isStopped: Bool { loop.isStopped }

    /// The session's loop and what it shares with the session's methods.
    fileprivate final class Loop: Sendable {
        private struct State {
            var stopped = false
            var now = true
        }

        private let state = Locked(State())
        private let wake = DispatchSemaphore(value: 0)
        private let reports: AsyncStream<SyncReport>.Continuation
        private let failures: AsyncStream<LikeRepositoryError>.Continuation
        private let handler: (@Sendable (Result<SyncReport, LikeRepositoryError>) -> Void)?

        init(
            reports: AsyncStream<SyncReport>.Continuation, failures: AsyncStream<LikeRepositoryError>.Continuation,
            handler: (@Sendable (Result<SyncReport, LikeRepositoryError>) -> Void)?
        ) {
            self.reports = reports
            self.failures = failures
            self.handler = handler
        }

        func syncNow() {
            state.withLock { $0.now = true }
            wake.signal()
        }

        func stop() {
            state.withLock { $0.stopped = true }
            wake.signal()
        }

        var isStopped: Bool { state.withLock { $0.stopped } }

        /// Looks at both sides every `interval` seconds, and syncs when either changed, when
        /// asked to, or when it is due.
        func run(_ repository: LikeRepository, _ folder: URL, _ interval: Double) {
            defer {
                state.withLock { $0.stopped = true }
                reports.finish()
                failures.finish()
            }
            var seen: (mark: LikeChangeMark?, folder: SyncFolderFingerprint)?
            var lastSync = Date.distantPast
            var waiting = false
            while true {
                let (stopped, now) = state.withLock { state in
                    defer { state.now = false }
                    return (state.stopped, state.now)
                }
                if stopped { return }
                let look = (mark: repository.changeMark(), folder: SyncFolderFingerprint(folder: folder))
                // Every 5 s anyway: a change made while the last sync was writing is in the mark
                // it saw, and the sync finds it by the journal (a few lines read).
                let due = Date().timeIntervalSince(lastSync) >= (waiting ? 2 : 5)
                if now || due || look.mark != seen?.mark || look.folder != seen?.folder {
                    do {
                        guard let report = try Self.syncOnce(repository, folder) else {
                            _ = wake.wait(timeout: .now() + interval)
                            continue
                        }
                        waiting = !report.pending.isEmpty
                        reports.yield(report)
                        handler?(.success(report))
                    } catch {
                        let failure = error as? LikeRepositoryError ?? .io(action: "sync with", path: folder.path, code: 0)
                        failures.yield(failure)
                        handler?(.failure(failure))
                        if failure.endsASyncSession { return }
                    }
                    lastSync = Date()
                    // What was seen before the sync: a change either side made while it ran
                    // (the other device publishing as this one read the folder) is then
                    // seen as a change, and synced at the next look. The sync's own writes
                    // show as one too, and the sync that follows writes nothing.
                    seen = look
                }
                _ = wake.wait(timeout: .now() + interval)
            }
        }
    }
}

extension SyncSession.Loop {
    #if canImport(Darwin) && !os(macOS)
        /// One sync, held as an expiring activity (`ProcessInfo.performExpiringActivity`, as
        /// Apple documents it): an app sent to the background while a sync runs gets the time the
        /// system allows to end it. `nil` when the system grants none (the app is being
        /// suspended): no sync begins then, and the next look after the app comes back tries
        /// again. A sync the system ends part way is finished by the next, as after a power cut.
        static func syncOnce(_ repository: LikeRepository, _ folder: URL) throws -> SyncReport? {
            // 0: not begun; 1: begun; 2: not to begin, as no time was granted.
            let phase = Locked(0)
            let begin: @Sendable (Int) -> Bool = { next in phase.withLock { if $0 == 0 { $0 = next; return true } else { return false } } }
            let outcome = Locked<Result<SyncReport, any Error>?>(nil)
            let done = DispatchSemaphore(value: 0)
            ProcessInfo.processInfo.performExpiringActivity(withReason: "Syncing favorites") { expired in
                if expired {
                    // The time is up: a sync under way goes on while the system lets it.
                    if begin(2) { done.signal() }
                    return
                }
                guard begin(1) else { return }
                outcome.withLock { $0 = Result { try coordinated(repository, folder) } }
                done.signal()
            }
            done.wait()
            return try outcome.withLock { $0 }?.get()
        }
    #elseif canImport(Darwin)
        /// One sync (a Mac app is not suspended while it works).
        static func syncOnce(_ repository: LikeRepository, _ folder: URL) throws -> SyncReport? {
            try coordinated(repository, folder)
        }
    #else
        /// One sync: elsewhere no system suspends the process, and nothing coordinates a folder's
        /// writers.
        static func syncOnce(_ repository: LikeRepository, _ folder: URL) throws -> SyncReport? {
            try repository.sync(with: folder)
        }
    #endif

    #if canImport(Darwin)
        /// The sync as a coordinated write into the folder (`NSFileCoordinator`, option
        /// `forMerging`, as Apple documents it), so that iCloud Drive's daemon, a file provider or
        /// the Files app do not move or upload a file of the folder while the sync writes it.
        private static func coordinated(_ repository: LikeRepository, _ folder: URL) throws -> SyncReport {
            var failure: NSError?
            var outcome: Result<SyncReport, any Error>?
            NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: folder, options: .forMerging, error: &failure) { url in
                outcome = Result { try repository.sync(with: url) }
            }
            if let outcome { return try outcome.get() }
            throw LikeRepositoryError.io(action: "coordinate writing into", path: folder.path, code: Int32(truncatingIfNeeded: failure?.code ?? 0))
        }
    #endif
}

extension LikeRepository {
    /// Starts keeping the store in step with a sync folder (see ``SyncSession``): a sync at once,
    /// then one within 2 seconds of a change on either side, until ``SyncSession/stop()``.
    ///
    /// - Parameter folder: The sync folder, as ``sync(with:newDevice:forgetting:)-2lmy9`` takes it.
    /// - Returns: The session; keep it for as long as syncing should go on.
    public func startSyncing(with folder: URL) -> SyncSession {
        SyncSession(repository: self, folder: folder)
    }

    /// As ``startSyncing(with:)``, `handler` called with each sync's outcome on the session's
    /// queue: for a caller without a task to iterate the streams in (the command line).
    package func startSyncing(with folder: URL, handler: @escaping @Sendable (Result<SyncReport, LikeRepositoryError>) -> Void)
        -> SyncSession
    {
        SyncSession(repository: self, folder: folder, handler: handler)
    }
}

extension LikeRepositoryError {
    /// Whether no retry can change it, so that a ``SyncSession`` ends on it: a copy of another
    /// device's store, a store a later version wrote.
    public var endsASyncSession: Bool {
        switch self {
        case .copiedStore, .newerFormat: true
        default: false
        }
    }
}
