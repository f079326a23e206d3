// The Gallery target through its public interface, as `likes serve` uses it: a gallery on a port
// of its own over a store in a temporary folder, asked over real HTTP on 127.0.0.1. Whether the
// pages behave in a browser is the browser suite's (Tests/Tools/gallery_browser.py).

import Foundation
import Gallery
import LikeKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One HTTP/1.1 exchange over a socket of its own, the connection closed after it.
struct Answer {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: Any? { try? JSONSerialization.jsonObject(with: Data(body)) }
}

/// A gallery running on a thread of its own over the folder's store, stopped by `stop()`.
final class RunningGallery: Sendable {
    let gallery: Gallery
    let repository: LikeRepository
    let token = "0123456789abcdef0123456789abcdef"

    init(_ folder: TemporaryFolder) throws {
        repository = LikeRepository(directory: folder.store, durability: .relaxed)
        gallery = try Gallery(repository: repository, port: 0, token: token)
        let gallery = gallery
        Thread.detachNewThread { gallery.run() }
    }

    func stop() { gallery.stop() }

    /// Sends one request and reads the whole answer; `host` as a browser on the gallery's own
    /// address sends it unless given.
    func ask(_ method: String, _ target: String, headers: [String: String] = [:], form: [(String, String)] = []) throws -> Answer {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = gallery.port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0, "no gallery listens on \(gallery.port)")
        let body = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        var head = "\(method) \(target) HTTP/1.1\r\nConnection: close\r\n"
        var all = ["Host": "127.0.0.1:\(gallery.port)"].merging(headers) { $1 }
        if !form.isEmpty {
            all["Content-Type"] = "application/x-www-form-urlencoded"
            all["Content-Length"] = String(body.utf8.count)
        }
        for (name, value) in all.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        let request = Array((head + "\r\n" + body).utf8)
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            try #require(count > 0)
            sent += count
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[..<count]
        }
        let end = try #require(received.indices.first { received[$0...].starts(with: Array("\r\n\r\n".utf8)) }, "no head in the answer")
        let lines = String(decoding: received[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Answer(status: status, headers: headers, body: Array(received[(end + 4)...]))
    }

    /// As the gallery's own page asks: with its token and from its own origin.
    func api(_ method: String, _ target: String, form: [(String, String)] = []) throws -> Answer {
        try ask(method, target, headers: ["Authorization": "Bearer \(token)", "Origin": "http://127.0.0.1:\(gallery.port)"], form: form)
    }
}

@Suite(.ownLane) struct GalleryServingTests {
    let folder = TemporaryFolder()

    func likeThree(_ repository: LikeRepository) throws {
        for (index, name) in ["rocket", "coffee", "chelsea"].enumerated() {
            try repository.like(PhotoID(name), image: SamplePhotos.data(name + ".jpg"), note: index == 1 ? "with milk" : nil)
        }
    }

    @Test func onlyItsOwnAddressWithItsTokenGetsIn() throws {
        let served = try RunningGallery(folder)
        defer { served.stop() }
        #expect(try served.ask("GET", "/").status == 403, "no token")
        #expect(try served.ask("GET", "/?token=wrong").status == 403)
        #expect(try served.ask("GET", "/?token=\(served.token)", headers: ["Host": "example.com"]).status == 403, "another host")

        // The token in the address is exchanged for a cookie, and the address without it.
        let exchanged = try served.ask("GET", "/?token=\(served.token)&by=taken")
        #expect(exchanged.status == 303 && exchanged.header("Location") == "/?by=taken")
        let cookie = try #require(exchanged.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let page = try served.ask("GET", "/", headers: ["Cookie": cookie])
        #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(page.header("Content-Security-Policy")?.contains("default-src 'none'") == true)

        // A change sent from another site's page is refused, and changes nothing.
        try likeThree(served.repository)
        let foreign = try served.ask(
            "POST", "/api/unlike", headers: ["Cookie": cookie, "Origin": "https://elsewhere.example"], form: [("id", "rocket")])
        #expect(foreign.status == 403)
        #expect(try served.repository.isLiked(PhotoID("rocket")))
    }

    @Test func pagesOfPhotosAnUnlikeAndItsUndoAreTheStoresOwn() throws {
        let served = try RunningGallery(folder)
        defer { served.stop() }
        try likeThree(served.repository)
        let first = try served.api("GET", "/api/photos?limit=2")
        let page = try #require(first.json as? [String: Any])
        let ids = (page["photos"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(ids == ["chelsea", "coffee"])
        let next = try #require(page["next"] as? String)
        let rest = try #require(try served.api("GET", "/api/photos?limit=2&after=\(next)").json as? [String: Any])
        #expect((rest["photos"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["rocket"])
        #expect(rest["next"] == nil || rest["next"] is NSNull, "the last page has no next")
        #expect(try served.api("GET", "/api/photos?after=nonsense").status == 400)

        let before = try #require(try served.repository.record(for: PhotoID("coffee")))
        #expect(try served.api("POST", "/api/unlike", form: [("id", "coffee")]).status == 200)
        #expect(try !served.repository.isLiked(PhotoID("coffee")))
        #expect(try served.api("POST", "/api/undo", form: [("id", "coffee")]).status == 200)
        let after = try #require(try served.repository.record(for: PhotoID("coffee")))
        #expect(after.likedAt == before.likedAt && after.note == "with milk")
        #expect(try served.repository.file(.image, of: PhotoID("coffee"))?.data == SamplePhotos.data("coffee.jpg"))
        #expect(try served.api("POST", "/api/undo", form: [("id", "coffee")]).status == 409, "an undo is undone once")
    }

    @Test func aDownloadIsAZipOfThePhotosCheckedByteForByte() throws {
        let served = try RunningGallery(folder)
        defer { served.stop() }
        try likeThree(served.repository)
        let answer = try served.api("POST", "/download", form: [("id", "coffee"), ("id", "rocket"), ("id", "coffee")])
        #expect(answer.status == 200 && answer.header("Content-Type") == "application/zip")
        // The archive's entries, read from their local headers (stored, not compressed).
        var entries: [String: [UInt8]] = [:]
        var offset = 0
        let bytes = answer.body
        func number(_ at: Int, _ width: Int) -> Int { (0..<width).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        while offset + 30 <= bytes.count, number(offset, 4) == 0x0403_4B50 {
            let (size, nameLength, extraLength) = (number(offset + 18, 4), number(offset + 26, 2), number(offset + 28, 2))
            let name = String(decoding: bytes[(offset + 30)..<(offset + 30 + nameLength)], as: UTF8.self)
            let start = offset + 30 + nameLength + extraLength
            entries[name] = Array(bytes[start..<(start + size)])
            offset = start + size
        }
        #expect(entries.keys.sorted() == ["001-coffee.jpg", "002-rocket.jpg", "index.html"], "each photo once, in the order checked")
        #expect(entries["001-coffee.jpg"] == Array(SamplePhotos.data("coffee.jpg")))
        #expect(entries["002-rocket.jpg"] == Array(SamplePhotos.data("rocket.jpg")))
        #expect(String(decoding: entries["index.html"] ?? [], as: UTF8.self).contains("with milk"), "the contact sheet has the note")
        #expect(try served.api("POST", "/download", form: [("id", "nobody")]).status == 404)
    }
}
