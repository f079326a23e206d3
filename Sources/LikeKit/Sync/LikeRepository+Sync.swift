// Owns a store's side of syncing with other devices through a folder: what the store changed
// since its last sync, found by the parts' stamps in its records (see LikeStore's RecordStamps),
// published through LikeSync, and the merged photos written back with the stamps they were
// merged with. What it keeps between syncs lives in the store's sync/ folder.

import LikeStore
import LikeSync
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

/// What ``LikeRepository/sync(with:newDevice:)`` did.
public struct SyncReport: Sendable, Hashable {
    /// A device the sync folder knows.
    public struct Device: Sendable, Hashable {
        /// Its id: 16 hex digits.
        public var id: String
        /// Its name (the host's name when it first synced).
        public var name: String
        /// When its newest change that this store has seen was made; `nil` if none.
        public var lastChange: Date?
    }

    /// Something that could not be merged yet (or, in ``skipped``, by this version).
    public struct Problem: Sendable, Hashable {
        /// The photo id or the folder's file it is about.
        public var id: String
        /// Why.
        public var reason: String
    }

    /// This store's device id.
    public var device: String
    /// The changes of this store published into the folder.
    public var published: Int
    /// The changes of other devices merged into this store.
    public var merged: Int
    /// Changes waiting for files still arriving: a later sync merges them.
    public var pending: [Problem]
    /// Files of a newer format, left alone: a newer `likes` reads them.
    public var skipped: [Problem]
    /// The devices the folder knows, this one included, by id.
    public var devices: [Device]
}

/// What changes when anything a sync reads in a sync folder changes: its names, and each
/// device's files with their sizes and times. Cheap (a listing of the folder and of each
/// device's): what `likes sync --watch` compares between syncs.
public struct SyncFolderFingerprint: Sendable, Hashable {
    let items: [String]

    /// The folder's fingerprint now.
    ///
    /// - Parameter folder: The sync folder.
    public init(folder: URL) {
        items = SyncFolder(path: folder.path).fingerprint()
    }
}

/// What a store keeps between syncs besides the photos' histories: its device's state, and the
/// store's change mark and the parts' stamps as the last sync left them.
struct SavedSync: Codable {
    var engine: DeviceSyncState
    /// Where the journal ended when the last sync looked for the store's changes: the lines
    /// after it name the photos to look at; unchanged, there is nothing to publish.
    var position: JournalPosition?
    /// The photos a sync was writing as merged, kept before it began: a sync that died part way
    /// leaves them here for the next to finish.
    var applying: [String]?
}

/// The photos' side of what a store keeps: each photo's history, the stamps its record had after
/// the last sync, and the SHA-256 of its images then.
struct SavedPhotos: Codable, Equatable {
    var histories: [String: PhotoHistory] = [:]
    var published: [String: [String: String]] = [:]
    var images: [String: String] = [:]
    var userImages: [String: String] = [:]
}

extension LikeRepository {
    static let syncStateName = "state"
    static let syncPhotosName = "photos"

    /// Publishes into `folder` the changes this store made since its last sync, and merges into
    /// the store the changes other devices published there.
    ///
    /// `folder` is a folder another program carries between devices (Syncthing, iCloud Drive,
    /// Dropbox, a USB stick); each device points its own store at its own copy of it. Every
    /// device writes only files of its own there, whole. A change whose files have not all
    /// arrived is pending (named in the report) and merged by a later sync; files missing from
    /// the folder never unlike anything. Merged photos reach observers like local changes.
    ///
    /// - Parameters:
    ///   - folder: The sync folder; an empty one is a new folder.
    ///   - newDevice: Gives this store a new device id first (for a store copied from another
    ///     device's), and publishes its photos as that device.
    /// - Returns: What was published and merged, what waits, and the devices the folder knows.
    /// - Throws: ``LikeRepositoryError``: `syncFolderMissing`, `copiedStore` (nothing written),
    ///   `storeBusy`, `io`.
    public func sync(with folder: URL, newDevice: Bool = false) throws -> SyncReport {
        let sync = SyncFolder(path: folder.path)
        guard sync.exists else { throw LikeRepositoryError.syncFolderMissing(path: folder.path) }
        let (loadedSync, isNew) = try loadSync(newDevice: newDevice)
        var saved = loadedSync
        if let unfinished = saved.applying, !unfinished.isEmpty { try finishApplying(unfinished, &saved, from: sync) }
        // Where the journal ends before this store's changes are looked for, kept as where they
        // were found to: a change another process makes while this sync runs is found by the next.
        let position = try translating { try store.journalEnd() }
        var photos: SavedPhotos?
        var local: [SyncChange] = []
        var images: [String: (id: String, user: Bool)] = [:]
        if position == nil || position != saved.position {
            var loaded = try loadPhotos()
            let before = loaded
            // The histories first: a change made now goes into its photo's history.
            saved.engine.histories = loaded.histories
            (local, images) = try localChanges(
                &saved.engine, &loaded, since: isNew ? nil : saved.position, writing: Set(saved.applying ?? []))
            if !local.isEmpty || loaded != before { photos = loaded }
        }
        if photos == nil, let quiet = try quietReport(saved, sync) { return quiet }
        var loaded = try photos ?? loadPhotos()
        if photos == nil { saved.engine.histories = loaded.histories }
        let round = try runRound(&saved, sync, local: local, images: images)
        saved.engine.deviceNames = round.devices
        loaded.histories = saved.engine.histories
        if !round.touched.isEmpty {
            // Kept before the store is written: a sync that dies part way finishes these photos
            // first next time, so that none half written passes for this store's own change.
            saved.applying = round.touched.keys.sorted()
            try savePhotos(loaded)
            try saveSync(saved)
        }
        let waiting = try apply(round, from: sync, &loaded, engine: saved.engine)
        saved.applying = waiting.isEmpty ? nil : waiting
        if round.published > 0 || round.merged > 0 || photos != nil || round.announced || !round.touched.isEmpty {
            saved.position = position
            try savePhotos(loaded)
            try saveSync(saved)
        }
        var shown = round
        shown.pending += waiting.map { FolderProblem(id: $0, reason: "its image is no longer in the folder; a later sync writes it") }
        return report(saved.engine, shown)
    }

    /// The report of a sync with nothing new on either side, which writes nothing (and, with the
    /// journal where the last sync left it, reads no record); `nil` when there is something.
    private func quietReport(_ saved: SavedSync, _ folder: SyncFolder) throws -> SyncReport? {
        guard saved.engine.partlyMerged.isEmpty else { return nil }
        let glance = try folderTranslating { try folder.glance(merged: saved.engine.merged) }
        guard !glance.unmerged, glance.devices.contains(saved.engine.device) else { return nil }
        var quiet = SyncRound()
        for device in glance.devices { quiet.devices[device] = saved.engine.deviceNames[device] ?? folder.name(of: device) ?? "" }
        return report(saved.engine, quiet)
    }

    /// The engine's round, its number for a change file kept before the file is written.
    /// `images`: where in the store each image to publish is, by SHA-256: read when written.
    private func runRound(_ saved: inout SavedSync, _ folder: SyncFolder, local: [SyncChange], images: [String: (id: String, user: Bool)]) throws
        -> SyncRound
    {
        do {
            let kept = saved
            let image = { (sha256: String) throws -> [UInt8]? in try images[sha256].map { try self.imageBytes(of: $0.id, user: $0.user) } }
            return try saved.engine.sync(with: folder, local: local, image: image) { reserved in
                var state = kept
                state.engine = reserved
                state.engine.histories = [:]
                try saveSync(state)
            }
        } catch let refusal as SyncRefusal {
            switch refusal {
            case .copiedStore(let device, let file): throw LikeRepositoryError.copiedStore(device: device, file: file)
            }
        } catch let error as FolderError {
            throw LikeRepositoryError.io(action: error.action, path: error.path, code: error.code)
        }
    }

    /// Writes the photos a sync that died was writing as their merged histories give them.
    private func finishApplying(_ ids: [String], _ saved: inout SavedSync, from folder: SyncFolder) throws {
        var loaded = try loadPhotos()
        saved.engine.histories = loaded.histories
        var finishing = SyncRound()
        for id in ids { finishing.touched[id] = .some(saved.engine.state(of: id)) }
        for device in try folderTranslating({ try folder.glance(merged: [:]) }).devices { finishing.devices[device] = "" }
        let waiting = try apply(finishing, from: folder, &loaded, engine: saved.engine)
        saved.applying = waiting.isEmpty ? nil : waiting
        try savePhotos(loaded)
        try saveSync(saved)
    }

    private func folderTranslating<Value>(_ work: () throws -> Value) throws -> Value {
        do {
            return try work()
        } catch let error as FolderError {
            throw LikeRepositoryError.io(action: error.action, path: error.path, code: error.code)
        }
    }

    private func report(_ engine: DeviceSyncState, _ round: SyncRound) -> SyncReport {
        var names = engine.deviceNames.merging(round.devices) { _, new in new }
        names[engine.device] = engine.name
        let devices = names.keys.sorted().map { id in
            SyncReport.Device(id: id, name: names[id] ?? "", lastChange: engine.lastChange[id].map { Timestamp.date($0) })
        }
        return SyncReport(
            device: engine.device, published: round.published, merged: round.merged,
            pending: round.pending.map { SyncReport.Problem(id: $0.id, reason: $0.reason) },
            skipped: round.newer.map { SyncReport.Problem(id: $0.id, reason: $0.reason) }, devices: devices)
    }

    // MARK: What the store keeps

    /// What the store keeps, and whether it was made now (a store's first sync, or a new device).
    private func loadSync(newDevice: Bool) throws -> (SavedSync, isNew: Bool) {
        if !newDevice, let data = try translating({ try store.syncFile(Self.syncStateName) }) {
            do {
                return (try JSONDecoder().decode(SavedSync.self, from: data), false)
            } catch {
                throw LikeRepositoryError.damagedRecord(file: store.displayPath + "/sync/state.json", reason: "it cannot be read (\(error))")
            }
        }
        let device = DeviceID.make()
        // A new device publishes every photo the store holds, as its own.
        try translating { try store.setSyncFile(try JSONEncoder().encode(SavedPhotos()), for: Self.syncPhotosName) }
        let saved = SavedSync(engine: DeviceSyncState(device: device, name: Self.hostName()), position: nil)
        try saveSync(saved)
        return (saved, true)
    }

    private func saveSync(_ saved: SavedSync) throws {
        try translating { try store.setSyncFile(try JSONEncoder().encode(saved), for: Self.syncStateName) }
    }

    private func loadPhotos() throws -> SavedPhotos {
        guard let data = try translating({ try store.syncFile(Self.syncPhotosName) }) else { return SavedPhotos() }
        do {
            return try JSONDecoder().decode(SavedPhotos.self, from: data)
        } catch {
            throw LikeRepositoryError.damagedRecord(file: store.displayPath + "/sync/photos.json", reason: "it cannot be read (\(error))")
        }
    }

    private func savePhotos(_ photos: SavedPhotos) throws {
        try translating { try store.setSyncFile(try JSONEncoder().encode(photos), for: Self.syncPhotosName) }
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "device" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "device" : name
    }

    // MARK: This store's changes

    /// A change not stamped yet: the time the store stamped its parts with, and the change it
    /// makes once stamped.
    typealias Draft = (time: Int64, order: Int, make: (Stamp) -> SyncChange)

    /// The changes the store made since the last sync, in the order made, each stamped by the
    /// device's clock from the time the store stamped its parts with, and the images they need.
    /// The photos to look at: those the journal's lines after `position` name (their records,
    /// and the ids unliked with the times), or, without a position or where the journal was
    /// written anew, every record. With no position at all (a new device), every photo the
    /// store holds is this store's to publish.
    /// A photo in `writing` (merged, and not yet written for want of its image) is never taken
    /// for unliked here.
    private func localChanges(
        _ engine: inout DeviceSyncState, _ photos: inout SavedPhotos, since position: JournalPosition?, writing: Set<String>
    ) throws -> ([SyncChange], [String: (id: String, user: Bool)]) {
        var records: [StoredRecord]
        var candidates: [String]
        var unlikeTimes: [String: Int64]
        if let position, let changes = try translating({ try store.changes(since: position) }) {
            records = try changes.keys.sorted().compactMap { key in try translating { try store.record(forKey: key) } }
            let present = Set(records.map(\.id))
            candidates = changes.unliked.keys.filter { !present.contains($0) }
            unlikeTimes = changes.unliked
        } else {
            let all = StoreQuery(newestFirst: true, limit: nil, offset: 0, after: nil, since: nil, album: nil, color: nil, words: nil)
            records = try translating { try store.page(all) }.items.map(\.record)
            let present = Set(records.map(\.id))
            candidates = photos.published.keys.filter { !present.contains($0) }
            unlikeTimes = candidates.isEmpty ? [:] : try translating { try store.unlikeTimes() }
        }
        records.sort { $0.likedAt < $1.likedAt }
        var drafts: [Draft] = []
        var images: [String: (id: String, user: Bool)] = [:]
        for record in records {
            drafts += try changeDrafts(for: record, &photos, &images, after: drafts.count, everything: position == nil && photos.published.isEmpty)
        }
        // Unlikes: photos this device had as liked that its store no longer holds.
        let now = Timestamp.milliseconds(Date())
        for id in candidates.sorted() where photos.published[id] != nil && !writing.contains(id) {
            if engine.state(of: id) != nil {
                drafts.append((unlikeTimes[id] ?? now, drafts.count, { stamp in SyncChange(id: id, stamp: stamp, kind: .unlike) }))
            }
            photos.published[id] = nil
        }
        let ordered = drafts.sorted { ($0.time, $0.order) < ($1.time, $1.order) }
        return (ordered.map { draft in engine.make(draft.make, now: draft.time) }, images)
    }

    /// The changes of one record since the last sync: a part is this store's change when its
    /// stamp is new and its own (no device in it). A photo not published yet whose liked period
    /// the store started is published whole; one merged from another device (its period's stamp
    /// is that device's: a sync that died before keeping its state) is not this store's change.
    /// One change a time the store stamped parts with; a period's start gives every part.
    private func changeDrafts(
        for record: StoredRecord, _ photos: inout SavedPhotos, _ images: inout [String: (id: String, user: Bool)], after count: Int,
        everything: Bool
    ) throws -> [Draft] {
        let stamps = record.stamps?.values ?? Dictionary(uniqueKeysWithValues: PhotoState.parts.map { ($0, String(record.likedAt)) })
        let before = photos.published[record.id]
        let whole = before == nil && (everything || !(stamps[RecordStamps.liked] ?? "").contains("."))
        let changed = PhotoState.parts.filter { part in
            guard let stamp = stamps[part], stamp != before?[part] else { return false }
            return whole || before != nil && !stamp.contains(".")
        }
        photos.published[record.id] = stamps
        guard !changed.isEmpty else { return [] }
        let startsPeriod = before == nil || changed.contains("liked")
        var mainImage: ImageReference?
        var userImage: ImageReference??
        if startsPeriod || changed.contains("image") {
            let reference = try publishedImage(of: record.id, user: false, &images)
            photos.images[record.id] = reference.sha256
            mainImage = reference
        }
        if startsPeriod || changed.contains("userImage") {
            let reference = record.userImage == nil ? nil : try publishedImage(of: record.id, user: true, &images)
            photos.userImages[record.id] = reference?.sha256
            userImage = .some(reference)
        }
        let photo = try record.photo.map { String(decoding: try Self.compactEncoder.encode($0), as: UTF8.self) }
        let (id, likedAt, note, albums) = (record.id, record.likedAt, record.note, record.albums)
        let times = Dictionary(grouping: changed) { part in Self.milliseconds(stamps[part] ?? "") }
        return times.sorted(by: { $0.key < $1.key }).enumerated().map { index, group in
            let (time, parts) = group
            let giving = startsPeriod && time == Self.milliseconds(stamps["liked"] ?? "") ? Set(PhotoState.parts) : Set(parts)
            let kind: SyncChange.Kind = giving.contains("liked") || giving.contains("image") || giving.contains("userImage") ? .like : .edit
            return (
                time, count + index,
                { stamp in
                    SyncChange(
                        id: id, stamp: stamp, kind: kind, likedAt: giving.contains("liked") ? likedAt : nil,
                        image: giving.contains("image") ? mainImage : nil, userImage: giving.contains("userImage") ? userImage : nil,
                        note: giving.contains("note") ? .some(note) : nil, albums: giving.contains("albums") ? albums : nil,
                        photo: giving.contains("photo") ? .some(photo) : nil)
                }
            )
        }
    }

    /// One of the photo's images as a change names it, and where it is, to be read again when
    /// it is written into the folder (a first sync of a large store holds one image at a time).
    private func publishedImage(of id: String, user: Bool, _ images: inout [String: (id: String, user: Bool)]) throws -> ImageReference {
        let bytes = try imageBytes(of: id, user: user)
        let reference = ImageReference(sha256: SyncFolder.digest(bytes), bytes: bytes.count)
        images[reference.sha256] = (id, user)
        return reference
    }

    /// The store's own copy of an image, when it is the one named.
    private func storeImage(_ id: String, _ current: StoredRecord?, matching reference: ImageReference, user: Bool) throws -> [UInt8]? {
        guard current != nil, let bytes = try? imageBytes(of: id, user: user), bytes.count == reference.bytes,
            SyncFolder.digest(bytes) == reference.sha256
        else { return nil }
        return bytes
    }

    private func imageBytes(of id: String, user: Bool) throws -> [UInt8] {
        switch try translating({ try store.file(user ? .userImage : .image, of: id) })?.read {
        case .whole(let data)?: return Array(data)
        case .damaged(let reason)?:
            throw LikeRepositoryError.damagedImage(file: id, reason: reason)
        case nil:
            throw LikeRepositoryError.notLiked(id: PhotoID(stored: id))
        }
    }

    static let compactEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A stamp's milliseconds, local (`MILLIS`) or merged (`MILLIS.COUNTER.DEVICE`).
    static func milliseconds(_ stamp: String) -> Int64 {
        Int64(stamp.prefix { $0 != "." }) ?? 0
    }

    // MARK: Other devices' changes

    /// Writes each photo the round touched as the merge left it: liked anew (with its date),
    /// updated part by part, or unliked; each part with the stamp it was merged with.
    /// Returns the photos it could not write because an image they need is gone from the folder
    /// (a folder emptied since they were merged): they stay to be written by a later sync.
    private func apply(_ round: SyncRound, from folder: SyncFolder, _ photos: inout SavedPhotos, engine: DeviceSyncState) throws -> [String] {
        var waiting: [String] = []
        let sources = Array(round.devices.keys) + [engine.device]
        var restored = false
        defer { if restored { _ = try? translating { try store.sortJournalAfterRestore() } } }
        for (id, state) in round.touched.sorted(by: { $0.key < $1.key }) {
            let current = try translating { try store.item(for: id) }?.record
            guard let state else {
                if current != nil { _ = try translating { try store.unlike(id, onCommit: observers.changed) } }
                photos.published[id] = nil
                continue
            }
            var request = StoreRequest(id: id, image: nil, userImage: nil, note: nil, photo: nil, albums: [])
            request.stamps = state.stamps.mapValues(\.description)
            // Liked on two devices apart: the first like's date wins, and only a like of a photo
            // not liked gives a date, so the photo is liked again whole. (Half done, the next
            // sync finishes it: see `applying`.)
            let anew = current == nil || current?.likedAt != state.likedAt
            if anew || photos.images[id] != state.image.sha256 {
                guard let bytes = try folder.image(state.image, devices: sources) ?? storeImage(id, current, matching: state.image, user: false)
                else {
                    waiting.append(id)
                    continue
                }
                request.image = try translating { try StoreRequest.Image(Data(bytes), kind: .image) }
            }
            if let user = state.userImage, anew || photos.userImages[id] != user.sha256 {
                guard let bytes = try folder.image(user, devices: sources) ?? storeImage(id, current, matching: user, user: true) else {
                    waiting.append(id)
                    continue
                }
                request.userImage = try translating { try StoreRequest.Image(Data(bytes), kind: .userImage) }
            }
            request.note = state.note.map(StoreRequest.NoteEdit.set) ?? .clear
            request.photo = try state.photo.map { try JSONDecoder().decode(StoredPhoto.self, from: Data($0.utf8)) }
            request.addAlbums = state.albums.compactMap(Names.album)
            request.removeAlbums = (current?.albums ?? []).filter { !state.albums.contains($0) }
            if current != nil, anew {
                _ = try translating { try store.unlike(id, onCommit: observers.changed) }
                request.removeAlbums = []
                _ = try translating { try store.restore([(request, state.likedAt)], onCommit: observers.changed) }
                restored = true
            } else if current != nil {
                _ = try translating { try store.like(request, onCommit: observers.changed) }
            } else {
                _ = try translating { try store.restore([(request, state.likedAt)], onCommit: observers.changed) }
                restored = true
            }
            photos.images[id] = state.image.sha256
            photos.userImages[id] = state.userImage?.sha256
            photos.published[id] = try translating { try store.item(for: id) }?.record.stamps?.values
        }
        return waiting
    }
}
