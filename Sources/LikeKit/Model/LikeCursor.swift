// A place in a listing, to go on from: what `list --after` and `LikeListing.next` carry.

import LikeStore

/// A place in a listing: the page after it starts with the photo that follows it.
///
/// A listing is ordered by the time each photo was liked or taken (``LikeQuery/orderDate``),
/// then by an order of the ids for photos of one millisecond, and a cursor names one such place
/// in one of those orders. Paging with cursors never shows a photo
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
    /// The date and key of the place; the date is the one ``orderDate`` names.
    package let place: ListingKey
    /// The date the listing this is a place in goes by.
    public let orderDate: LikeQuery.OrderDate

    init(_ place: ListingKey, orderDate: LikeQuery.OrderDate) {
        self.place = place
        self.orderDate = orderDate
    }

    /// The place of a stored record in a listing by `orderDate`.
    init(stored record: StoredRecord, orderDate: LikeQuery.OrderDate) {
        let at = orderDate == .taken ? record.taken.at : record.likedAt
        self.init(ListingKey(likedAt: at, key: record.key), orderDate: orderDate)
    }

    /// The place of `record` in a listing by `orderDate`: the page after it starts with the photo
    /// that follows it, whether or not it is still liked.
    public init(record: LikeRecord, orderDate: LikeQuery.OrderDate = .liked) {
        let date = orderDate == .taken ? record.takenAt : record.likedAt
        place = ListingKey(likedAt: Timestamp.milliseconds(date), key: record.id.storageKey)
        self.orderDate = orderDate
    }

    /// Reads a cursor's text form; `nil` for text that is not one.
    public init?(_ description: String) {
        var text = Substring(description)
        orderDate = text.hasPrefix("t") ? .taken : .liked
        if orderDate == .taken { text = text.dropFirst() }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].first != "+", let at = Int64(parts[0]), StorageKey.isWellFormed(parts[1]) else { return nil }
        place = ListingKey(likedAt: at, key: String(parts[1]))
    }

    /// The text form: in the listing by date taken a `t`, then the date in milliseconds since
    /// 1970, a dot, and the photo's storage key (`1763774625123.^dwu85^p9^s^o^ik`,
    /// `t1612345678000.^dwu85^p9^s^o^ik`).
    public var description: String { (orderDate == .taken ? "t" : "") + "\(place.likedAt).\(place.key)" }
}
