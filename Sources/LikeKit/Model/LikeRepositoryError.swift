// The one error type LikeKit throws; every description is a sentence a user can act on.

import LikeStore
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// An error from a ``LikeRepository`` operation.
///
/// Each case carries what went wrong, and ``description`` reads as a whole sentence that
/// says what to do about it. A failed operation leaves the store as it was before the call.
public enum LikeRepositoryError: LocalizedError, Sendable, Hashable, CustomStringConvertible {
    /// The photo id is empty, longer than 256 UTF-8 bytes, or holds a control character.
    case invalidID(String, reason: String)
    /// The data given as `image` is not a complete JPEG image.
    case notJPEG(image: ImageKind, reason: String)
    /// The photo is not liked, so there is nothing to unlike or show.
    case notLiked(id: PhotoID)
    /// Liking a photo for the first time needs its image.
    case imageRequired(id: PhotoID)
    /// Another process held the store's lock for longer than the repository waits.
    case storeBusy(directory: String, waitedSeconds: Double)
    /// A file operation in the store failed; `code` is the C library's `errno`.
    case io(action: String, path: String, code: Int32)
    /// A record file in the store cannot be read back.
    case damagedRecord(file: String, reason: String)
    /// An image file of a liked photo is not as it was liked: missing, a link or other entry
    /// where the file should be, cut short, or changed. Nothing was read from it.
    case damagedImage(file: String, reason: String)
    /// Two different ids map to one storage key: astronomically unlikely, but never silent.
    case idCollision(id: PhotoID, existing: PhotoID)
    /// An argument is out of range, such as a negative limit.
    case invalidArgument(String)
    /// The album name is empty, longer than 256 UTF-8 bytes, or holds a control character.
    case invalidAlbumName(String, reason: String)
    /// The note is blank, longer than 10,000 UTF-8 bytes, or holds a control character other
    /// than a line break or tab.
    case invalidNote(reason: String)
    /// No liked photo is in the album.
    case noSuchAlbum(AlbumName)
    /// The photo is liked but not in the album it was to be removed from.
    case notInAlbum(id: PhotoID, album: AlbumName)
    /// An export's destination cannot take the export: it holds files that are not an earlier
    /// export (which would be mixed or replaced), it is not a folder, or its parent is missing.
    case exportDestinationUnusable(path: String, reason: String)
    /// The store's index is damaged or disagrees with its record files, so that an image no
    /// record names may be the only copy of a photo whose record was lost: orphans cannot be told
    /// apart until the store is repaired. Nothing was removed.
    case storeNeedsRepair(directory: String, problem: String)
    /// A folder with an `index.json` that cannot be restored: its format is not an export's this
    /// version knows, or the index cannot be read. Nothing was stored.
    case unusableExport(path: String, reason: String)
    /// The sync folder does not exist (a drive not mounted, a typo): nothing was synced.
    case syncFolderMissing(path: String)
    /// Something other than a folder (a file) has the sync folder's name: nothing was synced.
    case syncFolderNotAFolder(path: String)
    /// The sync folder holds changes under this store's device id that the store did not make:
    /// the store is a copy of another device's (a copied folder, a restored backup). Nothing was
    /// written.
    case copiedStore(device: String, file: String)
    /// What the store keeps between syncs (its `sync/` folder) cannot be read. Nothing was synced;
    /// ``LikeRepository/repair(dryRun:)-69flr`` sets it aside, and the next sync makes the store a
    /// new device.
    case damagedSyncState(file: String, reason: String)
    /// `--forget` named a device the sync folder does not know, or this store's own. Nothing was
    /// written.
    case unknownSyncDevice(device: String, reason: String)
    /// A file of the store was written by a newer version of LikeKit (`format` is the format it
    /// names): nothing was read from it or changed, and repairing the store leaves it alone.
    case newerFormat(file: String, format: String)

    /// Which of a like's images an error is about.
    public enum ImageKind: String, Sendable, Hashable {
        /// The photo itself.
        case image
        /// The photographer's picture (``LikeRecord/userImage``).
        case userImage
    }

    /// What went wrong and what to do about it, in one or two sentences: ``errorDescription``
    /// followed by ``recoverySuggestion``.
    public var description: String {
        let (problem, suggestion) = parts
        return suggestion.map { problem + " " + $0 } ?? problem
    }

    /// What went wrong, as one sentence for an alert's title or `localizedDescription`. Names
    /// no command: an app shows it as it is, and the command line adds its own advice.
    public var errorDescription: String? { parts.problem }

    /// What the person can do about it, when there is something to do.
    public var recoverySuggestion: String? { parts.suggestion }

    private var parts: (problem: String, suggestion: String?) {
        // Exhaustive here, so that a new case must be given a group; each group lists its own.
        let group: (problem: String, suggestion: String?)?
        switch self {
        case .invalidID, .notJPEG, .imageRequired, .invalidArgument, .invalidAlbumName, .invalidNote, .notLiked, .noSuchAlbum, .notInAlbum,
            .idCollision:
            group = inputParts
        case .storeBusy, .io, .damagedRecord, .damagedImage, .exportDestinationUnusable, .storeNeedsRepair, .unusableExport, .newerFormat:
            group = storeParts
        case .syncFolderMissing, .syncFolderNotAFolder, .copiedStore, .damagedSyncState, .unknownSyncDevice:
            group = syncParts
        }
        return group ?? ("The operation failed.", nil)
    }

    /// What a request gave that cannot be used, or asked of a photo or album that is not so.
    private var inputParts: (problem: String, suggestion: String?)? {
        switch self {
        case .invalidID(let id, let reason):
            return ("Invalid photo id \(Self.quoted(id)): \(reason).", "Use a non-empty id of at most 256 UTF-8 bytes without control characters.")
        case .notJPEG(let image, let reason):
            return ("The \(image == .userImage ? "user image" : "image") is not a usable JPEG: \(reason).", "Give a complete JPEG file.")
        case .imageRequired(let id):
            return ("Photo \(Self.quoted(id.rawValue)) is not liked yet, so liking it needs its image.", "Give the JPEG to store.")
        case .invalidArgument(let message):
            return (message, nil)
        case .invalidAlbumName(let name, let reason):
            return (
                "Invalid album name \(Self.quoted(name)): \(reason).", "Use a non-empty name of at most 256 UTF-8 bytes without control characters."
            )
        case .invalidNote(let reason):
            return (
                "Invalid note: \(reason).", "Use text of at most 10,000 UTF-8 bytes without control characters other than line breaks and tabs."
            )
        case .notLiked(let id):
            return ("Photo \(Self.quoted(id.rawValue)) is not liked.", nil)
        case .noSuchAlbum(let album):
            return ("There is no album \(Self.quoted(album.rawValue)).", nil)
        case .notInAlbum(let id, let album):
            return ("Photo \(Self.quoted(id.rawValue)) is not in the album \(Self.quoted(album.rawValue)).", nil)
        case .idCollision(let id, let existing):
            return (
                "Photo \(Self.quoted(id.rawValue)) maps to the same storage key as the liked photo \(Self.quoted(existing.rawValue)).",
                "Unlike that photo first."
            )
        default:
            return nil
        }
    }

    /// What went wrong with the store, its files or an export.
    private var storeParts: (problem: String, suggestion: String?)? {
        switch self {
        case .storeBusy(let directory, let waited):
            return (
                "The store \(directory) stayed locked by another process for \(Self.seconds(waited)).", "Try again when it has finished."
            )
        case .io(let action, let path, let code):
            return ("Could not \(action) \(path): \(MessageText.systemError(code)).", "Fix the cause and try again.")
        case .damagedRecord(let file, let reason):
            return (
                "The record file \(file) is damaged (\(reason)).", "Repairing the store sets it aside, or rebuilds it from its image."
            )
        case .damagedImage(let file, let reason):
            return ("The image file \(file) is damaged: it \(reason).", "Repairing the store sets the photo aside, deleting nothing.")
        case .exportDestinationUnusable(let path, let reason):
            return ("Cannot export to \(path): \(reason); nothing was written.", "Export into a new or empty folder whose parent exists.")
        case .storeNeedsRepair(let directory, let problem):
            return (
                "The store \(directory) cannot tell orphan files from a photo's only copy: \(problem); nothing was removed.",
                "Repair the store first: it rebuilds what it can and deletes nothing."
            )
        case .newerFormat(let file, let format):
            return (
                "The store's \(file) was written by a newer version (\(format)); nothing was read from it or changed.",
                "Update to the version that wrote it: this one cannot read it, and leaves it as it is."
            )
        case .unusableExport(let path, let reason):
            return (
                "Cannot restore from \(path): \(reason); nothing was stored.",
                "Restore a folder that an export of this version wrote, or move its index.json aside to take its JPEGs as plain files."
            )
        default:
            return nil
        }
    }

    /// What went wrong in a sync.
    private var syncParts: (problem: String, suggestion: String?)? {
        switch self {
        case .syncFolderMissing(let path):
            return (
                "The sync folder \(path) does not exist; nothing was synced.", "Create it (an empty folder is a new one) or mount the drive it is on."
            )
        case .syncFolderNotAFolder(let path):
            return ("The sync folder \(path) is a file, not a folder; nothing was synced.", "Give the folder the other devices sync instead.")
        case .copiedStore(let device, let file):
            return (
                "This store is a copy of another device's: the sync folder holds \(file), a change of device \(device) that this store did not make; nothing was written.",
                "Sync it as a new device of its own: it then publishes everything it holds under that device."
            )
        case .damagedSyncState(let file, let reason):
            return (
                "What this store keeps between syncs is damaged: \(file) \(reason); nothing was synced.",
                "Repairing the store sets the sync bookkeeping aside (deleting nothing), and the next sync makes this store a new device."
            )
        case .unknownSyncDevice(let device, let reason):
            return (
                "Cannot forget device \(Self.quoted(device)): \(reason); nothing was written.",
                "A sync's report lists the devices the folder knows."
            )
        default:
            return nil
        }
    }

    static func quoted(_ text: String) -> String { MessageText.quoted(text) }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\((value * 10).rounded() / 10) s"
    }
}
