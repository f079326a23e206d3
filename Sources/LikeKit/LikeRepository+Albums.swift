// Notes and albums: changes to a liked photo that keep its images.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// An album as ``LikeRepository/albums()-81hsa`` lists it: its size and its newest photo.
public struct AlbumSummary: Sendable, Hashable {
    /// The album's name.
    public var name: AlbumName
    /// How many liked photos are in it.
    public var count: Int
    /// The bytes of their images together.
    public var bytes: Int
    /// When the album's most recently liked photo was liked.
    public var newest: Date
    /// The album's most recently liked photo, its cover; `nil` only when that record could not be
    /// read (it was unliked a moment ago, or it is damaged).
    public var cover: LikeRecord?
}

extension LikeRepository {
    /// Sets or removes a liked photo's note, keeping everything else.
    ///
    /// ```swift
    /// try repository.setNote("Lisbon, the first evening", for: id)
    /// try repository.setNote(nil, for: id)  // removes it
    /// ```
    ///
    /// - Parameters:
    ///   - note: The new note, or `nil` to remove the note.
    ///   - id: The liked photo.
    /// - Returns: The ``LikeChange/Kind/updated`` change, or `nil` when the photo had that note
    ///   already (nothing is written then).
    /// - Throws: ``LikeRepositoryError``: `notLiked`, `invalidNote` for a blank note, one longer
    ///   than 10,000 UTF-8 bytes or with control characters other than line breaks and tabs;
    ///   `damagedRecord`, `storeBusy`, `io`.
    @discardableResult
    public func setNote(_ note: String?, for id: PhotoID) throws -> LikeChange? {
        let request = try LikeRequest(id: id, note: note.map(LikeRequest.NoteEdit.set) ?? .clear)
        return try store.withWriteSession { session in try session.edit(request, over: session.existingRecord(id)).map(publishing) }
    }

    /// Puts liked photos in an album, which exists from then on.
    ///
    /// Every photo must be liked; if one is not, nothing changes. Photos in the album already are
    /// left as they are. Each photo's change is durable and atomic on its own: a crash or a
    /// failing disk part way leaves some of the photos added, each whole.
    ///
    /// - Parameters:
    ///   - ids: The photos, liked.
    ///   - album: The album.
    /// - Returns: One ``LikeChange/Kind/updated`` change for each photo added.
    /// - Throws: ``LikeRepositoryError``: `notLiked` naming the first photo that is not liked;
    ///   `damagedRecord`, `storeBusy`, `io`.
    @discardableResult
    public func addPhotos(_ ids: [PhotoID], toAlbum album: AlbumName) throws -> [LikeChange] {
        try editAlbums(ids) { _, id in try LikeRequest(id: id, addAlbums: [album]) }
    }

    /// Takes photos out of an album; an album left with no photo no longer exists.
    ///
    /// Every photo must be liked and in the album; if one is not, nothing changes. Unliking a
    /// photo also takes it out of all its albums.
    ///
    /// - Parameters:
    ///   - ids: The photos, each in the album.
    ///   - album: The album.
    /// - Returns: One ``LikeChange/Kind/updated`` change for each photo.
    /// - Throws: ``LikeRepositoryError``: `notLiked`, `notInAlbum` naming the first photo that is
    ///   not in it; `damagedRecord`, `storeBusy`, `io`.
    @discardableResult
    public func removePhotos(_ ids: [PhotoID], fromAlbum album: AlbumName) throws -> [LikeChange] {
        try editAlbums(ids) { existing, id in
            guard existing.albums.contains(album) else { throw LikeRepositoryError.notInAlbum(id: id, album: album) }
            return try LikeRequest(id: id, removeAlbums: [album])
        }
    }

    /// Reads every photo's record and makes its request first (`request` throws to refuse; a
    /// photo not liked is refused here), then changes them one by one under one lock, each change
    /// flushed on its own: a failure then leaves its photo as it was.
    private func editAlbums(_ ids: [PhotoID], request: (StoredRecord, PhotoID) throws -> LikeRequest) throws -> [LikeChange] {
        var seen: Set<String> = []
        let unique = ids.filter { seen.insert($0.storageKey).inserted }
        guard !unique.isEmpty else { return [] }
        return try store.withWriteSession { session in
            let edits = try unique.map { id in
                let existing = try session.existingRecord(id)
                return (request: try request(existing, id), existing: existing)
            }
            var changes: [LikeChange] = []
            var committed: [StoredRecord] = []
            defer { if !changes.isEmpty { observers.changed(committed) } }
            for edit in edits {
                if let change = try session.edit(edit.request, over: edit.existing) {
                    committed += change.record.map { [$0] } ?? []
                    changes.append(publicChange(change))
                }
            }
            return changes
        }
    }

    /// The albums, each with its count, bytes and newest photo, sorted by name as people expect:
    /// ignoring case and accents (`apple`, `Été`, `Zoo`), the same in every locale.
    ///
    /// Counted in one read of the catalog: only each album's cover record is decoded.
    ///
    /// - Throws: ``LikeRepositoryError/io(action:path:code:)`` when the store cannot be read.
    public func albums() throws -> [AlbumSummary] {
        guard let opened = try store.open(), let records = opened.records else { return [] }
        var groups: [AlbumName: (count: Int, bytes: Int64, newest: ListingKey)] = [:]
        if let counted = try opened.catalogAlbums() {
            for album in counted {
                guard let bytes = PercentEscaping.albumName.unescape(album.name.withUnsafeBufferPointer { $0 }),
                    let name = try? AlbumName(String(decoding: bytes, as: UTF8.self))
                else { continue }
                groups[name] = (album.count, album.bytes, album.newest)
            }
        } else {
            var damage: [String] = []
            for entry in try opened.liveEntries(damage: &damage) {
                for album in entry.albums {
                    var group = groups[album] ?? (0, 0, entry.listingKey)
                    group.count += 1
                    group.bytes += entry.bytes
                    group.newest = max(group.newest, entry.listingKey)
                    groups[album] = group
                }
            }
        }
        return groups.sorted { AlbumName.listedBefore($0.key, $1.key) }.map { album, group in
            let cover = try? records.read(key: group.newest.key).map(publicRecord)
            return AlbumSummary(name: album, count: group.count, bytes: Int(group.bytes), newest: Timestamp.date(group.newest.likedAt), cover: cover)
        }
    }
}
