// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "likes",
    // NSLock-based locking (not Synchronization.Mutex) keeps iOS 15 apps in reach.
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "LikeKit", targets: ["LikeKit"]),
        .executable(name: "likes", targets: ["likes"]),
        .executable(name: "likes-fetch", targets: ["likes-fetch"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "LikeKit", dependencies: ["LinuxFileSystemCalls"]),
        // fstatfs, syncfs and renameat2, which the Glibc module leaves out, called directly (a
        // fully static `likes` cannot look them up by name).
        .target(name: "LinuxFileSystemCalls"),
        .executableTarget(name: "likes", dependencies: ["LikeKit"]),
        // Downloads for `likes like --url` and `import-unsplash`: kept out of `likes` so that it
        // starts without FoundationNetworking.
        .executableTarget(name: "likes-fetch"),
        // The in-process halves of the benchmarks (Benchmarks/run.sh); built by CI, run by hand.
        .executableTarget(name: "likes-bench", dependencies: ["LikeKit"]),
        .testTarget(name: "LikeKitTests", dependencies: ["LikeKit"]),
        // Depends on the executable so `swift test` builds the `likes` binary the tests run.
        .testTarget(name: "likesTests", dependencies: ["likes", "likes-fetch", "LikeKit"]),
    ],
    swiftLanguageModes: [.v6]
)
