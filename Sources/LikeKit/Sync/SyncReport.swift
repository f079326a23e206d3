// Owns what a sync tells its caller: the public report of one sync, and the fingerprint of a
// sync folder that `likes sync --watch` compares between syncs.

import LikeSync

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// What ``LikeRepository/sync(with:newDevice:forgetting:)-2lmy9`` did.
public struct SyncReport: Sendable, Hashable {
    /// A device the sync folder knows.
    public struct Device: Sendable, Hashable {
        /// Its id: 16 hex digits.
        public var id: String
        /// Its name (the host's name when it first synced).
        public var name: String
        /// When its newest change that this store has seen was made; `nil` if none.
        public var lastChange: Date?
        /// Whether a device forgot it (`likes sync DIR --forget DEVICE`) and it has not synced
        /// since: the folder no longer waits for it before it lets go of images.
        public var forgotten: Bool
    }

    /// Something that could not be merged yet (or, in ``skipped``, by this version).
    public struct Problem: Sendable, Hashable {
        /// The photo id or the folder's file it is about.
        public var id: String
        /// Why.
        public var reason: String
    }

    /// This store's device id.
    public var device: String
    /// The changes of this store published into the folder.
    public var published: Int
    /// The changes of other devices merged into this store.
    public var merged: Int
    /// Changes waiting for files still arriving: a later sync merges them.
    public var pending: [Problem]
    /// Files of a newer format, left alone: a newer `likes` reads them.
    public var skipped: [Problem]
    /// The devices the folder knows, this one included, by id.
    public var devices: [Device]
    /// The images this store's device let go of from the folder: those of photos every device
    /// has seen unliked, and those a snapshot of its changes no longer names.
    public var released: Int
    /// Whether this sync wrote a snapshot of the device's changes and removed its older change
    /// files.
    public var compacted: Bool
}

/// What changes when anything a sync reads in a sync folder changes: its names, and each
/// device's files with their sizes and times. Cheap (a listing of the folder and of each
/// device's): what `likes sync --watch` compares between syncs.
public struct SyncFolderFingerprint: Sendable, Hashable {
    let items: [String]

    /// The folder's fingerprint now.
    ///
    /// - Parameter folder: The sync folder.
    public init(folder: URL) {
        items = SyncFolder(path: folder.path).fingerprint()
    }
}
