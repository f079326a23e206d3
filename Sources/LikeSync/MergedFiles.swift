// Owns a device's account of the other devices' change files it has merged: by device, every
// file up to a floor, the files above it merged out of order, and the newest stamp of that
// device whose every change before it is merged (what the device acknowledges in the folder).
// Kept in DeviceSyncState; read by SyncFolder's scan and glance.

/// Which change files of each device are merged, and through which stamp.
///
/// A device's changes are stamped in increasing order file by file, so "every file up to N is
/// merged" means "every change of that device up to the newest stamp of file N is merged": that
/// stamp is ``through(_:)``, which the device acknowledges in the folder so that the others know
/// when every device has seen an unlike.
package struct MergedFiles: Sendable, Hashable {
    /// By device: every file numbered up to this one is merged.
    package private(set) var floors: [String: Int] = [:]
    /// By device: files above the floor merged already (a file before them still waits), with
    /// the newest stamp of each.
    package private(set) var above: [String: [Int: Stamp]] = [:]
    /// By device: the newest stamp of the file at the floor.
    package private(set) var stamps: [String: Stamp] = [:]

    package init() {}

    /// These files merged, by device, their stamps not known.
    package init(_ files: [String: [Int]]) {
        for (device, numbers) in files { for number in numbers { insert(device, number, newest: nil) } }
    }

    package func contains(_ device: String, _ sequence: Int) -> Bool {
        sequence <= floors[device, default: 0] || above[device]?[sequence] != nil
    }

    /// The newest stamp of `device` through which every one of its changes is merged.
    package func through(_ device: String) -> Stamp? { stamps[device] }

    /// The devices with a file merged.
    package var devices: Set<String> { Set(floors.keys).union(above.keys) }

    /// Takes note of a file merged whole, whose changes of its device end at `newest`.
    package mutating func insert(_ device: String, _ sequence: Int, newest: Stamp?) {
        guard !contains(device, sequence) else { return }
        above[device, default: [:]][sequence] = newest ?? Stamp(milliseconds: 0, counter: 0, device: device)
        settle(device)
    }

    /// Takes note of a snapshot merged whole: it holds what every file of its device numbered
    /// up to it held that still matters, so they all count as merged.
    package mutating func insertSnapshot(_ device: String, _ sequence: Int, through newest: Stamp) {
        guard sequence > floors[device, default: 0] else { return }
        floors[device] = sequence
        stamps[device] = max(stamps[device] ?? newest, newest)
        above[device] = above[device]?.filter { $0.key > sequence }
        settle(device)
    }

    /// Moves the floor up over the files merged just above it.
    private mutating func settle(_ device: String) {
        var floor = floors[device, default: 0]
        while let newest = above[device]?[floor + 1] {
            floor += 1
            above[device]?[floor] = nil
            if newest.milliseconds > 0 || newest.counter > 0 { stamps[device] = max(stamps[device] ?? newest, newest) }
        }
        floors[device] = floor
        if above[device]?.isEmpty == true { above[device] = nil }
    }
}

extension MergedFiles: Codable {
    enum CodingKeys: String, CodingKey { case floors, above, stamps }

    /// Reads the form this version writes, or the one before it: by device, the numbers of the
    /// files merged (whose stamps it did not keep).
    package init(from decoder: any Decoder) throws {
        if let old = try? decoder.singleValueContainer().decode([String: [Int]].self) {
            self.init(old)
            return
        }
        self.init()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        floors = try container.decode([String: Int].self, forKey: .floors)
        let written = try container.decode([String: [String: Stamp]].self, forKey: .above)
        above = written.mapValues { files in Dictionary(uniqueKeysWithValues: files.compactMap { key, value in Int(key).map { ($0, value) } }) }
        stamps = try container.decode([String: Stamp].self, forKey: .stamps)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(floors, forKey: .floors)
        try container.encode(above.mapValues { files in Dictionary(uniqueKeysWithValues: files.map { (String($0.key), $0.value) }) }, forKey: .above)
        try container.encode(stamps, forKey: .stamps)
    }
}
