import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser

/// `--barcodes` and the symbologies to decode.
struct BarcodeOptions: RequestOptions {
    @Flag(
        name: .customLong("barcodes"),
        help:
            "Detect and decode barcodes with zxing-cpp and ZBar, one observation per symbol: QR, Micro QR, Aztec, Data Matrix, PDF417, MaxiCode, EAN/UPC (with add-ons), Code 128/39/93, ITF, Codabar, GS1 DataBar; light-on-dark and rotated codes included."
    )
    var barcodes = false

    @Option(
        help: ArgumentHelp(
            "Only decode these barcode symbologies, comma-separated (the values listed after this). Old names (i25, databar, databar-exp, isbn13, sqcode…) are accepted. Default: all.",
            valueName: "list"))
    var symbologies: SymbologyList?

    var isAsked: Bool { barcodes }

    func request(models: inout ModelLocator) throws -> (any ImageRequest)? {
        BarcodeRequest(symbologies: symbologies?.symbologies ?? BarcodeSymbology.all)
    }
}
