// The `async` overloads of every throwing method: the same work, run on the repository's own
// Dispatch queues (BlockingWork.swift), so that awaiting never holds a thread of Swift's
// cooperative pool, even while another process holds the store's lock.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension LikeRepository {
    // MARK: Changes

    /// Likes a photo, storing its JPEG; see ``like(_:image:userImage:note:photo:albums:)``.
    ///
    /// The work runs on the repository's own queue: awaiting it never blocks a thread of the
    /// cooperative pool, even while another process holds the store's lock. Cancelling the
    /// awaiting task stops a wait for the lock with `CancellationError` and leaves the store as
    /// it was; a change already under way finishes.
    @discardableResult
    public func like(
        _ id: PhotoID, image: Data?, userImage: Data? = nil, note: String? = nil, photo: PhotoMetadata? = nil, albums: [AlbumName] = []
    ) async throws -> LikeChange {
        try await work.change { try self.like(id, image: image, userImage: userImage, note: note, photo: photo, albums: albums) }
    }

    /// Likes a photo whose JPEG is in a file, copying it a piece at a time; see
    /// ``like(_:imageFile:userImageFile:note:photo:albums:)``. Cancelling stops a lock wait.
    @discardableResult
    public func like(
        _ id: PhotoID, imageFile: URL, userImageFile: URL? = nil, note: String? = nil, photo: PhotoMetadata? = nil, albums: [AlbumName] = []
    ) async throws -> LikeChange {
        try await work.change {
            try self.like(id, imageFile: imageFile, userImageFile: userImageFile, note: note, photo: photo, albums: albums)
        }
    }

    /// Likes many photos; see ``likeAll(_:)``. Cancelling stops a lock wait.
    public func likeAll(_ items: [LikeItem]) async throws -> [Result<LikeChange, LikeRepositoryError>] {
        try await work.change { try self.likeAll(items) }
    }

    /// Unlikes a photo; see ``unlike(_:)``. Cancelling stops a lock wait.
    @discardableResult
    public func unlike(_ id: PhotoID) async throws -> LikeChange {
        try await work.change { try self.unlike(id) }
    }

    /// The heart button; see ``toggle(_:image:userImage:note:photo:albums:)``. Cancelling stops a
    /// lock wait.
    @discardableResult
    public func toggle(
        _ id: PhotoID, image: Data?, userImage: Data? = nil, note: String? = nil, photo: PhotoMetadata? = nil, albums: [AlbumName] = []
    ) async throws -> LikeChange {
        try await work.change { try self.toggle(id, image: image, userImage: userImage, note: note, photo: photo, albums: albums) }
    }

    /// The heart button for an app that downloads the JPEG only when it is needed; see
    /// ``toggle(_:note:photo:albums:image:)``.
    ///
    /// `image` is awaited in the calling task, only when the photo is not liked and before the
    /// store is locked, so a download never holds up another process. The call stays on the
    /// caller's actor (`isolation`, filled in by the compiler), so `image` may use the caller's
    /// state, a main-actor view model's for instance.
    ///
    /// ```swift
    /// let change = try await repository.toggle(photo.id) {
    ///     try await URLSession.shared.data(from: photo.imageURL).0
    /// }
    /// ```
    @discardableResult
    public func toggle(
        _ id: PhotoID, note: String? = nil, photo: PhotoMetadata? = nil, albums: [AlbumName] = [],
        isolation: isolated (any Actor)? = #isolation, image: () async throws -> Data
    ) async throws -> LikeChange {
        var request: StoreRequest?
        if try await !isLiked(id) {
            request = try storeRequest(id, image: try await image(), userImage: nil, note: note, photo: photo, albums: albums)
        }
        while true {
            let pending = request
            if let change = try await work.change({ try self.toggleCommit(id, pending) }) { return change }
            // Unliked by another process since it was found liked: now the image is needed.
            request = try storeRequest(id, image: try await image(), userImage: nil, note: note, photo: photo, albums: albums)
        }
    }

    /// Sets or removes a photo's note; see ``setNote(_:for:)``. Cancelling stops a lock wait.
    @discardableResult
    public func setNote(_ note: String?, for id: PhotoID) async throws -> LikeChange? {
        try await work.change { try self.setNote(note, for: id) }
    }

    /// Puts liked photos in an album; see ``addPhotos(_:toAlbum:)``. Cancelling stops a lock wait.
    @discardableResult
    public func addPhotos(_ ids: [PhotoID], toAlbum album: AlbumName) async throws -> [LikeChange] {
        try await work.change { try self.addPhotos(ids, toAlbum: album) }
    }

    /// Takes photos out of an album; see ``removePhotos(_:fromAlbum:)``. Cancelling stops a lock
    /// wait.
    @discardableResult
    public func removePhotos(_ ids: [PhotoID], fromAlbum album: AlbumName) async throws -> [LikeChange] {
        try await work.change { try self.removePhotos(ids, fromAlbum: album) }
    }

    /// Chooses an album's cover, or goes back to its newest photo; see
    /// ``setCover(_:ofAlbum:)``. Cancelling stops a lock wait.
    @discardableResult
    public func setCover(_ id: PhotoID?, ofAlbum album: AlbumName) async throws -> [LikeChange] {
        try await work.change { try self.setCover(id, ofAlbum: album) }
    }

    /// Renames an album on every photo in it, its chosen cover kept; the blocking
    /// `renameAlbum(_:to:)` says what it changes. Cancelling stops a lock wait.
    @discardableResult
    public func renameAlbum(_ album: AlbumName, to newName: AlbumName) async throws -> [LikeChange] {
        try await work.change { try self.renameAlbum(album, to: newName) }
    }

    /// Takes every photo out of an album; the blocking `deleteAlbum(_:)` says what it changes.
    /// Cancelling stops a lock wait.
    @discardableResult
    public func deleteAlbum(_ album: AlbumName) async throws -> [LikeChange] {
        try await work.change { try self.deleteAlbum(album) }
    }

    /// Sets how many bytes of renditions the store keeps; see the blocking
    /// `setRenditionBudget(_:)`.
    public func setRenditionBudget(_ bytes: Int?) async throws {
        try await work.change { try self.setRenditionBudget(bytes) }
    }

    /// Reads the camera facts of photos liked before the store kept them, for about `seconds`;
    /// see the blocking `readImageFacts(within:)`.
    public func readImageFacts(within seconds: Double) async throws -> ImageFactsProgress {
        try await work.change { try self.readImageFacts(within: seconds) }
    }

    /// Makes the thumbnails of `ids` that are missing; see the blocking `makeThumbnails(for:)`.
    public func makeThumbnails(for ids: [PhotoID]) async throws -> ThumbnailReport {
        try await work.change { try self.makeThumbnails(for: ids) }
    }

    /// Likes `count` sample photos made here; see the blocking `likeSamplePhotos(count:)`. For a
    /// preview or a first run: the photos are drawn and encoded off the caller's actor.
    @discardableResult
    public func likeSamplePhotos(count: Int = 12) async throws -> [LikeChange] {
        try await work.change { try self.likeSamplePhotos(count: count) }
    }

    // MARK: Reading

    /// Whether the photo is liked; see ``isLiked(_:)``.
    public func isLiked(_ id: PhotoID) async throws -> Bool {
        try await work.brief { try self.isLiked(id) }
    }

    /// Which of `ids` are liked; see ``likedIDs(among:)``.
    public func likedIDs(among ids: some Sequence<PhotoID>) async throws -> Set<PhotoID> {
        let ids = Array(ids)
        return try await work.brief { try self.likedIDs(among: ids) }
    }

    /// The record of a liked photo; see ``record(for:)``.
    public func record(for id: PhotoID) async throws -> LikeRecord? {
        try await work.brief { try self.record(for: id) }
    }

    /// The thumbnail of a liked photo, made now if missing; see ``thumbnail(for:)-7l7hw``.
    public func thumbnail(for id: PhotoID) async throws -> StoredImage? {
        try await work.read { try self.thumbnail(for: id) }
    }

    /// The bytes of one of a liked photo's files, checked; see ``file(_:of:)-(PhotoFile.Kind,_)``.
    public func file(_ kind: PhotoFile.Kind, of id: PhotoID) async throws -> PhotoFile? {
        try await work.read { try self.file(kind, of: id) }
    }

    /// Lists liked photos; see ``list(_:)``. Cancelling stops a wait for the store's lock.
    public func list(_ query: LikeQuery = LikeQuery()) async throws -> LikeListing {
        try await work.read { try self.list(query) }
    }

    /// The collection's statistics; see ``statistics()``.
    public func statistics() async throws -> LikeStatistics {
        try await work.read { try self.statistics() }
    }

    /// The albums; see ``albums()``.
    public func albums() async throws -> [AlbumSummary] {
        try await work.read { try self.albums() }
    }

    /// How many photos were liked each month; see the blocking `months(_:utcOffset:)`.
    public func months(_ query: LikeQuery = LikeQuery(), utcOffset: Int = 0) async throws -> [LikeMonth] {
        try await work.read { try self.months(query, utcOffset: utcOffset) }
    }

    /// Checks a JPEG; see ``checkJPEG(_:)``. Runs off the cooperative pool, for large images.
    public static func checkJPEG(_ data: Data) async throws -> (width: Int, height: Int) {
        let size = try await BlockingWork.shared.read { try Self.checkJPEG(data) }
        return (size.width, size.height)
    }

    // MARK: Maintenance

    /// Removes orphan files; see ``purge(dryRun:)``.
    @discardableResult
    public func purge(dryRun: Bool = false) async throws -> PurgeReport {
        try await work.change { try self.purge(dryRun: dryRun) }
    }

    /// Rebuilds the journal from the records; see ``rebuildIndex()``.
    @discardableResult
    public func rebuildIndex() async throws -> Int {
        try await work.change { try self.rebuildIndex() }
    }

    /// Checks every record and image; see ``verify()``.
    public func verify() async throws -> VerificationReport {
        try await work.read { try self.verify() }
    }

    /// Brings a damaged store back; see ``repair(dryRun:)``.
    @discardableResult
    public func repair(dryRun: Bool = false) async throws -> RepairReport {
        try await work.change { try self.repair(dryRun: dryRun) }
    }

    /// Restores an export into this store; see ``restore(from:progress:)-1yizm``. Cancelling stops a
    /// wait for the lock between batches; the photos restored by then stay restored.
    @discardableResult
    public func restore(from directory: URL, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) async throws -> RestoreReport {
        try await work.change { try self.restore(from: directory, progress: progress) }
    }

    /// Copies liked photos into a folder; see ``export(to:query:)``.
    @discardableResult
    public func export(to directory: URL, query: LikeQuery = LikeQuery()) async throws -> ExportReport {
        try await work.read { try self.export(to: directory, query: query) }
    }
}
