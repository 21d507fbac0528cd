import Foundation

/// What an image looks like to a network, as a vector: Vision's `VNFeaturePrintObservation`. Two photos
/// of the same scene (one resized, recompressed, slightly cropped or brightened) are close; different
/// photos are far. ``distance(to:)`` is Vision's `computeDistance(_:to:)`.
///
/// In the image's JSON under `featureprint`: `elementCount`, `elementType` (`float`) and `data`, the
/// vector as base64 of little-endian 32-bit floats (what Vision's `data` holds), unit length.
public struct FeaturePrintObservation: RequestResult, Codable {
    /// The vector, L2-normalised.
    public let vector: [Float]

    public init(vector: [Float]) { self.vector = vector }

    public var elementCount: Int { vector.count }

    /// The vector as Vision's `data` holds it: little-endian 32-bit floats, 4 bytes each (the JSON's
    /// base64 `data`, the `.npy` side output's array).
    public var data: [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(vector.count * 4)
        for value in vector { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        return bytes
    }

    /// The Euclidean distance between the two unit vectors: 0 for the same picture, up to √2 (the
    /// features are never negative). Near-duplicates measure under about 0.7
    /// (`NearDuplicates.defaultMaximumDistance` in AnalyzeBatch). Vectors of different lengths are infinitely far.
    public func distance(to other: FeaturePrintObservation) -> Double {
        guard vector.count == other.vector.count, !vector.isEmpty else { return .infinity }
        var sum = 0.0
        for (a, b) in zip(vector, other.vector) {
            let d = Double(a) - Double(b)
            sum += d * d
        }
        return sum.squareRoot()
    }

    public var summary: ResultSummary {
        var summary = ResultSummary(count: 1, phrase: "feature print")
        summary.highlights = ["feature print: \(elementCount) floats"]
        return summary
    }

    private enum CodingKeys: String, CodingKey {
        case elementCount, elementType, data
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(elementCount, forKey: .elementCount)
        try c.encode("float", forKey: .elementType)
        try c.encode(Data(data).base64EncodedString(), forKey: .data)
    }

    /// Reads a feature print back (`--resume`, `analyze similar` over a run's JSON); refuses one whose
    /// data does not hold `elementCount` finite floats.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let count = try c.decode(Int.self, forKey: .elementCount)
        guard try c.decode(String.self, forKey: .elementType) == "float" else {
            throw DecodingError.dataCorruptedError(
                forKey: .elementType, in: c, debugDescription: "only float feature prints are read")
        }
        guard let data = Data(base64Encoded: try c.decode(String.self, forKey: .data)), count >= 0,
            data.count == count * 4
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .data, in: c, debugDescription: "the data does not hold elementCount floats")
        }
        let bytes = [UInt8](data)
        vector = stride(from: 0, to: bytes.count, by: 4).map { i in
            Float(
                bitPattern: UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(
                    bytes[i + 3]) << 24)
        }
        guard vector.allSatisfy(\.isFinite) else {
            throw DecodingError.dataCorruptedError(
                forKey: .data, in: c, debugDescription: "the feature print holds a value that is not finite")
        }
    }

    public func encode(into container: inout KeyedEncodingContainer<AnalysisCodingKey>, as kind: ObservationKind) throws
    {
        try container.encode(self, forKey: AnalysisCodingKey(kind.rawValue))
    }

    public static func decode(from container: KeyedDecodingContainer<AnalysisCodingKey>, as kind: ObservationKind)
        throws -> FeaturePrintObservation?
    {
        try container.decodeIfPresent(FeaturePrintObservation.self, forKey: AnalysisCodingKey(kind.rawValue))
    }
}
