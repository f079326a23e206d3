// What a like or an edit asks of the store: the images, checked before the lock is taken, and
// the note, metadata and albums it sets.

import JPEGCodec
import LikesSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// A like's images, checked before the store is locked, and what it changes besides: the ids,
/// names and note in it are the façade's to have checked.
package struct StoreRequest: Sendable {
    /// What a change does to the photo's note.
    package enum NoteEdit: Sendable {
        case keep
        case set(String)
        case clear
    }

    /// A JPEG to store: its bytes in memory, checked and checksummed, or a file to copy, checked
    /// (and checksummed as it is copied, so that it is read once).
    package struct Image: Sendable {
        enum Source: Sendable {
            case bytes(Data, checksum: UInt32)
            /// Copied into the store a piece at a time, never read whole into memory; the copy
            /// fails unless the file is still the version that was checked.
            case file(path: String, version: ImageFileReader.Version)
        }

        var source: Source
        var byteCount: Int
        var header: JPEGHeader
        /// The mean colour of the photo's pixels (see ``measureColor()``), when measured.
        var pixelColor: UInt32?
        /// The DC picture the colour was measured from and the photo's metadata, kept when it is
        /// the photo's thumbnail as well (a photo of 2,048 to 4,096 pixels): the store then makes
        /// the thumbnail after the like without decoding the photo again.
        var thumbnailPicture: (picture: PlanarImage, metadata: JPEGMetadata)?

        /// Measures the mean colour of the photo's pixels, from the DC coefficients of its blocks
        /// (a 1/8 decode): for a photo whose source gives none. A file is mapped, not read into
        /// memory (one over ``largestMeasuredFile`` is not measured); a JPEG kind the decoder does
        /// not read (CMYK, 12-bit) gets none.
        package mutating func measureColor() {
            switch source {
            case .bytes(let data, _):
                data.withUnsafeBytes { measure($0) }
            case .file(let path, _):
                // Mapped pages count as memory once read: a file larger than any camera's JPEG
                // (a 300 MB panorama) is left without, as a like of it costs a few megabytes.
                guard byteCount <= Self.largestMeasuredFile else { return }
                _ = Self.mapped(path: path, size: byteCount) { measure($0) }
            }
        }

        /// The colour from the bytes' DC picture, kept for the thumbnail when it is that.
        private mutating func measure(_ bytes: UnsafeRawBufferPointer) {
            guard let picture = try? JPEGDecoder.decodeDC(bytes) else { return }
            pixelColor = picture.meanColour()
            if JPEGThumbnail.isDCPicture(width: header.width, height: header.height, size: ThumbnailFiles.size) {
                thumbnailPicture = (picture, JPEGMetadata(reading: bytes))
            }
        }

        /// The largest file whose colour a like measures: five times a 24-megapixel JPEG.
        static let largestMeasuredFile = 64 << 20

        /// Calls `body` with the file at `path` mapped into memory, read-only; `nil` when it
        /// cannot be mapped.
        private static func mapped<T>(path: String, size: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
            guard size > 0 else { return nil }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            defer { _ = Platform.sysClose(descriptor) }
            guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else { return nil }
            defer { munmap(address, size) }
            return body(UnsafeRawBufferPointer(start: address, count: size))
        }

        /// The image as a record keeps it: its size as displayed, and what its file says and its
        /// pixels show.
        func stored(generation: String, checksum: UInt32) -> StoredRecord.Image {
            let size = header.displayedSize
            var image = StoredRecord.Image(
                generation: generation, bytes: byteCount, width: size.width, height: size.height, crc32: Self.text(checksum))
            image.orientation = header.exif.orientation
            image.color = pixelColor.map(Self.hex)
            image.exif = StoredRecord.StoredExif(header.exif.camera)
            return image
        }

        /// Six lower-case hex digits.
        static func hex(_ rgb: UInt32) -> String {
            let text = String(rgb & 0xFF_FFFF, radix: 16)
            return String(repeating: "0", count: 6 - text.count) + text
        }

        /// A JPEG in memory, checked as a whole file.
        ///
        /// - Throws: ``StoreError/notJPEG(image:reason:)`` naming `kind`.
        package init(_ data: Data, kind: StoreError.ImageRole) throws(StoreError) {
            source = .bytes(data, checksum: data.withUnsafeBytes { CRC32.checksum($0) })
            byteCount = data.count
            header = try PhotoCheck.header(of: data, kind: kind)
        }

        /// Checks the JPEG in the file at `path`, reading only the few bytes of each marker
        /// segment the check passes; `checking` first looks at the open file as it likes (a
        /// restore's digest reads it a piece at a time). Memory stays a few pieces, whatever the
        /// file.
        package init(file path: String, kind: StoreError.ImageRole, checking: ((ImageFileReader) throws -> Void)? = nil) throws {
            let file = try ImageFileReader(path: path)
            defer { file.close() }
            source = .file(path: path, version: file.version)
            byteCount = file.size
            try checking?(file)
            header = try PhotoCheck.header(ofFile: file.descriptor, size: file.size, path: path, kind: kind)
        }

        /// The JPEG's size in pixels, as its frame header gives it.
        package var size: (width: Int, height: Int) { (header.width, header.height) }

        /// Exif's orientation, 1–8 (1 when the file gives none).
        package var orientation: Int { header.exif.orientation }

        /// A checksum as a record keeps it: eight hex digits.
        static func text(_ checksum: UInt32) -> String {
            let text = String(checksum, radix: 16)
            return String(repeating: "0", count: 8 - text.count) + text
        }
    }

    /// The photo's id (see ``Names/id(_:)``).
    package var id: String
    package var image: Image?
    package var userImage: Image?
    package var note: NoteEdit
    package var photo: StoredPhoto?
    /// Album names in stored form (see ``Names/album(_:)``).
    package var addAlbums: [String]
    package var removeAlbums: [String] = []
    /// Albums (stored form) the photo becomes the chosen cover of; each must be one it is in
    /// after the change.
    package var chooseCovers: [String] = []
    /// Albums whose chosen cover the photo stops being.
    package var dropCovers: [String] = []
    /// For a change merged from another device: the albums whose chosen cover the photo is,
    /// replacing what the record says.
    package var setsCovers: [String]?
    /// A request a photo source owes once this like is stored (Unsplash's download count):
    /// written in the like's own commit, so that it is owed exactly when the photo is liked.
    package var owedRequest: String?
    /// What was read from the photo's image file and its pixels, for a photo liked before they
    /// were kept: replaces the record's image (the same file) and changes nothing else.
    var imageFacts: StoredRecord.Image?
    /// For a change merged from another device, by part (see ``RecordStamps``), the stamp of the
    /// change that gave it (`MILLIS.COUNTER.DEVICE`); a part changed and not named here (all of
    /// them for a change of this store's own) is stamped with the change's time.
    package var stamps: [String: String]?
    /// Parts (see ``RecordStamps``) a like of a liked photo gives again, stamped as changed even
    /// when their value is the same: a like that carries an image is a like wherever its change
    /// goes, and starts a liked period again after an unlike made before it on another device.
    var restated: [String] = []
    /// Removes the user image the photo has (a merged change that cleared it), unless the
    /// request gives one.
    package var clearsUserImage = false
    /// The metadata given replaces the photo's whole (a merged change), rather than the fields
    /// given replacing theirs; `nil` then clears it.
    package var replacesPhoto = false

    /// A like, or an update of what is given. A main image whose metadata gives no hex colour
    /// has the mean colour of its pixels measured here, before the store is locked.
    package init(id: String, image: Image?, userImage: Image?, note: String?, photo: StoredPhoto?, albums: [String]) {
        self.id = id
        var image = image
        if ColorFilter.catalogColor(photo?.color) == nil { image?.measureColor() }
        self.image = image
        self.userImage = userImage
        self.note = note.map(NoteEdit.set) ?? .keep
        self.photo = photo
        self.addAlbums = albums
    }

    /// A change to a liked photo's note, albums or covers alone.
    package init(
        id: String, note: NoteEdit = .keep, addAlbums: [String] = [], removeAlbums: [String] = [], chooseCovers: [String] = [],
        dropCovers: [String] = []
    ) {
        self.id = id
        self.note = note
        self.photo = nil
        self.addAlbums = addAlbums
        self.removeAlbums = removeAlbums
        self.chooseCovers = chooseCovers
        self.dropCovers = dropCovers
    }

    /// The note a record has after this change.
    func note(after existing: String?) -> String? {
        switch note {
        case .keep: existing
        case .set(let text): text
        case .clear: nil
        }
    }

    /// The albums a record is in after this change.
    func albums(after existing: [String]) -> [String] {
        Names.canonicalAlbums(Set(existing).union(addAlbums).subtracting(removeAlbums))
    }

    /// The albums whose chosen cover a record is after this change: only albums it is in, and an
    /// album it is put in by this change only when chosen in it (a rename carries the choice).
    func covers(after existing: StoredRecord?) -> [String] {
        let before = existing?.covers ?? []
        let albums = Set(albums(after: existing?.albums ?? []))
        let wasIn = Set(existing?.albums ?? [])
        var covers = setsCovers.map(Set.init) ?? Set(before).union(chooseCovers).subtracting(dropCovers)
        covers = covers.filter { albums.contains($0) && (wasIn.contains($0) || chooseCovers.contains($0) || setsCovers != nil) }
        return Names.canonicalAlbums(covers)
    }

    /// Whether the change stamps a cover the record keeps anew: a choice made here (the newest
    /// choice among an album's photos is its cover, so choosing the photo again makes it the
    /// newest), or, merged, a choice stamped with another time than the record's (every device
    /// must keep the time each choice was made: a photo chosen on two devices apart is chosen
    /// at the later time), even where the photo was the cover already.
    func restampsCovers(of existing: StoredRecord) -> Bool {
        let after = covers(after: existing)
        if stamps == nil { return chooseCovers.contains(where: after.contains) }
        guard let stamps, setsCovers != nil else { return false }
        return after.contains { name in
            let part = RecordStamps.cover(name)
            return stamps[part].map(StampedPart.milliseconds) != existing.stamps?[part].map(StampedPart.milliseconds)
        }
    }

    /// The metadata a record has after this change: the fields given replace theirs.
    func photo(after existing: StoredPhoto?) -> StoredPhoto? {
        if replacesPhoto { return photo }
        return switch (existing, photo) {
        case (let old?, let new?): old.merging(new)
        case (let old, let new): new ?? old
        }
    }
}

extension StoredRecord.StoredExif {
    /// What a record keeps of the camera's facts; `nil` when there are none.
    init?(_ facts: CameraFacts) {
        guard !facts.isEmpty else { return nil }
        self.init()
        make = facts.make
        model = facts.model
        lens = facts.lens
        focalLength = facts.focalLength.map(Self.text)
        fNumber = facts.fNumber.map(Self.text)
        exposureTime = facts.exposureTime
        iso = facts.iso
        takenAt = facts.takenAt
    }

    /// A number of at most two decimals as written: `6.86`, `1.8`, `50`.
    static func text(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let whole = String(hundredths / 100)
        let fraction = hundredths % 100
        if fraction == 0 { return whole }
        return whole + "." + (fraction % 10 == 0 ? String(fraction / 10) : (fraction < 10 ? "0" : "") + String(fraction))
    }
}
