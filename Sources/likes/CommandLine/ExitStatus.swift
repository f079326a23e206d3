// The exit statuses of the contract, and the one-line failure every command ends with.

import LikeKit

/// Exit statuses, from sysexits(3) where one fits.
enum ExitStatus: Int32 {
    case success = 0
    /// The operation could not be done: not found, some items skipped, problems found, damage.
    case failure = 1
    /// Done, from input that is damaged: what could be read was used, and a warning says so (as
    /// djpeg's exit status 2).
    case damagedInput = 2
    case usage = 64
    case badData = 65
    case noInput = 66
    case ioError = 74
    case busy = 75
    /// A setting is missing: an API key not in the environment.
    case configuration = 78
}

/// A failure that ends a command: one line for stderr, and its exit status.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var status: ExitStatus
    /// Whether the person has read it already (a summary on the same terminal said so): then
    /// only the exit status tells.
    var alreadyShown = false

    var description: String { message }

    init(_ message: String, status: ExitStatus) {
        self.message = message
        self.status = status
    }

    /// The library's sentence, and the command line's own advice after it: which command helps.
    /// `leavesStoreAsItWas`: the command makes one change, which an I/O error undoes whole.
    init(_ error: LikeRepositoryError, leavesStoreAsItWas: Bool = false) {
        message = error.description
        switch error {
        case .notLiked: message += " Check the id with `likes list`."
        case .damagedRecord, .damagedImage: message += " Run `likes repair` (it deletes nothing)."
        case .storeNeedsRepair: message += " Run `likes repair` (it deletes nothing), then purge again."
        case .noSuchAlbum: message += " See the albums with `likes albums`."
        case .notInAlbum: message += " See the album with `likes list --album NAME`."
        case .copiedStore: message += " Run `likes sync DIR --new-device`."
        case .damagedSyncState: message += " Run `likes repair`."
        case .unknownSyncDevice: message += " See them with `likes sync DIR --json`."
        case .newerFormat: message += " Update likes."
        case .io where leavesStoreAsItWas: message += " The store was left as it was."
        default: break
        }
        switch error {
        case .invalidID, .notJPEG, .invalidAlbumName, .invalidNote, .unusableExport: status = .badData
        case .notLiked, .damagedRecord, .damagedImage, .idCollision, .noSuchAlbum, .notInAlbum, .exportDestinationUnusable, .storeNeedsRepair,
            .copiedStore, .unknownSyncDevice, .damagedSyncState, .newerFormat:
            status = .failure
        case .syncFolderMissing, .syncFolderNotAFolder: status = .noInput
        case .imageRequired, .invalidArgument: status = .usage
        case .storeBusy: status = .busy
        case .io: status = .ioError
        }
    }
}
