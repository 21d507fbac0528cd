// swift-tools-version: 6.0
// An example that uses analyze as a library the way another package would: by git URL and a version.
// `scripts/test-example` builds and runs it against a tagged bare clone of this repository
// (ANALYZE_PACKAGE_URL); elsewhere, point it at the repository you cloned analyze from.
import Foundation
import PackageDescription

let analyze = ProcessInfo.processInfo.environment["ANALYZE_PACKAGE_URL"] ?? "https://example.invalid/analyze.git"

let package = Package(
    name: "QuickStart",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: analyze, from: "0.4.0")],
    targets: [
        .executableTarget(name: "QuickStart", dependencies: [.product(name: "AnalyzeCore", package: "analyze")])
    ]
)
