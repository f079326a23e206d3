// The one error type LikeKit throws; every description is a sentence a user can act on.

/// An error from a ``LikeRepository`` operation.
///
/// Each case carries what went wrong, and ``description`` reads as a whole sentence that
/// says what to do about it. A failed operation leaves the store as it was before the call.
public enum LikeRepositoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The photo id is empty, longer than 256 UTF-8 bytes, or holds a control character.
    case invalidID(String, reason: String)
    /// The data is not a complete JPEG image.
    case notJPEG(reason: String)
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
    /// Two different ids map to one storage key: astronomically unlikely, but never silent.
    case idCollision(id: PhotoID, existing: PhotoID)
    /// An argument is out of range, such as a negative limit.
    case invalidArgument(String)

    /// A sentence that says what went wrong and what to do about it.
    public var description: String {
        switch self {
        case .invalidID(let id, let reason):
            return "Invalid photo id \(Self.quoted(id)): \(reason). Use a non-empty id of at most 256 UTF-8 bytes without control characters."
        case .notJPEG(let reason):
            return "The image is not a usable JPEG: \(reason). Give a complete JPEG file."
        case .notLiked(let id):
            return "Photo \(Self.quoted(id.rawValue)) is not liked. Check the id with `likes list`."
        case .imageRequired(let id):
            return "Photo \(Self.quoted(id.rawValue)) is not liked yet, so liking it needs its image. Give the JPEG to store."
        case .storeBusy(let directory, let waited):
            return "The store \(directory) stayed locked by another process for \(Self.seconds(waited)). Try again when it has finished."
        case .io(let action, let path, let code):
            return "Could not \(action) \(path): \(Platform.message(for: code)). The store was left as it was; fix the cause and try again."
        case .damagedRecord(let file, let reason):
            return "The record file \(file) is damaged (\(reason)). Run `likes verify` to see every problem."
        case .idCollision(let id, let existing):
            return
                "Photo \(Self.quoted(id.rawValue)) maps to the same storage key as the liked photo \(Self.quoted(existing.rawValue)). Unlike that photo first."
        case .invalidArgument(let message):
            return message
        }
    }

    static func quoted(_ text: String) -> String {
        // Control characters are escaped so that a hostile id cannot rewrite the terminal.
        var result = "\""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar == "\"" || scalar == "\\" {
                result += scalar.escaped(asASCII: false)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        let limit = 80
        if result.count > limit { result = String(result.prefix(limit)) + "…" }
        return result + "\""
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\((value * 10).rounded() / 10) s"
    }
}
