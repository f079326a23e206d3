// Owns the layout of a sync folder, the folder another program (Syncthing, iCloud Drive, Dropbox,
// a USB stick) carries between devices, and reading it as such a program leaves it: files cut
// short or not yet arrived, its own temporary files, conflict copies, duplicates.
//
//     DIR/ID/device.json                   {"format": 1, "id": ID, "name": NAME}
//     DIR/ID/changes-00000001.jsonl        a header line, one SyncChange a line, a trailer
//     DIR/ID/merged.json                   what the device has merged of each device's changes,
//                                          and the devices it forgot (see Acknowledgement)
//     DIR/ID/images/SHA256.jpg             an image, named by the SHA-256 of its bytes
//
// A device writes under its own ID only, each file whole (FolderFiles.writeWhole), and never
// changes a change file once written. A snapshot (a change file whose header says so) holds what
// the device's files before it held that still matters; once it is written they are removed, by
// that device only. Every name not of this layout is someone else's and is
// left alone: `.stfolder`, `.stignore`, `.syncthing.NAME.tmp`, `NAME.sync-conflict-…`,
// `NAME (conflicted copy …)`, `~syncthing~…`, a temporary name of our own.

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

/// A change file of one device, checked whole; its changes read as asked (``ChangeLines``).
package struct ChangeSegment: Sendable, Hashable {
    package var device: String
    package var sequence: Int
    /// The changes read: every one, or those of the photos asked for (see ``ChangeLines``).
    package var changes: [SyncChange]
    /// How many changes the file holds, read or not.
    package var changeCount: Int
    /// A snapshot: what every file of the device numbered up to it held that still matters,
    /// with the last unlike of photos other devices unliked (see ``SyncFolder/encode``).
    package var isSnapshot = false
    /// For a snapshot, the device's newest stamp when it was written: every change of the device
    /// up to it is in the snapshot or no longer matters.
    package var through: Stamp?
    /// The newest stamp of the device's own changes in the file, read or not (a snapshot's relayed
    /// unlikes are other devices'); `nil` when it has none, or when only some photos' changes were
    /// read (then the look that read them all knows it).
    package var newestOwn: Stamp?

    package init(device: String, sequence: Int, changes: [SyncChange], isSnapshot: Bool = false, through: Stamp? = nil) {
        self.device = device
        self.sequence = sequence
        self.changes = changes
        changeCount = changes.count
        self.isSnapshot = isSnapshot
        self.through = through
        newestOwn = changes.filter { $0.stamp.device == device }.map(\.stamp).max()
    }

    /// What merging it whole acknowledges: every change of the device up to this stamp.
    package var acknowledges: Stamp? { [through, newestOwn].compactMap { $0 }.max() }

    /// Its file's name in the folder, `DEVICE/SEQUENCE`, as ``DeviceSyncState/partlyMerged`` keys it.
    package var file: String { device + "/" + String(sequence) }
}

/// Which changes a read of a change file keeps.
package enum ChangeLines {
    /// Every change.
    case all
    /// None: each line is read to know it is the device's own and its stamp, and let go.
    case none
    /// The changes of the photos `wanted` names; every other line is passed over unread (a read
    /// that kept none has checked it).
    case photos(_ wanted: (String) -> Bool)
}

/// Something in the folder that cannot be merged yet, or ever, by this version: what it is and why.
package struct FolderProblem: Sendable, Hashable {
    package var id: String
    package var reason: String

    package init(id: String, reason: String) {
        self.id = id
        self.reason = reason
    }
}

/// What a look at the folder found: the change files not merged yet that are whole, the ones
/// that are not (yet), and files of a newer format.
package struct FolderScan: Sendable {
    /// Device ids and their names, for every device with a `device.json` that reads.
    package var devices: [String: String] = [:]
    package var segments: [ChangeSegment] = []
    /// Change files cut short, still arriving or unreadable: merged by a later sync once whole.
    package var pending: [FolderProblem] = []
    /// Files of a newer format, skipped.
    package var newer: [FolderProblem] = []
}

package struct SyncFolder: Sendable {
    /// The format this version writes and reads.
    package static let format = 1

    package let path: String

    package init(path: String) {
        self.path = path
    }

    // MARK: Names

    static func segmentName(_ sequence: Int) -> String {
        let digits = String(sequence)
        return "changes-" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits + ".jsonl"
    }

    /// The sequence number of a change file's name, or `nil` for any other name (conflict copies
    /// and temporary names included).
    static func sequence(ofSegmentName name: String) -> Int? {
        let bytes = Array(name.utf8)
        guard bytes.count == 22, name.hasPrefix("changes-"), name.hasSuffix(".jsonl") else { return nil }
        let digits = bytes[8..<16]
        guard digits.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(String(decoding: digits, as: UTF8.self)), number > 0 else {
            return nil
        }
        return number
    }

    func deviceDirectory(_ device: String) -> String { path + "/" + device }

    // MARK: Writing

    /// Publishes a device's changes as its change file number `sequence`, after the images they
    /// need (each written once: an image whose file is there whole already is left as it is).
    /// Writes `device.json` when the device has none.
    package func publish(device: String, name: String, sequence: Int, changes: [SyncChange], images: [String: [UInt8]]) throws {
        try publish(device: device, name: name, sequence: sequence, changes: changes) { images[$0] }
    }

    /// As above, each image's bytes asked of `image` (by SHA-256) when it is written, so that a
    /// first sync of a large store holds one image at a time. `snapshotThrough`: the file is a
    /// snapshot of the device's changes up to that stamp (see ``ChangeSegment/isSnapshot``).
    package func publish(
        device: String, name: String, sequence: Int, changes: [SyncChange], snapshotThrough: Stamp? = nil, image: (String) throws -> [UInt8]?
    ) throws {
        let directory = deviceDirectory(device)
        _ = try announce(device: device, name: name)
        let imagesDirectory = directory + "/images"
        var needed = Set<String>()
        var sizes: [String: Int] = [:]
        for change in changes where change.stamp.device == device {
            for reference in change.images {
                needed.insert(reference.sha256)
                sizes[reference.sha256] = reference.bytes
            }
        }
        if !needed.isEmpty {
            // Each image renamed into place as it is written, all flushed at once before the
            // change file that names them (one syncfs where the file system allows it).
            try FolderFiles.makeDirectory(imagesDirectory)
            let flush = try FolderFiles.flushing(imagesDirectory)
            var wrote = false
            for sha256 in needed.sorted() {
                // Read again only for a change's few images; a snapshot names every image the
                // device has published, and takes one of the right size for whole.
                let reference = ImageReference(sha256: sha256, bytes: sizes[sha256] ?? 0)
                wrote = try writeImage(reference, in: imagesDirectory, flush: flush, trustingSize: snapshotThrough != nil, image: image) || wrote
            }
            if wrote { try FolderFiles.flushBatch(imagesDirectory, flush: flush) }
        }
        try FolderFiles.writeWhole(
            try Self.encode(device: device, sequence: sequence, changes: changes, snapshotThrough: snapshotThrough), to: Self.segmentName(sequence),
            in: directory)
    }

    /// A change file's bytes: a header line, the changes a line each, and a trailer holding the
    /// SHA-256 of every byte before it, by which a reader knows the file is whole. A snapshot's
    /// header says so, with the stamp it reaches; its lines may include other devices' unlikes
    /// (the last unlike of each photo it knows, kept for ever).
    package static func encode(device: String, sequence: Int, changes: [SyncChange], snapshotThrough: Stamp? = nil) throws -> [UInt8] {
        var bytes = header(device: device, sequence: sequence, count: changes.count, snapshotThrough: snapshotThrough)
        for change in changes { bytes += try line(change) }
        bytes += trailer(digest(bytes))
        return bytes
    }

    /// A change file's first line.
    static func header(device: String, sequence: Int, count: Int, snapshotThrough: Stamp? = nil) -> [UInt8] {
        var header: [(String, JSONValue)] = [
            ("format", .int(format)), ("device", .string(device)), ("sequence", .int(sequence)), ("count", .int(count)),
        ]
        if let snapshotThrough { header += [("snapshot", .bool(true)), ("through", .string(snapshotThrough.description))] }
        return Array((JSONValue.object(header).rendered(pretty: false) + "\n").utf8)
    }

    /// A change's line in a change file.
    static func line(_ change: SyncChange) throws -> [UInt8] {
        try Array(lineEncoder.encode(change)) + [0x0A]
    }

    private static let lineEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A change file's last line: the SHA-256 of every byte before it.
    static func trailer(_ sha256: String) -> [UInt8] { Array("{\"sha256\":\"\(sha256)\"}\n".utf8) }

    /// Writes an image into `imagesDirectory` unless it is there whole already (or, when
    /// `trustingSize`, of the right size); returns whether it wrote it. `image` gives its bytes
    /// (`nil`: the device no longer has them, and it is not written).
    func writeImage(
        _ reference: ImageReference, in imagesDirectory: String, flush: FolderFlush, trustingSize: Bool, image: (String) throws -> [UInt8]?
    ) throws -> Bool {
        let name = reference.sha256 + ".jpg"
        if let size = FolderFiles.size(imagesDirectory + "/" + name), size == reference.bytes {
            if trustingSize { return false }
            if let there = try FolderFiles.contents(imagesDirectory + "/" + name), Self.digest(there) == reference.sha256 { return false }
        }
        guard let bytes = try image(reference.sha256) else { return false }
        try FolderFiles.writeOneOfMany(bytes, to: name, in: imagesDirectory, flush: flush)
        return true
    }

    static func json(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    package static func digest(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { SHA256.hexDigest(of: $0) }
    }

    // MARK: Reading

    /// The devices' change files not in `merged` (by device, the sequence numbers merged already),
    /// each read whole and checked. A file cut short, still arriving or unreadable is pending; a
    /// file of a newer format is named and skipped. Names not of the layout are ignored.
    package func scan(merged: MergedFiles, keeping lines: ChangeLines = .all) throws -> FolderScan {
        var scan = FolderScan()
        guard let names = try FolderFiles.names(in: path) else { throw FolderError.missing(path) }
        for device in names.sorted() where DeviceID.isValid(device) && FolderFiles.isDirectory(deviceDirectory(device)) {
            let directory = deviceDirectory(device)
            if let name = name(of: device) { scan.devices[device] = name }
            for name in (try FolderFiles.names(in: directory) ?? []).sorted() {
                guard let sequence = Self.sequence(ofSegmentName: name), !merged.contains(device, sequence) else { continue }
                let file = device + "/" + name
                guard let decoded = try Self.decode(file: directory + "/" + name, device: device, sequence: sequence, keeping: lines) else {
                    continue
                }
                switch decoded {
                case .whole(let segment): scan.segments.append(segment)
                case .incomplete(let reason): scan.pending.append(FolderProblem(id: file, reason: reason))
                case .newer(let format):
                    scan.newer.append(FolderProblem(id: file, reason: "it is of format \(format), newer than this likes reads (\(Self.format))"))
                }
            }
        }
        return scan
    }

    /// Whether the folder is there (a link to a folder counts: a synced folder is often one).
    package var exists: Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether something other than a folder has its name (a file, say): then it does not
    /// exist as a folder, but is there.
    package var isFile: Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR
    }

    /// Whether the folder holds a change file not in `merged`, and the ids of its devices: one
    /// listing of the folder and of each device's, nothing read.
    package func glance(merged: MergedFiles) throws -> (unmerged: Bool, devices: [String]) {
        guard let names = try FolderFiles.names(in: path) else { throw FolderError.missing(path) }
        var unmerged = false
        var devices: [String] = []
        for device in names.sorted() where DeviceID.isValid(device) {
            devices.append(device)
            for name in try FolderFiles.names(in: deviceDirectory(device)) ?? [] {
                if let sequence = Self.sequence(ofSegmentName: name), !merged.contains(device, sequence) { unmerged = true }
            }
        }
        return (unmerged, devices)
    }

    /// What changes when anything that a sync reads in the folder changes: the names at its top,
    /// and each device's files with their sizes and times (its images by their folder's time).
    /// What `likes sync --watch` looks at between syncs.
    package func fingerprint() -> [String] {
        guard let names = try? FolderFiles.names(in: path) else { return ["no folder"] }
        var items = names.sorted()
        for device in items where DeviceID.isValid(device) {
            let directory = deviceDirectory(device)
            for name in ((try? FolderFiles.names(in: directory)) ?? []).sorted() {
                items.append(device + "/" + name + " " + (FolderFiles.fingerprint(directory + "/" + name) ?? "-"))
            }
        }
        return items
    }

    /// A device's name from its `device.json`; `nil` while there is none that reads.
    package func name(of device: String) -> String? {
        guard let info = try? FolderFiles.contents(deviceDirectory(device) + "/device.json"), let object = Self.json(info),
            case .string(let name)? = object["name"]
        else { return nil }
        return name
    }

    /// Writes the device's `device.json` when it has none, so that the others know it before it
    /// publishes a change. Returns whether it wrote one.
    package func announce(device: String, name: String) throws -> Bool {
        let directory = deviceDirectory(device)
        guard try FolderFiles.contents(directory + "/device.json") == nil else { return false }
        try FolderFiles.makeDirectory(directory)
        let text = JSONValue.object([("format", .int(Self.format)), ("id", .string(device)), ("name", .string(name))]).rendered(pretty: false)
        try FolderFiles.writeWhole(Array((text + "\n").utf8), to: "device.json", in: directory)
        return true
    }

    package enum Decoded: Equatable {
        case whole(ChangeSegment)
        case incomplete(String)
        case newer(Int)
    }

    /// One change file read again, keeping the changes `lines` asks for; `nil` when it is no
    /// longer there.
    package func segment(device: String, sequence: Int, keeping lines: ChangeLines) throws -> Decoded? {
        try Self.decode(file: deviceDirectory(device) + "/" + Self.segmentName(sequence), device: device, sequence: sequence, keeping: lines)
    }

    /// Reads a change file: whole only when its header, its trailer's digest and every line
    /// agree, and every change is the device's own. `kept` says which changes are kept (lines
    /// passed over by ``ChangeLines/photos(_:)`` are not read at all).
    package static func decode(_ bytes: [UInt8], device: String, sequence: Int, keeping kept: ChangeLines = .all) -> Decoded {
        var reading = SegmentReading(device: device, sequence: sequence, kept: kept)
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        let rest = lines.removeLast()  // after the last newline
        for line in lines.dropLast() {
            reading.take(Array(line))
            if let outcome = reading.outcome { return outcome }
        }
        guard rest.isEmpty, let trailer = lines.last else {
            // A header alone, cut short: newer, or not whole.
            if lines.isEmpty, let header = json(Array(rest)), case .int(let format)? = header["format"], format > Self.format {
                return .newer(format)
            }
            return reading.finishCutShort(lines.last.map(Array.init) ?? Array(rest))
        }
        return reading.finish(trailer: Array(trailer))
    }

    /// Reads the change file at `path` as ``decode(_:device:sequence:keeping:)`` reads its bytes, a
    /// line at a time as it reads the file (a change file of 100,000 changes is 50 MB), keeping
    /// only the changes asked for; `nil` when there is no such file.
    static func decode(file path: String, device: String, sequence: Int, keeping kept: ChangeLines) throws -> Decoded? {
        var reading = SegmentReading(device: device, sequence: sequence, kept: kept)
        // Each line is known not to be the trailer once the next one comes.
        var previous: [UInt8]?
        guard
            let rest = try FolderFiles.forEachLine(
                path,
                { line in
                    if let previous { reading.take(previous) }
                    previous = Array(line)
                    return reading.outcome == nil
                })
        else { return reading.outcome }
        if let outcome = reading.outcome { return outcome }
        guard rest.isEmpty, let trailer = previous else { return reading.finishCutShort(previous ?? rest) }
        return reading.finish(trailer: trailer)
    }

    /// A change file read a line at a time: its header, then each line with the digest of the
    /// bytes before the trailer, the changes kept as asked.
    private struct SegmentReading {
        let device: String
        let sequence: Int
        let kept: ChangeLines
        var digest = SHA256()
        var header: (count: Int, through: Stamp?)?
        var lines = 0
        var changes: [SyncChange] = []
        var newestOwn: Stamp?
        /// Set once the file is known to be newer, or not whole.
        var outcome: Decoded?
        let decoder = JSONDecoder()

        init(device: String, sequence: Int, kept: ChangeLines) {
            self.device = device
            self.sequence = sequence
            self.kept = kept
        }

        /// A line that is not the file's last.
        mutating func take(_ line: [UInt8]) {
            line.withUnsafeBytes { digest.update($0) }
            [UInt8(0x0A)].withUnsafeBytes { digest.update($0) }
            guard header != nil else { return readHeader(line) }
            lines += 1
            if case .photos(let wanted) = kept, let id = SyncFolder.peekID(line[...]), !wanted(id) { return }
            // A snapshot relays other devices' unlikes; every other line is the device's own.
            guard let change = try? decoder.decode(SyncChange.self, from: Data(line)),
                change.stamp.device == device || (header?.through != nil && change.kind == .unlike)
            else { return outcome = .incomplete("a line is not a change of this device") }
            if change.stamp.device == device { newestOwn = max(newestOwn ?? change.stamp, change.stamp) }
            switch kept {
            case .all: changes.append(change)
            case .none: break
            case .photos(let wanted): if wanted(change.id) { changes.append(change) }
            }
        }

        private mutating func readHeader(_ line: [UInt8]) {
            guard let header = SyncFolder.json(line), case .int(let format)? = header["format"] else {
                return outcome = .incomplete("its first line is not a change file's header")
            }
            // A newer format is named as such, whatever follows.
            if format > SyncFolder.format { return outcome = .newer(format) }
            guard case .string(device)? = header["device"], case .int(sequence)? = header["sequence"], case .int(let count)? = header["count"]
            else { return outcome = .incomplete("its header does not match its name or its lines") }
            var through: Stamp?
            if case .bool(true)? = header["snapshot"] {
                guard case .string(let text)? = header["through"], let stamp = Stamp(text), stamp.device == device else {
                    return outcome = .incomplete("its header does not say what the snapshot reaches")
                }
                through = stamp
            }
            self.header = (count, through)
        }

        /// A file that does not end in a newline after its trailer: `last`, its last line or the
        /// bytes after its last newline, may still be a newer header.
        func finishCutShort(_ last: [UInt8]) -> Decoded {
            if header == nil, let json = SyncFolder.json(last), case .int(let format)? = json["format"], format > SyncFolder.format {
                return .newer(format)
            }
            return .incomplete("it is cut short or still arriving")
        }

        /// The file once its last line, the trailer, is read.
        mutating func finish(trailer: [UInt8]) -> Decoded {
            guard let header else { return finishCutShort(trailer) }
            guard let end = SyncFolder.json(trailer), case .string(let sha256)? = end["sha256"], sha256 == digest.finalizeHex() else {
                return .incomplete("it is cut short or still arriving (its checksum does not match)")
            }
            guard header.count == lines else { return .incomplete("its header does not match its name or its lines") }
            var segment = ChangeSegment(
                device: device, sequence: sequence, changes: changes, isSnapshot: header.through != nil, through: header.through)
            segment.changeCount = lines
            if case .photos = kept { segment.newestOwn = nil } else { segment.newestOwn = newestOwn }
            return .whole(segment)
        }
    }

    /// The photo id a change's line begins with (`{"id":"…"`, as this version writes every line,
    /// its keys sorted), read without decoding the rest; `nil` for a line that does not begin so.
    static func peekID(_ line: ArraySlice<UInt8>) -> String? {
        let opening = Array(#"{"id":""#.utf8)
        guard line.count > opening.count, line.starts(with: opening) else { return nil }
        var index = line.startIndex + opening.count
        var plain = true
        while index < line.endIndex {
            let byte = line[index]
            if byte == UInt8(ascii: "\"") {
                let text = line[(line.startIndex + opening.count)..<index]
                if plain { return String(decoding: text, as: UTF8.self) }
                // An escape inside: the string decoded as JSON decodes it.
                return try? JSONDecoder().decode(String.self, from: Data([UInt8(ascii: "\"")] + text + [UInt8(ascii: "\"")]))
            }
            if byte == UInt8(ascii: "\\") {
                plain = false
                index += 1
            }
            index += 1
        }
        return nil
    }

    /// An image's bytes from any device's images, checked against its name and length; `nil`
    /// while no whole copy has arrived.
    /// Of `devices`, `publisher`, the device whose change gave the image, is looked in first: it
    /// is where the image is unless that device let go of it, and a folder many devices joined
    /// would otherwise cost a failed open for each of them before it.
    package func image(_ reference: ImageReference, devices: some Collection<String>, publishedBy publisher: String? = nil) -> [UInt8]? {
        if let publisher, devices.contains(publisher), let bytes = image(reference, in: publisher) { return bytes }
        for device in devices where device != publisher {
            if let bytes = image(reference, in: device) { return bytes }
        }
        return nil
    }

    /// The image in one device's directory, when it is there whole.
    private func image(_ reference: ImageReference, in device: String) -> [UInt8]? {
        let file = deviceDirectory(device) + "/images/" + reference.sha256 + ".jpg"
        guard let bytes = try? FolderFiles.contents(file), bytes.count == reference.bytes, Self.digest(bytes) == reference.sha256 else { return nil }
        return bytes
    }
}
