// How the store makes a change durable on the file system it lives on, as read from fstatfs when
// the store is opened (see Design.md, "Flushing, file system by file system").

/// How changes are flushed; the raw value is the word `likes stats` prints.
package enum FlushMethod: String, Sendable, Hashable {
    /// One `syncfs(2)` per change, which writes back the whole file system (ext4, xfs, btrfs, f2fs,
    /// tmpfs).
    case wholeFileSystem = "syncfs"
    /// An `fsync(2)` of each file and directory written.
    case eachFile = "fsync"
    /// `F_BARRIERFSYNC` per file and one `F_FULLFSYNC` per change (Apple platforms).
    case barrier = "barrier"
    /// Nothing is flushed (relaxed durability).
    case none = "none"
}
