// Owns a change file too large to hold, written a batch of changes at a time: a first sync's, which
// publishes every photo of a store. The lines go to a hidden file beside it as they come, each
// change's images into the folder; once every batch is in, the file is put in place whole (its
// header's count and its trailer's digest known then), as SyncFolder.publish puts a small one.

import LikesSupport

#if canImport(Darwin)
    import Darwin
    import Foundation
#elseif canImport(Glibc)
    import Glibc
    import FoundationEssentials
#elseif canImport(Musl)
    import Musl
    import FoundationEssentials
#endif

/// A device's change file written a batch at a time; see ``SyncFolder/publish(device:name:sequence:changes:images:)``
/// for what a change file is. Holds one batch at a time. Until ``finish()``, the folder shows
/// nothing of it but images (which no file names yet); released unfinished, it leaves no file.
package final class ChangeFileWriter {
    private let folder: SyncFolder
    private let device: String
    private let sequence: Int
    private let directory: String
    private let imagesDirectory: String
    private let flush: FolderFlush
    /// The lines so far, under a name every reader ignores.
    private let linesName = ".likes-" + DeviceID.make() + ".lines"
    private let lines: Int32
    private var wroteImage = false
    /// How many changes the file holds so far.
    package private(set) var count = 0
    /// The newest stamp among them.
    package private(set) var newest: Stamp?

    /// Begins the change file number `sequence` of `device` (writing its `device.json` first
    /// when it has none).
    package init(folder: SyncFolder, device: String, name: String, sequence: Int) throws {
        self.folder = folder
        self.device = device
        self.sequence = sequence
        directory = folder.deviceDirectory(device)
        imagesDirectory = directory + "/images"
        _ = try folder.announce(device: device, name: name)
        try Self.removeLeftovers(in: directory)
        try FolderFiles.makeDirectory(imagesDirectory)
        flush = try FolderFiles.flushing(imagesDirectory)
        lines = open(directory + "/" + linesName, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard lines >= 0 else { throw FolderError(action: "create", path: directory + "/" + linesName, code: errno) }
    }

    /// Removes the lines a first sync that died left in `device`'s directory of the folder (only
    /// that device writes there, one sync at a time).
    package static func removeLeftovers(in folder: SyncFolder, device: String) throws {
        try removeLeftovers(in: folder.deviceDirectory(device))
    }

    private static func removeLeftovers(in directory: String) throws {
        for leftover in try FolderFiles.names(in: directory) ?? [] where leftover.hasPrefix(".likes-") && leftover.hasSuffix(".lines") {
            unlink(directory + "/" + leftover)
        }
    }

    deinit {
        close(lines)
        unlink(directory + "/" + linesName)
    }

    /// Adds changes of this device, in the order they go into the file, after writing the images
    /// they name that the folder lacks (`image` gives an image's bytes by SHA-256; `nil`: the
    /// device no longer has it, and it is not written).
    package func add(_ changes: [SyncChange], image: (String) throws -> [UInt8]?) throws {
        var bytes: [UInt8] = []
        for change in changes {
            for reference in change.images where change.stamp.device == device {
                wroteImage = try folder.writeImage(reference, in: imagesDirectory, flush: flush, trustingSize: false, image: image) || wroteImage
            }
            bytes += try SyncFolder.line(change)
            newest = max(newest ?? change.stamp, change.stamp)
        }
        let written = bytes.withUnsafeBytes { DurableFile.writeAll(lines, $0) }
        guard written == 0 else { throw FolderError(action: "write", path: directory + "/" + linesName, code: written) }
        count += changes.count
    }

    /// Puts the file in place whole, after flushing the images it names: its header, the lines,
    /// its trailer, under a temporary name, flushed, renamed, the folder flushed.
    package func finish() throws {
        if wroteImage { try FolderFiles.flushBatch(imagesDirectory, flush: flush) }
        let name = SyncFolder.segmentName(sequence)
        let temporary = ".likes-" + DeviceID.make() + ".tmp"
        let path = directory + "/" + temporary
        let file = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard file >= 0 else { throw FolderError(action: "create", path: path, code: errno) }
        var placed = false
        defer { if !placed { unlink(path) } }
        do {
            defer { close(file) }
            var digest = SHA256()
            func write(_ bytes: UnsafeRawBufferPointer) throws {
                digest.update(bytes)
                let written = DurableFile.writeAll(file, bytes)
                guard written == 0 else { throw FolderError(action: "write", path: path, code: written) }
            }
            try SyncFolder.header(device: device, sequence: sequence, count: count).withUnsafeBytes(write)
            try copyLines(into: write)
            let trailer = SyncFolder.trailer(digest.finalizeHex())
            let written = trailer.withUnsafeBytes { DurableFile.writeAll(file, $0) }
            guard written == 0 else { throw FolderError(action: "write", path: path, code: written) }
            guard FileFlush.fullSync(file) == 0 else { throw FolderError(action: "flush", path: path, code: errno) }
        }
        guard rename(path, directory + "/" + name) == 0 else { throw FolderError(action: "rename into place", path: path, code: errno) }
        placed = true
        try FolderFiles.flushDirectory(directory)
    }

    /// Hands `write` the lines so far, a megabyte at a time.
    private func copyLines(into write: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var offset = 0
        while true {
            let count = pread(lines, buffer.baseAddress, buffer.count, off_t(offset))
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw FolderError(action: "read", path: directory + "/" + linesName, code: errno) }
            if count == 0 { return }
            try write(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            offset += count
        }
    }
}
