import AnalyzeCore
import ArgumentParser

/// `--barcodes` and the symbologies to decode.
struct BarcodeOptions: RequestOptions {
    @Flag(name: .customLong("barcodes"), help: "Detect and decode barcodes (ZBar): QR, EAN/UPC, Code 128/39/93, I2/5, Codabar, DataBar, PDF417…; light-on-dark and rotated codes included.")
    var barcodes = false

    @Option(help: ArgumentHelp("Only decode these barcode symbologies, comma-separated: \(BarcodeSymbology.all.map(\.rawValue).joined(separator: ",")). Default: all.", valueName: "list"))
    var symbologies: SymbologyList?

    var isAsked: Bool { barcodes }

    func request(models: inout ModelLocator) throws -> (any ImageRequest)? {
        BarcodeRequest(symbologies: symbologies?.symbologies ?? BarcodeSymbology.all)
    }
}
