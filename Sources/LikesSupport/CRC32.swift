// CRC-32: the checksum each record keeps of its images (computed by every like, checked by verify
// and repair), and each entry of the gallery's zip carries.

import CRC32Folding

/// CRC-32 (IEEE 802.3), kept in each record so `verify` can tell an image is byte-identical.
///
/// Every like checksums its whole image, so its speed shows in the like's: folded by carry-less
/// multiplication where the processor has it (`CRC32Folding`, x86-64: 18 µs for 200 KB here),
/// else slicing-by-16 (see `tables`: 80 µs).
package enum CRC32 {
    /// Whether this processor folds (read once).
    package static let folds = likes_crc32_fold_available() != 0

    /// The table-driven CRC alone, for tests that compare the two.
    package static func checksumByTables(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        checksum(bytes, continuing: previous, folding: false)
    }

    /// Sixteen tables: entry `n * 256 + b` is the CRC of byte `b` followed by `n` zero bytes, so
    /// that sixteen bytes are folded in with sixteen independent look-ups (slicing-by-16: 80 µs
    /// for 200 KB here, where eight at a time took 107 µs and one at a time 570 µs).
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 16 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            tables[index] = value
        }
        for slice in 1..<16 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The CRC-32 of `bytes`; of a longer run of bytes when `previous` is the CRC-32 of what
    /// came before them (so a file can be checked a piece at a time).
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        checksum(bytes, continuing: previous, folding: folds)
    }

    private static func checksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32, folding: Bool) -> UInt32 {
        var crc: UInt32 = previous ^ 0xFFFF_FFFF
        var index = 0
        let count = bytes.count
        if folding, count >= 64, let base = bytes.baseAddress {
            index = count & ~15
            crc = likes_crc32_fold(crc, base, index)
        }
        tables.withUnsafeBufferPointer { t in
            func fold(_ word: UInt32, _ slice: Int) -> UInt32 {
                t[(slice + 3) * 256 + Int(word & 0xFF)] ^ t[(slice + 2) * 256 + Int((word >> 8) & 0xFF)]
                    ^ t[(slice + 1) * 256 + Int((word >> 16) & 0xFF)] ^ t[slice * 256 + Int(word >> 24)]
            }
            while index + 16 <= count {
                let first = crc ^ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self))
                crc =
                    fold(first, 12) ^ fold(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self)), 8)
                    ^ fold(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 8, as: UInt32.self)), 4)
                    ^ fold(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 12, as: UInt32.self)), 0)
                index += 16
            }
            while index < count {
                crc = t[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
