// What photo sources ask of a repository besides a like: photos liked at the time their source
// gives (a favourite's date), a request owed for a like and settled once made, and a note of
// where an import stopped. `package`: PhotoSources' imports call them; apps call PhotoSources.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// A photo to like at its own time, owing a request once it is stored.
package struct TimedLike: Sendable {
    package var item: LikeItem
    package var likedAt: Date
    /// The address a source asks to be requested once the photo is stored (Unsplash's
    /// `download_location`); owed in the like's own commit.
    package var owedRequest: String?

    package init(item: LikeItem, likedAt: Date, owedRequest: String? = nil) {
        self.item = item
        self.likedAt = likedAt
        self.owedRequest = owedRequest
    }
}

/// A request owed for a liked photo.
package struct OwedSourceRequest: Sendable, Hashable {
    package var id: PhotoID
    package var url: String
    let stored: OwedRequest
}

extension LikeRepository {
    /// Likes each photo at its own time, in one batch, as a restore does: the commits flushed
    /// together, the journal sorted at the end. A photo liked already is left as it is (`nil`).
    ///
    /// - Returns: For each photo, its change, `nil`, or why it was not liked (an image that is
    ///   not a JPEG).
    /// - Throws: ``LikeRepositoryError``: `storeBusy` or `io` when the store itself fails; the
    ///   photos committed before stay liked.
    package func like(at photos: [TimedLike]) throws -> [Result<LikeChange?, LikeRepositoryError>] {
        guard !photos.isEmpty else { return [] }
        var results: [Result<LikeChange?, LikeRepositoryError>?] = Array(repeating: nil, count: photos.count)
        var prepared: [(index: Int, request: StoreRequest, likedAt: Int64)] = []
        for (index, photo) in photos.enumerated() {
            let item = photo.item
            do {
                var request = try storeRequest(
                    item.id, image: item.image, userImage: item.userImage, note: item.note, photo: item.photo, albums: item.albums)
                request.owedRequest = photo.owedRequest
                prepared.append((index, request, Timestamp.milliseconds(photo.likedAt)))
            } catch let error as LikeRepositoryError {
                results[index] = .failure(error)
            }
        }
        let records = try translating { try store.restore(prepared.map { ($0.request, $0.likedAt) }, onCommit: observers.changed) }
        if !prepared.isEmpty { try translating { try store.sortJournalAfterRestore() } }
        for (photo, record) in zip(prepared, records) {
            results[photo.index] = .success(record.map { publicChange(StoredChange.liked($0)) })
        }
        return results.map { $0 ?? .success(nil) }
    }

    /// The requests photo sources owe for liked photos, oldest like first.
    package func owedRequests() throws -> [OwedSourceRequest] {
        try translating { try store.owedRequests() }.map { OwedSourceRequest(id: PhotoID(stored: $0.id), url: $0.url, stored: $0) }
    }

    /// Notes, durably, that an owed request was made.
    package func settle(_ request: OwedSourceRequest) throws {
        try translating { try store.settle(request.stored) }
    }

    /// A photo source's note of an import in progress, `nil` when there is none.
    package func sourceState(_ name: String) throws -> Data? {
        try translating { try store.sourceState(name) }
    }

    /// Replaces a photo source's note whole, or removes it (`nil`).
    package func setSourceState(_ data: Data?, for name: String) throws {
        try translating { try store.setSourceState(data, for: name) }
    }
}

extension LikeRepository {
    /// Likes a photo as ``like(_:image:userImage:note:photo:albums:)-3llxn`` does, owing
    /// `owedRequest` in the same commit when the image is stored anew.
    package func like(
        _ id: PhotoID, image: Data?, userImage: Data?, note: String?, photo: PhotoMetadata?, albums: [AlbumName], owing owedRequest: String?
    ) throws -> LikeChange {
        var request = try storeRequest(id, image: image, userImage: userImage, note: note, photo: photo, albums: albums)
        request.owedRequest = owedRequest
        return publicChange(try translating { try store.like(request, onCommit: observers.changed) })
    }
}
