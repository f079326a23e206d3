// A store for previews and tests: a new temporary folder, removed with the repository, and sample
// photos made by the package's own JPEG encoder to fill it.

import JPEGCodec
import LikeStore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension LikeRepository {
    /// A store in a new temporary folder of its own (mode 0700), removed when the repository is
    /// released: for SwiftUI previews and tests.
    ///
    /// ```swift
    /// let repository = try LikeRepository.temporary()
    /// try repository.likeSamplePhotos(count: 12)
    /// let grid = FavoritesGrid(photos: LikedPhotos(repository))  // a preview's view
    /// ```
    ///
    /// - Parameter durability: ``Durability/relaxed`` by default: a preview's likes need not
    ///   outlive a power cut.
    /// - Throws: ``LikeRepositoryError/io(action:path:code:)`` when the folder cannot be made.
    public static func temporary(durability: Durability = .relaxed) throws -> LikeRepository {
        let base = FileManager.default.temporaryDirectory.path
        let path = (base.hasSuffix("/") ? base : base + "/") + "likes-" + UUID().uuidString.lowercased()
        guard mkdir(path, 0o700) == 0 else { throw LikeRepositoryError.io(action: "make the folder", path: path, code: errno) }
        let folder = TemporaryStoreFolder(path: path)
        return LikeRepository(
            directory: URL(fileURLWithPath: path, isDirectory: true), durability: durability, lockTimeout: 10, faults: nil, temporaryFolder: folder)
    }

    /// Likes `count` sample photos made here (no file is read): landscapes and portraits in
    /// twelve colours, each with a description, a photographer and its colour, a few in an album
    /// and with a note, liked a millisecond apart at least so that their order is theirs.
    ///
    /// - Parameter count: How many; 12 by default, at most 1,000.
    /// - Returns: The changes, in the order the photos were liked (the last is the newest).
    /// - Throws: What ``like(_:image:userImage:note:photo:albums:)-3llxn`` throws.
    @discardableResult
    public func likeSamplePhotos(count: Int = 12) throws -> [LikeChange] {
        var changes: [LikeChange] = []
        for index in 0..<min(max(count, 0), 1_000) {
            let sample = SamplePhoto(index: index)
            let id = try PhotoID("sample-\(index + 1)")
            changes.append(
                try like(
                    id, image: Data(sample.jpeg()), note: index % 5 == 2 ? "A note on \(sample.name)" : nil,
                    photo: PhotoMetadata(
                        description: "A \(sample.name) sample", photographer: "likes", color: sample.hex, width: sample.width,
                        height: sample.height),
                    albums: index % 3 == 0 ? [try AlbumName("Samples")] : []))
            // A millisecond apart at least: the listing's order is the order they were liked in.
            // Asleep, not spinning, and only when the clock has not moved on by itself.
            let liked = Timestamp.now()
            while Timestamp.now() == liked { usleep(200) }
        }
        return changes
    }
}

/// The folder of a temporary store, removed when the last repository holding it is released.
package final class TemporaryStoreFolder: Sendable {
    let path: String

    init(path: String) {
        self.path = path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// One sample photo: a soft diagonal gradient of its colour, drawn and encoded here.
struct SamplePhoto {
    /// Twelve colours, one of each family the colour filter names: (name, red, green, blue).
    static let colours: [(String, Int, Int, Int)] = [
        ("blue", 40, 90, 200), ("teal", 20, 140, 140), ("green", 60, 150, 60), ("yellow", 230, 200, 40),
        ("orange", 235, 130, 30), ("red", 200, 40, 40), ("magenta", 200, 40, 160), ("purple", 110, 50, 170),
        ("brown", 120, 80, 40), ("gray", 128, 128, 128), ("black", 20, 20, 24), ("white", 240, 240, 236),
    ]

    let name: String
    let rgb: (Int, Int, Int)
    let width: Int
    let height: Int

    init(index: Int) {
        let colour = Self.colours[index % Self.colours.count]
        name = colour.0
        rgb = (colour.1, colour.2, colour.3)
        // Every fourth a portrait.
        (width, height) = index % 4 == 3 ? (320, 480) : (480, 320)
    }

    /// `#RRGGBB`.
    var hex: String {
        "#" + [rgb.0, rgb.1, rgb.2].map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
    }

    /// The JPEG: the colour, lighter towards the top left and darker towards the bottom right.
    func jpeg() -> [UInt8] {
        var planes = [[UInt8]](repeating: [UInt8](repeating: 0, count: width * height), count: 3)
        for y in 0..<height {
            for x in 0..<width {
                // -24…+24 across the diagonal.
                let shade = 24 - 48 * (x + y) / (width + height)
                let (r, g, b) = (clamp(rgb.0 + shade), clamp(rgb.1 + shade), clamp(rgb.2 + shade))
                // JFIF's full-range YCbCr.
                let luma = 0.299 * Double(r) + 0.587 * Double(g) + 0.114 * Double(b)
                planes[0][y * width + x] = UInt8(clamp(Int(luma.rounded())))
                planes[1][y * width + x] = UInt8(clamp(Int((128 + (Double(b) - luma) * 0.564).rounded())))
                planes[2][y * width + x] = UInt8(clamp(Int((128 + (Double(r) - luma) * 0.713).rounded())))
            }
        }
        return JPEGEncoder.encode(PlanarImage(width: width, height: height, planes: planes), quality: 85)
    }

    private func clamp(_ value: Int) -> Int { min(255, max(0, value)) }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
