// `likes thumbnail`: a small baseline JPEG made from any JPEG file by the project's own codec,
// the store left alone.

import JPEGCodec
import LikeKit
import LikesSupport

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

struct ThumbnailCommand: Command {
    static let output = Option.value("--output", "OUT", "Where to write the thumbnail (replaced if it exists).")
    static let size = Option.value("--size", "N", "The long side in pixels, 8 to 4096 (512 by default; never more than the photo's).")
    static let json = Option.json("Print {\"file\", \"bytes\", \"width\", \"height\", \"damage\"} as JSON (damage: null, or what is wrong).")
    static let spec = CommandSpec(
        name: "thumbnail", summary: "Make a thumbnail of a JPEG file.",
        usage: "thumbnail FILE --output OUT [--size N] [--json]",
        details: """
            Decodes FILE at the smallest scale the DCT offers that keeps its long side at least N pixels \
            (a 12-megapixel photo asked for 320 at 1/8), shrinks it to N by averaging, and writes a baseline \
            JPEG with the photo's aspect ratio. A photo smaller than N is not enlarged. Baseline and progressive, \
            8-bit, grayscale and YCbCr JPEGs are read; CMYK, 12-bit, lossless and arithmetic-coded ones are not. \
            A damaged file that decodes in part (cut short, corrupt data, restart markers missing) gives a \
            thumbnail of what could be read, a warning naming the damage, and exit status 2, as djpeg does.
            """,
        example: "likes thumbnail photo.jpg --output photo-small.jpg --size 320",
        options: [output, size, json], minimumPositionals: 1, maximumPositionals: 1, positionalName: "FILE")

    let file: String
    let destination: String
    let longSide: Int
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        file = arguments[positional: 0]
        guard let destination = arguments.value(Self.output), !destination.isEmpty else {
            throw UsageError(message: "thumbnail needs --output OUT, the file to write", command: "thumbnail")
        }
        self.destination = destination
        let size = try arguments.count(Self.size) ?? JPEGThumbnail.defaultLongSide
        guard (8...4096).contains(size) else {
            throw UsageError(message: "--size takes a long side of 8 to 4096 pixels; \(size) is not one", command: "thumbnail")
        }
        longSide = size
        printsJSON = arguments.has(Self.json)
    }

    func run(_ context: Context) throws {
        let photo = try Input.mapFile(file, what: "photo")
        let thumbnail: JPEGThumbnail
        do {
            thumbnail = try photo.withUnsafeBytes { bytes throws(JPEGError) in try JPEGThumbnail.make(fromJPEG: bytes, longSide: longSide) }
        } catch {
            throw CommandFailure("\(file): \(error) Give a baseline or progressive JPEG.", status: .badData)
        }
        do {
            try Data(thumbnail.jpeg).write(to: URL(fileURLWithPath: destination), options: .atomic)
        } catch {
            throw CommandFailure("The thumbnail cannot be written to \(destination). Check that its folder exists and is writable.", status: .failure)
        }
        if printsJSON {
            context.output.printJSON(
                .object([
                    ("file", .string(destination)), ("bytes", .int(thumbnail.jpeg.count)), ("width", .int(thumbnail.width)),
                    ("height", .int(thumbnail.height)), ("damage", thumbnail.damage.map(JSONValue.string) ?? .null),
                ]))
        } else {
            context.output.print("Wrote \(destination): \(thumbnail.width)×\(thumbnail.height), \(Format.size(thumbnail.jpeg.count)).")
        }
        if let damage = thumbnail.damage {
            throw CommandFailure(
                "warning: \(file) is damaged: \(damage). The thumbnail shows what could be read.", status: .damagedInput)
        }
    }
}
