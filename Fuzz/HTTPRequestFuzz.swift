// libFuzzer harness: the HTTP request parser must answer any bytes, within its bounds, without
// crashing; what it accepts must hold together (a method of token characters, a target that is a
// path, no more than it was given consumed), and a path's segments are never `.`, `..` or hold a
// slash, a backslash or a control character. Built by Fuzz/run.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var limits = HTTPLimits()
    limits.headerBytes = 2048
    limits.bodyBytes = 1024
    switch RequestParser.parse(UnsafeBufferPointer(start: data, count: size), limits: limits) {
    case .incomplete:
        break
    case .refused(let error):
        precondition((400...599).contains(error.status))
    case .request(let request, let consumed):
        precondition(consumed <= size && consumed > 0)
        precondition(!request.method.isEmpty && request.method.utf8.allSatisfy(RequestParser.isTokenByte))
        precondition(request.target.hasPrefix("/") && request.body.count <= limits.bodyBytes)
        for segment in request.pathSegments ?? [] {
            precondition(segment != "." && segment != ".." && !segment.isEmpty)
            precondition(!segment.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F })
        }
        _ = request.query
        _ = request.form
        _ = request.keepsAlive
        _ = ByteRange.parse(request.headers["Range"], length: 1000)
    }
    return 0
}
