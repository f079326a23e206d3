// Owns the merge: what a photo is once every device's changes are applied in stamp order, and the
// little of its history that must be kept for changes still to come. A pure value: the same
// changes give the same state whatever order they arrive in, however often.

import LikesSupport

/// A liked photo as the merge of every device's changes gives it.
package struct PhotoState: Sendable, Hashable {
    package var likedAt: Int64
    package var image: ImageReference
    package var userImage: ImageReference?
    package var note: String?
    package var albums: [String]
    package var photo: String?
    /// The albums whose cover the last choice made the photo, whether or not it still holds
    /// (see ``covers``).
    package var chosen: Set<String> = []
    /// By part (`liked`, `image`, `userImage`, `note`, `albums`, `photo`, `album:NAME`,
    /// `cover:NAME`), the stamp of the change that gave it: what a store keeps so that a merged
    /// value is never taken for its own.
    package var stamps: [String: Stamp] = [:]

    /// A photo's state from its parts.
    package init(
        likedAt: Int64, image: ImageReference, userImage: ImageReference?, note: String?, albums: [String], photo: String?,
        chosen: Set<String> = [], stamps: [String: Stamp] = [:]
    ) {
        self.likedAt = likedAt
        self.image = image
        self.userImage = userImage
        self.note = note
        self.albums = albums
        self.photo = photo
        self.chosen = chosen
        self.stamps = stamps
    }

    /// The albums whose chosen cover the photo is: chosen, in the album, and chosen no earlier
    /// than it was last put in it (`StampedPart.isChosenCover`), sorted as a record keeps them.
    package var covers: [String] {
        chosen.filter { name in
            albums.contains(name)
                && StampedPart.isChosenCover(
                    album: stamps[StampedPart.album(name)]?.milliseconds, cover: stamps[StampedPart.cover(name)]?.milliseconds)
        }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}

/// One photo's history as far as it still matters: the stamp of its last unlike (kept for ever,
/// so that a change from before it, delivered late, cannot bring the photo back) and the changes
/// after it. An edit whose every field a later edit gives again is dropped; likes are kept, since
/// a late unlike may make any of them the start of the photo's liked period.
package struct PhotoHistory: Sendable, Hashable, Codable {
    package private(set) var lastUnlike: Stamp?
    /// The changes after ``lastUnlike``, in stamp order, each once.
    package private(set) var changes: [SyncChange] = []

    package init() {}

    /// Takes in a change, in any order and as often as it comes. Returns whether the history
    /// changed.
    @discardableResult
    package mutating func insert(_ change: SyncChange) -> Bool {
        if let lastUnlike, change.stamp <= lastUnlike { return false }
        if change.kind == .unlike {
            lastUnlike = change.stamp
            changes.removeAll { $0.stamp < change.stamp }
            return true
        }
        let place = changes.partitionPoint { $0.stamp < change.stamp }
        if place < changes.count, changes[place].stamp == change.stamp { return false }
        changes.insert(change, at: place)
        compactEdits()
        return true
    }

    /// Drops from each edit the parts a later edit gives again, and edits left giving nothing.
    private mutating func compactEdits() {
        var later: Set<String> = []
        var kept: [SyncChange] = []
        for change in changes.reversed() {
            guard change.kind == .edit else {
                kept.append(change)
                continue
            }
            if let left = change.editWithout(later) { kept.append(left) }
            later.formUnion(change.editParts)
        }
        changes = kept.reversed()
    }

    /// The photo as the changes leave it: `nil` when it is not liked.
    package var state: PhotoState? {
        var state: PhotoState?
        for change in changes {
            switch change.kind {
            case .unlike:
                state = nil
            case .like:
                if var current = state {
                    current.apply(change)
                    state = current
                } else if let image = change.image {
                    // A like starts a period with what it gives, and nothing else.
                    state = PhotoState(
                        likedAt: change.likedAt ?? change.stamp.milliseconds, image: image, userImage: change.userImage ?? nil,
                        note: change.note ?? nil, albums: [], photo: change.photo ?? nil,
                        stamps: Dictionary(uniqueKeysWithValues: PhotoState.parts.map { ($0, change.stamp) }))
                    state?.applyAlbums(change)
                    state?.applyCovers(change)
                }
            case .edit:
                if var current = state {
                    current.apply(change)
                    state = current
                }
            }
        }
        return state
    }
}

extension PhotoState {
    /// What a like of a liked photo or an edit gives, over what it had.
    /// The parts a photo's stamps name.
    package static let parts = StampedPart.all

    package mutating func apply(_ change: SyncChange) {
        if let image = change.image {
            self.image = image
            stamps["image"] = change.stamp
        }
        if let userImage = change.userImage {
            self.userImage = userImage
            stamps["userImage"] = change.stamp
        }
        if let note = change.note {
            self.note = note
            stamps["note"] = change.stamp
        }
        applyAlbums(change)
        applyCovers(change)
        if let photo = change.photo {
            self.photo = photo
            stamps["photo"] = change.stamp
        }
    }
}

extension PhotoState {
    /// The memberships a change decides, each stamped by it (`album:NAME`, see
    /// `StampedPart.album`).
    package mutating func applyAlbums(_ change: SyncChange) {
        guard let memberships = change.albums, !memberships.isEmpty else { return }
        var names = Set(albums)
        for (name, member) in memberships {
            if member { names.insert(name) } else { names.remove(name) }
            stamps[StampedPart.album(name)] = change.stamp
        }
        albums = names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        stamps["albums"] = change.stamp
    }

    /// The choices of cover a change decides, each stamped by it (`cover:NAME`).
    mutating func applyCovers(_ change: SyncChange) {
        guard let choices = change.covers else { return }
        for (name, isCover) in choices {
            if isCover { chosen.insert(name) } else { chosen.remove(name) }
            stamps[StampedPart.cover(name)] = change.stamp
        }
    }
}

extension Array {
    /// The first index whose element is not `belongs`, in an array where every element that is
    /// comes first.
    func partitionPoint(_ belongs: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
