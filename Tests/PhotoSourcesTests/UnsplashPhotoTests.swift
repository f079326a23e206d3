// Unsplash API responses exactly as recorded: what a favorite keeps of each photo.

import Foundation
import LikeKit
import PhotoSources
import TestSupport
import Testing

@Suite(.ownLane) struct UnsplashPhotoTests {
    /// Tests/Fixtures/unsplash, beside this target's folder.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/unsplash", isDirectory: true)

    func fixture(_ name: String) throws -> Data { try Data(contentsOf: Self.fixtures.appendingPathComponent(name)) }

    @Test func singlePhotoGivesItsMetadata() throws {
        let photos = try UnsplashPhoto.photos(fromJSON: fixture("photo.json"))
        #expect(photos.count == 1)
        let photo = photos[0]
        #expect(photo.id == "vUGBY_MnSsg")
        #expect(
            photo.metadata
                == PhotoMetadata(
                    description: "black and white checkered textile", photographer: "Hao Wen", photographerUsername: "oweni", color: "#262626",
                    sourceURL: "https://unsplash.com/photos/vUGBY_MnSsg", width: 5000, height: 6438,
                    createdAt: Date(timeIntervalSince1970: 1_612_253_425), photographerURL: "https://unsplash.com/@oweni"))
        #expect(
            photo.downloadLocation
                == "https://api.unsplash.com/photos/vUGBY_MnSsg/download?ixid=MnwxMTEwMDh8MHwxfGFsbHx8fHx8fHx8fDE2MTgxNTM4MzE")
        #expect(photo.imageURL?.absoluteString.hasPrefix("https://images.unsplash.com/photo-1612253344366-7d3279d85b2f?") == true)
        #expect(photo.userImageURL?.absoluteString.contains("h=64&w=64") == true)
    }

    @Test(arguments: [
        ("list-photos.json", 2), ("search-photos.json", 10), ("topic-photos-null-blurhash.json", 10),
        ("collection-photos-null-descriptions.json", 10), ("search-photos-2017-legacy.json", -1),
    ])
    func everyShapeOfResponseDecodes(name: String, count: Int) throws {
        let photos = try UnsplashPhoto.photos(fromJSON: fixture(name))
        if count >= 0 { #expect(photos.count == count) }
        #expect(!photos.isEmpty)
        #expect(photos.allSatisfy { !$0.id.isEmpty && $0.metadata.photographer != nil })
    }

    @Test func missingDescriptionsStayNil() throws {
        let photos = try UnsplashPhoto.photos(fromJSON: fixture("collection-photos-null-descriptions.json"))
        let bare = try #require(photos.first { $0.id == "lXjiXwf_IPU" })
        #expect(bare.metadata.description == nil)
    }

    @Test func wrongTypesAreToleratedWhereOptional() throws {
        let json = #"{"id": "x", "width": "wide", "color": 7, "user": {"name": ["a"]}, "links": null, "created_at": "yesterday"}"#
        let photo = try #require(try UnsplashPhoto.photos(fromJSON: Data(json.utf8)).first)
        #expect(photo.metadata == PhotoMetadata())
    }

    @Test(arguments: [
        ("[1]", "Item 1 of the array is not a JSON object, so it is not an Unsplash photo."),
        (#"{"total": 1}"#, "The JSON object has no string \"id\", so it is not an Unsplash photo."),
        ("nope", "The file is not valid JSON."),
        ("\"text\"", "The JSON is neither an Unsplash photo, an array of photos nor a search response."),
    ])
    func nonPhotosAreRefusedWithAReason(json: String, message: String) {
        #expect(throws: PhotoSourceError(.malformed, message)) { try UnsplashPhoto.photos(fromJSON: Data(json.utf8)) }
    }

    @Test func deepNestingAndHugeStringsNeverCrash() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: PhotoSourceError.self) { try UnsplashPhoto.photos(fromJSON: Data(deep.utf8)) }
        let huge = #"{"id": "x", "description": ""# + String(repeating: "a", count: 5_000_000) + #""}"#
        #expect(try UnsplashPhoto.photos(fromJSON: Data(huge.utf8)).first?.metadata.description?.count == 5_000_000)
    }
}
