// Owns the store's access token: the secret that pages served from the store (`likes serve`)
// ask of every request, kept in the store so that a bookmarked address works the next time.
// One file at the top, `access-token`, readable by its owner alone (mode 0600), written whole.

extension StoreLayout {
    static let accessTokenFileName = "access-token"
}

extension Store {
    /// The token kept in the store, made with `make` when there is none, the one there is not
    /// one `isValid` accepts, or `renewing` (the old one then stops working). Written whole and
    /// flushed before it is given out, mode 0600.
    package func accessToken(renewing: Bool, isValid: (String) -> Bool, make: () -> String) throws -> String {
        // Read without the lock first: the file is only ever replaced whole by a rename, and a
        // store on a read-only disk keeps its token too.
        if !renewing, let root = (try? StoreDirectory.open(path: path, faults: faults)) ?? nil,
            let kept = try? root.read(StoreLayout.accessTokenFileName).map({ String(decoding: $0, as: UTF8.self) }), isValid(kept)
        {
            return kept
        }
        return try withExclusiveLock { root, _ in
            if !renewing, let kept = try root.read(StoreLayout.accessTokenFileName).map({ String(decoding: $0, as: UTF8.self) }),
                isValid(kept)
            {
                return kept
            }
            let token = make()
            try Array(token.utf8).withUnsafeBytes {
                try root.replaceFile(
                    StoreLayout.accessTokenFileName, bytes: $0, temporary: StoreLayout.accessTokenFileName + "." + Generation.make() + ".tmp",
                    durable: durable, flushFolder: durable ? false : nil)
            }
            return token
        }
    }
}
