// Owns the storage layer's account of one change: what a write session made or an observer read
// from the journal, with the record as stored. The façade turns it into a public LikeChange.

/// A change to the store as the storage layer knows it.
struct StoredChange: Sendable {
    var kind: LikeChange.Kind
    var id: PhotoID?
    /// When it happened, in milliseconds since 1970.
    var at: Int64
    /// The record after a like or update, when known.
    var record: StoredRecord?
    /// The store files removed, as paths inside the store.
    var files: [String] = []
    /// The record is a later one than the change committed, so what the change touched is not
    /// known from it.
    var fieldsUnknown = false

    /// What the change touched (see ``LikeChange/fields``).
    var fields: Set<LikeChange.Field> {
        guard let record, kind != .unchanged else { return [] }
        if kind == .liked { return record.likedFields }
        guard !fieldsUnknown, let changed = record.changed else { return Set(LikeChange.Field.allCases) }
        return Set(changed)
    }
}
