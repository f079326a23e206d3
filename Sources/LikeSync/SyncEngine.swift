// Owns one sync round of a device against its copy of the folder: its new changes published as
// its next change file, the other devices' change files merged into each photo's history, and
// what that leaves each touched photo as. The device's state between rounds is a value
// (DeviceSyncState) that the caller keeps; applying the photos' new states to a store is the
// caller's too.

/// What a device keeps between sync rounds.
package struct DeviceSyncState: Sendable, Codable {
    package var device: String
    package var name: String
    package var clock: HybridClock
    /// The number of this device's next change file.
    package var nextSequence = 1
    /// By device, the change files merged whole.
    package var merged: [String: Set<Int>] = [:]
    /// By change file (`DEVICE/SEQUENCE`), the stamps of its changes merged while others of it
    /// wait for their images.
    package var partlyMerged: [String: Set<Stamp>] = [:]
    /// Each photo's history, by id: kept apart from the rest when saved (see ``CodingKeys``), so
    /// that a sync with nothing to merge need not read it.
    package var histories: [String: PhotoHistory] = [:]
    /// By device, when its newest change the folder showed this device was made (milliseconds).
    package var lastChange: [String: Int64] = [:]
    /// The names of the devices the folder showed, by id.
    package var deviceNames: [String: String] = [:]

    enum CodingKeys: String, CodingKey { case device, name, clock, nextSequence, merged, partlyMerged, lastChange, deviceNames }

    package init(device: String, name: String) {
        self.device = device
        self.name = name
        clock = HybridClock(device: device)
    }

    /// The photo as this device's history gives it.
    package func state(of id: String) -> PhotoState? { histories[id]?.state }

    /// Records a change this device makes, stamped now by its clock: it is in the photo's
    /// history at once, and published by the next round.
    package mutating func make(_ change: (Stamp) -> SyncChange, now: Int64) -> SyncChange {
        let made = change(clock.tick(now: now))
        histories[made.id, default: PhotoHistory()].insert(made)
        return made
    }
}

/// Why a round did not run.
package enum SyncRefusal: Error, Sendable, Hashable {
    /// The folder holds change files under this device's id that it did not write: the store
    /// is a copy of another device's (a copied store, a restored backup).
    case copiedStore(device: String, file: String)
}

/// What a round did.
package struct SyncRound: Sendable {
    package var published = 0
    package var merged = 0
    /// Changes waiting for files still arriving, and change files not whole yet.
    package var pending: [FolderProblem] = []
    /// Files of a newer format, skipped.
    package var newer: [FolderProblem] = []
    /// Every photo whose state the merged changes touched, with its state now (`nil`: not liked).
    package var touched: [String: PhotoState?] = [:]
    /// The devices the folder knows, by id, with their names.
    package var devices: [String: String] = [:]
    /// Whether the round wrote this device's `device.json` (its first round, with nothing to
    /// publish).
    package var announced = false

    package init() {}
}

extension DeviceSyncState {
    /// One round: publishes `local` (changes made since the last round, in the order made) with
    /// the images they need (after handing `reserve` the state with the change file's number
    /// taken, for the caller to keep), then merges every change file of the folder not merged yet whose
    /// changes' images are there whole. A change waiting for its image is pending; the other
    /// changes go ahead.
    ///
    /// - Throws: ``SyncRefusal/copiedStore(device:file:)`` before writing anything when the
    ///   folder holds a change file of this device's id that it did not write; ``FolderError``.
    package mutating func sync(
        with folder: SyncFolder, local: [SyncChange], images: [String: [UInt8]], reserve: (DeviceSyncState) throws -> Void = { _ in }
    ) throws -> SyncRound {
        try sync(with: folder, local: local, image: { images[$0] }, reserve: reserve)
    }

    /// As above, each image's bytes asked of `image` (by SHA-256) when it is published.
    package mutating func sync(
        with folder: SyncFolder, local: [SyncChange], image: (String) throws -> [UInt8]?, reserve: (DeviceSyncState) throws -> Void = { _ in }
    ) throws -> SyncRound {
        var round = SyncRound()
        var scan = try folder.scan(merged: merged)
        // This device's own files: those it numbered are its own (a round that died after
        // writing one and before keeping its state left it unmarked); one past them was written
        // by another holder of this id.
        let ownNumbers =
            scan.segments.filter { $0.device == device }.map(\.sequence)
            + scan.pending.filter { $0.id.hasPrefix(device + "/") }.compactMap {
                SyncFolder.sequence(ofSegmentName: String($0.id.dropFirst(device.count + 1)))
            }
        if let foreign = ownNumbers.filter({ $0 >= nextSequence }).min() {
            throw SyncRefusal.copiedStore(device: device, file: device + "/" + SyncFolder.segmentName(foreign))
        }
        // A file of its own that a round which died wrote is merged like the others: its
        // changes are this device's, and its history must hold them as every other device's does.
        scan.pending.removeAll { $0.id.hasPrefix(device + "/") }
        if local.isEmpty {
            round.announced = try folder.announce(device: device, name: name)
        } else {
            // Numbered and kept first (`reserve`): a round that dies after writing the file
            // still knows it as its own, and never refuses itself as a copy.
            let sequence = nextSequence
            nextSequence += 1
            try reserve(self)
            try folder.publish(device: device, name: name, sequence: sequence, changes: local, image: image)
            merged[device, default: []].insert(sequence)
            round.published = local.count
            lastChange[device] = max(lastChange[device] ?? 0, local.map(\.stamp.milliseconds).max() ?? 0)
        }
        deviceNames.merge(scan.devices) { _, new in new }
        round.devices = deviceNames
        round.newer = scan.newer
        round.pending = scan.pending
        let sources = Array(scan.devices.keys) + [device]
        for segment in scan.segments {
            let file = segment.device + "/" + String(segment.sequence)
            if let newest = segment.changes.map(\.stamp.milliseconds).max() {
                lastChange[segment.device] = max(lastChange[segment.device] ?? 0, newest)
            }
            var done = partlyMerged[file] ?? []
            for change in segment.changes where !done.contains(change.stamp) {
                if let missing = change.images.first(where: { folder.image($0, devices: sources) == nil }) {
                    round.pending.append(FolderProblem(id: change.id, reason: "its image \(missing.sha256.prefix(12))… has not fully arrived"))
                    continue
                }
                clock.merge(change.stamp)
                // Touched even when the history has the change already: a round that died after
                // keeping the histories and before writing the store merges it again, and the
                // store must still be written.
                histories[change.id, default: PhotoHistory()].insert(change)
                round.touched[change.id] = .some(histories[change.id]?.state)
                done.insert(change.stamp)
                if segment.device != device { round.merged += 1 }
            }
            if done.count == segment.changes.count {
                merged[segment.device, default: []].insert(segment.sequence)
                partlyMerged[file] = nil
            } else {
                partlyMerged[file] = done
            }
        }
        return round
    }
}
