// Owns the few C library calls whose form differs between platforms (flushes, syncfs, the swap
// of two entries, the file system's type, errno and its message). Called by StoreDirectory, and
// for errno by FileLock and the error messages.

import LikesSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
    import LinuxFileSystemCalls
#elseif canImport(Musl)
    import Musl
#endif

enum Platform {
    /// Flushes a file's data and metadata to stable storage: `fsync`, and `F_FULLFSYNC` on Apple
    /// platforms, where `fsync` leaves the data in the drive's cache.
    static func fullSync(_ fd: Int32) -> Int32 {
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
    static func orderedSync(_ fd: Int32) -> Int32 {
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
    static func syncFileSystem(_ fd: Int32) -> Int32 {
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
    static func fileSystem(of fd: Int32) -> (name: String, strategy: FlushMethod) {
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

    /// Swaps two entries of the directory `fd` atomically: 0 on success, -1 with `errno` set,
    /// `nil` where the system has no such call or the file system refuses it (then nothing
    /// changed).
    static func exchange(_ fd: Int32, _ first: String, _ second: String) -> Int32? {
        let swapFlag: UInt32 = 1 << 1  // RENAME_EXCHANGE, RENAME_SWAP
        #if canImport(Darwin)
            // Looked up by name, so that no SDK needs to declare it.
            typealias Swap = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: -2), "renameatx_np") else { return nil }  // RTLD_DEFAULT
            let result = unsafeBitCast(symbol, to: Swap.self)(fd, first, fd, second, swapFlag)
        #elseif canImport(Glibc)
            let result = likes_renameat2(fd, first, fd, second, swapFlag)
        #else
            return nil
        #endif
        if result != 0, [EINVAL, ENOSYS, ENOTSUP].contains(errno) { return nil }
        return result
    }

    /// The extended attribute of the journal file where its length is noted (see `Journal`):
    /// Linux keeps a program's own attributes in the `user.` namespace.
    static let journalLengthAttribute: String = {
        #if canImport(Darwin)
            return "org.likes.journal-bytes"
        #else
            return "user.likes.journal-bytes"
        #endif
    }()

    /// Sets the extended attribute `name` of the open file `fd` to `value`: false where the
    /// file system keeps no such attributes (FUSE servers that do not implement them, NFS before
    /// 4.2, FAT), with `errno` set. A short value lives in the file's inode on ext4, xfs and
    /// btrfs, and so reaches the disk with the file's size, in the same write.
    static func setAttribute(_ fd: Int32, _ name: String, _ value: [UInt8]) -> Bool {
        value.withUnsafeBytes { bytes in
            #if canImport(Darwin)
                return fsetxattr(fd, name, bytes.baseAddress, bytes.count, 0, 0) == 0
            #elseif canImport(Glibc)
                return likes_set_attribute(fd, name, bytes.baseAddress, UInt(bytes.count)) == 0
            #else
                return false
            #endif
        }
    }

    /// The extended attribute `name` of the open file `fd`, if it has one of at most
    /// `capacity` bytes.
    static func attribute(_ fd: Int32, _ name: String, capacity: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: capacity)
        let length = buffer.withUnsafeMutableBytes { bytes -> Int in
            #if canImport(Darwin)
                return fgetxattr(fd, name, bytes.baseAddress, bytes.count, 0, 0)
            #elseif canImport(Glibc)
                return likes_get_attribute(fd, name, bytes.baseAddress, UInt(bytes.count))
            #else
                return -1
            #endif
        }
        guard length >= 0 else { return nil }
        return Array(buffer.prefix(length))
    }

    static var errno: Int32 {
        #if canImport(Darwin)
            return Darwin.errno
        #elseif canImport(Glibc)
            return Glibc.errno
        #else
            return Musl.errno
        #endif
    }

    static func message(for code: Int32) -> String { MessageText.systemError(code) }

    // Thin wrappers, so that types with methods of the same names can call the C functions.
    static func sysOpen(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
    static func sysRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { read(fd, buffer, count) }
    static func sysWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }
    static func sysClose(_ fd: Int32) -> Int32 { close(fd) }
    static func sysPread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: off_t) -> Int {
        pread(fd, buffer, count, offset)
    }

    static let openFlagsCommon: Int32 = O_CLOEXEC | O_NOFOLLOW
}
