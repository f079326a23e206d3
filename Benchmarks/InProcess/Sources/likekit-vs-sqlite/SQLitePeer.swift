// The peer: what an app built on GRDB does with the same records. One connection in WAL mode with
// synchronous=FULL, statements prepared once and reused, every call run on the connection's own
// serial queue and awaited (GRDB's `read` and `write`), rows decoded into LikeKit's own
// `LikeRecord` from the JSON of the record's column.

import CSQLite
import Foundation
import LikeKit

/// A SQLite database of the store's records, used from one serial queue.
final class SQLitePeer: @unchecked Sendable {
    // @unchecked: the connection and its statements are touched only on `queue`.
    private let queue = DispatchQueue(label: "sqlite-peer")
    private var connection: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    private let decoder = JSONDecoder()

    /// Opens the database at `path`, as an app opens its database at launch.
    init(path: String) throws {
        var opened: OpaquePointer?
        guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let opened else {
            throw PeerError("cannot open \(path)")
        }
        connection = opened
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(connection)
    }

    /// Runs `body` on the connection's queue and awaits it, as GRDB's `read { db in … }` does.
    func run<T: Sendable>(_ body: @escaping @Sendable (SQLitePeer) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body(self) }) }
        }
    }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(connection, sql, nil, nil, nil) == SQLITE_OK else { throw PeerError("\(sql): \(message)") }
    }

    private var message: String { String(cString: sqlite3_errmsg(connection)) }

    /// The statement for `sql`, prepared the first time (GRDB's cached statements).
    private func statement(_ sql: String, _ values: [String]) throws -> OpaquePointer {
        let prepared: OpaquePointer
        if let cached = statements[sql] {
            prepared = cached
            sqlite3_reset(prepared)
            sqlite3_clear_bindings(prepared)
        } else {
            var made: OpaquePointer?
            guard sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &made, nil) == SQLITE_OK, let made else {
                throw PeerError("\(sql): \(message)")
            }
            statements[sql] = made
            prepared = made
        }
        for (index, value) in values.enumerated() {
            sqlite3_bind_text(prepared, Int32(index + 1), value, -1, transient())
        }
        return prepared
    }

    /// The records a query's first column holds, decoded as `LikeRecord`s.
    func records(_ sql: String, _ values: [String] = []) throws -> [LikeRecord] {
        let prepared = try statement(sql, values)
        var found: [LikeRecord] = []
        while true {
            let step = sqlite3_step(prepared)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw PeerError("\(sql): \(message)") }
            let count = Int(sqlite3_column_bytes(prepared, 0))
            let bytes = Data(bytes: sqlite3_column_blob(prepared, 0), count: count)
            found.append(try decoder.decode(LikeRecord.self, from: bytes))
        }
        return found
    }

    /// How many rows a query returns for each of `values` (bound as its one parameter).
    func exists(_ sql: String, each values: [String]) throws -> Set<String> {
        var found = Set<String>()
        for value in values {
            let prepared = try statement(sql, [value])
            let step = sqlite3_step(prepared)
            if step == SQLITE_ROW { found.insert(value) } else if step != SQLITE_DONE { throw PeerError("\(sql): \(message)") }
        }
        return found
    }

    /// Rows of text columns.
    func rows(_ sql: String, _ values: [String] = []) throws -> [[String?]] {
        let prepared = try statement(sql, values)
        var found: [[String?]] = []
        while true {
            let step = sqlite3_step(prepared)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw PeerError("\(sql): \(message)") }
            found.append(
                (0..<sqlite3_column_count(prepared)).map { column in
                    sqlite3_column_text(prepared, column).map { String(cString: $0) }
                })
        }
        return found
    }

    /// Runs a statement that returns no rows.
    func change(_ sql: String, _ values: [String]) throws {
        let prepared = try statement(sql, values)
        guard sqlite3_step(prepared) == SQLITE_DONE else { throw PeerError("\(sql): \(message)") }
    }
}

/// SQLite's `SQLITE_TRANSIENT`: copy the bound text (a macro Swift does not import).
private func transient() -> sqlite3_destructor_type {
    unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

struct PeerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
