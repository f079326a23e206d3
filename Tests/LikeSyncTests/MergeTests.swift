// The merge of stamped changes (PhotoHistory): the rules of one collection on several devices,
// checked against a plain fold of every change in stamp order, whatever the order of delivery,
// duplicates and compaction.

import LikeSync
import TestSupport
import Testing

/// A deterministic generator, so that a failing case can be run again from its seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let devices = ["a000000000000001", "b000000000000002", "c000000000000003"]
func image(_ number: Int) -> ImageReference {
    ImageReference(sha256: String(repeating: String(number % 10), count: 64), bytes: 100 + number)
}
func stamp(_ milliseconds: Int64, _ device: Int = 0, counter: Int = 0) -> Stamp {
    Stamp(milliseconds: milliseconds, counter: counter, device: devices[device])
}

/// The rules as written, for every change at once: sorted by stamp, each once, folded.
func referenceState(_ changes: [SyncChange]) -> PhotoState? {
    var seen = Set<Stamp>()
    var state: PhotoState?
    for change in changes.sorted(by: { $0.stamp < $1.stamp }) where seen.insert(change.stamp).inserted {
        switch change.kind {
        case .unlike: state = nil
        case .like:
            if state == nil {
                if let image = change.image {
                    state = PhotoState(
                        likedAt: change.likedAt ?? change.stamp.milliseconds, image: image, userImage: change.userImage ?? nil,
                        note: change.note ?? nil, albums: [], photo: change.photo ?? nil,
                        stamps: Dictionary(uniqueKeysWithValues: PhotoState.parts.map { ($0, change.stamp) }))
                    state?.applyAlbums(change)
                }
            } else {
                state?.apply(change)
            }
        case .edit:
            state?.apply(change)
        }
    }
    return state
}

func randomChange(_ generator: inout SeededGenerator, at milliseconds: Int64) -> SyncChange {
    let device = Int.random(in: 0..<3, using: &generator)
    let when = stamp(milliseconds, device, counter: Int.random(in: 0..<2, using: &generator))
    let roll = Int.random(in: 0..<10, using: &generator)
    func maybe<Value>(_ value: @autoclosure () -> Value) -> Value?? {
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: return nil
        case 1: return .some(nil)
        default: return .some(value())
        }
    }
    let note: String?? = maybe("note \(Int.random(in: 0..<5, using: &generator))")
    let albums: [String: Bool]? =
        Bool.random(using: &generator) ? ["A\(Int.random(in: 0..<3, using: &generator))": Bool.random(using: &generator)] : nil
    switch roll {
    case 0..<2: return SyncChange(id: "p", stamp: when, kind: .unlike)
    case 2..<6:
        let withImage = Int.random(in: 0..<5, using: &generator) > 0
        return SyncChange(
            id: "p", stamp: when, kind: .like, likedAt: milliseconds - Int64.random(in: 0..<3, using: &generator),
            image: withImage ? image(Int.random(in: 0..<9, using: &generator)) : nil, userImage: maybe(image(9)), note: note, albums: albums)
    default:
        return SyncChange(id: "p", stamp: when, kind: .edit, note: note, albums: albums, photo: maybe("{\"title\":\"t\"}"))
    }
}

extension PhotoState {
    var withoutStamps: PhotoState {
        var copy = self
        copy.stamps = [:]
        return copy
    }
}

@Suite(.ownLane) struct MergeTests {
    /// Albums are memberships: two devices filing one photo into two albums at once leave it in
    /// both, and a removal decides only its own album (SPEC §13).
    @Test func albumsAreMembershipsEachDecidedByItsLastChange() {
        let changes = [
            SyncChange(id: "p", stamp: stamp(10, 0), kind: .like, likedAt: 10, image: image(1), albums: ["family": true]),
            SyncChange(id: "p", stamp: stamp(20, 1), kind: .edit, albums: ["Été": true]),
            SyncChange(id: "p", stamp: stamp(21, 2), kind: .edit, albums: ["trips": true]),
            SyncChange(id: "p", stamp: stamp(30, 2), kind: .edit, albums: ["family": false]),
            SyncChange(id: "p", stamp: stamp(25, 0), kind: .edit, albums: ["family": true, "cats": true]),
        ]
        for order in [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 4, 0, 3, 1], [3, 0, 4, 1, 2]] {
            var history = PhotoHistory()
            for index in order { history.insert(changes[index]) }
            #expect(history.state?.albums == ["cats", "trips", "Été"], "order \(order)")
        }
    }

    /// A like of a liked photo gives only what it gives: another device's earlier note, albums
    /// and user image stay.
    @Test func aLikeOfALikedPhotoKeepsWhatItDoesNotGive() {
        var history = PhotoHistory()
        history.insert(
            SyncChange(
                id: "p", stamp: stamp(10, 0), kind: .like, likedAt: 10, image: image(1), userImage: image(5), note: "lines\nhere",
                albums: ["family": true]))
        history.insert(SyncChange(id: "p", stamp: stamp(20, 1), kind: .like, likedAt: 20, image: image(2)))
        #expect(
            history.state?.withoutStamps
                == PhotoState(likedAt: 10, image: image(2), userImage: image(5), note: "lines\nhere", albums: ["family"], photo: nil))
    }

    @Test func likeUnlikeLikeEndsLikedInEveryOrder() {
        let changes = [
            SyncChange(id: "p", stamp: stamp(10, 0), kind: .like, likedAt: 10, image: image(1), note: "first"),
            SyncChange(id: "p", stamp: stamp(20, 1), kind: .unlike),
            SyncChange(id: "p", stamp: stamp(30, 2), kind: .like, likedAt: 30, image: image(2)),
        ]
        for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
            var history = PhotoHistory()
            for index in order { history.insert(changes[index]) }
            // A new period: its date and image, and none of the note of the period before.
            #expect(
                history.state?.withoutStamps == PhotoState(likedAt: 30, image: image(2), userImage: nil, note: nil, albums: [], photo: nil),
                "\(order)")
        }
    }

    @Test func anUnlikeAfterALikeOnAnyDeviceRemovesThePhotoAndOlderChangesCannotBringItBack() {
        var history = PhotoHistory()
        history.insert(SyncChange(id: "p", stamp: stamp(5, 0), kind: .like, likedAt: 5, image: image(1)))
        history.insert(SyncChange(id: "p", stamp: stamp(10, 1), kind: .unlike))
        #expect(history.state == nil)
        // Delivered late, from before the unlike: nothing.
        let lateLike = history.insert(SyncChange(id: "p", stamp: stamp(7, 2), kind: .like, likedAt: 7, image: image(3)))
        let lateEdit = history.insert(SyncChange(id: "p", stamp: stamp(8, 0), kind: .edit, note: "late"))
        #expect(!lateLike && !lateEdit)
        #expect(history.state == nil)
        // What is kept of it: the unlike's stamp, a tombstone of a few bytes.
        #expect(history.changes.isEmpty && history.lastUnlike == stamp(10, 1))
    }

    @Test func editsAndImagelessLikesOfAPhotoNotLikedAreVoid() {
        var history = PhotoHistory()
        history.insert(SyncChange(id: "p", stamp: stamp(1, 0), kind: .edit, note: "too early", albums: ["Early": true]))
        history.insert(SyncChange(id: "p", stamp: stamp(2, 1), kind: .like, likedAt: 2, note: "no image"))
        #expect(history.state == nil)
        history.insert(SyncChange(id: "p", stamp: stamp(3, 2), kind: .like, likedAt: 3, image: image(1)))
        #expect(history.state?.withoutStamps == PhotoState(likedAt: 3, image: image(1), userImage: nil, note: nil, albums: [], photo: nil))
    }

    @Test func twoLikesMadeApartKeepTheFirstDateAndTheLaterChangeWinsFieldByField() {
        var history = PhotoHistory()
        history.insert(SyncChange(id: "p", stamp: stamp(100, 1), kind: .like, likedAt: 100, image: image(2), note: "laptop", albums: ["Trip": true]))
        history.insert(SyncChange(id: "p", stamp: stamp(50, 0), kind: .like, likedAt: 50, image: image(1), note: "phone"))
        history.insert(SyncChange(id: "p", stamp: stamp(120, 2), kind: .edit, note: .some(nil)))
        #expect(history.state?.withoutStamps == PhotoState(likedAt: 50, image: image(2), userImage: nil, note: nil, albums: ["Trip"], photo: nil))
        // Each part names the change that gave it.
        #expect(
            history.state?.stamps == [
                "liked": stamp(50, 0), "image": stamp(100, 1), "userImage": stamp(50, 0), "note": stamp(120, 2), "albums": stamp(100, 1),
                "photo": stamp(50, 0), "album:54726970": stamp(100, 1),  // "Trip" in hex
            ])
    }

    /// Random histories of one photo on three devices, delivered in random orders with
    /// duplicates: the state is the plain fold's, every time.
    @Test(arguments: 0..<40)
    func anyDeliveryOrderGivesThePlainFoldsState(seed: Int) {
        var generator = SeededGenerator(seed: UInt64(seed))
        for _ in 0..<50 {
            var changes: [SyncChange] = []
            var milliseconds: Int64 = 1_000
            for _ in 0..<Int.random(in: 1..<25, using: &generator) {
                milliseconds += Int64.random(in: 0..<3, using: &generator)
                let change = randomChange(&generator, at: milliseconds)
                // A stamp is one change's alone (each device's clock never repeats one).
                if !changes.contains(where: { $0.stamp == change.stamp }) { changes.append(change) }
            }
            let expected = referenceState(changes)
            var delivery = changes + changes.filter { _ in Int.random(in: 0..<4, using: &generator) == 0 }
            delivery.shuffle(using: &generator)
            var history = PhotoHistory()
            for change in delivery { history.insert(change) }
            #expect(history.state == expected, "seed \(seed): \(changes.sorted { $0.stamp < $1.stamp })")
            // What compaction kept is enough: the fold of the kept history and the full one agree.
            // (After the last unlike the photo is not liked: the kept changes fold from there.)
            #expect(referenceState(history.changes) == expected)
        }
    }

    @Test func theClockNeverRunsBehindAStampItMadeOrMerged() {
        var clock = HybridClock(device: devices[0])
        let first = clock.tick(now: 1_000)
        let second = clock.tick(now: 1_000)
        let third = clock.tick(now: 900)  // the wall clock stepped back
        #expect(first < second && second < third && third.milliseconds == 1_000)
        clock.merge(stamp(5_000, 1, counter: 7))  // a device whose clock runs ahead
        let after = clock.tick(now: 1_001)
        #expect(after > stamp(5_000, 1, counter: 7) && after.milliseconds == 5_000 && after.counter == 8)
        #expect(clock.tick(now: 6_000) == Stamp(milliseconds: 6_000, counter: 0, device: devices[0]))
    }

    @Test func stampsReadBackAndOrderByTimeCounterAndDevice() {
        let stamps = [stamp(2, 0), stamp(1, 2, counter: 3), stamp(1, 0, counter: 3), stamp(1, 1)]
        #expect(stamps.sorted() == [stamp(1, 1), stamp(1, 0, counter: 3), stamp(1, 2, counter: 3), stamp(2, 0)])
        for each in stamps { #expect(Stamp(each.description) == each) }
        for bad in ["", "1.2", "1.2.ABCDEF0123456789", "-1.0.a000000000000001", "1.0.a00000000000000", "x.0.a000000000000001"] {
            #expect(Stamp(bad) == nil, "\(bad)")
        }
    }
}
