// The calls that had only a blocking form, awaited as an app awaits them: from the main actor,
// through the public API alone (issue 65). Each gives what its blocking form gives, and the main
// actor runs other work while it waits.

import Foundation
import LikeKit
import Testing

@MainActor
@Suite struct AsyncCallsTests {
    /// Main-actor work that counts its turns until stopped: a blocked main actor gives it none.
    @MainActor final class Ticker {
        var ticks = 0
        var task: Task<Void, Never>?

        func start() {
            task = Task { @MainActor in
                while !Task.isCancelled {
                    self.ticks += 1
                    await Task.yield()
                }
            }
        }
    }

    @Test func samplePhotosAreLikedOffTheMainActorInTheOrderGiven() async throws {
        let repository = try LikeRepository.temporary()
        let ticker = Ticker()
        ticker.start()
        let changes = try await repository.likeSamplePhotos(count: 6)
        let ticksDuring = ticker.ticks
        ticker.task?.cancel()
        #expect(ticksDuring > 0, "the main actor ran nothing while the photos were liked")
        #expect(changes.count == 6)
        let listed = try await repository.list(LikeQuery(order: .oldestFirst)).records.map(\.id.rawValue)
        #expect(listed == (1...6).map { "sample-\($0)" })
        let dates = changes.compactMap { $0.record?.likedAt }
        #expect(dates == dates.sorted() && Set(dates).count == 6, "a millisecond apart at least")
    }

    @Test func albumsAreRenamedAndDeletedByAwaiting() async throws {
        let repository = try LikeRepository.temporary()
        try await repository.likeSamplePhotos(count: 6)
        let samples = try AlbumName("Samples")
        let renamed = try AlbumName("Kept")
        let before = try await repository.albums().first { $0.name == samples }?.count
        #expect(before == 2)
        let changes = try await repository.renameAlbum(samples, to: renamed)
        #expect(changes.count == 2)
        #expect(try await repository.albums().map(\.name) == [renamed])
        let removed = try await repository.deleteAlbum(renamed)
        #expect(removed.count == 2)
        #expect(try await repository.albums().isEmpty)
    }

    @Test func monthsThumbnailsFactsAndTheBudgetAreAwaited() async throws {
        let repository = try LikeRepository.temporary()
        let changes = try await repository.likeSamplePhotos(count: 3)
        let months = try await repository.months()
        #expect(months.map(\.count).reduce(0, +) == 3)
        let ids = changes.compactMap { $0.record?.id }
        let report = try await repository.makeThumbnails(for: ids)
        #expect(report.damaged.isEmpty)
        for id in ids { #expect(try await repository.thumbnail(for: id) != nil) }
        let facts = try await repository.readImageFacts(within: 5)
        #expect(facts.complete)
        try await repository.setRenditionBudget(1_000_000)
        try await repository.setRenditionBudget(nil)
    }
}
