// Owns writing other devices' changes into the store: each photo a round touched written as the
// merge left it (liked anew with its date, updated part by part, or unliked), each part with the
// stamp it was merged with, so that observers hear it from the device that made it. Called by a
// sync (StoreSync) after its round, and to finish what a sync that died was writing.

import LikeSync

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension StoreSync {
    /// Writes each photo of `touched` (a group of a round's) as the merge left it. Returns the
    /// photos it could not write because an image they need is gone from the folder (a folder
    /// emptied since they were merged): they stay to be written by a later sync; and whether it
    /// wrote anything, so that the journal is to be sorted once the round has written every group
    /// (written anew as every such journal is, keeping the unlikes no sync has published yet).
    /// Photos liked anew at their first dates leave it unsorted, and every other change of a
    /// merge leaves it so too: sorted once at the end, not before each change.
    ///
    /// Photos liked anew are committed together, a batch of at most ``mergedBatch`` photos and
    /// ``mergedBatchBytes`` of images at a time, each batch flushed once: a device joining a
    /// collection of 100,000 small photos makes about 200 commits, not 100,000 (large photos
    /// make a commit of each 16 MB).
    func apply(_ touched: [String: PhotoState?], devices: [String], from folder: SyncFolder, _ shards: PhotoShards, engine: DeviceSyncState)
        throws -> (waiting: [String], wrote: Bool)
    {
        var waiting: [String] = []
        let sources = devices + [engine.device]
        var batch: [(request: StoreRequest, likedAt: Int64, state: PhotoState)] = []
        var batchBytes = 0
        var wrote = false
        func commitBatch() throws {
            guard !batch.isEmpty else { return }
            let records = try store.restore(batch.map { ($0.request, $0.likedAt) }, onCommit: onCommit)
            for (entry, record) in zip(batch, records) { notePublished(entry.request.id, entry.state, written: record, shards) }
            wrote = true
            batch = []
            batchBytes = 0
        }
        try shards.load(touched.keys)
        for (id, state) in touched.sorted(by: { $0.key < $1.key }) {
            let current = try store.storedRecord(for: id)
            guard let state else {
                let unlike = engine.histories[id]?.lastUnlike?.description
                if current != nil {
                    _ = try store.unlike(id, stamp: unlike, amongRestores: true, onCommit: onCommit)
                    wrote = true
                }
                shards.photos.forget(id)
                continue
            }
            guard let request = try mergedRequest(id, state, current, shards.photos, from: folder, sources) else {
                waiting.append(id)
                continue
            }
            // Liked on two devices apart: the first like's date wins, and only a like of a photo
            // not liked gives a date, so the photo is liked again whole. (Half done, the next
            // sync finishes it: see `applying`.)
            if current == nil || current?.likedAt != state.likedAt {
                if current != nil {
                    let stamp = state.stamps[RecordStamps.liked]?.description
                    _ = try store.unlike(id, stamp: stamp, amongRestores: true, onCommit: onCommit)
                    wrote = true
                }
                var whole = request
                whole.removeAlbums = []
                batch.append((whole, state.likedAt, state))
                batchBytes += (whole.image?.byteCount ?? 0) + (whole.userImage?.byteCount ?? 0)
                if batch.count >= Self.mergedBatch || batchBytes >= Self.mergedBatchBytes { try commitBatch() }
            } else {
                let written = try store.like(request, amongRestores: true, onCommit: onCommit).record ?? store.storedRecord(for: id)
                wrote = true
                notePublished(id, state, written: written, shards)
            }
        }
        try commitBatch()
        return (waiting, wrote)
    }

    /// How many photos liked anew one commit of a merge holds, at most.
    static let mergedBatch = 512
    /// How many bytes of images one commit of a merge holds in memory, at most (one photo larger
    /// than that is a commit of its own).
    static let mergedBatchBytes = 16 << 20

    /// Takes note of a merged photo as written: its images, and its parts merged (a part of this
    /// store's own as the last sync published it: one changed while this sync ran is still to
    /// publish).
    private func notePublished(_ id: String, _ state: PhotoState, written record: StoredRecord?, _ shards: PhotoShards) {
        shards.photos.images[id] = state.image.sha256
        shards.photos.userImages[id] = state.userImage?.sha256
        let before = shards.photos.published[id] ?? [:]
        let written = record?.stamps?.values ?? [:]
        shards.photos.notePublished(
            id, stamps: written.filter { $0.value.contains(".") }.merging(before.filter { written[$0.key] == $0.value }) { new, _ in new })
    }

    /// The request that makes the stored photo what the merge left: its images where they
    /// changed (from the folder, or the store's own copy), note, metadata, albums and covers, each part
    /// with its stamp. `nil` while an image it needs is in neither.
    private func mergedRequest(
        _ id: String, _ state: PhotoState, _ current: StoredRecord?, _ photos: SavedPhotos, from folder: SyncFolder, _ sources: [String]
    ) throws -> StoreRequest? {
        var request = StoreRequest(id: id, image: nil, userImage: nil, note: nil, photo: nil, albums: [])
        request.stamps = state.stamps.mapValues(\.description)
        let anew = current == nil || current?.likedAt != state.likedAt
        // Where what is kept of the photo says the store has the image, the store is asked too:
        // a sync killed after writing the store and before keeping that leaves it stale.
        if try anew || photos.images[id] != state.image.sha256 || storeImage(id, current, matching: state.image, user: false) == nil {
            guard
                let bytes = try folder.image(state.image, devices: sources, publishedBy: state.stamps["image"]?.device)
                    ?? storeImage(id, current, matching: state.image, user: false)
            else {
                return nil
            }
            request.image = try StoreRequest.Image(Data(bytes), kind: .image)
        }
        if let user = state.userImage,
            try anew || photos.userImages[id] != user.sha256 || storeImage(id, current, matching: user, user: true) == nil
        {
            guard
                let bytes = try folder.image(user, devices: sources, publishedBy: state.stamps["userImage"]?.device)
                    ?? storeImage(id, current, matching: user, user: true)
            else { return nil }
            request.userImage = try StoreRequest.Image(Data(bytes), kind: .userImage)
        }
        // What the merge cleared is cleared: a user image, the metadata (replaced whole).
        request.clearsUserImage = state.userImage == nil
        request.note = state.note.map(StoreRequest.NoteEdit.set) ?? .clear
        request.photo = try state.photo.map { try JSONDecoder().decode(StoredPhoto.self, from: Data($0.utf8)) }
        request.replacesPhoto = true
        request.addAlbums = state.albums.compactMap(Names.album)
        request.removeAlbums = (current?.albums ?? []).filter { !state.albums.contains($0) }
        request.setsCovers = state.covers.compactMap(Names.album)
        return request
    }

    /// The store's own copy of an image, when it is the one named.
    private func storeImage(_ id: String, _ current: StoredRecord?, matching reference: ImageReference, user: Bool) throws -> [UInt8]? {
        // Its length first, from the record: an image of another length is not read.
        guard let current, (user ? current.userImage?.bytes : current.image.bytes) == reference.bytes,
            let bytes = try? imageBytes(of: id, user: user), bytes.count == reference.bytes,
            SyncFolder.digest(bytes) == reference.sha256
        else { return nil }
        return bytes
    }
}
