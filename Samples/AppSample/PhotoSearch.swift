// The app's source of photos: a search over the bundled sample photos, whose metadata has the
// shape of Unsplash API photo objects. It stands in for the Unsplash API, which this sample
// does not reach; a real app would send the query there and download each JPEG.

import Foundation
import LikeKit
import PhotoSources

/// A search over the photos in a folder of `NAME.jpg` + `NAME.json` (an Unsplash photo object).
struct PhotoSearch: Sendable {
    /// One search result: what a cell of the grid shows, and where its JPEG is.
    struct Result: Sendable, Identifiable {
        let id: PhotoID
        let photo: UnsplashPhoto
        let imageFile: URL

        var title: String { photo.description ?? photo.altDescription ?? id.rawValue }
        var photographer: String { photo.user?.name ?? "unknown" }
    }

    let folder: URL

    /// The photos whose description or photographer holds every word of `text` (all of them
    /// for an empty text), by id; one page of `perPage`, counting pages from 1.
    func search(_ text: String, page: Int = 1, perPage: Int = 30) throws -> [Result] {
        let words = text.lowercased().split(separator: " ")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        let results = try names.compactMap { name -> Result? in
            let json = folder.appendingPathComponent(name)
            guard let photo = try UnsplashPhoto.photos(fromJSON: Data(contentsOf: json)).first else { return nil }
            let haystack = [photo.description, photo.altDescription, photo.user?.name].compactMap { $0 }.joined(separator: " ").lowercased()
            guard words.allSatisfy({ haystack.contains($0) }) else { return nil }
            return Result(id: try PhotoID(photo.id), photo: photo, imageFile: json.deletingPathExtension().appendingPathExtension("jpg"))
        }
        return Array(results.dropFirst((page - 1) * perPage).prefix(perPage))
    }

    /// The photo's JPEG, as a download would give it (here after a short pause, like a network).
    func download(_ result: Result) async throws -> Data {
        try await Task.sleep(for: .milliseconds(20))
        return try Data(contentsOf: result.imageFile)
    }
}
