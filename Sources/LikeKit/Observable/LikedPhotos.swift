// Owns the state a grid of favorites binds to: a live query that loads a page at a time and stays
// current with every change to the store, from this process or another. Built on the
// repository's change feed and its listing; used by apps (and Samples/AppSample) on the main
// actor.

import LikeStore
import LikesSupport
import Observation

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// A live ``LikeQuery``: the records a grid shows, in the query's order and filters, kept current
/// with every change to the store, made by this app, by another process (a widget, the command
/// line) or merged by a sync.
///
/// Only what is shown is loaded: the first page when ``load()`` is called, a page more on each
/// ``loadMore()``. A change that can alter what is shown updates it (a like that matches appears
/// in its place, an unliked photo leaves, an edited one changes, one that no longer matches the
/// filters leaves), within a second of its commit, whichever process made it: a like, and an
/// unlike where every match is shown, from the record the change carries; anything else by
/// reading the pages shown again.
///
/// Like GRDB's `ValueObservation`, it is precise: a change to a photo that neither is shown nor
/// passes the query's filters before the last photo shown (a like in another album, a note on a
/// photo further down) reads nothing, and ``records`` and ``hasMore`` are assigned only when their
/// value differs (``error`` is cleared only when it was set), so a view that reads them redraws
/// only when what it shows changed.
///
/// ```swift
/// struct FavoritesGrid: View {
///     @State private var photos: LikedPhotos
///
///     init(repository: LikeRepository) {
///         _photos = State(initialValue: LikedPhotos(repository))
///     }
///
///     var body: some View {
///         ScrollView {
///             LazyVGrid(columns: [GridItem(.adaptive(minimum: 120))]) {
///                 ForEach(photos.records, id: \.id) { record in
///                     Thumbnail(record: record)
///                         .task { if record.id == photos.records.last?.id { await photos.loadMore() } }
///                 }
///             }
///         }
///         .task { await photos.load() }
///     }
/// }
/// ```
///
/// It stops following the store when it is released. (Observation, on Apple platforms, needs
/// iOS 17, macOS 14 or watchOS 10.)
@available(macOS 14, iOS 17, watchOS 10, *)
@MainActor @Observable
public final class LikedPhotos {
    /// The records shown, in the query's order: the pages loaded so far, as the store holds them
    /// now.
    public private(set) var records: [LikeRecord] = []
    /// Whether more records follow the last one shown (``loadMore()`` loads them).
    public var hasMore: Bool { next != nil }
    /// Whether the first page has been loaded.
    public private(set) var isLoaded = false
    /// What went wrong with the last load, if it failed, as the repository threw it (a
    /// ``LikeRepositoryError`` for the store's own failures); cleared by the next load that
    /// succeeds. A load cancelled with its task is not an error: it leaves this as it was.
    public private(set) var error: (any Error)?

    /// The query, its filters and order; its `limit` is the page size (60 when `nil`), and its
    /// `offset` and `after` are not used.
    public let query: LikeQuery

    private var next: LikeCursor?
    @ObservationIgnored private let repository: LikeRepository
    /// The query's filters as the store asks them; `nil` where the query is not one the store
    /// takes (the load says why).
    @ObservationIgnored private let filters: StoreQuery?
    @ObservationIgnored private let following = Following()
    /// Whether a reload is running, and whether changes came in since it began.
    @ObservationIgnored private var reloading = false
    @ObservationIgnored private var changedMeanwhile = false

    /// A live query of `repository`; nothing is read until ``load()``.
    ///
    /// - Parameters:
    ///   - repository: The store.
    ///   - query: The filters and order; its `limit` is the size of a page.
    public init(_ repository: LikeRepository, query: LikeQuery = LikeQuery(limit: 60)) {
        self.repository = repository
        var query = query
        query.offset = 0
        query.after = nil
        self.query = query
        filters = try? query.storeQuery()
    }

    private var pageSize: Int { max(1, query.limit ?? 60) }

    /// Loads the first page (again, when called again), and from then on follows the store.
    public func load() async {
        if following.task == nil {
            // Followed before the first page is read: a change committed meanwhile is not missed.
            let changes = repository.changes
            following.task = Task { [weak self] in
                for await change in changes {
                    guard let self else { return }
                    await self.changed(change)
                }
            }
        }
        await reload(count: pageSize)
    }

    /// Loads the next page, if there is one.
    public func loadMore() async {
        guard let next else { return }
        var page = query
        page.after = next
        page.limit = pageSize
        guard let listing = await listed(page) else { return }
        var seen = Set(records.map(\.id))
        let added = listing.records.filter { seen.insert($0.id).inserted }
        if !added.isEmpty { records += added }
        if listing.next != self.next { self.next = listing.next }
    }

    /// The listing `query` gives, or `nil` with ``error`` set to why not.
    private func listed(_ query: LikeQuery) async -> LikeListing? {
        do {
            let listing = try await repository.list(query)
            if error != nil { error = nil }
            return listing
        } catch is CancellationError {
            return nil
        } catch {
            self.error = error
            return nil
        }
    }

    /// Whether `change` can alter what is shown: a change to a photo shown, or to one that passes
    /// the filters and falls before the last photo shown (anywhere, when every match is shown).
    /// A change whose record is not known is taken to alter it.
    private func mayAlter(_ change: LikeChange) -> Bool {
        switch change.kind {
        case .unchanged, .purged:
            return false
        case .unliked:
            guard let id = change.id else { return true }
            return records.contains { $0.id == id }
        case .liked, .updated:
            if let id = change.id, records.contains(where: { $0.id == id }) { return true }
            guard let stored = change.stored, let filters else { return true }
            guard filters.admits(stored) else { return false }
            guard next != nil, let last = records.last else { return true }
            let place = filters.place(of: stored)
            let lastShown = LikeCursor(record: last, orderDate: query.orderDate).place
            return query.order == .newestFirst ? lastShown < place : place < lastShown
        }
    }

    /// A change to the store: what is shown is read again where the change can alter it, once
    /// for a burst of changes.
    private func changed(_ change: LikeChange) async {
        guard change.kind != .unchanged, change.kind != .purged else { return }
        if reloading {
            // What is being read may be older than this change, and what is shown is about to be
            // replaced: judged after the reload, by reading again. So too while the first page
            // is read: the change may have come after the read began.
            changedMeanwhile = true
            return
        }
        guard isLoaded else { return }
        guard mayAlter(change) else {
            if mayEndWhatFollows(change) { await checkWhatFollows() }
            return
        }
        if let shown = applied(change) {
            records = shown
            return
        }
        if change.kind == .unliked, let id = change.id, let index = records.firstIndex(where: { $0.id == id }) {
            records.remove(at: index)  // at once; the reload below keeps the page's length
        }
        // After a like one more than shown: a like that comes in above pushes the last one
        // down, not out.
        await reload(count: records.count + (change.kind == .liked ? 1 : 0))
    }

    /// Whether `change`, which alters nothing shown, may have taken away the last match that
    /// follows what is shown: an unlike, or an edit after which the photo no longer matches, of
    /// a photo not shown while more follow.
    private func mayEndWhatFollows(_ change: LikeChange) -> Bool {
        guard next != nil else { return false }
        switch change.kind {
        case .unliked: return true
        case .updated: return change.stored.map { filters?.admits($0) != true } ?? true
        case .liked, .unchanged, .purged: return false
        }
    }

    /// Reads whether a match still follows what is shown (one record past the last), so that
    /// ``hasMore`` does not promise a page that is not there.
    private func checkWhatFollows() async {
        guard let next else { return }
        var after = query
        after.after = next
        after.limit = 1
        guard let listing = await listed(after), listing.records.isEmpty, self.next == next else { return }
        self.next = nil
    }

    /// What is shown once `change` is applied to it without reading the store, where the change
    /// itself says all of it: a like of a photo not shown, with its record, that passes the
    /// filters (``mayAlter(_:)`` asked that), goes in at its place in the order, as a reading of
    /// one more would put it; an unlike, when every match is shown, takes its photo out. `nil`
    /// where the store must be read: an edit, an unlike that leaves room for a photo not yet
    /// shown, a change from further back than the store keeps records for.
    private func applied(_ change: LikeChange) -> [LikeRecord]? {
        switch change.kind {
        case .liked:
            guard let filters, let record = change.record, let stored = change.stored, !records.contains(where: { $0.id == record.id }) else {
                return nil
            }
            let place = filters.place(of: stored)
            let newestFirst = query.order == .newestFirst
            let index =
                records.firstIndex { shown in
                    let shownPlace = LikeCursor(record: shown, orderDate: query.orderDate).place
                    return newestFirst ? shownPlace < place : place < shownPlace
                } ?? records.endIndex
            // Past the last one shown, while more follow: not shown yet (mayAlter says so too).
            guard index < records.endIndex || next == nil else { return nil }
            var shown = records
            shown.insert(record, at: index)
            return shown
        case .unliked:
            guard next == nil, let id = change.id, let index = records.firstIndex(where: { $0.id == id }) else { return nil }
            var shown = records
            shown.remove(at: index)
            return shown
        case .updated, .unchanged, .purged:
            return nil
        }
    }

    /// Reads the first `count` records of the query again (a page at least), and again while
    /// changes came in as it read.
    private func reload(count: Int) async {
        reloading = true
        defer { reloading = false }
        var count = max(count, pageSize)
        repeat {
            changedMeanwhile = false
            var first = query
            first.limit = count
            guard let listing = await listed(first) else { return }
            if listing.records != records { records = listing.records }
            if listing.next != next { next = listing.next }
            if !isLoaded { isLoaded = true }
            // Changes came in meanwhile: read again, with room for a like among them.
            count = max(records.count + 1, pageSize)
        } while changedMeanwhile
    }
}

/// The task that follows a store's changes for an observable model: cancelled when the model is
/// released (a main-actor model's deinit cannot reach its own state).
final class Following: Sendable {
    private let current = Locked<Task<Void, Never>?>(nil)

    var task: Task<Void, Never>? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    deinit { current.withLock { $0?.cancel() } }
}
