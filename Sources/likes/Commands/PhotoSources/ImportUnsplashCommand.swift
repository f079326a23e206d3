// import-unsplash: like every photo of an Unsplash API response, downloading its images.

import LikeKit
import LikesSupport
import PhotoSources

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

struct ImportUnsplashCommand: Command {
    static let imageFactsSeconds = 2
    static let album = Option.repeatable("--album", "NAME", "Put every photo in this album too (may be given more than once).")
    static let json = Option.json("Print {\"liked\", \"updated\", \"failed\": [{\"id\", \"reason\"}]} as JSON.")
    static let spec = CommandSpec(
        name: "import-unsplash", summary: "Like every photo of an Unsplash API response, downloading its image and user image.",
        usage: "import-unsplash FILE [--album NAME]... [--json]",
        details: """
            FILE holds a photo object, an array of them, or a search response ({"results": [...]}), as
            the Unsplash API returns them. For each photo, urls.regular is downloaded as its image and
            user.profile_image.medium as its user image, and its metadata kept. A photo liked already is
            not downloaded again; its metadata is updated. A photo whose download fails is reported and
            nothing of it is stored; the others go on (then the exit status is 1).
            """,
        example: "likes import-unsplash search-photos.json",
        options: [album, json], minimumPositionals: 1, maximumPositionals: 1, positionalName: "an Unsplash JSON FILE")

    let path: String
    let albums: [AlbumName]
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws {
        path = arguments[positional: 0]
        albums = try Input.albums(arguments.allValues(Self.album))
        printsJSON = arguments.has(Self.json)
    }

    struct Failure {
        var id: String
        var reason: String
    }

    struct Summary {
        var liked: [String] = []
        var updated: [String] = []
        var failed: [Failure] = []

        var json: JSONValue {
            .object([
                ("liked", .strings(liked)), ("updated", .strings(updated)),
                ("failed", .array(failed.map { .object([("id", .string($0.id)), ("reason", .string($0.reason))]) })),
            ])
        }
    }

    func run(_ context: Context) throws {
        let photos = try readPhotos()
        var summary = Summary()
        let progress = Progress(total: photos.count, output: context.output)
        for (index, photo) in photos.enumerated() {
            progress.update(done: index)
            do {
                if try like(photo, context: context) { summary.liked.append(photo.id) } else { summary.updated.append(photo.id) }
            } catch let failure as CommandFailure {
                summary.failed.append(Failure(id: photo.id, reason: failure.message))
            } catch let error as LikeRepositoryError {
                switch error {
                case .storeBusy, .io: throw CommandFailure(error)  // the store itself failed: stop
                default: summary.failed.append(Failure(id: photo.id, reason: error.description))
                }
            }
        }
        progress.finish()

        if printsJSON {
            context.output.printJSON(summary.json)
        } else {
            context.output.print("Liked \(summary.liked.count), updated \(summary.updated.count), failed \(summary.failed.count).")
            for failure in summary.failed { context.output.print("  \(Format.oneLine(failure.id)): \(Format.oneLine(failure.reason))") }
        }
        if !summary.failed.isEmpty {
            throw CommandFailure("\(summary.failed.count) of \(photos.count) photos could not be liked; see the summary.", status: .failure)
        }
    }

    /// The photos of the response in the file.
    private func readPhotos() throws -> [UnsplashPhoto] {
        let data = try Input.readFile(path, what: "Unsplash file")
        do {
            return try UnsplashPhoto.photos(fromJSON: data)
        } catch let error as PhotoSourceError {
            throw CommandFailure(
                "\(path) is not an Unsplash API response: \(error.description) Give a photo, a list of photos or a search response.", status: .badData
            )
        }
    }

    /// Likes one photo, downloading its images; a photo liked already only gets the metadata and
    /// albums. True when it was liked now, false when updated.
    private func like(_ photo: UnsplashPhoto, context: Context) throws -> Bool {
        let id = try PhotoID(photo.id)
        if try context.repository.isLiked(id) {
            try context.repository.like(id, image: nil, photo: photo.metadata, albums: albums)
            return false
        }
        guard let imageURL = photo.imageURL else { throw CommandFailure("it has no urls.regular to download", status: .failure) }
        let image = try Download.jpeg(from: imageURL.absoluteString, what: "image", environment: context.environment)
        let userImage = try photo.userImageURL.map {
            try Download.jpeg(from: $0.absoluteString, what: "user image", environment: context.environment)
        }
        try context.repository.like(id, image: image, userImage: userImage, photo: photo.metadata, albums: albums)
        _ = try? context.repository.thumbnail(for: id)
        return true
    }
}
