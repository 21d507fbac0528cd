import Dispatch

/// Seconds spent per stage (read, decode, each request, render, write), for summaries and benchmarks.
/// Never written into the per-image JSON, which must not change from run to run.
public struct StageTimings: Sendable, Hashable, Codable {
    public private(set) var seconds: [String: Double] = [:]

    public init() {}

    /// Runs `body`, adding its wall time to `stage`.
    public mutating func measure<R, E: Error>(_ stage: String, _ body: () throws(E) -> R) throws(E) -> R {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { seconds[stage, default: 0] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        return try body()
    }

    /// Adds another set of timings stage by stage.
    public mutating func add(_ other: StageTimings) {
        for (stage, value) in other.seconds { seconds[stage, default: 0] += value }
    }
}
