/// What happened to one input image in a batch: its analysis or its error, and where time went.
public struct ImageOutcome: Sendable {
    public let source: ImageSource
    /// Position of the image in the run's input list.
    public let index: Int
    public let result: Swift.Result<ImageAnalysis, AnalysisError>
    public let timings: StageTimings

    public var analysis: ImageAnalysis? { try? result.get() }
    public var error: AnalysisError? {
        if case .failure(let error) = result { return error }
        return nil
    }
}
