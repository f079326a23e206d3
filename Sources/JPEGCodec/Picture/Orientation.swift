// Turning a decoded picture upright: Exif's eight orientations (TIFF 6.0's Orientation tag), the
// four turns and their mirror images, applied to every plane alike.

extension PlanarImage {
    /// The picture as it is displayed when its file says `orientation` (1–8): 2 mirrors it left
    /// to right, 3 turns it half round, 4 mirrors it top to bottom, 5 mirrors it across the
    /// diagonal from the top left, 6 turns it a quarter clockwise, 7 mirrors it across the other
    /// diagonal, 8 turns it a quarter anticlockwise. 5 to 8 swap the width and the height; any
    /// other value leaves the picture as it is.
    public func upright(orientation: Int) -> PlanarImage {
        guard (2...8).contains(orientation) else { return self }
        let swaps = orientation >= 5
        let newWidth = swaps ? height : width
        let newHeight = swaps ? width : height
        let sourceWidth = width
        let lastX = width - 1
        let lastY = height - 1
        // For each displayed sample (x, y), the stored one it shows.
        func source(_ x: Int, _ y: Int) -> Int {
            switch orientation {
            case 2: y * sourceWidth + (lastX - x)
            case 3: (lastY - y) * sourceWidth + (lastX - x)
            case 4: (lastY - y) * sourceWidth + x
            case 5: x * sourceWidth + y
            case 6: (lastY - x) * sourceWidth + y
            case 7: (lastY - x) * sourceWidth + (lastX - y)
            default: x * sourceWidth + (lastX - y)
            }
        }
        let turned = planes.map { plane in
            var result = [UInt8](repeating: 0, count: plane.count)
            plane.withUnsafeBufferPointer { from in
                result.withUnsafeMutableBufferPointer { to in
                    for y in 0..<newHeight {
                        for x in 0..<newWidth { to[y * newWidth + x] = from[source(x, y)] }
                    }
                }
            }
            return result
        }
        var image = PlanarImage(width: newWidth, height: newHeight, planes: turned)
        image.damage = damage
        return image
    }
}
