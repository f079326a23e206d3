// SwiftUI's side of the observable types, on Apple platforms only: the repository in a view's
// environment, and a property wrapper that gives a view a live query from it. Linux has no
// SwiftUI, so this file is not compiled here; it uses only EnvironmentKey, EnvironmentValues,
// State and DynamicProperty as Apple documents them.

#if canImport(SwiftUI)
    import SwiftUI

    private struct LikeRepositoryKey: EnvironmentKey {
        static let defaultValue: LikeRepository? = nil
    }

    extension EnvironmentValues {
        /// The repository the views below read and change, for ``LikedQuery``; `nil` until a view
        /// above sets it with `.environment(\.likeRepository, repository)`.
        public var likeRepository: LikeRepository? {
            get { self[LikeRepositoryKey.self] }
            set { self[LikeRepositoryKey.self] = newValue }
        }
    }

    /// A live query a view declares, on the repository of its environment: a ``LikedPhotos``
    /// made once for the view and kept while it lives.
    ///
    /// ```swift
    /// struct FavoritesGrid: View {
    ///     @LikedQuery(LikeQuery(limit: 60)) private var photos
    ///
    ///     var body: some View {
    ///         ScrollView {
    ///             LazyVGrid(columns: [GridItem(.adaptive(minimum: 110))]) {
    ///                 ForEach(photos.records) { record in PhotoCell(record: record) }
    ///             }
    ///         }
    ///         .task { await photos.load() }
    ///     }
    /// }
    ///
    /// #Preview {
    ///     FavoritesGrid().environment(\.likeRepository, try! .temporary())
    /// }
    /// ```
    ///
    /// The query is the one the view was first made with; give the view a new identity (`.id`)
    /// to start another.
    @available(macOS 14, iOS 17, watchOS 10, *)
    @MainActor @propertyWrapper
    public struct LikedQuery: DynamicProperty {
        @Environment(\.likeRepository) private var repository
        @State private var holder = Holder()
        private let query: LikeQuery

        /// A live query of `query`, on the environment's repository.
        public init(_ query: LikeQuery = LikeQuery(limit: 60)) {
            self.query = query
        }

        /// The live query, made on first use.
        public var wrappedValue: LikedPhotos {
            if let photos = holder.photos { return photos }
            guard let repository else {
                preconditionFailure("No repository for @LikedQuery: set .environment(\\.likeRepository, …) on a view above.")
            }
            let photos = LikedPhotos(repository, query: query)
            holder.photos = photos
            return photos
        }

        /// Keeps the view's model across its updates without being state the view observes.
        @MainActor private final class Holder {
            var photos: LikedPhotos?
        }
    }
#endif
