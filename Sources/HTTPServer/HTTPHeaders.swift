// Header fields of a request or a response, in order, looked up without regard to case.

/// The header fields of a request or response, in the order they came or will go.
///
/// Names are compared without regard to ASCII case, as HTTP defines them.
public struct HTTPHeaders: Sendable, Sequence {
    private var fields: [(name: String, value: String)] = []

    /// No fields.
    public init() {}

    /// The fields given, names and values, in order.
    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// The value of the first field named `name`, if any.
    public subscript(name: String) -> String? {
        fields.first { Self.same($0.name, name) }?.value
    }

    /// Every value of the fields named `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// Adds a field, after any of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Sets the field `name` to `value`, replacing every field of that name.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name, value))
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.same($0.name, name) }
    }

    /// How many fields there are.
    public var count: Int { fields.count }

    /// The fields in order, as names and values.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
    }

    static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
