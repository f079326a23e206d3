// Listing and statistics, answered from the index through the store's read side.

import LikeStore
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension LikeRepository {
    /// Lists liked photos: newest first by default, with paging and filters.
    ///
    /// Answered from the store's catalog in one read of its index, which stops as soon as the
    /// page is found: only the page's records are decoded, whatever the filters. Page with
    /// ``LikeQuery/after`` and ``LikeListing/next``.
    ///
    /// ```swift
    /// let first = try repository.list(LikeQuery(limit: 20, search: "lisbon tram"))
    /// let second = try repository.list(LikeQuery(limit: 20, search: "lisbon tram", after: first.next))
    /// ```
    ///
    /// - Parameter query: Order, limit, cursor or offset and filters; by default every record,
    ///   newest first.
    /// - Returns: The records, where the next page starts, and a sentence for each damaged record
    ///   passed over.
    /// - Throws: ``LikeRepositoryError/invalidArgument(_:)`` for a negative limit or offset or an
    ///   unknown colour; `io`.
    public func list(_ query: LikeQuery = LikeQuery()) throws -> LikeListing {
        let page = try select(query)
        let next = page.more ? page.items.last.map { LikeCursor(stored: $0.record, orderDate: query.orderDate) } : nil
        return LikeListing(records: page.items.map(publicRecord), damage: page.damage, next: next)
    }

    /// The page `query` asks for, as the store found it.
    func select(_ query: LikeQuery) throws -> StorePage {
        let storeQuery = try query.storeQuery()
        return try translating { try store.page(storeQuery) }
    }

    /// How many photos are liked, their bytes, and the dates of the oldest and newest like.
    ///
    /// Read from the catalog alone (no record is decoded), and the renditions folder's listing.
    ///
    /// - Throws: ``LikeRepositoryError/io(action:path:code:)`` when the store cannot be read.
    public func statistics() throws -> LikeStatistics {
        let counted = try translating { try store.statistics() }
        var statistics = LikeStatistics(
            count: counted.count, bytes: counted.bytes, oldest: counted.oldest.map(Timestamp.date), newest: counted.newest.map(Timestamp.date),
            fileSystem: counted.fileSystem, flushStrategy: FlushStrategy(counted.flush),
            owedRequests: try translating { try store.owedRequests().count })
        let renditions = try translating { try store.renditionStatistics() }
        (statistics.renditions, statistics.renditionBytes, statistics.renditionBudget) = (renditions.count, renditions.bytes, renditions.budget)
        return statistics
    }
}

/// A value that changes whenever a store's collection may have changed, by this process or any
/// other: see ``LikeRepository/changeMark()``.
public struct LikeChangeMark: Sendable, Hashable {
    let values: [Int64]
}

extension LikeRepository {
    /// A mark of the collection as it stands: equal marks mean no change was made between them,
    /// so that what was read under the first may be served again under the second. Costs one
    /// look at a file; `nil` when there is no store yet (nothing should be kept then).
    ///
    /// ```swift
    /// if let mark = repository.changeMark(), mark == cachedMark { return cachedPage }
    /// ```
    public func changeMark() -> LikeChangeMark? {
        store.changeMark().map(LikeChangeMark.init)
    }
}
