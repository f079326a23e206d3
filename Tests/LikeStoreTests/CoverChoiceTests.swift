// Which of two photos chosen as an album's cover is its cover: the choice made last, as devices
// order stamps, down to the counter of changes made within one millisecond. Found by the sync
// replay with maintenance (seed 500056): a restore chose two photos as the cover of one album in
// one millisecond, and every device showed the first (by its key) where the second was chosen last.

import Foundation
import LikeStore
import TestSupport
import Testing

@Suite(.ownLane) struct CoverChoiceTests {
    let box = TemporaryFolder()

    /// The records of two photos liked into `cats`, each chosen as its cover with `stamps`.
    func chosen(_ stamps: [String: String]) throws -> [StoredRecord] {
        let store = Store(path: box.path("store"), durable: false, lockTimeout: 10, faults: nil)
        var records: [StoredRecord] = []
        for (index, (id, stamp)) in stamps.sorted(by: { $0.key < $1.key }).enumerated() {
            let image = try StoreRequest.Image(MadeUpJPEG.data(seed: index), kind: .image)
            _ = try store.like(StoreRequest(id: id, image: image, userImage: nil, note: nil, photo: nil, albums: ["cats"]), onCommit: { _ in })
            var record = try #require(try store.storedRecord(for: id))
            record.covers = ["cats"]
            record.stamps = (record.stamps ?? RecordStamps()).setting(RecordStamps.cover("cats"), to: stamp)
            records.append(record)
        }
        return records
    }

    @Test func theChoiceCountedLaterInItsMillisecondIsTheCover() throws {
        // "b" comes last by key, which broke ties; "a" was chosen later in the same millisecond.
        let records = try chosen(["a": "1796224460503.1.95621c75d77f0db1", "b": "1796224460503.0.95621c75d77f0db1"])
        #expect(Store.newestChoice(of: "cats", among: records)?.id == "a")
        #expect(Store.newestChoice(of: "cats", among: records.reversed())?.id == "a")
    }

    @Test func aLaterMillisecondWinsWhateverTheCounters() throws {
        let records = try chosen(["a": "1796224460504.0.95621c75d77f0db1", "b": "1796224460503.7.95621c75d77f0db1"])
        #expect(Store.newestChoice(of: "cats", among: records)?.id == "a")
    }

    @Test func anUnpublishedChoiceIsOrderedByItsMillisecond() throws {
        let records = try chosen(["a": "1796224460505", "b": "1796224460503.3.95621c75d77f0db1"])
        #expect(Store.newestChoice(of: "cats", among: records)?.id == "a")
    }
}
