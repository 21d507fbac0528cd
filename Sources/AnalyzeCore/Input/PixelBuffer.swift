/// Decoded pixels handed to ``ImageRequestHandler/init(pixels:)``: a camera frame, a rendered page, an
/// image another library decoded. 8 bits a channel, rows top to bottom, already upright.
public struct PixelBuffer: Sendable {
    /// How a pixel's bytes are laid out.
    public enum Format: String, Sendable, CaseIterable {
        case gray8, rgb8, bgr8, rgba8, bgra8

        /// Bytes per pixel.
        public var bytesPerPixel: Int {
            switch self {
            case .gray8: 1
            case .rgb8, .bgr8: 3
            case .rgba8, .bgra8: 4
            }
        }
    }

    /// The pixels as interleaved RGB, three bytes each, rows packed.
    let rgb: [UInt8]
    public let width: Int
    public let height: Int

    /// `bytes` holds `height` rows of `width` pixels in `format`, each row `bytesPerRow` bytes (default:
    /// packed). Alpha is dropped (the pixels are taken as they are, not composited). Fails when the
    /// sizes do not fit the bytes.
    public init(bytes: [UInt8], width: Int, height: Int, format: Format, bytesPerRow: Int? = nil) throws(AnalysisError)
    {
        let row = bytesPerRow ?? width * format.bytesPerPixel
        guard width > 0, height > 0, width <= 1 << 16, height <= 1 << 16, row >= width * format.bytesPerPixel,
            bytes.count >= row * (height - 1) + width * format.bytesPerPixel
        else {
            throw AnalysisError(
                .undecodable,
                "the pixels do not fit: \(width)x\(height) \(format.rawValue), \(row) bytes a row, in \(bytes.count) bytes"
            )
        }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        let (size, red, blue) =
            switch format {
            case .gray8: (1, 0, 0)
            case .rgb8: (3, 0, 2)
            case .bgr8: (3, 2, 0)
            case .rgba8: (4, 0, 2)
            case .bgra8: (4, 2, 0)
            }
        let green = format == .gray8 ? 0 : 1
        for y in 0..<height {
            for x in 0..<width {
                let from = y * row + x * size, to = (y * width + x) * 3
                rgb[to] = bytes[from + red]
                rgb[to + 1] = bytes[from + green]
                rgb[to + 2] = bytes[from + blue]
            }
        }
        self.rgb = rgb
        self.width = width
        self.height = height
    }
}
