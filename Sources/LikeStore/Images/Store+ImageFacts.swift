// Photos liked before their files' facts were kept (orientation, camera facts, the pixels' mean
// colour) get them without a manual step: each writing command, and the gallery while it serves,
// reads them for the next photos, newest first, within a time limit, and keeps its place in
// `image-facts` until every photo has them.

import JPEGCodec
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// How far the reading of facts has come.
package struct StoreImageFactsProgress: Sendable, Hashable {
    /// Photos whose records were given their facts by this call.
    package var updated: Int
    /// Whether every photo has them now.
    package var complete: Bool
}

extension StoreLayout {
    /// `done` once every photo's facts were read; else where the reading stands (`LIKEDAT KEY`,
    /// the last photo looked at, newest first). Missing: not begun.
    static let imageFactsFileName = "image-facts"
}

extension Store {
    /// Reads the facts of photos liked before they were kept, newest first, until `deadline`
    /// (a time from ``Timestamp/now()``), each written into its record as a change of nothing
    /// else: the mean colour (for a photo whose source gave none), the orientation with the size
    /// as displayed, and the camera's facts; a turned photo's thumbnail is made anew upright.
    /// Costs one look at a file once every photo has them.
    ///
    /// - Throws: `io` when the store cannot be written; ``StoreError/busy`` and the like.
    package func readImageFacts(until deadline: Int64) throws -> StoreImageFactsProgress {
        guard let opened = try open() else { return StoreImageFactsProgress(updated: 0, complete: true) }
        let place = try opened.root.read(StoreLayout.imageFactsFileName).map { String(decoding: $0, as: UTF8.self) }
        if place == "done" { return StoreImageFactsProgress(updated: 0, complete: true) }
        var after = place.flatMap(Self.listingKey)
        var updated = 0
        while Timestamp.now() < deadline {
            let page = try self.page(
                StoreQuery(newestFirst: true, limit: 16, offset: 0, after: after, since: nil, album: nil, color: nil, words: nil))
            for item in page.items {
                if item.record.image.orientation == nil {
                    // Out of time: the place stays before this photo.
                    guard Timestamp.now() < deadline else {
                        if let after { try saveFactsPlace("\(after.likedAt) \(after.key)") }
                        return StoreImageFactsProgress(updated: updated, complete: false)
                    }
                    if try readFacts(of: item.record, opened) { updated += 1 }
                }
                after = item.record.listingKey
            }
            if let after { try saveFactsPlace("\(after.likedAt) \(after.key)") }
            guard page.more, !page.items.isEmpty else {
                try saveFactsPlace("done")
                return StoreImageFactsProgress(updated: updated, complete: true)
            }
        }
        return StoreImageFactsProgress(updated: updated, complete: false)
    }

    /// Reads one photo's facts from its image file and writes them into its record; false when
    /// the file is not whole, or the record changed meanwhile.
    private func readFacts(of record: StoredRecord, _ opened: OpenStore) throws -> Bool {
        let name = StoreLayout.imageFileName(record.key, record.image.generation, user: false)
        guard case .whole(let data)? = try opened.images?.read(name, as: record.image),
            var request = try? StoreRequest.Image(data, kind: .image)
        else { return false }
        if StoredRecord.catalogColor(record.photo?.color) == nil { request.measureColor() }
        guard let checksum = UInt32(record.image.crc32, radix: 16) else { return false }
        var image = request.stored(generation: record.image.generation, checksum: checksum)
        image.bytes = record.image.bytes
        return try withWriteSession { session in
            guard let current = try? session.existingRecord(record.id), current.image.isSameFile(as: record.image),
                current.image.orientation == nil
            else { return false }
            return try session.replaceImageFacts(of: current, with: image) != nil
        }
    }

    /// Writes where the reading stands, in place and unflushed: a file lost or torn by a crash
    /// only means starting again from the newest photo (whose facts are then found read), and
    /// no temporary file is ever left behind. A writer beside this one may win the name.
    private func saveFactsPlace(_ text: String) throws {
        guard let opened = try open() else { return }
        try? opened.root.remove(StoreLayout.imageFactsFileName)
        try? opened.root.createFile(StoreLayout.imageFactsFileName, data: Data(text.utf8), durable: false)
    }

    /// `LIKEDAT KEY` as a place in the listing.
    private static func listingKey(_ text: String) -> ListingKey? {
        let parts = text.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let likedAt = Int64(parts[0]) else { return nil }
        return ListingKey(likedAt: likedAt, key: String(parts[1]))
    }
}
