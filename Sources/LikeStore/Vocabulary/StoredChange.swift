// Owns the storage layer's account of one change: what a write session made or an observer read
// from the journal, with the record as stored. The façade turns it into a public LikeChange.

import LikesSupport

/// A change to the store as the storage layer knows it.
package struct StoredChange: Sendable {
    /// What kind of change it was.
    package enum Kind: String, Sendable, Hashable {
        case liked
        case updated
        case unliked
        case purged
        /// A like that found the photo as asked, and wrote nothing.
        case unchanged
    }

    package var kind: Kind
    /// The photo's id, when the change was to one photo and its id is known.
    package var id: String?
    /// When it happened, in milliseconds since 1970.
    package var at: Int64
    /// The record after a like or update, when known.
    package var record: StoredRecord?
    /// The store files removed, as paths inside the store.
    package var files: [String] = []
    /// The record is a later one than the change committed, so what the change touched is not
    /// known from it.
    var fieldsUnknown = false
    /// For an unlike a sync merged, the stamp of the other device's unlike.
    var unlikeStamp: String?

    /// The device a change merged by a sync came from, by its stamps: a like's period, an
    /// update's newest changed part, an unlike's own stamp; `nil` for this store's own change.
    package var device: String? {
        if kind == .unliked { return unlikeStamp.flatMap(RecordStamps.device(of:)) }
        guard let stamps = record?.stamps, kind == .liked || kind == .updated else { return nil }
        let parts = kind == .liked ? [RecordStamps.liked] : fields.map(\.rawValue)
        let newest = parts.compactMap { stamps[$0] }.max { StampedPart.milliseconds(of: $0) < StampedPart.milliseconds(of: $1) }
        return newest.flatMap(RecordStamps.device(of:))
    }

    /// What the change touched: everything a like set; what an update's record says it changed
    /// (all of it, when that is not known); nothing for the rest.
    package var fields: Set<RecordField> {
        guard let record, kind != .unchanged else { return [] }
        if kind == .liked { return record.likedFields }
        guard !fieldsUnknown, let changed = record.changed else { return Set(RecordField.allCases) }
        return Set(changed)
    }
}

extension StoredChange {
    /// A like of `record`, as a batch of likes at their own times reports it.
    package static func liked(_ record: StoredRecord) -> StoredChange {
        StoredChange(kind: .liked, id: record.id, at: record.likedAt, record: record)
    }
}
