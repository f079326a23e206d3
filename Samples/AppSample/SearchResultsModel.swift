// The search screen's view model: a page of results, each with a heart that says whether the
// photo is liked, kept in step with likes made anywhere (another screen, a widget, the command
// line).

import Foundation
import LikeKit
import Observation

@MainActor @Observable final class SearchResultsModel {
    /// One cell of the grid.
    struct Cell: Identifiable {
        let result: PhotoSearch.Result
        var isLiked: Bool
        var id: PhotoID { result.id }
    }

    private(set) var cells: [Cell] = []
    /// What to show in an alert, when a tap failed.
    private(set) var alert: String?

    private let repository: LikeRepository
    private let search: PhotoSearch

    init(repository: LikeRepository, search: PhotoSearch) {
        self.repository = repository
        self.search = search
    }

    /// Runs the search and fills in the hearts: one call for the whole page.
    func load(_ text: String) async throws {
        let results = try search.search(text)
        let liked = try await repository.likedIDs(among: results.map(\.id))
        cells = results.map { Cell(result: $0, isLiked: liked.contains($0.id)) }
    }

    /// The heart button. The JPEG is downloaded only when the tap likes the photo; the heart
    /// shows what the store did, even if another process changed the photo in the meantime.
    func tapHeart(_ id: PhotoID) async {
        guard let result = cells.first(where: { $0.id == id })?.result else { return }
        do {
            let change = try await repository.toggle(id, photo: result.photo.metadata) { try await self.search.download(result) }
            setHeart(id, liked: change.kind == .liked)
        } catch {
            // LikeRepositoryError is a LocalizedError written for people; other errors are the
            // download's.
            let error = error as? LocalizedError
            alert = [error?.errorDescription, error?.recoverySuggestion].compactMap { $0 }.joined(separator: " ")
        }
    }

    /// Keeps the hearts in step with a change made anywhere.
    func apply(_ change: LikeChange) {
        guard let id = change.id else { return }
        switch change.kind {
        case .liked: setHeart(id, liked: true)
        case .unliked: setHeart(id, liked: false)
        case .updated, .purged, .unchanged: break
        }
    }

    private func setHeart(_ id: PhotoID, liked: Bool) {
        guard let index = cells.firstIndex(where: { $0.id == id }) else { return }
        cells[index].isLiked = liked
    }
}
