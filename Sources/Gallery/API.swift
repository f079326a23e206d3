// What the pages ask of the store: pages of photos by cursor, one photo, the albums, image files by
// id, the live changes, and the changes a page makes (unlike and its undo, note, albums, a zip).

import HTTPServer
import LikeKit

#if canImport(Darwin)
    import Darwin
    import Foundation
#else
    import FoundationEssentials
    import Glibc
#endif

extension Gallery {
    // MARK: Reading

    /// A page of favorites, newest first (`order=oldest`: oldest first, what a photo's viewer asks
    /// for the photo before it): `after` (a cursor), `limit`, `search`, `color`, `album`, `by`.
    func photos(_ request: HTTPRequest) -> HTTPResponse {
        kept(request, listPhotos)
    }

    /// The answer to `request`, kept while the store's change mark stays the same (pages of
    /// photos, the months, Select all's ids): asked again, it costs one look at the journal.
    func kept(_ request: HTTPRequest, _ answer: (HTTPRequest) -> HTTPResponse) -> HTTPResponse {
        // The mark is read before the answer: a change made meanwhile leaves an answer kept
        // under a mark that is already old, never an old answer under the new mark.
        guard let mark = repository.changeMark() else { return answer(request) }
        if let kept = pageCache.withLock({ $0.mark == mark ? $0.pages[request.target] : nil }) { return kept }
        let response = answer(request)
        if response.status == 200 { pageCache.withLock { $0.keep(response, for: request.target, at: mark) } }
        return response
    }

    private func listPhotos(_ request: HTTPRequest) -> HTTPResponse {
        return Self.answering {
            var query = try Self.listing(request)
            query.limit = min(max(Int(request.queryValue("limit") ?? "") ?? 60, 1), 200)
            if request.queryValue("order") == "oldest" { query.order = .oldestFirst }
            if let after = request.queryValue("after"), !after.isEmpty {
                guard let cursor = LikeCursor(after), cursor.orderDate == query.orderDate else {
                    return Self.text(400, "The cursor is not one this gallery gave for this order.")
                }
                query.after = cursor
            }
            let listing = try repository.list(query)
            return Self.json(PageJSON(photos: listing.records.map(PhotoJSON.init), next: listing.next?.description))
        }
    }

    /// The listing a request names: its `search`, `color` and `album`, and `by=taken` for the
    /// order by date taken (by date liked otherwise).
    static func listing(_ request: HTTPRequest) throws -> LikeQuery {
        var query = LikeQuery()
        if request.queryValue("by") == "taken" { query.orderDate = .taken }
        if let search = request.queryValue("search"), !search.trimmedSpaces().isEmpty { query.search = search }
        if let color = request.queryValue("color"), !color.isEmpty { query.color = color }
        if let album = request.queryValue("album"), !album.isEmpty { query.album = try AlbumName(album) }
        return query
    }

    /// The months of a listing, newest first, each with its count and the cursor its page starts
    /// after (none for the first): what the rail of years and months jumps with. `utcOffset`: the
    /// page's, in seconds east of UTC, so that months are the person's.
    func months(_ request: HTTPRequest) -> HTTPResponse {
        kept(request, countMonths)
    }

    private func countMonths(_ request: HTTPRequest) -> HTTPResponse {
        let offset = Int(request.queryValue("utcOffset") ?? "") ?? 0
        guard abs(offset) <= 18 * 3600 else { return Self.text(400, "The offset from UTC is at most 18 hours, in seconds.") }
        return Self.answering {
            let months = try repository.months(try Self.listing(request), utcOffset: offset)
            return Self.json(months.map { MonthJSON(year: $0.year, month: $0.month, count: $0.count, after: $0.start?.description) })
        }
    }

    /// Every id of a listing, in its order: what Select all selects.
    func ids(_ request: HTTPRequest) -> HTTPResponse {
        kept(request, listIDs)
    }

    private func listIDs(_ request: HTTPRequest) -> HTTPResponse {
        return Self.answering {
            return Self.json(["ids": try repository.listedIDs(try Self.listing(request)).map(\.rawValue)])
        }
    }

    func photo(_ request: HTTPRequest) -> HTTPResponse {
        guard let id = request.queryValue("id").flatMap({ try? PhotoID($0) }) else { return Self.text(400, "Which photo? Give its id.") }
        return Self.answering {
            guard let record = try repository.record(for: id) else { return Self.text(404, "This photo is not among the favorites.") }
            return Self.json(PhotoJSON(record))
        }
    }

    func albums() -> HTTPResponse {
        return Self.answering {
            return Self.json(try repository.albums().map(AlbumJSON.init))
        }
    }

    /// A photo's JPEG or thumbnail, by id; never a path from the request, and never a file the
    /// store does not vouch for: its bytes are read through LikeKit, without following a link
    /// and checked against the record. With `v` naming the file's current version it may be
    /// cached for good: a new image has a new name.
    func imageFile(_ request: HTTPRequest, thumbnail: Bool) -> HTTPResponse {
        guard let id = request.queryValue("id").flatMap({ try? PhotoID($0) }) else { return Self.text(400, "Which photo? Give its id.") }
        let file: PhotoFile?
        do {
            file = try repository.file(thumbnail ? .thumbnail : .image, of: id)
        } catch LikeRepositoryError.notLiked {
            return Self.text(404, "This photo is not among the favorites.")
        } catch {
            return Self.answering { throw error }
        }
        guard let file else { return Self.text(404, "This photo has no thumbnail.") }
        var response = HTTPResponse(status: 200, body: .bytes([UInt8](file.data)))
        response.headers.set("Content-Type", "image/jpeg")
        response.headers.set("Accept-Ranges", "bytes")
        let version = file.image.file.lastPathComponent
        response.headers.set("ETag", "\"\(version)\"")
        if request.queryValue("v") == version { response.headers.set("Cache-Control", "private, max-age=31536000, immutable") }
        return response
    }

    /// A photo's image at a size (`side`, the long side in pixels a page asked for): the
    /// smallest of its thumbnail, renditions and original that covers it, upright, the rendition
    /// made on first use. Versioned as the thumbnail is, so it may be cached for good.
    func rendition(_ request: HTTPRequest) -> HTTPResponse {
        guard let id = request.queryValue("id").flatMap({ try? PhotoID($0) }) else { return Self.text(400, "Which photo? Give its id.") }
        guard let side = request.queryValue("side").flatMap(Int.init), (1...65_535).contains(side) else {
            return Self.text(400, "Which size? Give the long side in pixels as side=N.")
        }
        let image: PhotoImage
        do {
            image = try repository.image(for: id, covering: side)
        } catch LikeRepositoryError.notLiked {
            return Self.text(404, "This photo is not among the favorites.")
        } catch {
            return Self.answering { throw error }
        }
        var response = HTTPResponse(status: 200, body: .bytes([UInt8](image.data)))
        response.headers.set("Content-Type", "image/jpeg")
        response.headers.set("X-Likes-Image", "\(image.kind.rawValue) \(image.width)x\(image.height)")
        if let version = request.queryValue("v"), (try? repository.record(for: id))??.image.file.lastPathComponent == version {
            response.headers.set("Cache-Control", "private, max-age=31536000, immutable")
        }
        return response
    }

    /// Server-Sent Events: one `change` event per change to the store, by any process.
    func events() -> HTTPResponse {
        let stream = HTTPEventStream()
        let key = ObjectIdentifier(stream)
        let observation = repository.observe { change in
            stream.send(event: "change", data: Self.encode(ChangeJSON(change)))
        }
        streams.withLock { $0[key] = stream }
        stream.onClose { [streams] in
            observation.cancel()
            streams.withLock { $0[key] = nil }
        }
        stream.send(event: "ready", data: "{}")
        var response = HTTPResponse(status: 200, body: .events(stream))
        response.headers.set("Content-Type", "text/event-stream; charset=utf-8")
        return response
    }

    // MARK: Changing

    /// Unlikes the photos named (`id`, one or more), each kept so that its unlike can be undone.
    /// Stops at the first that cannot be unliked; those before it stay unliked.
    func unlike(_ request: HTTPRequest) -> HTTPResponse {
        let ids = Self.formIDs(request)
        guard !ids.isEmpty else { return Self.text(400, "Which photo? Send its id.") }
        var unliked: [String] = []
        for id in ids {
            if let refused = unlikeOne(id) {
                return unliked.isEmpty ? Self.text(refused.status, refused.reason) : Self.json(UnlikedJSON(unliked: unliked, refused: refused.reason))
            }
            unliked.append(id.rawValue)
        }
        return Self.json(UnlikedJSON(unliked: unliked, refused: nil))
    }

    /// Unlikes one photo, keeping what its undo needs; `nil` when done, else the refusal.
    private func unlikeOne(_ id: PhotoID) -> (status: Int, reason: String)? {
        do {
            guard let record = try repository.record(for: id) else { return (404, "This photo is not among the favorites.") }
            // What an undo needs, read as the store vouches for it: a photo whose files are not
            // as liked is not unliked here, since its unlike could not be undone.
            guard let image = try repository.file(.image, of: id) else { return (404, "This photo is not among the favorites.") }
            let kept = UnlikedPhoto(
                likedAt: record.likedAt, image: image.data, userImage: try repository.file(.userImage, of: id)?.data, note: record.note,
                photo: record.photo, albums: record.albums, covers: record.covers)
            _ = try repository.unlike(id)
            undo.withLock { $0[id.rawValue] = kept }
            return nil
        } catch LikeRepositoryError.damagedImage(let file, let reason) {
            return (
                409, "This photo's file \(file) is damaged (it \(reason)), so an unlike here could not be undone; repair the store first."
            )
        } catch let error as LikeRepositoryError {
            return (Self.failure(error).status, error.description)
        } catch {
            return (500, "\(error)")
        }
    }

    /// Likes again a photo this gallery unliked, as it was: its date (so it comes back in its
    /// place), image, note, metadata, albums and covers. Liked again elsewhere meanwhile, it is left so.
    func undoUnlike(_ request: HTTPRequest) -> HTTPResponse {
        guard let id = Self.formID(request) else { return Self.text(400, "Which photo? Send its id.") }
        guard let kept = undo.withLock({ $0[id.rawValue] }) else { return Self.text(409, "This gallery has no unlike of that photo to undo.") }
        return Self.answering {
            _ = try repository.likeAgain(
                id, likedAt: kept.likedAt, image: kept.image, userImage: kept.userImage, note: kept.note, photo: kept.photo,
                albums: kept.albums, covers: kept.covers)
            undo.withLock { $0[id.rawValue] = nil }
            _ = try? repository.thumbnail(for: id)
            return Self.json(try repository.record(for: id).map(PhotoJSON.init))
        }
    }

    func setNote(_ request: HTTPRequest) -> HTTPResponse {
        guard let id = Self.formID(request) else { return Self.text(400, "Which photo? Send its id.") }
        let note = request.form.first { $0.name == "note" }?.value ?? ""
        return Self.answering {
            _ = try repository.setNote(note.isEmpty ? nil : note, for: id)
            guard let record = try repository.record(for: id) else { return Self.text(404, "This photo is not among the favorites.") }
            return Self.json(PhotoJSON(record))
        }
    }

    /// Puts the photos named (`id`, one or more) in the album `name` (made by the first photo
    /// put in it), or takes them out (`action=remove`). One photo: it as it is now; several: how
    /// many changed.
    func changeAlbum(_ request: HTTPRequest) -> HTTPResponse {
        let ids = Self.formIDs(request)
        guard !ids.isEmpty else { return Self.text(400, "Which photo? Send its id.") }
        let form = request.form
        return Self.answering {
            let album = try AlbumName(form.first { $0.name == "name" }?.value ?? "")
            let changes: [LikeChange]
            if form.first(where: { $0.name == "action" })?.value == "remove" {
                changes = try repository.removePhotos(ids, fromAlbum: album)
            } else {
                changes = try repository.addPhotos(ids, toAlbum: album)
            }
            guard ids.count == 1 else { return Self.json(["changed": changes.count]) }
            guard let record = try repository.record(for: ids[0]) else { return Self.text(404, "This photo is not among the favorites.") }
            return Self.json(PhotoJSON(record))
        }
    }

    /// Likes a JPEG dropped on a page: its bytes the request's body, its id the file's name
    /// (`name`) without its extension. A photo liked already is left as it is; a file that is
    /// not a JPEG is refused (415), named with what it is.
    func likeDropped(_ request: HTTPRequest) -> HTTPResponse {
        let file = request.queryValue("name") ?? ""
        let stem =
            file.split(separator: "/").last.map { name in
                name.lastIndex(of: ".").map { String(name[..<$0]) } ?? String(name)
            } ?? ""
        guard let id = try? PhotoID(stem) else {
            return Self.text(400, "A dropped file needs a name to be its id; \(file.isEmpty ? "it had none" : "“\(file)” cannot be one").")
        }
        guard !request.body.isEmpty else { return Self.text(400, "\(file) is empty.") }
        return Self.answering {
            if let record = try repository.record(for: id) {
                return Self.json(DroppedJSON(photo: PhotoJSON(record), skipped: "\(id.rawValue) is liked already."))
            }
            do {
                _ = try repository.like(id, image: Data(request.body))
            } catch LikeRepositoryError.notJPEG(_, let reason) {
                return Self.text(415, "\(file) was not liked: \(reason).")
            }
            _ = try? repository.thumbnail(for: id)
            guard let record = try repository.record(for: id) else { return Self.text(404, "This photo is not among the favorites.") }
            return Self.json(DroppedJSON(photo: PhotoJSON(record), skipped: nil))
        }
    }

    /// Renames the album `name` to `to`: its photos stay liked, each now in `to`.
    func renameAlbum(_ request: HTTPRequest) -> HTTPResponse {
        let form = request.form
        return Self.answering {
            let album = try AlbumName(form.first { $0.name == "name" }?.value ?? "")
            let to = try AlbumName(form.first { $0.name == "to" }?.value ?? "")
            let changes = try repository.renameAlbum(album, to: to)
            return Self.json(["renamed": changes.count])
        }
    }

    /// Makes the photo `id` the cover of the album `name`, or, without an id, its newest photo
    /// again; answers the album as the albums page lists it.
    func chooseCover(_ request: HTTPRequest) -> HTTPResponse {
        let form = request.form
        let given = form.first { $0.name == "id" }?.value ?? ""
        return Self.answering {
            let album = try AlbumName(form.first { $0.name == "name" }?.value ?? "")
            let id = given.isEmpty ? nil : try PhotoID(given)
            _ = try repository.setCover(id, ofAlbum: album)
            guard let summary = try repository.albums().first(where: { $0.name.sameAlbum(as: album) }) else {
                return Self.failure(LikeRepositoryError.noSuchAlbum(album))
            }
            return Self.json(AlbumJSON(summary))
        }
    }

    /// Deletes the album `name`: its photos stay liked, in no album of that name.
    func deleteAlbum(_ request: HTTPRequest) -> HTTPResponse {
        let form = request.form
        return Self.answering {
            let album = try AlbumName(form.first { $0.name == "name" }?.value ?? "")
            let changes = try repository.deleteAlbum(album)
            return Self.json(["deleted": changes.count])
        }
    }

    /// The photos checked on a page (`id` fields), as one `.zip` of their JPEGs, byte for byte,
    /// and a contact sheet.
    func download(_ request: HTTPRequest) -> HTTPResponse {
        let ids = request.form.filter { $0.name == "id" }.compactMap { try? PhotoID($0.value) }
        guard !ids.isEmpty else { return Self.text(400, "No photo was checked.") }
        var zip = ZipWriter()
        var sheet: [(file: String, record: LikeRecord)] = []
        var used = Set<String>()
        do {
            for id in ids {
                guard let record = try repository.record(for: id), !used.contains(id.rawValue),
                    let image = try repository.file(.image, of: id)
                else { continue }
                used.insert(id.rawValue)
                let number = String(sheet.count + 1)
                let name = String(repeating: "0", count: max(0, 3 - number.count)) + number + "-" + ZipWriter.safeName(id.rawValue) + ".jpg"
                try zip.add(name, Array(image.data))
                sheet.append((name, record))
            }
            guard !sheet.isEmpty else { return Self.text(404, "None of those photos is among the favorites.") }
            try zip.add("index.html", ContactSheet(photos: sheet).bytes)
        } catch let error as ZipWriter.TooLarge {
            return Self.text(413, error.message)
        } catch let error as LikeRepositoryError {
            return Self.failure(error)
        } catch {
            return Self.text(500, "\(error)")
        }
        var response = HTTPResponse(status: 200, body: .bytes(zip.finish()))
        response.headers.set("Content-Type", "application/zip")
        response.headers.set("Content-Disposition", "attachment; filename=\"likes-\(sheet.count).zip\"")
        return response
    }

    // MARK: Helpers

    static func formID(_ request: HTTPRequest) -> PhotoID? {
        request.form.first { $0.name == "id" }.flatMap { try? PhotoID($0.value) }
    }

    /// Every `id` of a form, each once, in order.
    static func formIDs(_ request: HTTPRequest) -> [PhotoID] {
        var seen = Set<String>()
        return request.form.filter { $0.name == "id" && seen.insert($0.value).inserted }.compactMap { try? PhotoID($0.value) }
    }

    /// `body`'s response, or the status of what it threw: the store's errors by their kind,
    /// anything else 500.
    static func answering(_ body: () throws -> HTTPResponse) -> HTTPResponse {
        do {
            return try body()
        } catch let error as LikeRepositoryError {
            return failure(error)
        } catch {
            return text(500, "\(error)")
        }
    }

    static func failure(_ error: LikeRepositoryError) -> HTTPResponse {
        switch error {
        case .notLiked, .noSuchAlbum, .notInAlbum: text(404, error.description)
        case .damagedImage, .damagedRecord, .storeNeedsRepair: text(409, error.description)
        case .storeBusy: text(503, error.description)
        case .invalidID, .invalidNote, .invalidAlbumName, .invalidArgument: text(400, error.description)
        default: text(500, error.description)
        }
    }

    static func json(_ value: some Encodable) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "application/json; charset=utf-8", text: encode(value))
    }

    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}

/// Pages of photos answered under one change mark of the store.
struct PageCache: Sendable {
    /// The most pages kept; past it the cache starts again.
    static let capacity = 256

    var mark: LikeChangeMark?
    var pages: [String: HTTPResponse] = [:]

    mutating func keep(_ response: HTTPResponse, for target: String, at mark: LikeChangeMark) {
        if self.mark != mark || pages.count >= Self.capacity { self = PageCache(mark: mark) }
        pages[target] = response
    }
}
