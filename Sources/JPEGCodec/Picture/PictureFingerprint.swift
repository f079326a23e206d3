// What a picture looks like, kept small enough to lie beside its record: its luma shrunk to a
// square of 64 x 64 samples, upright, and its aspect ratio. Two fingerprints are compared by
// fitting one onto the other (an offset and a scale on each axis, and a tone curve), then
// looking for the place where they differ most, measured against how much they differ
// everywhere: another size, quality, profile or a cropped border differs a little everywhere;
// another moment differs much in one place. Benchmarks/duplicates measures where the line falls.
// The standard library only, as the rest of the codec.

/// A picture's luma at 64 x 64 samples (whatever its shape), upright, with its aspect ratio: what
/// ``likeness(to:)`` compares to tell the same picture in another file from another picture.
public struct PictureFingerprint: Sendable, Hashable {
    /// The samples along each side.
    public static let side = 64
    /// How many bytes ``bytes`` holds: a version, the aspect ratio and the samples.
    public static let byteCount = 8 + side * side

    /// The displayed width over the displayed height.
    public let aspect: Float
    /// `side * side` luma samples, row by row, of the picture as displayed.
    public let samples: [UInt8]

    /// A fingerprint of these samples and this aspect ratio.
    ///
    /// - Precondition: `samples` holds `side * side` samples and `aspect` is above zero (bytes
    ///   from elsewhere go through ``init(bytes:)``, which checks them).
    public init(aspect: Float, samples: [UInt8]) {
        precondition(samples.count == Self.side * Self.side && aspect > 0)
        self.aspect = aspect
        self.samples = samples
    }

    /// The fingerprint of a decoded picture as stored, shown with Exif's `orientation` (1–8),
    /// whose aspect ratio as displayed is `aspect` (the picture's own when not given: a picture
    /// decoded at a scale has its sides rounded).
    public init(picture: PlanarImage, orientation: Int, aspect: Float? = nil) {
        let luma = PlanarImage(width: picture.width, height: picture.height, planes: [picture.planes[0]])
        let small = luma.resized(width: Self.side, height: Self.side).upright(orientation: orientation)
        let swaps = (5...8).contains(orientation)
        let width = Float(swaps ? picture.height : picture.width)
        let height = Float(swaps ? picture.width : picture.height)
        self.init(aspect: aspect ?? width / height, samples: small.planes[0])
    }

    /// The fingerprint of the JPEG in `bytes`, made from the picture a store's thumbnail is
    /// (``JPEGThumbnail/Size/atMost(_:)`` 512: a long side of 256 to 512 pixels for a photo at
    /// least that long), as ``JPEGThumbnail/makeWithFingerprint(fromJPEG:size:quality:)`` makes it.
    ///
    /// - Throws: ``JPEGError`` when the bytes are no JPEG the decoder reads.
    public static func make(fromJPEG bytes: UnsafeRawBufferPointer) throws(JPEGError) -> PictureFingerprint {
        let (picture, _, aspect) = try JPEGThumbnail.picture(fromJPEG: bytes, size: .atMost(512))
        return PictureFingerprint(picture: picture, orientation: 1, aspect: aspect)
    }

    /// The fingerprint of the JPEG in `bytes`; see ``make(fromJPEG:)-(UnsafeRawBufferPointer)``.
    ///
    /// - Throws: ``JPEGError`` when the bytes are no JPEG the decoder reads.
    public static func make(fromJPEG bytes: [UInt8]) throws(JPEGError) -> PictureFingerprint {
        let result: Result<PictureFingerprint, JPEGError> = bytes.withUnsafeBytes { raw in
            Result { () throws(JPEGError) in try make(fromJPEG: raw) }
        }
        return try result.get()
    }

    /// The fingerprint read back from ``bytes``; `nil` for bytes that are not one.
    public init?(bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard bytes.count == Self.byteCount, bytes[0] == Self.version else { return nil }
        let bits = (4..<8).reduce(UInt32(0)) { $0 | UInt32(bytes[$1]) << (8 * ($1 - 4)) }
        let aspect = Float(bitPattern: bits)
        guard aspect.isFinite, aspect > 0 else { return nil }
        self.init(aspect: aspect, samples: Array(bytes[8...]))
    }

    /// The fingerprint as bytes: a version, three zeros, the aspect ratio (a little-endian
    /// IEEE 754 single), then the samples.
    public var bytes: [UInt8] {
        let bits = aspect.bitPattern
        return [Self.version, 0, 0, 0] + (0..<4).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) } + samples
    }

    static let version: UInt8 = 1
}

/// How alike two pictures are: see ``PictureFingerprint/likeness(to:)``.
public struct PictureLikeness: Sendable, Hashable {
    /// How much more the two differ where they differ most than they differ in the middle of
    /// their differences (over 6 x 6 samples, after fitting one onto the other); `nil` when they
    /// are not close enough to be fitted (another shape, another picture, or neither inside the
    /// other: a pan).
    public let difference: Double?

    /// The largest ``difference`` of two files of one picture: half way (geometrically) between
    /// the farthest copies of Benchmarks/duplicates' corpus (7.66) and its nearest two moments
    /// (10.87).
    public static let samePictureLimit = 9.1

    /// Whether the two are the same picture.
    public var isSamePicture: Bool { difference.map { $0 <= Self.samePictureLimit } ?? false }
}

extension PictureFingerprint {
    /// How alike this picture and `other` are: whether one is the other in another size,
    /// quality, colour profile or orientation, or with a few pixels of border cropped.
    ///
    /// An edit of the picture's tones (brightness, contrast, a curve) leaves it the same picture,
    /// and so does one of its colours alone: the fingerprint keeps the luma, and the comparison
    /// fits a tone curve, as it must for a copy converted to another colour profile. An edit
    /// that moves, adds or removes something in one place does not.
    ///
    /// The two must be of one shape (within 5 %) and alike at 8 x 8 (a correlation over 0.6).
    /// Then one is fitted onto the other, both ways: an offset and a scale on each axis (by
    /// Gauss–Newton, from coarse to fine) and a straight tone curve. The fit counts only when
    /// the fitted picture lies inside the other, as a cropped copy does, and not beside it, as a
    /// pan does. The difference is measured on both, a little blurred, with the tone curved
    /// (a + bw + cw²), over every 6 x 6 window: the largest window's against the median window's.
    public func likeness(to other: PictureFingerprint) -> PictureLikeness {
        PreparedFingerprint(self).likeness(to: PreparedFingerprint(other))
    }

    /// The picture at 8 x 8: each the mean of 8 x 8 samples, less their mean, over their
    /// standard deviation (zero for a flat picture).
    public var coarse: [Float] { Likeness.coarse(samples) }
}

/// A fingerprint with what every comparison of it needs worked out once: its picture at 8 x 8 and
/// blurred at each scale of the fit. Prepare each of many fingerprints once to compare them all.
public struct PreparedFingerprint: Sendable {
    /// The fingerprint prepared.
    public let fingerprint: PictureFingerprint
    let coarse: [Float]
    let levels: [Likeness.Level]

    /// Prepares `fingerprint` for comparisons.
    public init(_ fingerprint: PictureFingerprint) {
        self.fingerprint = fingerprint
        coarse = Likeness.coarse(fingerprint.samples)
        let plane = Likeness.Plane(fingerprint.samples)
        levels = Likeness.sigmas.map { Likeness.Level(plane.blurred($0)) }
    }

    /// How alike this picture and `other` are: see ``PictureFingerprint/likeness(to:)``.
    public func likeness(to other: PreparedFingerprint) -> PictureLikeness {
        // Shapes within 5 % on a logarithmic scale: e^-0.05 < ratio < e^0.05.
        let ratio = fingerprint.aspect / other.fingerprint.aspect
        guard ratio > 0.951_229_4, ratio < 1.051_271_1,
            zip(coarse, other.coarse).reduce(0, { $0 + $1.0 * $1.1 }) / Float(coarse.count) > 0.6
        else { return PictureLikeness(difference: nil) }
        let both = [Likeness.difference(of: levels, within: other.levels), Likeness.difference(of: other.levels, within: levels)]
        return PictureLikeness(difference: both.compactMap { $0 }.min())
    }
}

/// The arithmetic of ``PictureFingerprint/likeness(to:)``.
package enum Likeness {
    static let side = PictureFingerprint.side
    /// The blurs the fit goes through, coarse to fine, with its rounds at each; the last is the
    /// one the difference is measured at.
    static let sigmas = [3.0, 1.5, 0.7]
    static let rounds = [8, 6, 6]

    /// A picture blurred at one of ``sigmas``, with its slopes: each sample's value, slope
    /// along x and along y together, to be read between samples at once.
    struct Level: Sendable {
        let plane: Plane
        /// Single precision, four to a vector register: the sums they go into are double.
        let texels: [SIMD4<Float>]

        init(_ plane: Plane) {
            self.plane = plane
            let (gx, gy) = plane.gradients()
            texels = plane.values.indices.map { SIMD4(Float(plane.values[$0]), Float(gx.values[$0]), Float(gy.values[$0]), 0) }
        }

        /// The value and slopes at (x, y), inside the picture, between the four nearest samples.
        @inline(__always)
        static func sample(_ texels: UnsafeBufferPointer<SIMD4<Float>>, _ x: Double, _ y: Double) -> SIMD4<Double> {
            let n = Likeness.side
            let x0 = min(Int(x), n - 2)
            let y0 = min(Int(y), n - 2)
            let fx = Float(x - Double(x0))
            let fy = Float(y - Double(y0))
            let at = y0 &* n &+ x0
            let top = texels[at] * (1 - fx) + texels[at &+ 1] * fx
            let bottom = texels[at &+ n] * (1 - fx) + texels[at &+ n &+ 1] * fx
            let found = top * (1 - fy) + bottom * fy
            return SIMD4(Double(found[0]), Double(found[1]), Double(found[2]), 0)
        }
    }

    /// A square of `side * side` values.
    struct Plane: Sendable {
        var values: [Double]

        init(_ samples: [UInt8]) { values = samples.map(Double.init) }
        init(values: [Double]) { self.values = values }

        subscript(x: Int, y: Int) -> Double { values[y * Likeness.side + x] }

        /// Blurred by a Gaussian of `sigma` samples (to four sigmas, the edges mirrored).
        func blurred(_ sigma: Double) -> Plane {
            let radius = Int(4 * sigma + 0.5)
            let weights = (-radius...radius).map { 1 / Likeness.exponential(Double($0 * $0) / (2 * sigma * sigma)) }
            let total = weights.reduce(0, +)
            return filtered(weights.map { $0 / total }, first: -radius)
        }

        /// Filtered along rows, then columns, by `kernel`, whose first weight is for the sample
        /// `first` places away (negative: before), the edges mirrored.
        func filtered(_ kernel: [Double], first: Int) -> Plane {
            let n = Likeness.side
            func mirrored(_ i: Int) -> Int {
                var i = i
                while i < 0 || i >= n { i = i < 0 ? -i - 1 : 2 * n - i - 1 }
                return i
            }
            var rows = [Double](repeating: 0, count: n * n)
            for y in 0..<n {
                for x in 0..<n {
                    var sum = 0.0
                    for (k, weight) in kernel.enumerated() { sum += weight * values[y * n + mirrored(x + first + k)] }
                    rows[y * n + x] = sum
                }
            }
            var out = [Double](repeating: 0, count: n * n)
            for y in 0..<n {
                for x in 0..<n {
                    var sum = 0.0
                    for (k, weight) in kernel.enumerated() { sum += weight * rows[mirrored(y + first + k) * n + x] }
                    out[y * n + x] = sum
                }
            }
            return Plane(values: out)
        }

        /// The slope along x and along y (central differences, one-sided at the edges).
        func gradients() -> (x: Plane, y: Plane) {
            let n = Likeness.side
            var gx = [Double](repeating: 0, count: n * n)
            var gy = [Double](repeating: 0, count: n * n)
            for y in 0..<n {
                for x in 0..<n {
                    let left = max(x - 1, 0)
                    let right = min(x + 1, n - 1)
                    gx[y * n + x] = (self[right, y] - self[left, y]) / Double(right - left)
                    let up = max(y - 1, 0)
                    let down = min(y + 1, n - 1)
                    gy[y * n + x] = (self[x, down] - self[x, up]) / Double(down - up)
                }
            }
            return (Plane(values: gx), Plane(values: gy))
        }

        /// The value at (x, y) in samples, between the four nearest (clamped at the edges).
        func sample(_ x: Double, _ y: Double) -> Double {
            let n = Likeness.side
            let x = min(max(x, 0), Double(n - 1))
            let y = min(max(y, 0), Double(n - 1))
            let x0 = min(Int(x), n - 2)
            let y0 = min(Int(y), n - 2)
            let fx = x - Double(x0)
            let fy = y - Double(y0)
            let top = self[x0, y0] * (1 - fx) + self[x0 + 1, y0] * fx
            let bottom = self[x0, y0 + 1] * (1 - fx) + self[x0 + 1, y0 + 1] * fx
            return top * (1 - fy) + bottom * fy
        }
    }

    /// Where each sample of the target falls in the source: x' = ox + sx·x, y' = oy + sy·y, in
    /// fractions of a side.
    struct Fit {
        var ox = 0.0
        var sx = 1.0
        var oy = 0.0
        var sy = 1.0

        /// In the source's samples, for sample (i, j) of the target.
        func position(_ i: Int, _ j: Int) -> (x: Double, y: Double) {
            let n = Double(Likeness.side)
            return ((ox + sx * (Double(i) + 0.5) / n) * n - 0.5, (oy + sy * (Double(j) + 0.5) / n) * n - 0.5)
        }

        /// Whether the target lies inside the source, give or take 0.6 % of a side, and is at
        /// least nine tenths of it on each axis.
        var isInside: Bool {
            let give = 0.006
            return ox >= -give && oy >= -give && ox + sx <= 1 + give && oy + sy <= 1 + give && min(sx, sy) > 0.9
        }

        var isNear: Bool { abs(ox) <= 0.2 && abs(oy) <= 0.2 && abs(sx - 1) <= 0.2 && abs(sy - 1) <= 0.2 }
    }

    static func coarse(_ samples: [UInt8]) -> [Float] {
        let cells = 8
        let span = side / cells
        var means = [Float](repeating: 0, count: cells * cells)
        for y in 0..<side {
            for x in 0..<side { means[(y / span) * cells + x / span] += Float(samples[y * side + x]) }
        }
        let count = Float(span * span)
        means = means.map { $0 / count }
        let mean = means.reduce(0, +) / Float(means.count)
        let deviation = (means.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Float(means.count)).squareRoot()
        return means.map { deviation > 1e-6 ? ($0 - mean) / deviation : 0 }
    }

    /// The difference of `inner` and `outer` fitted onto it, taking `inner` as the one that
    /// shows less (a cropped copy); `nil` when the fit fails or `inner` does not lie inside.
    static func difference(of inner: [Level], within outer: [Level]) -> Double? {
        // The fit maps each sample of `inner` to where it falls in `outer`.
        guard let fit = fit(target: inner, source: outer), fit.isInside, let last = inner.indices.last else { return nil }
        return residual(target: inner[last].plane, source: outer[last].plane, fit: fit)
    }

    /// The target's samples as found in `source` through `fit`: each value, and whether it
    /// falls inside `source`.
    static func warped(_ source: Plane, _ fit: Fit) -> (values: [Double], inside: [Bool]) {
        var values = [Double](repeating: 0, count: side * side)
        var inside = [Bool](repeating: false, count: side * side)
        let last = Double(side - 1)
        for j in 0..<side {
            for i in 0..<side {
                let (x, y) = fit.position(i, j)
                values[j * side + i] = source.sample(x, y)
                inside[j * side + i] = x >= 0 && x <= last && y >= 0 && y <= last
            }
        }
        return (values, inside)
    }

    /// The straight tone curve (gain and offset) that brings `values` nearest to `target` where
    /// `inside` holds, by least squares.
    static func tone(_ values: [Double], _ target: [Double], _ inside: [Bool]) -> (gain: Double, offset: Double) {
        var n = 0.0
        var sx = 0.0
        var sy = 0.0
        var sxx = 0.0
        var sxy = 0.0
        for k in values.indices where inside[k] {
            n += 1
            sx += values[k]
            sy += target[k]
            sxx += values[k] * values[k]
            sxy += values[k] * target[k]
        }
        return tone(count: n, sumW: sx, sumT: sy, sumWW: sxx, sumWT: sxy)
    }

    /// The curved tone (a + b·w + c·w², w in fractions of full scale) that brings `values` nearest
    /// to `target` where `inside` holds, by least squares: a profile's conversion bends the tones
    /// a little, which a straight line leaves in the difference.
    static func curvedTone(_ values: [Double], _ target: [Double], _ inside: [Bool]) -> [Double] {
        var rows = [[Double]](repeating: [Double](repeating: 0, count: 4), count: 3)
        for k in values.indices where inside[k] {
            let w = values[k] / 255
            let powers = [1, w, w * w]
            for a in 0..<3 {
                for b in 0..<3 { rows[a][b] += powers[a] * powers[b] }
                rows[a][3] += powers[a] * target[k]
            }
        }
        if let curve = solve(rows) { return curve }
        let (gain, offset) = tone(values, target, inside)
        return [offset, gain * 255, 0]
    }

    /// The tone curve from the sums of a least-squares fit of t by w: their count, Σw, Σt, Σw²
    /// and Σwt.
    static func tone(count n: Double, sumW sx: Double, sumT sy: Double, sumWW sxx: Double, sumWT sxy: Double)
        -> (gain: Double, offset: Double)
    {
        let determinant = n * sxx - sx * sx
        guard n > 0, abs(determinant) > 1e-9 else { return (1, n > 0 ? (sy - sx) / n : 0) }
        let gain = (n * sxy - sx * sy) / determinant
        return (gain, (sy - gain * sx) / n)
    }

    /// The offset and scale on each axis that bring `source` nearest to `target`, by Gauss–Newton
    /// at three blurs, from coarse to fine; `nil` when it strays more than a fifth of a side.
    static func fit(target: [Level], source: [Level]) -> Fit? {
        var fit = Fit()
        for level in sigmas.indices {
            // The blurred levels vary slowly: every other sample is enough for them.
            let stride = level == sigmas.count - 1 ? 1 : 2
            for _ in 0..<rounds[level] {
                guard step(&fit, target[level], source[level], stride: stride), fit.isNear else { return nil }
            }
        }
        return fit
    }

    /// One Gauss–Newton step of `fit`, from every `stride`-th sample of each row and column;
    /// false when the equations have no solution.
    ///
    /// One pass over the samples: the residual r = t − (gain·w + offset) and the Jacobian
    /// J = gain·K are linear in the tone's gain and offset, so the pass sums Kᵀ K, Kᵀ t, Kᵀ w
    /// and Kᵀ 1 and the tone's own sums, and the tone is fitted after it.
    static func step(_ fit: inout Fit, _ target: Level, _ source: Level, stride: Int) -> Bool {
        let n = Double(side)
        let last = Double(side - 1)
        var kk = (SIMD4<Double>(), SIMD4<Double>(), SIMD4<Double>(), SIMD4<Double>())
        var kt = SIMD4<Double>()
        var kw = SIMD4<Double>()
        var k1 = SIMD4<Double>()
        var count = 0.0
        var sumW = 0.0
        var sumT = 0.0
        var sumWW = 0.0
        var sumWT = 0.0
        target.plane.values.withUnsafeBufferPointer { targets in
            source.texels.withUnsafeBufferPointer { texels in
                for j in Swift.stride(from: 0, to: side, by: stride) {
                    let v = (Double(j) + 0.5) / n
                    for i in Swift.stride(from: 0, to: side, by: stride) {
                        let (x, y) = fit.position(i, j)
                        guard x >= 0, x <= last, y >= 0, y <= last else { continue }
                        let found = Level.sample(texels, x, y)
                        let w = found[0]
                        let t = targets[j * side + i]
                        let u = (Double(i) + 0.5) / n
                        let k = SIMD4(found[1] * n, found[1] * n * u, found[2] * n, found[2] * n * v)
                        kk.0 += k * k[0]
                        kk.1 += k * k[1]
                        kk.2 += k * k[2]
                        kk.3 += k * k[3]
                        kt += k * t
                        kw += k * w
                        k1 += k
                        count += 1
                        sumW += w
                        sumT += t
                        sumWW += w * w
                        sumWT += w * t
                    }
                }
            }
        }
        let (gain, offset) = tone(count: count, sumW: sumW, sumT: sumT, sumWW: sumWW, sumWT: sumWT)
        let right = gain * (kt - gain * kw - offset * k1)
        let rows = [kk.0, kk.1, kk.2, kk.3].enumerated().map { index, row in
            [row[0], row[1], row[2], row[3]].map { $0 * gain * gain } + [right[index]]
        }
        guard let change = solve(rows) else { return false }
        fit.ox += change[0]
        fit.sx += change[1]
        fit.oy += change[2]
        fit.sy += change[3]
        return true
    }

    /// The solution of n equations given as rows of n coefficients and the right side,
    /// by elimination with partial pivoting; `nil` when they are singular.
    static func solve(_ rows: [[Double]]) -> [Double]? {
        var m = rows
        let count = m.count
        for column in 0..<count {
            guard let pivot = (column..<count).max(by: { abs(m[$0][column]) < abs(m[$1][column]) }),
                abs(m[pivot][column]) > 1e-12
            else { return nil }
            m.swapAt(column, pivot)
            for row in (column + 1)..<count {
                let factor = m[row][column] / m[column][column]
                for k in column...count { m[row][k] -= factor * m[column][k] }
            }
        }
        var solution = [Double](repeating: 0, count: count)
        for row in stride(from: count - 1, through: 0, by: -1) {
            var sum = m[row][count]
            for k in (row + 1)..<count { sum -= m[row][k] * solution[k] }
            solution[row] = sum / m[row][row]
        }
        return solution
    }

    /// The largest mean difference over a 6 x 6 window (of windows at least nine tenths inside)
    /// against the median window's, plus half a level.
    static func residual(target: Plane, source: Plane, fit: Fit) -> Double? {
        let (values, inside) = warped(source, fit)
        let curve = curvedTone(values, target.values, inside)
        var difference = [Double](repeating: 0, count: side * side)
        var weight = [Double](repeating: 0, count: side * side)
        for k in values.indices where inside[k] {
            let w = values[k] / 255
            difference[k] = abs(target.values[k] - (curve[0] + curve[1] * w + curve[2] * w * w))
            weight[k] = 1
        }
        let sums = windowMeans(difference)
        let counts = windowMeans(weight)
        var windows: [Double] = []
        windows.reserveCapacity(side * side)
        for k in sums.indices where counts[k] >= 0.9 { windows.append(sums[k] / counts[k]) }
        guard let largest = windows.max() else { return nil }
        let middle = windows.count / 2
        let upper = select(&windows, middle)
        // For an even count the lower middle is the largest of those the selection left below.
        let median = windows.count % 2 == 1 ? upper : (windows[..<middle].max().map { ($0 + upper) / 2 } ?? upper)
        return largest / (median + 0.5)
    }

    /// e raised to `x` (not negative), by its series: every term positive, so nothing cancels.
    package static func exponential(_ x: Double) -> Double {
        precondition(x >= 0)
        var sum = 1.0
        var term = 1.0
        var k = 1.0
        while term > sum * 1e-17 {
            term *= x / k
            sum += term
            k += 1
        }
        return sum
    }

    /// The `k`-th smallest of `values` (from 0), by Hoare's selection: `values` is left with the
    /// `k` smaller ones before it and the larger ones after.
    package static func select(_ values: inout [Double], _ k: Int) -> Double {
        var low = 0
        var high = values.count - 1
        while low < high {
            let pivot = values[(low + high) / 2]
            var i = low
            var j = high
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j {
                high = j
            } else if k >= i {
                low = i
            } else {
                break
            }
        }
        return values[k]
    }

    /// The mean over the 6 x 6 window at each sample (from 3 before it to 2 after, the edges
    /// mirrored).
    static func windowMeans(_ values: [Double]) -> [Double] {
        Plane(values: values).filtered([Double](repeating: 1.0 / 6, count: 6), first: -3).values
    }
}
