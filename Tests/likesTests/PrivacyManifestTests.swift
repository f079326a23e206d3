// LikeKit's privacy manifest against its code: every required-reason API that LikeKit or a
// target it is built from calls (Apple's list: file timestamps, disk space, system boot time,
// user defaults, active keyboards) is declared, with a reason, and nothing is declared that no
// code calls; and the manifest is bundled for Apple platforms only.

import Foundation
import TestSupport
import Testing

@Suite(.ownLane) struct PrivacyManifestTests {
    /// The targets LikeKit is built from: what an app that embeds it links.
    static let targets = ["LikeKit", "LikeStore", "LikeSync", "LikesSupport", "JPEGCodec", "LinuxFileSystemCalls", "CRC32Folding", "SHA256Rounds"]

    /// Apple's required-reason API categories, by the calls that fall in each.
    static let categories: [String: [String]] = [
        "NSPrivacyAccessedAPICategoryFileTimestamp": [
            #"\bstat\("#, #"\bfstat\("#, #"\bfstatat\("#, #"\blstat\("#, #"\bgetattrlist"#, #"\.modificationDate\b"#, #"\.creationDate\b"#,
            #"attributesOfItem"#,
        ],
        "NSPrivacyAccessedAPICategoryDiskSpace": [#"\bstatfs\("#, #"\bfstatfs\("#, #"\bstatvfs\("#, #"volumeAvailableCapacity"#, #"systemFreeSize"#],
        "NSPrivacyAccessedAPICategorySystemBootTime": [#"mach_absolute_time"#, #"systemUptime"#, #"uptimeNanoseconds"#],
        "NSPrivacyAccessedAPICategoryUserDefaults": [#"UserDefaults"#],
        "NSPrivacyAccessedAPICategoryActiveKeyboards": [#"activeInputModes"#],
    ]

    /// Each category's calls found in the targets' sources (comments aside), as FILE:LINE.
    static func calls() throws -> [String: [String]] {
        var found: [String: [String]] = [:]
        for target in targets {
            let folder = Samples.root.appendingPathComponent("Sources/\(target)")
            for case let path as String in FileManager.default.enumerator(atPath: folder.path) ?? FileManager.DirectoryEnumerator()
            where path.hasSuffix(".swift") || path.hasSuffix(".c") || path.hasSuffix(".h") {
                let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//"), !code.hasPrefix("*"), !code.hasPrefix("/*") else { continue }
                    for (category, patterns) in categories where patterns.contains(where: { code.range(of: $0, options: .regularExpression) != nil })
                    {
                        found[category, default: []].append("\(target)/\(path):\(number + 1)")
                    }
                }
            }
        }
        return found
    }

    /// The manifest's categories, each with its reasons.
    static func declared() throws -> [String: [String]] {
        let data = try Data(contentsOf: Samples.root.appendingPathComponent("Sources/LikeKit/PrivacyInfo.xcprivacy"))
        let plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        #expect(plist?["NSPrivacyTracking"] as? Bool == false)
        #expect((plist?["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true)
        var declared: [String: [String]] = [:]
        for entry in plist?["NSPrivacyAccessedAPITypes"] as? [[String: Any]] ?? [] {
            if let category = entry["NSPrivacyAccessedAPIType"] as? String {
                declared[category] = entry["NSPrivacyAccessedAPITypeReasons"] as? [String] ?? []
            }
        }
        return declared
    }

    @Test func everyRequiredReasonCallIsDeclaredAndNothingElse() throws {
        let calls = try Self.calls()
        let declared = try Self.declared()
        #expect(!calls.isEmpty, "no call found: the search itself is broken")
        for (category, places) in calls {
            #expect(declared[category]?.isEmpty == false, "\(category) is called (\(places.prefix(3))) but not declared with a reason")
        }
        for category in declared.keys {
            #expect(calls[category] != nil, "\(category) is declared, but no code calls it")
        }
    }

    @Test func theManifestIsBundledForApplePlatformsOnly() throws {
        let package = try String(contentsOf: Samples.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(package.contains(#".copy("PrivacyInfo.xcprivacy")"#) && package.contains("#if os(macOS)"))
        // This build (Linux) made no resource bundle for LikeKit.
        let products = Binary.url.deletingLastPathComponent()
        let bundles = try FileManager.default.contentsOfDirectory(atPath: products.path).filter { $0.contains("LikeKit") && $0.contains("resources") }
        #expect(bundles.isEmpty, "\(bundles)")
    }
}
