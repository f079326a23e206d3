// Who may use the gallery: the person who started it, holding its token, from a page it served.
// Every request passes here before anything else is done.

import HTTPServer
import LikeKit
import LikesSupport

/// The gallery's rules of access, as the README's "The gallery" describes them.
///
/// - The `Host` must be `127.0.0.1:PORT` or `localhost:PORT`: a page elsewhere that a DNS
///   rebinding points at 127.0.0.1 sends its own name, and is refused.
/// - Every request carries the token: in the query (`token=`), which a page request exchanges for
///   a cookie (`HttpOnly; SameSite=Strict`) and a redirect that drops it from the address; then in
///   that cookie, or `Authorization: Bearer`.
/// - Only `POST` changes anything, and never with an `Origin` other than the gallery's own or a
///   `Sec-Fetch-Site` of `cross-site`.
struct Access: Sendable {
    let token: String
    let port: UInt16

    /// The cookie's name, by port: cookies are kept per host, not per port, so two galleries on
    /// one machine would otherwise overwrite each other's.
    var cookieName: String { "likes-\(port)" }

    enum Verdict {
        case allowed
        /// The token came in the query of a page: set the cookie and go to `location` without it.
        case exchange(location: String)
        case refused(status: Int, reason: String)
    }

    func judge(_ request: HTTPRequest) -> Verdict {
        guard let host = request.headers["Host"], host == "127.0.0.1:\(port)" || host == "localhost:\(port)" else {
            return .refused(status: 403, reason: "This gallery answers only to http://127.0.0.1:\(port)/.")
        }
        // The token first: a request without it learns nothing, not even which paths exist.
        let verdict = tokenVerdict(request)
        guard case .allowed = verdict else { return verdict }
        if request.method != "GET", request.method != "HEAD" {
            if let origin = request.headers["Origin"], origin != "http://127.0.0.1:\(port)", origin != "http://localhost:\(port)" {
                return .refused(status: 403, reason: "Changes are taken only from the gallery's own pages.")
            }
            if request.headers["Sec-Fetch-Site"] == "cross-site" {
                return .refused(status: 403, reason: "Changes are taken only from the gallery's own pages.")
            }
        }
        return .allowed
    }

    /// The token's part of the verdict: allowed, exchanged for the cookie, or refused.
    private func tokenVerdict(_ request: HTTPRequest) -> Verdict {
        if let given = request.queryValue("token") {
            guard Self.same(given, token) else { return .refused(status: 403, reason: "The token is wrong. Open the address `likes serve` printed.") }
            if request.method == "GET", !request.path.hasPrefix("/api/") {
                let rest = request.query.filter { $0.name != "token" }
                return .exchange(location: request.path + (rest.isEmpty ? "" : "?" + Self.query(rest)))
            }
            return .allowed
        }
        if let authorization = request.headers["Authorization"], authorization.hasPrefix("Bearer ") {
            return Self.same(String(authorization.dropFirst(7)), token)
                ? .allowed : .refused(status: 403, reason: "The token is wrong. Open the address `likes serve` printed.")
        }
        for cookie in request.headers.values("Cookie").flatMap({ $0.split(separator: ";") }) {
            let pair = cookie.split(separator: "=", maxSplits: 1).map { $0.trimmedSpaces() }
            if pair.count == 2, pair[0] == cookieName, Self.same(pair[1], token) { return .allowed }
        }
        return .refused(status: 403, reason: "This gallery needs its token. Open the address `likes serve` printed.")
    }

    /// The `Set-Cookie` value that carries the token.
    var cookie: String { "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict" }

    /// Compares in time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// Fields as a query, escaped.
    static func query(_ fields: [(name: String, value: String)]) -> String {
        fields.map { escapeQuery($0.name) + "=" + escapeQuery($0.value) }.joined(separator: "&")
    }

    static func escapeQuery(_ text: String) -> String {
        PercentEscaping.uriComponent.escape(text)
    }
}

extension StringProtocol {
    func trimmedSpaces() -> String {
        var slice = Substring(self)
        while slice.first == " " || slice.first == "\t" { slice = slice.dropFirst() }
        while slice.last == " " || slice.last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
