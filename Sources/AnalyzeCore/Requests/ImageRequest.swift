/// One kind of analysis to perform on an image, like a `VNRequest`.
///
/// Requests are small values holding their parameters. The ``ImageRequestHandler`` performs them,
/// all on the same decoded, upright image, with the engines of the worker thread it runs on.
public protocol ImageRequest: Sendable {
    associatedtype Observation: Sendable

    /// The name of the kind of observation, as used in JSON keys, SVG groups and labels.
    static var kind: ObservationKind { get }

    /// Runs the request on one upright image.
    func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> [Observation]
}

/// The kinds of observations the tool produces.
public enum ObservationKind: String, Sendable, Hashable, Codable, CaseIterable {
    case rectangles, faces, barcodes, text

    /// Colour used to draw this kind (the Vision sample's convention), as r, g, b.
    public var color: (r: UInt8, g: UInt8, b: UInt8) {
        switch self {
        case .rectangles: (0, 90, 255)
        case .faces: (255, 214, 0)
        case .barcodes: (0, 200, 70)
        case .text: (230, 20, 20)
        }
    }

    /// The colour as an SVG/CSS hex string.
    public var cssColor: String {
        let c = color
        return "#" + [c.r, c.g, c.b].map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// Colour of per-character boxes (purple in the Vision sample).
    public static let characterColor: (r: UInt8, g: UInt8, b: UInt8) = (150, 40, 200)
}
