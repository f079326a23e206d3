// Notes and albums: changes to a liked photo that keep its images.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// An album as ``LikeRepository/albums()-81hsa`` lists it: its size, its newest photo and its
/// cover.
public struct AlbumSummary: Sendable, Hashable {
    /// The album's name.
    public var name: AlbumName
    /// How many liked photos are in it.
    public var count: Int
    /// The bytes of their images together.
    public var bytes: Int
    /// When the album's most recently liked photo was liked.
    public var newest: Date
    /// The album's cover: the photo chosen for it (see ``LikeRepository/setCover(_:ofAlbum:)-7gtgk``),
    /// else its most recently liked photo; `nil` only when that record could not be read (it was
    /// unliked a moment ago, or it is damaged).
    public var cover: LikeRecord?
    /// Whether ``cover`` was chosen, rather than the newest photo.
    public var coverChosen = false
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
        if let note { try Note.validate(note) }
        let edit = note.map(StoreRequest.NoteEdit.set) ?? .clear
        let changes = try translating {
            try store.edit([id.rawValue], onCommit: observers.changed) { _, id in StoreRequest(id: id, note: edit) }
        }
        return changes.first.map(publicChange)
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
        try editAlbums(ids) { _, id in StoreRequest(id: id, addAlbums: [album.rawValue]) }
    }

    /// Takes photos out of an album (its name matched without regard to case); an album left with
    /// no photo no longer exists.
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
            let names = existing.albums.filter { Names.sameAlbum($0, album.rawValue) }
            guard !names.isEmpty else { throw LikeRepositoryError.notInAlbum(id: PhotoID(stored: id), album: album) }
            return StoreRequest(id: id, removeAlbums: names)
        }
    }

    /// Renames an album: every photo in it (its name matched without regard to case) is taken
    /// out of it and put in `newName`, which may be an album already (the two become one). The
    /// photos stay liked.
    ///
    /// ```swift
    /// try repository.renameAlbum(try AlbumName("lisbon"), to: try AlbumName("Lisbon 2026"))
    /// ```
    ///
    /// Each photo's change is durable and atomic on its own: a crash part way leaves some photos
    /// in the new album and the rest in the old one, each whole; renaming again finishes it.
    ///
    /// - Parameters:
    ///   - album: The album to rename.
    ///   - newName: Its new name.
    /// - Returns: One ``LikeChange/Kind/updated`` change for each photo moved (none when only
    ///   the same name was given).
    /// - Throws: ``LikeRepositoryError``: `noSuchAlbum` when no liked photo is in `album`;
    ///   `damagedRecord`, `storeBusy`, `io`.
    @discardableResult
    public func renameAlbum(_ album: AlbumName, to newName: AlbumName) throws -> [LikeChange] {
        // The album's chosen cover stays its cover under the new name (of two choices made at
        // once on two devices, the one it shows; of two spellings of its name, the first).
        let cover = try translating { try store.albums() }.filter { Names.sameAlbum($0.name, album.rawValue) && $0.coverChosen }
            .min { Names.albumPrecedes($0.name, $1.name) }?.cover?.id
        return try editEveryPhoto(in: album) { existing, id in
            let wasCover = id == cover
            return StoreRequest(
                id: id, addAlbums: [newName.rawValue],
                removeAlbums: existing.albums.filter { Names.sameAlbum($0, album.rawValue) && $0 != newName.rawValue },
                chooseCovers: wasCover ? [newName.rawValue] : [])
        }
    }

    /// Chooses an album's cover (its name matched without regard to case), or, with `nil`, goes
    /// back to its newest photo.
    ///
    /// ```swift
    /// try repository.setCover(id, ofAlbum: try AlbumName("Lisbon"))
    /// ```
    ///
    /// The choice is kept in the photo's record and synced as album membership is: the newest
    /// choice made on any device is the cover. It holds while the photo is in the album: taking
    /// the photo out of it (or unliking it) makes the newest photo the cover again, and a rename
    /// keeps it.
    ///
    /// - Parameters:
    ///   - id: The photo, liked and in the album; `nil` for the album's newest photo.
    ///   - album: The album.
    /// - Returns: One ``LikeChange/Kind/updated`` change for each photo whose record changed:
    ///   the new cover, and the photo that was chosen before (none when `id` was the cover).
    /// - Throws: ``LikeRepositoryError``: `notLiked`, `notInAlbum` when the photo is not in the
    ///   album; `noSuchAlbum` when no liked photo is in it (checked first); `damagedRecord`, `storeBusy`, `io`.
    @discardableResult
    public func setCover(_ id: PhotoID?, ofAlbum album: AlbumName) throws -> [LikeChange] {
        let named = try translating { try store.albums() }.filter { Names.sameAlbum($0.name, album.rawValue) }
        guard !named.isEmpty else { throw LikeRepositoryError.noSuchAlbum(album) }
        // Every choice made before, of any spelling of the name, taken back: one choice stands.
        let earlier = named.flatMap(\.chosenCovers).filter { $0.id != id?.rawValue }.map { PhotoID(stored: $0.id) }
        // The cover already, and the only choice: nothing to change. (Chosen, but not the only
        // choice, it is chosen again: the newest choice anywhere is the cover.)
        if let id, earlier.isEmpty, named.contains(where: { $0.coverChosen && $0.cover?.id == id.rawValue }) { return [] }
        return try editAlbums((id.map { [$0] } ?? []) + earlier) { existing, stored in
            let names = existing.albums.filter { Names.sameAlbum($0, album.rawValue) }
            if stored == id?.rawValue {
                guard !names.isEmpty else { throw LikeRepositoryError.notInAlbum(id: PhotoID(stored: stored), album: album) }
                return StoreRequest(id: stored, chooseCovers: names)
            }
            return StoreRequest(id: stored, dropCovers: existing.covers.filter { Names.sameAlbum($0, album.rawValue) })
        }
    }

    /// Deletes an album: every photo in it (its name matched without regard to case) is taken
    /// out of it. The photos stay liked, in their other albums.
    ///
    /// - Parameter album: The album to delete.
    /// - Returns: One ``LikeChange/Kind/updated`` change for each photo taken out.
    /// - Throws: ``LikeRepositoryError``: `noSuchAlbum` when no liked photo is in `album`;
    ///   `damagedRecord`, `storeBusy`, `io`.
    @discardableResult
    public func deleteAlbum(_ album: AlbumName) throws -> [LikeChange] {
        try editEveryPhoto(in: album) { existing, id in
            StoreRequest(id: id, removeAlbums: existing.albums.filter { Names.sameAlbum($0, album.rawValue) })
        }
    }

    /// Changes every photo in `album` as `request` says, or throws `noSuchAlbum` when it has none.
    private func editEveryPhoto(in album: AlbumName, request: (StoredRecord, String) throws -> StoreRequest) throws -> [LikeChange] {
        let ids = try list(LikeQuery(album: album)).records.map(\.id)
        guard !ids.isEmpty else { throw LikeRepositoryError.noSuchAlbum(album) }
        return try editAlbums(ids, request: request)
    }

    /// Reads every photo's record and makes its request first (`request` throws to refuse; a
    /// photo not liked is refused here), then changes them one by one under one lock, each change
    /// flushed on its own: a failure then leaves its photo as it was.
    private func editAlbums(_ ids: [PhotoID], request: (StoredRecord, String) throws -> StoreRequest) throws -> [LikeChange] {
        try translating { try store.edit(ids.map(\.rawValue), onCommit: observers.changed, request: request) }.map(publicChange)
    }

    /// The albums, each with its count, bytes and newest photo, sorted by name as people expect:
    /// ignoring case and accents (`apple`, `Été`, `Zoo`), the same in every locale.
    ///
    /// Counted in one read of the catalog: only each album's cover record is decoded.
    ///
    /// - Throws: ``LikeRepositoryError/io(action:path:code:)`` when the store cannot be read.
    public func albums() throws -> [AlbumSummary] {
        let albums = try translating { try store.albums() }.map { album in
            AlbumSummary(
                name: AlbumName(stored: album.name), count: album.count, bytes: album.bytes, newest: Timestamp.date(album.newest),
                cover: album.cover.map { publicRecord($0) }, coverChosen: album.coverChosen)
        }
        return albums.sorted { AlbumName.listedBefore($0.name, $1.name) }
    }
}
