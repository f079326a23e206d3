// The public entry point: a store of liked photos, their JPEGs and records kept in step.

import Dispatch
import LikeStore
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

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
    public var directory: URL {
        switch given {
        case .url(let url): url
        case .path(let isDirectory): URL(fileURLWithPath: store.path, isDirectory: isDirectory)
        }
    }
    /// Whether changes are flushed to stable storage before they return.
    public let durability: Durability
    /// How long a change waits for another process's lock before it fails with
    /// ``LikeRepositoryError/storeBusy(directory:waitedSeconds:)``; 10 seconds by default.
    public let lockTimeout: Double

    /// The store below this façade, which owns every byte of it.
    package let store: Store
    /// How the directory was given: as a URL, or as a plain path whose URL is made when asked
    /// for (the first URL a process makes cost 2 % of a warm `list`, which never asks).
    private let given: GivenDirectory
    private enum GivenDirectory {
        case url(URL)
        /// Whether the URL ends in a slash: the path did, or named a directory when given.
        case path(isDirectory: Bool)
    }
    package let observers: ObserverRegistry
    /// Where the `async` overloads run their blocking work.
    let work: BlockingWork
    /// Recently used images, by their path in the store (see ``image(for:covering:)-6nwig``).
    let imageCache = ImageCache()
    /// For a store made by ``temporary(durability:)``: its folder, removed with the repository.
    let temporaryFolder: TemporaryStoreFolder?

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
        self.init(directory: directory, durability: durability, lockTimeout: lockTimeout, faults: FaultInjector(flushStrategy: flush.method))
    }

    /// The store at `path` as the command line names it, the same repository as
    /// `init(directory: URL(fileURLWithPath: path), …)`: a plain absolute path (see
    /// ``standardized(_:)``) is taken as it is, without asking a URL for its path, whose first
    /// use in a process took 5 % of a warm `list`.
    package convenience init(path: String, durability: Durability, lockTimeout: Double, forcingFlush flush: FlushStrategy? = nil) {
        let faults = flush.map { FaultInjector(flushStrategy: $0.method) }
        guard let plain = Self.plainPath(path) else {
            self.init(directory: URL(fileURLWithPath: path), durability: durability, lockTimeout: lockTimeout, faults: faults)
            return
        }
        // As `URL(fileURLWithPath:)` decides it: by the slash, else by the file system.
        let isDirectory = path.hasSuffix("/") || Store.isDirectory(atPath: plain)
        self.init(given: .path(isDirectory: isDirectory), path: plain, durability: durability, lockTimeout: lockTimeout, faults: faults)
    }

    package convenience init(
        directory: URL, durability: Durability, lockTimeout: Double, faults: FaultInjector?, temporaryFolder: TemporaryStoreFolder? = nil
    ) {
        let (directory, path) = Self.standardized(directory)
        self.init(
            given: .url(directory), path: path, durability: durability, lockTimeout: lockTimeout, faults: faults, temporaryFolder: temporaryFolder)
    }

    private init(
        given: GivenDirectory, path: String, durability: Durability, lockTimeout: Double, faults: FaultInjector?,
        temporaryFolder: TemporaryStoreFolder? = nil
    ) {
        self.temporaryFolder = temporaryFolder
        self.given = given
        self.durability = durability
        self.lockTimeout = lockTimeout
        store = Store(path: path, durable: durability == .full, lockTimeout: lockTimeout, faults: faults)
        observers = ObserverRegistry(store: store)
        work = BlockingWork(label: "LikeKit.LikeRepository")
    }

    /// The store's directory as a path, as ``directory`` would give it.
    package var path: String { store.path }

    /// `directory.standardizedFileURL` and its path. A plain absolute path stands as it is, made
    /// into a URL directly: Foundation's way took 6 % of a warm `list`.
    package static func standardized(_ directory: URL) -> (URL, String) {
        guard directory.isFileURL, let path = plainPath(directory.path) else {
            let standardized = directory.standardizedFileURL
            return (standardized, standardized.path)
        }
        return (URL(fileURLWithPath: path, isDirectory: directory.hasDirectoryPath), path)
    }

    /// `path` without a slash at its end, if it is plain: absolute, no `.` or `..`, no `//`, not
    /// under `/private` or `/var/automount` (which Foundation's standardizing also rewrites).
    static func plainPath(_ path: String) -> String? {
        var path = path
        let plain = path.withUTF8 { bytes -> Bool in
            guard bytes.first == UInt8(ascii: "/") else { return false }
            var componentStart = 1
            for index in 1...bytes.count {
                guard index == bytes.count || bytes[index] == UInt8(ascii: "/") else { continue }
                let component = bytes[componentStart..<index]
                let dots = component.allSatisfy { $0 == UInt8(ascii: ".") }
                if index < bytes.count, component.isEmpty || dots { return false }  // `//`, `/./`, `/../`
                if index == bytes.count, !component.isEmpty, dots, component.count <= 2 { return false }
                componentStart = index + 1
            }
            return true
        }
        guard plain, !path.hasPrefix("/private/"), !path.hasPrefix("/var/automount/") else { return nil }
        if path.utf8.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
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
        let request = try storeRequest(id, image: image, userImage: userImage, note: note, photo: photo, albums: albums)
        return publicChange(try translating { try store.like(request, onCommit: observers.changed) })
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
        let request = try translating {
            try Self.storeRequest(
                id, image: try StoreRequest.Image(file: imageFile.path, kind: .image),
                userImage: try userImageFile.map { try StoreRequest.Image(file: $0.path, kind: .userImage) }, note: note, photo: photo,
                albums: albums)
        }
        return publicChange(try translating { try store.like(request, onCommit: observers.changed) })
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
        // Each request checked (and a photo without a source colour measured, a 1/8 decode) two
        // at a time, before the lock is taken.
        let requests = Locked([Result<StoreRequest, any Error>?](repeating: nil, count: items.count))
        let next = Locked(0)
        DispatchQueue.concurrentPerform(iterations: min(2, max(items.count, 1))) { _ in
            while let index = next.withLock({ value -> Int? in
                guard value < items.count else { return nil }
                value += 1
                return value - 1
            }) {
                let item = items[index]
                let request = Result {
                    try storeRequest(item.id, image: item.image, userImage: item.userImage, note: item.note, photo: item.photo, albums: item.albums)
                }
                requests.withLock { $0[index] = request }
            }
        }
        var prepared: [(index: Int, request: StoreRequest)] = []
        for (index, request) in requests.withLock({ $0 }).enumerated() {
            switch request {
            case .success(let request)?: prepared.append((index, request))
            case .failure(let error as LikeRepositoryError)?: results[index] = .failure(error)
            case .failure(let error)?: throw error
            case nil: break
            }
        }
        let changes = try translating { try store.likeAll(prepared.map(\.request), onCommit: observers.changed) }
        for (place, change) in zip(prepared, changes) {
            results[place.index] = change.map(publicChange).mapError(LikeRepositoryError.init)
        }
        // The store answers every request it is given, or throws.
        return try results.map { result in
            guard let result else { throw LikeRepositoryError.invalidArgument("The store answered fewer likes than it was given.") }
            return result
        }
    }

    /// Unlikes a photo: removes its record and every image of it.
    ///
    /// - Returns: The ``LikeChange/Kind/unliked`` change, naming the files removed.
    /// - Throws: ``LikeRepositoryError/notLiked(id:)`` when the photo is not liked; `storeBusy`, `io`.
    @discardableResult
    public func unlike(_ id: PhotoID) throws -> LikeChange {
        publicChange(try translating { try store.unlike(id.rawValue, onCommit: observers.changed) })
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
        let request = try storeRequest(id, image: image, userImage: userImage, note: note, photo: photo, albums: albums)
        // With a request, the store always likes or unlikes.
        guard let change = try toggleCommit(id, request) else { throw LikeRepositoryError.imageRequired(id: id) }
        return change
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
        var request: StoreRequest?
        if try !isLiked(id) { request = try storeRequest(id, image: try image(), userImage: nil, note: note, photo: photo, albums: albums) }
        while true {
            if let change = try toggleCommit(id, request) { return change }
            // Unliked by another process since it was found liked: now the image is needed.
            request = try storeRequest(id, image: try image(), userImage: nil, note: note, photo: photo, albums: albums)
        }
    }

    /// Unlikes a liked photo, else likes it with `request`; `nil` when it is not liked and there
    /// is no request.
    func toggleCommit(_ id: PhotoID, _ request: StoreRequest?) throws -> LikeChange? {
        try translating { try store.toggle(id.rawValue, request, onCommit: observers.changed) }.map(publicChange)
    }

    // MARK: Reading

    /// Whether the photo is liked.
    ///
    /// - Throws: ``LikeRepositoryError/io(action:path:code:)`` when the store cannot be read.
    public func isLiked(_ id: PhotoID) throws -> Bool {
        try translating { try store.isLiked(id.rawValue) }
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
        let ids = Array(ids)
        let liked = try translating { try store.liked(ids.map(\.rawValue)) }
        return Set(zip(ids, liked).compactMap { id, isLiked in isLiked ? id : nil })
    }

    /// The record of a liked photo, or `nil` when it is not liked.
    ///
    /// - Throws: ``LikeRepositoryError/damagedRecord(file:reason:)`` when its record file cannot
    ///   be decoded; `io`.
    public func record(for id: PhotoID) throws -> LikeRecord? {
        try translating { try store.item(for: id.rawValue) }.map(publicRecord)
    }

    /// Checks that `data` is a complete JPEG, as a like would, and returns its size in pixels.
    ///
    /// - Throws: ``LikeRepositoryError/notJPEG(image:reason:)`` saying what is wrong.
    public static func checkJPEG(_ data: Data) throws -> (width: Int, height: Int) {
        let size = try LikeRepositoryError.translating { try StoreRequest.Image(data, kind: .image).size }
        return (size.width, size.height)
    }

    // MARK: Requests

    /// A like's request for the store: the note checked, the images checked as whole JPEGs.
    func storeRequest(
        _ id: PhotoID, image: Data?, userImage: Data?, note: String?, photo: PhotoMetadata?, albums: [AlbumName]
    ) throws -> StoreRequest {
        let images = try translating {
            (try image.map { try StoreRequest.Image($0, kind: .image) }, try userImage.map { try StoreRequest.Image($0, kind: .userImage) })
        }
        return try Self.storeRequest(id, image: images.0, userImage: images.1, note: note, photo: photo, albums: albums)
    }

    /// A like's request for the store, of images checked already: the note checked.
    static func storeRequest(
        _ id: PhotoID, image: StoreRequest.Image?, userImage: StoreRequest.Image?, note: String?, photo: PhotoMetadata?, albums: [AlbumName]
    ) throws -> StoreRequest {
        if let note { try Note.validate(note) }
        return StoreRequest(
            id: id.rawValue, image: image, userImage: userImage, note: note, photo: photo?.stored, albums: albums.map(\.rawValue))
    }

    /// Wakes this repository's observers after a change, with the change made public.
    func publishing(_ change: StoredChange) -> LikeChange {
        observers.changed(change.record.map { [$0] } ?? [])
        return publicChange(change)
    }
}
