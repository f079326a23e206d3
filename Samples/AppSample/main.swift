// likes-app-sample: LikeKit under the screens of a small photo app (a search grid with hearts
// from LikeStatus, a Favorites list that is LikeKit's LikedPhotos, paged by cursor and kept fresh
// by changes, an album with a chosen cover, a second device kept in step by sync sessions),
// driven through one session as a person would use it, printing what each screen shows. It checks what it
// shows and exits 1 if a screen is wrong, so CI runs it as a test.
//
//   swift run likes-app-sample [STORE]      (a new temporary store by default)

import Foundation
import LikeKit

@MainActor func check(_ condition: Bool, _ what: String) {
    guard !condition else { return }
    print("✘ \(what)")
    exit(1)
}

/// Waits (up to 5 s) for the changes to reach the view models.
@MainActor func settle(until condition: () -> Bool) async {
    let deadline = Date().addingTimeInterval(5)
    while !condition(), Date() < deadline { try? await Task.sleep(for: .milliseconds(5)) }
}

@MainActor func show(_ results: SearchResultsModel) {
    for result in results.results {
        print(
            "  \(results.hearts.isLiked(result.id) ? "♥" : "♡") \(result.id.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0)) \(result.title.prefix(48)) — \(result.photographer)"
        )
    }
}

@MainActor func show(_ favorites: LikedPhotos) {
    for record in favorites.records {
        let note = record.note.map { " “\($0)”" } ?? ""
        print("  \(record.id.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0)) \(record.image.width)×\(record.image.height)\(note)")
    }
    if favorites.hasMore { print("  … more") }
}

/// The session, a screen at a time. (In a function: at the top level of `main.swift` the
/// synchronous overloads would be chosen.)
@MainActor func session() async throws {
    let store =
        CommandLine.arguments.count > 1
        ? URL(fileURLWithPath: CommandLine.arguments[1], isDirectory: true)
        : FileManager.default.temporaryDirectory.appendingPathComponent("likes-app-sample-\(UUID().uuidString)", isDirectory: true)
    let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("photos")
    // An app keeps its store in LikeRepository.defaultDirectory, or defaultDirectory(appGroup:) to
    // share it with a widget; the sample takes a folder of its own.
    let repository = LikeRepository(directory: store)
    let search = PhotoSearch(folder: photos)
    print("Store: \(store.path)")

    // The search screen: six results, no heart filled yet.
    let results = SearchResultsModel(repository: repository, search: search)
    try await results.load("")
    print("\nSearch (all photos): \(results.results.count) results")
    show(results)
    check(results.results.count == 6 && results.hearts.liked.isEmpty, "six results, none liked")

    // The Favorites screen is a live query, two photos a page, following the store from the start.
    let favorites = LikedPhotos(repository, query: LikeQuery(limit: 2))
    await favorites.load()
    check(favorites.isLoaded && favorites.records.isEmpty && !favorites.hasMore, "no favorites yet")

    // Hearts tapped on four photos: each downloads its JPEG and likes it.
    let tapped = ["rocket", "chelsea", "coffee", "retina"].map { try! PhotoID($0) }
    for id in tapped { await results.tapHeart(id) }
    print("\nTapped ♡ on \(tapped.map(\.rawValue).joined(separator: ", "))")
    show(results)
    check(results.hearts.liked == Set(tapped), "four hearts filled")

    // Favorites heard each like and shows what it loaded so far: the pages shown grow with it.
    await settle { favorites.records.count == 4 }
    print("\nFavorites, kept fresh by the store's changes:")
    show(favorites)
    check(favorites.records.map(\.id) == tapped.reversed(), "favorites newest first")

    // Paging by cursor while a widget likes a photo between two pages: nothing twice, nothing lost.
    let pager = LikedPhotos(repository, query: LikeQuery(limit: 2))
    await pager.load()
    let widget = LikeRepository(directory: store)  // as another process would
    try await widget.like(try PhotoID("astronaut"), image: try Data(contentsOf: photos.appendingPathComponent("astronaut.jpg")))
    await settle { pager.records.first?.id.rawValue == "astronaut" }
    while pager.hasMore { await pager.loadMore() }
    print("\nFavorites paged 2 at a time, a widget liking astronaut between the pages:")
    show(pager)
    check(pager.records.map(\.id.rawValue) == ["astronaut", "retina", "coffee", "chelsea", "rocket"] && !pager.hasMore, "pages by cursor")

    // The search screen's hearts hear the widget too.
    await results.tapHeart(try PhotoID("hubble_deep_field"))
    try await widget.unlike(try PhotoID("chelsea"))
    let (hubble, chelsea) = (try PhotoID("hubble_deep_field"), try PhotoID("chelsea"))
    await settle { !results.hearts.isLiked(chelsea) }
    check(results.hearts.isLiked(hubble) && !results.hearts.isLiked(chelsea), "hearts heard the widget")

    // An album: count and cover, the newest photo until one is chosen.
    let album = AlbumModel(repository: repository, name: try AlbumName("Space"))
    try await album.add(["rocket", "hubble_deep_field"].map { try! PhotoID($0) })
    check(album.summary?.count == 2 && album.summary?.cover?.id.rawValue == "hubble_deep_field", "album count and cover")
    try await album.chooseCover(try PhotoID("rocket"))
    print("\nAlbum \(album.name.rawValue): \(album.summary?.count ?? 0) photos, cover \(album.summary?.cover?.id.rawValue ?? "-") (chosen)")
    for record in album.photos { print("  \(record.id.rawValue)") }
    check(album.summary?.cover?.id.rawValue == "rocket" && album.summary?.coverChosen == true, "the chosen cover")

    // A note, and an unlike from the grid: Favorites updates in place.
    try await repository.setNote("Launch day", for: try PhotoID("rocket"))
    await results.tapHeart(try PhotoID("coffee"))
    await settle {
        favorites.records.first { $0.id.rawValue == "rocket" }?.note == "Launch day" && !favorites.records.contains { $0.id.rawValue == "coffee" }
    }
    print("\nFavorites after a note on rocket and an unlike of coffee:")
    show(favorites)
    check(favorites.records.map(\.id.rawValue) == ["hubble_deep_field", "astronaut", "retina", "rocket"], "favorites after unlike")
    check(favorites.records.last?.note == "Launch day", "note shown")

    // Another device, through a sync folder: a session on each side keeps the stores in step,
    // and Favorites shows the laptop's like as it shows any other.
    let temporary = FileManager.default.temporaryDirectory
    let laptopStore = temporary.appendingPathComponent("likes-app-sample-laptop-\(UUID().uuidString)", isDirectory: true)
    let syncFolder = temporary.appendingPathComponent("likes-app-sample-sync-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: syncFolder, withIntermediateDirectories: true)
    let laptop = LikeRepository(directory: laptopStore)
    let syncing = [repository.startSyncing(with: syncFolder), laptop.startSyncing(with: syncFolder)]
    try await laptop.like(try PhotoID("from-the-laptop"), image: try Data(contentsOf: photos.appendingPathComponent("astronaut.jpg")))
    await settle { favorites.records.first?.id.rawValue == "from-the-laptop" }
    print("\nFavorites after a like on the laptop, synced through a folder:")
    show(favorites)
    check(favorites.records.first?.id.rawValue == "from-the-laptop", "the laptop's like synced")
    for session in syncing { session.stop() }
    try? FileManager.default.removeItem(at: laptopStore)
    try? FileManager.default.removeItem(at: syncFolder)

    // An error an app can show as it is.
    let broken = SearchResultsModel(repository: repository, search: PhotoSearch(folder: photos.appendingPathComponent("missing")))
    do {
        try await broken.load("")
        check(false, "a search of a missing folder fails")
    } catch {
        print("\nA failing search says: \(error.localizedDescription)")
    }
    check(try await repository.verify().isOK, "the store verifies")
    print("\n✔ Every screen showed what the store holds.")
    if CommandLine.arguments.count < 2 { try FileManager.default.removeItem(at: store) }
}

try await session()
