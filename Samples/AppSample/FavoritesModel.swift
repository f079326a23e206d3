// The Favorites screen's view model: the liked photos, newest first, a page at a time by cursor,
// kept fresh by the repository's changes without listing again.

import Foundation
import LikeKit
import Observation

@MainActor @Observable final class FavoritesModel {
    private(set) var records: [LikeRecord] = []
    /// Whether another page follows (show "Load more", or load it when the list nears its end).
    var hasMore: Bool { next != nil }

    private var next: LikeCursor?
    private var following: Task<Void, Never>?
    private let repository: LikeRepository
    private let pageSize: Int

    init(repository: LikeRepository, pageSize: Int = 30) {
        self.repository = repository
        self.pageSize = pageSize
    }

    /// Follows the store's changes, then loads the first page: a like made while the page loads
    /// is not missed (a change is applied once, whichever comes first).
    func start() async throws {
        let changes = repository.changes  // observation starts here, before the first page
        following = Task { [weak self] in
            for await change in changes { self?.apply(change) }
        }
        let first = try await repository.list(LikeQuery(limit: pageSize))
        records = merged(records, first.records)
        next = first.next
    }

    /// The page after the last one loaded. A cursor, unlike an offset, neither repeats nor skips
    /// a photo when likes land between two pages.
    func loadNextPage() async throws {
        guard let next else { return }
        let page = try await repository.list(LikeQuery(limit: pageSize, after: next))
        records = merged(records, page.records)
        self.next = page.next
    }

    func stop() {
        following?.cancel()
        following = nil
    }

    /// One change applied to what is shown: the change carries the record it committed.
    func apply(_ change: LikeChange) {
        switch change.kind {
        case .liked:
            if let record = change.record { records = merged([record], records) }
        case .updated:
            if let record = change.record, let index = records.firstIndex(where: { $0.id == record.id }) { records[index] = record }
        case .unliked:
            records.removeAll { $0.id == change.id }
        case .purged, .unchanged:
            break
        }
    }

    /// Both lists in one, newest first, each photo once.
    private func merged(_ first: [LikeRecord], _ second: [LikeRecord]) -> [LikeRecord] {
        var seen = Set<PhotoID>()
        return (first + second).filter { seen.insert($0.id).inserted }.sorted { ($0.likedAt, $0.id.rawValue) > ($1.likedAt, $1.id.rawValue) }
    }
}
