// Owns what the journal says is liked: the live photos after every settled line, read from start
// to end. Built by Journal.index (readers, verify, purge, repair) from JournalReader's lines;
// it reads no file itself.

/// What a liked photo's newest committed journal line says about it.
package struct LiveEntry: Hashable, Sendable {
    var key: String
    var generation: String
    var likedAt: Int64
    var bytes: Int64
    var imageGeneration: String
    var userImageGeneration: String?
    /// The albums the photo is in, in canonical order.
    var albums: [String] = []
    /// The albums whose chosen cover the photo is (see ``StoredRecord/covers``).
    var covers: [String] = []
    /// What queries need of the photo; `nil` when read from a journal of the format before.
    var catalog: CatalogFields?

    /// Where the photo stands in a listing: by the time it was liked, then by key (likes of
    /// one millisecond, which stores written before the clock ticked at least once per line
    /// may hold).
    var listingKey: ListingKey { ListingKey(likedAt: likedAt, key: key) }

    package static func == (left: LiveEntry, right: LiveEntry) -> Bool {
        (left.key, left.generation, left.likedAt, left.bytes, left.imageGeneration, left.userImageGeneration)
            == (right.key, right.generation, right.likedAt, right.bytes, right.imageGeneration, right.userImageGeneration)
            && left.albums == right.albums && left.covers == right.covers && left.catalog == right.catalog
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(generation)
    }
}

/// The files a live photo has, by its key and image generations: what purge needs of it.
struct PhotoFiles: Sendable {
    var key: String
    var imageGeneration: String
    var userImageGeneration: String?

    init(key: String, imageGeneration: String, userImageGeneration: String?) {
        self.key = key
        self.imageGeneration = imageGeneration
        self.userImageGeneration = userImageGeneration
    }

    init(_ entry: LiveEntry) {
        self.init(key: entry.key, imageGeneration: entry.imageGeneration, userImageGeneration: entry.userImageGeneration)
    }
}

/// The order of a listing: the time a photo was liked, then its storage key. Total, and
/// derived from the record alone, so that a cursor names a place in it.
package struct ListingKey: Comparable, Hashable, Sendable {
    /// When the photo was liked, in milliseconds since 1970.
    package var likedAt: Int64
    /// The photo's storage key, which breaks ties.
    package var key: String

    package init(likedAt: Int64, key: String) {
        self.likedAt = likedAt
        self.key = key
    }

    package static func < (left: ListingKey, right: ListingKey) -> Bool {
        (left.likedAt, left.key) < (right.likedAt, right.key)
    }
}

/// The journal read from start to end: the live photos it describes, and where it is damaged.
package struct JournalIndex: Sendable {
    package var live: [String: LiveEntry] = [:]
    /// The number of lines, the header included.
    var lineCount = 0
    /// A sentence naming the first malformed line, or another reason not to trust the index (it
    /// is missing, cut short, has no header); lines after a malformed one are not read.
    package var damage: String?

    init() {}

    /// Applies a settled line (see ``JournalReader``).
    mutating func apply(_ line: JournalLine) {
        switch line.operation {
        case .liked:
            live[line.key] = LiveEntry(
                key: line.key, generation: line.generation, likedAt: line.at, bytes: line.bytes,
                imageGeneration: line.imageGeneration, userImageGeneration: line.userImageGeneration, albums: line.albums,
                covers: line.covers, catalog: line.catalog)
        case .updated:
            let previous = live[line.key]
            live[line.key] = LiveEntry(
                key: line.key, generation: line.generation, likedAt: previous?.likedAt ?? line.at, bytes: line.bytes,
                imageGeneration: line.imageGeneration, userImageGeneration: line.userImageGeneration, albums: line.albums,
                covers: line.covers, catalog: line.catalog)
        case .unliked:
            live.removeValue(forKey: line.key)
        case .header, .aborted, .purged:
            break
        }
    }

    /// Reads every line with `reader`: stops at the first malformed line unless `skippingDamage`
    /// (repair reads what every readable line says).
    package init(reading reader: JournalReader, skippingDamage: Bool = false) throws {
        // Room for a photo per line of about the usual length, made once, instead of growing the
        // table (and rehashing every key) a dozen times on the way to 100,000.
        live.reserveCapacity(try reader.source.currentSize() / 56)
        let end = try reader.forward { item in
            guard let line = item.line else {
                if damage == nil {
                    damage = "the index \(StoreLayout.journalFileName) is damaged at line \(item.number) (byte \(item.start))"
                }
                return skippingDamage
            }
            apply(line)
            return true
        }
        lineCount = end.lineCount
    }
}

extension ListingKey {
    /// The place of the photo an `L` line liked.
    package init(_ view: JournalLine.View) {
        self.init(likedAt: view.at, key: String(decoding: view.key, as: UTF8.self))
    }
}
