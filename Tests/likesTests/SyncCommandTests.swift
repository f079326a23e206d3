// Issue 34: `likes sync` between stores through one folder, the built binary on real stores:
// what one store likes, notes, files in albums and unlikes reaches the other; like, unlike and
// like again ends liked; an empty or missing folder removes nothing; a copied store refuses; a
// sync with nothing new writes nothing; the folder lets go of an unliked photo's images once
// every device has merged the unlike (or was forgotten), compacts change logs, and a store that
// finds its files gone publishes them again; `watch --json` names the device of each change.

import Foundation
import TestSupport
import Testing

@Suite(.ownLane) struct SyncCommandTests {
    let box = TemporaryFolder()
    var folder: String { box.path("folder") }
    var laptop: String { box.path("laptop") }
    var phone: String { box.path("phone") }
    var tablet: String { box.path("tablet") }

    init() throws {
        try FileManager.default.createDirectory(atPath: box.path("folder"), withIntermediateDirectories: true)
    }

    func likes(_ store: String, _ arguments: String...) throws -> Run {
        try TemporaryFolder.execute(["--store", store] + arguments)
    }

    /// The store's photos by id; none while the store does not exist yet (exit 66).
    func listed(_ store: String) throws -> [String: [String: Any]] {
        let run = try likes(store, "list", "--json")
        if run.status == 66 { return [:] }
        #expect(run.status == 0, "\(run.stderr)")
        let array = (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]) ?? []
        return Dictionary(uniqueKeysWithValues: array.map { ($0["id"] as? String ?? "", $0) })
    }

    func sync(_ store: String) throws -> [String: Any] {
        let run = try likes(store, "sync", folder, "--json")
        #expect(run.status == 0, "\(run.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    /// The store's device id, from its first sync's report.
    func device(_ store: String) throws -> String {
        try sync(store)["device"] as? String ?? ""
    }

    /// The image files a device has in the folder.
    func images(of device: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/" + device + "/images")) ?? []).sorted()
    }

    /// What a user compares: the same photos with the same date, note, albums and image bytes.
    func sameCollection(_ left: String? = nil, _ right: String? = nil) throws -> Bool {
        let (left, right) = (try listed(left ?? laptop), try listed(right ?? phone))
        guard Set(left.keys) == Set(right.keys) else { return false }
        for (id, record) in left {
            let other = right[id] ?? [:]
            for field in ["likedAt", "note", "albums"] where "\(record[field] ?? "nil")" != "\(other[field] ?? "nil")" { return false }
            let files = [record, other].map { (($0["image"] as? [String: Any])?["file"] as? String) ?? "" }
            guard FileManager.default.contentsEqual(atPath: files[0], andPath: files[1]) else { return false }
        }
        return true
    }

    @Test func likesNotesAlbumsAndUnlikesReachTheOtherStore() throws {
        #expect(try likes(laptop, "like", "rocket", "--image", Samples.photo("rocket.jpg").path, "--note", "launch").status == 0)
        #expect(try likes(laptop, "like", "coffee", "--image", Samples.photo("coffee.jpg").path, "--album", "Mornings").status == 0)
        let first = try sync(laptop)
        #expect(first["published"] as? Int == 2 && first["merged"] as? Int == 0)
        let second = try sync(phone)
        #expect(second["merged"] as? Int == 2 && (second["devices"] as? [Any])?.count == 2)
        #expect(try sameCollection())

        // Field by field: a note on the phone, an album on the laptop, of one photo.
        #expect(try likes(phone, "note", "coffee", "on the balcony").status == 0)
        #expect(try likes(laptop, "album", "add", "Cups", "coffee").status == 0)
        _ = try sync(phone)
        _ = try sync(laptop)
        _ = try sync(phone)
        let coffee = try listed(laptop)["coffee"]
        #expect(coffee?["note"] as? String == "on the balcony" && coffee?["albums"] as? [String] == ["Cups", "Mornings"])
        #expect(try sameCollection())

        // An unlike removes the photo everywhere; like, unlike, like again ends liked.
        #expect(try likes(laptop, "unlike", "rocket").status == 0)
        #expect(try likes(phone, "like", "chelsea", "--image", Samples.photo("chelsea.jpg").path).status == 0)
        _ = try sync(laptop)
        _ = try sync(phone)
        let (phoneNow, laptopNow) = (try listed(phone), try listed(laptop))
        #expect(phoneNow["rocket"] == nil && laptopNow["chelsea"] == nil)
        _ = try sync(laptop)
        #expect(try sameCollection())
        #expect(Set(try listed(laptop).keys) == ["coffee", "chelsea"])
        #expect(try likes(phone, "unlike", "chelsea").status == 0)
        _ = try sync(phone)
        _ = try sync(laptop)
        #expect(try listed(laptop)["chelsea"] == nil)
        #expect(try likes(laptop, "like", "chelsea", "--image", Samples.photo("chelsea.jpg").path).status == 0)
        _ = try sync(laptop)
        _ = try sync(phone)
        let relikedOnPhone = try listed(phone)["chelsea"] != nil
        #expect(relikedOnPhone)
        #expect(try sameCollection())
        for store in [laptop, phone] { #expect(try likes(store, "verify").status == 0) }
    }

    @Test func aSyncWithNothingNewWritesNothingAndAnEmptiedFolderRemovesNothing() throws {
        #expect(try likes(laptop, "import", Samples.photos.path).status == 0)
        _ = try sync(laptop)
        _ = try sync(phone)
        let files = { try FileManager.default.subpathsOfDirectory(atPath: box.url.path).sorted() }
        let dates = { () -> [String: Date] in
            var dates: [String: Date] = [:]
            for path in try files() {
                dates[path] = (try FileManager.default.attributesOfItem(atPath: box.path(path)))[.modificationDate] as? Date
            }
            return dates
        }
        let before = try dates()
        Thread.sleep(forTimeInterval: 0.05)
        for store in [laptop, phone] {
            let quiet = try sync(store)
            #expect(quiet["published"] as? Int == 0 && quiet["merged"] as? Int == 0 && (quiet["devices"] as? [Any])?.count == 2)
        }
        #expect(try dates() == before)

        // The folder emptied by mistake (or a drive not mounted): nothing leaves either store.
        let count = try listed(phone).count
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) { try FileManager.default.removeItem(atPath: folder + "/" + name) }
        _ = try sync(phone)
        _ = try sync(laptop)
        #expect(try listed(phone).count == count)
        #expect(try listed(laptop).count == count)
        try FileManager.default.removeItem(atPath: folder)
        let missing = try likes(phone, "sync", folder)
        #expect(missing.status == 66 && missing.stderr.contains("does not exist") && missing.stderr.split(separator: "\n").count == 1)
        #expect(try listed(phone).count == count)
    }

    /// A change file of a newer format is named and skipped (exit 1), a change file still
    /// arriving is pending and named (exit 0), and what else the folder holds is merged.
    @Test func aNewerFormatIsSkippedWithExitOneAndAFileStillArrivingIsPending() throws {
        #expect(try likes(laptop, "like", "rocket", "--image", Samples.photo("rocket.jpg").path).status == 0)
        _ = try sync(laptop)
        let newer = box.path("folder/0123456789abcdef")
        try FileManager.default.createDirectory(atPath: newer, withIntermediateDirectories: true)
        try Data((#"{"count":0,"device":"0123456789abcdef","format":2,"sequence":1}"# + "\n").utf8)
            .write(to: URL(fileURLWithPath: newer + "/changes-00000001.jsonl"))
        let arriving = box.path("folder/fedcba9876543210")
        try FileManager.default.createDirectory(atPath: arriving, withIntermediateDirectories: true)
        try Data((#"{"count":1,"device":"fedcba9876543210","format":1,"sequence":1}"# + "\n").utf8)
            .write(to: URL(fileURLWithPath: arriving + "/changes-00000001.jsonl"))
        let run = try likes(phone, "sync", folder, "--json")
        #expect(run.status == 1 && run.stderr.contains("newer format") && run.stderr.contains("0123456789abcdef/changes-00000001.jsonl"))
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        let report = (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]) ?? [:]
        let pending = (report["pending"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(pending == ["fedcba9876543210/changes-00000001.jsonl"], "\(run.stdout)")
        let phonePhotos = try listed(phone)
        #expect(report["merged"] as? Int == 1 && phonePhotos["rocket"] != nil)
    }

    @Test func aCopiedStoreRefusesAndANewDeviceSyncsAsItself() throws {
        #expect(try likes(laptop, "like", "rocket", "--image", Samples.photo("rocket.jpg").path).status == 0)
        _ = try sync(laptop)
        try FileManager.default.copyItem(atPath: laptop, toPath: phone)
        #expect(try likes(laptop, "like", "coffee", "--image", Samples.photo("coffee.jpg").path).status == 0)
        #expect(try likes(phone, "like", "chelsea", "--image", Samples.photo("chelsea.jpg").path).status == 0)
        _ = try sync(laptop)
        let before = try FileManager.default.subpathsOfDirectory(atPath: folder).sorted()
        let refused = try likes(phone, "sync", folder)
        #expect(
            refused.status == 1 && refused.stderr.contains("copy of another device's") && refused.stderr.contains("--new-device"), "\(refused.stderr)"
        )
        #expect(try FileManager.default.subpathsOfDirectory(atPath: folder).sorted() == before)
        let own = try likes(phone, "sync", folder, "--new-device", "--json")
        #expect(own.status == 0, "\(own.stderr)")
        _ = try sync(laptop)
        #expect(Set(try listed(laptop).keys) == ["rocket", "coffee", "chelsea"])
        #expect(try sameCollection())
    }

    /// `--watch`: a change in the folder is merged, and one in the store published, within 2 s
    /// each; SIGTERM stops it with exit 0.
    @Test func watchingSyncsWithinTwoSecondsOfAChangeOnEitherSide() throws {
        #expect(try likes(laptop, "like", "rocket", "--image", Samples.photo("rocket.jpg").path).status == 0)
        _ = try sync(laptop)
        let watcher = Process()
        watcher.executableURL = Binary.url
        watcher.arguments = ["--store", phone, "sync", folder, "--watch", "--json"]
        let output = Pipe()
        watcher.standardOutput = output
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        defer { if watcher.isRunning { watcher.terminate() } }
        func within(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Double? {
            let start = Date()
            while Date().timeIntervalSince(start) < seconds {
                if try condition() { return Date().timeIntervalSince(start) }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return nil
        }
        #expect(try within(patienceAgainstHanging) { try listed(phone)["rocket"] != nil } != nil, "the first sync did not merge")

        // A like elsewhere, published into the folder: merged here (in well under 2 s on a quiet
        // machine; the figure is printed, and only a hang fails).
        #expect(try likes(laptop, "like", "coffee", "--image", Samples.photo("coffee.jpg").path).status == 0)
        _ = try sync(laptop)
        let merged = try within(patienceAgainstHanging) { try listed(phone)["coffee"] != nil }
        #expect(merged != nil, "never merged")

        // A note here: published, so that the laptop's next sync has it.
        #expect(try likes(phone, "note", "coffee", "from the watch").status == 0)
        let published = try within(patienceAgainstHanging) { (try sync(laptop)["merged"] as? Int ?? 0) > 0 }
        #expect(published != nil, "never published")
        print("sync --watch: merged after \(merged ?? -1) s, published after \(published ?? -1) s")
        #expect(try listed(laptop)["coffee"]?["note"] as? String == "from the watch")

        let stopped = Date()
        watcher.terminate()
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0 && watcher.terminationReason == .exit && Date().timeIntervalSince(stopped) < patienceAgainstHanging)
        // One JSON document a line, for each sync that moved something.
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        #expect(lines.count >= 3 && lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil }, "\(lines)")
    }

    /// Syncs killed (SIGKILL) at random instants on both sides, among likes (each with a note of
    /// its own) and unlikes: every later sync runs (a store never takes a change file it wrote and
    /// did not record for a copy's), and both stores end as the replay of every command in the
    /// order run: a change a killed sync left to publish is stamped as it was made, never after
    /// what a later sync merged.
    @Test func syncsKilledAtAnyInstantLoseNothingAndNeverRefuseThemselves() throws {
        var generator = SystemRandomNumberGenerator()
        let photos = ["rocket", "coffee", "chelsea", "astronaut", "retina", "hubble_deep_field"]
        var laptopLiked = Set<String>()
        var replayed: [String: String] = [:]
        for round in 0..<24 {
            let store = round % 3 == 2 ? phone : laptop
            let name = photos[Int.random(in: 0..<photos.count, using: &generator)]
            let id = "\(name)-\(round % 5)"
            if store == laptop, laptopLiked.contains(id), Bool.random(using: &generator) {
                #expect(try likes(laptop, "unlike", id).status == 0)
                laptopLiked.remove(id)
                replayed[id] = nil
            } else {
                let run = try likes(store, "like", id, "--image", Samples.photo("\(name).jpg").path, "--note", "round \(round)")
                #expect(run.status == 0, "\(run.stderr)")
                if store == laptop { laptopLiked.insert(id) }
                replayed[id] = "round \(round)"
            }
            let script = "exec '\(Binary.url.path)' --store '\(store)' sync '\(folder)'"
            _ = try runKilled(script, after: Double.random(in: 0..<0.06, using: &generator))
        }
        for _ in 0..<2 {
            for store in [laptop, phone] {
                let run = try likes(store, "sync", folder)
                #expect(run.status == 0, "\(run.stderr)")
            }
        }
        #expect(try sameCollection())
        for store in [laptop, phone] {
            #expect(try likes(store, "verify").status == 0)
            let notes = try listed(store).mapValues { $0["note"] as? String ?? "" }
            #expect(notes == replayed, "\(store): \(notes.filter { replayed[$0.key] != $0.value }) against \(replayed)")
        }
    }

    /// An unlike's images leave the folder once every device has merged it; a device that will
    /// not come back is forgotten (`--forget`), and when it does come back it is waited for again
    /// and loses nothing it liked.
    @Test func anUnlikedPhotosImagesLeaveOnceEveryDeviceMergedItAndForgetStopsTheWait() throws {
        #expect(try likes(laptop, "like", "rocket", "--image", Samples.photo("rocket.jpg").path).status == 0)
        #expect(try likes(laptop, "like", "coffee", "--image", Samples.photo("coffee.jpg").path).status == 0)
        let laptopID = try device(laptop)
        let (phoneID, tabletID) = (try device(phone), try device(tablet))
        #expect(images(of: laptopID).count == 2)

        // The phone has not merged the unlike yet: the image stays; once it has, it goes.
        #expect(try likes(laptop, "unlike", "rocket").status == 0)
        _ = try sync(laptop)
        #expect(images(of: laptopID).count == 2)
        _ = try sync(phone)
        _ = try sync(tablet)
        let released = try sync(laptop)
        #expect(released["released"] as? Int == 1 && images(of: laptopID).count == 1, "\(released)")
        #expect(try listed(phone)["rocket"] == nil && listed(tablet)["rocket"] == nil)

        // The tablet is lost: the folder waits for it until it is forgotten.
        #expect(try likes(laptop, "unlike", "coffee").status == 0)
        _ = try sync(laptop)
        _ = try sync(phone)
        #expect(try sync(laptop)["released"] as? Int == 0 && images(of: laptopID).count == 1)
        let unknown = try likes(laptop, "sync", folder, "--forget", "0123456789abcdef")
        #expect(unknown.status == 1 && unknown.stderr.contains("knows no such device") && unknown.stderr.split(separator: "\n").count == 1)
        let itself = try likes(laptop, "sync", folder, "--forget", laptopID)
        #expect(itself.status == 1 && itself.stderr.contains("own device"), "\(itself.stderr)")
        let run = try likes(laptop, "sync", folder, "--forget", tabletID, "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let report = (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]) ?? [:]
        let devices = (report["devices"] as? [[String: Any]]) ?? []
        #expect(devices.first { $0["id"] as? String == tabletID }?["forgotten"] as? Bool == true, "\(report)")
        #expect(devices.first { $0["id"] as? String == phoneID }?["forgotten"] as? Bool == false)
        #expect(report["released"] as? Int == 1 && images(of: laptopID).isEmpty)

        // The tablet comes back with a like of its own: merged everywhere, nothing lost, and it
        // is no longer forgotten.
        #expect(try likes(tablet, "like", "chelsea", "--image", Samples.photo("chelsea.jpg").path).status == 0)
        let back = try sync(tablet)
        #expect(back["merged"] as? Int ?? 0 >= 1 && back["published"] as? Int == 1)
        #expect(try listed(tablet)["coffee"] == nil && listed(tablet)["chelsea"] != nil)
        let laptopNow = try sync(laptop)
        let tabletEntry = (laptopNow["devices"] as? [[String: Any]])?.first { $0["id"] as? String == tabletID }
        #expect(tabletEntry?["forgotten"] as? Bool == false && tabletEntry?["lastChange"] is String, "\(laptopNow)")
        _ = try sync(phone)
        #expect(try sameCollection() && sameCollection(laptop, tablet))
        for store in [laptop, phone, tablet] { #expect(try likes(store, "verify").status == 0) }
    }

    /// With no other device to wait for, the sync that publishes an unlike lets go of the image.
    @Test func aLoneDevicesUnlikeLetsGoOfTheImageInTheSameSync() throws {
        #expect(try likes(laptop, "like", "rocket", "--image", Samples.photo("rocket.jpg").path).status == 0)
        let laptopID = try device(laptop)
        #expect(images(of: laptopID).count == 1)
        #expect(try likes(laptop, "unlike", "rocket").status == 0)
        let report = try sync(laptop)
        #expect(report["published"] as? Int == 1 && report["released"] as? Int == 1 && images(of: laptopID).isEmpty, "\(report)")
    }

    /// Two photos with the same bytes share one image file in the folder: unliking one lets go
    /// of nothing the other needs, and a device new to the folder still gets it.
    @Test func anImageTwoPhotosShareStaysWhenOneIsUnliked() throws {
        #expect(try likes(laptop, "like", "rocket", "--image", Samples.photo("rocket.jpg").path).status == 0)
        #expect(try likes(laptop, "like", "rocket-again", "--image", Samples.photo("rocket.jpg").path).status == 0)
        let laptopID = try device(laptop)
        _ = try sync(phone)
        #expect(images(of: laptopID).count == 1)
        #expect(try likes(laptop, "unlike", "rocket").status == 0)
        _ = try sync(laptop)
        _ = try sync(phone)
        #expect(try sync(laptop)["released"] as? Int == 0 && images(of: laptopID).count == 1)
        _ = try sync(tablet)
        #expect(try listed(tablet)["rocket-again"] != nil && listed(tablet)["rocket"] == nil)
        #expect(try sameCollection(laptop, tablet))
        #expect(try likes(laptop, "unlike", "rocket-again").status == 0)
        for store in [laptop, phone, tablet, laptop] { _ = try sync(store) }
        #expect(images(of: laptopID).isEmpty)
    }

    /// Many syncs of a few changes each: a device compacts its change files into a snapshot
    /// (fewer files in the folder, the last unlike of each photo kept), and a device that comes
    /// new to the folder afterwards gets the same collection, without what was unliked.
    @Test func changeLogsAreCompactedAndANewDeviceStillGetsTheCollection() throws {
        #expect(try likes(laptop, "import", Samples.photos.path).status == 0)
        let laptopID = try device(laptop)
        _ = try sync(phone)
        #expect(try likes(laptop, "unlike", "rocket").status == 0)
        var compacted = false
        for round in 0..<10 {
            #expect(try likes(laptop, "note", "coffee", "round \(round)").status == 0)
            compacted = try sync(laptop)["compacted"] as? Bool == true || compacted
            _ = try sync(phone)
        }
        #expect(compacted)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder + "/" + laptopID).filter { $0.hasPrefix("changes-") }
        #expect(files.count < 8, "\(files)")
        let snapshot = try files.map { try String(contentsOfFile: folder + "/" + laptopID + "/" + $0, encoding: .utf8) }.first {
            $0.contains("\"snapshot\":true")
        }
        #expect(snapshot?.contains("\"kind\":\"unlike\"") == true && snapshot?.contains("\"id\":\"rocket\"") == true)
        _ = try sync(tablet)
        #expect(try sameCollection() && sameCollection(laptop, tablet))
        #expect(try listed(tablet)["rocket"] == nil && listed(tablet)["coffee"]?["note"] as? String == "round 9")
        // The rocket's image left once both had merged the unlike.
        let names = Set(images(of: laptopID))
        #expect(names.count == (try listed(laptop)).count, "\(names)")
    }

    /// A folder emptied (an `rm`, a deletion the engine carried to every copy): no store loses a
    /// photo, each publishes what it holds again, and a device new to the folder gets it all.
    @Test func aStoreWhoseFilesLeftTheFolderPublishesThemAgain() throws {
        #expect(try likes(laptop, "import", Samples.photos.path).status == 0)
        #expect(try likes(phone, "like", "extra", "--image", Samples.photo("rocket.jpg").path, "--note", "phone's").status == 0)
        _ = try sync(laptop)
        _ = try sync(phone)
        _ = try sync(laptop)
        let count = try listed(laptop).count
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) { try FileManager.default.removeItem(atPath: folder + "/" + name) }
        let again = try sync(laptop)
        #expect(again["compacted"] as? Bool == true && again["merged"] as? Int == 0)
        _ = try sync(phone)
        #expect(try listed(laptop).count == count && listed(phone).count == count)
        _ = try sync(tablet)
        #expect(try sameCollection(laptop, tablet))
        #expect(try listed(tablet)["extra"]?["note"] as? String == "phone's")
    }

    /// `watch --json` on one store hears the other's like, merged by a sync, with the other's
    /// device; and its own like with its own.
    @Test func watchNamesTheDeviceOfEachChange() throws {
        let laptopID = try device(laptop)
        let phoneID = try device(phone)
        let watcher = try Watcher(store: URL(fileURLWithPath: laptop))
        defer { watcher.stop() }
        #expect(try likes(phone, "like", "rocket", "--image", Samples.photo("rocket.jpg").path).status == 0)
        _ = try sync(phone)
        _ = try sync(laptop)
        #expect(try likes(laptop, "like", "coffee", "--image", Samples.photo("coffee.jpg").path).status == 0)
        #expect(try likes(phone, "unlike", "rocket").status == 0)
        _ = try sync(phone)
        _ = try sync(laptop)
        // A last change, made here after the others: its line comes after theirs.
        #expect(try likes(laptop, "note", "coffee", "the last").status == 0)
        let changes = try (0..<4).map { index in
            let line = try watcher.line(index)
            return "\(line["change"] as? String ?? "") \(line["id"] as? String ?? "") \(line["device"] as? String ?? "null")"
        }
        #expect(changes == ["liked rocket \(phoneID)", "liked coffee \(laptopID)", "unliked rocket \(phoneID)", "updated coffee \(laptopID)"])
    }

    /// A sync runs beside other processes on the store: `sync --watch` on the laptop while
    /// another process likes, notes and unlikes there, and a second sync runs at the same time;
    /// afterwards both stores hold what the laptop ended with, and verify.
    @Test func aSyncRunsBesideOtherProcessesOnTheStore() throws {
        #expect(try likes(laptop, "import", Samples.photos.path).status == 0)
        let watcher = Process()
        watcher.executableURL = Binary.url
        watcher.arguments = ["--store", laptop, "sync", folder, "--watch"]
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        defer { if watcher.isRunning { watcher.terminate() } }
        let names = ["rocket", "coffee", "chelsea", "astronaut", "retina", "hubble_deep_field"]
        for round in 0..<30 {
            let name = names[round % names.count]
            let run: Run
            switch round % 3 {
            case 0: run = try likes(laptop, "like", "\(name)-\(round)", "--image", Samples.photo("\(name).jpg").path)
            case 1: run = try likes(laptop, "note", name, "round \(round)")
            default: run = try likes(laptop, "unlike", "\(names[(round - 2) % names.count])-\(round - 2)")
            }
            #expect(run.status == 0, "round \(round): \(run.stderr)")
            if round % 10 == 5 { #expect(try likes(laptop, "sync", folder).status == 0) }
        }
        Thread.sleep(forTimeInterval: 0.5)
        watcher.terminate()
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
        _ = try sync(laptop)
        _ = try sync(phone)
        #expect(try sameCollection())
        #expect(try listed(phone)["retina"]?["note"] as? String == "round 28")
        for store in [laptop, phone] { #expect(try likes(store, "verify").status == 0) }
    }

    /// What a store keeps between syncs, damaged: sync refuses in one line (exit 1), verify
    /// names it, repair sets it aside (deleting nothing), and the next sync makes the store a new
    /// device that ends with the same collection.
    @Test func repairSetsDamagedSyncBookkeepingAsideAndTheStoreSyncsAsANewDevice() throws {
        #expect(try likes(laptop, "import", Samples.photos.path).status == 0)
        let laptopID = try device(laptop)
        _ = try sync(phone)
        #expect(try likes(phone, "note", "coffee", "from the phone").status == 0)
        _ = try sync(phone)
        for damaging in ["state", "photos-"] {
            // The state, or every shard of the photos' side (a change on the laptop reads its own).
            for name in try FileManager.default.contentsOfDirectory(atPath: laptop + "/sync") where name.hasPrefix(damaging) {
                try Data("{\"engine\":".utf8).write(to: URL(fileURLWithPath: laptop + "/sync/" + name))
            }
            #expect(try likes(laptop, "album", "add", "Damaged \(damaging)", "rocket").status == 0)
            let refused = try likes(laptop, "sync", folder)
            #expect(
                refused.status == 1 && refused.stderr.contains("likes repair") && refused.stderr.split(separator: "\n").count == 1,
                "\(refused.stderr)")
            let verify = try likes(laptop, "verify")
            #expect(verify.status == 1 && verify.stdout.contains("sync bookkeeping"), "\(verify.stdout)")
            let repair = try likes(laptop, "repair")
            #expect(repair.status == 0 && repair.stdout.contains("new device"), "\(repair.stdout)")
            #expect(try likes(laptop, "verify").status == 0)
            let again = try sync(laptop)
            #expect(again["device"] as? String != laptopID && again["merged"] as? Int ?? 0 > 0, "\(again)")
            _ = try sync(phone)
            #expect(try sameCollection())
            #expect(try listed(laptop)["coffee"]?["note"] as? String == "from the phone")
        }
        let shelved = try FileManager.default.subpathsOfDirectory(atPath: laptop + "/damaged").filter { $0.hasSuffix("state.json") }
        #expect(shelved.count == 2, "\(shelved)")
        #expect(try listed(phone)["rocket"]?["albums"] as? [String] == ["Damaged photos-", "Damaged state"])
    }
}

/// The end-to-end run with two real Syncthing daemons (Tests/Tools/syncthing_pair.py), each
/// check a line of its output.
@Suite(.ownLane) struct SyncthingTests {
    static let script = Samples.root.appendingPathComponent("Tests/Tools/syncthing_pair.py")
    static let needs = ConditionTrait.enabled(
        if: (Needs.executable("/usr/bin/syncthing") && Needs.python()) || Needs.inCI, "needs Syncthing (apt-get install syncthing) and python3")

    @Test(needs) func twoSyncthingDaemonsCarryEverySideToTheOtherWithinSeconds() throws {
        let run = try TemporaryFolder.execute(
            [Self.script.path, "--likes", Binary.url.path, "--samples", Samples.photos.path], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for check in [
            "the two daemons connect over 127.0.0.1", "a like on the laptop reaches the phone",
            "a like and a note change on the phone reach the laptop", "albums filed on both sides and a user image reach both",
            "an unlike on each side reaches the other", "both stores list the same photos, dates, notes and image bytes",
            "the phone's watch hears the laptop's likes with the laptop's device",
        ] {
            #expect(run.stdout.contains("ok   " + check), "\(check): \(run.stdout)")
        }
        #expect(run.stdout.contains("syncthing-pair: 13 passed, 0 failed"), "\(run.stdout)")
    }
}

/// Issue 49: three stores, an unkind engine and every command that changes a photo, judged by
/// a replay written apart from the code (Tests/Tools/sync_replay.py). The seeds that found the
/// defects (the script's docstring says which found what), without and with a tenth of the syncs
/// killed, and (issue 64) a few with maintenance drawn between syncs (purge, a rebuilt index,
/// repair, a backup restored, verify, a journal cut short), killed too; thousands run by hand.
@Suite(.ownLane) struct SyncReplayTests {
    static let script = Samples.root.appendingPathComponent("Tests/Tools/sync_replay.py")

    @Test(
        Needs.python3,
        arguments: [
            Replay(seeds: "1,2,3,4,5,8", killRate: 0, rounds: 60), Replay(seeds: "4001,10002,10217,10359", killRate: 0.1, rounds: 120),
            Replay(seeds: "100029,100091", killRate: 0.1, rounds: 120, maintenance: 0.3),
        ])
    func threeStoresConvergeToTheReplayOfEveryAcknowledgedChange(replay: Replay) throws {
        let run = try TemporaryFolder.execute(
            [
                Self.script.path, "--likes", Binary.url.path, "--samples", Samples.photos.path, "--seeds", replay.seeds, "--rounds",
                String(replay.rounds), "--kill-rate", String(replay.killRate), "--maintenance", String(replay.maintenance), "--jobs", "2",
            ], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("runs clean"), "\(run.stdout)")
    }

    /// Which runs of the replay, how many syncs killed, and how often a maintenance command is drawn.
    struct Replay: Sendable, CustomTestStringConvertible {
        var seeds: String
        var killRate: Double
        var rounds: Int
        var maintenance = 0.0
        var testDescription: String { "seeds \(seeds), kill rate \(killRate), maintenance \(maintenance)" }
    }
}
