// Owns the order of changes between devices: a hybrid logical clock's stamps (wall-clock
// milliseconds, a counter, the device's id) and the clock that makes them. Used by the merge
// (PhotoHistory) and by the folder's change files (SyncChange, SyncFolder).

/// When a change was made, as every device orders it: by milliseconds since 1970, then a counter
/// for changes within one millisecond (or made while the clock ran behind a stamp already seen),
/// then the id of the device that made it, so that no two changes are ever equal.
///
/// Written as `MILLIS.COUNTER.DEVICE`: `1795622819425.0.a1b2c3d4e5f60718`.
package struct Stamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var milliseconds: Int64
    package var counter: Int
    package var device: String

    package init(milliseconds: Int64, counter: Int, device: String) {
        self.milliseconds = milliseconds
        self.counter = counter
        self.device = device
    }

    package static func < (left: Stamp, right: Stamp) -> Bool {
        if left.milliseconds != right.milliseconds { return left.milliseconds < right.milliseconds }
        if left.counter != right.counter { return left.counter < right.counter }
        return left.device.utf8.lexicographicallyPrecedes(right.device.utf8)
    }

    package var description: String { "\(milliseconds).\(counter).\(device)" }

    /// Reads the written form; `nil` for anything else.
    package init?(_ text: String) {
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let milliseconds = Int64(parts[0]), milliseconds >= 0, let counter = Int(parts[1]), counter >= 0,
            DeviceID.isValid(String(parts[2]))
        else { return nil }
        self.init(milliseconds: milliseconds, counter: counter, device: String(parts[2]))
    }
}

/// A device's id: 16 lower-case hex digits, made at random when a store first syncs.
package enum DeviceID {
    package static func isValid(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    package static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return String((0..<16).map { _ in digits[Int(generator.next() % 16)] })
    }
}

/// A device's hybrid logical clock: its stamps follow the wall clock, never run behind a stamp
/// the device has made or merged, and never repeat.
package struct HybridClock: Sendable, Hashable {
    package let device: String
    /// The newest stamp made or merged, as milliseconds and counter.
    package private(set) var last: (milliseconds: Int64, counter: Int)

    package init(device: String, last: (milliseconds: Int64, counter: Int) = (0, 0)) {
        self.device = device
        self.last = last
    }

    /// A stamp for a change made now (`now`: the wall clock's milliseconds).
    package mutating func tick(now: Int64) -> Stamp {
        last = now > last.milliseconds ? (now, 0) : (last.milliseconds, last.counter + 1)
        return Stamp(milliseconds: last.milliseconds, counter: last.counter, device: device)
    }

    /// Takes in a stamp merged from another device: later stamps of this one come after it.
    package mutating func merge(_ stamp: Stamp) {
        if stamp.milliseconds > last.milliseconds || stamp.milliseconds == last.milliseconds && stamp.counter > last.counter {
            last = (stamp.milliseconds, stamp.counter)
        }
    }

    package static func == (left: HybridClock, right: HybridClock) -> Bool {
        left.device == right.device && left.last == right.last
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(device)
        hasher.combine(last.milliseconds)
        hasher.combine(last.counter)
    }
}

extension Stamp: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let stamp = Stamp(text) else { throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a stamp: \(text)") }
        self = stamp
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension HybridClock: Codable {
    enum CodingKeys: String, CodingKey { case device, milliseconds, counter }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            device: try container.decode(String.self, forKey: .device),
            last: (try container.decode(Int64.self, forKey: .milliseconds), try container.decode(Int.self, forKey: .counter)))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(device, forKey: .device)
        try container.encode(last.milliseconds, forKey: .milliseconds)
        try container.encode(last.counter, forKey: .counter)
    }
}
