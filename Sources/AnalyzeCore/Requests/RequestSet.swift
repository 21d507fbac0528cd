/// The requests to perform on every image, at most one per kind, in the order they run: the
/// bundle `VNImageRequestHandler.perform([requests])` receives.
///
/// Encoded as one object keyed by kind (`{"barcodes": {…}, "text": {…}}`): that is what
/// `summary.json` records and what the options hash in each image's JSON covers. Decoding goes
/// through the `RequestRegistry` (AnalyzeBatch), which knows every kind.
public struct RequestSet: Sendable, Hashable, Encodable {
    /// The requests, in the order they run.
    public private(set) var requests: [any ImageRequest] = []

    /// A set of `requests`; a later request of a kind replaces an earlier one.
    public init(_ requests: [any ImageRequest] = []) {
        for request in requests { insert(request) }
    }

    /// Adds `request`, replacing the request of its kind if there is one.
    public mutating func insert(_ request: any ImageRequest) {
        if let index = requests.firstIndex(where: { $0.kind == request.kind }) {
            requests[index] = request
        } else {
            requests.append(request)
        }
    }

    /// Removes the request of `kind`.
    public mutating func remove(_ kind: ObservationKind) {
        requests.removeAll { $0.kind == kind }
    }

    /// The request of type `R`, if present.
    public subscript<R: ImageRequest>(_ type: R.Type) -> R? {
        requests.lazy.compactMap { $0 as? R }.first
    }

    /// The request of `kind`, if present.
    public subscript(kind: ObservationKind) -> (any ImageRequest)? {
        requests.first { $0.kind == kind }
    }

    /// The kinds that will appear in the output, in the order they run.
    public var kinds: [ObservationKind] { requests.map(\.kind) }

    public var isEmpty: Bool { requests.isEmpty }

    /// Every model the requests load.
    public var models: [ModelIdentity] { requests.flatMap(\.models) }

    public static func == (a: RequestSet, b: RequestSet) -> Bool {
        a.requests.count == b.requests.count
            && a.requests.allSatisfy { request in b[request.kind].map(request.isEqual(to:)) ?? false }
    }

    public func hash(into hasher: inout Hasher) {
        for request in requests.sorted(by: { $0.kind < $1.kind }) { hasher.combine(AnyHashable(request)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnalysisCodingKey.self)
        for request in requests {
            try container.encode(request, forKey: AnalysisCodingKey(request.kind.rawValue))
        }
    }
}
