// What an export wrote, and the size text it and the command line show.

import LikeStore
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// What ``LikeRepository/export(to:query:)-lbdl`` wrote.
public struct ExportReport: Sendable, Hashable {
    /// One exported photo.
    public struct Photo: Sendable, Hashable {
        /// The photo's id.
        public var id: PhotoID
        /// The file name of its JPEG in the export folder, such as `Dwu85P9SOIk.jpg`.
        public var fileName: String
        /// The file name of the photographer's picture, if the photo has one.
        public var userImageFileName: String?
        /// The bytes of the photo's files together.
        public var byteCount: Int
    }

    /// The export folder.
    public var directory: URL
    /// The photos exported, in the order of the listing (newest first unless asked otherwise).
    public var photos: [Photo]
    /// The bytes of all JPEGs exported.
    public var byteCount: Int
    /// One sentence for each photo left out because its record or image was damaged (the export
    /// holds the rest), and for damage to the store's index that the listing worked around.
    public var damage: [String]
}

/// Sizes as people read them.
public enum ByteCount {
    /// `2.31 MB`: in units of 1024, with two decimals, as photo apps show sizes; `512 B` below 1 KB.
    public static func formatted(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return decimalText(value, places: 2) + " " + units[unit]
    }
}
