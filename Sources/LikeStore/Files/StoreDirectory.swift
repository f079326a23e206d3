// Owns every system call on a store file: one directory reached only through its descriptor,
// single path components, no symbolic links followed, every write durable on request, each step
// a place the fault injector may break. Called by the storage types and ExportDirectory.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An open directory of the store.
///
/// Every name passed in is one path component, checked by ``checkName(_:)``, and every file is
/// opened with `O_NOFOLLOW` relative to the directory's descriptor: nothing a photo id or a
/// planted link says can make the store write outside its directory.
package final class StoreDirectory: Sendable {
    private let descriptor: Int32
    /// The path shown in error messages.
    let displayPath: String
    let faults: FaultInjector?
    /// The file system the directory is on, by name, and how writes to it are made durable.
    let fileSystem: (name: String, strategy: FlushMethod)

    /// `syncfs` was forced (by a test) on a file system it does not reach, such as FUSE: each
    /// one is then followed by an `fdatasync` of this directory, which a test file system can
    /// take as the whole flush (see ``syncFileSystem()``).
    private let syncfsIsForced: Bool

    private init(
        descriptor: Int32, displayPath: String, faults: FaultInjector?, fileSystem: (name: String, strategy: FlushMethod),
        syncfsIsForced: Bool = false
    ) {
        self.descriptor = descriptor
        self.displayPath = displayPath
        self.faults = faults
        self.fileSystem = fileSystem
        self.syncfsIsForced = syncfsIsForced
    }

    /// How this directory's file system is flushed (what tests ask for through the fault
    /// injector, else what ``FileFlush/fileSystem(of:)`` chose).
    var flushStrategy: FlushMethod { fileSystem.strategy }

    deinit { close(descriptor) }

    /// Opens the directory at `path`, or returns `nil` when it does not exist.
    package static func open(path: String, faults: FaultInjector?) throws -> StoreDirectory? {
        let fd = Platform.sysOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 {
            let code = Platform.errno
            if code == ENOENT { return nil }
            throw StoreError.io(action: "open the store directory", path: path, code: code)
        }
        var fileSystem = FileFlush.fileSystem(of: fd)
        let natural = fileSystem.strategy
        if let forced = faults?.flushStrategy { fileSystem.strategy = forced }
        return StoreDirectory(
            descriptor: fd, displayPath: path, faults: faults, fileSystem: fileSystem,
            syncfsIsForced: fileSystem.strategy == .wholeFileSystem && natural != .wholeFileSystem)
    }

    /// Opens the directory at `path`, creating it and missing parents (mode 0700) if needed.
    static func openOrCreate(path: String, faults: FaultInjector?) throws -> StoreDirectory {
        if let directory = try open(path: path, faults: faults) { return directory }
        let parent = PathText.parent(path)
        if !parent.isEmpty, parent != path {
            let parentDirectory = try openOrCreate(path: parent, faults: faults)
            try parentDirectory.makeDirectory(PathText.lastComponent(path))
            // Make the new store's own entry durable before anything is written inside it.
            try parentDirectory.sync()
        }
        guard let directory = try open(path: path, faults: faults) else {
            throw StoreError.io(action: "create the store directory", path: path, code: ENOENT)
        }
        return directory
    }

    /// Opens the subdirectory `name`, or returns `nil` when it does not exist.
    func subdirectory(_ name: String) throws -> StoreDirectory? {
        try Self.checkName(name)
        let fd = openat(descriptor, name, O_RDONLY | O_DIRECTORY | Platform.openFlagsCommon)
        if fd < 0 {
            let code = Platform.errno
            if code == ENOENT { return nil }
            throw StoreError.io(action: "open the directory", path: path(name), code: code)
        }
        return StoreDirectory(descriptor: fd, displayPath: path(name), faults: faults, fileSystem: fileSystem, syncfsIsForced: syncfsIsForced)
    }

    /// Opens the subdirectory `name`; `nil` when it is missing or is no folder (a file, or a link,
    /// which is never followed): for a folder whose loss costs nothing but time, as a cache's.
    func subdirectoryIfFolder(_ name: String) throws -> StoreDirectory? {
        do {
            return try subdirectory(name)
        } catch StoreError.io(_, _, let code) where code == ENOTDIR || code == ELOOP {
            return nil
        }
    }

    /// Opens the subdirectory `name`, creating it (mode 0700) and making its entry durable.
    package func subdirectoryCreatingIfNeeded(_ name: String, durable: Bool) throws -> StoreDirectory {
        if let existing = try subdirectory(name) { return existing }
        try makeDirectory(name)
        if durable { try sync() }
        guard let created = try subdirectory(name) else {
            throw StoreError.io(action: "create the directory", path: path(name), code: ENOENT)
        }
        return created
    }

    func path(_ name: String) -> String { displayPath + "/" + name }

    static func checkName(_ name: String) throws {
        // Every caller derives names from storage keys; this is the last line of defence.
        precondition(
            !name.isEmpty && name != "." && name != ".." && !name.utf8.contains(UInt8(ascii: "/")) && !name.utf8.contains(0), "unsafe file name")
    }

    // MARK: Mutating steps, each one a place the fault injector may break.

    /// Asks the fault injector (in tests) about the step about to be taken: throws as a crash or
    /// a failing disk would. Returns true when a crash tears this very step, leaving half of its
    /// bytes behind; `tearable` steps write those bytes first, the others just crash.
    @discardableResult
    private func begin(_ step: String, failing action: String, _ path: String, tearable: Bool = false) throws -> Bool {
        guard let faults else { return false }
        switch faults.next(step) {
        case .proceed: return false
        case .crash(let torn):
            if torn, tearable { return true }
            throw FaultInjector.InjectedCrash()
        case .fail(let code): throw StoreError.io(action: action, path: path, code: code)
        }
    }

    fileprivate func fail(_ action: String, _ name: String, _ code: Int32) -> StoreError {
        .io(action: action, path: path(name), code: code)
    }

    func makeDirectory(_ name: String, mode: mode_t = 0o700) throws {
        try Self.checkName(name)
        try begin("mkdir \(name)", failing: "create the directory", path(name))
        if mkdirat(descriptor, name, mode) != 0 {
            let code = Platform.errno
            if code != EEXIST { throw fail("create the directory", name, code) }
        }
    }

    /// Creates `name` (which must not exist) with `bytes`, flushed to disk when `durable`.
    ///
    /// On failure the partial file is removed (unless a crash is being simulated).
    /// With `notingLengthAs`, the file's length is noted in that extended attribute of it before
    /// it is flushed, where the file system keeps such attributes; returns whether it was.
    @discardableResult
    func createFile(
        _ name: String, bytes: UnsafeRawBufferPointer, durable: Bool, mode: mode_t = 0o600, notingLengthAs attribute: String? = nil
    ) throws -> Bool {
        var noted = false
        try createFile(name, durable: durable, mode: mode) { fd, tearing in
            if tearing {
                _ = DurableFile.writeAll(fd, UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count / 2)]))
                throw FaultInjector.InjectedCrash()
            }
            let written = DurableFile.writeAll(fd, bytes)
            if written != 0 { throw fail("write", name, written) }
            if let attribute { noted = Platform.setAttribute(fd, attribute, Array(String(bytes.count).utf8)) }
        }
        return noted
    }

    /// Creates `name` with the bytes of the image file `source`, copied a piece at a time, and
    /// returns their CRC-32; fails (and removes `name`) when the file is not the version that was
    /// checked, or changes while it is copied.
    func createFile(_ name: String, copying source: ImageFileReader, expecting version: ImageFileReader.Version, durable: Bool) throws -> UInt32 {
        var crc: UInt32 = 0
        try createFile(name, durable: durable, mode: 0o600) { fd, tearing in
            // The file opened now is the one checked, and nothing writes to it during the copy.
            func checkVersion(_ current: ImageFileReader.Version) throws {
                guard current == version else {
                    throw StoreError.notJPEG(image: .image, reason: "the file \(source.path) changed while it was being liked")
                }
            }
            try checkVersion(source.version)
            try source.forEachPiece { piece in
                if tearing {
                    _ = DurableFile.writeAll(fd, UnsafeRawBufferPointer(rebasing: piece[..<(piece.count / 2)]))
                    throw FaultInjector.InjectedCrash()
                }
                crc = CRC32.checksum(piece, continuing: crc)
                let written = DurableFile.writeAll(fd, piece)
                if written != 0 { throw fail("write", name, written) }
            }
            try checkVersion(try source.currentVersion())
        }
        return crc
    }

    /// Creates `name`, which must not exist, has `write` fill it (told whether to tear the write,
    /// for the fault injector), and flushes it when `durable`; removes it on failure (unless a
    /// crash is being simulated).
    private func createFile(_ name: String, durable: Bool, mode: mode_t, write: (Int32, _ tearing: Bool) throws -> Void) throws {
        try Self.checkName(name)
        try begin("create \(name)", failing: "create", path(name))
        let fd = openat(descriptor, name, O_WRONLY | O_CREAT | O_EXCL | Platform.openFlagsCommon, mode)
        guard fd >= 0 else { throw fail("create", name, Platform.errno) }
        var succeeded = false
        defer {
            close(fd)
            if !succeeded, !(faults?.hasCrashed ?? false) { unlinkat(descriptor, name, 0) }
        }
        try write(fd, try begin("write \(name)", failing: "write", path(name), tearable: true))
        if durable { try syncDescriptor(fd, name: name) }
        succeeded = true
    }

    /// Creates `name` (which must not exist) with `head`, the bytes of the file `part` (read a
    /// megabyte at a time; missing reads as empty) and `tail`, flushed when `durable`.
    func createFile(_ name: String, head: [UInt8], part: String, tail: [UInt8], durable: Bool, mode: mode_t) throws {
        let source = try openForReading(part)
        try createFile(name, durable: durable, mode: mode) { fd, tearing in
            func write(_ bytes: UnsafeRawBufferPointer) throws {
                if tearing { throw FaultInjector.InjectedCrash() }
                let written = DurableFile.writeAll(fd, bytes)
                if written != 0 { throw fail("write", name, written) }
            }
            try head.withUnsafeBytes(write)
            if let source {
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
                defer { buffer.deallocate() }
                var offset = 0
                while case let count = try source.read(into: buffer, at: offset), count > 0 {
                    try write(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                    offset += count
                }
            }
            try tail.withUnsafeBytes(write)
        }
    }

    func createFile(_ name: String, data: Data, durable: Bool, mode: mode_t = 0o600) throws {
        _ = try data.withUnsafeBytes { try createFile(name, bytes: $0, durable: durable, mode: mode) }
    }

    /// Appends `bytes` to `name` (created with mode 0600 if missing), flushed when `durable`.
    ///
    /// With `notingLengthAs`, the file's new length is noted in that extended attribute of it,
    /// where the file system keeps such attributes. Returns the new length, and whether it was
    /// noted.
    @discardableResult
    func append(_ name: String, bytes: [UInt8], durable: Bool, notingLengthAs attribute: String? = nil) throws -> (length: Int, noted: Bool) {
        try Self.checkName(name)
        let fd = openat(descriptor, name, O_WRONLY | O_APPEND | O_CREAT | Platform.openFlagsCommon, 0o600)
        guard fd >= 0 else { throw fail("open", name, Platform.errno) }
        defer { close(fd) }
        if try begin("append \(name)", failing: "append to", path(name), tearable: true) {
            bytes.withUnsafeBytes { _ = DurableFile.writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[..<(bytes.count / 2)])) }
            throw FaultInjector.InjectedCrash()
        }
        let written = bytes.withUnsafeBytes { DurableFile.writeAll(fd, $0) }
        if written != 0 { throw fail("append to", name, written) }
        if durable { try syncDescriptor(fd, name: name) }
        // With O_APPEND, the offset after the write is the file's end. Noted once the append
        // stands: a failed one is cut back.
        let length = Int(lseek(fd, 0, SEEK_CUR))
        let noted = attribute.map { length > 0 && Platform.setAttribute(fd, $0, Array(String(length).utf8)) } ?? false
        return (length, noted)
    }

    /// Writes `bytes` over those at `offset` of the existing file `name`, which keeps its length
    /// when they lie inside it; flushed when `durable`.
    func overwrite(_ name: String, at offset: Int, bytes: [UInt8], durable: Bool) throws {
        try Self.checkName(name)
        let fd = openat(descriptor, name, O_WRONLY | Platform.openFlagsCommon)
        guard fd >= 0 else { throw fail("open", name, Platform.errno) }
        defer { close(fd) }
        try begin("overwrite \(name)", failing: "write to", path(name))
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        if written != bytes.count { throw fail("write to", name, written < 0 ? Platform.errno : EIO) }
        if durable { try syncDescriptor(fd, name: name) }
    }

    /// Cuts `name` to `length` bytes; with `notingLengthAs`, notes the new length in that
    /// extended attribute of the file if it has it.
    func truncate(_ name: String, to length: Int, durable: Bool, notingLengthAs attribute: String? = nil) throws {
        try Self.checkName(name)
        let fd = openat(descriptor, name, O_WRONLY | Platform.openFlagsCommon)
        guard fd >= 0 else { throw fail("open", name, Platform.errno) }
        defer { close(fd) }
        try begin("truncate \(name)", failing: "truncate", path(name))
        if ftruncate(fd, off_t(length)) != 0 { throw fail("truncate", name, Platform.errno) }
        if let attribute, Platform.attribute(fd, attribute, capacity: 24) != nil {
            _ = Platform.setAttribute(fd, attribute, Array(String(length).utf8))
        }
        if durable { try syncDescriptor(fd, name: name) }
    }

    /// Flushes a file before a commit: ordered before what follows (see ``FileFlush/orderedSync(_:)``).
    private func syncDescriptor(_ fd: Int32, name: String) throws {
        try begin("sync \(name)", failing: "flush", path(name))
        // A failed fsync is never retried: the kernel may have dropped the dirty pages.
        if FileFlush.orderedSync(fd) != 0 { throw fail("flush", name, Platform.errno) }
    }

    /// Writes `bytes` as the file `name` whole (see LikesSupport's `DurableFile`): under
    /// `temporary`, flushed when `durable`, renamed over `name`, then this directory flushed as
    /// `flushFolder` says (`nil`: left to the caller). The steps are the fault injector's
    /// `create`, `write`, `sync`, `rename` and the directory's `sync`, as when taken one by one.
    package func replaceFile(_ name: String, bytes: UnsafeRawBufferPointer, temporary: String, durable: Bool, flushFolder commit: Bool? = nil) throws
    {
        try Self.checkName(name)
        try Self.checkName(temporary)
        let folderName = (displayPath.split(separator: "/").last.map(String.init) ?? ".") + "/"
        do {
            try DurableFile.replace(
                name, in: descriptor, displayPath: displayPath, with: bytes, temporary: temporary,
                flushFile: durable ? { FileFlush.orderedSync($0) } : nil,
                flushFolder: commit.map { commit in { commit ? FileFlush.fullSync($0) : FileFlush.orderedSync($0) } },
                step: { step in
                    switch step {
                    case .create(let file): return try begin("create \(file)", failing: "create", path(file))
                    case .write(let file): return try begin("write \(file)", failing: "write", path(file), tearable: true)
                    case .flush(let file): return try begin("sync \(file)", failing: "flush", path(file))
                    case .rename(let file, let target): return try begin("rename \(file) \(target)", failing: "rename", path(file))
                    case .flushFolder: return try begin("sync \(folderName)", failing: "flush the directory", displayPath)
                    }
                }, torn: { FaultInjector.InjectedCrash() }, keepOnThrow: { faults?.hasCrashed ?? false })
        } catch let failure as FileStepFailure {
            throw StoreError.io(action: failure.action, path: failure.path, code: failure.code)
        }
    }

    /// Renames `from` to `to` inside this directory, replacing `to` atomically.
    func rename(_ from: String, to: String) throws {
        try Self.checkName(from)
        try Self.checkName(to)
        try begin("rename \(from) \(to)", failing: "rename", path(from))
        if renameat(descriptor, from, descriptor, to) != 0 { throw fail("rename", from, Platform.errno) }
    }

    /// Removes the file `name`; a missing file is not an error.
    func remove(_ name: String) throws {
        try Self.checkName(name)
        try begin("remove \(name)", failing: "remove", path(name))
        if unlinkat(descriptor, name, 0) != 0 {
            let code = Platform.errno
            if code != ENOENT { throw fail("remove", name, code) }
        }
    }

    /// Moves the entry `name` (a file, a directory or anything else) into `destination`, a
    /// directory on the same file system, as `newName`, which must not exist.
    func move(_ name: String, to destination: StoreDirectory, as newName: String) throws {
        try Self.checkName(name)
        try Self.checkName(newName)
        try begin("move \(name) \(destination.displayPath.split(separator: "/").last ?? "")/\(newName)", failing: "move", path(name))
        if let existing = try destination.entry(newName) { throw fail("move", name, existing.isDirectory ? EISDIR : EEXIST) }
        if renameat(descriptor, name, destination.descriptor, newName) != 0 { throw fail("move", name, Platform.errno) }
    }

    /// Swaps the entries `first` and `second` in one step where the system can (Linux
    /// `RENAME_EXCHANGE`); returns false where it cannot, having changed nothing.
    func exchange(_ first: String, _ second: String) throws -> Bool {
        try Self.checkName(first)
        try Self.checkName(second)
        if faults?.withoutExchange == true { return false }
        try begin("exchange \(first) \(second)", failing: "swap", path(second))
        switch Platform.exchange(descriptor, first, second) {
        case .some(0): return true
        case .some: throw fail("swap", second, Platform.errno)
        case .none: return false
        }
    }

    /// Removes the empty directory `name`; a missing one is not an error.
    func removeDirectory(_ name: String) throws {
        try Self.checkName(name)
        try begin("rmdir \(name)", failing: "remove the directory", path(name))
        if unlinkat(descriptor, name, AT_REMOVEDIR) != 0 {
            let code = Platform.errno
            if code != ENOENT { throw fail("remove the directory", name, code) }
        }
    }

    /// Takes an exclusive `flock` on this directory without waiting, held until it is closed;
    /// false when another holder has it or the file system has no `flock`.
    func tryLock() -> Bool {
        flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    /// Flushes the directory's entries (creations, renames, removals).
    ///
    /// - Parameter commit: Whether this flush ends a change, so that everything written before
    ///   it must be durable when it returns; otherwise it only has to reach stable storage before
    ///   anything written after it. The two differ on Apple platforms alone (`F_FULLFSYNC`
    ///   against `F_BARRIERFSYNC`).
    func sync(commit: Bool = false) throws {
        try begin("sync \(displayPath.split(separator: "/").last.map(String.init) ?? ".")/", failing: "flush the directory", displayPath)
        if (commit ? FileFlush.fullSync(descriptor) : FileFlush.orderedSync(descriptor)) != 0 {
            throw StoreError.io(action: "flush the directory", path: displayPath, code: Platform.errno)
        }
    }

    /// Makes everything written so far on this directory's file system durable: file data,
    /// creations and renames alike (Linux `syncfs`). Only where ``flushStrategy`` is
    /// ``FlushMethod/wholeFileSystem``: elsewhere `syncfs` may flush nothing.
    func syncFileSystem() throws {
        precondition(flushStrategy == .wholeFileSystem, "syncfs does not flush this file system")
        try begin("syncfs", failing: "flush the file system of", displayPath)
        if FileFlush.syncFileSystem(descriptor) != 0 {
            throw StoreError.io(action: "flush the file system of", path: displayPath, code: Platform.errno)
        }
        // A FUSE server never hears of a syncfs; a test's server hears of this instead.
        if syncfsIsForced, fdatasync(descriptor) != 0 {
            throw StoreError.io(action: "flush the file system of", path: displayPath, code: Platform.errno)
        }
    }

    // MARK: Reading

    /// A regular file of this directory opened for reading; closed when released.
    package final class OpenFile: JournalBytes {
        let descriptor: Int32
        let name: String
        /// The file's identity: a file put in its place under the same name has another.
        package let inode: UInt64
        private let device: UInt64
        let sizeWhenOpened: Int
        /// Whether ``withMappedBytes(_:)`` maps the file (see ``Journal/reader(records:mapped:)``).
        package var mayMap = false
        private let directory: StoreDirectory

        fileprivate init(descriptor: Int32, name: String, info: stat, directory: StoreDirectory) {
            self.descriptor = descriptor
            self.name = name
            self.inode = UInt64(info.st_ino)
            self.device = UInt64(info.st_dev)
            self.sizeWhenOpened = Int(info.st_size)
            self.directory = directory
        }

        deinit { close(descriptor) }

        package var identity: UInt64? { inode }

        package func currentSize() throws -> Int {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw directory.fail("read", name, Platform.errno) }
            return Int(info.st_size)
        }

        /// The bytes in `range`, read with `pread`; fewer when the file ends sooner.
        package func read(_ range: Range<Int>) throws -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: range.count)
            let total = try bytes.withUnsafeMutableBytes { try read(into: $0, at: range.lowerBound) }
            if total < bytes.count { bytes.removeSubrange(total...) }
            return bytes
        }

        /// The whole file, as long as it was when opened (a record, an image).
        func readAll() throws -> Data {
            var data = Data(count: sizeWhenOpened)
            let total = try data.withUnsafeMutableBytes { try read(into: $0, at: 0) }
            if total < data.count { data.removeSubrange(total...) }
            return data
        }

        /// The file as it is now, mapped read-only into memory for the call (a mapping kept from
        /// an earlier call where it is the same file and covers it: ``FileMappings``); `nil`
        /// unless ``mayMap`` and the file is not empty, or where mapping fails (then read it
        /// instead).
        package func withMappedBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) throws -> Result? {
            let size = try currentSize()
            guard mayMap, let mapping = mapping(covering: size) else { return nil }
            return try withExtendedLifetime(mapping) { try body(mapping.bytes(size)) }
        }

        /// A read-only mapping of the file's first `size` bytes (its length now, which the
        /// caller read), kept from an earlier read where it covers them (``FileMappings``);
        /// `nil` for an empty file or where mapping fails.
        func mapping(covering size: Int) -> FileMapping? {
            guard size > 0 else { return nil }
            return FileMappings.mapping(path: directory.path(name), descriptor: descriptor, device: device, inode: inode, size: size)
        }

        package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
            guard let base = buffer.baseAddress else { return 0 }
            var total = 0
            while total < buffer.count {
                let count = Platform.sysPread(descriptor, base + total, buffer.count - total, off_t(offset + total))
                if count < 0 {
                    if Platform.errno == EINTR { continue }
                    throw directory.fail("read", name, Platform.errno)
                }
                if count == 0 { break }
                total += count
            }
            return total
        }
    }

    /// Opens the regular file `name` for reading, or returns `nil` if it does not exist.
    ///
    /// - Throws: `io` with `EISDIR` when `name` is not a regular file (a folder, a FIFO), and
    ///   for any other failure; a link is never followed.
    package func openForReading(_ name: String) throws -> OpenFile? {
        try Self.checkName(name)
        // O_NONBLOCK: opening a FIFO planted under the name must not wait for a writer (the
        // regular-file check comes after the open); it changes nothing for a regular file.
        let fd = openat(descriptor, name, O_RDONLY | O_NONBLOCK | Platform.openFlagsCommon)
        if fd < 0 {
            let code = Platform.errno
            if code == ENOENT { return nil }
            throw fail("read", name, code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = Platform.errno
            close(fd)
            throw fail("read", name, code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw fail("read", name, EISDIR)
        }
        return OpenFile(descriptor: fd, name: name, info: info, directory: self)
    }

    /// The whole content of the regular file `name`, or `nil` if it does not exist.
    func read(_ name: String) throws -> Data? {
        try openForReading(name)?.readAll()
    }

    /// As ``read(_:)``, as bytes: a record read for a page, with none of `Data`'s code run.
    func readBytes(_ name: String) throws -> [UInt8]? {
        try openForReading(name).map { try $0.read(0..<$0.sizeWhenOpened) }
    }

    /// Opens (creating it with mode 0600 when `create`) the file `name` for the store's lock,
    /// returning its descriptor, which the caller owns; `nil` when it cannot be opened.
    func openLockFile(_ name: String, create: Bool) throws -> Int32? {
        try Self.checkName(name)
        let fd = openat(descriptor, name, (create ? O_RDWR | O_CREAT : O_RDONLY) | Platform.openFlagsCommon, 0o600)
        if fd >= 0 { return fd }
        if create { throw fail("open the lock file", name, Platform.errno) }
        return nil
    }

    package struct Entry {
        var name: String
        var isRegularFile: Bool
        var isDirectory: Bool
        var size: Int
        package var inode: UInt64
        /// When its content last changed, in milliseconds since 1970: for an image, when it was
        /// written (images are never changed after).
        var modified: Int64
    }

    /// The file's size and kind, without following a link; `nil` when it does not exist.
    package func entry(_ name: String) throws -> Entry? {
        try Self.checkName(name)
        var info = stat()
        if fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) != 0 {
            let code = Platform.errno
            if code == ENOENT { return nil }
            throw fail("inspect", name, code)
        }
        #if canImport(Darwin)
            let modified = info.st_mtimespec
        #else
            let modified = info.st_mtim
        #endif
        return Entry(
            name: name, isRegularFile: (info.st_mode & S_IFMT) == S_IFREG, isDirectory: (info.st_mode & S_IFMT) == S_IFDIR, size: Int(info.st_size),
            inode: UInt64(info.st_ino), modified: Int64(modified.tv_sec) * 1000 + Int64(modified.tv_nsec) / 1_000_000)
    }

    /// The regular file `name` as a list of numbers that changes whenever the file may have: its
    /// device, inode and size and the time of its last change of either content or inode (to
    /// the nanosecond the file system keeps). `nil` where it is no regular file.
    func changeStamp(_ name: String) -> [Int64]? {
        guard (try? Self.checkName(name)) != nil else { return nil }
        var info = stat()
        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        #if canImport(Darwin)
            let (modified, changed) = (info.st_mtimespec, info.st_ctimespec)
        #else
            let (modified, changed) = (info.st_mtim, info.st_ctim)
        #endif
        return [
            Int64(info.st_dev), Int64(bitPattern: UInt64(info.st_ino)), Int64(info.st_size), Int64(modified.tv_sec), Int64(modified.tv_nsec),
            Int64(changed.tv_sec), Int64(changed.tv_nsec),
        ]
    }

    /// Whether `path` names a directory, a link followed: what `URL(fileURLWithPath:)` asks of
    /// a path without a slash at its end.
    static func isDirectory(atPath path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Sets the file's modification time to now (a link is not followed): what marks a cached
    /// file as used. Fails quietly, as a read-only store's must.
    func touch(_ name: String) {
        guard (try? Self.checkName(name)) != nil else { return }
        _ = utimensat(descriptor, name, nil, AT_SYMLINK_NOFOLLOW)
    }

    /// The names in this directory, except `.` and `..`.
    func names() throws -> [String] {
        var result: [String] = []
        try forEachName { result.append($0) }
        return result
    }

    /// The names of the regular files in this directory (links are not followed), by the kind
    /// the directory itself gives each entry, so that no entry is looked up on its own but where
    /// the file system does not say.
    func regularFileNames() throws -> [String] {
        try listing().filter(\.isRegularFile).map(\.name)
    }

    /// Every name in this directory, each with whether it is a regular file (links are not
    /// followed), judged as ``regularFileNames()`` judges.
    func listing() throws -> [(name: String, isRegularFile: Bool)] {
        var result: [(name: String, isRegularFile: Bool)] = []
        try forEachName { name, kind in
            let regular = try kind == Int32(DT_REG) || (kind == Int32(DT_UNKNOWN) && entry(name)?.isRegularFile == true)
            result.append((name, regular))
        }
        return result
    }

    /// Hands each name in the directory to `body` as it is read, in the directory's order, so
    /// that a walk through a large directory does not hold every name at once.
    func forEachName(_ body: (String) throws -> Void) throws {
        try forEachName { name, _ in try body(name) }
    }

    /// Hands each name in the directory to `body` as it is read, with the kind of entry the
    /// directory gives it (`DT_REG`, `DT_DIR`, `DT_LNK`…; `DT_UNKNOWN` where the file system
    /// does not say).
    func forEachName(_ body: (String, Int32) throws -> Void) throws {
        let fd = dup(descriptor)
        guard fd >= 0 else { throw StoreError.io(action: "list", path: displayPath, code: Platform.errno) }
        guard let stream = fdopendir(fd) else {
            let code = Platform.errno
            close(fd)  // fdopendir takes the descriptor only when it succeeds
            throw StoreError.io(action: "list", path: displayPath, code: code)
        }
        defer { closedir(stream) }
        // fdopendir shares the offset with the descriptor it was given; start from the top.
        rewinddir(stream)
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { try body(name, Int32(entry.pointee.d_type)) }
        }
    }
}
