// Owns the read-only mappings of store files kept from one read to the next: a journal is mapped
// once and lent to every later walk while it is the same file and no longer than mapped, instead
// of mapped and unmapped by each (an unmapping in a process with several threads interrupts every
// processor to flush its address translations, and each mapping faults its pages in again).
// Used by StoreDirectory.OpenFile.

import LikesSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A file mapped read-only, private, for random reads; unmapped when the last holder lets go.
final class FileMapping: Sendable {
    /// The mapping's address, as a number (a pointer is not `Sendable`; the bytes never change
    /// through it).
    private let address: UInt
    /// The bytes mapped: the file's length when it was mapped.
    let size: Int
    /// The file mapped: device and inode.
    let device: UInt64
    let inode: UInt64

    init?(descriptor: Int32, size: Int, device: UInt64, inode: UInt64) {
        guard size > 0, let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else { return nil }
        // A touched page is read alone, not with megabytes around it: readers ask for the parts
        // they walk through (MADV_WILLNEED), and a jump touches a page here and there.
        _ = madvise(mapped, size, MADV_RANDOM)
        address = UInt(bitPattern: mapped)
        self.size = size
        self.device = device
        self.inode = inode
    }

    deinit {
        if let base = UnsafeMutableRawPointer(bitPattern: address) { munmap(base, size) }
    }

    /// The first `count` bytes (no more than mapped).
    func bytes(_ count: Int) -> UnsafeBufferPointer<UInt8> {
        precondition(count <= size, "more bytes than mapped")
        return UnsafeBufferPointer(start: UnsafePointer(bitPattern: address), count: count)
    }
}

/// The mappings kept, by the file's path: one per path, the newest file under it.
///
/// A mapping is lent for the length the file has now (the caller's `fstat`), never for more: the
/// readers that map a file hold a lock that keeps writers from cutting it meanwhile, which is
/// what makes the pages they touch exist. A file put in place under the same name (a journal
/// written anew) has another inode and replaces the mapping; a file that grew past the mapping is
/// mapped again. A replaced mapping is unmapped when its last reader finishes, so a file deleted
/// meanwhile keeps its disk space no longer than that, or until `capacity` other files push it out.
enum FileMappings {
    private static let capacity = 8
    private struct Kept {
        var mapping: FileMapping
        var used: UInt64
    }
    private static let kept = Locked<(entries: [String: Kept], clock: UInt64)>(([:], 0))

    /// A mapping of the open file `descriptor` (`path`, `device`, `inode`) that covers its
    /// first `size` bytes, kept or made now; `nil` where it cannot be mapped.
    static func mapping(path: String, descriptor: Int32, device: UInt64, inode: UInt64, size: Int) -> FileMapping? {
        let found = kept.withLock { state -> FileMapping? in
            guard let entry = state.entries[path], entry.mapping.device == device, entry.mapping.inode == inode, entry.mapping.size >= size
            else { return nil }
            state.clock += 1
            state.entries[path]?.used = state.clock
            return entry.mapping
        }
        if let found { return found }
        guard let made = FileMapping(descriptor: descriptor, size: size, device: device, inode: inode) else { return nil }
        kept.withLock { state in
            state.clock += 1
            state.entries[path] = Kept(mapping: made, used: state.clock)
            if state.entries.count > capacity, let oldest = state.entries.min(by: { $0.value.used < $1.value.used })?.key {
                state.entries[oldest] = nil
            }
        }
        return made
    }
}
