/// One of N deterministic, disjoint slices of a batch (`--shard K/N`, 0 ≤ K < N), chosen by a
/// stable hash of each input's path, so N machines split one folder with no coordinator:
/// a Kubernetes Indexed Job passes `$JOB_COMPLETION_INDEX/N`, a Slurm array `$SLURM_ARRAY_TASK_ID/N`.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// The most shards a batch may be split into: `--shard` and `analyze report` share this limit.
    public static let maximumCount = 100_000

    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), (1...Self.maximumCount).contains(n),
            (0..<n).contains(k)
        else { return nil }
        index = k
        count = n
    }

    public var description: String { "\(index)/\(count)" }

    /// Whether an input path belongs to this shard (FNV-1a of the path, modulo N).
    public func contains(_ path: String) -> Bool {
        Int(FNV1a.hash(path) % UInt64(count)) == index
    }
}
