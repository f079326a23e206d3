// Where a long synchronous test runs: on threads of its own, not the cooperative pool's. Swift
// Testing runs a synchronous test's body on the thread of the task that calls it, a thread of
// the pool; on two cores the pool has two, so two crash tests walking every fault point (or
// waiting on other processes) hold all of it for minutes, and every async test, and every
// observer's task, waits that long for a thread. A suite marked `.ownLane` runs its tests on the
// lane's threads instead, as many at a time as the lane has.

import Foundation
import Testing

/// A task executor of a few threads of its own, for synchronous work that would otherwise hold
/// the cooperative pool's. (Task executors are in Apple's systems from macOS 15 and iOS 18; before
/// them the tests run where Swift Testing puts them.)
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
public final class TestLane: TaskExecutor, @unchecked Sendable {  // `jobs` is read and written under `lock` alone
    /// The lane the `.ownLane` trait runs tests on: two threads, as many as the pool has here, so
    /// the long tests run side by side as before while the pool stays free.
    public static let shared = TestLane(threads: 2)

    private let lock = NSLock()
    private var jobs: [UnownedJob] = []
    private var workers: [pthread_t] = []
    private let ready = DispatchSemaphore(value: 0)

    /// A lane of `threads` threads, started now and kept for the life of the process.
    public init(threads: Int) {
        for _ in 0..<threads {
            Thread { [self] in
                lock.withLock { workers.append(pthread_self()) }
                work()
            }.start()
        }
    }

    /// Whether the calling thread is one of the lane's.
    public var isCurrent: Bool {
        let current = pthread_self()
        return lock.withLock { workers.contains { pthread_equal($0, current) != 0 } }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        lock.withLock { jobs.append(unowned) }
        ready.signal()
    }

    private func work() {
        while true {
            ready.wait()
            guard let job = lock.withLock({ jobs.isEmpty ? nil : jobs.removeFirst() }) else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs each test of a suite (or one test) on ``TestLane/shared``: for synchronous tests that
/// take long, so that they do not hold the cooperative pool's threads.
public struct OwnLane: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return try await function() }
        try await withTaskExecutorPreference(TestLane.shared) { try await function() }
    }
}

extension Trait where Self == OwnLane {
    /// The suite's (or test's) synchronous bodies run on threads of their own (see ``OwnLane``).
    public static var ownLane: Self { Self() }
}
