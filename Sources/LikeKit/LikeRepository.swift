// The public entry point: a store of liked photos, their JPEGs and records kept in step.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif
import JPEGCodec

/// A store of favorite photos: JSON records and their JPEG files in one directory, kept in step
/// through crashes and concurrent processes.
///
/// ```swift
/// let repository = LikeRepository(directory: LikeRepository.defaultDirectory)
/// try repository.like(try PhotoID("Dwu85P9SOIk"), image: jpegData, note: "Our first trip")
/// let newest = try repository.list(LikeQuery(limit: 20)).records
/// try repository.unlike(try PhotoID("Dwu85P9SOIk"))
/// ```
///
/// Every change is durable when it returns (unless ``Durability/relaxed`` is chosen), and a
/// crash at any instant leaves either the state before the change or the state after it, plus at
/// worst orphan files that ``purge(dryRun:)-3p5qs`` removes. Changes take an exclusive lock on the
/// store, so several processes may share it; within a process a repository may be used from any
/// thread or task. Reading never writes, so it works on a read-only store.
///
/// Every throwing method also has an `async` overload with the same name and labels, which runs
/// the work on the repository's own queues: awaiting it never holds a thread of Swift's
/// cooperative pool, and cancelling the awaiting task stops a wait for another process's lock.
/// See <doc:UsingLikeKitInAnApp>.
///
/// The cost of a like, unlike or toggle does not grow with the collection, and listing a page
/// decodes only that page's records. See <doc:Design> for the layout on disk.
public final class LikeRepository: Sendable {
    /// The store's directory; created with mode 0700 on the first change.
    public let directory: URL
    /// Whether changes are flushed to stable storage before they return.
    public let durability: Durability
    /// How long a change waits for another process's lock before it fails with
    /// ``LikeRepositoryError/storeBusy(directory:waitedSeconds:)``; 10 seconds by default.
    public let lockTimeout: Double

    /// The store below this façade: its directories, locks, journal and records.
    let store: Store
    let observers: ObserverRegistry
    /// Where the `async` overloads run their blocking work.
    let work: BlockingWork

    /// Opens the store in `directory`; nothing is created until the first change.
    ///
    /// - Parameters:
    ///   - directory: The store's directory, for example ``defaultDirectory`` or
    ///     ``defaultDirectory(appGroup:)``.
    ///   - durability: ``Durability/full`` (the default) or ``Durability/relaxed``.
    ///   - lockTimeout: Seconds to wait for another process's lock; 10 by default.
    public convenience init(directory: URL, durability: Durability = .full, lockTimeout: Double = 10) {
        self.init(directory: directory, durability: durability, lockTimeout: lockTimeout, faults: nil)
    }

    /// A repository that flushes as `flush` says whatever file system the store is on: for the
    /// test suite's power-cut file system (FUSE), reached through the `likes` binary, where
    /// ``FlushStrategy/wholeFileSystem`` could not otherwise be tested. Each `syncfs` is then
    /// followed by an `fdatasync` of the store's folder, which that file system takes as one.
    package convenience init(directory: URL, durability: Durability, lockTimeout: Double, forcingFlush flush: FlushStrategy) {
        self.init(directory: directory, durability: durability, lockTimeout: lockTimeout, faults: FaultInjector(flushStrategy: flush))
    }

    init(directory: URL, durability: Durability, lockTimeout: Double, faults: FaultInjector?) {
        self.directory = directory.standardizedFileURL
        self.durability = durability
        self.lockTimeout = lockTimeout
        store = Store(path: self.directory.path, durable: durability == .full, lockTimeout: lockTimeout, faults: faults)
        observers = ObserverRegistry(store: store, directory: self.directory)
        work = BlockingWork(label: "LikeKit.LikeRepository")
    }

    var isDurable: Bool { store.durable }
    var faults: FaultInjector? { store.faults }

    // MARK: Changes

    /// Likes a photo, storing its JPEG; on a photo already liked, updates what is given.
    ///
    /// A first like needs `image`. Liking again replaces the image if one is given, the user
    /// image if one is given, the note if one is given, and the metadata fields that `photo`
    /// sets; it keeps the original `likedAt`.
    ///
    /// ```swift
    /// let change = try repository.like(id, image: jpeg, photo: PhotoMetadata(photographer: "Ann"))
    /// print(change.kind) // .liked, or .updated if it was liked already
    /// ```
    ///
    /// - Parameters:
    ///   - id: The photo's id.
    ///   - image: The photo's JPEG; may be `nil` only when the photo is liked already.
    ///   - userImage: The photographer's profile picture, a JPEG.
    ///   - note: The person's note; replaces the one the photo has. See ``setNote(_:for:)-2m4f4`` to
    ///     remove it.
    ///   - photo: Metadata from the photo's source.
    ///   - albums: Albums to put the photo in, besides those it is in already.
    /// - Returns: The change made: ``LikeChange/Kind/liked`` or ``LikeChange/Kind/updated``,
    ///   with the record as stored; ``LikeChange/Kind/unchanged``, writing nothing, when the photo
    ///   has all that is given already (the same image bytes, note, albums and metadata).
    /// - Throws: ``LikeRepositoryError``: `notJPEG` for an image that is not a complete JPEG,
    ///   `imageRequired` for a first like without an image, `invalidNote`, `storeBusy`, `io`.
    @discardableResult
    public func like(
        _ id: PhotoID, image: Data?, userImage: Data? = nil, note: String? = nil, photo: PhotoMetadata? = nil, albums: [AlbumName] = []
    ) throws -> LikeChange {
        let request = try LikeRequest(id: id, image: image, userImage: userImage, note: note, photo: photo, albums: albums)
        return try store.withWriteSession { session in try publishing(session.like(request)) }
    }

    /// Likes a photo whose JPEG is in a file, as ``like(_:image:userImage:note:photo:albums:)-3llxn``
    /// does, copying the file into the store a piece at a time: a photo of any size costs a
    /// megabyte of memory, not its size.
    ///
    /// ```swift
    /// try repository.like(id, imageFile: downloadedFile, note: "From the trip")
    /// ```
    ///
    /// - Parameters:
    ///   - id: The photo's id.
    ///   - imageFile: A JPEG file; it is checked, then copied. If it changes while it is being
    ///     copied, the like fails and the store is left as it was.
    ///   - userImageFile: The photographer's profile picture, a JPEG file.
    ///   - note: The person's note.
    ///   - photo: Metadata from the photo's source.
    ///   - albums: Albums to put the photo in, besides those it is in already.
    /// - Returns: The change made, with the record as stored.
    /// - Throws: ``LikeRepositoryError``: `io` when a file cannot be read, `notJPEG`,
    ///   `invalidNote`, `storeBusy`.
    @discardableResult
    public func like(
        _ id: PhotoID, imageFile: URL, userImageFile: URL? = nil, note: String? = nil, photo: PhotoMetadata? = nil, albums: [AlbumName] = []
    ) throws -> LikeChange {
        let request = try LikeRequest(
            id: id, image: try LikeRequest.Image(file: imageFile.path, kind: .image),
            userImage: try userImageFile.map { try LikeRequest.Image(file: $0.path, kind: .userImage) }, note: note, photo: photo,
            albums: albums)
        return try store.withWriteSession { session in try publishing(session.like(request)) }
    }

    /// Likes many photos: each as ``like(_:image:userImage:note:photo:albums:)-3llxn`` would, with one flush
    /// fewer per photo, for imports.
    ///
    /// Each like is still made durable before its commit, so a crash leaves every photo either
    /// liked or not, whole; the commits are flushed together at the end (and every 32 photos,
    /// when the store's lock is let go so that other processes can take their turn). When the
    /// call returns, every like it reports is durable.
    ///
    /// ```swift
    /// let results = try repository.likeAll(files.map { LikeItem(id: try PhotoID($0.stem), image: $0.data) })
    /// ```
    ///
    /// - Parameter items: The photos to like, in order; an id may appear more than once (the later
    ///   one updates the earlier).
    /// - Returns: For each item, its change, or the error that kept it from being liked (a JPEG
    ///   that is not one, a first like without an image).
    /// - Throws: ``LikeRepositoryError``: `storeBusy` or `io` when the store itself fails; the
    ///   photos liked before that stay liked.
    public func likeAll(_ items: [LikeItem]) throws -> [Result<LikeChange, LikeRepositoryError>] {
        var results: [Result<LikeChange, LikeRepositoryError>?] = Array(repeating: nil, count: items.count)
        var prepared: [(index: Int, request: LikeRequest)] = []
        for (index, item) in items.enumerated() {
            do {
                prepared.append(
                    (
                        index,
                        try LikeRequest(
                            id: item.id, image: item.image, userImage: item.userImage, note: item.note, photo: item.photo, albums: item.albums)
                    ))
            } catch let error as LikeRepositoryError {
                results[index] = .failure(error)
            }
        }
        var start = prepared.startIndex
        while start < prepared.endIndex {
            let chunk = prepared[start..<min(start + 32, prepared.endIndex)]
            start = chunk.endIndex
            try store.withWriteSession { session in
                var storeFailure: LikeRepositoryError?
                var committed: [StoredRecord] = []
                for (index, request) in chunk {
                    do {
                        let change = try session.like(request, flushCommit: false)
                        committed += change.record.map { [$0] } ?? []
                        results[index] = .success(publicChange(change))
                    } catch let error as LikeRepositoryError {
                        switch error {
                        case .io, .storeBusy:
                            storeFailure = error
                        default:
                            results[index] = .failure(error)
                            continue
                        }
                        break
                    }
                }
                observers.changed(committed)
                // The chunk's commits, flushed together, also when a like failed on the way.
                if isDurable { try session.records.directory.sync(commit: true) }
                if let storeFailure { throw storeFailure }
            }
        }
        return results.map { $0! }
    }

    /// Unlikes a photo: removes its record and every image of it.
    ///
    /// - Returns: The ``LikeChange/Kind/unliked`` change, naming the files removed.
    /// - Throws: ``LikeRepositoryError/notLiked(id:)`` when the photo is not liked; `storeBusy`, `io`.
    @discardableResult
    public func unlike(_ id: PhotoID) throws -> LikeChange {
        return try store.withWriteSession { session in try publishing(session.unlike(id)) }
    }

    /// The heart button: unlikes a liked photo, else likes it.
    ///
    /// - Parameters: As for ``like(_:image:userImage:note:photo:albums:)``; they are used only
    ///   when the photo is not liked yet.
    /// - Returns: ``LikeChange/Kind/liked`` or ``LikeChange/Kind/unliked``.
    /// - Throws: ``LikeRepositoryError/imageRequired(id:)`` when the photo is not liked and no
    ///   image is given; `notJPEG`, `invalidNote`, `storeBusy`, `io`.
    @discardableResult
    public func toggle(
        _ id: PhotoID, image: Data?, userImage: Data? = nil, note: String? = nil, photo: PhotoMetadata? = nil, albums: [AlbumName] = []
    ) throws -> LikeChange {
        let request = try LikeRequest(id: id, image: image, userImage: userImage, note: note, photo: photo, albums: albums)
        return try store.withWriteSession { session in
            try publishing(session.isLiked(id) ? try session.unlike(id) : try session.like(request))
        }
    }

    /// The heart button, for an app that has the photo's JPEG only after downloading it:
    /// unlikes a liked photo, else likes it with the JPEG that `image` returns.
    ///
    /// `image` is called only when the photo is not liked, before the store is locked, so a slow
    /// download never holds up another process. Should another process like the photo in the
    /// meantime, the toggle unlikes it: the result is always the state flipped at the commit.
    ///
    /// ```swift
    /// let change = try repository.toggle(id) { try Data(contentsOf: downloadedFile) }
    /// heart.isFilled = change.kind == .liked
    /// ```
    ///
    /// - Parameters:
    ///   - id: The photo's id.
    ///   - note: A note, used only when liking.
    ///   - photo: Metadata, used only when liking.
    ///   - albums: Albums, used only when liking.
    ///   - image: Returns the photo's JPEG; what it throws is thrown as it is.
    /// - Returns: ``LikeChange/Kind/liked`` or ``LikeChange/Kind/unliked``.
    /// - Throws: What `image` throws; ``LikeRepositoryError``: `notJPEG`, `invalidNote`,
    ///   `storeBusy`, `io`.
    @discardableResult
    public func toggle(
        _ id: PhotoID, note: String? = nil, photo: PhotoMetadata? = nil, albums: [AlbumName] = [], image: () throws -> Data
    ) throws -> LikeChange {
        var request: LikeRequest?
        if try !isLiked(id) { request = try LikeRequest(id: id, image: try image(), userImage: nil, note: note, photo: photo, albums: albums) }
        while true {
            if let change = try toggleCommit(id, request) { return change }
            // Unliked by another process since it was found liked: now the image is needed.
            request = try LikeRequest(id: id, image: try image(), userImage: nil, note: note, photo: photo, albums: albums)
        }
    }

    /// Unlikes a liked photo, else likes it with `request`; `nil` when it is not liked and there
    /// is no request.
    func toggleCommit(_ id: PhotoID, _ request: LikeRequest?) throws -> LikeChange? {
        try store.withWriteSession { session in
            if try session.isLiked(id) { return try publishing(session.unlike(id)) }
            guard let request else { return nil }
            return try publishing(session.like(request))
        }
    }

    // MARK: Reading

    /// Whether the photo is liked.
    ///
    /// - Throws: ``LikeRepositoryError/io(action:path:code:)`` when the store cannot be read.
    public func isLiked(_ id: PhotoID) throws -> Bool {
        try store.open()?.records?.exists(key: id.storageKey) ?? false
    }

    /// Which of `ids` are liked: the hearts of a page of search results, in one call.
    ///
    /// ```swift
    /// let liked = try repository.likedIDs(among: results.map(\.id))
    /// cells = results.map { Cell(photo: $0, isLiked: liked.contains($0.id)) }
    /// ```
    ///
    /// - Throws: ``LikeRepositoryError/io(action:path:code:)`` when the store cannot be read.
    public func likedIDs(among ids: some Sequence<PhotoID>) throws -> Set<PhotoID> {
        guard let records = try store.open()?.records else { return [] }
        var liked = Set<PhotoID>()
        for id in ids where try records.exists(key: id.storageKey) { liked.insert(id) }
        return liked
    }

    /// The record of a liked photo, or `nil` when it is not liked.
    ///
    /// - Throws: ``LikeRepositoryError/damagedRecord(file:reason:)`` when its record file cannot
    ///   be decoded; `io`.
    public func record(for id: PhotoID) throws -> LikeRecord? {
        guard let opened = try store.open(), let stored = try opened.records?.read(key: id.storageKey) else { return nil }
        return publicRecord(stored, thumbnails: try opened.thumbnails())
    }

    /// Checks that `data` is a complete JPEG, as a like would, and returns its size in pixels.
    ///
    /// - Throws: ``LikeRepositoryError/notJPEG(image:reason:)`` saying what is wrong.
    public static func checkJPEG(_ data: Data) throws -> (width: Int, height: Int) {
        let header = try PhotoCheck.header(of: data)
        return (header.width, header.height)
    }

    // MARK: Plumbing shared by the extensions

    /// Wakes this repository's observers, which read the change from the journal, and returns
    /// the change made public.
    func publishing(_ change: StoredChange) -> LikeChange {
        observers.changed(change.record.map { [$0] } ?? [])
        return publicChange(change)
    }

    func publicChange(_ change: StoredChange) -> LikeChange {
        Self.publicChange(change, in: directory)
    }

    func publicRecord(_ stored: StoredRecord) -> LikeRecord {
        Self.publicRecord(stored, in: directory)
    }

    /// A record as stored, with its thumbnail if one was made (one look at its file's size).
    func publicRecord(_ stored: StoredRecord, thumbnails: ThumbnailFiles) -> LikeRecord {
        var record = Self.publicRecord(stored, in: directory)
        if let bytes = try? thumbnails.size(key: stored.key, generation: stored.image.generation) {
            record.thumbnail = thumbnailImage(stored, bytes: bytes)
        }
        return record
    }

    /// The thumbnail of `stored` as a record shows it.
    func thumbnailImage(_ stored: StoredRecord, bytes: Int) -> StoredImage {
        let name = StoreLayout.thumbnailFileName(stored.key, stored.image.generation)
        let size = ThumbnailFiles.pixelSize(width: stored.image.width, height: stored.image.height)
        return StoredImage(
            file: directory.appendingPathComponent(ThumbnailFiles.directoryName, isDirectory: true).appendingPathComponent(name, isDirectory: false),
            fileName: ThumbnailFiles.directoryName + "/" + name, byteCount: bytes, width: size.width, height: size.height)
    }

    /// A change as the storage layer reported it, for the store in `directory`.
    static func publicChange(_ change: StoredChange, in directory: URL) -> LikeChange {
        LikeChange(
            kind: change.kind, id: change.id, date: Timestamp.date(change.at), record: change.record.map { publicRecord($0, in: directory) },
            fields: change.fields, files: change.files)
    }

    /// A record as stored, with its images' places in the store in `directory`.
    static func publicRecord(_ stored: StoredRecord, in directory: URL) -> LikeRecord {
        let images = directory.appendingPathComponent(StoreLayout.imagesDirectory, isDirectory: true)
        func image(_ info: StoredRecord.Image, user: Bool) -> StoredImage {
            let name = StoreLayout.imageFileName(stored.key, info.generation, user: user)
            return StoredImage(
                file: images.appendingPathComponent(name, isDirectory: false), fileName: StoreLayout.imagesDirectory + "/" + name,
                byteCount: info.bytes, width: info.width, height: info.height)
        }
        return LikeRecord(
            id: stored.id, likedAt: Timestamp.date(stored.likedAt), image: image(stored.image, user: false),
            userImage: stored.userImage.map { image($0, user: true) }, note: stored.note, photo: stored.photo, albums: stored.albums)
    }
}

/// A like's images, validated before the store is locked, and what it changes
/// besides.
struct LikeRequest: Sendable {
    /// What a change does to the photo's note.
    enum NoteEdit: Sendable {
        case keep
        case set(String)
        case clear
    }

    /// A JPEG to store: its bytes in memory, checked and checksummed, or a file to copy, checked
    /// (and checksummed as it is copied, so that it is read once).
    struct Image: Sendable {
        enum Source: Sendable {
            case bytes(Data, checksum: UInt32)
            /// Copied into the store a piece at a time, never read whole into memory; the copy
            /// fails unless the file is still the version that was checked.
            case file(path: String, version: ImageFileReader.Version)
        }

        var source: Source
        var byteCount: Int
        var header: JPEGHeader

        init(_ data: Data, kind: LikeRepositoryError.ImageKind) throws {
            source = .bytes(data, checksum: data.withUnsafeBytes { CRC32.checksum($0) })
            byteCount = data.count
            header = try PhotoCheck.header(of: data, kind: kind)
        }

        /// Checks the JPEG in the file at `path`, reading only the few bytes of each marker
        /// segment the check passes; `checking` first looks at the open file as it likes (a
        /// restore's digest reads it a piece at a time). Memory stays a few pieces, whatever the
        /// file.
        init(file path: String, kind: LikeRepositoryError.ImageKind, checking: ((ImageFileReader) throws -> Void)? = nil) throws {
            let file = try ImageFileReader(path: path)
            defer { file.close() }
            source = .file(path: path, version: file.version)
            byteCount = file.size
            try checking?(file)
            header = try PhotoCheck.header(ofFile: file.descriptor, size: file.size, path: path, kind: kind)
        }

        /// A checksum as a record keeps it: eight hex digits.
        static func text(_ checksum: UInt32) -> String {
            let text = String(checksum, radix: 16)
            return String(repeating: "0", count: 8 - text.count) + text
        }
    }

    var id: PhotoID
    var image: Image?
    var userImage: Image?
    var note: NoteEdit
    var photo: PhotoMetadata?
    var addAlbums: [AlbumName]
    var removeAlbums: [AlbumName] = []

    init(id: PhotoID, image: Data?, userImage: Data?, note: String?, photo: PhotoMetadata?, albums: [AlbumName] = []) throws {
        try self.init(
            id: id, image: try image.map { try Image($0, kind: .image) }, userImage: try userImage.map { try Image($0, kind: .userImage) },
            note: note, photo: photo, albums: albums)
    }

    init(id: PhotoID, image: Image?, userImage: Image?, note: String?, photo: PhotoMetadata?, albums: [AlbumName]) throws {
        self.id = id
        self.image = image
        self.userImage = userImage
        if let note { try Note.validate(note) }
        self.note = note.map(NoteEdit.set) ?? .keep
        self.photo = photo
        self.addAlbums = albums
    }

    /// A change to a liked photo's note or albums alone.
    init(id: PhotoID, note: NoteEdit = .keep, addAlbums: [AlbumName] = [], removeAlbums: [AlbumName] = []) throws {
        if case .set(let text) = note { try Note.validate(text) }
        self.id = id
        self.note = note
        self.photo = nil
        self.addAlbums = addAlbums
        self.removeAlbums = removeAlbums
    }

    /// The note a record has after this change.
    func note(after existing: String?) -> String? {
        switch note {
        case .keep: existing
        case .set(let text): text
        case .clear: nil
        }
    }

    /// The albums a record is in after this change.
    func albums(after existing: [AlbumName]) -> [AlbumName] {
        AlbumName.canonical(Set(existing).union(addAlbums).subtracting(removeAlbums))
    }

    /// The metadata a record has after this change: the fields given replace theirs.
    func photo(after existing: PhotoMetadata?) -> PhotoMetadata? {
        switch (existing, photo) {
        case (let old?, let new?): old.merging(new)
        case (let old, let new): new ?? old
        }
    }
}
