/// 2×3 affine maps, row-major `[a, b, c, d, e, f]` for `x' = a·x + b·y + c`, `y' = d·x + e·y + f`: how a
/// request maps coordinates found in a copy of the image (scaled, cropped, turned) back into it.
enum Affine {
    /// The map that changes nothing.
    static let identity: [Double] = [1, 0, 0, 0, 1, 0]

    /// The map that only shifts by (`x`, `y`): from a crop at that offset back into the image.
    static func translation(x: Double, y: Double) -> [Double] { [1, 0, x, 0, 1, y] }

    /// The map that only scales, by `x` along rows and `y` along columns.
    static func scale(x: Double, y: Double) -> [Double] { [x, 0, 0, 0, y, 0] }

    /// The map `outer ∘ inner` (apply `inner`, then `outer`).
    static func compose(_ outer: [Double], _ inner: [Double]) -> [Double] {
        [
            outer[0] * inner[0] + outer[1] * inner[3], outer[0] * inner[1] + outer[1] * inner[4],
            outer[0] * inner[2] + outer[1] * inner[5] + outer[2],
            outer[3] * inner[0] + outer[4] * inner[3], outer[3] * inner[1] + outer[4] * inner[4],
            outer[3] * inner[2] + outer[4] * inner[5] + outer[5],
        ]
    }
}
