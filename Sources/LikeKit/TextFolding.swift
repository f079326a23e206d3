// Text compared as people read it: without case and accents, the same in every locale.

import Foundation

/// Folds text for comparisons that ignore case and accents: compatibility decomposition (NFKD),
/// combining marks removed, then lower case (Swift's, which depends on no locale). `Café`,
/// `CAFE` and `café` fold alike; Hangul and kana decompose and stay themselves otherwise.
enum TextFolding {
    static func fold(_ text: String) -> String {
        var folded = String.UnicodeScalarView()
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars
        where scalar.properties.generalCategory != .nonspacingMark {
            folded.append(scalar)
        }
        return String(folded).lowercased()
    }
}
