// What one operation did to the store: the value mutations return and observers receive.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

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
        /// A like of a liked photo that would change nothing (the same image bytes, note, albums
        /// and metadata): nothing was written. Returned to the caller only; observers never hear
        /// of it.
        case unchanged
    }

    /// A part of a liked photo that a change can touch.
    public enum Field: String, Sendable, Hashable, Codable, CaseIterable {
        /// The photo's JPEG.
        case image
        /// The photographer's picture.
        case userImage
        /// The person's note.
        case note
        /// The albums the photo is in.
        case albums
        /// The metadata from the photo's source (``PhotoMetadata``).
        case photo
    }

    /// What happened.
    public var kind: Kind
    /// The photo concerned; `nil` for ``Kind/purged``.
    public var id: PhotoID?
    /// When it happened.
    public var date: Date
    /// The record as the change committed it: never `nil` for ``Kind/liked`` and
    /// ``Kind/updated``, always `nil` for ``Kind/unliked`` and ``Kind/purged``.
    ///
    /// A change made by another process is read from the store a moment after it was made; the
    /// store keeps the records its latest changes committed (about two megabytes of them), so
    /// that however fast that process changes the photo again, each change arrives with its own
    /// record. Only an observer that falls further behind than that receives the record as a
    /// later change left it, with every part named in ``fields``.
    public var record: LikeRecord?
    /// What the change touched: for ``Kind/liked``, every part the new record has (always
    /// ``Field/image``); for ``Kind/updated``, the parts that differ from the record before;
    /// empty for ``Kind/unliked``, ``Kind/purged`` and ``Kind/unchanged``.
    public var fields: Set<Field>
    /// The store files removed, as paths inside the store: an unlike's images, a purge's orphans.
    public var files: [String]
    /// The device the change came from: for a change a sync merged, the id of the device that
    /// made it; for this store's own, this store's device id, once it has synced (`nil` before
    /// its first sync, and for ``Kind/purged``). See ``LikeRepository/sync(with:newDevice:forgetting:)-2lmy9``.
    public var device: String?

    /// The record as the store keeps it, for a change read from the journal: what a live query
    /// asks whether it passes its filters.
    var stored: StoredRecord?

    init(
        kind: Kind, id: PhotoID?, date: Date, record: LikeRecord?, fields: Set<Field> = [], files: [String] = [], device: String? = nil,
        stored: StoredRecord? = nil
    ) {
        self.kind = kind
        self.stored = stored
        self.device = device
        self.fields = fields
        self.id = id
        self.date = date
        self.record = record
        self.files = files
    }
}
