// Owns the names of a store's files: where each lives, which names are ours, and the generation
// tokens that make every write's names new. Called by every storage type that names a file.

/// The files of a store:
///
/// ```
/// likes.lock                         flock between processes; never deleted
/// likes.journal                      the index and change log (see JournalLine)
/// likes.recent, likes.recent.1       the records of the latest changes, for observers (see RecentRecords)
/// likes.newest                       where each like and each photo's newest line are (see NewestLines)
/// likes.taken                        every photo's place in the order by date taken (see TakenOrder)
/// records/KEY.json                   one record per liked photo: the truth
/// records/KEY~GEN.tmp                a record being written; an orphan if left behind
/// images/KEY~GEN.jpg                 the main image of generation GEN
/// images/KEY~GEN.user.jpg            the user image of generation GEN
/// damaged/STAMP/…                    what a repair set aside, under its path in the store
/// owed/KEY~GEN                       a request a photo source owes for a like (see Store+Owed)
/// sources/NAME.json                  a photo source's note of where an import stopped
/// access-token                       the secret pages served from the store ask for (mode 0600)
/// ```
///
/// KEY is ``PhotoID/storageKey``; GEN is a fresh random token for every write, so no write ever
/// touches a file that a committed record names.
enum StoreLayout {
    static let recordsDirectory = "records"
    static let imagesDirectory = "images"
    static let journalFileName = "likes.journal"
    static let journalTemporaryFileName = "likes.journal.new"
    /// Where a repair sets aside what cannot stay, one folder per repair; purge and verify leave
    /// it alone.
    static let damagedDirectory = "damaged"
    static let bookkeepingFiles: Set<String> = [
        FileLock.fileName, journalFileName, RecentRecords.fileName, RecentRecords.previousFileName, NewestLines.fileName, TakenOrder.fileName,
        imageFactsFileName,
        accessTokenFileName, Journal.batchMarkName,
    ]

    static func recordFileName(_ key: String) -> String { key + ".json" }
    static func temporaryRecordFileName(_ key: String, _ generation: String) -> String { key + "~" + generation + ".tmp" }
    static func imageFileName(_ key: String, _ generation: String, user: Bool) -> String {
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
enum Generation {
    static let length = 12

    static func make() -> String {
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
