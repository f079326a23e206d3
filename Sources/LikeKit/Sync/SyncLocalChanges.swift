// Owns finding what this store changed since its last sync: the photos the journal's lines name
// (or every record, for a first sync), each part whose stamp is new and the store's own made into
// a change, stamped by the device's clock, and the images those changes need. Called by a sync
// (LikeRepository+Sync) before its round.

import LikeStore
import LikeSync

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// What a sync found the store changed.
struct LocalChanges {
    /// The changes, in the order made.
    var changes: [SyncChange] = []
    /// Where in the store each image to publish is, by SHA-256: read when it is written.
    var images: [String: (id: String, user: Bool)] = [:]
    /// Whether what is kept of the photos changed (a part's stamp noted, a photo gone).
    var photosChanged = false
}

extension LikeRepository {
    /// A change not stamped yet: the time the store stamped its parts with, and the change it
    /// makes once stamped.
    typealias Draft = (time: Int64, order: Int, make: (Stamp) -> SyncChange)

    /// The changes the store made since the last sync, in the order made, each stamped as the
    /// device's clock stood at the time the store stamped its parts with, and the images they
    /// need. The photos to look at: those the journal's lines after `position` name (their
    /// records, and the ids unliked with the times), or, without a position or where the journal
    /// was written anew, every record and every unlike the journal holds. With no position at all
    /// (a new device), every photo the store holds is this store's to publish, and every unlike
    /// it made of a photo it no longer holds.
    /// A photo in `writing` (merged, and not yet all written: a sync died part way, or its image
    /// had not arrived) is taken for unliked only when this store unliked it, not the sync that
    /// was writing it (which unlikes a photo to like it again at its first date).
    func localChanges(_ engine: inout DeviceSyncState, _ shards: PhotoShards, since position: JournalPosition?, writing: Set<String>) throws
        -> LocalChanges
    {
        var records: [StoredRecord]
        var candidates: [String]
        var unlikeTimes: [String: Int64]
        if let position, let changes = try translating({ try store.changes(since: position) }) {
            records = try changes.keys.sorted().compactMap { key in try translating { try store.record(forKey: key) } }
            try shards.load(records.map(\.id) + changes.unliked.keys)
            let present = Set(records.map(\.id))
            candidates = changes.unliked.keys.filter { !present.contains($0) }
            unlikeTimes = changes.unliked
        } else {
            try shards.loadAll()
            // Read before the records, so that the journal and the records are not in memory at once.
            unlikeTimes = try translating { try store.unlikeTimes() }
            let all = StoreQuery(newestFirst: true, limit: nil, offset: 0, after: nil, since: nil, album: nil, color: nil, words: nil)
            records = try translating { try store.page(all) }.items.map(\.record)
            let present = Set(records.map(\.id))
            // Photos the store unliked and never published (before its first sync, or liked and
            // unliked while its syncs died): their unlikes are its changes too, but for those a
            // sync made.
            let unpublished = Set(unlikeTimes.keys).subtracting(present).filter { shards.photos.published[$0] == nil }
            let bySync = unpublished.isEmpty ? [] : try translating { try store.unlikedBySync(unpublished) }
            candidates = shards.photos.published.keys.filter { !present.contains($0) } + unpublished.subtracting(bySync).sorted()
        }
        let before = shards.photos
        // The histories first: a change made now goes into its photo's history.
        for id in records.map(\.id) + candidates where engine.histories[id] == nil { engine.histories[id] = shards.photos.histories[id] }
        records.sort { $0.likedAt < $1.likedAt }
        var drafts: [Draft] = []
        var found = LocalChanges()
        let everything = position == nil && shards.photos.published.isEmpty
        for record in records {
            drafts += try changeDrafts(for: record, &shards.photos, &found.images, after: drafts.count, everything: everything)
        }
        // Unlikes: photos the store unliked since, that it liked or had as liked.
        let now = Timestamp.milliseconds(Date())
        let bySync = try translating { try store.unlikedBySync(writing.intersection(candidates)) }
        for id in candidates.sorted() where !bySync.contains(id) {
            let published = shards.photos.published[id] != nil
            // One liked and unliked between two syncs was never published, and its unlike is all
            // the same: another device may have liked the photo before it. One a merged unlike
            // took from the store is not this store's.
            if engine.state(of: id) != nil || !published && engine.histories[id] == nil {
                drafts.append((unlikeTimes[id] ?? now, drafts.count, { stamp in SyncChange(id: id, stamp: stamp, kind: .unlike) }))
            }
            if published { shards.photos.forget(id) }
        }
        let ordered = drafts.sorted { ($0.time, $0.order) < ($1.time, $1.order) }
        found.changes = ordered.map { draft in engine.make(draft.make, now: draft.time) }
        found.photosChanged = shards.photos != before
        return found
    }

    /// The changes of one record since the last sync: a part is this store's change when its
    /// stamp is new and its own (no device in it). A photo not published yet whose liked period
    /// the store started is published whole. Of one merged from another device and not noted as
    /// published (a sync died before keeping its state), only the parts this store changed
    /// since are its own: a like or a note made on the merged photo.
    /// One change a time the store stamped parts with; a period's start gives every part.
    private func changeDrafts(
        for record: StoredRecord, _ photos: inout SavedPhotos, _ images: inout [String: (id: String, user: Bool)], after count: Int,
        everything: Bool
    ) throws -> [Draft] {
        let stamps = record.stamps?.values ?? Dictionary(uniqueKeysWithValues: PhotoState.parts.map { ($0, String(record.likedAt)) })
        let before = photos.published[record.id]
        let whole = before == nil && (everything || !(stamps[RecordStamps.liked] ?? "").contains("."))
        let changed = PhotoState.parts.filter { part in
            guard let stamp = stamps[part], stamp != before?[part] else { return false }
            return whole || !stamp.contains(".")
        }
        photos.published[record.id] = stamps
        guard !changed.isEmpty else { return [] }
        let startsPeriod = whole || changed.contains("liked")
        var mainImage: ImageReference?
        var userImage: ImageReference??
        if startsPeriod || changed.contains("image") {
            let reference = try publishedImage(of: record.id, user: false, &images)
            photos.images[record.id] = reference.sha256
            mainImage = reference
        }
        if startsPeriod || changed.contains("userImage") {
            let reference = record.userImage == nil ? nil : try publishedImage(of: record.id, user: true, &images)
            photos.userImages[record.id] = reference?.sha256
            userImage = .some(reference)
        }
        let photo = try record.photo.map { String(decoding: try Self.compactEncoder.encode($0), as: UTF8.self) }
        let (id, likedAt, note, albums) = (record.id, record.likedAt, record.note, record.albums)
        let times = Dictionary(grouping: changed) { part in Self.milliseconds(stamps[part] ?? "") }
        return times.sorted(by: { $0.key < $1.key }).enumerated().map { index, group in
            let (time, parts) = group
            let giving = startsPeriod && time == Self.milliseconds(stamps["liked"] ?? "") ? Set(PhotoState.parts) : Set(parts)
            let kind: SyncChange.Kind = giving.contains("liked") || giving.contains("image") || giving.contains("userImage") ? .like : .edit
            return (
                time, count + index,
                { stamp in
                    SyncChange(
                        id: id, stamp: stamp, kind: kind, likedAt: giving.contains("liked") ? likedAt : nil,
                        image: giving.contains("image") ? mainImage : nil, userImage: giving.contains("userImage") ? userImage : nil,
                        note: giving.contains("note") ? .some(note) : nil, albums: giving.contains("albums") ? albums : nil,
                        photo: giving.contains("photo") ? .some(photo) : nil)
                }
            )
        }
    }

    /// One of the photo's images as a change names it, and where it is, to be read again when
    /// it is written into the folder (a first sync of a large store holds one image at a time).
    private func publishedImage(of id: String, user: Bool, _ images: inout [String: (id: String, user: Bool)]) throws -> ImageReference {
        let bytes = try imageBytes(of: id, user: user)
        let reference = ImageReference(sha256: SyncFolder.digest(bytes), bytes: bytes.count)
        images[reference.sha256] = (id, user)
        return reference
    }

    func imageBytes(of id: String, user: Bool) throws -> [UInt8] {
        switch try translating({ try store.file(user ? .userImage : .image, of: id) })?.read {
        case .whole(let data)?: return Array(data)
        case .damaged(let reason)?:
            throw LikeRepositoryError.damagedImage(file: id, reason: reason)
        case nil:
            throw LikeRepositoryError.notLiked(id: PhotoID(stored: id))
        }
    }

    static let compactEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A stamp's milliseconds, local (`MILLIS`) or merged (`MILLIS.COUNTER.DEVICE`).
    static func milliseconds(_ stamp: String) -> Int64 {
        Int64(stamp.prefix { $0 != "." }) ?? 0
    }
}
