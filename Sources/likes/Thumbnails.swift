// Thumbnails made by the commands that like: right after the likes are durable, so that they
// never delay one, on every core.

import Dispatch
import LikeKit

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

enum Thumbnails {
    /// Makes the thumbnails of `ids` that are missing, two at a time; a photo whose JPEG cannot
    /// be scaled simply has none, and a failure to write one leaves it for the next need.
    static func make(for ids: [PhotoID], repository: LikeRepository) {
        guard !ids.isEmpty else { return }
        let next = Locked(0)
        DispatchQueue.concurrentPerform(iterations: min(2, ids.count)) { _ in
            while let index = next.withLock({ value -> Int? in
                guard value < ids.count else { return nil }
                value += 1
                return value - 1
            }) {
                _ = try? repository.thumbnail(for: ids[index])
            }
        }
    }
}
