// Owns the test seam: stops or fails a write at any of its steps, as a crash or a failing disk
// would. Consulted by StoreDirectory at every step; made only by tests.

import LikesSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Counts the mutating file-system steps of a repository and breaks one of them on demand.
///
/// Tests reach it through `@testable import`; the store never creates one by itself.
package final class FaultInjector: Sendable {
    package enum Plan: Sendable {
        /// Steps `0..<after` run; every later one does nothing and throws ``InjectedCrash``.
        /// A crash during a write or append leaves half of the bytes behind, like a torn write.
        case crash(after: Int)
        /// Step number `at` fails with `errno` `code` and changes nothing; the others run.
        case fail(at: Int, code: Int32)
        /// Only counts.
        case none
    }

    struct InjectedCrash: Error {}

    private struct State {
        var plan: Plan
        var steps: [String] = []
        var crashed = false
    }

    private let state: Locked<State>

    /// Makes ``StoreDirectory/exchange(_:_:)`` report that the system cannot swap two entries,
    /// so that tests on Linux also take the path of systems without `renameat2`.
    let withoutExchange: Bool
    /// Makes the store flush as on another file system, so that tests on one file system take
    /// every path of ``StoreDirectory/flushStrategy``.
    let flushStrategy: FlushMethod?
    /// Makes observers start as if `pipe(2)` had failed (no descriptors left).
    let withoutPipe: Bool

    /// Makes a new device's first sync publish about this many photos a group, and a sync merge
    /// about this many changes a group, so that tests take the paths of a large store and a large
    /// folder with a few photos.
    package let firstSyncBatch: Int?

    package init(
        _ plan: Plan = .none, withoutExchange: Bool = false, flushStrategy: FlushMethod? = nil, withoutPipe: Bool = false, firstSyncBatch: Int? = nil
    ) {
        state = Locked(State(plan: plan))
        self.withoutExchange = withoutExchange
        self.flushStrategy = flushStrategy
        self.withoutPipe = withoutPipe
        self.firstSyncBatch = firstSyncBatch
    }

    /// The steps reached so far, in order, for example `sync images/abc~1a2b3c4d5e6f.jpg`.
    package var steps: [String] { state.withLock { $0.steps } }
    package var hasCrashed: Bool { state.withLock { $0.crashed } }

    enum Verdict: Equatable {
        case proceed
        /// Crash here; `torn` is true for the step the crash interrupts, false for later ones.
        case crash(torn: Bool)
        case fail(Int32)
    }

    /// Decides the fate of the next step.
    func next(_ step: String) -> Verdict {
        state.withLock { state in
            if state.crashed { return .crash(torn: false) }
            let index = state.steps.count
            state.steps.append(step)
            switch state.plan {
            case .none: return .proceed
            case .crash(let after):
                if index >= after {
                    state.crashed = true
                    return .crash(torn: true)
                }
                return .proceed
            case .fail(let at, let code):
                return index == at ? .fail(code) : .proceed
            }
        }
    }
}
