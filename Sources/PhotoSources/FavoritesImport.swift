// Bringing a person's favorites home (Unsplash's likes, Flickr's favorites): the walk through
// their pages that both sources share, resumable where it stopped, each page's new photos liked
// at the times their source gives, in one batch.

import LikeKit

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// What an import of a person's favorites did.
public struct FavoritesImportReport: Sendable {
    /// A photo that could not be liked, and why.
    public struct Failure: Sendable, Hashable {
        /// The photo's id at its source.
        public var id: String
        /// One sentence.
        public var reason: String
    }

    /// `unsplash` or `flickr`.
    public var source: String
    /// The person, as given.
    public var user: String
    /// The photos liked by this run, in the listing's order.
    public var liked: [PhotoID] = []
    /// Photos of the listing that were liked already: left as they were, at no request.
    public var alreadyLiked = 0
    /// Photos that could not be liked.
    public var failed: [Failure] = []
    /// Photos of the listing not yet looked at: a later run goes on with them.
    public var left = 0
    /// Whether the run stopped at the source's limit of requests; the same call goes on later.
    public var stoppedByRateLimit = false
    /// With `dryRun`: photos of the listing that are not liked yet (nothing was stored).
    public var new = 0
    /// Whether nothing was stored (only listing requests were made).
    public var dryRun = false
    /// Requests made to the source's API (listing, per-photo and owed requests; not images).
    public var requests = 0
    /// Requests owed for liked photos that this run made (Unsplash's download counts).
    public var owedRequestsMade = 0
    /// Requests still owed when the run ended: the next run, or any `unsplash` command, makes them.
    public var owedRequestsLeft = 0
}

/// How far an import has come, for a progress line.
public struct FavoritesImportProgress: Sendable {
    /// Photos of the listing dealt with (liked, liked already or failed), this run.
    public var done: Int
    /// Photos of the listing in all, where the source says.
    public var total: Int?
    /// Photos liked by this run.
    public var liked: Int
}

/// One page of a person's favorites, as a source lists it.
struct FavoritesPage {
    struct Photo {
        var id: String
        /// When the person liked it, where the source says (Flickr's `date_faved`).
        var likedAt: Date?
        /// Downloads what a like keeps; may ask the source's API (Flickr) and throw.
        var prepare: () throws -> (item: LikeItem, owedRequest: String?)
    }

    var photos: [Photo]
    /// Photos of the whole listing, where the source says.
    var total: Int?
    /// Whether no page follows.
    var isLast: Bool
}

/// Where an import stopped, kept in the store between runs (`sources/NAME.json`).
struct FavoritesImportState: Codable {
    /// The page to ask next.
    var page: Int
    /// Milliseconds since 1970: the time the first listed photo gets, where the source gives
    /// none; the rest get one millisecond less each, so the listing's order is kept across runs.
    var base: Int64
    /// Photos of the listing in all, as the source last said.
    var total: Int?
}

/// The walk through a person's favorites, page by page.
struct FavoritesWalk {
    let repository: LikeRepository
    /// The note's name in the store: one per source and person.
    let stateName: String
    let perPage: Int
    let albums: [AlbumName]
    let dryRun: Bool
    /// Asks for one page of the listing, counting the requests it makes.
    let list: (_ page: Int) throws -> FavoritesPage
    /// Makes the requests owed for liked photos while the source allows; returns how many were
    /// made, and whether its limit stopped them.
    let payOwed: () throws -> (made: Int, limited: Bool)
    let progress: (FavoritesImportProgress) -> Void

    func run(into report: inout FavoritesImportReport) throws {
        report.dryRun = dryRun
        // Saved before the first like of a new walk (its base time then holds for every run),
        // and never by a walk that likes nothing: a dry run, an unknown user or an empty list
        // leave the store as it was.
        var (state, saved) = try loadState()
        var page = state.page
        while true {
            let listed: FavoritesPage
            do {
                listed = try list(page)
            } catch let error as PhotoSourceError where error.kind == .rateLimited {
                report.stoppedByRateLimit = true
                report.left = max(0, (state.total ?? 0) - (page - 1) * perPage)
                return
            }
            state.total = listed.total ?? state.total
            let firstIndex = (page - 1) * perPage
            let (batch, dealtWith, stopped) = try prepare(listed, firstIndex: firstIndex, base: state.base, into: &report)
            if !batch.isEmpty, !saved {
                try saveState(state)
                saved = true
            }
            try store(batch, into: &report)
            let total = listed.total ?? state.total
            report.left = max(0, (total ?? 0) - firstIndex - dealtWith, listed.photos.count - dealtWith)
            progress(
                FavoritesImportProgress(
                    done: report.liked.count + report.alreadyLiked + report.failed.count + report.new, total: total, liked: report.liked.count))
            // Stopped part way: the page is asked again next time, and what it liked is liked
            // already by then.
            if stopped {
                report.stoppedByRateLimit = true
                return
            }
            let finished = listed.isLast || listed.photos.isEmpty
            if !dryRun {
                let paid = try payOwed()
                report.owedRequestsMade += paid.made
                state.page = page + 1
                // A walk that reached the end starts anew next time, for photos liked since.
                if saved || !finished {
                    try saveState(finished ? nil : state)
                    saved = !finished
                }
                if paid.limited, !finished {
                    report.stoppedByRateLimit = true
                    return
                }
            }
            if finished {
                report.left = 0
                return
            }
            page += 1
        }
    }

    /// The page's photos made ready to like (their images downloaded), in the listing's order;
    /// how many of them were dealt with (liked already, counted by a dry run, failed or made
    /// ready), and whether the source's limit stopped the page part way.
    private func prepare(_ listed: FavoritesPage, firstIndex: Int, base: Int64, into report: inout FavoritesImportReport) throws
        -> (batch: [TimedLike], dealtWith: Int, stopped: Bool)
    {
        var dealtWith = 0
        var batch: [TimedLike] = []
        let liked = try repository.likedIDs(among: listed.photos.compactMap { try? PhotoID($0.id) })
        for (offset, photo) in listed.photos.enumerated() {
            guard let id = try? PhotoID(photo.id) else {
                report.failed.append(.init(id: photo.id, reason: "its id is not one a store takes"))
                dealtWith += 1
                continue
            }
            if liked.contains(id) || dryRun {
                if liked.contains(id) { report.alreadyLiked += 1 } else { report.new += 1 }
                dealtWith += 1
                continue
            }
            do {
                let prepared = try photo.prepare()
                var item = prepared.item
                item.albums = Array(Set(item.albums + albums)).sorted { $0.rawValue < $1.rawValue }
                let likedAt = photo.likedAt ?? Date(timeIntervalSince1970: Double(base - Int64(firstIndex + offset)) / 1000)
                batch.append(TimedLike(item: item, likedAt: likedAt, owedRequest: prepared.owedRequest))
            } catch let error as PhotoSourceError where error.kind == .rateLimited {
                return (batch, dealtWith, true)
            } catch {
                report.failed.append(.init(id: photo.id, reason: Self.reason(error)))
            }
            dealtWith += 1
        }
        return (batch, dealtWith, false)
    }

    /// Likes a page's prepared photos, each at its time, and counts what came of each.
    private func store(_ batch: [TimedLike], into report: inout FavoritesImportReport) throws {
        guard !batch.isEmpty else { return }
        for (photo, result) in zip(batch, try repository.like(at: batch)) {
            switch result {
            case .success(.some): report.liked.append(photo.item.id)
            case .success(.none): report.alreadyLiked += 1
            case .failure(let error): report.failed.append(.init(id: photo.item.id.rawValue, reason: Self.reason(error)))
            }
        }
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? PhotoSourceError { return error.description }
        if let error = error as? LikeRepositoryError { return error.description }
        if let error = error as? any CustomStringConvertible { return error.description }
        return "\(error)"
    }

    /// Where the last run stopped, or a new walk (not saved yet).
    private func loadState() throws -> (FavoritesImportState, saved: Bool) {
        if !dryRun, let data = try repository.sourceState(stateName),
            let state = try? JSONDecoder().decode(FavoritesImportState.self, from: data), state.page >= 1
        {
            return (state, true)
        }
        return (FavoritesImportState(page: 1, base: Int64((Date().timeIntervalSince1970 * 1000).rounded()), total: nil), false)
    }

    private func saveState(_ state: FavoritesImportState?) throws {
        try repository.setSourceState(try state.map { try JSONEncoder().encode($0) }, for: stateName)
    }
}
