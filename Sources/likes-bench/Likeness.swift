// likes-bench likeness FILE...: the fingerprint of each JPEG (PictureFingerprint) and the
// likeness of every pair, for Benchmarks/duplicates/evaluate.py to judge against its corpus.

import Foundation
import JPEGCodec

/// Prints `{"files": N, "pairs": [[i, j, difference], ...], ...}` for every pair whose
/// likeness has a difference (the others are not the same picture), with the time the
/// fingerprints and the comparisons took.
func benchLikeness(_ arguments: [String]) throws {
    let paths = Array(arguments.dropFirst(2))
    var start = now()
    let prints: [PictureFingerprint] = try paths.map { path in
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        do {
            return try PictureFingerprint.make(fromJPEG: bytes)
        } catch {
            throw BenchmarkFailure(description: "\(path): \(error)")
        }
    }
    let fingerprintSeconds = now() - start
    start = now()
    let prepared = prints.map(PreparedFingerprint.init)
    var pairs: [[Double]] = []
    var compared = 0
    for i in prints.indices {
        for j in (i + 1)..<prints.count {
            let likeness = prepared[i].likeness(to: prepared[j])
            if let difference = likeness.difference {
                compared += 1
                pairs.append([Double(i), Double(j), difference])
            }
        }
    }
    try printJSON([
        "files": prints.count, "pairs": pairs, "fitted": compared, "fingerprintSeconds": fingerprintSeconds,
        "compareSeconds": now() - start, "limit": PictureLikeness.samePictureLimit,
    ])
}
