/// An EXIF/TIFF orientation: how the stored pixels must be transformed to show the image upright.
public enum ImageOrientation: Int, Sendable, Hashable, Codable, CaseIterable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// Whether width and height swap when the orientation is applied.
    public var swapsDimensions: Bool { rawValue >= 5 }
}
