// A `.zip` archive written here: every file stored as it is (JPEGs do not compress), with the
// CRC-32 and sizes in each local header, so any unzip reads it.

import LikesSupport

#if canImport(Darwin)
    import Darwin
#else
    import Glibc
#endif

/// A stored (uncompressed) zip archive, built in memory (APPNOTE 6.3: local headers, the central
/// directory, its end record; names flagged as UTF-8).
struct ZipWriter {
    struct TooLarge: Error {
        var message: String
    }

    private var bytes: [UInt8] = []
    private var directory: [UInt8] = []
    private var count = 0
    /// When the archive is made, in MS-DOS form: its files' time and date.
    private let stamp = ZipWriter.dosNow()

    /// Adds a file named `name` (a path inside the archive, `/`-separated) holding `content`.
    mutating func add(_ name: String, _ content: [UInt8]) throws {
        let nameBytes = Array(name.utf8)
        // The classic format counts in 32 bits; ZIP64 is not written here.
        guard bytes.count + content.count + nameBytes.count + 30 < Int(UInt32.max) - 1_000_000, count < 65_000 else {
            throw TooLarge(message: "The photos checked come to more than a zip archive of this kind holds (4 GB); check fewer.")
        }
        let crc = content.withUnsafeBytes { CRC32.checksum($0) }
        let offset = UInt32(bytes.count)
        var local: [UInt8] = []
        local.append32(0x0403_4B50)
        local.append16(20)  // version needed: 2.0
        local.append16(0x0800)  // the name is UTF-8
        local.append16(0)  // stored
        local.append16(stamp.time)
        local.append16(stamp.date)
        local.append32(crc)
        local.append32(UInt32(content.count))
        local.append32(UInt32(content.count))
        local.append16(UInt16(nameBytes.count))
        local.append16(0)
        bytes += local + nameBytes + content

        directory.append32(0x0201_4B50)
        directory.append16(0x0314)  // made by: Unix, 2.0
        directory.append16(20)
        directory.append16(0x0800)
        directory.append16(0)
        directory.append16(stamp.time)
        directory.append16(stamp.date)
        directory.append32(crc)
        directory.append32(UInt32(content.count))
        directory.append32(UInt32(content.count))
        directory.append16(UInt16(nameBytes.count))
        directory.append16(0)  // extra
        directory.append16(0)  // comment
        directory.append16(0)  // disk
        directory.append16(0)  // internal attributes
        directory.append32(0o100644 << 16)  // a regular file, rw-r--r--
        directory.append32(offset)
        directory += nameBytes
        count += 1
    }

    /// The archive: the files, the central directory and its end record.
    mutating func finish() -> [UInt8] {
        let start = UInt32(bytes.count)
        bytes += directory
        bytes.append32(0x0605_4B50)
        bytes.append16(0)
        bytes.append16(0)
        bytes.append16(UInt16(count))
        bytes.append16(UInt16(count))
        bytes.append32(UInt32(directory.count))
        bytes.append32(start)
        bytes.append16(0)
        return bytes
    }

    /// A file name made of an id: letters, digits, `-`, `_` and `.` kept, anything else `_`, at
    /// most 80 characters, never empty or starting with a dot.
    static func safeName(_ id: String) -> String {
        var name = String(
            id.unicodeScalars.prefix(80).map { scalar -> Character in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            })
        if name.isEmpty || name.hasPrefix(".") { name = "_" + name }
        return name
    }

    /// Now, in MS-DOS form (local time, two-second steps), as zip headers carry it.
    private static func dosNow() -> (time: UInt16, date: UInt16) {
        var now = systemTime()
        var parts = tm()
        localtime_r(&now, &parts)
        let time = UInt16(parts.tm_hour) << 11 | UInt16(parts.tm_min) << 5 | UInt16(parts.tm_sec / 2)
        let date = UInt16(max(0, parts.tm_year - 80)) << 9 | UInt16(parts.tm_mon + 1) << 5 | UInt16(parts.tm_mday)
        return (time, date)
    }

    private static func systemTime() -> time_t {
        #if canImport(Darwin)
            return Darwin.time(nil)
        #else
            return Glibc.time(nil)
        #endif
    }
}

extension [UInt8] {
    fileprivate mutating func append16(_ value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }

    fileprivate mutating func append32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }
}
