// Owns how a folder outside any store (a sync folder) is made durable, chosen as a store's own
// flushing is, by the file system the folder is on: one `syncfs` for many files where it flushes
// the whole file system, else each file and then the folder. Called by LikeSync's folder files.

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How files written into a folder are flushed, for the file system it is on.
package struct FolderFlush: Sendable, Hashable {
    /// Whether one `syncfs` of the folder makes everything written on it durable (ext4, xfs,
    /// btrfs, f2fs, tmpfs): files written one after another then need no flush of their own.
    package let flushesWhole: Bool

    /// The flushing of the folder open as `directory`.
    package init(directory: Int32) {
        flushesWhole = FileFlush.fileSystem(of: directory).strategy == .wholeFileSystem
    }

    /// Flushes one file written among many, before it is renamed into place: nothing where the
    /// whole file system is flushed after them (``flushAll(directory:)``); else the file, so that
    /// it reaches the disk before what is written after it.
    package func flushOne(_ file: Int32) -> Int32 {
        flushesWhole ? 0 : FileFlush.orderedSync(file)
    }

    /// Makes durable every file written and renamed in the folder so far, and the folder.
    package func flushAll(directory: Int32) -> Int32 {
        flushesWhole ? FileFlush.syncFileSystem(directory) : FileFlush.fullSync(directory)
    }
}
