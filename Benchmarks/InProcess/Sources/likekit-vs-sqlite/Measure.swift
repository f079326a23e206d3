// Clocks, medians, resident memory and the page cache, for the rows of main.swift.

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Nanoseconds of the monotonic clock.
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func milliseconds(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1_000_000 }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// The process's resident size and its peak since the last `resetPeak()`, in MB (Linux's
/// /proc/self/status).
func memory() -> (resident: Double, peak: Double) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (.nan, .nan) }
    func field(_ name: String) -> Double {
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first
            return (number.flatMap { Double($0) } ?? .nan) / 1024
        }
        return .nan
    }
    return (field("VmRSS"), field("VmHWM"))
}

/// Sets the peak resident size back to the resident size now (`5` to /proc/self/clear_refs).
func resetPeak() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// Writes what is dirty and drops every page of the regular files under `paths` from the page
/// cache (`posix_fadvise(POSIX_FADV_DONTNEED)`): the data cold, the program as it was. Folders'
/// entries and inodes stay cached; `dropEverything()` drops them too.
func evict(_ paths: [String]) {
    sync()
    for path in paths {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
        if !isFolder.boolValue {
            dropPages(path)
            continue
        }
        guard let walk = FileManager.default.enumerator(atPath: path) else { continue }
        while let name = walk.nextObject() as? String {
            dropPages(path + "/" + name)
        }
    }
}

private func dropPages(_ path: String) {
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW)
    guard descriptor >= 0 else { return }
    var facts = stat()
    if fstat(descriptor, &facts) == 0, facts.st_mode & S_IFMT == S_IFREG {
        _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED))
    }
    close(descriptor)
}

/// Empties the whole page cache, folders' entries and inodes with it (root only): the cold of a
/// machine after a day of other work, this program's own code included.
func dropEverything() -> Bool {
    sync()
    return (try? "3\n".write(toFile: "/proc/sys/vm/drop_caches", atomically: false, encoding: .utf8)) != nil
}

/// The raw durable write of a file: a temporary name, fsync, rename, fsync of its folder.
func durableWrite(_ data: Data, folder: String, name: String) throws {
    let temporary = folder + "/." + name + ".tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard descriptor >= 0 else { throw PeerError("cannot create \(temporary)") }
    let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    guard written == data.count, fsync(descriptor) == 0 else { throw PeerError("cannot write \(temporary)") }
    close(descriptor)
    guard rename(temporary, folder + "/" + name) == 0 else { throw PeerError("cannot rename \(temporary)") }
    let directory = open(folder, O_RDONLY | O_DIRECTORY)
    guard directory >= 0, fsync(directory) == 0 else { throw PeerError("cannot flush \(folder)") }
    close(directory)
}
