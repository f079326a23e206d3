// Shared by the LikeKit tests: a temporary folder per test, and real and made-up JPEG bytes.

import Foundation
import TestSupport
import Testing

@testable import LikeKit
@testable import LikeStore

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

    /// A structurally complete baseline JPEG (SOI, APP0, DQT, SOF0, SOS, scan data, EOI) whose
    /// scan bytes depend on `seed`, so that every seed gives different bytes.
    static func jpeg(width: Int = 64, height: Int = 48, seed: Int = 0, scanBytes: Int = 256) -> Data {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes += [0xFF, 0xDB, 0x00, 0x43, 0x00] + (0..<64).map { UInt8(1 + $0 % 50) }
        bytes += [0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 0x03]
        bytes += [0x01, 0x22, 0x00, 0x02, 0x11, 0x00, 0x03, 0x11, 0x00]
        bytes += [0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3F, 0x00]
        var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        for _ in 0..<scanBytes {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: state >> 33) % 0xFF)  // never FF inside the scan
        }
        bytes += [0xFF, 0xD9]
        return Data(bytes)
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
