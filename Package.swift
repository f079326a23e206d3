// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "likes",
    // NSLock-based locking (not Synchronization.Mutex) keeps iOS 15 apps in reach.
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "LikeKit", targets: ["LikeKit"]),
        .executable(name: "likes", targets: ["likes"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "LikeKit"),
        .executableTarget(name: "likes", dependencies: ["LikeKit"]),
        .testTarget(name: "LikeKitTests", dependencies: ["LikeKit"]),
        // Depends on the executable so `swift test` builds the `likes` binary the tests run.
        .testTarget(name: "likesTests", dependencies: ["likes", "LikeKit"]),
    ],
    swiftLanguageModes: [.v6]
)
