import Foundation

/// The upright image's size, handed to ``PixelPoint`` and ``BoundingBox`` through the encoder's
/// `userInfo` when the JSON is written in Vision's normalized coordinates (`--normalized`).
package struct NormalizedCoordinates: Sendable {
    /// The `userInfo` key (nil only if Foundation refused the name; normalized output then fails
    /// with an error rather than writing pixels under the wrong name).
    package static let key = CodingUserInfoKey(rawValue: "analyze.normalizedCoordinates")
    let width: Int
    let height: Int

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Fractions are written with six decimals (a micro-pixel on a 1 MP side).
    static func rounded(_ value: Double) -> Double { (value * 1_000_000).rounded() / 1_000_000 }

    func x(_ x: Double) -> Double { Self.rounded(x / Double(max(1, width))) }
    func length(_ length: Double, along side: Int) -> Double { Self.rounded(length / Double(max(1, side))) }
    /// y measured from the bottom, as a fraction of the height.
    func y(_ y: Double) -> Double { Self.rounded(1 - y / Double(max(1, height))) }
}

extension Encoder {
    /// The image size to normalize coordinates by, when the JSON is written normalized.
    var normalizedCoordinates: NormalizedCoordinates? {
        NormalizedCoordinates.key.flatMap { userInfo[$0] as? NormalizedCoordinates }
    }
}
