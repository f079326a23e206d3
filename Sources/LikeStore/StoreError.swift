// The one error type the store throws: what went wrong with its files, in values the façade
// words for the user (StoreError). Nothing here is a sentence yet.

/// Why a store operation failed; the store is left as it was.
package enum StoreError: Error, Sendable, Hashable {
    /// Which of a photo's images a problem is about.
    package enum ImageRole: String, Sendable, Hashable {
        case image
        case userImage
    }

    /// A system call failed: `action` is what was being done ("read the record"), `code` the
    /// `errno`.
    case io(action: String, path: String, code: Int32)
    /// Another process held the store's lock for all of `waitedSeconds`.
    case busy(directory: String, waitedSeconds: Double)
    /// A record file that cannot be decoded, and why.
    case damagedRecord(file: String, reason: String)
    /// An image file whose bytes are not the ones its record names, or that is no file.
    case damagedImage(file: String, reason: String)
    /// Data given as an image that is not a complete JPEG.
    case notJPEG(image: ImageRole, reason: String)
    /// The photo is not liked.
    case notLiked(id: String)
    /// A first like without an image.
    case imageRequired(id: String)
    /// Two ids that map to one storage key.
    case idCollision(id: String, existing: String)
    /// An operation that deletes refused, since the store cannot tell orphans from a photo's only
    /// copy until it is repaired.
    case needsRepair(directory: String, problem: String)
    /// An export's destination that cannot be written as asked.
    case destinationUnusable(path: String, reason: String)
    /// A file of what the store keeps between syncs (sync/) that cannot be read.
    case damagedSyncState(file: String, reason: String)
    /// A file of the store written by a newer version (`format`: what it names itself): neither
    /// read nor changed, and never taken for damage.
    case newerFormat(file: String, format: String)
    /// The sync folder given does not exist, or is no folder.
    case syncFolderMissing(path: String, isFile: Bool)
    /// The sync folder holds change files under this store's device id that it did not write:
    /// the store is a copy of another device's.
    case copiedStore(device: String, file: String)
    /// A device to forget that is this store's own, or that the folder does not know.
    case unknownSyncDevice(device: String, reason: String)
}
