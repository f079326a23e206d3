// Owns the state a heart button binds to: whether each photo a view tracks is liked, kept current
// with every change to the store, and the toggle that changes it. Built on the repository's
// change feed and likedIDs(among:); used by apps on the main actor.

import Observation

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// Whether the photos a view shows are liked: a page of search results with a heart on each,
/// kept current with likes and unlikes made anywhere (another screen, a widget, the command line,
/// a sync), within a second.
///
/// It is precise: a change to a photo it does not track changes nothing, and ``liked`` and
/// ``tracked`` are assigned only when their value differs (``error`` is cleared only when it was
/// set), so a heart redraws only when its own photo's state changed.
///
/// ```swift
/// struct Heart: View {
///     let status: LikeStatus
///     let result: SearchResult
///
///     var body: some View {
///         Button {
///             Task { try? await status.toggle(result.id) { try await download(result) } }
///         } label: {
///             Image(systemName: status.isLiked(result.id) ? "heart.fill" : "heart")
///         }
///     }
/// }
///
/// // The screen: one status for its page of results.
/// let status = LikeStatus(repository)
/// await status.track(results.map(\.id))
/// ```
///
/// It stops following the store when it is released. (Observation, on Apple platforms, needs
/// iOS 17, macOS 14 or watchOS 10.)
@available(macOS 14, iOS 17, watchOS 10, *)
@MainActor @Observable
public final class LikeStatus {
    /// The tracked photos that are liked.
    public private(set) var liked: Set<PhotoID> = []
    /// The photos tracked.
    public private(set) var tracked: Set<PhotoID> = []
    /// What went wrong with the last read or toggle, if it failed, as the repository threw it (a
    /// ``LikeRepositoryError`` for the store's own failures). A read cancelled with its task is
    /// not an error: it leaves this as it was.
    public private(set) var error: (any Error)?

    @ObservationIgnored private let repository: LikeRepository
    @ObservationIgnored private let following = Following()

    /// A status of `repository`'s photos; none is tracked until ``track(_:)``.
    public init(_ repository: LikeRepository) {
        self.repository = repository
    }

    /// Whether the photo is liked, as far as this status knows: `false` for a photo not tracked.
    public func isLiked(_ id: PhotoID) -> Bool { liked.contains(id) }

    /// Tracks these photos as well (a new page of results), reading which are liked in one call;
    /// from the first call on, the status follows the store.
    public func track(_ ids: some Sequence<PhotoID>) async {
        startFollowing()
        let new = Set(ids).subtracting(tracked)
        guard !new.isEmpty else { return }
        tracked.formUnion(new)
        do {
            let found = try await repository.likedIDs(among: new)
            // A change heard while reading is newer than what was read: it stands.
            var now = liked
            now.formUnion(found.subtracting(heardMeanwhile.unliked))
            now.subtract(new.subtracting(found).subtracting(heardMeanwhile.liked))
            if now != liked { liked = now }
            heardMeanwhile = ([], [])
            if error != nil { error = nil }
        } catch is CancellationError {
            // The view went away while reading: what it tracked stays unread, not failed.
            tracked.subtract(new)
        } catch {
            self.error = error
        }
    }

    /// Stops tracking these photos (a page scrolled away).
    public func untrack(_ ids: some Sequence<PhotoID>) {
        let gone = Set(ids)
        if !tracked.isDisjoint(with: gone) { tracked.subtract(gone) }
        if !liked.isDisjoint(with: gone) { liked.subtract(gone) }
    }

    /// The heart button: unlikes a liked photo, or likes it with the JPEG `image` gives (awaited
    /// only then, before the store is locked). The status shows what the store did, even where
    /// another process changed the photo meanwhile.
    ///
    /// - Returns: The change made.
    /// - Throws: What ``LikeRepository/toggle(_:note:photo:albums:isolation:image:)`` throws,
    ///   kept in ``error`` as well.
    @discardableResult
    public func toggle(
        _ id: PhotoID, note: String? = nil, photo: PhotoMetadata? = nil, albums: [AlbumName] = [], image: () async throws -> Data
    ) async throws -> LikeChange {
        do {
            let change = try await repository.toggle(id, note: note, photo: photo, albums: albums, image: image)
            if !tracked.contains(id) { tracked.insert(id) }
            if change.kind == .liked, !liked.contains(id) {
                liked.insert(id)
            } else if change.kind == .unliked, liked.contains(id) {
                liked.remove(id)
            }
            if error != nil { error = nil }
            return change
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            self.error = error
            throw error
        }
    }

    /// The heart button with the JPEG at hand: unlikes a liked photo, or likes it with `image`.
    ///
    /// - Returns: The change made.
    /// - Throws: What ``LikeRepository/toggle(_:note:photo:albums:isolation:image:)`` throws,
    ///   kept in ``error`` as well.
    @discardableResult
    public func toggle(_ id: PhotoID, note: String? = nil, photo: PhotoMetadata? = nil, albums: [AlbumName] = [], image: Data) async throws
        -> LikeChange
    {
        try await toggle(id, note: note, photo: photo, albums: albums) { image }
    }

    /// Likes and unlikes heard while ``track(_:)`` reads.
    @ObservationIgnored private var heardMeanwhile: (liked: Set<PhotoID>, unliked: Set<PhotoID>) = ([], [])

    private func startFollowing() {
        guard following.task == nil else { return }
        let changes = repository.changes
        following.task = Task { [weak self] in
            for await change in changes {
                guard let self else { return }
                self.heard(change)
            }
        }
    }

    private func heard(_ change: LikeChange) {
        guard let id = change.id else { return }
        switch change.kind {
        case .liked:
            heardMeanwhile.liked.insert(id)
            heardMeanwhile.unliked.remove(id)
            if tracked.contains(id), !liked.contains(id) { liked.insert(id) }
        case .unliked:
            heardMeanwhile.unliked.insert(id)
            heardMeanwhile.liked.remove(id)
            if liked.contains(id) { liked.remove(id) }
        case .updated, .purged, .unchanged:
            break
        }
    }
}
