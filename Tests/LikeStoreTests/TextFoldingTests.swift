// Text folding without ICU (the generated table, Hangul by formula) against folding as Foundation
// does it with ICU's NFKD, for every Unicode scalar and for random mixed text; and the path and
// number helpers that stand in for Foundation's on Linux.

import Foundation
import LikeStore
import LikesSupport
import TestSupport
import Testing

@Suite(.ownLane) struct TextFoldingTests {
    /// What folding was before the table: Foundation's NFKD, marks removed, case folded, again.
    static func reference(_ text: String) -> String {
        func withoutMarks(_ text: String) -> String {
            var kept = String.UnicodeScalarView()
            for scalar in text.unicodeScalars {
                switch scalar.properties.generalCategory {
                case .nonspacingMark, .spacingMark, .enclosingMark: continue
                default: kept.append(scalar)
                }
            }
            return String(kept)
        }
        let once = withoutMarks(text.decomposedStringWithCompatibilityMapping)
        return withoutMarks(once.uppercased().lowercased().decomposedStringWithCompatibilityMapping)
    }

    @Test func foldingMatchesFoundationForEveryScalar() {
        var differing: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(scalar)
            if TextFolding.fold(text).unicodeScalars.elementsEqual(Self.reference(text).unicodeScalars) { continue }
            differing.append("U+" + String(value, radix: 16, uppercase: true))
        }
        #expect(differing.isEmpty, "folded unlike Foundation: \(differing.prefix(20))")
    }

    @Test func foldingMatchesFoundationOnMixedText() {
        var generator = SystemRandomNumberGenerator()
        let pools: [ClosedRange<UInt32>] = [
            0x20...0x7E, 0xA0...0x24F, 0x300...0x36F, 0x370...0x3FF, 0x1100...0x11FF, 0x3040...0x30FF, 0xAC00...0xD7A3, 0xFF00...0xFFEF,
            0xFB00...0xFB4F, 0x1D400...0x1D7FF, 0x1F300...0x1F6FF, 0x2460...0x24FF, 0x1E00...0x1EFF,
        ]
        for _ in 0..<2000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...24, using: &generator) {
                let pool = pools.randomElement(using: &generator)!
                if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &generator)) { scalars.append(scalar) }
            }
            let text = String(scalars)
            #expect(TextFolding.fold(text).unicodeScalars.elementsEqual(Self.reference(text).unicodeScalars), "\(text.debugDescription)")
        }
    }

    @Test func foldingExamples() {
        #expect(TextFolding.fold("Café ＣＡＦＥ ﬁ ß İ") == "cafe cafe fi ss i")
        #expect(TextFolding.fold("한") == "\u{1112}\u{1161}\u{11AB}")
        #expect(TextFolding.fold("ガ") == "カ")
    }

    @Test func canonicalCompositionMatchesFoundation() {
        for text in ["e\u{301}", "Å", "A\u{30A}", "\u{1100}\u{1161}\u{11A8}", "ﬁ", "Ω", "plain", "e\u{327}\u{301}"] {
            #expect(text.canonicallyComposed.unicodeScalars.elementsEqual(text.precomposedStringWithCanonicalMapping.unicodeScalars))
        }
    }

    @Test func pathsAsNSStringTreatsThem() {
        // ("a" as NSString).deletingLastPathComponent traps in Foundation on Linux: checked below.
        for path in ["/a/b", "/a/b/", "/a", "/", "a/b.jpg", "/x/y.tar.gz", "./p", "../q/r.JPG", ".hidden", "dir/.hidden"] {
            let ns = path as NSString
            #expect(PathText.parent(path) == ns.deletingLastPathComponent, "parent of \(path)")
            #expect(PathText.lastComponent(path) == ns.lastPathComponent, "last component of \(path)")
            #expect(PathText.pathExtension(path) == ns.pathExtension, "extension of \(path)")
            #expect(PathText.deletingExtension(path) == ns.deletingPathExtension, "without extension: \(path)")
        }
        #expect(PathText.parent("a") == "" && PathText.lastComponent("a") == "a" && PathText.appending("b", to: "a") == "a/b")
    }

    @Test func decimalsAsPrintfWritesThem() {
        for value in [0, 0.004, 0.005, 1.5, 2.345, 2.31, 1023.999, 12.0, 99.995, 1e6 / 3] {
            #expect(decimalText(value, places: 2) == String(format: "%.2f", value), "\(value)")
            #expect(decimalText(value, places: 1) == String(format: "%.1f", value), "\(value)")
        }
    }
}
