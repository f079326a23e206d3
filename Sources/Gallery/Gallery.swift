// The gallery of `likes serve`: the store's favorites as web pages on 127.0.0.1, live, and locked
// to the person who started it. Routes requests; the pages are in Pages.swift, the API in API.swift.

import Dispatch
import HTTPServer
import LikeKit
import LikesSupport
import PhotoSources

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

/// Why a gallery could not start.
public enum GalleryError: Error, Sendable, Hashable {
    /// The port could not be listened on (taken, or not allowed); `reason` is the system's.
    case cannotListen(port: UInt16, reason: String)
}

/// A store's favorites served as web pages, as the README's "The gallery" describes them.
///
/// ```swift
/// let gallery = try Gallery(repository: repository, port: 0)
/// print(gallery.address)  // http://127.0.0.1:PORT/?token=…
/// gallery.run()
/// ```
public final class Gallery: Sendable {
    let repository: LikeRepository
    let access: Access
    private let server: HTTPServer
    /// The gallery, for the server's handler; emptied by ``stop()`` (the two refer to each other).
    private let handlerTarget: Locked<Gallery?>
    /// Photos unliked from a page, kept so that pressing the heart again brings them back.
    let undo = Locked(UndoShelf())
    /// The open event streams, for the heartbeat.
    let streams = Locked([ObjectIdentifier: HTTPEventStream]())
    /// Pages of photos answered, by request target, while the store's change mark stays the
    /// same: a page asked again (every open gallery asks the first page on each load) costs one
    /// look at the journal instead of a listing.
    let pageCache = Locked(PageCache())
    /// The photo sources whose keys are set: each has a Search page.
    let sources: [any PhotoSource]
    /// The small images of search results shown, by `source/id`: the pages get them from here
    /// (the content security policy lets a page load images from the gallery alone).
    let resultImages = Locked([String: String]())

    /// Listens on 127.0.0.1:`port` (0: any free port); `sources`, the photo sources to search;
    /// `token`, the secret every request must carry (the store's, ``LikeKit/LikeRepository/accessToken(renewing:)``;
    /// `nil`: a new one for this gallery alone).
    ///
    /// - Throws: ``GalleryError/cannotListen(port:reason:)`` when the port cannot be had.
    public init(repository: LikeRepository, port: UInt16, sources: [any PhotoSource] = [], token: String? = nil) throws(GalleryError) {
        self.repository = repository
        self.sources = sources
        let target = Locked<Gallery?>(nil)
        handlerTarget = target
        // A few seconds for a request to arrive and for an idle connection to stay: a client that
        // stalls or leaves a connection open holds one of the server's slots no longer.
        var timeouts = HTTPServer.Timeouts()
        timeouts.request = 4
        timeouts.idle = 5
        // A photo dropped on a page comes as one request: a camera's JPEG is rarely past 30 MB.
        var limits = HTTPLimits()
        limits.bodyBytes = Self.largestUpload
        do {
            server = try HTTPServer(port: port, limits: limits, timeouts: timeouts) { request in
                guard let gallery = target.withLock({ $0 }) else { return HTTPResponse(status: 503) }
                return gallery.respond(request)
            }
        } catch {
            throw .cannotListen(port: port, reason: error.description)
        }
        access = Access(token: token ?? LikeRepository.makeAccessToken(), port: server.port)
        target.withLock { $0 = self }
    }

    /// The largest photo a page may send to be liked, in bytes.
    static let largestUpload = 48 << 20

    /// The address to open: `http://127.0.0.1:PORT/?token=TOKEN`.
    public var address: String { "http://127.0.0.1:\(access.port)/?token=\(access.token)" }

    /// The port it listens on, 127.0.0.1 only.
    public var port: UInt16 { access.port }

    /// Serves until ``stop()``.
    public func run() {
        let heartbeat = DispatchSource.makeTimerSource()
        heartbeat.schedule(deadline: .now() + 15, repeating: 15)
        heartbeat.setEventHandler { [streams] in
            for stream in streams.withLock({ Array($0.values) }) { stream.sendHeartbeat() }
        }
        heartbeat.resume()
        server.run()
        heartbeat.cancel()
        handlerTarget.withLock { $0 = nil }
    }

    /// Stops serving; ``run()`` returns soon after.
    public func stop() {
        server.stop()
    }

    // MARK: Routing

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        switch access.judge(request) {
        case .refused(let status, let reason):
            response = Self.text(status, reason)
        case .exchange(let location):
            response = HTTPResponse(status: 303)
            response.headers.set("Location", location)
            response.headers.set("Set-Cookie", access.cookie)
        case .allowed:
            response = route(request)
        }
        Self.secure(&response)
        return response
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        guard let methods = Self.routes[request.path] else { return Self.text(404, "There is no such page here.") }
        let method = request.method == "HEAD" ? "GET" : request.method
        guard let handler = methods[method] else {
            let allowed = methods.keys.contains("GET") ? ["GET", "HEAD"] : methods.keys.sorted()
            var response = Self.text(
                405, allowed.contains("POST") ? "Changes are made by POST only." : "Nothing is changed here; use GET.")
            response.headers.set("Allow", allowed.joined(separator: ", "))
            return response
        }
        return handler(self)(request)
    }

    /// What answers a request: the gallery's method for it.
    typealias Handler = @Sendable (Gallery) -> (HTTPRequest) -> HTTPResponse

    /// Every route the gallery serves, by path and then method: the one place they are written.
    /// `GET` answers `HEAD` too; a known path asked with another method answers 405 and `Allow`.
    static let routes: [String: [String: Handler]] = {
        let page: (Pages.Page) -> [String: Handler] = { kind in ["GET": { _ in { _ in Pages.page(kind) } }] }
        let asset: ([UInt8], String) -> [String: Handler] = { bytes, type in ["GET": { _ in { _ in Pages.asset(bytes, type: type) } }] }
        return [
            "/": page(.favorites),
            "/index.html": page(.favorites),
            "/photo": page(.photo),
            "/albums": page(.albums),
            "/search": page(.search),
            "/static/gallery.css": asset(Pages.css, "text/css; charset=utf-8"),
            "/static/gallery.js": asset(Pages.script, "text/javascript; charset=utf-8"),
            "/favicon.svg": asset(Pages.icon, "image/svg+xml"),
            "/favicon.ico": asset(Pages.icon, "image/svg+xml"),
            "/api/sources": ["GET": { gallery in { _ in json(gallery.sources.map(SourceJSON.init)) } }],
            "/api/search": ["GET": { $0.search }],
            "/source-image": ["GET": { $0.sourceImage }],
            "/api/source-like": ["POST": { $0.likeFromSource }],
            "/api/photos": ["GET": { $0.photos }],
            "/api/photo": ["GET": { $0.photo }],
            "/api/albums": ["GET": { gallery in { _ in gallery.albums() } }],
            "/api/months": ["GET": { $0.months }],
            "/api/ids": ["GET": { $0.ids }],
            "/image": ["GET": { gallery in { gallery.imageFile($0, thumbnail: false) } }],
            "/thumbnail": ["GET": { gallery in { gallery.imageFile($0, thumbnail: true) } }],
            "/rendition": ["GET": { $0.rendition }],
            "/events": ["GET": { gallery in { _ in gallery.events() } }],
            "/api/unlike": ["POST": { $0.unlike }],
            "/api/undo": ["POST": { $0.undoUnlike }],
            "/api/note": ["POST": { $0.setNote }],
            "/api/album": ["POST": { $0.changeAlbum }],
            "/api/album/rename": ["POST": { $0.renameAlbum }],
            "/api/album/delete": ["POST": { $0.deleteAlbum }],
            "/api/album/cover": ["POST": { $0.chooseCover }],
            "/api/like": ["POST": { $0.likeDropped }],
            "/download": ["POST": { $0.download }],
        ]
    }()

    /// The headers every response carries: a strict content security policy (our own scripts,
    /// styles and images only), no sniffing, no referrer, no framing.
    static func secure(_ response: inout HTTPResponse) {
        response.headers.set(
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; "
                + "base-uri 'none'; frame-ancestors 'none'")
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set("Referrer-Policy", "same-origin")
        response.headers.set("X-Frame-Options", "DENY")
        if response.headers["Cache-Control"] == nil { response.headers.set("Cache-Control", "no-store") }
    }

    static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", text: text + "\n")
    }
}

/// The photos unliked from pages, newest last: the last 50, so that a long session of unliking
/// does not keep every image in memory.
struct UndoShelf {
    static let capacity = 50
    private var order: [String] = []
    private var photos: [String: UnlikedPhoto] = [:]

    subscript(id: String) -> UnlikedPhoto? {
        get { photos[id] }
        set {
            order.removeAll { $0 == id }
            photos[id] = newValue
            guard newValue != nil else { return }
            order.append(id)
            if order.count > Self.capacity { photos[order.removeFirst()] = nil }
        }
    }
}

/// A photo unliked from a page: what a like needs to bring it back.
struct UnlikedPhoto: Sendable {
    var likedAt: Date
    var image: Data
    var userImage: Data?
    var note: String?
    var photo: PhotoMetadata?
    var albums: [AlbumName]
    /// The albums whose chosen cover it was: an undo makes it their cover again.
    var covers: [AlbumName] = []
}
