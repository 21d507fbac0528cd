import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser
import Foundation

/// `analyze similar DIR…`: the near-duplicate photos among the inputs, by their feature prints.
struct SimilarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "similar",
        abstract:
            "List near-duplicate images (resized, recompressed, cropped or brightened copies) by their feature prints.",
        discussion: """
            Computes each image's feature print (as --featureprint does) and prints the groups of images whose prints are within --max-distance of another's: one path per line, a blank line between groups (fdupes' format). --pairs prints each close pair instead, as `DISTANCE<TAB>A<TAB>B`, closest first; --json prints both as JSON (schemas/similar.schema.json). Writes no file. Every pair is compared: about 1 s for 1,000 images. Videos and streams are left out; each page of a TIFF or PDF is an image.

            Exit status: 0 done (whether or not near-duplicates were found); 1 some inputs could not be read (each named on stderr; the others are still compared); 2 usage error or the model is missing.
            """
    )

    @Argument(help: ArgumentHelp("Images or folders (searched recursively).", valueName: "path"))
    var inputs: [String] = []

    @Option(
        name: .customLong("max-distance"),
        help: ArgumentHelp(
            "The largest distance between two feature prints (Euclidean, of unit vectors: 0 to 1.41) that makes two images near-duplicates.",
            valueName: "d"))
    var maxDistance: Double = NearDuplicates.defaultMaximumDistance

    @Flag(name: .customLong("pairs"), help: "Print each near-duplicate pair with its distance instead of the groups.")
    var pairs = false

    @Flag(name: .customLong("json"), help: "Print the pairs and the groups as JSON.")
    var json = false

    @Option(
        name: [.short, .customLong("jobs")],
        help: ArgumentHelp("Images read in parallel (default: the number of cores).", valueName: "n"))
    var jobs: Int?

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one image or folder") }
        if !(0...2).contains(maxDistance) { throw ValidationError("--max-distance must be between 0 and 2") }
        if pairs && json { throw ValidationError("--pairs and --json cannot be combined (the JSON has both)") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }

    func run() throws {
        let arguments = FilePathBytes.restoringRawBytes(inputs)
        let sources = InputCollector.expandingPages(InputCollector.files(arguments).filter { $0.kind == .image })
        guard !sources.isEmpty else {
            throw ValidationError("no images found in \(arguments.prefix(5).joined(separator: ", "))")
        }
        let models = ModelLocator.standard
        let requests: RequestSet
        do {
            requests = try RequestPlan(configured: RequestSet(), asked: [.featurePrint]).resolve(models: models)
                .requests
        } catch {
            throw ValidationError(error.message)
        }
        var runner = BatchRunner(
            sources: sources, requests: requests, output: nil,
            jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount)
        runner.models = models
        let outcomes = try runner.run()
        var prints: [(path: String, print: FeaturePrintObservation)] = []
        var failed = 0
        for outcome in outcomes {
            switch outcome.result {
            case .success(let analysis):
                if let print = analysis.featurePrint {
                    prints.append((outcome.source.label, print))
                } else {
                    failed += 1
                    let why =
                        analysis.requestErrors[ObservationKind.featurePrint.rawValue]?.message ?? "no feature print"
                    Terminal.printError("analyze similar: \(MarkupEscaping.printable(outcome.source.label)): \(why)")
                }
            case .failure(let error):
                failed += 1
                Terminal.printError(
                    "analyze similar: \(MarkupEscaping.printable(outcome.source.label)): \(error.message)")
            }
        }
        let found = NearDuplicates(prints, maximumDistance: maxDistance)
        if json {
            print(String(decoding: try JSONRenderer.encode(found), as: UTF8.self), terminator: "")
        } else if pairs {
            for pair in found.pairs {
                print(
                    String(format: "%.4f", pair.distance) + "\t" + MarkupEscaping.printable(pair.a) + "\t"
                        + MarkupEscaping.printable(pair.b))
            }
        } else {
            print(
                found.groups.map { $0.map { MarkupEscaping.printable($0) }.joined(separator: "\n") }.joined(
                    separator: "\n\n"))
        }
        Terminal.printError(
            "analyze similar: \(prints.count) image(s) compared, \(found.groups.count) group(s) of near-duplicates, \(found.pairs.count) pair(s)"
                + (failed > 0 ? ", \(failed) could not be read" : ""))
        if failed > 0 { throw ExitCode(1) }
    }
}
