// A photo's average colour, as people see it: the mean in Björn Ottosson's OKLab (perceptually
// even, so a red and a green field average to a muted yellow, not to mud), from the DC
// coefficients of a 1/8 decode (JPEGCodec's), written back as sRGB; and the OKLCh a colour
// family is read in (ColorFilter).

import JPEGCodec

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A colour in OKLab: lightness `l` (0–1) and the two opponent axes `a` (green–red) and `b`
/// (blue–yellow), from sRGB with its transfer function undone.
struct OKLab: Sendable, Hashable {
    /// Lightness, 0 (black) to 1 (white).
    var l: Double
    /// Green (negative) to red (positive).
    var a: Double
    /// Blue (negative) to yellow (positive).
    var b: Double

    /// A colour of the given coordinates.
    init(l: Double, a: Double, b: Double) {
        self.l = l
        self.a = a
        self.b = b
    }

    /// The colour of an 8-bit sRGB triple.
    init(red: UInt8, green: UInt8, blue: UInt8) {
        let (r, g, b) = (Self.linear[Int(red)], Self.linear[Int(green)], Self.linear[Int(blue)])
        let long = cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b)
        let medium = cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b)
        let short = cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
        l = 0.2104542553 * long + 0.7936177850 * medium - 0.0040720468 * short
        a = 1.9779984951 * long - 2.4285922050 * medium + 0.4505937099 * short
        self.b = 0.0259040371 * long + 0.7827717662 * medium - 0.8086757660 * short
    }

    /// The chroma (distance from gray) and hue (degrees, 0..<360) of OKLCh.
    var chromaAndHue: (chroma: Double, hue: Double) {
        var hue = atan2(b, a) * 180 / .pi
        if hue < 0 { hue += 360 }
        return ((a * a + b * b).squareRoot(), hue)
    }

    /// The nearest 8-bit sRGB colour, each channel clamped: `0xRRGGBB`.
    var rgb: UInt32 {
        let long = l + 0.3963377774 * a + 0.2158037573 * b
        let medium = l - 0.1055613458 * a - 0.0638541728 * b
        let short = l - 0.0894841775 * a - 1.2914855480 * b
        let (lc, mc, sc) = (long * long * long, medium * medium * medium, short * short * short)
        let red = 4.0767416621 * lc - 3.3077115913 * mc + 0.2309699292 * sc
        let green = -1.2684380046 * lc + 2.6097574011 * mc - 0.3413193965 * sc
        let blue = -0.0041960863 * lc - 0.7034186147 * mc + 1.7076147010 * sc
        func byte(_ linear: Double) -> UInt32 {
            let value = min(max(linear, 0), 1)
            let encoded = value <= 0.0031308 ? 12.92 * value : 1.055 * pow(value, 1 / 2.4) - 0.055
            return UInt32((encoded * 255).rounded())
        }
        return byte(red) << 16 | byte(green) << 8 | byte(blue)
    }

    /// sRGB's transfer function undone, for each 8-bit value.
    private static let linear: [Double] = (0...255).map { value in
        let c = Double(value) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }
}

extension PlanarImage {
    /// The mean of the picture's pixels in OKLab, as sRGB (`0xRRGGBB`). Orientation does not
    /// change a mean: the stored pixels give the displayed photo's.
    package func meanColour() -> UInt32 {
        let rgb = rgb()
        var sum = (l: 0.0, a: 0.0, b: 0.0)
        // Pixels of one colour in a row are common (skies, walls): each run is converted once.
        var index = 0
        let count = width * height
        while index < count {
            let (red, green, blue) = (rgb[3 * index], rgb[3 * index + 1], rgb[3 * index + 2])
            var run = 1
            while index + run < count, rgb[3 * (index + run)] == red, rgb[3 * (index + run) + 1] == green, rgb[3 * (index + run) + 2] == blue {
                run += 1
            }
            let colour = OKLab(red: red, green: green, blue: blue)
            sum.l += colour.l * Double(run)
            sum.a += colour.a * Double(run)
            sum.b += colour.b * Double(run)
            index += run
        }
        let total = Double(count)
        return OKLab(l: sum.l / total, a: sum.a / total, b: sum.b / total).rgb
    }
}
