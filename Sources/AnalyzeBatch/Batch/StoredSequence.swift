import AnalyzeCore
import AnalyzeOutput
import Foundation

/// The content identity of a sequence's input, for `--resume`.
enum SequenceFingerprint {
    /// A video file: its size and SHA-256 (read in 1 MiB chunks). A folder of frames: the sum of
    /// their sizes and the SHA-256 of one `name size sha256` line per frame, in name order.
    static func of(_ source: ImageSource, maximumBytes: Int) throws(AnalysisError) -> InputFingerprint {
        switch source.kind {
        case .frames:
            var lines = "", total = 0
            for path in try FolderFrameSource.framePaths(in: source.path) {
                let bytes = try RegularFile.read(path, maximumBytes: maximumBytes)
                total += bytes.count
                lines += "\((path as NSString).lastPathComponent) \(bytes.count) \(ContentHash.sha256Hex(bytes))\n"
            }
            return InputFingerprint(bytes: total, sha256: ContentHash.sha256Hex(Array(lines.utf8)))
        default:
            try RegularFile.validate(source.path)
            let size =
                ((try? FileManager.default.attributesOfItem(atPath: source.path)[.size]) as? NSNumber)?.intValue ?? 0
            return InputFingerprint(bytes: size, sha256: try ContentHash.sha256Hex(ofFile: source.path))
        }
    }
}

/// A sequence's JSON read back (`--resume`): its details, its tracks, and what its frames held,
/// summed again from their observations as the run that wrote it summed them.
struct StoredSequence: Decodable {
    let sequence: SequenceAnalysis
    let tracks: [TrackSummary]
    let summary: SequenceSummaryAccumulator

    private enum Keys: String, CodingKey { case frames, sequence, tracks }

    /// One frame's observations, read with each registered kind's own decoder.
    private struct StoredFrame: Decodable {
        let frame: FrameAnalysis

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnalysisCodingKey.self)
            var analysis = ImageAnalysis(file: "", orientation: 1, width: 0, height: 0)
            analysis.requestErrors =
                try c.decodeIfPresent([String: ImageAnalysis.RequestError].self, forKey: ImageAnalysis.errorsKey) ?? [:]
            for entry in RequestRegistry.entries {
                if let result = try entry.decodeResult(c) { analysis.set(result, for: entry.kind) }
            }
            frame = FrameAnalysis(
                index: try c.decode(Int.self, forKey: AnalysisCodingKey("index")),
                time: try c.decodeIfPresent(Double.self, forKey: AnalysisCodingKey("time")),
                keyFrame: try c.decode(Bool.self, forKey: AnalysisCodingKey("keyFrame")), analysis: analysis)
        }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        sequence = try c.decode(SequenceAnalysis.self, forKey: .sequence)
        tracks = try c.decode([TrackSummary].self, forKey: .tracks)
        var summary = SequenceSummaryAccumulator()
        for stored in try c.decode([StoredFrame].self, forKey: .frames) { summary.add(stored.frame) }
        self.summary = summary
    }

    /// The earlier run's sequence, when its JSON names the same input content and options and
    /// every other file it should have written is there.
    static func upToDate(
        _ source: ImageSource, fingerprint: InputFingerprint, optionsHash: String, in output: OutputOptions
    ) -> StoredSequence? {
        guard let data = FileManager.default.contents(atPath: output.url(of: .json, for: source).path),
            let stored = try? JSONDecoder().decode(StoredSequence.self, from: data),
            stored.sequence.input == fingerprint, stored.sequence.optionsHash == optionsHash,
            stored.sequence.interrupted != true
        else { return nil }
        let expected = output.layout.sequenceFiles(hasFrames: stored.sequence.framesAnalysed > 0).map {
            output.url(of: $0, for: source).path
        }
        return expected.allSatisfy { FileManager.default.fileExists(atPath: $0) } ? stored : nil
    }
}
