// The store's read side as the façade asks it: one record, which ids are liked, a page of a
// listing, the albums, the statistics, and where each file of a record lives. Answered from the
// catalog where it can, else by the sure path through the index and the record files.

import LikeSync
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// A record as the store reads it, with the size of its thumbnail when one was made.
package struct StoredItem: Sendable, Hashable {
    package var record: StoredRecord
    /// The thumbnail file's size in bytes, when a file of its name is there (not read).
    package var thumbnailBytes: Int?
}

/// What a listing asks for: the store's filters, cursor, order and page.
package struct StoreQuery: Sendable {
    package var newestFirst = true
    /// Ordered by the date each photo was taken (``StoredRecord/taken``) rather than liked; the
    /// cursor's ``ListingKey/likedAt`` is then that date.
    package var byTaken = false
    package var limit: Int?
    package var offset = 0
    /// Only photos past this place in the listing's order.
    package var after: ListingKey?
    /// Only photos liked at or after this time (milliseconds).
    package var since: Int64?
    /// Only photos in this album (stored form).
    package var album: String?
    package var color: ColorFilter?
    package var words: SearchWords?

    package init(
        newestFirst: Bool, limit: Int?, offset: Int, after: ListingKey?, since: Int64?, album: String?, color: ColorFilter?,
        words: SearchWords?
    ) {
        self.newestFirst = newestFirst
        self.limit = limit
        self.offset = offset
        self.after = after
        self.since = since
        self.album = album
        self.color = color
        self.words = words
    }

    var hasRecordFilters: Bool { color != nil || words != nil }

    /// The query in the catalog's terms: the album name escaped as journal lines write it.
    var catalogQuery: CatalogQuery {
        var escapedAlbum: [UInt8]?
        if let album {
            var escaped: [UInt8] = []
            PercentEscaping.albumName.escape(album.utf8, into: &escaped)
            escapedAlbum = escaped
        }
        return CatalogQuery(
            newestFirst: newestFirst, byTaken: byTaken, limit: limit, offset: offset, after: after, since: since, album: escapedAlbum, color: color,
            words: words)
    }

    /// The place of a record in this listing's order: its date liked, or taken, and its key.
    package func place(of record: StoredRecord) -> ListingKey {
        ListingKey(likedAt: byTaken ? record.taken.at : record.likedAt, key: record.key)
    }

    /// Whether `place` is past the query's cursor in its order (true without a cursor).
    func isPastCursor(_ place: ListingKey) -> Bool {
        guard let after else { return true }
        return newestFirst ? place < after : after < place
    }

    /// Whether an index entry passes the album, date and cursor filters.
    func matches(_ entry: LiveEntry) -> Bool {
        if let album, !entry.albums.contains(where: { Names.sameAlbum($0, album) }) { return false }
        if let since, entry.likedAt < since { return false }
        // By date taken, the cursor is the record's to pass.
        return byTaken || isPastCursor(entry.listingKey)
    }

    /// Whether a decoded record passes every filter (album, date, colour, words), wherever it
    /// falls in the order: what a live query asks of a changed record before it reads again.
    package func admits(_ record: StoredRecord) -> Bool {
        if let album, !record.albums.contains(where: { Names.sameAlbum($0, album) }) { return false }
        if let since, record.likedAt < since { return false }
        return matches(record)
    }

    /// Whether a decoded record passes the colour and search filters: its source's colour, else
    /// the one measured from its pixels, as the catalog keeps it.
    func matches(_ record: StoredRecord) -> Bool {
        if let color {
            guard let digits = ColorFilter.catalogColor(record.photo?.color) ?? record.image.color,
                Array(digits.utf8).withUnsafeBufferPointer({ color.matches(catalogColor: $0) })
            else { return false }
        }
        if let words {
            return Array(SearchWords.searchableText(of: record).utf8).withUnsafeBufferPointer { words.matches($0) }
        }
        return true
    }
}

/// A page of a listing: its records, whether more follow, and sentences naming the damage met.
package struct StorePage: Sendable {
    package var items: [StoredItem]
    package var more: Bool
    package var damage: [String]
}

extension Store {
    /// The record stored under `id`'s key, or `nil` when the photo is not liked. The thumbnail it
    /// names is read and checked first: one that a power cut left damaged is made anew, or,
    /// where the store cannot be written, not named.
    package func item(for id: String) throws -> StoredItem? {
        guard let opened = try open(), let stored = try opened.records?.read(key: StorageKey.make(for: id)) else { return nil }
        return StoredItem(record: stored, thumbnailBytes: wholeThumbnailBytes(of: stored, opened))
    }

    /// The record stored under `id`'s key alone (no look at its thumbnail), or `nil` when the
    /// photo is not liked: what a sync compares a merged change with.
    package func storedRecord(for id: String) throws -> StoredRecord? {
        try open()?.records?.read(key: StorageKey.make(for: id))
    }

    /// The size of the record's thumbnail once it is read and found whole; a damaged one is made
    /// anew where it can be. `nil` while there is none, or none whole.
    func wholeThumbnailBytes(of stored: StoredRecord, _ opened: OpenStore) -> Int? {
        switch try? opened.thumbnails().state(key: stored.key, generation: stored.image.generation) {
        case .whole(let bytes)?: return bytes
        case .damaged?: return (try? makeThumbnail(of: stored, opened))?.map(\.count)
        case .missing?, nil: return nil
        }
    }

    /// Whether `id` is liked: a look at its record file's name, once the store's latest records
    /// are found in a format this version reads (see ``refuseNewerLatestRecords(_:)``).
    package func isLiked(_ id: String) throws -> Bool {
        try liked([id])[0]
    }

    /// For each of `ids`, whether it is liked: a look at each record file's name, as
    /// ``isLiked(_:)``.
    package func liked(_ ids: [String]) throws -> [Bool] {
        guard let opened = try open(), let records = opened.records else { return ids.map { _ in false } }
        try refuseNewerLatestRecords(opened)
        return try ids.map { try records.exists(key: StorageKey.make(for: $0)) }
    }

    /// The page `query` asks for.
    package func page(_ query: StoreQuery) throws -> StorePage {
        guard let opened = try open(), let records = opened.records else { return StorePage(items: [], more: false, damage: []) }
        let found: (records: [StoredRecord], more: Bool, damage: [String])
        if let page = try opened.catalogPage(query.catalogQuery) {
            found = (page.records, page.more, [])
        } else {
            // The sure path, where the catalog cannot answer: the whole index read, and with a
            // colour or search every record decoded.
            var damage: [String] = []
            let entries = try opened.liveEntries(damage: &damage).filter(query.matches)
            if query.byTaken {
                let page = try readTakenPage(of: entries, query: query, records: records, damage: &damage)
                found = (page.records, page.more, damage)
            } else {
                let ordered = entries.sorted { query.newestFirst ? $0.listingKey > $1.listingKey : $0.listingKey < $1.listingKey }
                let page = try readPage(of: ordered, query: query, records: records, damage: &damage)
                found = (page.records, page.more, damage)
            }
        }
        let thumbnails = found.records.isEmpty ? ThumbnailFiles(directory: nil) : try opened.thumbnails()
        let items = found.records.map { record in
            StoredItem(record: record, thumbnailBytes: try? thumbnails.size(key: record.key, generation: record.image.generation))
        }
        return StorePage(items: items, more: found.more, damage: found.damage)
    }

    /// The record of an index entry; `nil` where it is missing (unliked since the index was read)
    /// or damaged (named in `damage`).
    private static func record(of entry: LiveEntry, _ records: RecordFiles, damage: inout [String]) throws -> StoredRecord? {
        do {
            return try records.read(key: entry.key)
        } catch StoreError.damagedRecord(let file, let reason) {
            damage.append("The record file \(file) is damaged (\(reason)).")
            return nil
        }
    }

    /// The records of `ordered` that pass the record filters, from the query's offset to its limit.
    private func readPage(
        of ordered: [LiveEntry], query: StoreQuery, records: RecordFiles, damage: inout [String]
    ) throws -> (records: [StoredRecord], more: Bool) {
        var result: [StoredRecord] = []
        var skipped = 0
        for entry in ordered.dropFirst(query.hasRecordFilters ? 0 : query.offset) {
            guard let stored = try Self.record(of: entry, records, damage: &damage) else { continue }
            if query.hasRecordFilters {
                guard query.matches(stored) else { continue }
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

    /// The page of `entries` (album and date filters passed) in the order by date taken: every
    /// record read, since the index does not know the date, then ordered, filtered and cut.
    private func readTakenPage(
        of entries: [LiveEntry], query: StoreQuery, records: RecordFiles, damage: inout [String]
    ) throws -> (records: [StoredRecord], more: Bool) {
        var matching: [(place: ListingKey, record: StoredRecord)] = []
        for entry in entries {
            guard let stored = try Self.record(of: entry, records, damage: &damage) else { continue }
            let place = query.place(of: stored)
            guard query.isPastCursor(place), !query.hasRecordFilters || query.matches(stored) else { continue }
            matching.append((place, stored))
        }
        matching.sort { query.newestFirst ? $0.place > $1.place : $0.place < $1.place }
        let rest = matching.dropFirst(query.offset)
        let page = rest.prefix(query.limit ?? rest.count)
        return (page.map(\.record), rest.count > page.count)
    }

    /// How many photos, how many bytes, the first and last likes, and how changes are flushed.
    package func statistics() throws -> StoreStatistics {
        let (fileSystem, flush) = try fileSystemAndStrategy()
        guard let opened = try open() else {
            return StoreStatistics(count: 0, bytes: 0, oldest: nil, newest: nil, fileSystem: fileSystem, flush: flush)
        }
        try refuseNewerLatestRecords(opened)
        if let counted = try opened.catalogStatistics() {
            return StoreStatistics(
                count: counted.count, bytes: Int(counted.bytes), oldest: counted.oldest, newest: counted.newest, fileSystem: fileSystem, flush: flush)
        }
        var damage: [String] = []
        let entries = try opened.liveEntries(damage: &damage)
        return StoreStatistics(
            count: entries.count, bytes: Int(entries.reduce(0) { $0 + $1.bytes }), oldest: entries.map(\.likedAt).min(),
            newest: entries.map(\.likedAt).max(), fileSystem: fileSystem, flush: flush)
    }

    /// Every album with its count, bytes, newest photo and cover (the chosen one, else the newest
    /// photo), in no particular order.
    package func albums() throws -> [StoreAlbum] {
        guard let opened = try open(), let records = opened.records else { return [] }
        var groups: [String: (count: Int, bytes: Int64, newest: ListingKey, covers: [String])] = [:]
        if let counted = try opened.catalogAlbums() {
            for album in counted {
                guard let bytes = PercentEscaping.albumName.unescape(album.name.withUnsafeBufferPointer { $0 }),
                    let name = Names.album(String(decoding: bytes, as: UTF8.self))
                else { continue }
                groups[name] = (album.count, album.bytes, album.newest, album.covers)
            }
        } else {
            var damage: [String] = []
            for entry in try opened.liveEntries(damage: &damage) {
                for album in entry.albums {
                    var group = groups[album] ?? (0, 0, entry.listingKey, [])
                    group.count += 1
                    group.bytes += entry.bytes
                    group.newest = max(group.newest, entry.listingKey)
                    if entry.covers.contains(album) { group.covers.append(entry.key) }
                    groups[album] = group
                }
            }
        }
        return groups.map { name, group in
            var album = StoreAlbum(name: name, count: group.count, bytes: Int(group.bytes), newest: group.newest.likedAt, cover: nil)
            album.chosenCovers = group.covers.compactMap { key in
                (try? records.read(key: key)).flatMap { $0 }.flatMap { $0.covers.contains(name) ? $0 : nil }
            }
            if let chosen = Self.newestChoice(of: name, among: album.chosenCovers) {
                album.cover = chosen
                album.coverChosen = true
            } else {
                album.cover = (try? records.read(key: group.newest.key)) ?? nil
            }
            return album
        }
    }

    /// Of the photos chosen as `album`'s cover, the one chosen last: by its choice's stamp as
    /// devices order stamps (milliseconds, then the counter of changes within one millisecond,
    /// then the device; a stamp of this store's own, not yet published, counts as the first of its
    /// millisecond), then by key, so that every device that holds the same records picks the same
    /// one. The counter matters: one restore that chooses two photos as an album's cover stamps
    /// both in one millisecond, the later one counted after the earlier.
    package static func newestChoice(of album: String, among records: [StoredRecord]) -> StoredRecord? {
        let part = RecordStamps.cover(album)
        func order(_ record: StoredRecord) -> (Int64, Int, String) {
            guard let text = record.stamps?[part] else { return (0, 0, "") }
            guard let stamp = Stamp(text) else { return (StampedPart.milliseconds(of: text), 0, "") }
            return (stamp.milliseconds, stamp.counter, stamp.device)
        }
        return records.max { left, right in
            let (leftOrder, rightOrder) = (order(left), order(right))
            return leftOrder != rightOrder ? leftOrder < rightOrder : left.key.utf8.lexicographicallyPrecedes(right.key.utf8)
        }
    }

    /// The bytes of one of a record's images as liked, checked against the record: a link, a
    /// folder or changed bytes are damage, never followed or served.
    static func imageBytes(of record: StoredRecord, user: Bool, _ opened: OpenStore) throws -> ImageRead {
        guard let info = user ? record.userImage : record.image else { return .damaged("is missing") }
        let name = StoreLayout.imageFileName(record.key, info.generation, user: user)
        switch try opened.images?.read(name, as: info) ?? .damaged("is missing") {
        case .whole(let data): return .whole(data)
        case .damaged(let problem): return .damaged(problem)
        }
    }

    /// Which of a photo's files ``file(_:of:)`` reads.
    package enum FileKind: Sendable {
        case image, userImage, thumbnail
    }

    /// A liked photo's record and one of its files, the store opened once (what a gallery
    /// serves per request): the image's bytes checked against the record, or the thumbnail's
    /// (made now when missing; `nil` for a JPEG that cannot be scaled); `nil` for the user image
    /// of a photo that has none. `nil` when `id` is not liked.
    package func file(_ kind: FileKind, of id: String) throws -> (record: StoredRecord, read: ImageRead?)? {
        guard let opened = try open(), let stored = try opened.records?.read(key: StorageKey.make(for: id)), stored.id == id else {
            return nil
        }
        switch kind {
        case .thumbnail:
            if let data = try opened.thumbnails().bytesIfWhole(key: stored.key, generation: stored.image.generation) {
                return (stored, .whole(data))
            }
            return (stored, try makeThumbnail(of: stored, opened).map { .whole(Data($0)) })
        case .image: return (stored, try Self.imageBytes(of: stored, user: false, opened))
        case .userImage: return (stored, stored.userImage == nil ? nil : try Self.imageBytes(of: stored, user: true, opened))
        }
    }

    /// The file name of the store's folder this is: what messages name.
    package var displayPath: String { path }
}

/// An image read through the store: its bytes, or what is wrong with its file.
package enum ImageRead: Sendable {
    case whole(Data)
    /// A sentence fragment: "is missing", "has changed since it was liked".
    case damaged(String)
}

extension StoredRecord {
    /// Where one of the record's images lives, as a path inside the store: `images/KEY~GEN.jpg`.
    package func imagePath(user: Bool) -> String? {
        guard let info = user ? userImage : image else { return nil }
        return StoreLayout.imagesDirectory + "/" + StoreLayout.imageFileName(key, info.generation, user: user)
    }

    /// Where the record's thumbnail lives, as a path inside the store, whether or not it was made.
    package var thumbnailPath: String {
        StoreLayout.thumbnailsDirectory + "/" + StoreLayout.thumbnailFileName(key, image.generation)
    }

    /// The pixel size of the record's thumbnail.
    package var thumbnailSize: (width: Int, height: Int) {
        ThumbnailFiles.pixelSize(width: image.width, height: image.height)
    }
}

/// The store opened once for many reads: a first sync reads every record and image through one,
/// instead of opening the store for each.
package struct StoreReader {
    fileprivate let opened: OpenStore

    /// The record stored under a storage key, or `nil`.
    package func record(forKey key: String) throws -> StoredRecord? {
        try opened.records?.read(key: key)
    }

    /// The photo's image (or user image) as liked, checked against its record; `nil` when the
    /// photo is not liked or has no such image.
    package func image(ofPhoto id: String, user: Bool) throws -> ImageRead? {
        guard let record = try record(forKey: StorageKey.make(for: id)), record.id == id, !user || record.userImage != nil else { return nil }
        return try Store.imageBytes(of: record, user: user, opened)
    }
}

extension Store {
    /// The store opened once for many reads; `nil` when there is no store.
    package func reader() throws -> StoreReader? {
        try open().map { StoreReader(opened: $0) }
    }
}
