// Three devices, each with its own copy of the sync folder, kept in step by an unkind carrying
// program: files delivered in any order, cut short or zero-filled before they are whole, under
// temporary names, with conflict copies beside them, twice, deleted and brought back (a device's
// change files after its snapshot removed them, its images after it let go of them), and a copy
// emptied for a while; devices forget each other now and then. Whatever it does, once every file
// has arrived every device holds what applying all changes in stamp order gives, no sync ever
// unlikes what no unlike removed, and once every device has merged everything, no device's
// images in the folder are of photos no longer liked.

import Foundation
import LikeSync
import TestSupport
import Testing

final class SimulatedDevice {
    var state: DeviceSyncState
    let folder: SyncFolder
    /// Changes made since the last round.
    var unpublished: [SyncChange] = []
    /// The image bytes this device has, by SHA-256 (its store's images).
    var images: [String: [UInt8]] = [:]
    /// How far its clock is off, in milliseconds.
    let skew: Int64

    init(device: String, copy: String, skew: Int64) {
        state = DeviceSyncState(device: device, name: "device " + device.prefix(1))
        folder = SyncFolder(path: copy)
        self.skew = skew
    }

    var liked: [String: PhotoState] { state.histories.compactMapValues(\.state) }
}

/// The carrying program: every file a device wrote under its id, and an unkind way of
/// delivering each to the other copies.
struct Carrier {
    var written: [String: [UInt8]] = [:]

    /// Takes note of every file under each device's own id in its own copy.
    mutating func collect(_ devices: [SimulatedDevice]) throws {
        for device in devices {
            let root = device.folder.path + "/" + device.state.device
            guard let walker = FileManager.default.enumerator(atPath: root) else { continue }
            while let relative = walker.nextObject() as? String {
                let path = root + "/" + relative
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    !relative.hasPrefix("."), !relative.contains("/.")
                else { continue }
                written[device.state.device + "/" + relative] = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            }
        }
    }

    func put(_ bytes: [UInt8], at relative: String, in copy: String) throws {
        let url = URL(fileURLWithPath: copy + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    /// One unkind step on a random file and a random copy.
    func step(_ devices: [SimulatedDevice], _ generator: inout SeededGenerator) throws {
        guard let (relative, bytes) = written.randomElement(using: &generator) else { return }
        let owner = String(relative.prefix(16))
        guard let target = devices.filter({ $0.state.device != owner }).randomElement(using: &generator) else { return }
        let copy = target.folder.path
        let name = (relative as NSString).lastPathComponent
        let directory = (relative as NSString).deletingLastPathComponent
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: try put(Array(bytes.prefix(Int.random(in: 0..<max(1, bytes.count), using: &generator))), at: relative, in: copy)
        case 1:
            var zeros = bytes
            for index in (bytes.count / 2)..<bytes.count { zeros[index] = 0 }
            try put(zeros, at: relative, in: copy)
        case 2: try put(Array(bytes.prefix(bytes.count / 2)), at: directory + "/.syncthing." + name + ".tmp", in: copy)
        case 3: try put(Array("garbage".utf8), at: relative + ".sync-conflict-20261125-101010-ABCDEFG", in: copy)
        case 4: try put(bytes, at: directory + "/" + name + " (conflicted copy 2026-11-25)", in: copy)
        case 5: try? FileManager.default.removeItem(atPath: copy + "/" + relative)  // a deletion delivered late
        default: try put(bytes, at: relative, in: copy)
        }
    }

    /// Every file, whole, to every copy.
    func deliverEverything(_ devices: [SimulatedDevice]) throws {
        for device in devices {
            for (relative, bytes) in written where !relative.hasPrefix(device.state.device) {
                try put(bytes, at: relative, in: device.folder.path)
            }
        }
    }
}

/// The seeds of a run: six, or `LIKES_SIMULATION_SEEDS` (the long run, Tests/Tools/sync_simulation.sh),
/// from `LIKES_SIMULATION_FIRST_SEED` on.
enum SimulationSeeds {
    static var all: [Int] {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["LIKES_SIMULATION_SEEDS"].flatMap(Int.init) ?? 6
        let first = environment["LIKES_SIMULATION_FIRST_SEED"].flatMap(Int.init) ?? 0
        return Array(first..<(first + count))
    }
}

@Suite(.ownLane) struct SimulationTests {
    @Test(arguments: SimulationSeeds.all)
    func threeDevicesConvergeWhateverTheCarrierDoes(seed: Int) throws {
        let box = TemporaryFolder("simulation-\(seed)")
        var generator = SeededGenerator(seed: UInt64(seed) &* 7_919)
        let devices = [deviceA, deviceB, "c000000000000003"].enumerated().map { index, id in
            let copy = box.path("copy-\(index)")
            try? FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
            return SimulatedDevice(device: id, copy: copy, skew: [0, 40_000, -25_000][index])
        }
        var carrier = Carrier()
        var made: [SyncChange] = []
        let ids = (0..<8).map { "photo-\($0)" }
        var now: Int64 = 1_800_000_000_000

        for _ in 0..<360 {
            now += Int64.random(in: 1..<2_000, using: &generator)
            let device = devices.randomElement(using: &generator)!
            let id = ids.randomElement(using: &generator)!
            let wall = now + device.skew
            let liked = device.state.state(of: id) != nil
            switch Int.random(in: 0..<13, using: &generator) {
            case 0..<4:
                let bytes = jpegLike(UInt8.random(in: 0...255, using: &generator), count: Int.random(in: 500..<4_000, using: &generator))
                let reference = ImageReference(sha256: SyncFolder.digest(bytes), bytes: bytes.count)
                device.images[reference.sha256] = bytes
                let note: String?? = Bool.random(using: &generator) ? .some("note \(Int.random(in: 0..<4, using: &generator))") : nil
                // Every field a like gives, or not: a user image (set or cleared), metadata, memberships.
                var userImage: ImageReference?? = nil
                if Int.random(in: 0..<3, using: &generator) == 0 {
                    let user = jpegLike(UInt8.random(in: 0...255, using: &generator), count: 600)
                    let userReference = ImageReference(sha256: SyncFolder.digest(user), bytes: user.count)
                    device.images[userReference.sha256] = user
                    userImage = .some(userReference)
                } else if Int.random(in: 0..<6, using: &generator) == 0 {
                    userImage = .some(nil)
                }
                let photo: String?? = Bool.random(using: &generator) ? .some("{\"title\":\"t\(Int.random(in: 0..<3, using: &generator))\"}") : nil
                let albums: [String: Bool]? =
                    Bool.random(using: &generator) ? ["A\(Int.random(in: 0..<3, using: &generator))": true] : nil
                let change = device.state.make(
                    {
                        SyncChange(
                            id: id, stamp: $0, kind: .like, likedAt: wall, image: reference, userImage: userImage, note: note, albums: albums,
                            photo: photo)
                    }, now: wall)
                device.unpublished.append(change)
                made.append(change)
            case 4..<6 where liked:
                let change = device.state.make({ SyncChange(id: id, stamp: $0, kind: .unlike) }, now: wall)
                device.unpublished.append(change)
                made.append(change)
            case 6..<9 where liked:
                let change = device.state.make(
                    {
                        SyncChange(
                            id: id, stamp: $0, kind: .edit, note: .some("edited \(wall)"),
                            albums: ["A\(Int.random(in: 0..<3, using: &generator))": Bool.random(using: &generator)])
                    },
                    now: wall)
                device.unpublished.append(change)
                made.append(change)
            case 9:
                // A sync round, with whatever its copy holds now.
                let before = device.liked
                let emptied = Int.random(in: 0..<6, using: &generator) == 0
                if emptied {
                    // A copy emptied (a drive not mounted, an engine catching up): nothing leaves.
                    for name in (try FileManager.default.contentsOfDirectory(atPath: device.folder.path)) {
                        try FileManager.default.removeItem(atPath: device.folder.path + "/" + name)
                    }
                }
                let round = try device.state.sync(with: device.folder, local: device.unpublished, images: device.images)
                device.unpublished = []
                try carrier.collect(devices)
                try take(round, into: device)
                if emptied {
                    #expect(round.touched.isEmpty && device.liked == before, "seed \(seed): an emptied folder changed the store")
                }
            case 12:
                // A device told to forget another (a phone taken for lost, which may yet return).
                if let other = devices.filter({ $0 !== device }).randomElement(using: &generator) {
                    device.state.forgotten[other.state.device] = wall
                }
            default:
                for _ in 0..<Int.random(in: 1..<8, using: &generator) { try carrier.step(devices, &generator) }
            }
        }
        // A device that wrote 8 change files has compacted them into a snapshot by the end of
        // that round.
        for device in devices {
            #expect(device.state.nextSequence <= 8 || device.state.snapshot != nil, "seed \(seed): \(device.state.name) never compacted")
        }
        #expect(SimulationSeeds.all.count > 6 || seed != 0 || devices.contains { $0.state.snapshot != nil }, "seed 0 compacts nothing")
        // Every device publishes what it has left, every file arrives whole, every device syncs.
        for device in devices {
            _ = try device.state.sync(with: device.folder, local: device.unpublished, images: device.images)
            device.unpublished = []
        }
        try carrier.collect(devices)
        try carrier.deliverEverything(devices)
        for device in devices {
            let round = try device.state.sync(with: device.folder, local: [], images: device.images)
            try take(round, into: device)
            #expect(round.pending.isEmpty, "seed \(seed): \(round.pending)")
        }
        for id in ids {
            let expected = referenceState(made.filter { $0.id == id })
            for device in devices {
                #expect(device.state.state(of: id) == expected, "seed \(seed), \(id) on \(device.state.name)")
                if let image = expected?.image { #expect(device.images[image.sha256]?.count == image.bytes, "seed \(seed): \(id)'s image") }
            }
        }
        // Every device's acknowledgement arrives, and each lets go of what every device has seen
        // unliked: no image of its own in the folder is then of a photo no longer liked.
        for _ in 0..<2 {
            try carrier.collect(devices)
            try carrier.deliverEverything(devices)
            for device in devices { try take(try device.state.sync(with: device.folder, local: [], images: device.images), into: device) }
        }
        for device in devices {
            let named = Set(
                device.state.histories.values.flatMap(\.changes).filter { $0.stamp.device == device.state.device }.flatMap(\.images).map(\.sha256))
            let left = try device.folder.ownImages(device.state.device).subtracting(named)
            var whose: [String] = []
            for sha in left {
                let using = made.filter { change in change.images.contains { $0.sha256 == sha } }
                guard let first = using.first else {
                    whose.append("\(sha.prefix(8)): no change")
                    continue
                }
                let story = made.filter { $0.id == first.id }.map { "\($0.stamp.milliseconds % 1_000_000).\($0.stamp.device.prefix(1)) \($0.kind)" }
                let last = device.state.histories[first.id]?.lastUnlike.map { "\($0.milliseconds % 1_000_000).\($0.device.prefix(1))" } ?? "none"
                whose.append(
                    "\(sha.prefix(8)) of \(first.id) at \(first.stamp.milliseconds % 1_000_000): \(story.joined(separator: ", ")); last unlike \(last)"
                )
            }
            #expect(left.isEmpty, "seed \(seed): \(device.state.name) kept \(left.count) images of photos unliked everywhere: \(whose)")
            #expect(device.state.releasing.isEmpty, "seed \(seed): \(device.state.name) still waits to let go of \(device.state.releasing.keys)")
        }
        // Nothing more to do: a round with nothing new publishes and merges nothing.
        for device in devices {
            let quiet = try device.state.sync(with: device.folder, local: [], images: device.images)
            #expect(quiet.published == 0 && quiet.merged == 0 && quiet.touched.isEmpty)
        }
    }

    /// What a store does with a round: keeps the images of the photos' new states.
    func take(_ round: SyncRound, into device: SimulatedDevice) throws {
        let sources = Array(round.devices.keys)
        for case (_, let state?) in round.touched {
            for image in [state.image, state.userImage].compactMap({ $0 }) where device.images[image.sha256] == nil {
                let bytes = try #require(device.folder.image(image, devices: sources) as [UInt8]?, "\(image) is not in the folder")
                device.images[image.sha256] = bytes
            }
        }
    }

    @Test func aCopiedStoreRefusesBeforeWritingAndARoundThatDiedKnowsItsOwnFile() throws {
        let box = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: box.path("dir"), withIntermediateDirectories: true)
        let folder = SyncFolder(path: box.path("dir"))
        var original = DeviceSyncState(device: deviceA, name: "laptop")
        var copy = original
        let bytes = jpegLike(9)
        let reference = ImageReference(sha256: SyncFolder.digest(bytes), bytes: bytes.count)
        let first = original.make({ SyncChange(id: "x", stamp: $0, kind: .like, likedAt: 1, image: reference) }, now: 1)
        _ = try original.sync(with: folder, local: [first], images: [reference.sha256: bytes])
        let second = copy.make({ SyncChange(id: "y", stamp: $0, kind: .like, likedAt: 2, image: reference) }, now: 2)
        let files = box.files()
        #expect(throws: SyncRefusal.copiedStore(device: deviceA, file: "\(deviceA)/changes-00000001.jsonl")) {
            _ = try copy.sync(with: folder, local: [second], images: [reference.sha256: bytes])
        }
        #expect(box.files() == files)
        // A round that wrote its file and died before its state was kept: the file is its own.
        var died = DeviceSyncState(device: deviceB, name: "phone")
        died.nextSequence = 2
        try folder.publish(device: deviceB, name: "phone", sequence: 1, changes: [], images: [:])
        let again = try died.sync(with: folder, local: [], images: [:])
        #expect(again.merged == 1 && died.merged.contains(deviceB, 1))
    }

    /// A change the store made before a round merged another device's later change, and found
    /// by a round after (made while that sync ran, or left by one that died), is stamped as the
    /// clock stood when it was made: the later change wins on both devices. One made after the
    /// merge comes after what was merged, even from a device whose clock runs ahead.
    @Test func aChangeIsStampedAsTheClockStoodWhenItWasMade() throws {
        let box = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: box.path("dir"), withIntermediateDirectories: true)
        let folder = SyncFolder(path: box.path("dir"))
        var laptop = DeviceSyncState(device: deviceA, name: "laptop")
        var phone = DeviceSyncState(device: deviceB, name: "phone")
        let bytes = jpegLike(7)
        let reference = ImageReference(sha256: SyncFolder.digest(bytes), bytes: bytes.count)
        func note(_ text: String) -> (Stamp) -> SyncChange { { SyncChange(id: "x", stamp: $0, kind: .edit, note: .some(text)) } }
        let liked = laptop.make({ SyncChange(id: "x", stamp: $0, kind: .like, likedAt: 1_000, image: reference) }, now: 1_000)
        _ = try laptop.sync(with: folder, local: [liked], images: [reference.sha256: bytes], now: 1_000)
        _ = try phone.sync(with: folder, local: [], images: [:], now: 1_100)

        // The phone's note at 2,500 is merged by a laptop round at 3,000; the laptop's own note
        // at 2,000 is found by the round after.
        let phoneNote = phone.make(note("from the phone"), now: 2_500)
        _ = try phone.sync(with: folder, local: [phoneNote], images: [:], now: 2_500)
        _ = try laptop.sync(with: folder, local: [], images: [:], now: 3_000)
        let laptopNote = laptop.make(note("older, from the laptop"), now: 2_000)
        #expect(laptopNote.stamp == Stamp(milliseconds: 2_000, counter: 0, device: deviceA) && laptopNote.stamp < phoneNote.stamp)
        _ = try laptop.sync(with: folder, local: [laptopNote], images: [:], now: 3_100)
        _ = try phone.sync(with: folder, local: [], images: [:], now: 3_200)
        #expect(laptop.state(of: "x")?.note == "from the phone" && phone.state(of: "x")?.note == "from the phone")

        // A device whose clock runs ahead: what the laptop makes after merging it comes after.
        let ahead = phone.make(note("from a clock ahead"), now: 9_000)
        _ = try phone.sync(with: folder, local: [ahead], images: [:], now: 3_300)
        _ = try laptop.sync(with: folder, local: [], images: [:], now: 3_400)
        let seen = laptop.make(note("after seeing it"), now: 3_500)
        let second = laptop.make(note("and again"), now: 3_500)
        #expect(ahead.stamp < seen.stamp && seen.stamp < second.stamp && second.stamp.milliseconds == 9_000, "\(seen.stamp) \(second.stamp)")
        _ = try laptop.sync(with: folder, local: [seen, second], images: [:], now: 3_600)
        _ = try phone.sync(with: folder, local: [], images: [:], now: 3_700)
        #expect(laptop.state(of: "x")?.note == "and again" && phone.state(of: "x")?.note == "and again")
    }
}
