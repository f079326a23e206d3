// Images at the size a view needs: the smallest of a photo's thumbnail, renditions and original
// that covers it (the thumbnail and renditions upright, the original with its orientation), made
// when missing; a memory cache with a cost limit the app sets, and
// prefetching that stops the work not begun when cancelled.

import Dispatch
import LikeStore
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// One of a liked photo's stored JPEGs, chosen for a size (see
/// ``LikeRepository/image(for:covering:)-6nwig``), with the orientation to draw it in.
///
/// A thumbnail or rendition is upright; the original is as it was liked, and a camera's
/// original often still carries an Exif orientation to apply:
///
/// ```swift
/// let image = try await repository.image(for: id, covering: 1200)
/// // UIKit: UIImage(data:) reads the orientation from the bytes; a CGImage does not, so pass it:
/// // UIImage(cgImage: cgImage, scale: 1, orientation: image.orientation.uiImageOrientation)
/// ```
public struct PhotoImage: Sendable, Hashable {
    /// Which of the photo's images it is.
    public enum Kind: String, Sendable, Hashable {
        /// The thumbnail: at most 512 pixels on the long side.
        case thumbnail
        /// A rendition between the thumbnail and the original, made by the store.
        case rendition
        /// The photo's own file, as it was liked.
        case original
    }

    /// Which image it is.
    public var kind: Kind
    /// The file in the store (valid while the photo stays liked with this image).
    public var file: URL { URL(fileURLWithPath: path, isDirectory: false) }
    /// The width in pixels, as displayed.
    public var width: Int
    /// The height in pixels, as displayed.
    public var height: Int
    /// The JPEG's bytes. A thumbnail or rendition is upright with orientation 1 and carries the
    /// photo's ICC profile; the original is as liked (image views turn it by its Exif).
    public var data: Data
    /// The Exif orientation still to apply to ``data`` to show it upright, 1–8 as TIFF numbers
    /// them (1 upright, 6 turned a quarter clockwise to show it, …): always 1 for a thumbnail or
    /// rendition; the original's own for the original. ``width`` and ``height`` are the size
    /// once it is applied.
    public var orientation: Int
    /// Whether ``data`` shows the photo upright as it is (``orientation`` is 1).
    public var isUpright: Bool { orientation == 1 }
    /// ``file``'s absolute path.
    package var path: String
}

/// The memory cache of recently used images: least recently used out first once their bytes
/// pass the limit.
final class ImageCache: Sendable {
    private struct Entry {
        var data: Data
        var used: UInt64
    }

    private struct State {
        var limit = 32 << 20
        var entries: [String: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    private let state = Locked(State())

    var limit: Int {
        get { state.withLock { $0.limit } }
        set {
            state.withLock { state in
                state.limit = max(0, newValue)
                Self.trim(&state)
            }
        }
    }

    var bytes: Int { state.withLock { $0.bytes } }

    func data(for path: String) -> Data? {
        state.withLock { state in
            guard var entry = state.entries[path] else { return nil }
            state.clock += 1
            entry.used = state.clock
            state.entries[path] = entry
            return entry.data
        }
    }

    func insert(_ data: Data, for path: String) {
        state.withLock { state in
            guard data.count <= state.limit else { return }
            state.clock += 1
            if let old = state.entries.updateValue(Entry(data: data, used: state.clock), forKey: path) { state.bytes -= old.data.count }
            state.bytes += data.count
            Self.trim(&state)
        }
    }

    func removeAll() {
        state.withLock { state in
            state.entries = [:]
            state.bytes = 0
        }
    }

    private static func trim(_ state: inout State) {
        guard state.bytes > state.limit else { return }
        for (path, entry) in state.entries.sorted(by: { $0.value.used < $1.value.used }) where state.bytes > state.limit {
            state.entries[path] = nil
            state.bytes -= entry.data.count
        }
    }
}

/// Prefetching under way (see ``LikeRepository/prefetchImages(for:maxPixelSize:)``): cancel it
/// and the images not yet begun are not made.
public final class ImagePrefetch: Sendable {
    private let cancelled = Locked(false)
    private let finished = Locked<[CheckedContinuation<Void, Never>]?>([])
    private let doneCount = Locked(0)

    init() {}

    /// Stops the work not yet begun; an image being made finishes.
    public func cancel() { cancelled.withLock { $0 = true } }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { cancelled.withLock { $0 } }

    /// How many images were made or found so far.
    public var completed: Int { doneCount.withLock { $0 } }

    /// Waits until the prefetch has ended, finished or cancelled.
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let already = finished.withLock { waiting -> Bool in
                guard waiting != nil else { return true }
                waiting?.append(continuation)
                return false
            }
            if already { continuation.resume() }
        }
    }

    func didOne() { doneCount.withLock { $0 += 1 } }

    func finish() {
        let waiting = finished.withLock { waiting -> [CheckedContinuation<Void, Never>] in
            defer { waiting = nil }
            return waiting ?? []
        }
        for continuation in waiting { continuation.resume() }
    }
}

extension LikeRepository {
    /// The smallest of a liked photo's stored images that covers `pixelSize`: whose long side,
    /// upright, is at least that many pixels. The thumbnail or a rendition (made now when
    /// missing, as the store's own codec makes it: decoded at the DCT scale at or above the size,
    /// resized, upright, with the photo's colour profile), or the original when it is the only
    /// one large enough, as liked: see ``PhotoImage/orientation``.
    ///
    /// The image is never smaller than asked unless the original is; it is the opposite of
    /// ImageIO's and Nuke's `maxPixelSize`, which caps the size. Ask for the pixels a view covers
    /// and let the view scale the image down.
    ///
    /// Renditions stand on a ladder whose steps are at most twice apart (twice the thumbnail's
    /// long side, doubled while shorter than the photo), kept in the store under a byte budget
    /// (``renditionBudget()-76qg``), the least recently used out first. Found images are also kept in
    /// memory (``imageCacheLimit``).
    ///
    /// Ask for the device pixels a view covers:
    ///
    /// ```swift
    /// // A grid cell of 160 points on a 3x screen.
    /// let image = try await repository.image(for: id, covering: 160 * 3)
    /// cell.image = UIImage(data: image.data)
    /// ```
    ///
    /// - Throws: ``LikeRepositoryError/notLiked(id:)``; `io` when a file cannot be read.
    public func image(for id: PhotoID, covering pixelSize: Int) throws -> PhotoImage {
        let cache = imageCache
        let sized = try translating {
            try store.image(for: id.rawValue, longSide: max(1, pixelSize), readingOriginal: true, cached: { cache.data(for: $0) })
        }
        let path = Self.joined(self.path, sized.path)
        let data = sized.data ?? Data()
        // Tagged files are given without the store's tag: what a thumbnail's reader expects.
        let bytes = sized.kind == .original ? data : Store.untaggedImage(data)
        cache.insert(bytes, for: sized.path)
        return PhotoImage(
            kind: PhotoImage.Kind(sized.kind), width: sized.width, height: sized.height, data: bytes, orientation: sized.orientation, path: path)
    }

    /// The image of `id` that covers `pixelSize`; see ``image(for:covering:)-6nwig``. Runs off
    /// Swift's cooperative pool.
    public func image(for id: PhotoID, covering pixelSize: Int) async throws -> PhotoImage {
        try await work.read { try self.image(for: id, covering: pixelSize) }
    }

    /// The image of `id` that covers `maxPixelSize`, under its first name.
    @available(*, deprecated, renamed: "image(for:covering:)", message: "At least this size, not at most as ImageIO's maxPixelSize.")
    public func image(for id: PhotoID, maxPixelSize: Int) throws -> PhotoImage {
        try image(for: id, covering: maxPixelSize)
    }

    /// The image of `id` that covers `maxPixelSize`, under its first name.
    @available(*, deprecated, renamed: "image(for:covering:)", message: "At least this size, not at most as ImageIO's maxPixelSize.")
    public func image(for id: PhotoID, maxPixelSize: Int) async throws -> PhotoImage {
        try await image(for: id, covering: maxPixelSize)
    }

    /// Makes (and caches) the images of `ids` that cover `pixelSize`, one after another on a
    /// queue of their own, for the rows a grid is about to show. Cancel the returned handle when
    /// they scroll away: the images not yet begun are not made.
    ///
    /// ```swift
    /// let prefetch = repository.prefetchImages(for: nextRows.map(\.id), covering: 480)
    /// // …scrolled the other way:
    /// prefetch.cancel()
    /// ```
    @discardableResult
    public func prefetchImages(for ids: [PhotoID], covering pixelSize: Int) -> ImagePrefetch {
        let handle = ImagePrefetch()
        DispatchQueue(label: "LikeKit.prefetch", qos: .utility).async {
            for id in ids {
                if handle.isCancelled { break }
                _ = try? self.image(for: id, covering: pixelSize)
                handle.didOne()
            }
            handle.finish()
        }
        return handle
    }

    /// Prefetches the images of `ids` that cover `maxPixelSize`, under its first name.
    @available(*, deprecated, renamed: "prefetchImages(for:covering:)")
    @discardableResult
    public func prefetchImages(for ids: [PhotoID], maxPixelSize: Int) -> ImagePrefetch {
        prefetchImages(for: ids, covering: maxPixelSize)
    }

    /// The most bytes the memory cache of images keeps (32 MB by default); 0 keeps none.
    public var imageCacheLimit: Int {
        get { imageCache.limit }
        set { imageCache.limit = newValue }
    }

    /// The bytes the memory cache of images holds now.
    public var imageCacheBytes: Int { imageCache.bytes }

    /// Empties the memory cache of images (the files in the store stay).
    public func removeCachedImages() { imageCache.removeAll() }

    /// The budget of bytes the store keeps renditions under (1 GB unless set): the least
    /// recently used are removed once their bytes pass it. Thumbnails and originals are never
    /// removed. Reads the store's budget file (and counts the renditions) each time.
    ///
    /// - Throws: ``LikeRepositoryError``: `io`, `newerFormat`.
    public func renditionBudget() throws -> Int {
        try translating { try store.renditionStatistics().budget }
    }

    /// The budget of bytes for renditions, read off the caller's thread; see
    /// ``renditionBudget()``.
    public func renditionBudget() async throws -> Int {
        try await work.read { try self.renditionBudget() }
    }

    /// Sets the store's budget of bytes for renditions (`nil`: back to the default), removing
    /// the least recently used ones that no longer fit.
    ///
    /// - Throws: ``LikeRepositoryError``: `io`, `storeBusy`.
    public func setRenditionBudget(_ bytes: Int?) throws {
        try translating { try store.setRenditionBudget(bytes.map { max(0, $0) }) }
    }

    /// Makes ahead what is missing or damaged of the thumbnails and renditions of `ids`' photos,
    /// in order, stopping once the renditions fill their budget: `likes renditions --make`.
    package func makeImagesAhead(for ids: [PhotoID]) throws -> StoreImagesMade {
        try translating { try store.makeImagesAhead(for: ids.map(\.rawValue)) }
    }

    /// `relative`, a path inside the store, joined to the store's absolute path `base`.
    static func joined(_ base: String, _ relative: String) -> String { base.hasSuffix("/") ? base + relative : base + "/" + relative }
}

extension PhotoImage.Kind {
    init(_ kind: StoreSizedImage.Kind) {
        switch kind {
        case .thumbnail: self = .thumbnail
        case .rendition: self = .rendition
        case .original: self = .original
        }
    }
}

/// How far ``LikeRepository/readImageFacts(within:)-2lr2e`` has come.
public struct ImageFactsProgress: Sendable, Hashable {
    /// Photos whose records were given their facts by the call.
    public var updated: Int
    /// Whether every photo of the store has them now.
    public var complete: Bool

    /// Progress of these figures.
    package init(updated: Int, complete: Bool) {
        self.updated = updated
        self.complete = complete
    }
}

extension LikeRepository {
    /// Gives photos liked before records kept them what records now keep of their image files (the
    /// Exif orientation with the size as displayed, the camera's facts, the pixels' mean colour
    /// for ``LikeQuery/color``), newest first, for at most `seconds`; a turned photo's thumbnail
    /// is made anew upright. Each is a change of its record that touches no field a person sets
    /// (``LikeChange/fields`` is empty). Once every photo has them, a call costs one look at a
    /// file. The command line calls it after each change and `likes serve` until it is done; an
    /// app may call it at launch, off the main thread.
    ///
    /// - Throws: ``LikeRepositoryError``: `io`, `storeBusy`.
    @discardableResult
    public func readImageFacts(within seconds: Double) throws -> ImageFactsProgress {
        let deadline = Timestamp.now() + Int64(max(0, seconds) * 1000)
        let progress = try translating { try store.readImageFacts(until: deadline) }
        return ImageFactsProgress(updated: progress.updated, complete: progress.complete)
    }
}
