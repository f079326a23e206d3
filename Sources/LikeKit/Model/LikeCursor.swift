// A place in a listing, to go on from: what `list --after` and `LikeListing.next` carry.

import LikeStore

/// A place in a listing: the page after it starts with the photo that follows it.
///
/// A listing is ordered by the time each photo was liked (then by an order of the ids, for likes
/// of one millisecond), and a cursor names one such place. Paging with cursors never shows a photo
/// twice or skips one, whatever is liked or unliked between two pages, and a deep page costs what
/// the page costs, where ``LikeQuery/offset`` reads through every photo before it.
///
/// ```swift
/// var query = LikeQuery(limit: 20)
/// var listing = try repository.list(query)
/// while let next = listing.next {
///     query.after = next
///     listing = try repository.list(query)
/// }
/// ```
///
/// Its text form (``description``) is stable, so a cursor can be kept or passed to
/// `likes list --after` and read back with ``init(_:)``.
public struct LikeCursor: Sendable, Hashable, LosslessStringConvertible {
    let place: ListingKey

    init(_ place: ListingKey) {
        self.place = place
    }

    /// The place of `record` in a listing: the page after it starts with the photo that follows
    /// it, whether or not it is still liked.
    public init(record: LikeRecord) {
        place = ListingKey(likedAt: Timestamp.milliseconds(record.likedAt), key: record.id.storageKey)
    }

    /// Reads a cursor's text form; `nil` for text that is not one.
    public init?(_ description: String) {
        let parts = description.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let likedAt = Int64(parts[0]), StorageKey.isWellFormed(parts[1]) else { return nil }
        place = ListingKey(likedAt: likedAt, key: String(parts[1]))
    }

    /// The text form: the time liked in milliseconds since 1970, a dot, and the photo's storage
    /// key (`1763774625123.^dwu85^p9^s^o^ik`).
    public var description: String { "\(place.likedAt).\(place.key)" }
}
