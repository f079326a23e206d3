// An album's view model: its photos, newest first, with the count and cover the album list shows
// (its newest photo, or the one chosen).

import Foundation
import LikeKit
import Observation

@MainActor @Observable final class AlbumModel {
    let name: AlbumName
    private(set) var photos: [LikeRecord] = []
    private(set) var summary: AlbumSummary?

    private let repository: LikeRepository

    init(repository: LikeRepository, name: AlbumName) {
        self.repository = repository
        self.name = name
    }

    func load() async throws {
        photos = try await repository.list(LikeQuery(album: name)).records
        summary = try await repository.albums().first { $0.name == name }
    }

    /// "Use as cover" on one of the album's photos.
    func chooseCover(_ id: PhotoID) async throws {
        try await repository.setCover(id, ofAlbum: name)
        try await load()
    }

    /// "Add to album" on a selection of liked photos.
    func add(_ ids: [PhotoID]) async throws {
        try await repository.addPhotos(ids, toAlbum: name)
        try await load()
    }
}
