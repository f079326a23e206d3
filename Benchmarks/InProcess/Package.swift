// swift-tools-version: 6.0
// LikeKit against SQLite in one app's process (BENCHMARKS.md, "LikeKit against SQLite in the
// app's process"). A package of its own so that the library's graph never links SQLite: it takes
// LikeKit from the package two folders up and Debian's libsqlite3-dev through a system library.
import PackageDescription

let package = Package(
    name: "likes-in-process-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "likes", path: "../..")],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(name: "likekit-vs-sqlite", dependencies: [.product(name: "LikeKit", package: "likes"), "CSQLite"]),
    ],
    swiftLanguageModes: [.v6]
)
