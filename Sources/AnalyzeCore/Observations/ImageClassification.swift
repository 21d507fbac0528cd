/// What an image shows as a whole (the result of a ``ClassificationRequest``): ranked labels,
/// most confident first, like the `VNClassificationObservation`s of `VNClassifyImageRequest`.
/// Written to the image's JSON as an array of `{identifier, confidence}` under `classification`.
public struct ImageClassification: RequestResult {
    public let labels: [ClassificationObservation]

    public init(labels: [ClassificationObservation]) { self.labels = labels }

    public var summary: ResultSummary { ClassificationObservation.summary(of: labels) }

    public func encode(into container: inout KeyedEncodingContainer<AnalysisCodingKey>, as kind: ObservationKind) throws
    {
        try container.encode(labels, forKey: AnalysisCodingKey(kind.rawValue))
    }

    public static func decode(from container: KeyedDecodingContainer<AnalysisCodingKey>, as kind: ObservationKind)
        throws -> ImageClassification?
    {
        try container.decodeIfPresent([ClassificationObservation].self, forKey: AnalysisCodingKey(kind.rawValue)).map(
            ImageClassification.init)
    }
}
