// Between the store's values and the public ones: its errors in LikeRepositoryError's words, its
// records, changes and reports in the façade's types, with each file's place under the store's
// folder. The one place the façade translates; LikeStore never sees a public type.

import LikeStore
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension LikeRepositoryError {
    /// The store's error, worded for the user.
    init(_ error: StoreError) {
        switch error {
        case .io(let action, let path, let code): self = .io(action: action, path: path, code: code)
        case .busy(let directory, let waited): self = .storeBusy(directory: directory, waitedSeconds: waited)
        case .damagedRecord(let file, let reason): self = .damagedRecord(file: file, reason: reason)
        case .damagedImage(let file, let reason): self = .damagedImage(file: file, reason: reason)
        case .notJPEG(let image, let reason): self = .notJPEG(image: image == .userImage ? .userImage : .image, reason: reason)
        case .notLiked(let id): self = .notLiked(id: PhotoID(stored: id))
        case .imageRequired(let id): self = .imageRequired(id: PhotoID(stored: id))
        case .idCollision(let id, let existing): self = .idCollision(id: PhotoID(stored: id), existing: PhotoID(stored: existing))
        case .needsRepair(let directory, let problem): self = .storeNeedsRepair(directory: directory, problem: problem)
        case .destinationUnusable(let path, let reason): self = .exportDestinationUnusable(path: path, reason: reason)
        case .damagedSyncState(let file, let reason): self = .damagedSyncState(file: file, reason: reason)
        case .newerFormat(let file, let format): self = .newerFormat(file: file, format: format)
        case .syncFolderMissing(let path, let isFile): self = isFile ? .syncFolderNotAFolder(path: path) : .syncFolderMissing(path: path)
        case .copiedStore(let device, let file): self = .copiedStore(device: device, file: file)
        case .unknownSyncDevice(let device, let reason): self = .unknownSyncDevice(device: device, reason: reason)
        }
    }

    /// Runs `work` on the store, what it throws as the store says it in the façade's words.
    static func translating<Value>(_ work: () throws -> Value) throws -> Value {
        do {
            return try work()
        } catch let error as StoreError {
            throw LikeRepositoryError(error)
        }
    }
}

extension LikeRepositoryError.ImageKind {
    /// The kind as the store names it.
    var role: StoreError.ImageRole { self == .userImage ? .userImage : .image }
}

extension PhotoID {
    /// An id the store kept: validated when it was liked, and again when its record was read.
    init(stored rawValue: String) {
        self.rawValue = rawValue
    }
}

extension AlbumName {
    /// An album name the store kept, in its stored form.
    init(stored rawValue: String) {
        self.rawValue = rawValue
    }
}

extension LikeRepository {
    /// Runs `work` on the store, what it throws in the façade's words.
    func translating<Value>(_ work: () throws -> Value) throws -> Value {
        try LikeRepositoryError.translating(work)
    }

    /// A change as the store reported it, for this store.
    func publicChange(_ change: StoredChange) -> LikeChange {
        Self.publicChange(change, in: store.path, ownDevice: observers.ownDevice)
    }

    /// A record as stored, with its thumbnail when one was made.
    func publicRecord(_ stored: StoredRecord, thumbnailBytes: Int? = nil) -> LikeRecord {
        Self.publicRecord(stored, thumbnailBytes: thumbnailBytes, in: store.path)
    }

    func publicRecord(_ item: StoredItem) -> LikeRecord {
        publicRecord(item.record, thumbnailBytes: item.thumbnailBytes)
    }

    /// The thumbnail of `stored` as a record shows it.
    func thumbnailImage(_ stored: StoredRecord, bytes: Int) -> StoredImage {
        Self.thumbnailImage(stored, bytes: bytes, in: store.path)
    }

    /// A change as the store reported it, for the store whose directory's absolute path is
    /// `directory`; `ownDevice` asked for the store's device id when the change is its own.
    static func publicChange(_ change: StoredChange, in directory: String, ownDevice: () -> String?) -> LikeChange {
        LikeChange(
            kind: LikeChange.Kind(change.kind), id: change.id.map(PhotoID.init(stored:)), date: Timestamp.date(change.at),
            record: change.record.map { publicRecord($0, thumbnailBytes: nil, in: directory) }, fields: Set(change.fields.map(LikeChange.Field.init)),
            files: change.files, device: change.kind == .purged ? nil : change.device ?? ownDevice(), stored: change.record)
    }

    /// A record as stored, with its images' places in the store whose directory's absolute path
    /// is `base` (a string: `URL.path` took a twentieth of a `list`, asked for each record).
    static func publicRecord(_ stored: StoredRecord, thumbnailBytes: Int?, in base: String) -> LikeRecord {
        func image(_ info: StoredRecord.Image, user: Bool) -> StoredImage {
            var image = file(stored.imagePath(user: user) ?? "", in: base, bytes: info.bytes, width: info.width, height: info.height)
            image.orientation = info.orientation ?? 1
            return image
        }
        var record = LikeRecord(
            id: PhotoID(stored: stored.id), likedAt: Timestamp.date(stored.likedAt), image: image(stored.image, user: false),
            userImage: stored.userImage.map { image($0, user: true) },
            thumbnail: thumbnailBytes.map { thumbnailImage(stored, bytes: $0, in: base) },
            note: stored.note, photo: stored.photo.map(PhotoMetadata.init), albums: stored.albums.map(AlbumName.init(stored:)))
        record.covers = stored.covers.map(AlbumName.init(stored:))
        record.exif = stored.image.exif.map(CameraDetails.init)
        let taken = stored.taken
        record.takenAt = Timestamp.date(taken.at)
        record.takenSource = TakenSource(rawValue: taken.source.rawValue) ?? .liked
        if let source = stored.photo?.color, let digits = StoredRecord.catalogColor(source) {
            (record.color, record.colorSource) = ("#" + digits.uppercased(), .source)
        } else if let digits = stored.image.color {
            (record.color, record.colorSource) = ("#" + digits.uppercased(), .pixels)
        }
        return record
    }

    static func thumbnailImage(_ stored: StoredRecord, bytes: Int, in base: String) -> StoredImage {
        let size = stored.thumbnailSize
        return file(stored.thumbnailPath, in: base, bytes: bytes, width: size.width, height: size.height)
    }

    /// A file of the store as a record shows it: `relative` is its path inside the store, whose
    /// directory's absolute path is `base`.
    private static func file(_ relative: String, in base: String, bytes: Int, width: Int, height: Int) -> StoredImage {
        let path = base.hasSuffix("/") ? base + relative : base + "/" + relative
        return StoredImage(path: path, fileName: relative, byteCount: bytes, width: width, height: height)
    }
}

extension FlushStrategy {
    /// The store's flush method under its public name.
    init(_ method: FlushMethod) {
        self = FlushStrategy(rawValue: method.rawValue) ?? .eachFile
    }

    /// The strategy as the store names it.
    package var method: FlushMethod { FlushMethod(rawValue: rawValue) ?? .eachFile }
}

extension LikeChange.Kind {
    init(_ kind: StoredChange.Kind) {
        switch kind {
        case .liked: self = .liked
        case .updated: self = .updated
        case .unliked: self = .unliked
        case .purged: self = .purged
        case .unchanged: self = .unchanged
        }
    }
}

extension LikeChange.Field {
    init(_ field: RecordField) {
        switch field {
        case .image: self = .image
        case .userImage: self = .userImage
        case .note: self = .note
        case .albums: self = .albums
        case .photo: self = .photo
        }
    }
}

extension SyncReport {
    /// A sync's report in the façade's types.
    init(_ report: StoreSyncReport) {
        self.init(
            device: report.device, published: report.published, merged: report.merged,
            pending: report.pending.map { Problem(id: $0.id, reason: $0.reason) },
            skipped: report.skipped.map { Problem(id: $0.id, reason: $0.reason) },
            devices: report.devices.map { Device(id: $0.id, name: $0.name, lastChange: $0.lastChange.map(Timestamp.date), forgotten: $0.forgotten) },
            released: report.released, compacted: report.compacted)
    }
}
