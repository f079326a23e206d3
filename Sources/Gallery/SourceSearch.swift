// The gallery's Search pages: a photo source searched on the server, its results' small images
// passed through, and a like from a result made here, download and all.

import HTTPServer
import LikeKit
import PhotoSources

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension Gallery {
    /// A page of a source's results: `source`, `q`, `page`; Unsplash's `order` and `color`,
    /// Flickr's `sort`.
    func search(_ request: HTTPRequest) -> HTTPResponse {
        let source = request.queryValue("source") ?? ""
        let query = (request.queryValue("q") ?? "").trimmedSpaces()
        guard !query.isEmpty else { return Self.text(400, "Search for what? Give q.") }
        let page = max(1, Int(request.queryValue("page") ?? "") ?? 1)
        do {
            let found: SourcePage
            switch source {
            case "unsplash":
                guard let unsplash = sources.unsplash else {
                    return Self.text(404, "Unsplash is not set up: start likes serve with UNSPLASH_ACCESS_KEY.")
                }
                let order = UnsplashAPI.Order(rawValue: request.queryValue("order") ?? "") ?? .relevant
                let color = request.queryValue("color").flatMap { UnsplashAPI.colors.contains($0) ? $0 : nil }
                found = try unsplash.search(query, order: order, color: color, page: page, perPage: 20)
            case "flickr":
                guard let flickr = sources.flickr else { return Self.text(404, "Flickr is not set up: start likes serve with FLICKR_API_KEY.") }
                let sort = request.queryValue("sort").flatMap { FlickrAPI.sorts.contains($0) ? $0 : nil } ?? "relevance"
                found = try flickr.search(query, sort: sort, page: page, perPage: 20)
            default:
                return Self.text(404, "There is no such photo source here.")
            }
            let liked = Set(try repository.likedIDs(among: found.results.compactMap { try? PhotoID($0.id) }).map(\.rawValue))
            resultImages.withLock { images in
                if images.count > 2000 { images.removeAll() }
                for result in found.results { if let url = result.smallImageURL { images[source + "/" + result.id] = url } }
            }
            return Self.json(
                SearchJSON(
                    page: found.page, totalPages: found.totalPages, total: found.total,
                    results: found.results.map { result in
                        SearchJSON.Result(
                            id: result.id, text: result.text, photographer: result.photographer, color: result.color,
                            image: result.smallImageURL == nil
                                ? nil : "/source-image?source=\(source)&id=\(Access.escapeQuery(result.id))",
                            liked: liked.contains(result.id))
                    }))
        } catch let error as PhotoSourceError {
            return Self.text(error.kind == .rateLimited ? 503 : 502, error.description)
        } catch let error as LikeRepositoryError {
            return Self.failure(error)
        } catch {
            return Self.text(502, "\(error)")
        }
    }

    /// A search result's small image, fetched from its source for the page.
    func sourceImage(_ request: HTTPRequest) -> HTTPResponse {
        let source = request.queryValue("source") ?? ""
        guard let id = request.queryValue("id"), let url = resultImages.withLock({ $0[source + "/" + id] }),
            let client = source == "unsplash" ? sources.unsplash?.client : source == "flickr" ? sources.flickr?.client : nil
        else { return Self.text(404, "No such result was shown.") }
        do {
            var response = HTTPResponse(status: 200, body: .bytes(Array(try client.download(url, "image"))))
            response.headers.set("Content-Type", "image/jpeg")
            response.headers.set("Cache-Control", "private, max-age=3600")
            return response
        } catch {
            return Self.text(502, "The source's image could not be had: \(error)")
        }
    }

    /// Likes a result (`source`, `id`): the download happens here; the like then shows in every
    /// open Favorites page by its event.
    func likeFromSource(_ request: HTTPRequest) -> HTTPResponse {
        let form = request.form
        guard let id = form.first(where: { $0.name == "id" }).flatMap({ try? PhotoID($0.value) }) else {
            return Self.text(400, "Which photo? Send its id.")
        }
        do {
            switch form.first(where: { $0.name == "source" })?.value {
            case "unsplash"?:
                guard let unsplash = sources.unsplash else { return Self.text(404, "Unsplash is not set up.") }
                _ = try unsplash.like(id, into: repository)
            case "flickr"?:
                guard let flickr = sources.flickr else { return Self.text(404, "Flickr is not set up.") }
                _ = try flickr.like(id, into: repository)
            default:
                return Self.text(404, "There is no such photo source here.")
            }
            _ = try? repository.thumbnail(for: id)
            guard let record = try repository.record(for: id) else { return Self.text(500, "The like did not stay.") }
            return Self.json(PhotoJSON(record))
        } catch let error as PhotoSourceError {
            return Self.text(error.kind == .notFound ? 404 : 502, error.description + " Nothing was stored.")
        } catch let error as LikeRepositoryError {
            return Self.failure(error)
        } catch {
            return Self.text(502, "\(error) Nothing was stored.")
        }
    }
}

struct SearchJSON: Encodable {
    struct Result: Encodable {
        var id: String
        var text: String
        var photographer: String?
        var color: String?
        /// The small image's address here.
        var image: String?
        var liked: Bool
    }

    var page: Int
    var totalPages: Int
    var total: Int
    var results: [Result]
}
