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
    /// The source a request names by `source`, if the gallery has it.
    func source(named name: String?) -> (any PhotoSource)? {
        sources.first { $0.name == name }
    }

    /// A page of a source's results: `source`, `q`, `page`, and the options the source's search
    /// takes (Unsplash's `order` and `color`, Flickr's `sort`).
    func search(_ request: HTTPRequest) -> HTTPResponse {
        let query = (request.queryValue("q") ?? "").trimmedSpaces()
        guard !query.isEmpty else { return Self.text(400, "Search for what? Give q.") }
        guard let source = source(named: request.queryValue("source")) else { return Self.text(404, "There is no such photo source here.") }
        let page = max(1, Int(request.queryValue("page") ?? "") ?? 1)
        var options: [String: String] = [:]
        for option in source.searchOptions { if let value = request.queryValue(option.name), !value.isEmpty { options[option.name] = value } }
        do {
            let found = try source.search(query, options: options, page: page, perPage: 20)
            let liked = Set(try repository.likedIDs(among: found.results.compactMap { try? PhotoID($0.id) }).map(\.rawValue))
            resultImages.withLock { images in
                if images.count > 2000 { images.removeAll() }
                for result in found.results { if let url = result.smallImageURL { images[source.name + "/" + result.id] = url } }
            }
            return Self.json(
                SearchJSON(
                    page: found.page, totalPages: found.totalPages, total: found.total,
                    results: found.results.map { result in
                        SearchJSON.Result(
                            id: result.id, text: result.text, photographer: result.photographer, color: result.color,
                            image: result.smallImageURL == nil
                                ? nil : "/source-image?source=\(source.name)&id=\(Access.escapeQuery(result.id))",
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
        guard let source = source(named: request.queryValue("source")), let id = request.queryValue("id"),
            let url = resultImages.withLock({ $0[source.name + "/" + id] })
        else { return Self.text(404, "No such result was shown.") }
        let client = source.client
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
        guard let source = source(named: form.first(where: { $0.name == "source" })?.value) else {
            return Self.text(404, "There is no such photo source here.")
        }
        do {
            _ = try source.like(id, into: repository, note: nil, albums: [])
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

/// What a page needs to know of a source: its names, its notice, its search options.
struct SourceJSON: Encodable {
    struct Option: Encodable {
        var name: String
        var label: String
        var values: [String]
    }

    var name: String
    var displayName: String
    var notice: String?
    var options: [Option]

    init(_ source: any PhotoSource) {
        name = source.name
        displayName = source.displayName
        notice = source.notice
        options = source.searchOptions.map { Option(name: $0.name, label: $0.label, values: $0.values) }
    }
}
