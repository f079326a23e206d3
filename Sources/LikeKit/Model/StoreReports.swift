// What purge, verify and statistics report about a store.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// What ``LikeRepository/purge(dryRun:)-3p5qs`` removed, or would remove.
public struct PurgeReport: Sendable, Hashable {
    /// Whether this was a dry run that removed nothing.
    public var dryRun: Bool
    /// The orphan files, as paths inside the store.
    public var files: [String]
    /// Their total size in bytes.
    public var bytes: Int
    /// How many there are.
    public var count: Int { files.count }
}

/// What ``LikeRepository/verify()-axqj`` found.
public struct VerificationReport: Sendable, Hashable {
    /// One sentence for each broken invariant: a damaged record, a missing, cut short or
    /// changed image, a file shared by two records, an index that disagrees with the records.
    public var problems: [String]
    /// Files that belong to no record: harmless, and removed by ``LikeRepository/purge(dryRun:)-3p5qs``.
    public var orphans: [String]
    /// One sentence for each thumbnail or rendition found damaged (as a power cut may leave one)
    /// and made anew from its photo: derived files, which break no invariant. One that could not
    /// be made (a read-only store) is among ``problems``.
    public var remade: [String] = []
    /// Whether every invariant holds; orphans alone do not break one.
    public var isOK: Bool { problems.isEmpty }

    /// A report of these findings.
    package init(problems: [String], orphans: [String], remade: [String] = []) {
        self.problems = problems
        self.orphans = orphans
        self.remade = remade
    }
}

/// What ``LikeRepository/repair(dryRun:)-69flr`` did, or would do.
public struct RepairReport: Sendable, Hashable {
    /// Something that could not stay in the store, moved under `damaged/`.
    public struct SetAside: Sendable, Hashable {
        /// The photo it belonged to, when known.
        public var id: String?
        /// The files moved, as paths inside the store (their place under `damaged/REPAIR/` is
        /// the same path). Empty when the file was already missing.
        public var files: [String]
        /// What was wrong, as a sentence fragment: "the image of photo "x" is missing, so the
        /// photo cannot be kept".
        public var reason: String
    }

    /// Whether this was a dry run that changed nothing.
    public var dryRun: Bool
    /// Photos whose record was rebuilt from their images and the journal.
    public var rebuilt: [PhotoID]
    /// What was moved under `damaged/`, one item per photo or stray entry.
    public var setAside: [SetAside]
    /// Whether the store verifies now (for a dry run: as it is, unchanged).
    public var isOK: Bool
    /// Thumbnails made because they were missing or damaged (for a dry run: that would be made).
    public var thumbnailsMade = 0
}

/// How big a collection is and the span of dates it covers.
public struct LikeStatistics: Sendable, Hashable {
    /// The number of liked photos.
    public var count: Int
    /// The bytes of all their images together.
    public var bytes: Int
    /// When the earliest like still kept was made.
    public var oldest: Date?
    /// When the latest like was made.
    public var newest: Date?
    /// The file system the store is on (for a store not created yet, the one it will be on),
    /// such as `ext2/ext3/ext4`, `fuse` or `apfs`.
    public var fileSystem: String
    /// How changes to the store are made durable on that file system.
    public var flushStrategy: FlushStrategy
    /// Requests photo sources still owe for liked photos (Unsplash's download count of a photo
    /// imported while its hourly limit was reached): the next `unsplash` command makes them.
    public var owedRequests: Int = 0
    /// The renditions the store keeps (see ``LikeRepository/image(for:covering:)-6nwig``).
    public var renditions = 0
    /// Their bytes together.
    public var renditionBytes = 0
    /// The budget of bytes they are kept under (``LikeRepository/setRenditionBudget(_:)-985id``).
    public var renditionBudget = 0
}

/// Whether each change is flushed to stable storage before the call returns.
public enum Durability: Sendable, Hashable {
    /// fsync every file and directory a change touches: a change that returned survives a crash
    /// or power loss right after. The default.
    case full
    /// Skip fsync, for bulk loads and benchmarks: changes survive a crash of the process but not
    /// necessarily a power loss. Run `verify` and `purge` after an unclean shutdown.
    case relaxed
}

/// What ``LikeRepository/makeThumbnails(for:)-4b4nw`` made.
public struct ThumbnailReport: Sendable, Hashable {
    /// How many thumbnails were made.
    public var made: Int
    /// The photos among them whose JPEG data is damaged: stored as they are, their thumbnails
    /// showing what could be read.
    public var damaged: [DamagedPhoto]
}

/// A liked photo whose JPEG data is damaged (cut short, a code no Huffman table has, a restart
/// marker missing): it is kept as it is, the user's photo, and its thumbnail shows what could be
/// read, as libjpeg's decode does when it warns.
public struct DamagedPhoto: Sendable, Hashable {
    /// The photo.
    public var id: PhotoID
    /// What is wrong with its data, as a sentence fragment: "its data ends before its last scan
    /// does (cut short)".
    public var damage: String
}
