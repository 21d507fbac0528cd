import AnalyzeCore

/// The near-duplicates among a run's images: every pair whose feature prints (``FeaturePrintObservation``)
/// are at most `maximumDistance` apart, and the groups those pairs join (an image close to two others
/// puts all three in one group). What `analyze similar` prints.
///
/// Deterministic: pairs sorted by distance, then by their paths; groups by their first path, each
/// group's paths sorted. Every pair is compared: about 1 s for 1,000 images, 100 s for 10,000.
public struct NearDuplicates: Sendable, Hashable, Encodable {
    /// Two images and the distance between their prints.
    public struct Pair: Sendable, Hashable, Encodable {
        public let a: String
        public let b: String
        /// Rounded to four decimals, as written.
        public let distance: Double
    }

    /// The largest distance that counts as a near-duplicate.
    public let maximumDistance: Double
    public let pairs: [Pair]
    public let groups: [[String]]

    /// On the development set (eval/similar/evaluate-similar), copies of a photo (half or quarter size, JPEG
    /// quality 40 or 15, cropped by a tenth or a fifth, brighter, darker) measured at most 0.77 from each
    /// other and different photos at least 0.78: at 0.7, 99% of the copies are found and no different
    /// photo (docs/benchmarks.md, "Near-duplicates").
    public static let defaultMaximumDistance = 0.7

    /// The near-duplicates among `prints` (a path and its image's feature print).
    public init(
        _ prints: [(path: String, print: FeaturePrintObservation)], maximumDistance: Double = defaultMaximumDistance
    ) {
        self.maximumDistance = maximumDistance
        let sorted = prints.sorted { $0.path < $1.path }
        var pairs: [Pair] = []
        // Union-find over the indices of `sorted`.
        var parent = Array(sorted.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        for i in sorted.indices {
            for j in sorted.indices where j > i {
                let distance = sorted[i].print.distance(to: sorted[j].print)
                guard distance <= maximumDistance else { continue }
                pairs.append(
                    Pair(a: sorted[i].path, b: sorted[j].path, distance: (distance * 10_000).rounded() / 10_000))
                let (ri, rj) = (root(i), root(j))
                if ri != rj { parent[max(ri, rj)] = min(ri, rj) }
            }
        }
        self.pairs = pairs.sorted { ($0.distance, $0.a, $0.b) < ($1.distance, $1.a, $1.b) }
        var members: [Int: [String]] = [:]
        for i in sorted.indices { members[root(i), default: []].append(sorted[i].path) }
        groups = members.values.filter { $0.count > 1 }.map { $0.sorted() }.sorted { $0[0] < $1[0] }
    }
}
