import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser

/// The command-line face of one kind of request: its flag and its parameters.
protocol RequestOptions: ParsableArguments {
    /// Whether the request's own flag (`--barcodes`…) was given.
    var isAsked: Bool { get }
    /// The request with these parameters (nil: this group adds none). Explicit model files
    /// (`--face-model`, `--model`) are added to `models`, which then finds them by identity.
    func request(models: inout ModelLocator) throws -> (any ImageRequest)?
}

/// Every request's option group: the command's one list of kinds. A new kind adds one line here.
struct RequestOptionGroups: ParsableArguments {
    @OptionGroup(title: "Rectangles") var rectangles: RectangleOptions
    @OptionGroup(title: "Faces") var faces: FaceOptions
    @OptionGroup(title: "Text") var text: TextOptions
    @OptionGroup(title: "Barcodes") var barcodes: BarcodeOptions
    @OptionGroup(title: "Objects") var objects: ObjectOptions
    @OptionGroup(title: "Classification") var classification: ClassificationOptions
    @OptionGroup(title: "Horizon") var horizon: HorizonOptions
    @OptionGroup(title: "Feature print") var featurePrint: FeaturePrintOptions
    // Last: its request replaces the default one of its kind.
    @OptionGroup(title: "Your own model") var customModel: CustomModelOptions

    /// The groups above, found by reflection so the list is written once.
    var all: [any RequestOptions] {
        Mirror(reflecting: self).children.compactMap { ($0.value as? any RequestOptionsProvider)?.requestOptions }
    }
}

/// An `@OptionGroup` holding a ``RequestOptions``.
protocol RequestOptionsProvider {
    var requestOptions: any RequestOptions { get }
}

extension OptionGroup: RequestOptionsProvider where Value: RequestOptions {
    var requestOptions: any RequestOptions { wrappedValue }
}

/// Checks a 0–1 value.
func requireUnitInterval(_ value: Double?, _ name: String) throws {
    if let value, !(0...1).contains(value) { throw ValidationError("\(name) must be between 0 and 1") }
}
