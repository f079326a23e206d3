// LikeRepositoryError's texts as an app shows them: every case says what went wrong, and none
// names a command of the command line (SPEC §6), which adds its own advice.

import Foundation
import LikeKit
import TestSupport
import Testing

@Suite(.ownLane) struct ErrorTextTests {
    /// The case's name: exhaustive, so that a new case must be named here, and then
    /// `everyCase` must hold one of it for the test to pass.
    static func kind(_ error: LikeRepositoryError) -> String {
        switch error {
        case .invalidID: "invalidID"
        case .notJPEG: "notJPEG"
        case .notLiked: "notLiked"
        case .imageRequired: "imageRequired"
        case .storeBusy: "storeBusy"
        case .io: "io"
        case .damagedRecord: "damagedRecord"
        case .damagedImage: "damagedImage"
        case .idCollision: "idCollision"
        case .invalidArgument: "invalidArgument"
        case .invalidAlbumName: "invalidAlbumName"
        case .invalidNote: "invalidNote"
        case .noSuchAlbum: "noSuchAlbum"
        case .notInAlbum: "notInAlbum"
        case .exportDestinationUnusable: "exportDestinationUnusable"
        case .storeNeedsRepair: "storeNeedsRepair"
        case .unusableExport: "unusableExport"
        case .syncFolderMissing: "syncFolderMissing"
        case .syncFolderNotAFolder: "syncFolderNotAFolder"
        case .copiedStore: "copiedStore"
        case .damagedSyncState: "damagedSyncState"
        case .unknownSyncDevice: "unknownSyncDevice"
        case .newerFormat: "newerFormat"
        }
    }

    static let kinds = [
        "invalidID", "notJPEG", "notLiked", "imageRequired", "storeBusy", "io", "damagedRecord", "damagedImage", "idCollision",
        "invalidArgument", "invalidAlbumName", "invalidNote", "noSuchAlbum", "notInAlbum", "exportDestinationUnusable", "storeNeedsRepair",
        "unusableExport", "syncFolderMissing", "syncFolderNotAFolder", "copiedStore", "damagedSyncState", "unknownSyncDevice",
        "newerFormat",
    ]

    static func everyCase() throws -> [LikeRepositoryError] {
        let id = try PhotoID("rocket")
        let album = try AlbumName("Lisbon")
        return [
            .invalidID("bad\u{7}", reason: "it contains the control character U+0007"), .notJPEG(image: .image, reason: "it is a PNG"),
            .notJPEG(image: .userImage, reason: "it is empty"), .notLiked(id: id), .imageRequired(id: id),
            .storeBusy(directory: "/store", waitedSeconds: 10), .io(action: "write", path: "/store/records/a.json", code: 28),
            .damagedRecord(file: "records/a.json", reason: "not JSON"), .damagedImage(file: "images/a~1.jpg", reason: "is missing"),
            .idCollision(id: id, existing: try PhotoID("other")), .invalidArgument("The limit must not be negative; it was -1."),
            .invalidAlbumName("", reason: "it is empty"), .invalidNote(reason: "it is blank"), .noSuchAlbum(album),
            .notInAlbum(id: id, album: album), .exportDestinationUnusable(path: "/out", reason: "it holds other files"),
            .storeNeedsRepair(directory: "/store", problem: "the journal is damaged"),
            .unusableExport(path: "/backup", reason: "its format is likes-export-9"), .syncFolderMissing(path: "/sync"),
            .syncFolderNotAFolder(path: "/sync"),
            .copiedStore(device: "1a2b3c4d5e6f7a8b", file: "changes/1a2b.jsonl"),
            .damagedSyncState(file: "sync/state.json", reason: "is not JSON"),
            .unknownSyncDevice(device: "ffff", reason: "the folder does not know it"),
            .newerFormat(file: "likes.journal", format: "likes-journal-3"),
        ]
    }

    @Test func everyCaseSaysWhatWentWrongAndNamesNoCommand() throws {
        let errors = try Self.everyCase()
        #expect(Set(errors.map(Self.kind)) == Set(Self.kinds), "a case without a sample: \(Set(Self.kinds).subtracting(errors.map(Self.kind)))")
        for error in errors {
            let texts = [error.errorDescription, error.recoverySuggestion, error.description].compactMap { $0 }
            #expect(!(error.errorDescription ?? "").isEmpty && error.description.hasSuffix("."), "\(Self.kind(error)): \(error.description)")
            for text in texts {
                // A command line's words: a backquoted command, `likes …`, an option.
                let namesCommand =
                    text.contains("`") || text.range(of: #"\blikes [a-z]"#, options: .regularExpression) != nil
                    || text.range(of: #"(^|\s)--[a-z]"#, options: .regularExpression) != nil
                #expect(!namesCommand, "\(Self.kind(error)) names a command: \(text)")
            }
            #expect(error.localizedDescription == error.errorDescription, "\(Self.kind(error))")
        }
    }
}
