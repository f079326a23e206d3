// Restore: an export read back into a store, each photo as it was (id, likedAt, note, albums,
// metadata, byte-identical images), checked against the sizes and SHA-256 of its index.json.

import LikeStore
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// What ``LikeRepository/restore(from:progress:)-1yizm`` did with each photo of an export.
public struct RestoreReport: Sendable, Hashable {
    /// A photo of the export, by its id and the file name of its JPEG in the export.
    public struct Photo: Sendable, Hashable {
        public var id: PhotoID
        public var file: String
    }

    /// A photo of the export that was not restored, and why.
    public struct Refusal: Sendable, Hashable {
        /// The file at fault, by its name in the export (`index.json` when its entry is).
        public var file: String
        /// The photo's id as `index.json` gives it, when it gives one.
        public var id: String?
        /// Why, as a phrase: `"its SHA-256 differs from index.json"`.
        public var reason: String
    }

    /// The export folder.
    public var directory: URL
    /// The photos restored, oldest first.
    public var restored: [Photo]
    /// The photos left as they were because the store had them liked already (not an error).
    public var alreadyLiked: [Photo]
    /// The photos refused, each naming the file at fault; the others were restored.
    public var refused: [Refusal]
}

extension LikeRepository {
    /// Whether `directory` holds an `index.json`: then an import of it is a restore
    /// (``restore(from:progress:)-1yizm``), whatever the index says, rather than a like of its JPEGs.
    public static func isExport(_ directory: URL) -> Bool {
        guard let folder = try? ExportFolder.open(directory.standardizedFileURL.path) else { return false }
        return folder.holdsFile("index.json")
    }

    /// Restores an export (``export(to:query:)-lbdl``) into this store: LikeKit's import of an
    /// exported folder. Each photo comes back as it was exported, with the same id (from
    /// `index.json`, not the file name), `likedAt`, note, albums and metadata, its image and
    /// photographer's picture byte-identical; its thumbnail is taken from the export too.
    ///
    /// ```swift
    /// let report = try repository.restore(from: backupFolder)
    /// print("\(report.restored.count) restored, \(report.alreadyLiked.count) were here already")
    /// ```
    ///
    /// A photo the store has liked already is left as it is and reported in
    /// ``RestoreReport/alreadyLiked``. A photo whose file is missing, differs from the size or
    /// SHA-256 that `index.json` gives, or is not a JPEG, is refused and named in
    /// ``RestoreReport/refused``; the rest are restored. Restoring the same folder again
    /// restores what is still missing, so a restore cut short by a crash is finished by running
    /// it again.
    ///
    /// Each photo is committed as a like is, durable and whole or not there at all after a crash
    /// or a power cut, in batches that let other processes take their turn between them. The
    /// likes are committed oldest first; where one is older than a photo the store has already,
    /// the store's journal is marked unsorted while the restore runs and sorted at its end (a
    /// store left so by a crash is sorted by its next change). Observers hear each photo as
    /// ``LikeChange/Kind/liked``.
    ///
    /// - Parameters:
    ///   - directory: A folder an export wrote: `index.json` of format `likes-export-1` and the
    ///     files it names.
    ///   - progress: Called after each batch with the photos dealt with so far and their number.
    /// - Returns: What was restored, found liked already, and refused.
    /// - Throws: ``LikeRepositoryError``: `unusableExport` when `index.json` is missing, of a
    ///   format this version does not know, or unreadable (then nothing is stored); `storeBusy`
    ///   or `io` when the store itself fails (the photos restored before stay restored).
    @discardableResult
    public func restore(from directory: URL, progress: ((_ done: Int, _ total: Int) -> Void)? = nil) throws -> RestoreReport {
        let folder = directory.standardizedFileURL
        var report = RestoreReport(directory: folder, restored: [], alreadyLiked: [], refused: [])
        let planned = Self.plannedRestores(try Self.readExportIndex(folder), report: &report)
        var done = 0
        var withoutThumbnail: [PhotoID] = []
        var failure: (any Error)?
        var wroteAny = false  // whether a batch went to the store, which may then be marked unsorted
        var start = 0
        while start < planned.count {
            let batch = planned[start..<min(start + Self.restoreBatchSize, planned.count)]
            start = batch.endIndex
            do {
                wroteAny = try restoreBatch(batch, from: folder, report: &report, withoutThumbnail: &withoutThumbnail) || wroteAny
            } catch {
                failure = error
                break
            }
            done += batch.count
            progress?(done, planned.count)
        }
        // Sorted also after a failure, when the store lets it be; else the next change sorts it.
        // Also when every photo was there already: a restore killed after its last batch and
        // before its sort is finished by running it again. (A restore that found no photo there
        // and stored none leaves a missing store missing; one that found the store locked by
        // another process for too long does not wait again.)
        var busy = false
        if case LikeRepositoryError.storeBusy? = failure { busy = true }
        if wroteAny || !report.alreadyLiked.isEmpty, !busy {
            do {
                try translating { try store.sortJournalAfterRestore() }
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        // Exports of JPEGs that cannot be scaled have none; the codec says so quickly.
        _ = try? makeThumbnails(for: withoutThumbnail)
        return report
    }

    /// The index's readable photos with their times, oldest first; the rest refused into `report`.
    private static func plannedRestores(
        _ entries: [IndexEntry], report: inout RestoreReport
    ) -> [(entry: ExportIndex.Photo, likedAt: Int64)] {
        var planned: [(entry: ExportIndex.Photo, likedAt: Int64)] = []
        var seen = Set<String>()
        for entry in entries {
            switch entry {
            case .refused(let refusal):
                report.refused.append(refusal)
            case .readable(let photo):
                guard let likedAt = Timestamp.parse(photo.likedAt) else {
                    report.refused.append(RestoreReport.Refusal(file: "index.json", id: photo.id.rawValue, reason: "its likedAt is not a time"))
                    continue
                }
                guard seen.insert(photo.id.storageKey).inserted else {
                    report.refused.append(RestoreReport.Refusal(file: photo.file, id: photo.id.rawValue, reason: "index.json lists its id twice"))
                    continue
                }
                planned.append((photo, likedAt))
            }
        }
        // Oldest first: into an empty store, or one whose photos are all older, every line is
        // appended in the listing's order.
        planned.sort {
            ListingKey(likedAt: $0.likedAt, key: $0.entry.id.storageKey) < ListingKey(likedAt: $1.likedAt, key: $1.entry.id.storageKey)
        }
        return planned
    }

    /// Restores one batch: its photos read and checked, committed together, their thumbnails
    /// put. Returns whether anything went to the store.
    private func restoreBatch(
        _ batch: ArraySlice<(entry: ExportIndex.Photo, likedAt: Int64)>, from folder: URL, report: inout RestoreReport,
        withoutThumbnail: inout [PhotoID]
    ) throws -> Bool {
        let present = try likedIDs(among: batch.map(\.entry.id))
        var prepared: [PreparedRestore] = []
        for (entry, likedAt) in batch {
            if present.contains(entry.id) {
                report.alreadyLiked.append(RestoreReport.Photo(id: entry.id, file: entry.file))
                continue
            }
            do {
                prepared.append(try PreparedRestore(entry, likedAt: likedAt, folder: folder.path))
            } catch let refusal as PreparedRestore.Refused {
                report.refused.append(RestoreReport.Refusal(file: refusal.file, id: entry.id.rawValue, reason: refusal.reason))
            }
        }
        let committed = try commitRestored(prepared)
        for (photo, record) in committed {
            guard let record else {
                report.alreadyLiked.append(RestoreReport.Photo(id: photo.entry.id, file: photo.entry.file))
                continue
            }
            let id = PhotoID(stored: record.id)
            report.restored.append(RestoreReport.Photo(id: id, file: photo.entry.file))
            if photo.thumbnail == nil { withoutThumbnail.append(id) }
        }
        let thumbnails = committed.compactMap { photo, record -> (record: StoredRecord, jpeg: [UInt8])? in
            guard let record, let thumbnail = photo.thumbnail else { return nil }
            return (record, thumbnail)
        }
        // Those not of their record's size (a turned photo's, on its side in an export by a
        // version that did not turn photos upright) are made anew.
        withoutThumbnail += try translating { try store.putThumbnails(thumbnails) }.map(PhotoID.init(stored:))
        return !prepared.isEmpty
    }

    /// Likes a photo again as it was before an unlike, at its old `likedAt`, so that it comes
    /// back in its place in the listing: what an undo of an unlike does (the gallery's). A
    /// restore of one photo: committed as a like, the journal marked unsorted first where the
    /// photo is older than another, and sorted before the lock is let go.
    ///
    /// - Returns: The ``LikeChange/Kind/liked`` change, or `nil` when the photo is liked already
    ///   (then nothing is changed).
    package func likeAgain(
        _ id: PhotoID, likedAt: Date, image: Data, userImage: Data?, note: String?, photo: PhotoMetadata?, albums: [AlbumName],
        covers: [AlbumName] = []
    ) throws -> LikeChange? {
        var request = try storeRequest(id, image: image, userImage: userImage, note: note, photo: photo, albums: albums)
        request.setsCovers = covers.map(\.rawValue)
        let change = try translating { try store.likeAgain(request, likedAt: Timestamp.milliseconds(likedAt), onCommit: observers.changed) }
        return change.map(publicChange)
    }

    /// How many photos a restore commits under one hold of the store's lock.
    static let restoreBatchSize = 64

    /// Commits prepared photos in one write session, flushed together at its end; each one's
    /// record as committed, or `nil` when the store had it liked already.
    private func commitRestored(_ photos: [PreparedRestore]) throws -> [(PreparedRestore, StoredRecord?)] {
        let records = try translating { try store.restore(photos.map { ($0.request, $0.likedAt) }, onCommit: observers.changed) }
        return Array(zip(photos, records))
    }

    /// Reads an export's `index.json`: each photo's entry, or the refusal of one that cannot be
    /// read. Throws `unusableExport` for a missing index, an unknown format or an index that is
    /// not one.
    static func readExportIndex(_ folder: URL) throws -> [IndexEntry] {
        let (data, path) = try checkedExportIndex(folder)
        guard let index = try? JSONDecoder().decode(LenientIndex.self, from: data) else {
            throw LikeRepositoryError.unusableExport(path: path, reason: "its index.json has no list of photos")
        }
        return index.photos.enumerated().map { number, entry in
            if let photo = entry.photo { return .readable(photo) }
            return .refused(
                RestoreReport.Refusal(file: "index.json", id: entry.id, reason: "its entry \(number + 1) cannot be read: \(entry.problem ?? "")"))
        }
    }

    /// Checks, before anything is stored, that `directory` holds an index of a format this
    /// version restores (the command line checks every folder given first).
    ///
    /// - Throws: ``LikeRepositoryError/unusableExport(path:reason:)`` saying what is wrong.
    package static func checkExport(_ directory: URL) throws {
        _ = try checkedExportIndex(directory.standardizedFileURL)
    }

    /// The bytes of the folder's `index.json`, once its format is known to be an export's.
    private static func checkedExportIndex(_ folder: URL) throws -> (data: Data, path: String) {
        let path = folder.path
        let data: Data
        do {
            guard let directory = try LikeRepositoryError.translating({ try ExportFolder.open(path) }) else {
                throw LikeRepositoryError.unusableExport(path: path, reason: "the folder does not exist")
            }
            guard let read = try LikeRepositoryError.translating({ try directory.read("index.json") }) else {
                throw LikeRepositoryError.unusableExport(path: path, reason: "it has no index.json")
            }
            data = read
        }
        guard let header = try? JSONDecoder().decode(LenientHeader.self, from: data) else {
            throw LikeRepositoryError.unusableExport(path: path, reason: "its index.json is not a JSON object")
        }
        guard let format = header.format else {
            throw LikeRepositoryError.unusableExport(path: path, reason: "its index.json names no format")
        }
        guard format == exportFormat else {
            throw LikeRepositoryError.unusableExport(
                path: path, reason: "its index.json is of format \(LikeRepositoryError.quoted(format)), which this version does not know")
        }
        return (data, path)
    }

    /// A photo's entry in `index.json`, or why it cannot be read.
    enum IndexEntry {
        case readable(ExportIndex.Photo)
        case refused(RestoreReport.Refusal)
    }

    /// Enough of an index to know its format, whatever else it holds.
    private struct LenientHeader: Decodable {
        var format: String?
    }

    /// An index whose entries are read one by one, so that one bad entry refuses one photo.
    private struct LenientIndex: Decodable {
        struct Entry: Decodable {
            var photo: ExportIndex.Photo?
            var problem: String?
            var id: String?

            private enum Keys: String, CodingKey { case id }

            init(from decoder: any Decoder) throws {
                id = try? decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .id)
                do {
                    photo = try ExportIndex.Photo(from: decoder)
                } catch let error as DecodingError {
                    problem = Self.reason(error)
                } catch {
                    problem = "\(error)"
                }
            }

            private static func reason(_ error: DecodingError) -> String {
                switch error {
                case .keyNotFound(let key, _): "it has no \(key.stringValue)"
                case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                    (context.codingPath.last.map { "its \($0.stringValue): " } ?? "") + context.debugDescription
                @unknown default: "\(error)"
                }
            }
        }

        var photos: [Entry]
    }
}

/// One photo of an export, checked against its index and ready to commit: its files found where
/// `index.json` says, of the sizes and SHA-256 it gives, JPEGs of the sizes in pixels it gives.
struct PreparedRestore {
    var entry: ExportIndex.Photo
    var likedAt: Int64
    var request: StoreRequest
    /// The thumbnail's bytes as the export has them (the codec's JPEG, untagged).
    var thumbnail: [UInt8]?

    /// Checks the photo's files; throws ``Refused`` naming the one at fault.
    init(_ entry: ExportIndex.Photo, likedAt: Int64, folder: String) throws {
        do {
            try self.init(checking: entry, likedAt: likedAt, folder: folder)
        } catch let refused as Refused {
            throw refused
        } catch let error as LikeRepositoryError {
            throw Refused(file: entry.file, reason: error.errorDescription ?? error.description)
        } catch let error as StoreError {
            let error = LikeRepositoryError(error)
            throw Refused(file: entry.file, reason: error.errorDescription ?? error.description)
        }
    }

    private init(checking entry: ExportIndex.Photo, likedAt: Int64, folder: String) throws {
        let image = try Self.checkedImage(entry.file, bytes: entry.bytes, sha256: entry.sha256, pixels: entry.pixels, kind: .image, folder: folder)
        let userImage = try entry.userImage.map { user in
            try Self.checkedImage(user.file, bytes: user.bytes, sha256: user.sha256, pixels: user.pixels, kind: .userImage, folder: folder)
        }
        thumbnail = try entry.thumbnail.map { try Self.checkedThumbnail($0, of: entry, folder: folder) }
        do {
            request = try LikeRepository.storeRequest(
                entry.id, image: image, userImage: userImage, note: entry.note, photo: entry.photo, albums: entry.albums)
            // A cover of an album the photo is not in is dropped, as the store keeps none.
            request.setsCovers = (entry.covers ?? []).map(\.rawValue)
        } catch LikeRepositoryError.invalidNote(let reason) {
            throw Refused(file: "index.json", reason: "its note cannot be kept: \(reason)")
        }
        self.entry = entry
        self.likedAt = likedAt
    }

    /// A file of the photo at fault, and why.
    struct Refused: Error {
        var file: String
        var reason: String
    }

    /// The path of a file the index names, if the name is one file's in the folder.
    private static func path(of name: String, in folder: String) throws -> String {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.utf8.contains(0) else {
            throw Refused(file: name, reason: "index.json names it outside the export folder")
        }
        return folder + "/" + name
    }

    /// Checks one of the photo's JPEGs against the index: size, digest (where the index has one),
    /// a JPEG of the sizes in pixels and the orientation it gives.
    private static func checkedImage(
        _ name: String, bytes size: Int, sha256: String?, pixels: ExportIndex.PixelSizes.Given, kind: StoreError.ImageRole, folder: String
    ) throws -> StoreRequest.Image {
        let path = try path(of: name, in: folder)
        let image: StoreRequest.Image
        do {
            // Its size and digest first, read a piece at a time from the file the JPEG's check reads.
            image = try StoreRequest.Image(file: path, kind: kind) { file in
                guard file.size == size else { throw Refused(file: name, reason: "it has \(file.size) bytes where index.json says \(size)") }
                guard let sha256 else { return }
                var digest = SHA256()
                try file.forEachPiece { digest.update($0) }
                if digest.finalizeHex() != sha256.lowercased() { throw Refused(file: name, reason: "its SHA-256 differs from index.json") }
            }
        } catch StoreError.notJPEG(_, let reason) {
            throw Refused(file: name, reason: "it is not a usable JPEG: \(reason)")
        } catch StoreError.io {
            throw Refused(file: name, reason: "it is missing or cannot be read")
        }
        if let mismatch = pixels.mismatch(ExportIndex.PixelSizes(stored: image.size, orientation: image.orientation)) {
            throw Refused(file: name, reason: mismatch)
        }
        return image
    }

    /// Reads the photo's thumbnail and checks it against the index: size, digest, a JPEG of the
    /// size in pixels a thumbnail of the photo has.
    private static func checkedThumbnail(_ thumbnail: ExportIndex.Image, of entry: ExportIndex.Photo, folder: String) throws -> [UInt8] {
        let path = try path(of: thumbnail.file, in: folder)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Refused(file: thumbnail.file, reason: "it is missing or cannot be read")
        }
        let bytes = [UInt8](data)
        guard bytes.count == thumbnail.bytes else {
            throw Refused(file: thumbnail.file, reason: "it has \(bytes.count) bytes where index.json says \(thumbnail.bytes)")
        }
        if let sha256 = thumbnail.sha256, bytes.withUnsafeBytes({ SHA256.hexDigest(of: $0) }) != sha256.lowercased() {
            throw Refused(file: thumbnail.file, reason: "its SHA-256 differs from index.json")
        }
        let size = StoredRecord.thumbnailSize(width: entry.width, height: entry.height)
        guard let header = try? StoreRequest.Image(data, kind: .image).size, header.width == size.width, header.height == size.height,
            thumbnail.width == size.width, thumbnail.height == size.height
        else {
            throw Refused(file: thumbnail.file, reason: "it is not the photo's thumbnail (a \(size.width)×\(size.height) JPEG)")
        }
        // An export before the tag was taken off shares the store's own, which names another image.
        return Store.untaggedThumbnail(bytes)
    }
}
