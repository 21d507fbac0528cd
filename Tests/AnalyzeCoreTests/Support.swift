import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// A folder of real photos that scripts/fetch-test-images takes from Debian packages into `.models/`.
struct FetchedPhotos: Sendable {
    let folder: URL

    init(_ name: String) {
        folder = Fixture.root.deletingLastPathComponent().appendingPathComponent(".models").appendingPathComponent(name)
    }

    /// The path of one of them; the test fails with a hint when the folder was not fetched.
    func path(_ name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try #require(FileManager.default.fileExists(atPath: path), "run scripts/fetch-test-images (scripts/test does)")
        return path
    }

    /// One of them decoded, upright as stored.
    func image(_ name: String) throws -> UprightImage {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try path(name))))
        return try UprightImage(decoding: bytes, orientation: .up, maximumPixels: 10_000_000)
    }

    /// Runs `requests` on one of them through the real engines.
    func analyze(_ name: String, _ requests: RequestSet) throws -> ImageAnalysis {
        try ImageRequestHandler(source: ImageSource(path: try path(name), outputName: "x")).perform(
            requests, engines: WorkerEngines()
        ).analysis
    }
}

/// Debian's python3-skimage sample photos.
let DebianPhoto = FetchedPhotos("test-images")
/// Debian's opencv-doc sample photos and videos.
let OpenCVSample = FetchedPhotos("opencv-doc")
/// Ordinary snapshots from Debian's kphotoalbum (its demo album).
let Snapshot = FetchedPhotos("snapshots")
/// Wikimedia landscapes that Debian's liblemonldap-ng-portal-perl carries as its portal's backgrounds.
let Background = FetchedPhotos("backgrounds")
/// Tux Typing's photos (Debian's tuxtype-data).
let Coast = FetchedPhotos("coasts")
/// The dishes of Qt WebEngine's recipe example (Debian's qtwebengine5-examples).
let Dish = FetchedPhotos("dishes")
/// Three PASCAL VOC 2011 photos from the example data of Debian's labelme-examples.
let VOCPhoto = FetchedPhotos("voc")

/// Where the project's generated fixtures live, found relative to this file.
enum Fixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// Runs `requests` on one fixture through the real engines.
    static func analyze(_ relative: String, _ requests: RequestSet, engines: WorkerEngines = WorkerEngines()) throws
        -> ImageAnalysis
    {
        let source = ImageSource(path: path(relative), outputName: "x")
        return try ImageRequestHandler(source: source).perform(requests, engines: engines).analysis
    }

    /// A fresh empty temporary folder.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("analyze-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Runs one of the tests' Python scripts (`Tests/Support/NAME`) with python3 and returns its exit
/// status and its stdout and stderr together.
func runScript(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (
    status: Int32, output: String
) {
    try runProgram(
        "/usr/bin/python3",
        [Fixture.root.deletingLastPathComponent().appendingPathComponent("Tests/Support/\(name)").path] + arguments,
        environment: environment)
}

/// Runs `program` with `arguments`; its status and its stdout and stderr together.
func runProgram(_ program: String, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil)
    throws -> (status: Int32, output: String)
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: readToEnd(pipe.fileHandleForReading), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
}

/// Words of a text, lower-cased, with punctuation at their edges removed.
func normalizedWords(_ text: String) -> [String] {
    text.lowercased().split(whereSeparator: { $0.isWhitespace }).map {
        $0.trimmingCharacters(in: .punctuationCharacters.union(.symbols))
    }.filter { !$0.isEmpty }
}

/// Fraction of the expected words (as a multiset) found in the recognised text.
func wordRecall(expected: String, recognised: String) -> Double {
    var pool: [String: Int] = [:]
    for w in normalizedWords(recognised) { pool[w, default: 0] += 1 }
    let wanted = normalizedWords(expected)
    var hits = 0
    for w in wanted where pool[w, default: 0] > 0 {
        pool[w, default: 0] -= 1
        hits += 1
    }
    return wanted.isEmpty ? 1 : Double(hits) / Double(wanted.count)
}

/// Everything a pipe gives until its end, read with read(2) and retried on EINTR (Foundation's
/// `readDataToEndOfFile()` traps when a signal, such as another test's child ending, interrupts it).
func readToEnd(_ handle: FileHandle) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
        if n > 0 {
            data.append(contentsOf: buffer[0..<n])
        } else if n < 0 && errno == EINTR {
            continue
        } else {
            return data
        }
    }
}

/// Both pipes read together until both end (a program that fills one while the other is read would
/// otherwise wait for ever).
func readToEnd(_ first: FileHandle, _ second: FileHandle) -> (Data, Data) {
    final class Box: @unchecked Sendable { var data = Data() }  // written before group.wait() returns
    let other = Box()
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) { other.data = readToEnd(second) }
    let data = readToEnd(first)
    group.wait()
    return (data, other.data)
}
