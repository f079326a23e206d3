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
        let page = try select(query)
        if page.items.isEmpty, let album = query.album, try !albums().contains(where: { $0.name == album }) {
            throw LikeRepositoryError.noSuchAlbum(album)
        }
        let target = directory.standardizedFileURL
        let name = target.lastPathComponent
        guard !name.isEmpty, name != "/", name != ".", name != ".." else {
            throw LikeRepositoryError.invalidArgument("Export into a folder of its own, not \(target.path).")
        }
        let outcome = try translating {
            try store.export(page.items.map(\.record), to: target.path, isEarlierExport: Self.isExport) { exported in
                let index = ExportIndex(photos: exported.map(ExportIndex.Photo.init), query: query, format: Self.exportFormat)
                return [("index.json", try index.encoded()), ("index.html", Data(ContactSheet(index: index).html.utf8))]
            }
        }
        let photos = outcome.photos.map { ExportIndex.Photo($0).report }
        return ExportReport(
            directory: target, photos: photos, byteCount: photos.reduce(0) { $0 + $1.byteCount }, damage: page.damage + outcome.damage)
    }

    /// Whether `data`, a folder's `index.json`, is that of an export of this version.
    private static func isExport(_ data: Data) -> Bool {
        (try? JSONDecoder().decode(ExportIndex.Header.self, from: data))?.format == exportFormat
    }
}
