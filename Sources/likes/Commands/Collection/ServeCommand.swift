// serve: the store's favorites as web pages on 127.0.0.1, live, locked to whoever started it.

import Dispatch
import Gallery
import LikeKit
import PhotoSources

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

struct ServeCommand: Command {
    static let readsExistingStore = true
    static let port = Option.value("--port", "N", "The port on 127.0.0.1 (by default the store's own while free; 0: any free one).")
    static let newToken = Option.flag("--new-token", "Replace the store's token: addresses given before stop working.")
    static let spec = CommandSpec(
        name: "serve", summary: "Serve the favorites as web pages on 127.0.0.1 until interrupted.",
        usage: "serve [--port N] [--new-token]",
        details: """
            Prints one line, http://127.0.0.1:PORT/?token=TOKEN: open it in a browser on this machine. The \
            token is kept in the store (readable by you alone) and the port it picks is used again while free, \
            so a bookmarked address works next time; --new-token replaces both. Without it every request is refused (403), and no other host name, no \
            other machine and no other site's page can reach the store. Pages: the favorites newest first \
            by month (search, colours, a heart to unlike and undo, a selection downloaded as one .zip, put in \
            an album or unliked, JPEG files dropped on the page liked), each photo full-window with its facts, \
            note and albums, the albums; with UNSPLASH_ACCESS_KEY or FLICKR_API_KEY set, a page for each \
            source, whose hearts like a result (downloaded here). A change made by any process shows within a second. \
            Stops on Ctrl-C or SIGTERM, exit 0.
            """,
        example: "likes serve --port 8080",
        options: [port, newToken], minimumPositionals: 0, maximumPositionals: 0, positionalName: "no arguments")

    /// The port asked for; `nil`: the store's own when free (0 asks for any free port).
    let requestedPort: UInt16?
    let renewsToken: Bool

    init(_ arguments: ParsedArguments) throws {
        let number = try arguments.count(Self.port)
        if let number, number > 65535 { throw UsageError(message: "--port takes 0 to 65535; \(number) is not a port", command: "serve") }
        requestedPort = number.map { UInt16($0) }
        renewsToken = arguments.has(Self.newToken)
    }

    func run(_ context: Context) throws {
        // A store that cannot be written (a read-only copy) is served with a token for this run.
        var token: String?
        do {
            token = try context.repository.accessToken(renewing: renewsToken)
        } catch LikeRepositoryError.io(let action, let path, let code) where !renewsToken {
            let reason = String(cString: strerror(code))
            context.output.printError(
                "The store cannot keep the gallery's token (\(action) \(path): \(reason)); the address below works for this run only.")
        }
        let gallery: Gallery
        do {
            gallery = try Self.gallery(context, token: token, port: requestedPort)
        } catch .cannotListen(_, let reason) {
            throw CommandFailure(
                "Cannot serve on 127.0.0.1:\(requestedPort ?? 0): \(reason). Choose another --port, or leave it out for any free one.",
                status: .ioError)
        }
        // Stopped by SIGINT or SIGTERM, which a parent may have blocked (test runners do). The
        // handler, installed before the address is printed, only writes a byte to a pipe; a thread
        // waiting on it stops the gallery.
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        let pipe = stopPipe
        for number in [SIGINT, SIGTERM] {
            signal(number) { _ in
                var byte: UInt8 = 1
                _ = write(stopPipe.write, &byte, 1)
            }
        }
        DispatchQueue(label: "likes.serve.signals").async {
            var byte: UInt8 = 0
            while read(pipe.read, &byte, 1) < 0, errno == EINTR {}
            gallery.stop()
        }
        // Photos liked before records kept their image files' facts get them while the gallery
        // serves, a second of work at a time so that other writers get the lock between.
        let repository = context.repository
        DispatchQueue(label: "likes.serve.image-facts", qos: .utility).async {
            while let progress = try? repository.readImageFacts(within: 1), !progress.complete {}
        }
        context.output.print(gallery.address)
        // stdout holds the address alone (scripts read it); a person at a terminal is told how to stop.
        if context.output.standardErrorIsTerminal {
            context.output.printError("Serving the store on 127.0.0.1:\(gallery.port): open the address above here. Ctrl-C to stop.")
        }
        gallery.run()
    }
}

extension ServeCommand {
    /// The gallery on `port`; without one, on the store's own port (see ``keptPort(of:)``) when
    /// it is free, else on any.
    static func gallery(_ context: Context, token: String?, port: UInt16?) throws(GalleryError) -> Gallery {
        let sources = Self.sources(context.environment)
        guard let port else {
            if let token, let gallery = try? Gallery(repository: context.repository, port: keptPort(of: token), sources: sources, token: token) {
                return gallery
            }
            return try Gallery(repository: context.repository, port: 0, sources: sources, token: token)
        }
        return try Gallery(repository: context.repository, port: port, sources: sources, token: token)
    }

    /// The port a store is served on when none is asked for: one of 20000–59999 that its token
    /// picks, so that an address bookmarked once (which names the port as well as the token)
    /// keeps working while the port is free; a new token picks another.
    static func keptPort(of token: String) -> UInt16 {
        let number = token.utf8.prefix(8).reduce(UInt32(0)) { $0 &* 31 &+ UInt32($1) }
        return UInt16(20_000 + number % 40_000)
    }

    /// The photo sources whose keys are in the environment, each with its Search page.
    static func sources(_ environment: [String: String]) -> [any PhotoSource] {
        let value = { (name: String) in SourceAPI.setting(name, environment: environment) }
        var sources: [any PhotoSource] = []
        if let key = value("UNSPLASH_ACCESS_KEY") {
            sources.append(
                UnsplashSource(
                    accessKey: key, base: value("LIKES_UNSPLASH_API") ?? UnsplashAPI.defaultBase,
                    client: SourceAPI.client(environment: environment, source: "Unsplash")))
        }
        if let key = value("FLICKR_API_KEY") {
            sources.append(
                FlickrSource(
                    apiKey: key, base: value("LIKES_FLICKR_API") ?? FlickrAPI.defaultBase,
                    client: SourceAPI.client(environment: environment, source: "Flickr")))
        }
        return sources
    }
}

/// The pipe the signal handler writes to: made before the handler is installed (a global's first
/// use is not safe inside a signal handler), plain descriptors, which a handler may use.
private let stopPipe: (read: Int32, write: Int32) = {
    var ends: [Int32] = [-1, -1]
    _ = pipe(&ends)
    return (ends[0], ends[1])
}()
