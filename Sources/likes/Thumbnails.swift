// Thumbnails made by the commands that like: right after the likes are durable, so that they
// never delay one, on two cores, flushed together.

import LikeKit

enum Thumbnails {
    /// Makes the thumbnails of `ids` that are missing; a photo whose JPEG cannot be scaled simply
    /// has none, and a failure leaves them for the next need.
    static func make(for ids: [PhotoID], repository: LikeRepository) {
        _ = try? repository.makeThumbnails(for: ids)
    }
}
