import AnalyzeCore
import Foundation

/// The inputs of a batch, found and checked as `analyze` does before it writes anything: a program that
/// runs ``BatchRunner`` over paths a user gave gets the same inputs, the same refusals and the same
/// promise that outputs never land where inputs are read from.
public enum BatchInputs {
    /// Why the paths cannot be analysed as given: a usage error, raised before any output folder exists.
    public struct Refusal: Error, CustomStringConvertible, Sendable, Equatable {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// The inputs named by `arguments` (files, folders searched recursively, live streams) and the
    /// folders of frames in `sequences`, for a run writing into `output`:
    /// - refused when `output` is one of the arguments, or holds an input itself (outputs would
    ///   overwrite or mix with the user's files); `output` is never searched for inputs, so a second run
    ///   does not analyse the first one's images;
    /// - refused when nothing is found, or when none of the local paths exists (a typo);
    /// - then only `shard`'s slice of the files (chosen by file, before pages are counted, so a shard
    ///   opens only its own PDFs), each multi-page TIFF or PDF expanded into the pages `pages` selects.
    public static func resolve(
        _ arguments: [String], sequences: [String] = [], output: String, shard: Shard? = nil,
        pages: PageSelection = .all
    ) throws(Refusal) -> [ImageSource] {
        let outputFolder = InputCollector.canonical(output)
        if let same = arguments.first(where: { InputCollector.canonical($0) == outputFolder }) {
            throw Refusal(
                "the output folder is the input folder \(same); outputs never go where inputs are read from: choose another -o"
            )
        }
        var sources = InputCollector.files(arguments, sequences: sequences, excluding: [output])
        let named = (arguments + sequences).prefix(5).joined(separator: ", ")
        guard !sources.isEmpty else { throw Refusal("no images found in \(named)") }
        let local = sources.filter { $0.kind != .stream || $0.path.hasPrefix("/dev/") }
        if local.count == sources.count, !local.contains(where: { FilePathBytes.exists($0.path) }) {
            let names = local.prefix(3).map(\.path).joined(separator: ", ") + (local.count > 3 ? ", …" : "")
            throw Refusal("no such file, folder or device: \(names)")
        }
        if let clash = sources.first(where: {
            $0.kind != .stream
                && (InputCollector.canonical(($0.path as NSString).deletingLastPathComponent) == outputFolder
                    || ($0.kind == .frames && InputCollector.canonical($0.path) == outputFolder))
        }) {
            throw Refusal(
                "the output folder \(output) holds input images (\(clash.path)); outputs never go where inputs are read from: choose another -o"
            )
        }
        if let shard { sources = sources.filter { shard.contains($0.path) } }
        sources = InputCollector.expandingPages(sources, selection: pages)
        if shard == nil, sources.isEmpty { throw Refusal("no pages selected by --pages in \(named)") }
        return sources
    }
}
