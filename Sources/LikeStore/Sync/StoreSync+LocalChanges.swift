// Owns finding what this store changed since its last sync: the photos the journal's lines name
// (or every record, for a first sync), each part whose stamp is new and the store's own made into
// a change, stamped by the device's clock, and the images those changes need. Called by a sync
// (StoreSync) before its round.

import LikeSync
import LikesSupport

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

extension StoreSync {
    /// A change not stamped yet: the time the store stamped its parts with, and the change it
    /// makes once stamped.
    typealias Draft = (time: Int64, order: Int, make: (Stamp) -> SyncChange)

    /// The changes the store made since the last sync, in the order made, each stamped as the
    /// device's clock stood at the time the store stamped its parts with, and the images they
    /// need. The photos to look at: those the journal's lines after `position` name (their
    /// records, and the ids this store unliked with the times), or, without a position or where
    /// the journal was written anew, every record and every unlike of this store's the journal
    /// holds. With no position at all (a new device), every photo the store holds is this
    /// store's to publish.
    ///
    /// What a change gives is what the store's command gave (SPEC §13): a record keeps, by
    /// part, the time of the last change that gave it (``RecordStamps``), each album's
    /// membership its own, each like of the liked photo its own, and what a like that started
    /// the period did not give as never given. Of a photo, only its last unlike and what came
    /// after matter to any merge (an unlike ends everything before it), so those are published:
    /// the unlike, each like (with the photo's image, the one a later like replaced being gone),
    /// and each time some part was given, with the parts whose last change it was.
    /// `alsoUnliked`: unlikes found by a sync that wrote the journal anew (see
    /// ``apply(_:from:_:engine:since:unlikesFound:)``).
    func localChanges(
        _ engine: inout DeviceSyncState, _ shards: PhotoShards, since position: JournalPosition?, alsoUnliked: [String: Int64]
    ) throws -> LocalChanges {
        // Only the records with a part of the store's own are kept: the others (a merge wrote
        // them, as a join does by the thousand) give no change, and holding them all would make
        // the sync after a killed join hold every photo it had written.
        var records: [StoredRecord] = []
        var present = Set<String>()
        var forgotten = false
        var everPublished = true
        var unlikeTimes: [String: Int64]
        if let position, let changes = try store.changes(since: position) {
            for key in changes.keys.sorted() {
                guard let record = try store.record(forKey: key) else { continue }
                present.insert(record.id)
                if Self.hasOwnParts(record) { records.append(record) }
            }
            try shards.load(records.map(\.id) + changes.unliked.keys)
            unlikeTimes = changes.unliked
        } else {
            // Read before the records, so that the journal and the records are not in memory at once.
            unlikeTimes = try store.unlikeTimes()
            // Record by record from their files, not by the listing: a journal that a killed join
            // left out of date order would have the listing index every photo at once.
            try store.forEachRecord { record in
                present.insert(record.id)
                if Self.hasOwnParts(record) { records.append(record) }
            }
            // Having read every record: the photos the store no longer holds, noted so (an
            // unlike whose line a journal written anew no longer has), a shard at a time.
            (forgotten, everPublished) = try shards.forgetAbsent(present)
            try shards.load(records.map(\.id) + unlikeTimes.keys)
        }
        if !alsoUnliked.isEmpty {
            try shards.load(Array(alsoUnliked.keys))
            unlikeTimes.merge(alsoUnliked) { max($0, $1) }
        }
        let before = shards.photos
        // The histories first: a change made now goes into its photo's history.
        for id in records.map(\.id) + unlikeTimes.keys where engine.histories[id] == nil { engine.histories[id] = shards.photos.histories[id] }
        records.sort { $0.likedAt < $1.likedAt }
        var drafts: [Draft] = []
        var found = LocalChanges()
        let everything = position == nil && !everPublished
        drafts += unlikeDrafts(unlikeTimes, present: present, engine, shards)
        for record in records {
            drafts += try changeDrafts(for: record, &shards.photos, &found.images, after: drafts.count, everything: everything)
        }
        let ordered = drafts.sorted { ($0.time, $0.order) < ($1.time, $1.order) }
        found.changes = ordered.map { draft in engine.make(draft.make, now: draft.time) }
        found.photosChanged = forgotten || shards.photos != before
        return found
    }

    /// Whether a record has a part that this store gave (a stamp without a device in it, not
    /// never given) or no stamps at all (a record from before them): only such a record can
    /// hold a change to publish.
    static func hasOwnParts(_ record: StoredRecord) -> Bool {
        guard let stamps = record.stamps?.values else { return true }
        return stamps.contains { part, stamp in
            !stamp.contains(".") && stamp != RecordStamps.neverGiven && part != RecordStamps.unliked && part != SavedPhotos.unlikeMark
        }
    }

    /// This store's unlikes not published yet, as changes to make (of a photo liked again since,
    /// before that like); each noted as published, and a photo the store no longer holds
    /// forgotten. `present`: the photos the store holds.
    func unlikeDrafts(_ unlikeTimes: [String: Int64], present: Set<String>, _ engine: DeviceSyncState, _ shards: PhotoShards) -> [Draft] {
        var drafts: [Draft] = []
        for (id, time) in unlikeTimes.sorted(by: { $0.key < $1.key }) where time > (shards.photos.unlikePublished(id) ?? -1) {
            if shards.photos.unlikePublished(id) == nil, let last = engine.histories[id]?.lastUnlike, last.device == engine.device,
                last.milliseconds >= time
            {
                continue  // published by a version that kept no mark of it
            }
            drafts.append((time, drafts.count, { stamp in SyncChange(id: id, stamp: stamp, kind: .unlike) }))
            shards.photos.noteUnlikePublished(id, at: time)
            if !present.contains(id) { shards.photos.forget(id) }
        }
        return drafts
    }

    /// The changes of one record since the last sync: a part is this store's change when its
    /// stamp is its own (no device in it), given (not ``RecordStamps/neverGiven``) and not the
    /// one the last sync published. One change a time: a like where the store liked the photo
    /// then (the period's start, a like of the liked photo, or its image given), giving the
    /// image, else an edit; each with the parts last given then. A first sync publishes each
    /// photo as one like giving all it has.
    func changeDrafts(
        for record: StoredRecord, _ photos: inout SavedPhotos, _ images: inout [String: (id: String, user: Bool)], after count: Int,
        everything: Bool, reader: StoreReader? = nil
    ) throws -> [Draft] {
        let stamps = record.stamps?.values ?? Dictionary(uniqueKeysWithValues: PhotoState.parts.map { ($0, String(record.likedAt)) })
        let before = everything ? nil : photos.published[record.id]
        let new = stamps.filter { part, stamp in
            !stamp.contains(".") && stamp != RecordStamps.neverGiven && stamp != before?[part] && part != RecordStamps.unliked
                && part != SavedPhotos.unlikeMark
        }
        photos.notePublished(record.id, stamps: stamps)
        guard !new.isEmpty else { return [] }
        let startsPeriod = new[RecordStamps.liked] != nil
        var likes = Set(new.keys.compactMap(RecordStamps.likeTime(ofPart:)))
        if let liked = new[RecordStamps.liked] { likes.insert(StampedPart.milliseconds(of: liked)) }
        if let image = new[RecordField.image.rawValue] { likes.insert(StampedPart.milliseconds(of: image)) }
        // By time, the parts last given then (a like's own part aside).
        var given: [Int64: Set<String>] = [:]
        for (part, stamp) in new where RecordStamps.likeTime(ofPart: part) == nil {
            given[StampedPart.milliseconds(of: stamp), default: []].insert(part)
        }
        for time in likes { given[time, default: []].insert(RecordField.image.rawValue) }
        var mainImage: ImageReference?
        if !likes.isEmpty {
            let reference = try publishedImage(of: record.id, user: false, &images, reader: reader)
            photos.images[record.id] = reference.sha256
            mainImage = reference
        }
        var userImage: ImageReference?
        if new[RecordField.userImage.rawValue] != nil || everything, record.userImage != nil {
            userImage = try publishedImage(of: record.id, user: true, &images, reader: reader)
        }
        photos.userImages[record.id] = record.userImage == nil ? nil : (userImage?.sha256 ?? photos.userImages[record.id])
        let photo = try record.photo.map { String(decoding: try Self.compactEncoder.encode($0), as: UTF8.self) }
        let (id, likedAt, note, albums, covers) = (record.id, record.likedAt, record.note, Set(record.albums), Set(record.covers))
        let start = startsPeriod ? StampedPart.milliseconds(of: new[RecordStamps.liked] ?? "") : nil
        let hasMembershipParts = stamps.keys.contains { RecordStamps.albumName(ofPart: $0) != nil }
        return given.sorted(by: { $0.key < $1.key }).enumerated().map { index, group in
            let (time, parts) = group
            let isStart = time == start
            let kind: SyncChange.Kind = likes.contains(time) ? .like : .edit
            // A first sync's like gives what the photo has; any other gives what was given then.
            let whole = everything && isStart
            func gives(_ field: RecordField, _ has: Bool) -> Bool { parts.contains(field.rawValue) && (!whole || has) }
            let memberships = Self.memberships(given: parts, albums: albums, whole: whole, hasMembershipParts: hasMembershipParts)
            let choices = Self.coverChoices(given: parts, covers: covers, whole: whole)
            return (
                time, count + index,
                { stamp in
                    SyncChange(
                        id: id, stamp: stamp, kind: kind, likedAt: isStart ? likedAt : nil, image: kind == .like ? mainImage : nil,
                        userImage: gives(.userImage, userImage != nil) ? .some(userImage) : nil,
                        note: gives(.note, note != nil) ? .some(note) : nil, albums: memberships.isEmpty ? nil : memberships,
                        covers: choices.isEmpty ? nil : choices, photo: gives(.photo, photo != nil) ? .some(photo) : nil)
                }
            )
        }
    }

    /// The choices of cover a change giving `parts` decides: each album whose cover part it gives
    /// (chosen when the photo is its cover); a whole photo's like, only the covers it is.
    private static func coverChoices(given parts: Set<String>, covers: Set<String>, whole: Bool) -> [String: Bool] {
        var choices: [String: Bool] = [:]
        for part in parts {
            if let name = RecordStamps.coverName(ofPart: part), !whole || covers.contains(name) { choices[name] = covers.contains(name) }
        }
        return choices
    }

    /// The memberships a change giving `parts` decides: each album whose part it gives (in it
    /// when the photo is); a whole photo's like, only the albums it is in.
    private static func memberships(given parts: Set<String>, albums: Set<String>, whole: Bool, hasMembershipParts: Bool) -> [String: Bool] {
        var memberships: [String: Bool] = [:]
        for part in parts {
            if let name = RecordStamps.albumName(ofPart: part), !whole || albums.contains(name) { memberships[name] = albums.contains(name) }
        }
        // A record from before memberships had parts of their own: its albums go with the
        // albums' part (a store that never synced, syncing for the first time).
        if parts.contains(RecordField.albums.rawValue), !hasMembershipParts {
            for name in albums { memberships[name] = true }
        }
        return memberships
    }

    /// One of the photo's images as a change names it, and where it is, to be read again when
    /// it is written into the folder (a first sync of a large store holds one image at a time).
    private func publishedImage(
        of id: String, user: Bool, _ images: inout [String: (id: String, user: Bool)], reader: StoreReader?
    ) throws -> ImageReference {
        let bytes = try imageBytes(of: id, user: user, reader: reader)
        let reference = ImageReference(sha256: SyncFolder.digest(bytes), bytes: bytes.count)
        images[reference.sha256] = (id, user)
        return reference
    }

    /// The bytes of one of a liked photo's images, read through `reader` when there is one (the
    /// store opened once for many reads).
    func imageBytes(of id: String, user: Bool, reader: StoreReader? = nil) throws -> [UInt8] {
        let read =
            try reader.map { reader in try reader.image(ofPhoto: id, user: user) }
            ?? (try store.file(user ? .userImage : .image, of: id))?.read
        switch read {
        case .whole(let data)?: return Array(data)
        case .damaged(let reason)?:
            throw StoreError.damagedImage(file: id, reason: reason)
        case nil:
            throw StoreError.notLiked(id: id)
        }
    }

    static let compactEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
