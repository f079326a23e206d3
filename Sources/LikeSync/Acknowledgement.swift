// Owns what a device tells the others of what it has seen: `DIR/ID/merged.json`, by device the
// stamp through which it has merged every change, and the devices it was told to forget. What a
// device reads of the others' to know when every device has merged an unlike, so that the images
// of the photo may leave the folder. Written by the device itself only, whole, when it changes.

import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// One device's `merged.json`.
package struct Acknowledgement: Sendable, Hashable {
    /// The device that wrote it.
    package var device: String
    /// When it was written (milliseconds): a device forgotten before this is back.
    package var at: Int64
    /// By device: every change of that device up to this stamp is merged here.
    package var merged: [String: Stamp]
    /// By device: when this device was told to forget it (`likes sync DIR --forget DEVICE`).
    package var forgotten: [String: Int64]

    package init(device: String, at: Int64, merged: [String: Stamp], forgotten: [String: Int64]) {
        self.device = device
        self.at = at
        self.merged = merged
        self.forgotten = forgotten
    }

    static let fileName = "merged.json"

    var encoded: [UInt8] {
        let text = JSONValue.object([
            ("format", .int(SyncFolder.format)), ("device", .string(device)), ("at", .int(Int(at))),
            ("merged", .object(merged.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value.description)) })),
            ("forgotten", .object(forgotten.sorted { $0.key < $1.key }.map { ($0.key, .int(Int($0.value))) })),
        ]).rendered(pretty: false)
        return Array((text + "\n").utf8)
    }

    /// Reads a `merged.json`; `nil` for anything else (cut short, of another device, garbage).
    init?(_ bytes: [UInt8], device: String) {
        guard let object = SyncFolder.json(bytes), case .int(let format)? = object["format"], format <= SyncFolder.format,
            case .string(device)? = object["device"], case .int(let at)? = object["at"], case .object(let merged)? = object["merged"],
            case .object(let forgotten)? = object["forgotten"]
        else { return nil }
        self.device = device
        self.at = Int64(at)
        var stamps: [String: Stamp] = [:]
        for (key, value) in merged {
            guard case .string(let text) = value, let stamp = Stamp(text), stamp.device == key else { return nil }
            stamps[key] = stamp
        }
        self.merged = stamps
        var forgets: [String: Int64] = [:]
        for (key, value) in forgotten {
            guard DeviceID.isValid(key), case .int(let time) = value else { return nil }
            forgets[key] = Int64(time)
        }
        self.forgotten = forgets
    }

    /// The same but for the time it was written.
    func saysTheSame(as other: Acknowledgement?) -> Bool {
        guard let other else { return false }
        return other.device == device && other.merged == merged && other.forgotten == forgotten
    }
}

extension SyncFolder {
    /// Every device's `merged.json` that reads, by device.
    package func acknowledgements(devices: some Sequence<String>) -> [String: Acknowledgement] {
        var found: [String: Acknowledgement] = [:]
        for device in devices {
            guard let bytes = try? FolderFiles.contents(deviceDirectory(device) + "/" + Acknowledgement.fileName),
                let acknowledgement = Acknowledgement(bytes, device: device)
            else { continue }
            found[device] = acknowledgement
        }
        return found
    }

    /// Writes the device's `merged.json` unless the one there says the same. Returns whether it
    /// wrote.
    @discardableResult
    package func acknowledge(_ acknowledgement: Acknowledgement) throws -> Bool {
        let directory = deviceDirectory(acknowledgement.device)
        let there = (try? FolderFiles.contents(directory + "/" + Acknowledgement.fileName))?.flatMap {
            Acknowledgement($0, device: acknowledgement.device)
        }
        guard !acknowledgement.saysTheSame(as: there) else { return false }
        try FolderFiles.makeDirectory(directory)
        try FolderFiles.writeWhole(acknowledgement.encoded, to: Acknowledgement.fileName, in: directory)
        return true
    }

    /// The device's own change files there now, by number, with their sizes.
    package func ownSegments(_ device: String) throws -> [Int: Int] {
        let directory = deviceDirectory(device)
        var found: [Int: Int] = [:]
        for name in try FolderFiles.names(in: directory) ?? [] {
            guard let sequence = Self.sequence(ofSegmentName: name), let size = FolderFiles.size(directory + "/" + name) else { continue }
            found[sequence] = size
        }
        return found
    }

    /// One of the device's own change files, read whole and checked; `nil` when it is not there
    /// whole.
    package func ownSegment(_ device: String, _ sequence: Int) throws -> ChangeSegment? {
        guard let bytes = try FolderFiles.contents(deviceDirectory(device) + "/" + Self.segmentName(sequence)),
            case .whole(let segment) = Self.decode(bytes, device: device, sequence: sequence)
        else { return nil }
        return segment
    }

    /// Removes one of the device's own change files (a snapshot holds what it held).
    package func removeSegment(_ device: String, _ sequence: Int) throws {
        try FolderFiles.remove(deviceDirectory(device) + "/" + Self.segmentName(sequence))
    }

    /// The names (SHA-256) of the device's own images there now.
    package func ownImages(_ device: String) throws -> Set<String> {
        var found = Set<String>()
        for name in try FolderFiles.names(in: deviceDirectory(device) + "/images") ?? [] where name.hasSuffix(".jpg") {
            let sha256 = String(name.dropLast(4))
            if ImageReference(sha256: sha256, bytes: 1).isWellFormed { found.insert(sha256) }
        }
        return found
    }

    /// Removes one of the device's own images; nothing when it is not there.
    package func removeImage(_ device: String, _ sha256: String) throws {
        guard ImageReference(sha256: sha256, bytes: 1).isWellFormed else { return }
        try FolderFiles.remove(deviceDirectory(device) + "/images/" + sha256 + ".jpg")
    }
}
