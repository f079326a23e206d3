// What a photo's camera wrote in Exif, as a record shows it, and where a record's colour came
// from: the store's StoredExif and pixel colour, made public.

import JPEGCodec
import LikeStore
import LikesSupport

/// What the camera wrote in a photo's Exif: each `nil` when the file does not say.
///
/// The facts JPEGCodec reads (its `CameraFacts`), as a record shows them. Encodes as
/// `{"make", "model", "lens", "focalLength", "fNumber", "exposureTime", "iso", "takenAt"}`: the
/// focal length in millimetres, the exposure time in seconds as photographers write it
/// (`"1/250"`), `takenAt` ISO 8601 with the offset when the camera gave one.
public typealias CameraDetails = CameraFacts

extension CameraFacts {
    /// The facts a record file keeps as text.
    init(_ stored: StoredRecord.StoredExif) {
        self.init(
            make: stored.make, model: stored.model, lens: stored.lens, focalLength: stored.focalLength.flatMap(Double.init),
            fNumber: stored.fNumber.flatMap(Double.init), exposureTime: stored.exposureTime, iso: stored.iso, takenAt: stored.takenAt)
    }

    /// Every member, those without a value as `null`.
    package var json: JSONValue {
        func number(_ value: Double?) -> JSONValue {
            guard let value else { return .null }
            return value == value.rounded() ? .int(Int(value)) : .double(value)
        }
        return .object([
            ("make", .string(make)), ("model", .string(model)), ("lens", .string(lens)), ("focalLength", number(focalLength)),
            ("fNumber", number(fNumber)), ("exposureTime", .string(exposureTime)), ("iso", iso.map { .int($0) } ?? .null),
            ("takenAt", .string(takenAt)),
        ])
    }
}

/// Where a record's ``LikeRecord/takenAt`` comes from.
public enum TakenSource: String, Sendable, Hashable, Codable {
    /// The camera's date in the photo's Exif (DateTimeOriginal, with OffsetTimeOriginal where the
    /// camera wrote one; a date without an offset is read as UTC).
    case exif
    /// The source's own date (``PhotoMetadata/createdAt``: Unsplash's `created_at`, Flickr's
    /// `datetaken`).
    case source
    /// Neither: the time the photo was liked.
    case liked
}

/// Where a record's ``LikeRecord/color`` comes from.
public enum ColorSource: String, Sendable, Hashable, Codable {
    /// The photo's source gave it (``PhotoMetadata/color``).
    case source
    /// The mean of the photo's pixels, measured when it was liked.
    case pixels
}
