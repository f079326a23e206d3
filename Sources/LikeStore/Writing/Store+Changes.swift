// The changes the façade asks for, each in one write session under the exclusive lock: like,
// unlike, toggle, edits of notes and albums, a run of likes flushed together, and a restore's
// batches. `onCommit` hears each committed record before the lock is let go, so that this
// process's observers can take the record as committed rather than read it again.

import JPEGCodec

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// Told the records a change committed (empty for an unlike), under the store's lock.
package typealias CommitListener = ([StoredRecord]) -> Void

extension Store {
    /// Likes or updates one photo; ``StoredChange/Kind/unchanged`` writing nothing when it has
    /// all that is asked already.
    ///
    /// `amongRestores`: one change among a run of ``restore(_:onCommit:)``'s (a sync's merge), which
    /// leaves a journal they left unsorted so for the run to sort once at its end
    /// (``sortJournalAfterRestore()``), instead of sorting it first as every other change does.
    ///
    /// - Throws: ``StoreError``: `imageRequired`, `idCollision`, `busy`, `io`.
    package func like(_ request: StoreRequest, amongRestores: Bool = false, onCommit: CommitListener) throws -> StoredChange {
        let change = try withWriteSession(restoring: amongRestores) { session in Self.heard(try session.like(request), onCommit) }
        keepThumbnailPictures([(request, change)])
        return change
    }

    /// Keeps the DC pictures of the photos these likes stored that are their thumbnails too (see
    /// ``thumbnailPictures``), by the generation each image was stored under.
    private func keepThumbnailPictures(_ done: [(request: StoreRequest, change: StoredChange)]) {
        let kept = done.compactMap { request, change -> (String, PlanarImage, JPEGMetadata)? in
            guard let taken = request.image?.thumbnailPicture, let record = change.record, change.kind != .unchanged else { return nil }
            return (record.image.generation, taken.picture, taken.metadata)
        }
        guard !kept.isEmpty else { return }
        thumbnailPictures.withLock { pictures in
            pictures += kept.map { (generation: $0.0, picture: $0.1, metadata: $0.2) }
            if pictures.count > Self.pictureLimit { pictures.removeFirst(pictures.count - Self.pictureLimit) }
        }
    }

    /// The DC picture kept for the thumbnail of the image of `generation`, taken out of the keep.
    func takeThumbnailPicture(generation: String) -> (picture: PlanarImage, metadata: JPEGMetadata)? {
        thumbnailPictures.withLock { pictures in
            guard let index = pictures.firstIndex(where: { $0.generation == generation }) else { return nil }
            let found = pictures.remove(at: index)
            return (found.picture, found.metadata)
        }
    }

    /// Likes each request in turn, as ``like(_:onCommit:)`` would, 32 under one hold of the lock,
    /// the commits of each 32 flushed together: for each request its change or the error that
    /// kept it out. A failure of the store itself (`io`, `busy`) is thrown; what was liked
    /// before it stays liked.
    package func likeAll(_ requests: [StoreRequest], onCommit: CommitListener) throws -> [Result<StoredChange, StoreError>] {
        var results: [Result<StoredChange, StoreError>] = []
        var start = requests.startIndex
        while start < requests.endIndex {
            let chunk = requests[start..<min(start + 32, requests.endIndex)]
            start = chunk.endIndex
            try withWriteSession { session in
                var storeFailure: StoreError?
                var committed: [StoredRecord] = []
                session.beginBatch()
                for request in chunk {
                    do {
                        let change = try session.like(request, flushCommit: false)
                        committed += change.record.map { [$0] } ?? []
                        results.append(.success(change))
                    } catch let error as StoreError {
                        switch error {
                        case .io, .busy:
                            storeFailure = error
                        default:
                            results.append(.failure(error))
                            continue
                        }
                        break
                    }
                }
                // The chunk's commits, flushed together, also when a like failed on the way.
                try session.commitBatch()
                onCommit(committed)
                if durable, !session.commitsInBatches { try session.records.directory.sync(commit: true) }
                if let storeFailure { throw storeFailure }
            }
        }
        keepThumbnailPictures(zip(requests, results).compactMap { request, result in (try? result.get()).map { (request, $0) } })
        return results
    }

    /// Unlikes a photo: its record and every image of it removed.
    ///
    /// `amongRestores`: as for ``like(_:amongRestores:onCommit:)``.
    ///
    /// - Throws: ``StoreError/notLiked(id:)``; `busy`, `io`.
    package func unlike(_ id: String, stamp: String? = nil, amongRestores: Bool = false, onCommit: CommitListener) throws -> StoredChange {
        try withWriteSession(restoring: amongRestores) { session in Self.heard(try session.unlike(id, stamp: stamp), onCommit) }
    }

    /// Unlikes a liked photo, else likes it with `request`; `nil` when it is not liked and there
    /// is no request.
    package func toggle(_ id: String, _ request: StoreRequest?, onCommit: CommitListener) throws -> StoredChange? {
        try withWriteSession { session in
            if try session.isLiked(id) { return Self.heard(try session.unlike(id), onCommit) }
            guard let request else { return nil }
            return Self.heard(try session.like(request), onCommit)
        }
    }

    /// Changes the notes or albums of liked photos, each once: `request` makes each photo's
    /// change from its record as read under the lock (and may refuse it by throwing). Photos
    /// that have what is asked already are left as they are, and have no change.
    ///
    /// - Throws: ``StoreError/notLiked(id:)`` for an id not liked, before anything is written;
    ///   what `request` throws; `busy`, `io`.
    package func edit(
        _ ids: [String], onCommit: CommitListener, request: (StoredRecord, String) throws -> StoreRequest
    ) throws -> [StoredChange] {
        var seen: Set<String> = []
        let unique = ids.filter { seen.insert(StorageKey.make(for: $0)).inserted }
        guard !unique.isEmpty else { return [] }
        return try withWriteSession { session in
            let edits = try unique.map { id in
                let existing = try session.existingRecord(id)
                return (request: try request(existing, id), existing: existing)
            }
            var changes: [StoredChange] = []
            var committed: [StoredRecord] = []
            defer { if !changes.isEmpty { onCommit(committed) } }
            for edit in edits {
                if let change = try session.edit(edit.request, over: edit.existing) {
                    committed += change.record.map { [$0] } ?? []
                    changes.append(change)
                }
            }
            return changes
        }
    }

    /// Likes photos again as they were liked before, each at its own `likedAt` (milliseconds), in
    /// one session whose commits are flushed together: each one's record as committed, or `nil`
    /// when a photo of its key is liked already. The journal may be left unsorted: see
    /// ``sortJournalAfterRestore()``.
    package func restore(_ photos: [(request: StoreRequest, likedAt: Int64)], onCommit: CommitListener) throws -> [StoredRecord?] {
        guard !photos.isEmpty else { return [] }
        return try withWriteSession(restoring: true) { session in
            var results: [StoredRecord?] = []
            var failure: (any Error)?
            session.beginBatch()
            for photo in photos {
                do {
                    results.append(try session.restore(photo.request, likedAt: photo.likedAt)?.record)
                } catch {
                    failure = error
                    break
                }
            }
            // The batch's commits, flushed together, also when one failed on the way.
            try session.commitBatch()
            onCommit(results.compactMap { $0 })
            if durable, !session.commitsInBatches { try session.records.directory.sync(commit: true) }
            if let failure { throw failure }
            return results
        }
    }

    /// Sorts a journal that restores left unsorted; nothing when they did not.
    package func sortJournalAfterRestore() throws {
        try withWriteSession(restoring: true) { session in try session.sortJournal() }
    }

    /// Likes one photo again as it was, at `likedAt`, the journal sorted before the lock is let
    /// go; `nil` when it is liked already.
    package func likeAgain(_ request: StoreRequest, likedAt: Int64, onCommit: CommitListener) throws -> StoredChange? {
        try withWriteSession(restoring: true) { session in
            guard let change = try session.restore(request, likedAt: likedAt) else { return nil }
            if durable { try session.records.directory.sync(commit: true) }
            try session.sortJournal()
            return Self.heard(change, onCommit)
        }
    }

    /// `change`, once `onCommit` has heard its record.
    private static func heard(_ change: StoredChange, _ onCommit: CommitListener) -> StoredChange {
        onCommit(change.record.map { [$0] } ?? [])
        return change
    }
}
