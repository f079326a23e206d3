// Owns the timeline: how many photos of a listing fall in each month (or any other span of time
// a caller buckets `likedAt` into), and where the listing's page for each begins. One scan of the
// catalog, keeping a count and two keys a month; the sure path where the catalog cannot answer.
// Called by LikeKit's `months(_:utcOffset:)`, which the gallery's rail of years and months reads.

/// One bucket of a listing, newest first: its photos' count, its newest photo, and the place in
/// the listing just before it (the page after that place starts with the bucket's newest photo;
/// `nil` for the listing's first bucket).
package struct StoreBucket: Sendable, Hashable {
    package var bucket: Int
    package var count: Int
    package var newest: ListingKey
    package var before: ListingKey?
}

/// Folds photos met newest first into buckets.
struct BucketCounter {
    let bucket: (Int64) -> Int
    var buckets: [StoreBucket] = []
    var last: ListingKey?

    mutating func add(_ place: ListingKey) {
        let number = bucket(place.likedAt)
        if let current = buckets.last, current.bucket == number {
            buckets[buckets.count - 1].count += 1
        } else {
            buckets.append(StoreBucket(bucket: number, count: 1, newest: place, before: last))
        }
        last = place
    }
}

extension OpenStore {
    /// The listing's buckets from one scan of the catalog (the album, colour, search and date
    /// filters of `query`; its cursor, order and page are not used); `nil` where the catalog
    /// cannot answer.
    func catalogTimeline(_ query: CatalogQuery, bucket: @escaping (Int64) -> Int) throws -> [StoreBucket]? {
        guard records != nil else { return [] }
        let lock = try sharedLock()
        defer { _ = lock }
        var counter = BucketCounter(bucket: bucket)
        var unanswerable = false
        let end = try scanCatalog(locked: lock != nil) { photo in
            if let since = query.since, photo.liked.at < since { return false }
            guard let admitted = query.admits(photo) else {
                unanswerable = true
                return false
            }
            if admitted { counter.add(photo.listingKey) }
            return true
        }
        guard !unanswerable, end == .complete || end == .stopped else { return nil }
        return counter.buckets
    }
}

extension Store {
    /// How many photos of the listing `query` asks for (its filters; not its cursor, order or
    /// page) fall in each bucket `bucket` puts a `likedAt` (milliseconds) in, newest first, with
    /// where each bucket's page begins. Buckets must follow time: photos of one bucket are
    /// neighbours in the listing.
    package func timeline(_ query: StoreQuery, bucket: @escaping (Int64) -> Int) throws -> [StoreBucket] {
        guard let opened = try open(), let records = opened.records else { return [] }
        var catalogQuery = query.catalogQuery
        catalogQuery.after = nil
        if let buckets = try opened.catalogTimeline(catalogQuery, bucket: bucket) { return buckets }
        // The sure path: the index read whole, and with a colour or search each record decoded.
        var damage: [String] = []
        var unfiltered = query
        unfiltered.after = nil
        let entries = try opened.liveEntries(damage: &damage).filter(unfiltered.matches).sorted { $0.listingKey > $1.listingKey }
        var counter = BucketCounter(bucket: bucket)
        for entry in entries {
            if query.hasRecordFilters {
                guard let record = try? records.read(key: entry.key), query.matches(record) else { continue }
            }
            counter.add(entry.listingKey)
        }
        return counter.buckets
    }
}

extension Store {
    /// The keys of every photo the listing `query` asks for (its filters; newest first), from one
    /// scan of the catalog, no record decoded: what selecting a whole listing needs.
    package func listedKeys(_ query: StoreQuery) throws -> [String] {
        guard let opened = try open(), let records = opened.records else { return [] }
        var catalogQuery = query.catalogQuery
        catalogQuery.after = nil
        let lock = try opened.sharedLock()
        var keys: [String] = []
        var unanswerable = false
        let end = try opened.scanCatalog(locked: lock != nil) { photo in
            if let since = catalogQuery.since, photo.liked.at < since { return false }
            guard let admitted = catalogQuery.admits(photo) else {
                unanswerable = true
                return false
            }
            if admitted { keys.append(String(decoding: photo.liked.key, as: UTF8.self)) }
            return true
        }
        _ = consume lock
        if !unanswerable, end == .complete || end == .stopped { return keys }
        // The sure path: the index read whole, and with a colour or search each record decoded.
        var damage: [String] = []
        var unfiltered = query
        unfiltered.after = nil
        return try opened.liveEntries(damage: &damage).filter(unfiltered.matches).sorted { $0.listingKey > $1.listingKey }.compactMap { entry in
            if query.hasRecordFilters {
                guard let record = try? records.read(key: entry.key), query.matches(record) else { return nil }
            }
            return entry.key
        }
    }
}
