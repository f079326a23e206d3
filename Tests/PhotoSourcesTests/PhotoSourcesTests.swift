// Unsplash's and Flickr's requests as the APIs document them, and their recorded answers read
// (Tests/Fixtures/unsplash and flickr, with their sources in SOURCES.md).

import Foundation
import LikeKit
import PhotoSources
import TestSupport
import Testing

@Suite(.ownLane) struct PhotoSourcesTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures", isDirectory: true)

    func fixture(_ path: String) throws -> Data { try Data(contentsOf: Self.fixtures.appendingPathComponent(path)) }

    /// The query of `url`, unescaped, as pairs.
    func query(_ url: String) -> [String: String] {
        let components = URLComponents(string: url)
        return Dictionary(uniqueKeysWithValues: (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
    }

    @Test func anUnsplashSearchAsksWhatTheDocumentationNames() {
        let request = UnsplashAPI.search("tram lisbon & café", order: .latest, color: "black_and_white", page: 3, perPage: 30, accessKey: "k-1")
        #expect(request.url.hasPrefix("https://api.unsplash.com/search/photos?"))
        #expect(
            query(request.url) == ["query": "tram lisbon & café", "page": "3", "per_page": "30", "order_by": "latest", "color": "black_and_white"])
        #expect(request.headers == [.init("Authorization", "Client-ID k-1"), .init("Accept-Version", "v1")])
        let plain = UnsplashAPI.search("x", accessKey: "k", base: "http://127.0.0.1:9/")
        #expect(plain.url == "http://127.0.0.1:9/search/photos?query=x&page=1&per_page=10&order_by=relevant")
        #expect(UnsplashAPI.photo("a/b c", accessKey: "k").url == "https://api.unsplash.com/photos/a%2Fb%20c")
    }

    @Test func anUnsplashSearchAnswerIsRead() throws {
        let page = try UnsplashAPI.searchResults(from: fixture("unsplash/search-photos.json"))
        #expect(page.total > 0 && page.totalPages > 0 && !page.results.isEmpty)
        #expect(page.results.allSatisfy { !$0.id.isEmpty })
        #expect(throws: PhotoSourceError.self) { try UnsplashAPI.searchResults(from: fixture("unsplash/photo.json")) }
    }

    @Test func theDownloadIsTrackedAtThePhotosOwnAddressOrTheStandIns() throws {
        let photo = try UnsplashAPI.photo(from: fixture("unsplash/photo.json"))
        let tracking = try #require(UnsplashAPI.downloadTracking(photo, accessKey: "k"))
        #expect(tracking.url == "https://api.unsplash.com/photos/vUGBY_MnSsg/download?ixid=MnwxMTEwMDh8MHwxfGFsbHx8fHx8fHx8fDE2MTgxNTM4MzE")
        #expect(tracking.headers.contains(.init("Authorization", "Client-ID k")))
        let local = try #require(UnsplashAPI.downloadTracking(photo, accessKey: "k", base: "http://127.0.0.1:8080"))
        #expect(local.url == "http://127.0.0.1:8080/photos/vUGBY_MnSsg/download?ixid=MnwxMTEwMDh8MHwxfGFsbHx8fHx8fHx8fDE2MTgxNTM4MzE")
        #expect(photo.metadata.photographerURL == "https://unsplash.com/@oweni")
    }

    @Test func unsplashFailuresAreNamed() {
        #expect(UnsplashAPI.failure(status: 403, rateLimitRemaining: "0", body: Data()).kind == .rateLimited)
        #expect(UnsplashAPI.failure(status: 403, rateLimitRemaining: "12", body: Data()).kind == .failed)
        let refused = UnsplashAPI.failure(
            status: 401, rateLimitRemaining: nil, body: Data(#"{"errors":["OAuth error: The access token is invalid"]}"#.utf8))
        #expect(refused.kind == .key)
        #expect(
            refused.description
                == "Unsplash answered HTTP 401: it refused the access key (OAuth error: The access token is invalid); check UNSPLASH_ACCESS_KEY.")
        #expect(UnsplashAPI.failure(status: 404, rateLimitRemaining: nil, body: Data()).kind == .notFound)
    }

    @Test func aFlickrSearchAsksWhatTheDocumentationNames() {
        let request = FlickrAPI.search("tram lisbon", sort: "date-posted-desc", page: 2, perPage: 25, apiKey: "f-1")
        #expect(request.url.hasPrefix("https://api.flickr.com/services/rest?"))
        #expect(
            query(request.url) == [
                "method": "flickr.photos.search", "api_key": "f-1", "text": "tram lisbon", "sort": "date-posted-desc", "page": "2",
                "per_page": "25", "extras": "owner_name,license,o_dims,url_m", "format": "json", "nojsoncallback": "1",
            ])
        #expect(query(FlickrAPI.sizes("8436466166", apiKey: "k").url)["method"] == "flickr.photos.getSizes")
        #expect(query(FlickrAPI.info("8436466166", apiKey: "k").url)["photo_id"] == "8436466166")
        #expect(query(FlickrAPI.licenses(apiKey: "k").url)["method"] == "flickr.photos.licenses.getInfo")
    }

    @Test func flickrAnswersAreReadWithNumbersAsStringsOrNumbers() throws {
        let page = try FlickrAPI.searchResults(from: fixture("flickr/search-photos.json"))
        #expect(page.total == 30 && page.page == 1 && page.totalPages == 1 && page.results.count == 30)
        let first = page.results[0]
        #expect(first.id == "49514337848" && first.title == "Warsy (église) • 7433" && first.ownerName == "markustrois")
        #expect(first.smallImageURL == "https://live.staticflickr.com/65535/49514337848_bbdbb5f761.jpg")
        let sizes = try FlickrAPI.sizes(from: fixture("flickr/getSizes-8436466166.json"))
        #expect(sizes.count == 12)
        let chosen = try #require(FlickrAPI.largestSize(sizes))
        #expect(chosen.label == "Large 2048" && chosen.width == 2048 && chosen.height == 1362)
        let info = try FlickrAPI.info(from: fixture("flickr/getInfo-8436466166.json"))
        #expect(info.username == "Joi" && info.realname == "Joi Ito" && info.title == "Skies over Boston" && info.licenseID == "4")
        #expect(info.pageURL == "https://www.flickr.com/photos/joi/8436466166/")
        let names = try FlickrAPI.licenseNames(from: fixture("flickr/licenses-getInfo.json"))
        #expect(names["4"] == "Attribution License")
        let metadata = FlickrAPI.metadata(info, licenseName: names[info.licenseID ?? ""], width: chosen.width, height: chosen.height)
        #expect(metadata.photographer == "Joi Ito" && metadata.photographerUsername == "Joi" && metadata.title == "Skies over Boston")
        #expect(metadata.license == "Attribution License" && metadata.sourceURL == "https://www.flickr.com/photos/joi/8436466166/")
        // Its date taken, the camera's wall-clock time, becomes the source's date: the order by
        // date taken places it there.
        #expect(info.taken == "2013-01-30 00:18:12")
        #expect(metadata.createdAt.map(LikeTimestamp.string(from:)) == "2013-01-30T00:18:12.000Z")
        var unknown = String(decoding: try fixture("flickr/getInfo-8436466166.json"), as: UTF8.self)
        unknown = unknown.replacingOccurrences(of: #""takenunknown": "0""#, with: #""takenunknown": "1""#)
        #expect(unknown.contains(#""takenunknown": "1""#))
        #expect(try FlickrAPI.info(from: Data(unknown.utf8)).taken == nil, "a date Flickr says it does not know is not the date taken")
    }

    @Test func flickrErrorsAreNamed() throws {
        #expect(throws: PhotoSourceError(.key, "Flickr refused the API key (Invalid API Key (Key has invalid format)); check FLICKR_API_KEY.")) {
            try FlickrAPI.searchResults(from: fixture("flickr/error-invalid-api-key.json"))
        }
        #expect(throws: PhotoSourceError.self) { try FlickrAPI.sizes(from: fixture("flickr/error-method-not-found.json")) }
    }
}
