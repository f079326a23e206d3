// Owns one sync round of a device against its copy of the folder: its new changes published as
// its next change file, the other devices' change files merged into each photo's history, and
// what that leaves each touched photo as; then what it has merged acknowledged, the images of
// photos every device has seen unliked let go, and its change files compacted into a snapshot
// when they have grown. The device's state between rounds is a value (DeviceSyncState) that the
// caller keeps; applying the photos' new states to a store is the caller's too.

/// What a device keeps between sync rounds.
package struct DeviceSyncState: Sendable {
    package var device: String
    package var name: String
    package var clock: HybridClock
    /// The number of this device's next change file.
    package var nextSequence = 1
    /// By device, the change files merged whole.
    package var merged = MergedFiles()
    /// By change file (`DEVICE/SEQUENCE`), the stamps of its changes merged while others of it
    /// wait for their images.
    package var partlyMerged: [String: Set<Stamp>] = [:]
    /// Each photo's history, by id: kept apart from the rest when saved (see ``CodingKeys``), so
    /// that a sync with nothing to merge need not read it; the caller may hold only some (see
    /// ``RoundHooks/histories``).
    package var histories: [String: PhotoHistory] = [:]
    /// By device, when its newest change the folder showed this device was made (milliseconds).
    package var lastChange: [String: Int64] = [:]
    /// The names of the devices the folder showed, by id.
    package var deviceNames: [String: String] = [:]
    /// The devices this device was told to forget, with when (milliseconds): the folder no
    /// longer waits for them before it lets go of images.
    package var forgotten: [String: Int64] = [:]
    /// Photos unliked whose images this device published: they leave the folder once every
    /// device has merged the unlike.
    package var releasing: [String: Release] = [:]
    /// This device's newest snapshot (see ``ChangeSegment/isSnapshot``): its number and size.
    package var snapshot: Snapshot?
    /// The newest stamp of a change this device made.
    package var ownLast: Stamp?
    /// Where the clock stood before rounds merged other devices' changes, and when: a change
    /// made before such a merge and found by a later round (made while a sync ran, or left by
    /// one that died) is stamped as the clock stood when it was made, not after what was merged
    /// since (see ``make(_:now:)``).
    package var checkpoints: [Checkpoint] = []

    /// The images a photo's unlike lets go of, once every device has merged it.
    package struct Release: Sendable, Hashable, Codable {
        package var unlike: Stamp
        package var images: [String]
    }

    package struct Snapshot: Sendable, Hashable, Codable {
        package var sequence: Int
        package var bytes: Int
    }

    /// The clock's newest stamp before a round's merge, and when it merged (the wall clock's
    /// milliseconds, before the merged photos reach the store).
    package struct Checkpoint: Sendable, Hashable, Codable {
        package var at: Int64
        package var before: Stamp
    }

    /// The most checkpoints kept: a change older than the oldest is stamped after it.
    static let checkpointsKept = 64

    package init(device: String, name: String) {
        self.device = device
        self.name = name
        clock = HybridClock(device: device)
    }

    /// The photo as this device's history gives it.
    package func state(of id: String) -> PhotoState? { histories[id]?.state }

    /// Records a change this device made at `now` (the wall clock's milliseconds), stamped as
    /// its clock stood then: after every stamp merged before that instant and every change this
    /// device made before it (of the photo too), never after a stamp merged later. The change is
    /// in the photo's history at once, and published by the next round. Changes are made in the
    /// order the device made them.
    package mutating func make(_ change: (Stamp) -> SyncChange, now: Int64) -> SyncChange {
        var then = clock
        if let checkpoint = checkpoints.first(where: { $0.at > now }) {
            // The clock before that merge, with every change this device made since.
            let own = ownLast.map { Self.later($0, checkpoint.before) ? $0 : checkpoint.before } ?? checkpoint.before
            then = HybridClock(device: device, last: (own.milliseconds, own.counter))
        }
        var made = change(then.tick(now: now))
        // After this device's own changes of the photo, whatever the wall clock did.
        let history = histories[made.id]
        let ownOfPhoto = ((history?.changes.map(\.stamp) ?? []) + [history?.lastUnlike].compactMap { $0 }).filter { $0.device == device }.max()
        if let ownOfPhoto, made.stamp <= ownOfPhoto {
            made.stamp = Stamp(milliseconds: ownOfPhoto.milliseconds, counter: ownOfPhoto.counter + 1, device: device)
        }
        recordOwn(made)
        return made
    }

    /// Takes in a change this device made, stamped already (a first sync's, each stamped by the
    /// time its parts were given, as ``make(_:now:)`` stamps them in order on a new device): into
    /// its photo's history, with the clock after it.
    package mutating func recordOwn(_ change: SyncChange) {
        clock.merge(change.stamp)
        ownLast = max(ownLast ?? change.stamp, change.stamp)
        record(change)
    }

    /// Takes note that this device's change file `sequence`, whose newest change is `newest`,
    /// is in the folder: merged already, as written.
    package mutating func notePublished(_ sequence: Int, newest: Stamp?) {
        merged.insert(device, sequence, newest: newest)
        if let newest { lastChange[device] = max(lastChange[device] ?? 0, newest.milliseconds) }
    }

    /// Whether `left` is later than `right` by milliseconds and counter.
    static func later(_ left: Stamp, _ right: Stamp) -> Bool {
        (left.milliseconds, left.counter) > (right.milliseconds, right.counter)
    }

    /// Forgets the checkpoints of merges before `time`: no change made before it is still to
    /// be found.
    package mutating func forgetCheckpoints(before time: Int64) {
        checkpoints.removeAll { $0.at < time }
    }

    /// Takes a change into its photo's history; an unlike that ends what this device published
    /// of the photo puts its images among those to let go of.
    @discardableResult
    mutating func record(_ change: SyncChange) -> Bool {
        var history = histories[change.id] ?? PhotoHistory()
        let published = history.changes.filter { $0.stamp.device == device && $0.stamp < change.stamp }.flatMap(\.images).map(\.sha256)
        guard history.insert(change) else {
            // This device's own change that an unlike merged before it ends (a round merges the
            // files in any order): the images its file brought into the folder are let go of
            // with that unlike's, as they would be had the change been merged first.
            if change.stamp.device == device, let lastUnlike = history.lastUnlike, change.stamp < lastUnlike, !change.images.isEmpty {
                var release = releasing[change.id] ?? Release(unlike: lastUnlike, images: [])
                release.unlike = max(release.unlike, lastUnlike)
                release.images = Array(Set(release.images + change.images.map(\.sha256))).sorted()
                releasing[change.id] = release
            }
            return false
        }
        histories[change.id] = history
        if change.kind == .unlike, history.lastUnlike == change.stamp {
            var release = releasing[change.id] ?? Release(unlike: change.stamp, images: [])
            release.unlike = max(release.unlike, change.stamp)
            release.images = Array(Set(release.images + published)).sorted()
            if !release.images.isEmpty { releasing[change.id] = release }
        }
        return true
    }
}

extension DeviceSyncState: Codable {
    enum CodingKeys: String, CodingKey {
        case device, name, clock, nextSequence, merged, partlyMerged, lastChange, deviceNames, forgotten, releasing, snapshot, ownLast,
            checkpoints
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        device = try container.decode(String.self, forKey: .device)
        name = try container.decode(String.self, forKey: .name)
        clock = try container.decode(HybridClock.self, forKey: .clock)
        nextSequence = try container.decode(Int.self, forKey: .nextSequence)
        merged = try container.decode(MergedFiles.self, forKey: .merged)
        partlyMerged = try container.decode([String: Set<Stamp>].self, forKey: .partlyMerged)
        lastChange = try container.decode([String: Int64].self, forKey: .lastChange)
        deviceNames = try container.decode([String: String].self, forKey: .deviceNames)
        // Kept since the folder let go of images; a state saved before has none.
        forgotten = try container.decodeIfPresent([String: Int64].self, forKey: .forgotten) ?? [:]
        releasing = try container.decodeIfPresent([String: Release].self, forKey: .releasing) ?? [:]
        snapshot = try container.decodeIfPresent(Snapshot.self, forKey: .snapshot)
        // Kept since changes are stamped as the clock stood when made; a state saved before has
        // none, and stamps its next changes after everything it merged, as it did.
        ownLast = try container.decodeIfPresent(Stamp.self, forKey: .ownLast)
        checkpoints = try container.decodeIfPresent([Checkpoint].self, forKey: .checkpoints) ?? []
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(device, forKey: .device)
        try container.encode(name, forKey: .name)
        try container.encode(clock, forKey: .clock)
        try container.encode(nextSequence, forKey: .nextSequence)
        try container.encode(merged, forKey: .merged)
        try container.encode(partlyMerged, forKey: .partlyMerged)
        try container.encode(lastChange, forKey: .lastChange)
        try container.encode(deviceNames, forKey: .deviceNames)
        try container.encode(forgotten, forKey: .forgotten)
        try container.encode(releasing, forKey: .releasing)
        try container.encodeIfPresent(snapshot, forKey: .snapshot)
        try container.encodeIfPresent(ownLast, forKey: .ownLast)
        try container.encode(checkpoints, forKey: .checkpoints)
    }
}

/// Why a round did not run.
package enum SyncRefusal: Error, Sendable, Hashable {
    /// The folder holds change files under this device's id that it did not write: the store
    /// is a copy of another device's (a copied store, a restored backup).
    case copiedStore(device: String, file: String)
}

/// What a round asks of the store it runs for.
package struct RoundHooks {
    /// The bytes of an image this device publishes, by SHA-256; `nil` when it has none.
    package var image: (String) throws -> [UInt8]?
    /// Keeps the state with a change file's number taken, before the file is written: a round
    /// that dies after writing it still knows it as its own.
    package var reserve: (DeviceSyncState) throws -> Void
    /// The histories of these photos (every photo's, for `nil`), for a caller that keeps only
    /// some in ``DeviceSyncState/histories`` between rounds.
    package var histories: (Set<String>?) throws -> [String: PhotoHistory]
    /// Whether an image (by SHA-256) is one a photo of the store has now.
    package var inUse: (String) throws -> Bool
    /// The wall clock, in milliseconds.
    package var now: () -> Int64

    package init(
        image: @escaping (String) throws -> [UInt8]?, reserve: @escaping (DeviceSyncState) throws -> Void = { _ in },
        histories: @escaping (Set<String>?) throws -> [String: PhotoHistory] = { _ in [:] },
        inUse: @escaping (String) throws -> Bool = { _ in false },
        now: @escaping () -> Int64
    ) {
        self.image = image
        self.reserve = reserve
        self.histories = histories
        self.inUse = inUse
        self.now = now
    }
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
    /// The devices the folder no longer waits for.
    package var forgotten: Set<String> = []
    /// Whether the round wrote this device's `device.json` (its first round, with nothing to
    /// publish).
    package var announced = false
    /// Whether the round wrote this device's `merged.json`.
    package var acknowledged = false
    /// The images the round let go of.
    package var released = 0
    /// Whether the round wrote a snapshot of this device's changes and removed the files before.
    package var compacted = false

    package init() {}

    /// Whether the round changed anything the device keeps.
    package var changedState: Bool {
        published > 0 || merged > 0 || announced || acknowledged || released > 0 || compacted || !touched.isEmpty
    }
}

/// What a round has to merge, found before it merges anything: the change files not merged yet
/// that are whole (their changes not held: each group of photos reads its own), and how far each
/// file's merge has come. See ``DeviceSyncState/beginRound(with:local:hooks:groupSize:)``.
package struct MergePlan: Sendable {
    /// The files, as a read that kept no change gives them (count, newest own stamp, snapshot).
    package var segments: [ChangeSegment]
    /// How many groups of photos the merge takes, each merged apart (1 for a small merge).
    package var groups: Int
    /// The group of a photo, by its id: the caller's (its bookkeeping's shards).
    let group: @Sendable (String) -> Int
    /// By file (``ChangeSegment/file``), how many of its changes are merged, this round or before.
    var done: [String: Int] = [:]
    /// By file, the stamps merged of one with changes that wait (for ``DeviceSyncState/partlyMerged``).
    var merged: [String: Set<Stamp>] = [:]
    /// The files with a change that waits for its images.
    var waiting: Set<String> = []
    /// The clock before the merge, for the checkpoint taken after it.
    var clockBefore: (milliseconds: Int64, counter: Int)

    /// How many changes the files hold.
    package var changeCount: Int { segments.reduce(0) { $0 + $1.changeCount } }
}

extension DeviceSyncState {
    /// One round: publishes `local` (changes made since the last round, in the order made) with
    /// the images they need (after handing `reserve` the state with the change file's number
    /// taken, for the caller to keep), then merges every change file of the folder not merged
    /// yet whose changes' images are there whole. A change waiting for its image is pending; the
    /// other changes go ahead; one that an unlike after it voids waits for nothing.
    ///
    /// - Throws: ``SyncRefusal/copiedStore(device:file:)`` before writing anything when the
    ///   folder holds a change file of this device's id that it did not write; ``FolderError``.
    package mutating func sync(
        with folder: SyncFolder, local: [SyncChange], images: [String: [UInt8]], reserve: @escaping (DeviceSyncState) throws -> Void = { _ in },
        now: Int64 = 0
    ) throws -> SyncRound {
        try sync(with: folder, local: local, hooks: RoundHooks(image: { images[$0] }, reserve: reserve, now: { now }))
    }

    /// As above, asking the store what ``RoundHooks`` names, the whole merge in one group.
    /// `keepingUp` false leaves the folder's upkeep (``keepUp(_:_:_:)``) to the caller, to run
    /// once the merged photos are in its store.
    package mutating func sync(with folder: SyncFolder, local: [SyncChange], hooks: RoundHooks, keepingUp: Bool = true) throws -> SyncRound {
        var (round, plan) = try beginRound(with: folder, local: local, hooks: hooks, groupSize: .max, group: { _ in 0 })
        try mergeGroup(0, of: &plan, from: folder, hooks: hooks, into: &round)
        endMerge(plan, into: &round, hooks: hooks)
        if keepingUp { try keepUp(folder, &round, hooks) }
        return round
    }

    /// A round's beginning: the folder looked at (every change file read once, none of its
    /// changes kept), `local` published, and the merge planned in groups of photos of about
    /// `groupSize` changes (by `group`, which gives each photo one of 1, 2, 4 … 256 groups by
    /// its remainder), so that a device joining a large collection holds one group at a time.
    /// Then ``mergeGroup(_:of:from:hooks:into:)`` for each group, and ``endMerge(_:into:hooks:)``.
    package mutating func beginRound(
        with folder: SyncFolder, local: [SyncChange], hooks: RoundHooks, groupSize: Int, group: @escaping @Sendable (String) -> Int
    ) throws -> (SyncRound, MergePlan) {
        var round = SyncRound()
        let scan = try folder.scan(merged: merged, keeping: .none)
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
        var plan = MergePlan(segments: scan.segments, groups: 1, group: group, clockBefore: clock.last)
        while plan.groups < 256, plan.changeCount / plan.groups > groupSize { plan.groups *= 2 }
        // The histories of the photos to merge, read before anything is written when the merge
        // is one group: a caller whose store refuses what it reads (a later version's file)
        // refuses before the round wrote.
        if plan.groups == 1 { _ = try loadHistories(of: &plan, group: 0, from: folder, hooks: hooks) }
        if local.isEmpty {
            round.announced = try folder.announce(device: device, name: name)
        } else {
            // Numbered and kept first (`reserve`): a round that dies after writing the file
            // still knows it as its own, and never refuses itself as a copy.
            let sequence = nextSequence
            nextSequence += 1
            try hooks.reserve(self)
            try folder.publish(device: device, name: name, sequence: sequence, changes: local, image: hooks.image)
            notePublished(sequence, newest: local.map(\.stamp).max())
            round.published = local.count
        }
        deviceNames.merge(scan.devices) { _, new in new }
        round.devices = deviceNames
        round.newer = scan.newer
        // A file of its own that a round which died wrote is merged like the others: its
        // changes are this device's, and its history must hold them as every other device's does.
        round.pending = scan.pending.filter { !$0.id.hasPrefix(device + "/") }
        for segment in plan.segments {
            if let newest = segment.newestOwn?.milliseconds { lastChange[segment.device] = max(lastChange[segment.device] ?? 0, newest) }
            plan.done[segment.file] = partlyMerged[segment.file]?.count ?? 0
        }
        return (round, plan)
    }

    /// The changes of group `group`'s photos in the plan's files, read now (a merge of one group
    /// reads them once, and keeps them in the plan); a file gone or changed since the plan was
    /// made waits for the next round.
    private func changes(of plan: inout MergePlan, group: Int, from folder: SyncFolder) throws -> [ChangeSegment] {
        let readAlready = plan.groups == 1 && !plan.segments.contains { $0.changes.isEmpty && $0.changeCount > 0 }
        guard !readAlready else { return plan.segments }
        let (groups, groupOf) = (plan.groups, plan.group)
        let wanted = { (id: String) in groupOf(id) % groups == group }
        let segments = try plan.segments.compactMap { planned -> ChangeSegment? in
            guard case .whole(var read)? = try folder.segment(device: planned.device, sequence: planned.sequence, keeping: .photos(wanted)),
                read.changeCount == planned.changeCount
            else { return nil }
            read.newestOwn = planned.newestOwn
            return read
        }
        if groups == 1 { plan.segments = segments }
        return segments
    }

    /// Reads a group's changes and loads their photos' histories into ``histories``.
    private mutating func loadHistories(of plan: inout MergePlan, group: Int, from folder: SyncFolder, hooks: RoundHooks) throws -> [ChangeSegment] {
        let segments = try changes(of: &plan, group: group, from: folder)
        let needed = Set(segments.flatMap { $0.changes.map(\.id) }).subtracting(histories.keys)
        if !needed.isEmpty { histories.merge(try hooks.histories(needed)) { kept, _ in kept } }
        return segments
    }

    /// Merges the changes of one group of photos (see ``beginRound(with:local:hooks:groupSize:group:)``):
    /// their histories loaded, every unlike first, then the rest, each once its images are there.
    /// The photos touched are added to `round`'s; the caller writes them, keeps their histories
    /// and may let go of them (``histories``) before the next group.
    package mutating func mergeGroup(_ group: Int, of plan: inout MergePlan, from folder: SyncFolder, hooks: RoundHooks, into round: inout SyncRound)
        throws
    {
        let segments = try loadHistories(of: &plan, group: group, from: folder, hooks: hooks)
        merge(segments, &plan, from: folder, into: &round)
    }

    /// Ends a round's merge: each file whose every change is merged is merged whole; one with
    /// changes that wait keeps the stamps merged of it; the clock's checkpoint.
    package mutating func endMerge(_ plan: MergePlan, into round: inout SyncRound, hooks: RoundHooks) {
        for segment in plan.segments {
            let file = segment.file
            if plan.done[file, default: 0] >= segment.changeCount, !plan.waiting.contains(file) {
                if let through = segment.through, segment.isSnapshot {
                    merged.insertSnapshot(segment.device, segment.sequence, through: through)
                } else {
                    merged.insert(segment.device, segment.sequence, newest: segment.acknowledges)
                }
                partlyMerged[file] = nil
            } else {
                partlyMerged[file] = (partlyMerged[file] ?? []).union(plan.merged[file] ?? [])
            }
        }
        if clock.last != plan.clockBefore {
            let before = plan.clockBefore
            checkpoints.append(Checkpoint(at: hooks.now(), before: Stamp(milliseconds: before.milliseconds, counter: before.counter, device: device)))
            checkpoints = Array(checkpoints.suffix(Self.checkpointsKept))
        }
    }

    /// Merges whole change files' changes (of one group of photos): every unlike first, so that
    /// a change it voids waits for nothing (its image may have left the folder), then the rest,
    /// each once its images are there.
    private mutating func merge(_ segments: [ChangeSegment], _ plan: inout MergePlan, from folder: SyncFolder, into round: inout SyncRound) {
        let sources = Array(round.devices.keys) + [device]
        var done: [String: Set<Stamp>] = [:]
        func take(_ change: SyncChange, of segment: ChangeSegment) {
            self.take(change, from: segment, &round)
            done[segment.file, default: []].insert(change.stamp)
            plan.done[segment.file, default: 0] += 1
        }
        for segment in segments {
            let before = partlyMerged[segment.file] ?? []
            done[segment.file] = []
            for change in segment.changes where change.kind == .unlike && !before.contains(change.stamp) { take(change, of: segment) }
        }
        for segment in segments {
            let file = segment.file
            let before = partlyMerged[file] ?? []
            for change in segment.changes where !before.contains(change.stamp) && !(done[file]?.contains(change.stamp) ?? false) {
                let voided = histories[change.id]?.lastUnlike.map { change.stamp <= $0 } ?? false
                let absent = voided ? [] : change.images.filter { folder.image($0, devices: sources, publishedBy: change.stamp.device) == nil }
                if let missing = absent.first, shows(absent, with: change) {
                    round.pending.append(FolderProblem(id: change.id, reason: "its image \(missing.sha256.prefix(12))… has not fully arrived"))
                    plan.waiting.insert(file)
                    continue
                }
                take(change, of: segment)
            }
            // Of a file with changes that wait, the stamps merged are kept (from the group where one
            // first waited: those merged before are merged again next round, which changes nothing).
            if plan.waiting.contains(file) { plan.merged[file, default: []].formUnion(done[file] ?? []) }
        }
    }

    /// Whether the photo, with `change` merged, would show one of `images`: an image a later
    /// change of the photo gave again never shows, and the device that published it may have
    /// let go of it (the change then waited for ever, and with it the note and albums it gave).
    private func shows(_ images: [ImageReference], with change: SyncChange) -> Bool {
        var trial = histories[change.id] ?? PhotoHistory()
        trial.insert(change)
        guard let state = trial.state else { return false }
        let shown = Set([state.image.sha256, state.userImage?.sha256].compactMap { $0 })
        return images.contains { shown.contains($0.sha256) }
    }

    /// One change merged: into its photo's history, and the photo among those touched.
    private mutating func take(_ change: SyncChange, from segment: ChangeSegment, _ round: inout SyncRound) {
        clock.merge(change.stamp)
        // Touched even when the history has the change already: a round that died after
        // keeping the histories and before writing the store merges it again, and the store
        // must still be written.
        record(change)
        round.touched[change.id] = .some(histories[change.id]?.state)
        if segment.device != device { round.merged += 1 }
    }
}
