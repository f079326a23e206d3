// Owns a new device's first publication: every photo the store holds, published as one change
// file written a batch of photos at a time (the photos of a group of the bookkeeping's shards), so
// that a first sync of 100,000 photos holds a few thousand at once. Called by a sync
// (StoreSync) before its round, which then merges the other devices' changes.

import LikeSync
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension StoreSync {
    /// About how many photos a first sync holds at a time.
    static let firstSyncBatch = 4_000

    /// Publishes every photo the store holds, and this store's unlikes its journal keeps, as the
    /// changes of a new device (the same changes ``localChanges(_:_:since:alsoUnliked:)`` finds
    /// for one), and returns how many. The store is read twice: once for the records' keys, and
    /// once a group of shards at a time.
    ///
    /// Each change is stamped by the time its parts were given, its counter counting the changes
    /// of that millisecond from 0, as a new device's clock stamps changes made in that order: the
    /// stamps depend on the store alone, not on when the sync runs. The change file's number is
    /// kept first, as ``SavedSync/firstPublication``; then each group's histories and what is
    /// published of its photos are written as the group's changes go into the file, the images'
    /// uses kept aside until the end; the file is put in place last, and the number let go of
    /// with the clock after the changes. A sync that dies before then merged nothing: the next
    /// one empties the photos' side and publishes everything again, under the same number when
    /// its file never reached the folder, else the next (whose changes, where the store did not
    /// change meanwhile, are the same changes again, which merge as one).
    func publishEverything(_ saved: inout SavedSync, _ folder: SyncFolder, _ shards: PhotoShards) throws -> Int {
        let places = try recordPlaces()
        let unlikes = try store.unlikeTimes()
        guard !places.isEmpty || !unlikes.isEmpty, let reader = try store.reader() else {
            if saved.firstPublication != nil {
                // One cut short left its lines, which a writer would have removed.
                try folderTranslating { try ChangeFileWriter.removeLeftovers(in: folder, device: saved.engine.device) }
                saved.firstPublication = nil
                try saveSync(saved)
            }
            return 0
        }
        let device = saved.engine.device
        let sequence: Int
        if let begun = saved.firstPublication, begun > 0, try folderTranslating({ try folder.ownSegments(device)[begun] == nil }) {
            sequence = begun
        } else {
            sequence = saved.engine.nextSequence
            saved.engine.nextSequence += 1
        }
        saved.firstPublication = sequence
        try saveSync(saved)
        shards.deferUses()
        let writer = try folderTranslating {
            try ChangeFileWriter(folder: folder, device: saved.engine.device, name: saved.engine.name, sequence: sequence)
        }
        var groups = 1
        let batch = store.faults?.firstSyncBatch ?? Self.firstSyncBatch
        while groups < PhotoShards.count, (places.count + unlikes.count) / groups > batch { groups *= 2 }
        var counters: [Int64: Int] = [:]
        for group in 0..<groups {
            let keys = places.filter { $0.shard % groups == group }.map(\.key)
            let unliked = unlikes.filter { PhotoShards.shard(of: $0.key) % groups == group }
            let records = try keys.compactMap { key in try reader.record(forKey: key) }
            try shards.load(records.map(\.id) + unliked.keys)
            var images: [String: (id: String, user: Bool)] = [:]
            var drafts = unlikeDrafts(unliked, present: Set(records.map(\.id)), saved.engine, shards)
            for record in records {
                drafts += try changeDrafts(for: record, &shards.photos, &images, after: drafts.count, everything: true, reader: reader)
            }
            let changes = drafts.sorted { ($0.time, $0.order) < ($1.time, $1.order) }.map { draft in
                let counter = counters[draft.time, default: 0]
                counters[draft.time] = counter + 1
                let change = draft.make(Stamp(milliseconds: draft.time, counter: counter, device: saved.engine.device))
                saved.engine.recordOwn(change)
                return change
            }
            try folderTranslating { try writer.add(changes) { sha256 in try self.publishedBytes(sha256, images[sha256], reader: reader) } }
            shards.photos.histories.merge(saved.engine.histories) { _, new in new }
            saved.engine.histories = [:]
            try shards.save()
            shards.unload()
        }
        try shards.writeDeferredUses()
        try folderTranslating { try writer.finish() }
        saved.engine.notePublished(sequence, newest: writer.newest)
        saved.firstPublication = nil
        try saveSync(saved)
        return writer.count
    }

    /// The key and bookkeeping shard of every record, read a page at a time.
    private func recordPlaces() throws -> [(key: String, shard: Int)] {
        var query = StoreQuery(newestFirst: true, limit: 1_000, offset: 0, after: nil, since: nil, album: nil, color: nil, words: nil)
        var places: [(key: String, shard: Int)] = []
        while true {
            let page = try store.page(query)
            places += page.items.map { ($0.record.key, PhotoShards.shard(of: $0.record.id)) }
            guard page.more, let last = page.items.last else { return places }
            query.after = last.record.listingKey
        }
    }
}
