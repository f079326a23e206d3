// swift-tools-version: 6.0
import PackageDescription

// LikeKit's privacy manifest, for apps on Apple platforms: bundled only where Apple's toolchain
// builds, so that the static Linux `likes` gains no bundle (Foundation's resource code).
#if os(macOS)
    let likeKitResources: [Resource] = [.copy("PrivacyInfo.xcprivacy")]
    let likeKitExcluded: [String] = []
#else
    let likeKitResources: [Resource] = []
    let likeKitExcluded = ["PrivacyInfo.xcprivacy"]
#endif

let package = Package(
    name: "likes",
    // NSLock-based locking (not Synchronization.Mutex) keeps iOS 15 apps in reach. No tvOS: the
    // system may delete any file a tvOS app keeps outside iCloud, so a store there could lose likes.
    platforms: [.macOS(.v12), .iOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "LikeKit", targets: ["LikeKit"]),
        .library(name: "JPEGCodec", targets: ["JPEGCodec"]),
        .library(name: "PhotoSources", targets: ["PhotoSources"]),
        .executable(name: "likes", targets: ["likes"]),
        .executable(name: "likes-fetch", targets: ["likes-fetch"]),
    ],
    dependencies: [],
    targets: [
        // What every target shares: the one lock type, JSON values, URI and name escaping, text and
        // paths without Foundation's internationalization, CRC-32 and SHA-256, the flushes and the
        // one durable whole-file write (store, exports, sync folder), the names of stamped parts.
        .target(name: "LikesSupport", dependencies: ["LinuxFileSystemCalls", "CRC32Folding", "SHA256Rounds"]),
        // The store: every byte of it (records, images, thumbnails, renditions, journal, locks,
        // repair, purge, export staging, and sync/: what it keeps between syncs, in LikeSync's
        // types) and nothing above it. Not a product: its API is `package`, for LikeKit.
        .target(name: "LikeStore", dependencies: ["LikesSupport", "LikeSync", "LinuxFileSystemCalls", "JPEGCodec"]),
        // One collection on several devices: the merge of stamped changes and the sync folder
        // another program carries between devices, as it leaves it. It knows no store.
        .target(name: "LikeSync", dependencies: ["LikesSupport"]),
        // The public façade apps use: validated ids and names, the repository's operations in
        // public types, observers and async, observable state for SwiftUI; it asks LikeStore and
        // touches no file of the store (but a temporary store's folder, made and removed whole).
        .target(
            name: "LikeKit", dependencies: ["LikesSupport", "LikeStore", "LikeSync", "JPEGCodec"], exclude: likeKitExcluded,
            resources: likeKitResources),
        // A JPEG decoder that scales in the DCT domain and a baseline encoder, for thumbnails: the
        // standard library only, no file I/O.
        .target(name: "JPEGCodec"),
        // fstatfs, syncfs and renameat2, which the Glibc module leaves out, called directly (a
        // fully static `likes` cannot look them up by name).
        .target(name: "LinuxFileSystemCalls"),
        // An HTTP/1.1 server on 127.0.0.1 for `likes serve`: sockets, bounded parsing, keep-alive,
        // ranges and event streams; it knows nothing of photos.
        .target(name: "HTTPServer", dependencies: ["LikesSupport"]),
        // The pages of `likes serve` over LikeKit and HTTPServer: routes, the rules of access,
        // the API the pages call, the zip of a selection.
        .target(
            name: "Gallery", dependencies: ["LikesSupport", "LikeKit", "HTTPServer", "PhotoSources"],
            resources: [
                .embedInCode("Resources/page.html"), .embedInCode("Resources/favorites.html"), .embedInCode("Resources/photo.html"),
                .embedInCode("Resources/albums.html"), .embedInCode("Resources/search.html"), .embedInCode("Resources/gallery.js"),
                .embedInCode("Resources/gallery.css"), .embedInCode("Resources/favicon.svg"),
            ]),
        // Unsplash's and Flickr's APIs: requests built and answers read, for the command line and
        // for apps on LikeKit; sending them is the caller's.
        .target(name: "PhotoSources", dependencies: ["LikesSupport", "LikeKit"]),
        // The CRC-32 every liked image is checked with, by carry-less multiplication where the
        // processor has it (x86-64); LikesSupport's own tables elsewhere.
        .target(name: "CRC32Folding"),
        // SHA-256's rounds on the processor's SHA extensions (x86-64), for the digests an export
        // writes and a restore checks and a sync folder's image names; LikesSupport's own rounds
        // elsewhere.
        .target(name: "SHA256Rounds"),
        // LIKES_TEST_SEAMS: the power-cut tests' switch (LIKES_TEST_FLUSH), in debug builds only.
        // Linker/hot-functions.order is for the linker of the installed build (README, Install), not a
        // source file.
        .executableTarget(
            name: "likes", dependencies: ["LikesSupport", "LikeKit", "JPEGCodec", "Gallery", "PhotoSources"],
            exclude: ["Linker/hot-functions.order"], swiftSettings: [.define("LIKES_TEST_SEAMS", .when(configuration: .debug))]),
        // Downloads for `likes like --url` and `import-unsplash`: kept out of `likes` so that it
        // starts without FoundationNetworking.
        .executableTarget(name: "likes-fetch"),
        // The in-process halves of the benchmarks (Benchmarks/run.sh); built by CI, run by hand.
        .executableTarget(name: "likes-bench", dependencies: ["LikeKit", "JPEGCodec"]),
        // A small photo app's view models over LikeKit, run through one session; CI runs it.
        .executableTarget(name: "likes-app-sample", dependencies: ["LikeKit", "PhotoSources"], path: "Samples/AppSample"),
        // What the test targets share: a folder of its own for each test, the patience against a
        // hang, and the lane that runs synchronous tests off the cooperative pool.
        .target(name: "TestSupport", path: "Tests/Support"),
        .testTarget(name: "LikesSupportTests", dependencies: ["LikesSupport", "TestSupport"]),
        .testTarget(name: "LikeStoreTests", dependencies: ["LikeStore", "LikesSupport", "JPEGCodec", "TestSupport"]),
        .testTarget(name: "LikeKitTests", dependencies: ["LikesSupport", "LikeStore", "LikeKit", "JPEGCodec", "TestSupport"]),
        // LikeKit as an app uses it: its public API alone (no package access, so LikeKit's
        // `package` declarations are out of its reach, as they are out of an app's), on the main
        // actor, with the `likes` executable as another process.
        .testTarget(name: "LikeKitAppTests", dependencies: ["LikeKit", "likes"], packageAccess: false),
        .testTarget(name: "JPEGCodecTests", dependencies: ["JPEGCodec", "TestSupport"]),
        .testTarget(name: "LikeSyncTests", dependencies: ["LikeSync", "LikesSupport", "TestSupport"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"]),
        .testTarget(name: "PhotoSourcesTests", dependencies: ["PhotoSources", "LikeKit", "TestSupport"]),
        // The gallery through its public interface, over HTTP on 127.0.0.1 (the browser suite is likesTests').
        .testTarget(name: "GalleryTests", dependencies: ["Gallery", "LikeKit", "TestSupport"]),
        // Depends on the executable so `swift test` builds the `likes` binary the tests run.
        .testTarget(
            name: "likesTests",
            dependencies: ["likes", "likes-fetch", "likes-bench", "likes-app-sample", "LikesSupport", "LikeKit", "JPEGCodec", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
