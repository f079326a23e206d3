// Owns the format of what a store keeps between syncs, in its sync/ folder: `state` (the device's engine state,
// where the journal was, the photos a sync was writing) and the photos' side in 256 shards
// `photos-XX` by a hash of the id, each with the histories, the stamps each record had after the
// last sync and the SHA-256 of its images then; and, in 256 shards `uses-XX` by the SHA-256's
// first two digits, how many photos have each image, so that an image two photos share is never
// let go of with one of them. A sync reads and writes only the shards of the photos and images it
// touches: one like at 100,000 photos costs a shard or two, not the whole collection. Every file
// names its version in a `format` field (SyncFormat): a later one is refused, never read as damage.

import LikeSync
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// The version of the files in sync/, named in each by a `format` field. A file without one was
/// written before there was a version (1) and is read as it is; a file of a later version is
/// refused as ``StoreError/newerFormat(file:format:)`` before anything of it is used, so that an
/// older likes neither takes it for damage nor writes over it.
///
/// `state` is read first by every sync, and shards only as photos need them: so a version that
/// changes any file's format writes `state` naming its version before any file of the new format,
/// and an older likes stops at `state` before it has done anything.
package enum SyncFormat {
    /// The version this build writes, and the latest it reads.
    package static let current = 2
    /// The field that names it (in the uses' shards, a key beside the images' digests).
    package static let key = "format"

    /// Only the version of a file whose body this build could not read.
    private struct Probe: Decodable {
        let format: Int?
    }

    /// Decodes a file of sync/ (`name`, shown as `file`), whose version `version` gives once read:
    /// a later version than ``current`` is ``StoreError/newerFormat(file:format:)``, whether or not
    /// its body has this build's shape; any other file that does not read is damage.
    package static func decode<Value: Decodable>(
        _ data: Data, as type: Value.Type, file: String, kind: String, version: (Value) -> Int?
    ) throws -> Value {
        let value: Value
        do {
            value = try JSONDecoder().decode(type, from: data)
        } catch {
            if let format = (try? JSONDecoder().decode(Probe.self, from: data))?.format, format > current {
                throw StoreError.newerFormat(file: file, format: "\(kind) format \(format)")
            }
            throw StoreError.damagedSyncState(file: file, reason: "cannot be read (\(error))")
        }
        if let format = version(value), format > current { throw StoreError.newerFormat(file: file, format: "\(kind) format \(format)") }
        return value
    }
}

/// What a store keeps between syncs besides the photos' side: its device's state, and the
/// store's change mark as the last sync left it.
package struct SavedSync: Codable {
    /// The version of the file it was read from (``SyncFormat``), `nil` for one written before
    /// versions; set to the current one when written.
    package var format: Int?
    package var engine: DeviceSyncState
    /// Where the journal ended when the last sync looked for the store's changes: the lines
    /// after it name the photos to look at; unchanged, there is nothing to publish.
    package var position: JournalPosition?
    /// The photos a sync was writing as merged, kept before it began: a sync that died part way
    /// leaves them here for the next to finish.
    package var applying: [String]?
    /// Unlikes found by a sync of an earlier version before it wrote the journal anew (which
    /// kept no unlike then): by photo id, the time; published by the next sync, which writes none
    /// (a journal written anew keeps them now, see SyncOwed).
    package var unlikesFound: [String: Int64]?
    /// The number of the change file a new device's first publication of every photo was given
    /// (0 before it took one), set before it begins and cleared once it ends: a sync that finds it
    /// set publishes every photo again from the start (see `publishEverything` in LikeKit),
    /// nothing having been merged in between.
    package var firstPublication: Int?
    /// Set while a merge of many groups keeps the images' uses aside (``PhotoShards/deferUses()``)
    /// and cleared once they are written: a sync that finds it set counts every image's uses anew
    /// from the photos' shards (``PhotoShards/countUsesAnew()``) before it reads one.
    package var usesAside: Bool?

    package init(engine: DeviceSyncState, position: JournalPosition?, applying: [String]? = nil, unlikesFound: [String: Int64]? = nil) {
        self.engine = engine
        self.position = position
        self.applying = applying
        self.unlikesFound = unlikesFound
    }
}

/// The photos' side of what a store keeps, for some photos or all: each photo's history, the
/// stamps its record had after the last sync, and the SHA-256 of its images then.
package struct SavedPhotos: Codable, Equatable {
    /// The version of the shard it was read from (``SyncFormat``), `nil` for one written before
    /// versions; not part of what it holds (``==``), and set to the current one when written.
    package var format: Int?
    package var histories: [String: PhotoHistory] = [:]
    package var published: [String: [String: String]] = [:]
    package var images: [String: String] = [:]
    package var userImages: [String: String] = [:]

    package init() {}

    /// Whether both hold the same photos, whichever version they were read from.
    package static func == (lhs: SavedPhotos, rhs: SavedPhotos) -> Bool {
        lhs.histories == rhs.histories && lhs.published == rhs.published && lhs.images == rhs.images && lhs.userImages == rhs.userImages
    }

    /// Its photos split by shard (``PhotoShards/shard(of:)``), in one pass.
    package func byShard() -> [Int: SavedPhotos] {
        var parts: [Int: SavedPhotos] = [:]
        for (id, history) in histories { parts[PhotoShards.shard(of: id), default: SavedPhotos()].histories[id] = history }
        for (id, stamps) in published { parts[PhotoShards.shard(of: id), default: SavedPhotos()].published[id] = stamps }
        for (id, image) in images { parts[PhotoShards.shard(of: id), default: SavedPhotos()].images[id] = image }
        for (id, image) in userImages { parts[PhotoShards.shard(of: id), default: SavedPhotos()].userImages[id] = image }
        return parts
    }

    /// Takes in `other`'s photos, keeping its own values where both have one.
    package mutating func takeIn(_ other: SavedPhotos) {
        histories.merge(other.histories) { kept, _ in kept }
        published.merge(other.published) { kept, _ in kept }
        images.merge(other.images) { kept, _ in kept }
        userImages.merge(other.userImages) { kept, _ in kept }
    }

    /// Takes note that the store no longer holds the photo: its history stays, and the time of
    /// the last unlike of it this store published.
    package mutating func forget(_ id: String) {
        published[id] = published[id]?[Self.unlikeMark].map { [Self.unlikeMark: $0] }
        images[id] = nil
        userImages[id] = nil
    }

    /// The key under which a photo's published stamps keep the time of the last unlike this
    /// store published of it: an unlike the journal holds is this store's to publish only when
    /// later (a sync that died after publishing it, or a journal written anew, finds it again).
    package static let unlikeMark = "unlike"

    /// The stamps a photo's record had when a sync last published or wrote it, with the mark of
    /// its last unlike published.
    package mutating func notePublished(_ id: String, stamps: [String: String]?) {
        let mark = published[id]?[Self.unlikeMark]
        var noted = stamps
        if let mark { noted = (noted ?? [:]).merging([Self.unlikeMark: mark]) { _, new in new } }
        published[id] = noted
    }

    /// The time of the last unlike of the photo this store published.
    package func unlikePublished(_ id: String) -> Int64? {
        published[id]?[Self.unlikeMark].flatMap { Int64($0) }
    }

    /// Takes note that this store published its unlike of the photo made at `time`.
    package mutating func noteUnlikePublished(_ id: String, at time: Int64) {
        published[id, default: [:]][Self.unlikeMark] = String(time)
    }

    /// Every photo it names.
    package var ids: Set<String> { Set(histories.keys).union(published.keys).union(images.keys).union(userImages.keys) }
}

/// The photos' side as a sync reads it: the shards it needed, loaded as asked, and written back
/// where they changed.
package final class PhotoShards {
    package static let count = 256
    /// The name of the one file that held every photo before the shards.
    package static let oneFileName = "photos"

    private let store: Store
    private let displayPath: String
    /// The photos of the shards loaded, as the sync changes them.
    package var photos = SavedPhotos()
    /// Each shard loaded, as read.
    private var read: [Int: SavedPhotos] = [:]
    /// The images and user images of every photo, once asked (see ``photo(withImage:)``).
    private var everyImage: [String: (id: String, user: Bool)]?
    /// The shards of the images' uses loaded, by number: SHA-256 → photos that have it.
    private var uses: [Int: [String: Int]] = [:]
    /// The shards of uses changed since they were read.
    private var usesChanged = Set<Int>()
    /// The changes to the uses that ``save()`` keeps aside instead of writing, while deferred.
    private var deferred: DeferredUses?

    package init(store: Store, displayPath: String) {
        self.store = store
        self.displayPath = displayPath
    }

    /// A shard by the id's bytes (FNV-1a), the same on every platform and run.
    package static func shard(of id: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash % UInt32(count))
    }

    package static func name(_ shard: Int) -> String { "photos-" + hex(shard) }

    package static func usesName(_ shard: Int) -> String { "uses-" + hex(shard) }

    private static func hex(_ shard: Int) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[shard / 16], digits[shard % 16]])
    }

    /// The shard of an image's uses: its SHA-256's first two digits.
    package static func usesShard(of sha256: String) -> Int { Int(sha256.prefix(2), radix: 16) ?? 0 }

    /// Loads the shards of these photos.
    package func load(_ ids: some Sequence<String>) throws {
        for shard in Set(ids.map(Self.shard)).subtracting(read.keys).sorted() { try loadShard(shard) }
    }

    /// Loads every shard.
    package func loadAll() throws {
        for shard in 0..<Self.count where read[shard] == nil { try loadShard(shard) }
    }

    private func loadShard(_ shard: Int) throws {
        if read.isEmpty { try takeInOneFile() }
        let part = try decode(Self.name(shard)) ?? SavedPhotos()
        read[shard] = read[shard] ?? part
        photos.takeIn(part)
    }

    /// A store that synced before the shards kept every photo in one file: it is read whole once,
    /// its photos written into their shards by the next save, and removed then.
    private func takeInOneFile() throws {
        guard let whole = try decode(Self.oneFileName) else { return }
        photos.takeIn(whole)
        for shard in 0..<Self.count { read[shard] = SavedPhotos() }
        read[-1] = whole
    }

    private func decode(_ name: String) throws -> SavedPhotos? {
        guard let data = try store.syncFile(name) else { return nil }
        return try Self.decodeShard(data, file: displayPath + "/sync/" + name + ".json")
    }

    /// Reads every file ``save()`` will read (the shards of its photos, the uses of their images
    /// then and now) without writing: a file of a later version refuses there.
    package func prepareSave() throws {
        try load(photos.ids)
        guard deferred == nil else { return }
        let parts = photos.byShard()
        for shard in read.keys.sorted() where shard >= 0 {
            guard let before = read[shard] else { continue }
            for sha256 in Self.images(of: before) + Self.images(of: parts[shard] ?? SavedPhotos()) { try loadUses(Self.usesShard(of: sha256)) }
        }
    }

    /// Writes the shards whose photos changed since they were read, and the uses of the images
    /// that came or went with them, in one flush.
    package func save() throws {
        try load(photos.ids)
        var parts = photos.byShard()
        var files: [(name: String, data: Data?)] = []
        var counted: [String: Int] = [:]
        for shard in read.keys.sorted() where shard >= 0 {
            let part = parts[shard] ?? SavedPhotos()
            parts[shard] = part
            guard let before = read[shard], part != before else { continue }
            var written = part
            written.format = SyncFormat.current
            files.append((Self.name(shard), try JSONEncoder().encode(written)))
            for sha256 in Self.images(of: before) { counted[sha256, default: 0] -= 1 }
            for sha256 in Self.images(of: part) { counted[sha256, default: 0] += 1 }
        }
        if var deferred {
            for (sha256, change) in counted where change != 0 { deferred.add(sha256, change) }
            self.deferred = deferred
            counted = [:]
        }
        for (sha256, change) in counted where change != 0 { try countUse(of: sha256, change) }
        for shard in usesChanged.sorted() { files.append((Self.usesName(shard), try usesFile(shard))) }
        if read[-1] != nil { files.append((Self.oneFileName, nil)) }
        try store.setSyncFiles(files)
        read = parts
        usesChanged = []
    }

    /// Every image and user image of the photos, once for each photo that has it.
    private static func images(of photos: SavedPhotos) -> [String] {
        Array(photos.images.values) + Array(photos.userImages.values)
    }

    /// Whether a photo has this image (by SHA-256) as the last sync left it: one shard read.
    package func isInUse(_ sha256: String) throws -> Bool {
        let shard = Self.usesShard(of: sha256)
        try loadUses(shard)
        return (uses[shard]?[sha256] ?? 0) > 0
    }

    private func loadUses(_ shard: Int) throws {
        guard uses[shard] == nil else { return }
        let name = Self.usesName(shard)
        guard let data = try store.syncFile(name) else {
            uses[shard] = [:]
            return
        }
        var counts = try Self.decodeUses(data, file: displayPath + "/sync/" + name + ".json")
        counts[SyncFormat.key] = nil
        uses[shard] = counts
    }

    /// Adds `change` to how many photos have the image (by SHA-256), its shard loaded and marked
    /// to be written.
    private func countUse(of sha256: String, _ change: Int) throws {
        let shard = Self.usesShard(of: sha256)
        try loadUses(shard)
        let count = (uses[shard]?[sha256] ?? 0) + change
        uses[shard]?[sha256] = count > 0 ? count : nil
        usesChanged.insert(shard)
    }

    /// The file of a shard of the images' uses, as loaded and changed, naming its version.
    private func usesFile(_ shard: Int) throws -> Data {
        try JSONEncoder().encode((uses[shard] ?? [:]).merging([SyncFormat.key: SyncFormat.current]) { _, version in version })
    }

    /// A shard of the photos' side, its version checked.
    package static func decodeShard(_ data: Data, file: String) throws -> SavedPhotos {
        try SyncFormat.decode(data, as: SavedPhotos.self, file: file, kind: "sync shard") { $0.format }
    }

    /// A shard of the images' uses, its version checked (the `format` key still in it).
    package static func decodeUses(_ data: Data, file: String) throws -> [String: Int] {
        try SyncFormat.decode(data, as: [String: Int].self, file: file, kind: "sync uses") { $0[SyncFormat.key] }
    }

    /// From now, ``save()`` writes the photos' shards without the images' uses, and keeps their
    /// changes aside (32 bytes an image) until ``writeDeferredUses()``: a first sync saves its
    /// photos a group at a time, and writing every use shard with each group would rewrite them
    /// all many times.
    package func deferUses() {
        deferred = DeferredUses()
    }

    /// Writes the uses kept aside since ``deferUses()`` into their shards, and writes them at
    /// once again from then on.
    ///
    /// A shard of the uses at a time, written a few shards a flush and let go of: a join of
    /// 100,000 photos never holds every image's name as text.
    package func writeDeferredUses() throws {
        guard let kept = deferred else { return }
        deferred = nil
        var files: [(name: String, data: Data?)] = []
        try kept.forEachShard { shard, changes in
            guard !changes.isEmpty else { return }
            for (sha256, change) in changes { try countUse(of: sha256, change) }
            files.append((Self.usesName(shard), try usesFile(shard)))
            usesChanged.remove(shard)
            uses[shard] = nil
            if files.count == Self.usesWrittenTogether {
                try store.setSyncFiles(files)
                files = []
            }
        }
        try store.setSyncFiles(files + (try usesChanged.sorted().map { (Self.usesName($0), try usesFile($0)) }))
        usesChanged = []
    }

    /// How many shards of the uses one flush writes when they are written anew.
    private static let usesWrittenTogether = 32

    /// Counts how many photos have each image anew from the photos' shards, a shard at a time,
    /// and writes every shard of the uses: what a merge that kept the uses aside left when it
    /// died before writing them. Nothing may be loaded yet.
    package func countUsesAnew() throws {
        precondition(read.isEmpty && deferred == nil, "shards loaded before the uses were counted")
        var counted = DeferredUses()
        if try store.syncFile(Self.oneFileName) != nil {
            try loadAll()
            for sha256 in Self.images(of: photos) { counted.add(sha256, 1) }
        } else {
            for shard in 0..<Self.count {
                guard let part = try decode(Self.name(shard)) else { continue }
                for sha256 in Self.images(of: part) { counted.add(sha256, 1) }
            }
        }
        unload()
        // Every shard written, an empty one too (what it held is stale), a few at a time.
        var files: [(name: String, data: Data?)] = []
        try counted.forEachShard { shard, counts in
            uses[shard] = Dictionary(counts.filter { $0.change > 0 }) { first, _ in first }
            files.append((Self.usesName(shard), try usesFile(shard)))
            uses[shard] = nil
            if files.count == Self.usesWrittenTogether {
                try store.setSyncFiles(files)
                files = []
            }
        }
        try store.setSyncFiles(files)
    }

    /// Takes note that the store no longer holds each photo the shards know that `present`
    /// lacks (``SavedPhotos/forget(_:)``), a shard at a time, each saved and let go of, so that
    /// a sync that looks at every record holds one shard, not every photo's history; whether
    /// any was. Nothing may be loaded yet. A store that kept every photo in one file (before the
    /// shards) is read whole, as before. Also whether any photo was ever published.
    package func forgetAbsent(_ present: Set<String>) throws -> (forgotten: Bool, published: Bool) {
        precondition(read.isEmpty, "shards loaded before the absent photos were forgotten")
        guard try store.syncFile(Self.oneFileName) == nil else {
            try loadAll()
            let before = photos
            for id in photos.published.keys where !present.contains(id) { photos.forget(id) }
            return (photos != before, !before.published.isEmpty)
        }
        var forgotten = false
        var published = false
        for shard in 0..<Self.count {
            try loadShard(shard)
            let before = photos
            published = published || !before.published.isEmpty
            for id in photos.published.keys where !present.contains(id) { photos.forget(id) }
            if photos != before {
                try save()
                forgotten = true
            }
            unload()
        }
        return (forgotten, published)
    }

    /// Lets go of every shard read, once saved: a first sync holds a batch of photos at a time.
    package func unload() {
        precondition(usesChanged.isEmpty, "unloaded before it was saved")
        photos = SavedPhotos()
        read = [:]
        everyImage = nil
        uses = [:]
    }

    /// Empties every shard: a new device keeps nothing of the old one's.
    package func clear() throws {
        let files =
            (0..<Self.count).flatMap { [(name: Self.name($0), data: Data?.none), (Self.usesName($0), nil)] } + [(Self.oneFileName, nil)]
        try store.setSyncFiles(files)
        photos = SavedPhotos()
        read = [:]
        everyImage = nil
        uses = [:]
        usesChanged = []
    }

    /// A photo with this image (by SHA-256) after the last sync, and whether it is its user
    /// image; reads every shard once.
    package func photo(withImage sha256: String) throws -> (id: String, user: Bool)? {
        if everyImage == nil {
            try loadAll()
            var found: [String: (id: String, user: Bool)] = [:]
            for (id, image) in photos.images { found[image] = (id, false) }
            for (id, image) in photos.userImages where found[image] == nil { found[image] = (id, true) }
            everyImage = found
        }
        return everyImage?[sha256]
    }
}

extension Store {
    /// The name of the file of the device's own state in sync/ (``SavedSync``).
    package static let syncStateName = "state"

    /// What is wrong with what the store keeps between syncs, file by file (one shard in memory
    /// at a time); `nil` when every file reads, or there is none.
    ///
    /// - Throws: ``StoreError/newerFormat(file:format:)`` for a file a later version wrote, which
    ///   is not damage: nothing may set it aside.
    package func syncBookkeepingDamage() throws -> String? {
        func check(_ name: String, _ decode: (Data, String) throws -> Void) throws -> String? {
            do {
                guard let data = try syncFile(name) else { return nil }
                try decode(data, displayPath + "/sync/" + name + ".json")
                return nil
            } catch StoreError.newerFormat(let file, let format) {
                throw StoreError.newerFormat(file: file, format: format)
            } catch {
                return "sync/\(name).json cannot be read"
            }
        }
        if let damage = try check(Store.syncStateName, { _ = try Self.decodeSyncState($0, file: $1) }) { return damage }
        for name in [PhotoShards.oneFileName] + (0..<PhotoShards.count).map(PhotoShards.name) {
            if let damage = try check(name, { _ = try PhotoShards.decodeShard($0, file: $1) }) { return damage }
        }
        for name in (0..<PhotoShards.count).map(PhotoShards.usesName) {
            if let damage = try check(name, { _ = try PhotoShards.decodeUses($0, file: $1) }) { return damage }
        }
        return nil
    }

    /// The device's state as `sync/state.json` holds it, its version checked.
    package static func decodeSyncState(_ data: Data, file: String) throws -> SavedSync {
        try SyncFormat.decode(data, as: SavedSync.self, file: file, kind: "sync state") { $0.format }
    }
}

/// Changes to images' uses kept aside, by SHA-256 as its 32 bytes.
private struct DeferredUses {
    struct Digest: Hashable {
        var words: (UInt64, UInt64, UInt64, UInt64)

        init?(_ hex: String) {
            let bytes = Array(hex.utf8)
            guard bytes.count == 64 else { return nil }
            func word(_ index: Int) -> UInt64? { UInt64(String(decoding: bytes[(index * 16)..<(index * 16 + 16)], as: UTF8.self), radix: 16) }
            guard let a = word(0), let b = word(1), let c = word(2), let d = word(3) else { return nil }
            words = (a, b, c, d)
        }

        var hex: String {
            let bytes = [words.0, words.1, words.2, words.3].flatMap { word in (0..<8).reversed().map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) }
            }
            return Hex.string(bytes)
        }

        static func == (left: Digest, right: Digest) -> Bool { left.words == right.words }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
        }
    }

    var changes: [Digest: Int] = [:]
    /// Names that are no SHA-256 in lower-case hex (none the store makes), kept as they are.
    var others: [String: Int] = [:]

    /// Calls `body` with each shard of the uses (``PhotoShards/usesShard(of:)``), in order, every
    /// one of them, and its changes by SHA-256 in hex: the names made as text a shard at a time.
    func forEachShard(_ body: (Int, [(sha256: String, change: Int)]) throws -> Void) throws {
        var buckets = [[(Digest, Int)]](repeating: [], count: PhotoShards.count)
        for (digest, change) in changes { buckets[Int(digest.words.0 >> 56)].append((digest, change)) }
        var strays = [[(String, Int)]](repeating: [], count: PhotoShards.count)
        for (name, change) in others { strays[PhotoShards.usesShard(of: name)].append((name, change)) }
        for shard in 0..<PhotoShards.count {
            let named = buckets[shard].map { (sha256: $0.0.hex, change: $0.1) } + strays[shard].map { (sha256: $0.0, change: $0.1) }
            buckets[shard] = []
            try body(shard, named)
        }
    }

    mutating func add(_ sha256: String, _ change: Int) {
        if let digest = Digest(sha256), digest.hex == sha256 {
            changes[digest, default: 0] += change
        } else {
            others[sha256, default: 0] += change
        }
    }
}
