// Which favorites to list and in what order.

import Foundation

/// What ``LikeRepository/list(_:)`` returns: order, paging and filters.
///
/// ```swift
/// let newest = try repository.list(LikeQuery(limit: 20)).records
/// let blue = try repository.list(LikeQuery(color: "#0c2340")).records
/// let trip = try repository.list(LikeQuery(album: try AlbumName("Lisbon"))).records
/// ```
public struct LikeQuery: Sendable, Hashable {
    /// The order of a listing, by the date each photo was liked.
    public enum Order: Sendable, Hashable {
        /// Most recently liked first (the default).
        case newestFirst
        /// Least recently liked first.
        case oldestFirst
    }

    /// The order; newest first by default.
    public var order: Order
    /// The most records to return; `nil` (the default) returns all.
    public var limit: Int?
    /// How many matching records to skip first; 0 by default.
    public var offset: Int
    /// Keeps records whose photo colour is this hex colour (case and a leading `#` ignored).
    public var color: String?
    /// Keeps records whose description, photographer or note contains this text, ignoring case.
    public var search: String?
    /// Keeps the photos in this album.
    public var album: AlbumName?
    /// Keeps the photos liked at or after this date.
    public var since: Date?

    /// Creates a query; with no arguments it lists every record, newest first.
    public init(
        order: Order = .newestFirst, limit: Int? = nil, offset: Int = 0, color: String? = nil, search: String? = nil, album: AlbumName? = nil,
        since: Date? = nil
    ) {
        self.order = order
        self.limit = limit
        self.offset = offset
        self.color = color
        self.search = search
        self.album = album
        self.since = since
    }

    /// Whether records must be decoded to be tested (colour and search); album and date are
    /// tested on the index.
    var hasFilters: Bool { color != nil || search != nil }

    func matches(_ entry: LiveEntry) -> Bool {
        if let album, !entry.albums.contains(album) { return false }
        if let since, entry.likedAt < Timestamp.milliseconds(since) { return false }
        return true
    }

    func matches(_ record: LikeRecord) -> Bool {
        if let color {
            guard let photoColor = record.photo?.color, Self.normalizedColor(photoColor) == Self.normalizedColor(color) else { return false }
        }
        if let search, !search.isEmpty {
            let fields = [record.photo?.description, record.photo?.photographer, record.photo?.photographerUsername, record.note]
            guard fields.contains(where: { $0?.localizedCaseInsensitiveContains(search) == true }) else { return false }
        }
        return true
    }

    static func normalizedColor(_ text: String) -> String {
        var value = text.trimmingCharacters(in: .whitespaces).lowercased()
        if value.hasPrefix("#") { value.removeFirst() }
        return value
    }
}

/// The records a listing found, and any damage it had to pass over.
public struct LikeListing: Sendable, Hashable {
    /// The matching records in the order asked for.
    public var records: [LikeRecord]
    /// One sentence for each damaged record file that could not be read, and for damage to the
    /// store's index that the listing worked around.
    public var damage: [String]
}
