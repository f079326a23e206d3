// Owns images/: checking an image a record names, and finding a photo's image files. Called by
// WriteSession, OpenStore, verify and repair.

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

/// The image files of a store: `images/KEY~GEN.jpg` and `KEY~GEN.user.jpg`, written once and
/// never changed.
struct ImageFiles {
    static let directoryName = StoreLayout.imagesDirectory

    let directory: StoreDirectory

    /// What is wrong with an image a record names, as the end of a sentence ("is missing"), or
    /// `nil` when it is whole: there, of the size and checksum it had when liked, a JPEG.
    func problem(_ name: String, _ info: StoredRecord.Image) throws -> String? {
        if case .damaged(let problem) = try read(name, as: info) { return problem }
        return nil
    }

    /// The image `name` as a record describes it by `info`, read through one descriptor opened
    /// without following a link and checked to be a regular file (``StoreDirectory/read(_:)``),
    /// then against the size and checksum it had when liked, and as a JPEG: its bytes, or what is
    /// wrong with it.
    func read(_ name: String, as info: StoredRecord.Image) throws -> Checked {
        let data: Data
        do {
            guard let read = try directory.read(name) else { return .damaged("is missing") }
            data = read
        } catch StoreError.io(_, _, let code) where code == EISDIR || code == ELOOP {
            return .damaged(code == ELOOP ? "is a symbolic link, not a file of the store" : "is not a regular file")
        }
        guard data.count == info.bytes else { return .damaged("has \(data.count) bytes where \(info.bytes) were liked: it was cut short or changed") }
        guard UInt32(info.crc32, radix: 16) == data.withUnsafeBytes({ CRC32.checksum($0) }) else {
            return .damaged("changed since it was liked (its checksum differs)")
        }
        guard (try? PhotoCheck.header(of: data)) != nil else { return .damaged("is not a valid JPEG") }
        return .whole(data)
    }

    /// Whether the image `name`, which a record describes by `info`, is whole and holds exactly
    /// the bytes of `image`: compared byte for byte, the file given a piece at a time.
    func holds(_ image: StoreRequest.Image, _ name: String, as info: StoredRecord.Image) throws -> Bool {
        guard image.byteCount == info.bytes else { return false }
        if case .bytes(_, let checksum) = image.source, StoreRequest.Image.text(checksum) != info.crc32 { return false }
        guard case .whole(let stored) = try read(name, as: info) else { return false }
        switch image.source {
        case .bytes(let data, _):
            return data == stored
        case .file(let path, let version):
            let file = try ImageFileReader(path: path)
            defer { file.close() }
            guard file.version == version else { return false }
            var offset = 0
            var same = true
            try stored.withUnsafeBytes { stored in
                try file.forEachPiece { piece in
                    guard same, offset + piece.count <= stored.count else {
                        same = false
                        return
                    }
                    guard let given = piece.baseAddress, let kept = stored.baseAddress else {
                        same = piece.isEmpty
                        return
                    }
                    same = memcmp(given, kept + offset, piece.count) == 0
                    offset += piece.count
                }
            }
            return same && offset == stored.count
        }
    }

    /// An image read and checked: its bytes, or what is wrong with it.
    enum Checked {
        case whole(Data)
        case damaged(String)
    }

    /// Every file of images/ that belongs to the photo with `key`, sorted.
    func names(of key: String) throws -> [String] {
        try directory.names().filter { StoreLayout.key(ofImageFile: $0) == key }.sorted()
    }
}
