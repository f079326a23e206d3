// Where a store lives by default: for apps, a folder private to the app or shared with its
// widgets and extensions through an App Group; elsewhere the XDG data folder.

import LikeStore

#if canImport(Darwin)
    import Foundation
#else
    import FoundationEssentials
#endif

extension LikeRepository {
    /// The store's directory for an app, when it keeps its favorites to itself.
    ///
    /// On Apple platforms: `Library/Application Support/Likes` in the app's container (on macOS
    /// outside the sandbox, `Application Support/<bundle identifier>/Likes`). Application
    /// Support is backed up and not shown to the user, unlike Documents, which file sharing
    /// shows in the Files app (Apple's technical Q&A QA1699 keeps private data in Library).
    /// Elsewhere: `$XDG_DATA_HOME/likes`, else `~/.local/share/likes`.
    ///
    /// ```swift
    /// let repository = LikeRepository(directory: LikeRepository.defaultDirectory)
    /// ```
    ///
    /// LikeKit does not support tvOS: the system may delete any file of a tvOS app that is not
    /// in iCloud, so a store there could lose likes.
    @available(tvOS, unavailable)
    public static var defaultDirectory: URL {
        #if canImport(Darwin)
            let support =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent("Library/Application Support", isDirectory: true)
            #if os(macOS)
                // Outside the sandbox every app shares this folder: keep to one of the app's own.
                if ProcessInfo.processInfo.environment["APP_SANDBOX_CONTAINER_ID"] == nil, let bundle = Bundle.main.bundleIdentifier {
                    return support.appendingPathComponent(bundle, isDirectory: true).appendingPathComponent("Likes", isDirectory: true)
                }
            #endif
            return support.appendingPathComponent("Likes", isDirectory: true)
        #else
            return dataDirectory(environment: ProcessInfo.processInfo.environment)
        #endif
    }

    /// `$XDG_DATA_HOME/likes`, else `~/.local/share/likes`: the store's place on Linux, for apps
    /// and the command line alike.
    package static func dataDirectory(environment: [String: String]) -> URL {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("likes", isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share/likes", isDirectory: true)
    }

    /// The store's directory in an App Group's shared container, so that an app, its widget and
    /// its extensions share one collection: `Library/Application Support/Likes` there.
    ///
    /// Every process of the group may open a repository on it at once; changes are serialized by
    /// the store's lock and each process's observers hear the others' changes.
    ///
    /// ```swift
    /// if let shared = LikeRepository.defaultDirectory(appGroup: "group.com.example.photos") {
    ///     let repository = LikeRepository(directory: shared)
    /// }
    /// ```
    ///
    /// - Parameter appGroup: The group's identifier, as in the app's entitlements.
    /// - Returns: `nil` where the process is not entitled to the group, and on platforms without
    ///   App Groups (Linux).
    @available(tvOS, unavailable)
    public static func defaultDirectory(appGroup: String) -> URL? {
        #if canImport(Darwin)
            guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup) else { return nil }
            return container.appendingPathComponent("Library/Application Support/Likes", isDirectory: true)
        #else
            return nil
        #endif
    }
}
