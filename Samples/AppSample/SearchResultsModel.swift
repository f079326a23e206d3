// The search screen's view model: a page of results, each with a heart. Which are liked is
// LikeKit's LikeStatus, which follows likes made anywhere (another screen, a widget, the command
// line, a sync); the model keeps the results and what to show when a tap fails.

import Foundation
import LikeKit
import Observation

@MainActor @Observable final class SearchResultsModel {
    private(set) var results: [PhotoSearch.Result] = []
    /// What to show in an alert, when a tap failed.
    private(set) var alert: String?
    /// The hearts: whether each result is liked, kept current by the store's changes.
    let hearts: LikeStatus

    private let search: PhotoSearch

    init(repository: LikeRepository, search: PhotoSearch) {
        self.search = search
        hearts = LikeStatus(repository)
    }

    /// Runs the search and fills in the hearts: one read of the store for the whole page.
    func load(_ text: String) async throws {
        let found = try search.search(text)
        await hearts.track(found.map(\.id))
        results = found
    }

    /// The heart button. The JPEG is downloaded only when the tap likes the photo; the heart
    /// shows what the store did, even if another process changed the photo in the meantime.
    func tapHeart(_ id: PhotoID) async {
        guard let result = results.first(where: { $0.id == id }) else { return }
        do {
            try await hearts.toggle(id, photo: result.photo.metadata) { try await self.search.download(result) }
        } catch {
            // LikeRepositoryError is a LocalizedError written for people; other errors are the
            // download's.
            let error = error as? LocalizedError
            alert = [error?.errorDescription, error?.recoverySuggestion].compactMap { $0 }.joined(separator: " ")
        }
    }
}
