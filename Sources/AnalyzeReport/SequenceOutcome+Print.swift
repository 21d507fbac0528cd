import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput

extension PlainTextRenderer {
    /// A sequence's `--print` output: each distinct barcode read in its frames once, as
    /// `symbology:payload`, in the order first read (zbarcam prints a code when it appears); its text
    /// is not printed (it is in the JSON, frame by frame).
    public static func text(for sequence: SequenceOutcome) -> String {
        sequence.barcodeLines.map { $0 + "\n" }.joined()
    }
}
