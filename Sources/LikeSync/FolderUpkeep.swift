// Owns how a device keeps the folder about the size of the collection: it acknowledges what it
// has merged (merged.json), lets go of the images of a photo once every device the folder knows
// and has not forgotten has merged its unlike, and, when its change files have grown as large as
// its last snapshot, writes a new snapshot of what still matters and removes the files before.
// Called at the end of a round (DeviceSyncState.sync), or by the caller once the round's merged
// photos are in its store (LikeKit's sync).

extension DeviceSyncState {
    /// How many change files after the last snapshot, at the least, before a new one is written
    /// (and only once they hold as many bytes as it).
    static let filesBeforeSnapshot = 8

    /// Acknowledges, lets go and compacts, as the round and the folder call for. Run after the
    /// round's merged photos are in the store: what a device acknowledges, it holds, and what it
    /// asks of `inUse` is answered by the store as it now is.
    package mutating func keepUp(_ folder: SyncFolder, _ round: inout SyncRound, _ hooks: RoundHooks) throws {
        let others = Set(merged.devices).subtracting([device])
        round.acknowledged = try folder.acknowledge(
            Acknowledgement(
                device: device, at: hooks.now(),
                merged: Dictionary(uniqueKeysWithValues: others.compactMap { id in merged.through(id).map { (id, $0) } }),
                forgotten: forgotten))
        let view = try FolderView(of: folder, for: self)
        round.forgotten = view.forgotten
        if releasing.values.contains(where: { view.seenByAll($0.unlike) }) { try release(folder, &round, hooks, view.seenByAll) }
        if try needsSnapshot(folder) { try compact(folder, &round, hooks, view.seenByAll) }
    }

    /// Whether a round would let go of images now: every device the folder waits for has
    /// merged the unlike of a photo whose images this device published. Reads the devices'
    /// `merged.json`, nothing else.
    package func canRelease(in folder: SyncFolder) -> Bool {
        guard !releasing.isEmpty, let view = try? FolderView(of: folder, for: self) else { return false }
        return releasing.values.contains { view.seenByAll($0.unlike) }
    }

    /// The devices the folder knows and what they acknowledge.
    struct FolderView {
        var acknowledgements: [String: Acknowledgement]
        /// The devices known and not forgotten, but this one.
        var waitingFor: Set<String>
        var forgotten: Set<String>

        init(of folder: SyncFolder, for state: DeviceSyncState) throws {
            let known = Set(try folder.glance(merged: state.merged).devices).union(state.deviceNames.keys).subtracting([state.device])
            acknowledgements = folder.acknowledgements(devices: known)
            forgotten = state.forgottenDevices(known, acknowledgements)
            waitingFor = known.subtracting(forgotten)
        }

        /// Whether every device the folder waits for has merged `unlike`.
        func seenByAll(_ unlike: Stamp) -> Bool {
            waitingFor.allSatisfy { other in other == unlike.device || (acknowledgements[other]?.merged[unlike.device]).map { $0 >= unlike } == true }
        }
    }

    /// The devices the folder no longer waits for: forgotten (by any device) since they last
    /// showed themselves. A forgotten device that syncs again is waited for again.
    func forgottenDevices(_ known: Set<String>, _ acknowledgements: [String: Acknowledgement]) -> Set<String> {
        var forgets = forgotten
        for acknowledgement in acknowledgements.values { forgets.merge(acknowledgement.forgotten) { max($0, $1) } }
        return Set(
            known.filter { id in
                guard let forgot = forgets[id] else { return false }
                return forgot > max(acknowledgements[id]?.at ?? 0, lastChange[id] ?? 0)
            })
    }

    /// Removes from this device's images those of photos whose unlike every device has merged,
    /// unless a photo of the store, or a photo still waiting, has the same bytes.
    private mutating func release(_ folder: SyncFolder, _ round: inout SyncRound, _ hooks: RoundHooks, _ seenByAll: (Stamp) -> Bool) throws {
        let ready = releasing.filter { seenByAll($0.value.unlike) }
        let needed = Set(ready.keys).subtracting(histories.keys)
        if !needed.isEmpty { histories.merge(try hooks.histories(needed)) { kept, _ in kept } }
        let stillWaiting = Set(releasing.filter { !seenByAll($0.value.unlike) }.values.flatMap(\.images))
        for (id, entry) in ready.sorted(by: { $0.key < $1.key }) {
            let current = Set(state(of: id).map { [$0.image.sha256, $0.userImage?.sha256].compactMap { $0 } } ?? [])
            for sha256 in entry.images where !current.contains(sha256) && !stillWaiting.contains(sha256) {
                guard try !hooks.inUse(sha256) else { continue }
                try folder.removeImage(device, sha256)
                round.released += 1
            }
            releasing[id] = nil
        }
    }

    /// Whether this device's change files call for a snapshot: as many since the last as
    /// ``filesBeforeSnapshot`` holding as many bytes as it, or any of its files gone from the
    /// folder (an `rm`, a deletion an engine carried), whose changes the others may still lack.
    private func needsSnapshot(_ folder: SyncFolder) throws -> Bool {
        guard nextSequence > 1 else { return false }
        let present = try folder.ownSegments(device)
        if missesOwnFiles(present) { return true }
        let since = present.filter { $0.key > (snapshot?.sequence ?? 0) }
        return since.count >= Self.filesBeforeSnapshot && since.values.reduce(0, +) >= (snapshot?.bytes ?? 0)
    }

    /// Whether a change file this device numbered is not in the folder: removed by someone, or
    /// never written by a round that died after taking its number. A sync then publishes a
    /// snapshot, even with nothing else to do.
    package func missesOwnFiles(in folder: SyncFolder) throws -> Bool {
        guard nextSequence > 1 else { return false }
        return missesOwnFiles(try folder.ownSegments(device))
    }

    private func missesOwnFiles(_ present: [Int: Int]) -> Bool {
        ((snapshot?.sequence ?? 1)..<nextSequence).contains { present[$0] == nil }
    }

    /// Writes a snapshot of this device's changes that still matter, as its next change file,
    /// then removes its files before it and the images no change in it names.
    ///
    /// What still matters of a photo: this device's changes after the photo's last unlike (an
    /// edit without what a later change of this device gives again), and the last unlike
    /// itself, whichever device made it, kept for ever. This device's changes before that
    /// unlike are kept, with their images, until every device has merged the unlike.
    private mutating func compact(_ folder: SyncFolder, _ round: inout SyncRound, _ hooks: RoundHooks, _ seenByAll: (Stamp) -> Bool) throws {
        histories.merge(try hooks.histories(nil)) { kept, _ in kept }
        let present = try folder.ownSegments(device)
        let own = try ownChanges(folder, present)
        var lines: [SyncChange] = []
        var waiting = Set<String>()
        for (id, changes) in Dictionary(grouping: own.values, by: \.id) {
            let lastUnlike = histories[id]?.lastUnlike
            let kept = changes.filter { change in
                guard let lastUnlike, change.stamp < lastUnlike else { return true }
                return !seenByAll(lastUnlike)
            }
            // Kept only until every device has merged the unlike: let go of then, whatever
            // released before (a forgotten device that came back is waited for again).
            if let lastUnlike {
                let images = kept.filter { $0.stamp < lastUnlike }.flatMap(\.images).map(\.sha256)
                if !images.isEmpty {
                    var release = releasing[id] ?? Release(unlike: lastUnlike, images: [])
                    release.unlike = max(release.unlike, lastUnlike)
                    release.images = Array(Set(release.images + images)).sorted()
                    releasing[id] = release
                    waiting.formUnion(images)
                }
            }
            lines += Self.withoutRepeatedEdits(kept.sorted { $0.stamp < $1.stamp }, after: lastUnlike)
        }
        for (id, history) in histories {
            if let lastUnlike = history.lastUnlike, own[id + " " + lastUnlike.description] == nil {
                lines.append(SyncChange(id: id, stamp: lastUnlike, kind: .unlike))
            }
        }
        lines.sort { $0.stamp < $1.stamp }
        let through = Stamp(milliseconds: clock.last.milliseconds, counter: clock.last.counter, device: device)
        let sequence = nextSequence
        nextSequence += 1
        try hooks.reserve(self)
        // An image of a photo unliked since is never written again: it may have left already.
        let live = Set(lines.filter { change in histories[change.id]?.lastUnlike.map { change.stamp > $0 } ?? true }.flatMap(\.images).map(\.sha256))
        try folder.publish(device: device, name: name, sequence: sequence, changes: lines, snapshotThrough: through) { sha256 in
            waiting.contains(sha256) && !live.contains(sha256) ? nil : try hooks.image(sha256)
        }
        merged.insertSnapshot(device, sequence, through: through)
        snapshot = Snapshot(sequence: sequence, bytes: (try folder.ownSegments(device))[sequence] ?? 0)
        for earlier in present.keys where earlier < sequence { try folder.removeSegment(device, earlier) }
        let named = Set(lines.filter { $0.stamp.device == device }.flatMap(\.images).map(\.sha256))
        let stillWaiting = Set(releasing.values.flatMap(\.images))
        for sha256 in try folder.ownImages(device) where !named.contains(sha256) && !stillWaiting.contains(sha256) {
            guard try !hooks.inUse(sha256) else { continue }
            try folder.removeImage(device, sha256)
            round.released += 1
        }
        releasing = releasing.filter { !seenByAll($0.value.unlike) }
        round.compacted = true
    }

    /// This device's changes in its files there now and in the histories, by photo and stamp (a
    /// stamp is one change's alone within a photo). A round that died after keeping its changes
    /// and before keeping its clock left them newer than the clock: the clock takes them in, so
    /// that the snapshot covers them and later changes come after them.
    private mutating func ownChanges(_ folder: SyncFolder, _ present: [Int: Int]) throws -> [String: SyncChange] {
        var own: [String: SyncChange] = [:]
        for sequence in present.keys.sorted() {
            guard let segment = try folder.ownSegment(device, sequence) else { continue }
            for change in segment.changes where change.stamp.device == device { own[change.id + " " + change.stamp.description] = change }
        }
        for history in histories.values {
            for change in history.changes where change.stamp.device == device && own[change.id + " " + change.stamp.description] == nil {
                own[change.id + " " + change.stamp.description] = change
            }
        }
        for change in own.values {
            clock.merge(change.stamp)
            ownLast = max(ownLast ?? change.stamp, change.stamp)
        }
        return own
    }

    /// A photo's changes (in stamp order) without what a later one gives again: from an edit
    /// after the last unlike, the fields a later like or edit of the period gives.
    static func withoutRepeatedEdits(_ changes: [SyncChange], after lastUnlike: Stamp?) -> [SyncChange] {
        var later = Set<String>()
        var kept: [SyncChange] = []
        for change in changes.reversed() {
            guard lastUnlike.map({ change.stamp > $0 }) ?? true, change.kind != .unlike else {
                kept.append(change)
                continue
            }
            var trimmed = change
            if change.kind == .edit {
                guard let left = change.editWithout(later) else { continue }
                trimmed = left
            }
            later.formUnion(change.editParts)
            kept.append(trimmed)
        }
        return kept.reversed()
    }
}

extension DeviceSyncState {
    /// The devices the folder no longer waits for (see ``forgottenDevices(_:_:)``).
    package func forgottenDevices(in folder: SyncFolder) -> Set<String> {
        (try? FolderView(of: folder, for: self))?.forgotten ?? []
    }
}
