// Owns the places of a whole listing: every photo its filters admit, newest first, from one scan
// of the catalog (the sure path where the catalog cannot answer), and what is made of them: how
// many fall in each month (or any other span of time a caller buckets `likedAt` into) with where
// each one's page begins, and the photos' keys. Called by LikeKit's `months(_:utcOffset:)`, which
// the gallery's rail of years and months reads, and by its Select all.

/// One bucket of a listing, newest first: its photos' count, and the place in the listing just
/// before it (the page after that place starts with the bucket's newest photo; `nil` for the
/// listing's first bucket).
package struct StoreBucket: Sendable, Hashable {
    package var bucket: Int
    package var count: Int
    package var before: ListingKey?
}

extension Store {
    /// The place of every photo the listing `query` asks for (its filters and order date; not its
    /// cursor, order or page), newest first: from one scan of the catalog, no record decoded,
    /// else by the sure path (the index read whole, and with a colour, a search or the order by
    /// date taken each record decoded).
    func listedPlaces(_ query: StoreQuery) throws -> [ListingKey] {
        guard let opened = try open(), let records = opened.records else { return [] }
        var unfiltered = query
        unfiltered.after = nil
        let catalogQuery = unfiltered.catalogQuery
        let lock = try opened.sharedLock()
        var places: [ListingKey] = []
        var unanswerable = false
        let end = try opened.scanCatalog(locked: lock != nil) { photo in
            if let since = catalogQuery.since, photo.liked.at < since { return false }
            guard let admitted = catalogQuery.admits(photo), !query.byTaken || photo.newest.taken != nil else {
                unanswerable = true
                return false
            }
            if admitted {
                let key = String(decoding: photo.liked.key, as: UTF8.self)
                places.append(ListingKey(likedAt: query.byTaken ? photo.newest.taken ?? 0 : photo.liked.at, key: key))
            }
            return true
        }
        _ = consume lock
        if !unanswerable, end == .complete || end == .stopped {
            if query.byTaken { places.sort(by: >) }
            return places
        }
        var damage: [String] = []
        let entries = try opened.liveEntries(damage: &damage).filter(unfiltered.matches)
        guard query.hasRecordFilters || query.byTaken else { return entries.map(\.listingKey).sorted(by: >) }
        return entries.compactMap { entry -> ListingKey? in
            guard let record = try? records.read(key: entry.key), query.matches(record) else { return nil }
            return query.place(of: record)
        }.sorted(by: >)
    }

    /// How many photos of the listing `query` asks for fall in each bucket `bucket` puts a
    /// `likedAt` (or date taken, by that order; milliseconds) in, newest first, with where each bucket's page begins. Buckets
    /// must follow time: photos of one bucket are neighbours in the listing.
    package func timeline(_ query: StoreQuery, bucket: (Int64) -> Int) throws -> [StoreBucket] {
        var buckets: [StoreBucket] = []
        var last: ListingKey?
        for place in try listedPlaces(query) {
            let number = bucket(place.likedAt)
            if let current = buckets.last, current.bucket == number {
                buckets[buckets.count - 1].count += 1
            } else {
                buckets.append(StoreBucket(bucket: number, count: 1, before: last))
            }
            last = place
        }
        return buckets
    }

    /// The keys of every photo the listing `query` asks for, newest first: what selecting a whole
    /// listing needs.
    package func listedKeys(_ query: StoreQuery) throws -> [String] {
        try listedPlaces(query).map(\.key)
    }
}
