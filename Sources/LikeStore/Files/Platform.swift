// Owns the few C library calls whose form differs between platforms that only a store makes (the
// swap of two entries, extended attributes, errno and its message); the flushes are LikesSupport's
// FileFlush. Called by StoreDirectory, and for errno by FileLock and the error messages.

import LikesSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
    import LinuxFileSystemCalls
#elseif canImport(Musl)
    import Musl
#endif

package enum Platform {
    /// The host's name, for a device's name in a sync folder; "device" when there is none.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "device" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "device" : name
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
    package static let journalLengthAttribute: String = {
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
    package static func attribute(_ fd: Int32, _ name: String, capacity: Int) -> [UInt8]? {
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
