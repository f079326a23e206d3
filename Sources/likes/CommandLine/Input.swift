// Reading the files a command is given: every failure is exit 66 with the file named.

import LikeKit
import PhotoSources

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

enum Input {
    /// A regular file named on the command line, checked to be there and of a photo's size, for
    /// LikeKit to copy a piece at a time.
    static func checkedFile(_ path: String, what: String) throws -> URL {
        try checkSize(try kindAndSize(path, what: what), of: path, what: what)
        guard System.isReadable(path) else {
            throw CommandFailure("The \(what) \(path) cannot be read. Check its permissions.", status: .noInput)
        }
        return URL(fileURLWithPath: path)
    }

    /// Photos of up to 256 MB: a thumbnail is decoded from the whole photo in memory.
    private static func checkSize(_ size: Int, of path: String, what: String) throws {
        let limit = 256 * 1024 * 1024
        if size > limit {
            throw CommandFailure(
                "The \(what) \(path) is \(Format.size(size)), more than the \(Format.size(limit)) a photo may have.", status: .badData)
        }
    }

    /// The size of a regular file named on the command line; a failure names it (exit 66).
    private static func kindAndSize(_ path: String, what: String) throws -> Int {
        guard let (kind, size) = System.kindAndSize(of: path) else {
            throw CommandFailure("The \(what) \(path) does not exist. Check the path.", status: .noInput)
        }
        guard kind != .directory else {
            throw CommandFailure("The \(what) \(path) is a directory, not a file. Name a file.", status: .noInput)
        }
        guard kind == .regular else {
            throw CommandFailure("The \(what) \(path) is not a regular file. Name a regular file.", status: .noInput)
        }
        return size
    }

    /// The bytes of a regular file named on the command line, read whole.
    static func readFile(_ path: String, what: String) throws -> Data {
        try checkSize(try kindAndSize(path, what: what), of: path, what: what)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("The \(what) \(path) cannot be read. Check its permissions.", status: .noInput)
        }
        return data
    }

    /// The bytes of a regular file named on the command line, mapped rather than copied into
    /// memory: a photo a thumbnail is made of is read once, page by page, by the decoder.
    static func mapFile(_ path: String, what: String) throws -> Data {
        try checkSize(try kindAndSize(path, what: what), of: path, what: what)
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw CommandFailure("The \(what) \(path) cannot be read. Check its permissions.", status: .noInput)
        }
    }

    /// A photo id from the command line.
    static func photoID(_ text: String) throws -> PhotoID {
        do {
            return try PhotoID(text)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// An album name from the command line.
    static func albumName(_ text: String) throws -> AlbumName {
        do {
            return try AlbumName(text)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// The albums of a repeatable `--album` option.
    static func albums(_ names: [String]) throws -> [AlbumName] {
        try names.map(albumName)
    }

    /// A date for `--since`: `2026-11-01` (midnight, local time) or an ISO 8601 date and time
    /// such as `2026-11-01T08:00:00Z`.
    static func since(_ text: String?, command: String) throws -> Date? {
        guard let text else { return nil }
        if let date = LikeTimestamp.date(from: text) { return date }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            let date = System.localMidnight(year: year, month: month, day: day)
        {
            return date
        }
        throw UsageError(
            message: "--since takes a date such as 2026-11-01 or 2026-11-01T08:00:00Z; \"\(Format.oneLine(text))\" is not one", command: command)
    }

    /// The metadata of an Unsplash photo object in a file (`--meta`).
    static func metadata(_ path: String) throws -> PhotoMetadata {
        let data = try readFile(path, what: "metadata file")
        do {
            let photos = try UnsplashPhoto.photos(fromJSON: data)
            guard photos.count == 1 else {
                throw CommandFailure(
                    "The metadata file \(path) holds \(photos.count) photos; --meta takes one Unsplash photo object.", status: .badData)
            }
            return photos[0].metadata
        } catch let error as PhotoSourceError {
            throw CommandFailure("The metadata file \(path) is not usable: \(error.description) Give an Unsplash photo object.", status: .badData)
        }
    }
}
