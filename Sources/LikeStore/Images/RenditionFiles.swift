// Owns renditions/: each liked photo's images between its thumbnail and its original, on a
// ladder whose steps are at most 2x apart, made by JPEGCodec on first need (upright, with the
// photo's ICC profile) and kept under a budget of bytes, the least recently used out first.
// Derived like thumbnails: never part of a commit, removed with the photo, an orphan once its
// image is gone, never exported or synced. Called by Store+Renditions, WriteSession (removal),
// purge, verify and repair.

import JPEGCodec
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// The renditions folder of a store: `renditions/KEY~GEN~SIDE.jpg` for the rendition of long
/// side SIDE of the main image of generation GEN, tagged as a thumbnail is (the generation and
/// the CRC-32 of the rest), so that `verify` tells a damaged one without decoding it; and
/// `renditions/budget`, the budget in bytes when it is not the default.
struct RenditionFiles {
    static let directoryName = StoreLayout.renditionsDirectory
    static let budgetFileName = "budget"
    /// The budget of bytes unless one is set: room for the renditions of about a thousand
    /// 12-megapixel photos.
    static let defaultBudget = 1 << 30

    /// `nil` while no rendition was ever made.
    let directory: StoreDirectory?

    /// The long sides of the renditions of a photo of `width` x `height` (as displayed): twice
    /// the thumbnail's, doubled again while shorter than the photo, whose original is the top.
    static func ladder(width: Int, height: Int) -> [Int] {
        let thumbnail = ThumbnailFiles.pixelSize(width: width, height: height)
        let photo = max(width, height)
        var sides: [Int] = []
        var side = 2 * max(thumbnail.width, thumbnail.height)
        while side < photo {
            sides.append(side)
            side *= 2
        }
        return sides
    }

    /// The pixel size of the rendition of long side `side` of a `width` x `height` photo.
    static func pixelSize(width: Int, height: Int, side: Int) -> (width: Int, height: Int) {
        JPEGThumbnail.size(ofWidth: width, height: height, size: .longSide(side))
    }

    static func fileName(_ key: String, _ generation: String, side: Int) -> String { key + "~" + generation + "~" + String(side) + ".jpg" }

    /// The key, generation and side a rendition's file name gives; `nil` for any other name.
    static func parse(_ name: String) -> (key: String, generation: String, side: Int)? {
        guard name.hasSuffix(".jpg") else { return nil }
        let parts = name.dropLast(4).split(separator: "~", omittingEmptySubsequences: false)
        guard parts.count == 3, let side = Int(parts[2]), side > 0, String(side) == parts[2], Generation.isValid(String(parts[1])) else {
            return nil
        }
        return (String(parts[0]), String(parts[1]), side)
    }

    /// The rendition's bytes when it is there and whole (read and checked); its state otherwise.
    func read(_ name: String, generation: String) throws -> (state: ThumbnailFiles.State, data: Data?) {
        guard let directory, let data = try directory.read(name) else { return (.missing, nil) }
        if let problem = ThumbnailFiles.problem([UInt8](data), generation: generation) { return (.damaged(problem), nil) }
        return (.whole(bytes: data.count), data)
    }

    /// The budget in bytes: the one `budget` holds, else the default.
    func budget() -> Int {
        guard let data = try? directory?.read(Self.budgetFileName), let value = Int(String(decoding: data, as: UTF8.self).trimmingSpace()),
            value >= 0
        else { return Self.defaultBudget }
        return value
    }

    /// Every rendition file with its size and when it was last used (its modification time).
    func files() throws -> [(name: String, size: Int, used: Int64)] {
        guard let directory else { return [] }
        var result: [(name: String, size: Int, used: Int64)] = []
        for name in try directory.regularFileNames() where Self.parse(name) != nil {
            if let entry = try directory.entry(name) { result.append((name, entry.size, entry.modified)) }
        }
        return result
    }

    /// Removes the least recently used renditions until they fit in the budget, never `keeping`;
    /// the number of files removed.
    @discardableResult
    func evict(keeping: String?) throws -> Int {
        guard let directory else { return 0 }
        let budget = budget()
        var files = try files()
        var total = files.reduce(0) { $0 + $1.size }
        guard total > budget else { return 0 }
        files.sort { ($0.used, $0.name) < ($1.used, $1.name) }
        var removed = 0
        for file in files where total > budget && file.name != keeping {
            try? directory.remove(file.name)
            total -= file.size
            removed += 1
        }
        return removed
    }
}

extension StoreLayout {
    static let renditionsDirectory = "renditions"
}

extension StoredRecord {
    /// The pixel sizes of the renditions of a photo of `width` x `height` (as displayed).
    package static func renditionSizes(width: Int, height: Int) -> [(width: Int, height: Int)] {
        RenditionFiles.ladder(width: width, height: height).map { RenditionFiles.pixelSize(width: width, height: height, side: $0) }
    }
}
