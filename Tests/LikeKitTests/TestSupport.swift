// Shared by the LikeKit tests: a temporary folder per test, and real and made-up JPEG bytes.

import Foundation
import LikeKit
import LikeStore
import TestSupport
import Testing

extension TemporaryFolder {
    /// A repository on the folder's store.
    func repository(durability: Durability = .full, faults: FaultInjector? = nil) -> LikeRepository {
        LikeRepository(directory: store, durability: durability, lockTimeout: 10, faults: faults)
    }
}

enum Samples {
    static let directory = SamplePhotos.directory

    static func photo(_ name: String) -> Data { SamplePhotos.data(name) }

    static let rocket = photo("rocket.jpg")
    static let chelsea = photo("chelsea.jpg")
    static let coffee = photo("coffee.jpg")
    static let astronaut = photo("astronaut.jpg")

    /// A made-up JPEG whose bytes depend on `seed` (see TestSupport's ``MadeUpJPEG``).
    static func jpeg(width: Int = 64, height: Int = 48, seed: Int = 0, scanBytes: Int = 256) -> Data {
        MadeUpJPEG.data(width: width, height: height, seed: seed, scanBytes: scanBytes)
    }
}

extension PhotoID {
    /// For tests: ids known to be valid.
    init(valid text: String) { try! self.init(text) }
}

/// Reads a store file by its path inside the store.
func storeFile(_ store: URL, _ relative: String) -> Data? {
    try? Data(contentsOf: store.appendingPathComponent(relative))
}
