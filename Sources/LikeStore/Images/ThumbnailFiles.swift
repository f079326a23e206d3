// Owns thumbnails/: each liked photo's thumbnail, a cache derived from its image. Never part of a
// commit: made after the like (or on first need), rebuilt when missing or damaged, removed with
// the photo, and an orphan once its image is gone. Called by Store+Thumbnails,
// WriteSession (removal), purge, verify and repair.

import JPEGCodec
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The thumbnails folder of a store: `thumbnails/KEY~GEN.jpg` for the main image of generation
/// GEN.
///
/// A thumbnail is the codec's baseline JPEG with a comment segment after SOI that names the
/// image generation it was made from and the CRC-32 of every byte after the segment: `verify`
/// tells a damaged thumbnail from a whole one without decoding it.
package struct ThumbnailFiles {
    package static let directoryName = StoreLayout.thumbnailsDirectory
    /// The size of a stored thumbnail: a long side of at most 512 pixels, and for a photo larger
    /// than that at least 256, as cheaply as the DCT allows (a 12-megapixel photo at 1/8).
    package static let size = JPEGThumbnail.Size.atMost(512)

    /// `nil` while no thumbnail was ever made.
    let directory: StoreDirectory?

    /// What the comment segment of a thumbnail starts with.
    private static let signature = Array("likes-thumbnail ".utf8)

    /// Whether the thumbnail made from `generation` is there and whole (read and checked).
    func state(key: String, generation: String) throws -> State {
        try read(key: key, generation: generation).state
    }

    /// The thumbnail's bytes when it is whole, read once.
    func bytesIfWhole(key: String, generation: String) throws -> Data? {
        let read = try read(key: key, generation: generation)
        guard case .whole = read.state else { return nil }
        return read.data
    }

    private func read(key: String, generation: String) throws -> (state: State, data: Data?) {
        guard let directory else { return (.missing, nil) }
        let name = StoreLayout.thumbnailFileName(key, generation)
        let data: Data
        do {
            guard let read = try directory.read(name) else { return (.missing, nil) }
            data = read
        } catch StoreError.io(_, _, let code) where code == EISDIR || code == ELOOP {
            return (.damaged(code == ELOOP ? "is a symbolic link, not a file of the store" : "is not a regular file"), nil)
        }
        if let problem = Self.problem([UInt8](data), generation: generation) { return (.damaged(problem), nil) }
        return (.whole(bytes: data.count), data)
    }

    /// The thumbnail's size, if a file of its name exists: what a record shows, without reading it.
    func size(key: String, generation: String) throws -> Int? {
        guard let entry = try directory?.entry(StoreLayout.thumbnailFileName(key, generation)), entry.isRegularFile else { return nil }
        return entry.size
    }

    enum State: Equatable {
        case missing
        case damaged(String)
        case whole(bytes: Int)
    }

    /// Why the bytes are no whole thumbnail of `generation`, or `nil` when they are one.
    static func problem(_ bytes: [UInt8], generation: String) -> String? {
        guard bytes.count > 4 + 4 + signature.count + Generation.length + 9, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF, bytes[3] == 0xFE
        else { return "is not a thumbnail of ours" }
        let length = Int(bytes[4]) << 8 | Int(bytes[5])
        guard length >= 2, 4 + length <= bytes.count else { return "is cut short" }
        let comment = Array(bytes[6..<(4 + length)])
        guard comment.starts(with: signature) else { return "is not a thumbnail of ours" }
        let fields = String(decoding: comment.dropFirst(signature.count), as: UTF8.self).split(separator: " ")
        guard fields.count == 2 || (fields.count == 3 && fields[2].hasPrefix(damagePrefix)), fields[0] == generation else {
            return "was made from another image"
        }
        let checksum = bytes[(4 + length)...].withUnsafeBytes { CRC32.checksum($0) }
        guard fields[1] == StoreRequest.Image.text(checksum) else { return "has changed since it was made (its checksum differs)" }
        return nil
    }

    /// What a tag says of a photo whose JPEG was damaged: `damaged=` and the codec's words, escaped.
    private static let damagePrefix = "damaged="

    /// `jpeg` (a codec thumbnail, starting with SOI) with the comment segment for `generation`,
    /// and, when the photo's JPEG data was damaged, what was wrong with it.
    package static func tagged(_ jpeg: [UInt8], generation: String, damage: String? = nil) -> [UInt8] {
        let rest = jpeg.dropFirst(2)
        let checksum = rest.withUnsafeBytes { CRC32.checksum($0) }
        var text = "\(generation) \(StoreRequest.Image.text(checksum))"
        if let damage { text += " " + damagePrefix + PercentEscaping.journalField.escape(damage) }
        let comment = signature + Array(text.utf8)
        return [0xFF, 0xD8, 0xFF, 0xFE, UInt8((comment.count + 2) >> 8), UInt8((comment.count + 2) & 0xFF)] + comment + rest
    }

    /// What the tag of a thumbnail says was wrong with its photo's JPEG data; `nil` when nothing
    /// was (or the bytes are no thumbnail of ours).
    static func damage(in bytes: [UInt8]) -> String? {
        guard bytes.count > 6, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF, bytes[3] == 0xFE else { return nil }
        let length = Int(bytes[4]) << 8 | Int(bytes[5])
        guard 4 + length <= bytes.count else { return nil }
        let comment = String(decoding: bytes[6..<(4 + length)], as: UTF8.self)
        guard let field = comment.split(separator: " ").last, field.hasPrefix(damagePrefix),
            let text = PercentEscaping.journalField.unescape(String(field.dropFirst(damagePrefix.count)))
        else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// A tagged thumbnail (see ``tagged(_:generation:damage:)``) without its comment segment: the
    /// codec's JPEG, as an export shares it. Bytes that are not tagged come back as they are.
    package static func untagged(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count > 6, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF, bytes[3] == 0xFE else { return bytes }
        let length = Int(bytes[4]) << 8 | Int(bytes[5])
        guard 4 + length <= bytes.count, Array(bytes[6..<min(6 + signature.count, bytes.count)]) == signature else { return bytes }
        return [0xFF, 0xD8] + bytes[(4 + length)...]
    }

    /// The pixel size of the thumbnail of a `width` x `height` photo, as the codec makes it.
    static func pixelSize(width: Int, height: Int) -> (width: Int, height: Int) {
        JPEGThumbnail.size(ofWidth: width, height: height, size: size)
    }
}

extension StoreLayout {
    static let thumbnailsDirectory = "thumbnails"

    static func thumbnailFileName(_ key: String, _ generation: String) -> String { key + "~" + generation + ".jpg" }
}
