import AnalyzeCore
import AnalyzeOutput

/// What happened to one input image in a batch: its analysis or its error, the checks it
/// failed, whether `--resume` reused earlier outputs, and where time went.
public struct ImageOutcome: Sendable {
    public let source: ImageSource
    /// Position of the image in the run's input list.
    public let index: Int
    public let result: Swift.Result<ImageAnalysis, AnalysisError>
    /// `--require`/`--forbid` checks this image failed (empty when it passed or was not analysed).
    public let checkFailures: [String]
    /// True when the outputs were already up to date and were reused (`--resume`).
    public let resumed: Bool
    public let timings: StageTimings
    /// What the run report keeps of this image.
    public let digest: ImageDigest
    /// For a sequence: how it was read, its tracks, and what its frames held (the `analysis`
    /// then holds only its file, size, warnings and errors).
    public let sequence: SequenceOutcome?

    init(
        source: ImageSource, index: Int, result: Swift.Result<ImageAnalysis, AnalysisError>,
        checkFailures: [String] = [],
        resumed: Bool = false, timings: StageTimings
    ) {
        self.init(
            source: source, index: index, result: result, checkFailures: checkFailures, resumed: resumed,
            timings: timings,
            digest: ImageDigest(source: source, result: result, checkFailures: checkFailures), sequence: nil)
    }

    /// The outcome of an analysed sequence.
    init(
        source: ImageSource, index: Int, analysis: ImageAnalysis, sequence: SequenceOutcome, checkFailures: [String],
        resumed: Bool,
        timings: StageTimings
    ) {
        self.init(
            source: source, index: index, result: .success(analysis), checkFailures: checkFailures, resumed: resumed,
            timings: timings,
            digest: ImageDigest(source: source, analysis: analysis, sequence: sequence, checkFailures: checkFailures),
            sequence: sequence)
    }

    public var analysis: ImageAnalysis? { try? result.get() }
    public var error: AnalysisError? {
        if case .failure(let error) = result { return error }
        return nil
    }
    /// Whether this image counts as a failure for the exit status (unreadable or failed a check).
    public var isFailure: Bool { error != nil || !checkFailures.isEmpty || !(analysis?.requestErrors.isEmpty ?? true) }

    /// The same outcome without the observations (kept in the digest and the JSON file), so a
    /// run over a huge folder does not hold every image's observations in memory.
    func withoutObservations() -> ImageOutcome {
        guard case .success(let analysis) = result else { return self }
        return ImageOutcome(
            source: source, index: index, result: .success(analysis.withoutResults), checkFailures: checkFailures,
            resumed: resumed,
            timings: timings, digest: digest, sequence: sequence)
    }

    private init(
        source: ImageSource, index: Int, result: Swift.Result<ImageAnalysis, AnalysisError>, checkFailures: [String],
        resumed: Bool, timings: StageTimings, digest: ImageDigest, sequence: SequenceOutcome?
    ) {
        self.source = source
        self.index = index
        self.result = result
        self.checkFailures = checkFailures
        self.resumed = resumed
        self.timings = timings
        self.digest = digest
        self.sequence = sequence
    }
}
