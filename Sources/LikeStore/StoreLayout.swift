// Owns the names of a store's files: where each lives, which names are ours, and the generation
// tokens that make every write's names new. Called by every storage type that names a file.

/// The files of a store (``topLevelNames`` is the list in code; `StoreFilesListTests` holds this
/// one, docs/design.md's and the DocC article *Design*'s to it):
///
/// ```
/// likes.lock                         flock between processes; never deleted
/// likes.journal                      the index and change log (see JournalLine)
/// likes.recent, likes.recent.1       the records of the latest changes, for observers (see RecentRecords)
/// likes.newest                       where each like and each photo's newest line are (see NewestLines)
/// likes.taken                        every photo's place in the order by date taken (see TakenOrder)
/// likes.batch                        while a batch of likes commits, where its lines begin (see Journal)
/// records/KEY.json                   one record per liked photo: the truth
/// records/KEY~GEN.tmp                a record being written; an orphan if left behind
/// images/KEY~GEN.jpg                 the main image of generation GEN
/// images/KEY~GEN.user.jpg            the user image of generation GEN
/// thumbnails/KEY~GEN.jpg             the thumbnail of images/KEY~GEN.jpg (see ThumbnailFiles)
/// renditions/KEY~GEN~SIDE.jpg        a rendition of long side SIDE, and renditions/budget (see RenditionFiles)
/// image-facts                        how far facts are read from the images of older photos
/// damaged/STAMP/…                    what a repair set aside, under its path in the store
/// owed/KEY~GEN                       a request a photo source owes for a like (see Store+Owed)
/// sources/NAME.json                  a photo source's note of where an import stopped
/// sync/…                             the store's side of a sync folder (see Store+SyncFiles)
/// access-token                       the secret pages served from the store ask for (mode 0600)
/// ```
///
/// KEY is ``PhotoID/storageKey``; GEN is a fresh random token for every write, so no write ever
/// touches a file that a committed record names.
package enum StoreLayout {
    package static let recordsDirectory = "records"
    static let imagesDirectory = "images"
    package static let journalFileName = "likes.journal"
    static let journalTemporaryFileName = "likes.journal.new"
    /// Where a repair sets aside what cannot stay, one folder per repair; purge and verify leave
    /// it alone.
    static let damagedDirectory = "damaged"
    /// Every name a store keeps at its top, and whether it is a folder: the one list. Repair sorts
    /// the top by it (anything else of another kind is set aside), and purge and verify pass over
    /// its files as the store's own.
    package static let topLevelNames: [String: Bool] = [
        FileLock.fileName: false, journalFileName: false, RecentRecords.fileName: false, RecentRecords.previousFileName: false,
        NewestLines.fileName: false, TakenOrder.fileName: false, Journal.batchMarkName: false, imageFactsFileName: false,
        accessTokenFileName: false, recordsDirectory: true, imagesDirectory: true, thumbnailsDirectory: true, renditionsDirectory: true,
        damagedDirectory: true, owedDirectory: true, sourcesDirectory: true, syncDirectory: true,
    ]

    /// The files of ``topLevelNames``.
    package static let bookkeepingFiles = Set(topLevelNames.filter { !$0.value }.keys)

    package static func recordFileName(_ key: String) -> String { key + ".json" }
    static func temporaryRecordFileName(_ key: String, _ generation: String) -> String { key + "~" + generation + ".tmp" }
    package static func imageFileName(_ key: String, _ generation: String, user: Bool) -> String {
        key + "~" + generation + (user ? ".user.jpg" : ".jpg")
    }

    /// The key of a record file name, if it is one.
    static func key(ofRecordFile name: String) -> String? {
        guard name.hasSuffix(".json") else { return nil }
        let key = String(name.dropLast(5))
        return StorageKey.isWellFormed(key[...]) ? key : nil
    }

    /// The key of an image file name of ours, if it is one.
    static func key(ofImageFile name: String) -> String? {
        guard let tilde = name.lastIndex(of: "~") else { return nil }
        let key = name[..<tilde]
        return StorageKey.isWellFormed(key) ? String(key) : nil
    }
}

/// The random tokens that make every write's file names new.
package enum Generation {
    package static let length = 12

    package static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() & 0xFFFF_FFFF_FFFF
        let text = String(value, radix: 16)
        return String(repeating: "0", count: length - text.count) + text
    }

    static func isValid(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isValid($0) }
    }

    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count == length && bytes.allSatisfy(StorageKey.isLowerHex)
    }
}
