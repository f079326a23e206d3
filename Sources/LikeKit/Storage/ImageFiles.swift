// Owns images/: checking an image a record names, and finding a photo's image files. Called by
// WriteSession, OpenStore and the façade's verify and repair.

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// The image files of a store: `images/KEY~GEN.jpg` and `KEY~GEN.user.jpg`, written once and
/// never changed.
struct ImageFiles {
    static let directoryName = StoreLayout.imagesDirectory

    let directory: StoreDirectory

    /// What is wrong with an image a record names, as the end of a sentence ("is missing"), or
    /// `nil` when it is whole: there, of the size and checksum it had when liked, a JPEG.
    func problem(_ name: String, _ info: StoredRecord.Image) throws -> String? {
        guard let entry = try directory.entry(name) else { return "is missing" }
        guard entry.isRegularFile else { return "is not a regular file" }
        guard entry.size == info.bytes else { return "has \(entry.size) bytes where \(info.bytes) were liked: it was cut short or changed" }
        guard let data = try directory.read(name) else { return "is missing" }
        guard UInt32(info.crc32, radix: 16) == data.withUnsafeBytes({ CRC32.checksum($0) }) else {
            return "changed since it was liked (its checksum differs)"
        }
        guard (try? JPEGHeader(parsing: data)) != nil else { return "is not a valid JPEG" }
        return nil
    }

    /// Every file of images/ that belongs to the photo with `key`, sorted.
    func names(of key: String) throws -> [String] {
        try directory.names().filter { StoreLayout.key(ofImageFile: $0) == key }.sorted()
    }
}
