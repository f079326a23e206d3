// Listing and statistics, answered from the index through the store's read side.

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
        let selection = try select(query)
        let next = selection.more ? selection.records.last.map { LikeCursor($0.listingKey) } : nil
        let thumbnails =
            selection.records.isEmpty ? ThumbnailFiles(directory: nil) : try selection.opened?.thumbnails() ?? ThumbnailFiles(directory: nil)
        return LikeListing(records: selection.records.map { publicRecord($0, thumbnails: thumbnails) }, damage: selection.damage, next: next)
    }

    /// The records a query lists, as stored, whether more follow, the damage passed over, and
    /// the store as it was opened to read them.
    func select(_ query: LikeQuery) throws -> (records: [StoredRecord], more: Bool, damage: [String], opened: OpenStore?) {
        let filter = try query.recordFilter()
        guard let opened = try store.open(), let records = opened.records else { return ([], false, [], nil) }
        if let page = try opened.catalogPage(query.catalogQuery(filter)) { return (page.records, page.more, [], opened) }
        // The sure path, where the catalog cannot answer: the whole index read, and with a
        // colour or search every record decoded.
        var damage: [String] = []
        let entries = try opened.liveEntries(damage: &damage).filter(query.matches)
        let page = try readPage(of: ordered(entries, query.order), query: query, filter: filter, records: records, damage: &damage)
        return (page.records, page.more, damage, opened)
    }

    /// By the time each was liked, then by key (see ``ListingKey``).
    private func ordered(_ entries: [LiveEntry], _ order: LikeQuery.Order) -> [LiveEntry] {
        entries.sorted { order == .newestFirst ? $0.listingKey > $1.listingKey : $0.listingKey < $1.listingKey }
    }

    /// Decodes the records of a page: after the offset, up to the limit, those that match the
    /// query's record filters; damaged ones are named in `damage` and passed over. `more`: a
    /// matching record follows the page.
    private func readPage(
        of ordered: [LiveEntry], query: LikeQuery, filter: LikeQuery.RecordFilter, records: RecordFiles, damage: inout [String]
    ) throws -> (records: [StoredRecord], more: Bool) {
        var result: [StoredRecord] = []
        var skipped = 0
        for entry in ordered.dropFirst(query.hasRecordFilters ? 0 : query.offset) {
            let stored: StoredRecord
            do {
                // Missing means it was unliked since the index was read.
                guard let found = try records.read(key: entry.key) else { continue }
                stored = found
            } catch LikeRepositoryError.damagedRecord(let file, let reason) {
                damage.append("The record file \(file) is damaged (\(reason)).")
                continue
            }
            if query.hasRecordFilters {
                guard filter.matches(stored) else { continue }
                if skipped < query.offset {
                    skipped += 1
                    continue
                }
            }
            if let limit = query.limit, result.count >= limit { return (result, true) }
            result.append(stored)
        }
        return (result, false)
    }

    /// How many photos are liked, their bytes, and the dates of the oldest and newest like.
    ///
    /// Read from the catalog alone: no record is decoded.
    ///
    /// - Throws: ``LikeRepositoryError/io(action:path:code:)`` when the store cannot be read.
    public func statistics() throws -> LikeStatistics {
        let (fileSystem, strategy) = try store.fileSystemAndStrategy()
        guard let opened = try store.open() else {
            return LikeStatistics(count: 0, bytes: 0, oldest: nil, newest: nil, fileSystem: fileSystem, flushStrategy: strategy)
        }
        if let counted = try opened.catalogStatistics() {
            return LikeStatistics(
                count: counted.count, bytes: Int(counted.bytes), oldest: counted.oldest.map(Timestamp.date),
                newest: counted.newest.map(Timestamp.date),
                fileSystem: fileSystem, flushStrategy: strategy)
        }
        var damage: [String] = []
        let entries = try opened.liveEntries(damage: &damage)
        return LikeStatistics(
            count: entries.count, bytes: Int(entries.reduce(0) { $0 + $1.bytes }),
            oldest: entries.map(\.likedAt).min().map(Timestamp.date), newest: entries.map(\.likedAt).max().map(Timestamp.date),
            fileSystem: fileSystem, flushStrategy: strategy)
    }
}
