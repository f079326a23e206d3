// What one operation did to the store: the value mutations return and observers receive.

import Foundation

/// A change to a store: a photo liked, updated or unliked, or orphan files purged.
public struct LikeChange: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A photo that was not liked is now liked.
        case liked
        /// A liked photo's images, note or metadata changed.
        case updated
        /// A photo was unliked and its images removed.
        case unliked
        /// Orphan files were removed.
        case purged
    }

    /// What happened.
    public var kind: Kind
    /// The photo concerned; `nil` for ``Kind/purged``.
    public var id: PhotoID?
    /// When it happened.
    public var date: Date
    /// The record as it is after a like or update; `nil` after an unlike or purge.
    public var record: LikeRecord?
    /// The store files removed, as paths inside the store: an unlike's images, a purge's orphans.
    public var files: [String]

    init(kind: Kind, id: PhotoID?, date: Date, record: LikeRecord?, files: [String] = []) {
        self.kind = kind
        self.id = id
        self.date = date
        self.record = record
        self.files = files
    }
}
