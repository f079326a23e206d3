// Names the image formats people most often give by mistake for a JPEG (a PNG screenshot named
// .jpg, a phone's HEIC), from their first bytes, so that a refusal says what the file is.

/// The common image formats that are not JPEG, by their signatures.
enum OtherImageFormat {
    /// The format whose signature `lead` (a file's first bytes, up to 12) begins with, or `nil`.
    static func name(of lead: [UInt8]) -> String? {
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            lead.count >= offset + signature.count && Array(lead[offset..<(offset + signature.count)]) == signature
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "PNG" }
        if starts(Array("GIF8".utf8)) { return "GIF" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "WebP" }
        if starts(Array("ftyp".utf8), at: 4) {
            let brand = lead.count >= 12 ? String(decoding: lead[8..<12], as: UTF8.self) : ""
            if brand.hasPrefix("avi") { return "AVIF" }
            if ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"].contains(brand) { return "HEIC" }
            return nil
        }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
        if starts(Array("BM".utf8)) { return "BMP" }
        if starts(Array("%PDF".utf8)) { return "PDF" }
        return nil
    }
}
