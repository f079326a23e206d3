// What the store's maintenance and reading report, in its own values: the façade makes them the
// public reports (LikeKit's StoreReports.swift), ids and dates in its types.

import LikesSupport

/// What a repair did, or would do.
package struct StoreRepairReport: Sendable, Hashable {
    /// Something that could not stay in the store, moved under `damaged/`.
    package struct SetAside: Sendable, Hashable {
        /// The photo it belonged to, when known.
        package var id: String?
        /// The files moved, as paths inside the store.
        package var files: [String]
        /// What was wrong, as a sentence fragment.
        package var reason: String
    }

    package var dryRun: Bool
    /// The ids of the photos whose record was rebuilt.
    package var rebuilt: [String] = []
    package var setAside: [SetAside] = []
    /// Thumbnails made (or, dry, to be made) because they were missing or damaged.
    package var thumbnailsMade = 0
}

/// What a purge removed, or would remove: paths inside the store and their bytes.
package struct StorePurgeReport: Sendable, Hashable {
    package var dryRun: Bool
    package var files: [String]
    package var bytes: Int
}

/// What a verification found: sentences naming each problem, and the orphan files' paths.
package struct StoreVerification: Sendable, Hashable {
    package var problems: [String]
    package var orphans: [String]
    /// Sentences naming each damaged thumbnail or rendition that was made anew.
    package var remade: [String] = []
}

/// The count, bytes and dates (milliseconds since 1970) of a store, and how it is flushed.
package struct StoreStatistics: Sendable, Hashable {
    package var count: Int
    package var bytes: Int
    package var oldest: Int64?
    package var newest: Int64?
    package var fileSystem: String
    package var flush: FlushMethod
}

/// One album: its name (stored form), how many photos and bytes, and its newest photo.
package struct StoreAlbum: Sendable, Hashable {
    package var name: String
    package var count: Int
    package var bytes: Int
    /// When its newest photo was liked, in milliseconds since 1970.
    package var newest: Int64
    /// The chosen cover, or else the newest photo; `nil` when its record cannot be read.
    package var cover: StoredRecord?
    /// Whether ``cover`` was chosen (see ``StoredRecord/covers``).
    package var coverChosen = false
    /// Every photo whose record names it chosen as this album's cover: one, or none, unless two
    /// devices chose at once.
    package var chosenCovers: [StoredRecord] = []
}

/// Thumbnails made for a set of photos, and those made from damaged JPEGs.
package struct StoreThumbnailReport: Sendable, Hashable {
    package var made: Int
    /// The id of each photo whose JPEG was damaged, and what was wrong.
    package var damaged: [(id: String, damage: String)]

    package static func == (left: Self, right: Self) -> Bool {
        left.made == right.made && left.damaged.map(\.id) == right.damaged.map(\.id) && left.damaged.map(\.damage) == right.damaged.map(\.damage)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(made)
        for photo in damaged {
            hasher.combine(photo.id)
            hasher.combine(photo.damage)
        }
    }
}

/// What one sync did (see ``Store/sync(with:newDevice:forgetting:onCommit:)``).
package struct StoreSyncReport: Sendable, Hashable {
    /// A device the sync folder knows.
    package struct Device: Sendable, Hashable {
        package var id: String
        package var name: String
        /// When its newest change this store has seen was made (milliseconds); `nil` if none.
        package var lastChange: Int64?
        package var forgotten: Bool
    }

    /// A change or file not merged, by photo id or file, and why.
    package struct Problem: Sendable, Hashable {
        package var id: String
        package var reason: String
    }

    package var device: String
    package var published: Int
    package var merged: Int
    package var pending: [Problem]
    package var skipped: [Problem]
    package var devices: [Device]
    package var released: Int
    package var compacted: Bool
}
