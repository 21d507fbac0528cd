/// The requests to perform on every image: a request that is nil is not performed.
/// The bundle `VNImageRequestHandler.perform([requests])` receives.
public struct RequestSet: Sendable, Codable, Hashable {
    public var rectangles: RectangleRequest?
    public var faces: FaceRequest?
    public var barcodes: BarcodeRequest?
    public var text: TextRequest?

    public init(rectangles: RectangleRequest? = nil, faces: FaceRequest? = nil, barcodes: BarcodeRequest? = nil, text: TextRequest? = nil) {
        self.rectangles = rectangles
        self.faces = faces
        self.barcodes = barcodes
        self.text = text
    }

    /// Every request the tool has, with default parameters.
    public static var all: RequestSet {
        RequestSet(rectangles: RectangleRequest(), faces: FaceRequest(), barcodes: BarcodeRequest(), text: TextRequest())
    }

    /// The kinds that will appear in the output.
    public var kinds: [ObservationKind] {
        var kinds: [ObservationKind] = []
        if rectangles != nil { kinds.append(.rectangles) }
        if faces != nil { kinds.append(.faces) }
        if barcodes != nil { kinds.append(.barcodes) }
        if text != nil { kinds.append(.text) }
        return kinds
    }

    public var isEmpty: Bool { kinds.isEmpty }

    /// Adds the request for `kind` with default parameters when it is not already requested.
    public mutating func ensure(_ kind: ObservationKind) {
        switch kind {
        case .rectangles: if rectangles == nil { rectangles = RectangleRequest() }
        case .faces: if faces == nil { faces = FaceRequest() }
        case .barcodes: if barcodes == nil { barcodes = BarcodeRequest() }
        case .text: if text == nil { text = TextRequest() }
        }
    }
}
