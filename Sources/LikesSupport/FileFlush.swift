// Owns how a file or a folder reaches stable storage on each platform: the full and the ordered
// flush, Linux's syncfs, and which file systems one syncfs flushes whole (read from fstatfs).
// Called by the store's folders, the durable whole-file write and a sync folder's files.

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
    import LinuxFileSystemCalls
#elseif canImport(Musl)
    import Musl
#endif

/// The flushes of files and folders, as each platform offers them.
package enum FileFlush {
    /// Flushes a file's data and metadata to stable storage: `fsync`, and `F_FULLFSYNC` on Apple
    /// platforms, where `fsync` leaves the data in the drive's cache.
    package static func fullSync(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
            if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
            // Some file systems (network, FAT) refuse F_FULLFSYNC; fsync is the best they offer.
            return fsync(fd)
        #else
            return fsync(fd)
        #endif
    }

    /// Flushes a file so that it reaches stable storage before anything written after it does,
    /// without waiting for the drive's cache: `F_BARRIERFSYNC` on Apple platforms (the ordering
    /// flush Apple recommends in "Reducing disk writes"), `fsync` elsewhere. A later
    /// ``fullSync(_:)`` makes it durable along with everything else.
    package static func orderedSync(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
            if fcntl(fd, F_BARRIERFSYNC) == 0 { return 0 }
            // Where barriers are refused, the full flush both orders and makes durable.
            return fullSync(fd)
        #else
            return fsync(fd)
        #endif
    }

    /// Flushes every dirty file and directory of the file system holding `fd` in one go, with
    /// one journal commit and one cache flush, where a series of `fsync` calls costs one each.
    /// Only for file systems ``fileSystem(of:)`` names as flushed whole by it; Linux reports
    /// writeback errors from it since 5.8.
    package static func syncFileSystem(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
            return likes_syncfs(fd)
        #else
            return fullSync(fd)
        #endif
    }

    /// Local Linux file systems whose `syncfs` writes back every dirty file and directory and
    /// flushes the device cache, by `statfs` magic number. FUSE is not among them: the kernel
    /// does not pass `syncfs` on to a FUSE server (only virtiofs opts in), so it flushes nothing
    /// there; neither are NFS, SMB, overlay file systems or any that is not known.
    private static let wholeFlushFileSystems: [(magic: Int, name: String)] = [
        (0xEF53, "ext2/ext3/ext4"), (0x5846_5342, "xfs"), (0x9123_683E, "btrfs"), (0xF2F5_2010, "f2fs"), (0x0102_1994, "tmpfs"),
    ]

    /// Names of other file systems that stores are often kept on, for `likes stats`.
    /// (Arrays of pairs, not dictionaries: read once per store opened, where a dictionary's first
    /// use costs a search of the binary's conformances.)
    private static let otherFileSystems: [(magic: Int, name: String)] = [
        (0x6573_5546, "fuse"), (0x6969, "nfs"), (0xFF53_4D42, "cifs"), (0xFE53_4D42, "smb2"), (0x794C_7630, "overlay"), (0x4D44, "vfat"),
        (0x5346_544E, "ntfs"), (0x7366_746E, "ntfs3"), (0x2011_BAB0, "exfat"), (0x8584_58F6, "ramfs"), (0x2FC1_2FC1, "zfs"), (0x00C3_6400, "ceph"),
    ]

    #if canImport(Glibc)
        /// The `f_type` magic number of the file system holding `fd` (a `long`, of which the low
        /// 32 bits are the magic).
        private static func fileSystemMagic(_ fd: Int32) -> Int? {
            let magic = likes_file_system_magic(fd)
            return magic == -1 ? nil : Int(UInt32(truncatingIfNeeded: magic))
        }
    #endif

    /// The name of the file system holding `fd`, and how a store on it is best flushed.
    package static func fileSystem(of fd: Int32) -> (name: String, strategy: FlushMethod) {
        #if canImport(Darwin)
            var info = statfs()
            guard fstatfs(fd, &info) == 0 else { return ("unknown", .barrier) }
            let name = withUnsafePointer(to: &info.f_fstypename) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(MFSTYPENAMELEN)) { String(cString: $0) }
            }
            return (name, .barrier)
        #elseif canImport(Glibc)
            guard let magic = fileSystemMagic(fd) else { return ("unknown", .eachFile) }
            if let known = wholeFlushFileSystems.first(where: { $0.magic == magic }) { return (known.name, .wholeFileSystem) }
            let name = otherFileSystems.first { $0.magic == magic }?.name ?? "unknown (0x" + String(magic, radix: 16) + ")"
            return (name, .eachFile)
        #else
            return ("unknown", .eachFile)
        #endif
    }
}
