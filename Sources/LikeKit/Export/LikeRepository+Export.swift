// Export to share: the JPEGs under readable names, with an index as JSON and as a web page.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension LikeRepository {
    /// The format name in every export's `index.json`, which marks a folder as an export.
    static let exportFormat = "likes-export-1"

    /// Copies the photos a query lists into a folder to share: each JPEG under a readable name
    /// (`Dwu85P9SOIk.jpg`, and `Dwu85P9SOIk.photographer.jpg` for the photographer's picture),
    /// `index.json` describing them, and `index.html`, a self-contained contact sheet.
    ///
    /// ```swift
    /// let report = try repository.export(to: folder, query: LikeQuery(album: try AlbumName("Lisbon")))
    /// ```
    ///
    /// The export is built beside `directory` in a hidden folder and put in place in one step:
    /// `directory` shows the whole export or what it held before, never part of one. It may be
    /// missing, empty, or an earlier export, which is replaced; a folder with other files is
    /// refused. The copies are checked against the checksums taken when each photo was liked,
    /// and flushed to disk (unless the repository is ``Durability/relaxed``). The store is only
    /// read, so other processes may change it meanwhile: a photo unliked during the export is
    /// left out.
    ///
    /// - Parameters:
    ///   - directory: The export folder; its parent must exist.
    ///   - query: The photos to export and their order; all of them, newest first, by default.
    ///     `limit` and `offset` apply as in ``list(_:)-1u07d``.
    /// - Returns: What was written, and any damage passed over.
    /// - Throws: ``LikeRepositoryError``: `noSuchAlbum` for an album with no photo,
    ///   `exportDestinationUnusable` for a folder with other files, a file, a missing parent;
    ///   `io` (the folder is then as it was).
    @discardableResult
    public func export(to directory: URL, query: LikeQuery = LikeQuery()) throws -> ExportReport {
        let target = directory.standardizedFileURL
        let name = target.lastPathComponent
        guard !name.isEmpty, name != "/", name != ".", name != ".." else {
            throw LikeRepositoryError.invalidArgument("Export into a folder of its own, not \(target.path).")
        }
        var batches = try ExportBatches(query: query)
        var first = try batches.next(self)
        if first?.isEmpty ?? true, let album = query.album, try !albums().contains(where: { $0.name == album }) {
            throw LikeRepositoryError.noSuchAlbum(album)
        }
        var index = ExportIndexStream(query: query)
        var photos: [ExportReport.Photo] = []
        let damage = try translating {
            try store.export(
                batches: {
                    defer { first = nil }
                    return try first ?? batches.next(self)
                }, to: target.path, isEarlierExport: Self.isExport,
                written: { photo, writer in photos.append(try index.add(photo, writer)) },
                finish: { writer in try index.finish(writer) })
        }
        return ExportReport(
            directory: target, photos: photos, byteCount: photos.reduce(0) { $0 + $1.byteCount }, damage: batches.damage + damage)
    }

    /// Whether `data`, a folder's `index.json`, is that of an export of this version.
    private static func isExport(_ data: Data) -> Bool {
        (try? JSONDecoder().decode(ExportIndex.Header.self, from: data))?.format == exportFormat
    }
}

/// The records an export asks for, a batch at a time, each batch starting where the last ended:
/// the query's `offset` skips photos once, and its `limit` counts them all.
private struct ExportBatches {
    /// The most records an export holds at once.
    static let size = 500

    private var query: LikeQuery
    private var left: Int?
    private var done = false
    /// The damage the listing passed over.
    private(set) var damage: [String] = []

    init(query: LikeQuery) throws {
        self.query = query
        left = query.limit
    }

    /// The next batch; `nil` after the last.
    mutating func next(_ repository: LikeRepository) throws -> [StoredRecord]? {
        guard !done, left.map({ $0 > 0 }) ?? true else { return nil }
        query.limit = min(Self.size, left ?? Self.size)
        let page = try repository.select(query)
        damage += page.damage
        left = left.map { $0 - page.items.count }
        done = !page.more
        if let last = page.items.last {
            query.after = LikeCursor(stored: last.record, orderDate: query.orderDate)
            query.offset = 0
        }
        return page.items.map(\.record)
    }
}
