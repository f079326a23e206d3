// The store's access token, for pages served from it: kept in the store, readable by its owner
// alone, so that an address bookmarked once keeps working.

import LikeStore

extension LikeRepository {
    /// The secret that pages served from this store ask of every request (`likes serve` puts it in
    /// the address it prints): 64 hex digits of the system's random generator, made on first use
    /// and kept in the store in a file only its owner can read (mode 0600), so that a bookmarked
    /// address works the next time.
    ///
    /// - Parameter renewing: Replace the kept token with a new one; the old one stops working.
    /// - Throws: `io` when the store cannot be written; ``LikeRepositoryError/storeBusy(directory:waitedSeconds:)`` when
    ///   another process holds it too long.
    public func accessToken(renewing: Bool = false) throws -> String {
        try translating {
            try store.accessToken(renewing: renewing, isValid: Self.isAccessToken, make: Self.makeAccessToken)
        }
    }

    /// Whether `text` is a token as ``accessToken(renewing:)`` makes them.
    static func isAccessToken(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// 32 random bytes from the system's generator, in lower-case hex.
    package static func makeAccessToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for _ in 0..<32 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
        }
        return String(decoding: text, as: UTF8.self)
    }
}
