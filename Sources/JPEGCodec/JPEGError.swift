// The one error type of the codec: what was wrong with the bytes, in a sentence a user can act on.

/// Why a JPEG could not be decoded or scaled.
///
/// The decoder reads files from anywhere, so every way a file can be wrong ends here rather than
/// in a crash: bytes that are no JPEG, JPEG kinds the codec does not decode, and damage.
public enum JPEGError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not a JPEG file (no start-of-image marker, or no frame header).
    case notJPEG(reason: String)
    /// A JPEG of a kind the codec does not decode: CMYK or Adobe YCCK, 12-bit samples, lossless,
    /// hierarchical or arithmetic-coded frames, two components.
    case unsupported(reason: String)
    /// A JPEG whose headers are damaged or inconsistent (a table missing, a length out of range).
    case damaged(reason: String)
    /// A frame header claiming more pixels than the file's data could hold, or more than the
    /// decoder's limit.
    case tooLarge(reason: String)

    /// The reason as a sentence.
    public var description: String {
        switch self {
        case .notJPEG(let reason): "Not a JPEG file: \(reason)."
        case .unsupported(let reason): "This kind of JPEG cannot be scaled: \(reason)."
        case .damaged(let reason): "The JPEG file is damaged: \(reason)."
        case .tooLarge(let reason): "The JPEG file is too large to decode: \(reason)."
        }
    }
}
