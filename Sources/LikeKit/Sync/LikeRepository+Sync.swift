// The façade's sync: LikeStore's StoreSync does the work (what the store keeps between syncs,
// what it owes the folder, the order of a round for crashes); this translates its report and errors.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
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
    /// A change is owed to the folder from the moment it is committed: no maintenance between
    /// syncs (``purge(dryRun:)-3p5qs``, ``rebuildIndex()-20e5n``, ``repair(dryRun:)-69flr``, a restore)
    /// loses one that no sync has published yet. One sync of a store runs at a time (a second
    /// waits for it); likes and reads by other processes go on meanwhile. A store that a later
    /// version wrote is refused before anything is written, in the store or the folder.
    ///
    /// - Parameters:
    ///   - folder: The sync folder; an empty one is a new folder.
    ///   - newDevice: Gives this store a new device id first (for a store copied from another
    ///     device's), and publishes its photos as that device.
    ///   - forgetting: A device the folder should stop waiting for before it lets go of images
    ///     (a lost phone), by id. If it syncs again, it is waited for again and loses nothing.
    /// - Returns: What was published and merged, what waits, and the devices the folder knows.
    /// - Throws: ``LikeRepositoryError``: `syncFolderMissing`, `newerFormat`, `copiedStore`
    ///   (nothing written), `unknownSyncDevice`, `storeBusy`, `io`.
    public func sync(with folder: URL, newDevice: Bool = false, forgetting: String? = nil) throws -> SyncReport {
        let report = try translating {
            try store.sync(with: folder.path, newDevice: newDevice, forgetting: forgetting, onCommit: observers.changed)
        }
        return SyncReport(report)
    }

    /// Syncs; see ``sync(with:newDevice:forgetting:)-2lmy9``. The work runs on the repository's own
    /// queue; cancelling stops a wait for the store's lock.
    public func sync(with folder: URL, newDevice: Bool = false, forgetting: String? = nil) async throws -> SyncReport {
        try await work.change { try self.sync(with: folder, newDevice: newDevice, forgetting: forgetting) }
    }
}
