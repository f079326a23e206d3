// Owns a store's side of syncing with other devices through a folder: one sync from start to end,
// ordered for crashes (what the store changed since its last sync published through LikeSync, the
// other devices' changes merged and written back, the bookkeeping kept), a device forgotten, and
// the report. What it keeps between syncs is SyncBookkeeping's; the store's own changes are found
// by StoreSync+LocalChanges (a new device's by StoreSync+FirstPublication), merged photos written
// by StoreSync+MergedPhotos, and what a journal written anew must keep for it by SyncOwed. The
// façade's sync (LikeKit) only translates.

import LikeSync
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// One store's side of a sync through a folder: the store, and who hears what the sync commits.
struct StoreSync {
    let store: Store
    let onCommit: CommitListener

    func run(_ folder: SyncFolder, newDevice: Bool, forgetting: String?) throws -> StoreSyncReport {
        let shards = PhotoShards(store: store, displayPath: store.displayPath)
        var (saved, isNew) = try loadSync(newDevice: newDevice, shards)
        // A sync that died writing merged photos may have left the journal out of date order: it
        // is sorted first, by the sort that holds each line's key and date, so that neither the
        // look at every record nor the first write of this sync indexes every photo at once.
        if saved.usesAside == true || saved.applying != nil { try store.sortJournalAfterRestore() }
        if saved.usesAside == true {
            try shards.countUsesAnew()
            saved.usesAside = nil
            try saveSync(saved)
        }
        if let forgetting { try forget(forgetting, in: folder, &saved) }
        // Photos a sync that died was writing: finished with this round's merged photos, after
        // the store's own changes since are found (a note made since is the newest, and an
        // unlike made since is this store's, to publish).
        let unfinished = saved.applying ?? []
        // Where the journal ends before this store's changes are looked for, kept as where they
        // were found to: a change another process makes while this sync runs is found by the next.
        let positionAt = Timestamp.now()
        let position = try store.journalEnd()
        let unstamped = saved.engine
        let (found, publishedFirst) = try findChanges(&saved, folder, shards, isNew: isNew, position: position)
        if found.changes.isEmpty, !found.photosChanged, forgetting == nil, unfinished.isEmpty, let quiet = try quietReport(saved, folder) {
            return quiet
        }
        let hooks = roundHooks(saved, shards, found, unstamped: unstamped)
        var (round, plan) = try engineTranslating {
            try saved.engine.beginRound(
                with: folder, local: found.changes, hooks: hooks, groupSize: store.faults?.firstSyncBatch ?? Self.mergeGroupSize,
                group: { PhotoShards.shard(of: $0) })
        }
        round.published += publishedFirst
        saved.engine.deviceNames = round.devices
        let written = try writeMerge(unfinished, &plan, &round, &saved, folder, shards, hooks)
        saved.engine.endMerge(plan, into: &round, hooks: hooks)
        if written.mayBeUnsorted { try store.sortJournalAfterRestore() }
        let waiting = written.waiting
        saved.applying = waiting.isEmpty ? nil : waiting
        if round.changedState || written.any || found.photosChanged || forgetting != nil {
            saved.position = position
            // No change made before the position is still to be found (a minute for a write that
            // took its time before it reached the journal).
            saved.engine.forgetCheckpoints(before: positionAt - 60_000)
            shards.photos.histories.merge(saved.engine.histories) { _, new in new }
            try shards.save()
            try saveSync(saved)
        }
        // The folder's upkeep once the store holds what was merged, and what is kept of the
        // photos says so: an image is let go of only when no photo of the store has it.
        round = try keepUp(after: round, &saved, in: folder, shards, found: found)
        var shown = round
        shown.pending += waiting.map { FolderProblem(id: $0, reason: "its image is no longer in the folder; a later sync writes it") }
        return report(saved.engine, shown)
    }

    /// Writes what a round merges: the photos a sync that died was writing first, as their
    /// histories give them now (a photo this round merges again is written again, as the merge
    /// leaves it), then the merge, a group of photos at a time: each group's photos merged, kept
    /// as being written, written, and their bookkeeping saved, before the next is read.
    private func writeMerge(
        _ unfinished: [String], _ plan: inout MergePlan, _ round: inout SyncRound, _ saved: inout SavedSync,
        _ folder: SyncFolder, _ shards: PhotoShards, _ hooks: RoundHooks
    ) throws -> WrittenMerge {
        var written = WrittenMerge()
        if !unfinished.isEmpty {
            try shards.load(unfinished)
            var touched: [String: PhotoState?] = [:]
            for id in unfinished {
                if saved.engine.histories[id] == nil { saved.engine.histories[id] = shards.photos.histories[id] }
                touched[id] = .some(saved.engine.state(of: id))
            }
            try write(touched, &saved, round, folder, shards, &written)
        }
        // A merge of many groups keeps the images' uses aside and writes them once at its end,
        // rather than every shard of them with each group; a sync that dies meanwhile leaves the
        // mark for the next to count them anew.
        if plan.groups > 1 {
            saved.usesAside = true
            try saveSync(saved)
            shards.deferUses()
        }
        for group in 0..<plan.groups {
            try engineTranslating { try saved.engine.mergeGroup(group, of: &plan, from: folder, hooks: hooks, into: &round) }
            let touched = round.touched
            round.touched = [:]
            try write(touched, &saved, round, folder, shards, &written)
            if plan.groups > 1 {
                shards.photos.histories.merge(saved.engine.histories) { _, new in new }
                try shards.save()
                saved.engine.histories = [:]
                shards.unload()
            }
        }
        if plan.groups > 1 {
            try shards.writeDeferredUses()
            saved.usesAside = nil
            try saveSync(saved)
        }
        return written
    }

    /// What the store changed since its last sync, to publish in the round; a new device's
    /// photos are published first, in a change file of their own (with how many changes).
    private func findChanges(_ saved: inout SavedSync, _ folder: SyncFolder, _ shards: PhotoShards, isNew: Bool, position: JournalPosition?)
        throws -> (LocalChanges, published: Int)
    {
        var found = LocalChanges()
        if isNew {
            let published = try publishEverything(&saved, folder, shards)
            found.photosChanged = true
            return (found, published)
        } else if position == nil || position != saved.position {
            found = try localChanges(&saved.engine, shards, since: saved.position, alsoUnliked: saved.unlikesFound ?? [:])
            saved.unlikesFound = nil
        } else if let unliked = saved.unlikesFound {
            found = try localChanges(&saved.engine, shards, since: saved.position, alsoUnliked: unliked)
            saved.unlikesFound = nil
        }
        return (found, 0)
    }

    /// The report of a sync with nothing new on either side, which writes nothing (and, with the
    /// journal where the last sync left it, reads no record); `nil` when there is something,
    /// images to let go of among it.
    private func quietReport(_ saved: SavedSync, _ folder: SyncFolder) throws -> StoreSyncReport? {
        guard saved.engine.partlyMerged.isEmpty else { return nil }
        let glance = try folderTranslating { try folder.glance(merged: saved.engine.merged) }
        guard !glance.unmerged, glance.devices.contains(saved.engine.device), !saved.engine.canRelease(in: folder),
            !(try folderTranslating { try saved.engine.missesOwnFiles(in: folder) })
        else { return nil }
        var quiet = SyncRound()
        for device in glance.devices { quiet.devices[device] = saved.engine.deviceNames[device] ?? folder.name(of: device) ?? "" }
        quiet.forgotten = saved.engine.forgottenDevices(in: folder)
        return report(saved.engine, quiet)
    }

    /// About how many changes a round merges at a time: a group of photos whose changes, with
    /// their histories and bookkeeping, take a few megabytes.
    static let mergeGroupSize = 4_000

    /// What a round's groups wrote so far.
    private struct WrittenMerge {
        /// The photos that wait for an image no longer in the folder.
        var waiting: [String] = []
        /// Whether the merge wrote into the store in sessions that leave the journal unsorted
        /// (it then needs sorting).
        var mayBeUnsorted = false
        /// Whether any photo was written.
        var any = false
    }

    /// Writes merged photos into the store, kept first as being written (``SavedSync/applying``):
    /// a sync that dies part way finishes them first next time, so that none half written passes
    /// for this store's own change.
    private func write(
        _ touched: [String: PhotoState?], _ saved: inout SavedSync, _ round: SyncRound, _ folder: SyncFolder, _ shards: PhotoShards,
        _ written: inout WrittenMerge
    ) throws {
        guard !touched.isEmpty else { return }
        shards.photos.histories.merge(saved.engine.histories) { _, new in new }
        saved.applying = (written.waiting + touched.keys).sorted()
        try shards.save()
        try saveSync(saved)
        let (waiting, wrote) = try apply(touched, devices: Array(round.devices.keys), from: folder, shards, engine: saved.engine)
        written.waiting += waiting
        written.mayBeUnsorted = written.mayBeUnsorted || wrote
        written.any = true
    }

    /// Acknowledges what the store merged, lets go of images every device has seen unliked and
    /// compacts the change files, as the engine finds called for; keeps what that changed.
    private func keepUp(after round: SyncRound, _ saved: inout SavedSync, in folder: SyncFolder, _ shards: PhotoShards, found: LocalChanges) throws
        -> SyncRound
    {
        var kept = round
        let before = (kept.acknowledged, kept.released, kept.compacted)
        let hooks = roundHooks(saved, shards, found)
        try engineTranslating { try saved.engine.keepUp(folder, &kept, hooks) }
        if (kept.acknowledged, kept.released, kept.compacted) != before {
            try saveSync(saved)
        }
        return kept
    }

    /// What the engine asks of this store: its images, the sync state kept before a change
    /// file is written, the photos' histories, whether an image is a photo's, the time.
    /// `unstamped`: the state before this round stamped the store's changes.
    private func roundHooks(_ saved: SavedSync, _ shards: PhotoShards, _ found: LocalChanges, unstamped: DeviceSyncState? = nil) -> RoundHooks {
        let kept = saved
        return RoundHooks(
            image: { sha256 in try self.publishedBytes(sha256, found.images[sha256] ?? shards.photo(withImage: sha256)) },
            reserve: { reserved in
                // The file's number first, with the clock as it stood before the changes were
                // stamped; then the photos' side, with the changes about to be published in
                // their histories and their parts noted as published; then the clock. A sync that
                // dies after writing the file never makes them again with later stamps (which
                // could win over what another device changed meanwhile); one that dies before
                // writing it finds the numbered file missing and publishes them again from the
                // histories, as stamped; one that dies before the photos' side finds the changes
                // still to make and stamps them as it would have, as if it had not begun.
                // Every file the photos' side will read is read first: one of a later version
                // refuses the sync before it has written anything.
                shards.photos.histories.merge(reserved.histories) { _, new in new }
                try shards.prepareSave()
                var state = kept
                state.engine = reserved
                state.engine.histories = [:]
                let stamped = unstamped.map { $0.clock != reserved.clock || $0.ownLast != reserved.ownLast } ?? false
                var first = state
                if stamped, let unstamped {
                    first.engine.clock = unstamped.clock
                    first.engine.ownLast = unstamped.ownLast
                }
                try self.saveSync(first)
                shards.photos.histories.merge(reserved.histories) { _, new in new }
                try shards.save()
                if stamped { try self.saveSync(state) }
            },
            histories: { ids in
                if let ids { try shards.load(ids) } else { try shards.loadAll() }
                return ids.map { ids in shards.photos.histories.filter { ids.contains($0.key) } } ?? shards.photos.histories
            },
            inUse: { sha256 in try shards.isInUse(sha256) },
            now: { Timestamp.now() })
    }

    /// Runs the engine, what it throws in the façade's words.
    private func engineTranslating<Value>(_ work: () throws -> Value) throws -> Value {
        do {
            return try folderTranslating(work)
        } catch let refusal as SyncRefusal {
            switch refusal {
            case .copiedStore(let device, let file): throw StoreError.copiedStore(device: device, file: file)
            }
        }
    }

    /// An image of this store's to publish, read when it is written: `nil` when the store no
    /// longer has those bytes (changed or unliked since).
    func publishedBytes(_ sha256: String, _ place: (id: String, user: Bool)?, reader: StoreReader? = nil) throws -> [UInt8]? {
        guard let place, let bytes = try? imageBytes(of: place.id, user: place.user, reader: reader), SyncFolder.digest(bytes) == sha256
        else { return nil }
        return bytes
    }

    /// Takes note that the folder need not wait for `device` (see `forgetting`).
    private func forget(_ device: String, in folder: SyncFolder, _ saved: inout SavedSync) throws {
        guard device != saved.engine.device else {
            throw StoreError.unknownSyncDevice(device: device, reason: "it is this store's own device")
        }
        let known = Set(try folderTranslating { try folder.glance(merged: saved.engine.merged) }.devices).union(saved.engine.deviceNames.keys)
        guard known.contains(device) else {
            throw StoreError.unknownSyncDevice(device: device, reason: "the sync folder knows no such device")
        }
        saved.engine.forgotten[device] = Timestamp.now()
    }

    func folderTranslating<Value>(_ work: () throws -> Value) throws -> Value {
        do {
            return try work()
        } catch let error as FolderError {
            throw StoreError.io(action: error.action, path: error.path, code: error.code)
        }
    }

    private func report(_ engine: DeviceSyncState, _ round: SyncRound) -> StoreSyncReport {
        var names = engine.deviceNames.merging(round.devices) { _, new in new }
        names[engine.device] = engine.name
        let devices = names.keys.sorted().map { id in
            StoreSyncReport.Device(
                id: id, name: names[id] ?? "", lastChange: engine.lastChange[id], forgotten: round.forgotten.contains(id))
        }
        return StoreSyncReport(
            device: engine.device, published: round.published, merged: round.merged,
            pending: round.pending.map { StoreSyncReport.Problem(id: $0.id, reason: $0.reason) },
            skipped: round.newer.map { StoreSyncReport.Problem(id: $0.id, reason: $0.reason) }, devices: devices, released: round.released,
            compacted: round.compacted)
    }

    // MARK: What the store keeps

    /// What the store keeps, and whether it was made now (a store's first sync, or a new device).
    private func loadSync(newDevice: Bool, _ shards: PhotoShards) throws -> (SavedSync, isNew: Bool) {
        if let data = try store.syncFile(Store.syncStateName) {
            // A state a later version wrote is refused even for a new device, whose start would
            // empty the shards that version keeps.
            let saved = try Store.decodeSyncState(data, file: store.displayPath + "/sync/state.json")
            if !newDevice, saved.firstPublication != nil {
                // A first publication cut short: begun again, the device and its clock kept (it
                // merged nothing yet), what it wrote of the photos' side let go of.
                try shards.clear()
                return (saved, true)
            }
            if !newDevice { return (saved, false) }
        }
        // A new device publishes every photo the store holds, as its own.
        try shards.clear()
        var saved = SavedSync(engine: DeviceSyncState(device: DeviceID.make(), name: Platform.hostName()), position: nil)
        saved.firstPublication = 0
        try saveSync(saved)
        return (saved, true)
    }

    func saveSync(_ saved: SavedSync) throws {
        var kept = saved
        kept.engine.histories = [:]
        kept.format = SyncFormat.current
        try store.setSyncFile(try JSONEncoder().encode(kept), for: Store.syncStateName)
    }
}

extension Store {
    /// Publishes into the folder at `folderPath` the changes this store made since its last
    /// sync, and merges into the store the changes other devices published there; see LikeKit's
    /// `sync(with:newDevice:forgetting:)`. One sync of a store runs at a time (a second waits
    /// for it); likes and reads by other processes go on meanwhile. `onCommit` hears each merged
    /// photo as it is committed.
    ///
    /// Nothing is written, in the store or the folder, before the store is known to be this
    /// version's to sync: a journal, record or sync file a later version wrote is refused first.
    ///
    /// - Throws: ``StoreError``: `syncFolderMissing`, `newerFormat`, `copiedStore` (nothing
    ///   written), `unknownSyncDevice`, `busy`, `io`.
    package func sync(with folderPath: String, newDevice: Bool = false, forgetting: String? = nil, onCommit: @escaping CommitListener) throws
        -> StoreSyncReport
    {
        let folder = SyncFolder(path: folderPath)
        guard folder.exists else { throw StoreError.syncFolderMissing(path: folderPath, isFile: folder.isFile) }
        try refuseNewerBeforeSyncing(newDevice: newDevice)
        return try withSyncLock { try StoreSync(store: self, onCommit: onCommit).run(folder, newDevice: newDevice, forgetting: forgetting) }
    }
}

extension Store {
    /// Throws ``StoreError/newerFormat(file:format:)`` when a later version wrote what a sync
    /// would read before it writes anything: the journal, the sync state, and for a store whose
    /// first sync this is (or that becomes a new device), every record, which a first sync
    /// publishes. A sync that reads a shard or a record of a later version later refuses there,
    /// before it has written anything of its round.
    func refuseNewerBeforeSyncing(newDevice: Bool) throws {
        guard let root = try openRoot() else { return }
        try Journal(root: root).refuseNewerFormat()
        var firstSync = true
        if let data = try syncFile(Store.syncStateName) {
            let saved = try Self.decodeSyncState(data, file: displayPath + "/sync/state.json")
            firstSync = newDevice || saved.firstPublication != nil
        }
        guard firstSync, let records = try root.subdirectoryIfFolder(StoreLayout.recordsDirectory) else { return }
        // Each file's first bytes say its format; only one that does not begin as this version
        // writes is decoded.
        let usual = Array("{\"format\":1,".utf8)
        try records.forEachName { name in
            guard StoreLayout.key(ofRecordFile: name) != nil, let bytes = try? records.readBytes(name), !bytes.starts(with: usual),
                let format = RecordFiles.newerFormat(of: bytes)
            else { return }
            throw StoreError.newerFormat(file: records.path(name), format: "record format \(format)")
        }
    }
}
