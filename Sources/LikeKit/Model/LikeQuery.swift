// Which favorites to list and in what order.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// What ``LikeRepository/list(_:)-1u07d`` returns: order, paging and filters.
///
/// ```swift
/// let newest = try repository.list(LikeQuery(limit: 20)).records
/// let blue = try repository.list(LikeQuery(color: "#0c2340")).records
/// let trip = try repository.list(LikeQuery(album: try AlbumName("Lisbon"))).records
/// let timeline = try repository.list(LikeQuery(orderDate: .taken, limit: 60)).records
/// ```
public struct LikeQuery: Sendable, Hashable {
    /// The order of a listing, by the date ``orderDate`` names.
    public enum Order: Sendable, Hashable {
        /// Most recent first (the default).
        case newestFirst
        /// Least recent first.
        case oldestFirst
    }

    /// Which date of each photo a listing is ordered by.
    public enum OrderDate: String, Sendable, Hashable, CaseIterable {
        /// When it was liked (the default): the order of the likes.
        case liked
        /// When it was taken (``LikeRecord/takenAt``): the camera's date, else the source's,
        /// else the like's, as photo apps lay out a timeline.
        case taken
    }

    /// The order; newest first by default.
    public var order: Order
    /// The date the order goes by; the date liked by default. A cursor of one such order
    /// (``LikeCursor/orderDate``) goes on only in a listing of the same.
    public var orderDate: OrderDate = .liked
    /// The most records to return; `nil` (the default) returns all.
    public var limit: Int?
    /// How many matching records to skip first; 0 by default.
    public var offset: Int
    /// Keeps records whose photo colour is this hex colour (`#0C2340`; case and the `#`
    /// ignored), or in this colour family: `black`, `white`, `gray`, `yellow`, `orange`, `red`,
    /// `purple`, `magenta`, `green`, `teal`, `blue` or `brown`, read from the colour's lightness,
    /// chroma and hue in OKLCh (the README gives the bounds). Anything else
    /// makes ``LikeRepository/list(_:)-1u07d`` throw ``LikeRepositoryError/invalidArgument(_:)``.
    public var color: String?
    /// Keeps records where every whitespace-separated word of this text is found in the id,
    /// description, photographer name or username, note or album names, ignoring case and
    /// accents (both sides folded: `cafe` finds `Café`; Hangul and kana work).
    public var search: String?
    /// Keeps the photos in this album, its name matched without regard to case.
    public var album: AlbumName?
    /// Keeps the photos liked at or after this date (whichever date the listing is ordered by).
    public var since: Date?
    /// Lists what follows this place in the listing's order: the ``LikeListing/next`` of the
    /// page before. The cheap way to page; ``offset`` reads through every photo it skips.
    public var after: LikeCursor?

    /// Creates a query; with no arguments it lists every record, newest liked first.
    public init(
        order: Order = .newestFirst, orderDate: OrderDate = .liked, limit: Int? = nil, offset: Int = 0, color: String? = nil,
        search: String? = nil, album: AlbumName? = nil, since: Date? = nil, after: LikeCursor? = nil
    ) {
        self.order = order
        self.orderDate = orderDate
        self.limit = limit
        self.offset = offset
        self.color = color
        self.search = search
        self.album = album
        self.since = since
        self.after = after
    }

    /// The query as the store asks it.
    ///
    /// - Throws: ``LikeRepositoryError/invalidArgument(_:)`` for a negative limit or offset, or a
    ///   colour that is neither a hex colour nor a family, or a cursor of the other order date.
    func storeQuery() throws -> StoreQuery {
        if let after, after.orderDate != orderDate {
            throw LikeRepositoryError.invalidArgument(
                "The cursor \(after) is a place in the listing by date \(after.orderDate.rawValue), not by date \(orderDate.rawValue); list by date \(after.orderDate.rawValue) to go on from it."
            )
        }
        if let limit, limit < 0 { throw LikeRepositoryError.invalidArgument("The limit must not be negative; it was \(limit).") }
        guard offset >= 0 else { throw LikeRepositoryError.invalidArgument("The offset must not be negative; it was \(offset).") }
        var colorFilter: ColorFilter?
        if let color {
            guard let parsed = ColorFilter(color) else {
                throw LikeRepositoryError.invalidArgument(
                    "The colour must be a hex colour such as #0C2340 or one of \(ColorFilter.families.joined(separator: ", ")); it was \(LikeRepositoryError.quoted(color))."
                )
            }
            colorFilter = parsed
        }
        var query = StoreQuery(
            newestFirst: order == .newestFirst, limit: limit, offset: offset, after: after?.place, since: since.map(Timestamp.milliseconds),
            album: album?.rawValue, color: colorFilter, words: search.map(SearchWords.init))
        query.byTaken = orderDate == .taken
        return query
    }
}

/// The records a listing found, and any damage it had to pass over.
public struct LikeListing: Sendable, Hashable {
    /// The matching records in the order asked for.
    public var records: [LikeRecord]
    /// One sentence for each damaged record file that could not be read, and for damage to the
    /// store's index that the listing worked around.
    public var damage: [String]
    /// Where the next page starts (pass it as ``LikeQuery/after``); `nil` when no photo follows.
    public var next: LikeCursor?
}
