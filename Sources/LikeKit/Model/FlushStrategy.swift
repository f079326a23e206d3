// How a store makes a change durable on the file system it lives on.

import LikeStore

/// How changes to a store are flushed to stable storage, chosen from the file system it is on.
///
/// A change is durable when it returns on every file system that honours `fsync(2)` for files
/// and directories. What differs is how many flushes that takes:
///
/// - ``wholeFileSystem``: on Linux file systems known to write back every file at once (ext4,
///   xfs, btrfs, f2fs), one `syncfs(2)` before the commit replaces a flush per file.
/// - ``eachFile``: everywhere else on Linux (FUSE file systems such as sshfs, gocryptfs, rclone
///   or ntfs-3g, NFS, SMB, overlay and any file system not known), each file and directory is
///   flushed with `fsync(2)`; `syncfs` reaches no FUSE server, so it would flush nothing there.
/// - ``barrier``: on Apple platforms, each file is flushed with `F_BARRIERFSYNC`, which orders
///   it before everything written later without emptying the drive's cache, and the commit with
///   one `F_FULLFSYNC`, which empties it: one full flush per change.
/// - ``none``: the repository was opened with ``Durability/relaxed``.
public enum FlushStrategy: String, Sendable, Hashable, CustomStringConvertible {
    case wholeFileSystem = "syncfs"
    case eachFile = "fsync"
    case barrier = "barrier"
    case none = "none"

    /// A short phrase for people, such as "one syncfs per change".
    public var description: String {
        switch self {
        case .wholeFileSystem: "one syncfs per change"
        case .eachFile: "an fsync of each file and directory"
        case .barrier: "F_BARRIERFSYNC per file and one F_FULLFSYNC per change"
        case .none: "none (relaxed durability)"
        }
    }
}
