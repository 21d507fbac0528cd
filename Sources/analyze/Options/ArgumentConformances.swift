import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser

extension FaceDetectorKind: ExpressibleByArgument {}

extension TextGate: ExpressibleByArgument {}
extension PDFText: ExpressibleByArgument {}
extension TextRecognitionLevel: ExpressibleByArgument {}

extension OutputLayout.AnnotatedFormat: ExpressibleByArgument {}

extension Shard: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

extension PageSelection: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

/// `--symbologies qr,ean13,…`: a comma-separated list of symbology names (Vision's names, common
/// spellings and the names of analyze 0.2 accepted; see `BarcodeSymbology.named`).
struct SymbologyList: ExpressibleByArgument {
    let symbologies: [BarcodeSymbology]

    init?(argument: String) {
        var list: [BarcodeSymbology] = []
        for name in argument.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty
        {
            guard let symbologies = BarcodeSymbology.named(name) else { return nil }
            for symbology in symbologies where !list.contains(symbology) { list.append(symbology) }
        }
        guard !list.isEmpty else { return nil }
        symbologies = list
    }

    static var allValueStrings: [String] { BarcodeSymbology.all.map(\.rawValue) }
}

/// A `--require`/`--forbid` argument: `KIND` or `KIND=LABEL` (see ``ObservationCheck``).
struct CheckTarget: ExpressibleByArgument {
    let kind: ObservationKind
    let label: String?

    init?(argument: String) {
        guard let check = try? ObservationCheck(.require, argument: argument) else { return nil }
        kind = check.kind
        label = check.label
    }

    static var allValueStrings: [String] { RequestRegistry.kinds.map(\.rawValue) }
}
