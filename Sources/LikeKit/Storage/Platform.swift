// The few C library calls the store needs, with the platform differences in one place.

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

enum Platform {
    /// Flushes a file's data and metadata to stable storage.
    ///
    /// On Apple platforms `fsync` leaves the data in the drive's cache; `F_FULLFSYNC` flushes it.
    static func fullSync(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
            if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
            // Some file systems (network, FAT) refuse F_FULLFSYNC; fsync is the best they offer.
            return fsync(fd)
        #else
            return fsync(fd)
        #endif
    }

    /// Linux's `syncfs`, which the Glibc module leaves out (it needs `_GNU_SOURCE`); looked up once.
    private static let syncfsFunction: (@convention(c) (Int32) -> Int32)? = {
        #if canImport(Glibc)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return nil }  // RTLD_DEFAULT
            return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
        #else
            return nil
        #endif
    }()

    /// Whether ``syncFileSystem(_:)`` flushes a whole file system at once (Linux `syncfs`).
    static var canSyncFileSystem: Bool { syncfsFunction != nil }

    /// Flushes every dirty file and directory of the file system holding `fd` in one go, with
    /// one journal commit and one cache flush, where a series of `fsync` calls costs one each.
    /// Linux reports writeback errors from it since 5.8.
    static func syncFileSystem(_ fd: Int32) -> Int32 {
        guard let syncfsFunction else { return fullSync(fd) }
        return syncfsFunction(fd)
    }

    private typealias ExchangeFunction = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

    /// The call that swaps two directory entries, looked up once by name (so that no SDK needs
    /// to declare it): Linux's `renameat2`, which the Glibc module leaves out, or Apple's
    /// `renameatx_np`. Both take the swap flag as `1 << 1` (`RENAME_EXCHANGE`, `RENAME_SWAP`).
    private static let exchangeFunction: ExchangeFunction? = {
        #if canImport(Darwin)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: -2), "renameatx_np") else { return nil }  // RTLD_DEFAULT
            return unsafeBitCast(symbol, to: ExchangeFunction.self)
        #elseif canImport(Glibc)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return nil }  // RTLD_DEFAULT
            return unsafeBitCast(symbol, to: ExchangeFunction.self)
        #else
            return nil
        #endif
    }()

    /// Swaps two entries of the directory `fd` atomically: 0 on success, -1 with `errno` set,
    /// `nil` where the system has no such call or the file system refuses it (then nothing
    /// changed).
    static func exchange(_ fd: Int32, _ first: String, _ second: String) -> Int32? {
        guard let exchangeFunction else { return nil }
        let swapFlag: UInt32 = 1 << 1
        let result = exchangeFunction(fd, first, fd, second, swapFlag)
        if result != 0, [EINVAL, ENOSYS, ENOTSUP].contains(errno) { return nil }
        return result
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

    static func message(for code: Int32) -> String {
        String(cString: strerror(code))
    }

    // Thin wrappers, so that types with methods of the same names can call the C functions.
    static func sysOpen(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
    static func sysRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { read(fd, buffer, count) }
    static func sysWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }
    static func sysPread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: off_t) -> Int {
        pread(fd, buffer, count, offset)
    }

    static let openFlagsCommon: Int32 = O_CLOEXEC | O_NOFOLLOW
}
