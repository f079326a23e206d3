// likes-fetch: downloads one URL to stdout for `likes`, with URLSession.
//
// A separate executable, so that `likes` itself does not load FoundationNetworking and libcurl:
// that would double the start-up time of every command (measured: 7 ms → 14 ms, dynamic build).
//
// Usage: likes-fetch URL [TIMEOUT_SECONDS] [--api] [--header "Name: value"]...
// Exit 0 with the body on stdout; else 1 with one line on stderr saying what went wrong.
// With --api (a photo source's API): any HTTP answer is exit 0, and stdout starts with the
// status line `HTTP STATUS`, then `x-ratelimit-remaining: N` and `x-total: N` if the answer had them,
// then an empty line, then the body.

import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Collects one download; URLSession calls it on its delegate queue.
final class Download: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // touched only on the session's serial queue until `done` signals
    var body = Data()
    var response: HTTPURLResponse?
    var failure: String?
    let done = DispatchSemaphore(value: 0)
    let limit = 256 * 1024 * 1024

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        self.response = response as? HTTPURLResponse
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        body.append(data)
        if body.count > limit {
            failure = "the answer is larger than 256 MB"
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if failure == nil, let error { failure = Self.describe(error) }
        done.signal()
    }

    static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        switch nsError.code {
        case NSURLErrorTimedOut: return "the server did not answer in time"
        case NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost: return "the server cannot be reached"
        case NSURLErrorNetworkConnectionLost: return "the connection was lost, so the download was cut short"
        case NSURLErrorNotConnectedToInternet: return "there is no network connection"
        default:
            let text = nsError.localizedDescription.isEmpty ? "\(error)" : nsError.localizedDescription
            // libcurl's words for a body shorter than its Content-Length.
            return text.contains("transfer closed") ? "the download was cut short (\(text))" : text
        }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let url = URL(string: arguments[1]), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
    fail("usage: likes-fetch http(s)://URL [TIMEOUT_SECONDS] [--api] [--header \"Name: value\"]...")
}
let timeout = arguments.count >= 3 ? Double(arguments[2]) ?? 30 : 30
var api = false
var request = URLRequest(url: url)
var index = 3
while index < arguments.count {
    if arguments[index] == "--api" {
        api = true
    } else if arguments[index] == "--header", index + 1 < arguments.count, let colon = arguments[index + 1].firstIndex(of: ":") {
        let field = arguments[index + 1]
        request.addValue(
            String(field[field.index(after: colon)...]).trimmingCharacters(in: .whitespaces), forHTTPHeaderField: String(field[..<colon]))
        index += 1
    }
    index += 1
}

let configuration = URLSessionConfiguration.ephemeral
configuration.timeoutIntervalForRequest = timeout
configuration.timeoutIntervalForResource = timeout * 4
let download = Download()
let queue = OperationQueue()
queue.maxConcurrentOperationCount = 1
let session = URLSession(configuration: configuration, delegate: download, delegateQueue: queue)
session.dataTask(with: request).resume()  // redirects are followed by URLSession
download.done.wait()
session.invalidateAndCancel()

if let failure = download.failure { fail(failure) }
guard let response = download.response else { fail("the server sent no HTTP answer") }
if api {
    var head = "HTTP \(response.statusCode)\n"
    if let remaining = response.value(forHTTPHeaderField: "X-Ratelimit-Remaining") { head += "x-ratelimit-remaining: \(remaining)\n" }
    if let total = response.value(forHTTPHeaderField: "X-Total") { head += "x-total: \(total)\n" }
    FileHandle.standardOutput.write(Data((head + "\n").utf8) + download.body)
    exit(0)
}
guard (200...299).contains(response.statusCode) else {
    fail("the server answered HTTP \(response.statusCode) \(HTTPURLResponse.localizedString(forStatusCode: response.statusCode))")
}
if let expected = response.value(forHTTPHeaderField: "Content-Length").flatMap(Int.init), expected != download.body.count,
    response.value(forHTTPHeaderField: "Content-Encoding") == nil
{
    fail("the download was cut short: \(download.body.count) of \(expected) bytes arrived")
}
FileHandle.standardOutput.write(download.body)
exit(0)
