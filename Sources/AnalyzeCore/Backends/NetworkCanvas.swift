/// The input of a fully convolutional network that takes any size in multiples of 32 (CenterFace, the
/// DB text detector), for one image.
enum NetworkCanvas {
    /// An image of `width` × `height` scaled to fit `bounds` (multiples of 32) with its proportions
    /// kept, each side rounded up to a multiple of 32: the smallest canvas that holds the fitted image,
    /// with at most 31 rows or columns of padding, so that a forward costs only what the image needs.
    /// The side that binds is the bound itself, so the image is seen at the scale the whole box gives.
    static func fitted(width: Int, height: Int, into bounds: (width: Int, height: Int)) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return bounds }
        let scale = min(Double(bounds.width) / Double(width), Double(bounds.height) / Double(height))
        func side(_ length: Int, _ limit: Int) -> Int {
            let fitted = min(Double(limit), (Double(length) * scale).rounded())
            return min(limit, max(32, Int((fitted / 32).rounded(.up)) * 32))
        }
        return (width: side(width, bounds.width), height: side(height, bounds.height))
    }

    /// An image of `width` × `height` scaled, proportions kept, to about `side` × `side` pixels in area (a
    /// tall or wide image gets a tall or wide canvas of the same cost, so that its objects keep the scale a
    /// square photo's have), each side a multiple of 32 and at most twice `side`.
    static func fitted(width: Int, height: Int, area side: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return (side, side) }
        let scale = min(
            (Double(side * side) / Double(width * height)).squareRoot(),
            2 * Double(side) / Double(max(width, height)))
        func round32(_ length: Int) -> Int { min(2 * side, max(32, Int((Double(length) * scale / 32).rounded()) * 32)) }
        return (round32(width), round32(height))
    }
}
