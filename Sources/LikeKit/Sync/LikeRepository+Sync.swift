// Owns a store's side of syncing with other devices through a folder: one sync from start to end
// (what the store changed since its last sync published through LikeSync, the other devices'
// changes merged and written back, the bookkeeping kept), a device forgotten, and the report.
// What it keeps between syncs is SyncBookkeeping's; the store's own changes are found by
// SyncLocalChanges, and merged photos written by SyncMergedPhotos.

import LikeStore
import LikeSync
import LikesSupport

#if canImport(Darwin)
    import Darwin
    import Foundation
#elseif canImport(Glibc)
    import Glibc
    import FoundationEssentials
#elseif canImport(Musl)
    import Musl
    import FoundationEssentials
#endif

extension LikeRepository {

    /// Publishes into `folder` the changes this store made since its last sync, and merges into
    /// the store the changes other devices published there.
    ///
    /// `folder` is a folder another program carries between devices (Syncthing, iCloud Drive,
    /// Dropbox, a USB stick); each device points its own store at its own copy of it. Every
    /// device writes only files of its own there, whole. A change whose files have not all
    /// arrived is pending (named in the report) and merged by a later sync; files missing from
    /// the folder never unlike anything. Merged photos reach observers like local changes, with
    /// the device they came from (``LikeChange/device``). Once every device the folder knows
    /// has merged an unlike, the images this device published of the photo leave the folder;
    /// when its change files have grown, they are compacted into one snapshot.
    ///
    /// One sync of a store runs at a time (a second waits for it); likes and reads by other
    /// processes go on meanwhile.
    ///
    /// - Parameters:
    ///   - folder: The sync folder; an empty one is a new folder.
    ///   - newDevice: Gives this store a new device id first (for a store copied from another
    ///     device's), and publishes its photos as that device.
    ///   - forgetting: A device the folder should stop waiting for before it lets go of images
    ///     (a lost phone), by id. If it syncs again, it is waited for again and loses nothing.
    /// - Returns: What was published and merged, what waits, and the devices the folder knows.
    /// - Throws: ``LikeRepositoryError``: `syncFolderMissing`, `copiedStore` (nothing written),
    ///   `unknownSyncDevice`, `storeBusy`, `io`.
    public func sync(with folder: URL, newDevice: Bool = false, forgetting: String? = nil) throws -> SyncReport {
        let sync = SyncFolder(path: folder.path)
        guard sync.exists else { throw LikeRepositoryError.syncFolderMissing(path: folder.path) }
        return try translating { try store.withSyncLock { try self.syncLocked(sync, newDevice: newDevice, forgetting: forgetting) } }
    }

    /// Syncs; see ``sync(with:newDevice:forgetting:)-2lmy9``. The work runs on the repository's own
    /// queue; cancelling stops a wait for the store's lock.
    public func sync(with folder: URL, newDevice: Bool = false, forgetting: String? = nil) async throws -> SyncReport {
        try await work.change { try self.sync(with: folder, newDevice: newDevice, forgetting: forgetting) }
    }

    private func syncLocked(_ folder: SyncFolder, newDevice: Bool, forgetting: String?) throws -> SyncReport {
        let shards = PhotoShards(store: store, displayPath: store.displayPath)
        var (saved, isNew) = try loadSync(newDevice: newDevice, shards)
        if let forgetting { try forget(forgetting, in: folder, &saved) }
        // Photos a sync that died was writing: finished with this round's merged photos, after
        // the store's own changes since are found (a note made since is the newest, and an
        // unlike made since is this store's, to publish).
        let unfinished = saved.applying ?? []
        // Where the journal ends before this store's changes are looked for, kept as where they
        // were found to: a change another process makes while this sync runs is found by the next.
        let positionAt = Timestamp.milliseconds(Date())
        let position = try translating { try store.journalEnd() }
        let unstamped = saved.engine
        let (found, publishedFirst) = try findChanges(&saved, folder, shards, isNew: isNew, position: position)
        if found.changes.isEmpty, !found.photosChanged, forgetting == nil, unfinished.isEmpty, let quiet = try quietReport(saved, folder) {
            return quiet
        }
        var round = try runRound(&saved, folder, shards, found, unstamped: unstamped)
        round.published += publishedFirst
        try shards.load(unfinished)
        for id in unfinished where round.touched[id] == nil {
            if saved.engine.histories[id] == nil { saved.engine.histories[id] = shards.photos.histories[id] }
            round.touched[id] = .some(saved.engine.state(of: id))
        }
        saved.engine.deviceNames = round.devices
        shards.photos.histories.merge(saved.engine.histories) { _, new in new }
        if !round.touched.isEmpty {
            // Kept before the store is written: a sync that dies part way finishes these photos
            // first next time, so that none half written passes for this store's own change.
            saved.applying = round.touched.keys.sorted()
            try shards.save()
            try saveSync(saved)
        }
        let waiting = try apply(round, from: folder, shards, engine: saved.engine)
        saved.applying = waiting.isEmpty ? nil : waiting
        if round.changedState || found.photosChanged || forgetting != nil {
            saved.position = position
            // No change made before the position is still to be found (a minute for a write that
            // took its time before it reached the journal).
            saved.engine.forgetCheckpoints(before: positionAt - 60_000)
            try shards.save()
            try saveSync(saved)
        }
        // The folder's upkeep once the store holds what was merged, and what is kept of the
        // photos says so: an image is let go of only when no photo of the store has it.
        round = try keepUp(&saved, folder, shards, round, found)
        var shown = round
        shown.pending += waiting.map { FolderProblem(id: $0, reason: "its image is no longer in the folder; a later sync writes it") }
        return report(saved.engine, shown)
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
    private func quietReport(_ saved: SavedSync, _ folder: SyncFolder) throws -> SyncReport? {
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

    /// The engine's round, its number for a change file kept before the file is written; the
    /// folder's upkeep is ``keepUp(_:_:_:_:_:)``'s.
    private func runRound(_ saved: inout SavedSync, _ folder: SyncFolder, _ shards: PhotoShards, _ found: LocalChanges, unstamped: DeviceSyncState)
        throws -> SyncRound
    {
        let hooks = roundHooks(saved, shards, found, unstamped: unstamped)
        return try engineTranslating { try saved.engine.sync(with: folder, local: found.changes, hooks: hooks, keepingUp: false) }
    }

    /// Acknowledges what the store merged, lets go of images every device has seen unliked and
    /// compacts the change files, as the engine finds called for; keeps what that changed.
    private func keepUp(_ saved: inout SavedSync, _ folder: SyncFolder, _ shards: PhotoShards, _ round: SyncRound, _ found: LocalChanges) throws
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
            now: { Timestamp.milliseconds(Date()) })
    }

    /// Runs the engine, what it throws in the façade's words.
    private func engineTranslating<Value>(_ work: () throws -> Value) throws -> Value {
        do {
            return try folderTranslating(work)
        } catch let refusal as SyncRefusal {
            switch refusal {
            case .copiedStore(let device, let file): throw LikeRepositoryError.copiedStore(device: device, file: file)
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
            throw LikeRepositoryError.unknownSyncDevice(device: device, reason: "it is this store's own device")
        }
        let known = Set(try folderTranslating { try folder.glance(merged: saved.engine.merged) }.devices).union(saved.engine.deviceNames.keys)
        guard known.contains(device) else {
            throw LikeRepositoryError.unknownSyncDevice(device: device, reason: "the sync folder knows no such device")
        }
        saved.engine.forgotten[device] = Timestamp.milliseconds(Date())
    }

    func folderTranslating<Value>(_ work: () throws -> Value) throws -> Value {
        do {
            return try work()
        } catch let error as FolderError {
            throw LikeRepositoryError.io(action: error.action, path: error.path, code: error.code)
        }
    }

    private func report(_ engine: DeviceSyncState, _ round: SyncRound) -> SyncReport {
        var names = engine.deviceNames.merging(round.devices) { _, new in new }
        names[engine.device] = engine.name
        let devices = names.keys.sorted().map { id in
            SyncReport.Device(
                id: id, name: names[id] ?? "", lastChange: engine.lastChange[id].map { Timestamp.date($0) }, forgotten: round.forgotten.contains(id))
        }
        return SyncReport(
            device: engine.device, published: round.published, merged: round.merged,
            pending: round.pending.map { SyncReport.Problem(id: $0.id, reason: $0.reason) },
            skipped: round.newer.map { SyncReport.Problem(id: $0.id, reason: $0.reason) }, devices: devices, released: round.released,
            compacted: round.compacted)
    }

    // MARK: What the store keeps

    /// What the store keeps, and whether it was made now (a store's first sync, or a new device).
    private func loadSync(newDevice: Bool, _ shards: PhotoShards) throws -> (SavedSync, isNew: Bool) {
        if let data = try translating({ try store.syncFile(Store.syncStateName) }) {
            // A state a later version wrote is refused even for a new device, whose start would
            // empty the shards that version keeps.
            let saved = try translating { try Store.decodeSyncState(data, file: store.displayPath + "/sync/state.json") }
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
        var saved = SavedSync(engine: DeviceSyncState(device: DeviceID.make(), name: Self.hostName()), position: nil)
        saved.firstPublication = 0
        try saveSync(saved)
        return (saved, true)
    }

    func saveSync(_ saved: SavedSync) throws {
        var kept = saved
        kept.engine.histories = [:]
        kept.format = SyncFormat.current
        try translating { try store.setSyncFile(try JSONEncoder().encode(kept), for: Store.syncStateName) }
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "device" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "device" : name
    }
}
