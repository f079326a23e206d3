// A liked photo's image at the size a view needs: the smallest of its thumbnail, renditions and
// original whose long side covers the request, a rendition made (and older ones evicted) when
// missing, marked as used when found.

import JPEGCodec
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// One of a photo's stored images, chosen for a size.
package struct StoreSizedImage: Sendable {
    package enum Kind: Sendable, Hashable {
        case thumbnail
        case rendition
        case original
    }

    package var kind: Kind
    /// The file's path inside the store.
    package var path: String
    package var width: Int
    package var height: Int
    package var bytes: Int
    /// The file's bytes, when they were read on the way (a thumbnail's or rendition's, checked).
    package var data: Data?
    /// The image generation it shows: a cache keyed by it is never stale.
    package var generation: String
    /// The Exif orientation still to apply to the bytes, 1–8: the original's own; 1 for a
    /// thumbnail or rendition, which are made upright.
    package var orientation = 1
}

/// What ``Store/makeImagesAhead(for:)`` made.
package struct StoreImagesMade: Sendable, Hashable {
    /// The liked photos it went through.
    package var photos = 0
    package var thumbnails = 0
    package var renditions = 0
    /// Whether it stopped before the end because the renditions filled their budget.
    package var stoppedAtBudget = false
}

/// How many renditions there are and their bytes, under which budget.
package struct StoreRenditionStatistics: Sendable, Hashable {
    package var count: Int
    package var bytes: Int
    package var budget: Int
}

extension Store {
    /// The smallest stored image of `id`'s photo whose long side is at least `longSide` pixels
    /// (the original when none is): its thumbnail or a rendition made now when missing or
    /// damaged, both upright, else the original with its own orientation (``StoreSizedImage/orientation``). Where an image cannot be made (a JPEG kind the codec does
    /// not scale, a read-only store) the next larger one is given.
    ///
    /// `cached` is asked first for the bytes of the file that would be chosen (by its path in
    /// the store, which names the image's generation): a cache of images already read.
    ///
    /// - Throws: ``StoreError/notLiked(id:)``.
    /// With `readingOriginal`, an original chosen comes with its bytes, checked as liked.
    package func image(
        for id: String, longSide: Int, readingOriginal: Bool = false, cached: (String) -> Data? = { _ in nil }
    ) throws -> StoreSizedImage {
        guard let opened = try open(), let stored = try opened.records?.read(key: StorageKey.make(for: id)), stored.id == id else {
            throw StoreError.notLiked(id: id)
        }
        let size = (width: stored.image.width, height: stored.image.height)
        let original = StoreSizedImage(
            kind: .original, path: stored.imagePath(user: false) ?? "", width: size.width, height: size.height, bytes: stored.image.bytes,
            generation: stored.image.generation, orientation: stored.image.orientation ?? 1)
        let thumbnailSize = stored.thumbnailSize
        let ladder = RenditionFiles.ladder(width: size.width, height: size.height)
        // What would be chosen, if the cache has it.
        if longSide <= max(thumbnailSize.width, thumbnailSize.height), let data = cached(stored.thumbnailPath) {
            return StoreSizedImage(
                kind: .thumbnail, path: stored.thumbnailPath, width: thumbnailSize.width, height: thumbnailSize.height, bytes: data.count,
                data: data, generation: stored.image.generation)
        } else if longSide > max(thumbnailSize.width, thumbnailSize.height), let side = ladder.first(where: { $0 >= longSide }) {
            let path = RenditionFiles.directoryName + "/" + RenditionFiles.fileName(stored.key, stored.image.generation, side: side)
            if let data = cached(path) {
                let pixels = RenditionFiles.pixelSize(width: size.width, height: size.height, side: side)
                return StoreSizedImage(
                    kind: .rendition, path: path, width: pixels.width, height: pixels.height, bytes: data.count, data: data,
                    generation: stored.image.generation)
            }
        } else if longSide > (ladder.last ?? max(thumbnailSize.width, thumbnailSize.height)), let data = cached(original.path) {
            var found = original
            found.data = data
            return found
        }
        // A turned photo's original is drawn upright by browsers and image views alike; a
        // rendition is never larger than it.
        if longSide <= max(thumbnailSize.width, thumbnailSize.height) {
            if let made = try? thumbnailData(of: stored, opened) {
                return StoreSizedImage(
                    kind: .thumbnail, path: stored.thumbnailPath, width: thumbnailSize.width, height: thumbnailSize.height, bytes: made.count,
                    data: made, generation: stored.image.generation)
            }
        }
        for side in ladder where side >= longSide {
            if let made = try? rendition(of: stored, side: side, opened) { return made }
        }
        guard readingOriginal else { return original }
        let name = StoreLayout.imageFileName(stored.key, stored.image.generation, user: false)
        switch try opened.images?.read(name, as: stored.image) {
        case .whole(let data)?:
            var read = original
            read.data = data
            return read
        case .damaged(let problem)?: throw StoreError.damagedImage(file: original.path, reason: problem)
        case nil: throw StoreError.damagedImage(file: original.path, reason: "is missing")
        }
    }

    /// The thumbnail's bytes, made when missing or damaged; `nil` when it cannot be made.
    private func thumbnailData(of stored: StoredRecord, _ opened: OpenStore) throws -> Data? {
        if let data = try opened.thumbnails().bytesIfWhole(key: stored.key, generation: stored.image.generation) { return data }
        return try makeThumbnail(of: stored, opened).map { Data($0) }
    }

    /// The rendition of long side `side`, read (and marked as used) or made now.
    func rendition(of stored: StoredRecord, side: Int, _ opened: OpenStore) throws -> StoreSizedImage? {
        let name = RenditionFiles.fileName(stored.key, stored.image.generation, side: side)
        let files = RenditionFiles(directory: try opened.root.subdirectoryIfFolder(RenditionFiles.directoryName))
        let size = RenditionFiles.pixelSize(width: stored.image.width, height: stored.image.height, side: side)
        func sized(_ data: Data) -> StoreSizedImage {
            StoreSizedImage(
                kind: .rendition, path: RenditionFiles.directoryName + "/" + name, width: size.width, height: size.height, bytes: data.count,
                data: data, generation: stored.image.generation)
        }
        let read = try files.read(name, generation: stored.image.generation)
        if let data = read.data {
            files.directory?.touch(name)
            return sized(data)
        }
        let imageName = StoreLayout.imageFileName(stored.key, stored.image.generation, user: false)
        guard case .whole(let image)? = try opened.images?.read(imageName, as: stored.image) else { return nil }
        let made: JPEGThumbnail
        do {
            made = try image.withUnsafeBytes { bytes throws(JPEGError) in try JPEGThumbnail.make(fromJPEG: bytes, size: .longSide(side)) }
        } catch {
            return nil
        }
        let tagged = ThumbnailFiles.tagged(made.jpeg, generation: stored.image.generation, damage: made.damage)
        let directory = try opened.root.subdirectoryCreatingIfNeeded(RenditionFiles.directoryName, durable: durable)
        try tagged.withUnsafeBytes {
            try directory.replaceFile(name, bytes: $0, temporary: name + "." + Generation.make() + ".tmp", durable: durable)
        }
        try RenditionFiles(directory: directory).evict(keeping: name)
        return sized(Data(tagged))
    }

    /// Makes ahead what is missing or damaged of the thumbnail and renditions of each of `ids`'
    /// photos, in order, as first use would make them; stops before a photo once the renditions
    /// fill their budget, so that it never evicts what it has just made. Ids not liked, and
    /// images that cannot be made (a JPEG kind the codec does not scale), are passed over.
    package func makeImagesAhead(for ids: [String]) throws -> StoreImagesMade {
        var made = StoreImagesMade()
        guard let opened = try open(), let records = opened.records else { return made }
        let statistics = try renditionStatistics()
        var bytes = statistics.bytes
        for id in ids {
            if bytes >= statistics.budget {
                made.stoppedAtBudget = true
                break
            }
            guard let stored = try? records.read(key: StorageKey.make(for: id)), stored.id == id else { continue }
            made.photos += 1
            if case .whole = try opened.thumbnails().state(key: stored.key, generation: stored.image.generation) {
            } else if try makeThumbnail(of: stored, opened) != nil {
                made.thumbnails += 1
            }
            let files = RenditionFiles(directory: try opened.root.subdirectoryIfFolder(RenditionFiles.directoryName))
            for side in RenditionFiles.ladder(width: stored.image.width, height: stored.image.height) {
                let name = RenditionFiles.fileName(stored.key, stored.image.generation, side: side)
                if case .whole = try files.read(name, generation: stored.image.generation).state { continue }
                guard let rendition = try rendition(of: stored, side: side, opened) else { continue }
                made.renditions += 1
                bytes += rendition.bytes
            }
        }
        return made
    }

    /// The renditions' count and bytes, and the budget they are kept under.
    package func renditionStatistics() throws -> StoreRenditionStatistics {
        guard let opened = try open() else { return StoreRenditionStatistics(count: 0, bytes: 0, budget: RenditionFiles.defaultBudget) }
        let files = RenditionFiles(directory: try opened.root.subdirectoryIfFolder(RenditionFiles.directoryName))
        let list = try files.files()
        return StoreRenditionStatistics(count: list.count, bytes: list.reduce(0) { $0 + $1.size }, budget: files.budget())
    }

    /// Sets the renditions' budget in bytes (`nil`: back to the default), evicting the least
    /// recently used ones that no longer fit.
    package func setRenditionBudget(_ bytes: Int?) throws {
        try withExclusiveLock { root, _ in
            let directory = try root.subdirectoryCreatingIfNeeded(RenditionFiles.directoryName, durable: durable)
            if let bytes {
                try Array(String(bytes).utf8).withUnsafeBytes {
                    try directory.replaceFile(
                        RenditionFiles.budgetFileName, bytes: $0, temporary: RenditionFiles.budgetFileName + "." + Generation.make() + ".tmp",
                        durable: durable, flushFolder: durable ? false : nil)
                }
            } else {
                try? directory.remove(RenditionFiles.budgetFileName)
            }
            try RenditionFiles(directory: directory).evict(keeping: nil)
        }
    }
}
