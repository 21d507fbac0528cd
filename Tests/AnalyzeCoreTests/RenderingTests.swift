import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput
@testable import AnalyzeReport

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("Renderers")
struct RenderingTests {
    static let hostile = #"<script>alert(1)</script><img src=x onerror=alert(2)>&"'"#

    /// The label backgrounds of an SVG: x, y, width, height.
    static func labelBoxes(_ svg: String) -> [LabelLayout.Rect] {
        svg.components(separatedBy: "<rect class=\"label-background\"").dropFirst().compactMap { element in
            func number(_ name: String) -> Double? {
                guard let start = element.range(of: " \(name)=\"") else { return nil }
                return Double(element[start.upperBound...].prefix { $0 != "\"" })
            }
            guard let x = number("x"), let y = number("y"), let w = number("width"), let h = number("height") else {
                return nil
            }
            return LabelLayout.Rect(x: x, y: y, width: w, height: h)
        }
    }

    /// On real photos with every labelled kind, no label covers another and every label is on the
    /// canvas; the caption takes a corner free of the other labels (the astronaut's, not the top-left
    /// where `person 87%` was hidden); shortened labels end in `…` (`...` on the PNG).
    @Test func labelsNeverHideEachOtherAndStayOnTheCanvas() throws {
        let requests = RequestSet([
            FaceRequest(), ObjectRequest(), ClassificationRequest(), RectangleRequest(), BarcodeRequest(),
        ])
        for name in ["astronaut.png", "camera.png", "coffee.png"] {
            let analysis = try DebianPhoto.analyze(name, requests)
            let boxes = Self.labelBoxes(SVGRenderer.svg(for: analysis, imageHref: nil))
            #expect(boxes.count >= (name == "coffee.png" ? 2 : 3), "\(name): \(boxes)")
            for (i, a) in boxes.enumerated() {
                #expect(
                    a.x >= 0 && a.y >= 0 && a.maxX <= Double(analysis.width) + 0.01
                        && a.maxY <= Double(analysis.height) + 0.01, "\(name): \(a)")
                for b in boxes[(i + 1)...] { #expect(a.overlap(b) < 0.5, "\(name): \(a) and \(b) overlap") }
            }
        }
        let layout = LabelLayout(width: 200, height: 100)
        let first = layout.place((60, 20), near: BoundingBox(x: 10, y: 10, width: 50, height: 50)).rect
        let second = layout.place((60, 20), near: BoundingBox(x: 12, y: 12, width: 50, height: 50)).rect
        #expect(first.overlap(second) == 0 && second.maxY <= 100)
        let caption = layout.placeCaption((50, 30))
        #expect(caption.overlap(first) == 0 && caption.overlap(second) == 0)
        #expect(OpenCVMat.ascii("qr: https://example.com/redeem?card…") == "qr: https://example.com/redeem?card...")
    }

    /// The image's labels (a caption in a corner) never cover a line of text: on the receipt, whose
    /// labels the top-left corner would put over "CAFE LUNA", the caption takes a free corner.
    @Test func theCaptionLeavesTextLinesReadable() throws {
        let analysis = try Fixture.analyze(
            "samples/receipt-exif6.jpg", RequestSet([TextRequest(), ClassificationRequest()]))
        let lines = try #require(analysis.text).filter { $0.confidence >= AnnotationStyle.minimumDrawnConfidence }
        #expect(lines.contains { $0.string.contains("LUNA") })
        let captions = Self.labelBoxes(SVGRenderer.svg(for: analysis, imageHref: nil))
        #expect(!captions.isEmpty)
        for caption in captions {
            for line in lines {
                let box = LabelLayout.Rect(
                    x: line.boundingBox.x, y: line.boundingBox.y, width: line.boundingBox.width,
                    height: line.boundingBox.height)
                #expect(caption.overlap(box) == 0, "caption \(caption) covers '\(line.string)'")
            }
        }
    }

    /// A crowd of small boxes (a row of faces in a class photo): every label finds a free place, those
    /// that stand away from their box get a leader line to it, and none covers another.
    @Test func aCrowdsLabelsStandApartWithLeaderLines() throws {
        let layout = LabelLayout(width: 640, height: 480)
        // Three rows of eight faces, shoulder to shoulder.
        let boxes = (0..<24).map {
            BoundingBox(x: 180 + Double($0 % 8) * 30, y: 180 + Double($0 / 8) * 32, width: 28, height: 28)
        }
        let placed = boxes.map { layout.place((90, 16), near: $0) }
        for (i, a) in placed.enumerated() {
            #expect(a.rect.x >= 0 && a.rect.y >= 0 && a.rect.maxX <= 640 && a.rect.maxY <= 480)
            for b in placed[(i + 1)...] { #expect(a.rect.overlap(b.rect) == 0, "\(a.rect) and \(b.rect)") }
        }
        let led = placed.enumerated().filter { $0.element.leader != nil }
        #expect(led.count >= 4)
        for (i, placement) in led {
            guard let leader = placement.leader else { continue }
            // From the label's edge to the outline of its own box.
            let box = boxes[i]
            #expect(leader.to.x >= box.x && leader.to.x <= box.maxX && leader.to.y >= box.y && leader.to.y <= box.maxY)
            let r = placement.rect
            #expect(leader.from.x >= r.x && leader.from.x <= r.maxX && leader.from.y >= r.y && leader.from.y <= r.maxY)
        }
        // In the SVG each such label comes with a <line class="leader">.
        // The first ten of the crowd in a 320 x 240 image, as objects with long names.
        var analysis = ImageAnalysis(file: "crowd.png", orientation: 1, width: 320, height: 240)
        let small = boxes.prefix(10).map {
            BoundingBox(x: $0.x - 160, y: $0.y - 120, width: $0.width, height: $0.height)
        }
        analysis.set(
            small.map {
                RecognizedObjectObservation(
                    boundingBox: $0, confidence: 0.9,
                    labels: [ClassificationObservation(identifier: "passenger on the platform", confidence: 0.9)])
            }, for: .objects)
        let svg = SVGRenderer.svg(for: analysis, imageHref: nil)
        #expect(svg.components(separatedBy: "<line class=\"leader\"").count - 1 >= 4)
        let drawn = Self.labelBoxes(svg)
        for (i, a) in drawn.enumerated() { for b in drawn[(i + 1)...] { #expect(a.overlap(b) < 0.5) } }
    }

    @Test func svgOfAHostilePayloadIsWellFormedAndInert() throws {
        let analysis = try Fixture.analyze("barcodes/qr-hostile.png", RequestSet([BarcodeRequest()]))
        let svg = SVGRenderer.svg(for: analysis, imageHref: "../in put/<x>.png")
        #expect(!svg.contains("<script"))
        #expect(!svg.contains("<img"))
        #expect(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        let parsed = try parse(svg)
        #expect(parsed.elements.contains("svg"))
        #expect(!parsed.elements.contains("script"))
        // The payload comes back as text, exactly, when an XML reader reads it.
        #expect(parsed.text.contains(Self.hostile))
        #expect(parsed.groupIDs.contains("barcodes"))
    }

    @Test func svgSurvivesNulAndControlBytes() throws {
        let analysis = try Fixture.analyze("barcodes/qr-binary.png", RequestSet([BarcodeRequest()]))
        let svg = SVGRenderer.svg(for: analysis, imageHref: "a.png")
        #expect(!svg.unicodeScalars.contains { $0.value == 0 })
        _ = try parse(svg)
    }

    @Test func svgHasTheImageSizeAndOneGroupPerKind() throws {
        let analysis = try Fixture.analyze("samples/gift-card.jpg", .all)
        let svg = SVGRenderer.svg(for: analysis, imageHref: "gift-card.jpg")
        #expect(svg.contains("width=\"\(analysis.width)\" height=\"\(analysis.height)\""))
        let parsed = try parse(svg)
        #expect(parsed.groupIDs.isSuperset(of: ["barcodes", "text"]))
    }

    @Test func jsonEscapesHostilePayloadAndRoundTrips() throws {
        let analysis = try Fixture.analyze("barcodes/qr-hostile.png", RequestSet([BarcodeRequest()]))
        let bytes = try JSONRenderer.encode(analysis)
        let json = String(decoding: bytes, as: UTF8.self)
        // Quotes, backslashes and control characters are escaped (no raw control byte but the
        // pretty-printer's newlines); `/` is not (a JSON file is not a <script>; the report escapes
        // everything it shows as HTML).
        #expect(!bytes.contains { $0 < 0x20 && $0 != 0x0A })
        #expect(json.contains("</script>") || !(analysis.barcodes?.first?.payload.contains("</script>") ?? false))
        let decoded = try JSONDecoder().decode(ImageAnalysis.self, from: Data(bytes))
        #expect(decoded == analysis)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(Set(object.keys).isSuperset(of: ["file", "orientation", "width", "height", "barcodes"]))
    }

    @Test func annotatedPNGHasTheUprightImageSize() throws {
        let source = ImageSource(path: Fixture.path("orientation/orient-6.jpg"), outputName: "x")
        let result = try ImageRequestHandler(source: source).perform(.all, engines: WorkerEngines())
        let png = try AnnotatedImageRenderer.png(of: result.image, analysis: result.analysis)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(ImageHeader(parsing: png) == ImageHeader(width: 480, height: 320))
    }

    @Test func escapingCoversEveryMarkupCharacter() {
        #expect(MarkupEscaping.escape(#"<a href="x">&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;")
        #expect(MarkupEscaping.escape("a\u{0}b\u{1B}c") == "a\u{FFFD}b\u{FFFD}c")
        // A right-to-left override would show the rest reversed ("https://example.com/\u{202E}gpj.exe" as "…exe.jpg"):
        // shown, not obeyed, in markup and in labels (stderr lines, the report); the marks LRM and RLM stay.
        #expect(MarkupEscaping.escape("pay/\u{202E}gpj.exe\u{2066}x\u{200F}") == "pay/[U+202E]gpj.exe[U+2066]x\u{200F}")
        #expect(MarkupEscaping.label("pay/\u{202E}gpj.exe\u{1B}") == "pay/\\u202egpj.exe\\x1b")
        #expect(MarkupEscaping.escape("pay/\u{202E}gpj", exact: true) == "pay/\u{202E}gpj")
        #expect(PlainTextRenderer.terminalSafe("qr:pay/\u{202E}gpj\u{1B}[2J\n\tx") == "qr:pay/\\u202egpj\\x1b[2J\n\tx")
    }

    /// Parses XML with Foundation's parser; throws if it is not well-formed.
    func parse(_ xml: String) throws -> (elements: Set<String>, text: String, groupIDs: Set<String>) {
        final class Collector: NSObject, XMLParserDelegate {
            var elements = Set<String>(), text = "", groupIDs = Set<String>()
            func parser(
                _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]
            ) {
                elements.insert(name)
                if name == "g", let id = attributes["id"] { groupIDs.insert(id) }
            }
            func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
        }
        let parser = XMLParser(data: Data(xml.utf8))
        let collector = Collector()
        parser.delegate = collector
        guard parser.parse() else {
            throw AnalysisError(.outputFailed, "SVG is not well-formed: \(parser.parserError.map { "\($0)" } ?? "?")")
        }
        return (collector.elements, collector.text, collector.groupIDs)
    }
}

@Suite("Gray sources")
struct GraySourceTests {
    @Test func aGrayScanStaysOneChannelAndStillGetsAColourAnnotatedPNG() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixture.path("text/page.png"))))
        #expect(bytes[25] == 0)  // PNG colour type 0: grayscale
        let source = ImageSource(path: Fixture.path("text/page.png"), outputName: "x")
        let result = try ImageRequestHandler(source: source).perform(
            RequestSet([TextRequest()]), engines: WorkerEngines())
        #expect(result.image.pixels.channels == 1)
        #expect(try result.image.gray() === result.image.pixels)
        let png = try AnnotatedImageRenderer.png(of: result.image, analysis: result.analysis, drawingOnTheImage: true)
        #expect(png[25] == 2)  // RGB: the red text boxes are drawn in colour
        #expect(ImageHeader(parsing: png) == ImageHeader(width: result.analysis.width, height: result.analysis.height))
        // The gray pixels themselves were not drawn on: a second rendering is identical.
        #expect(try AnnotatedImageRenderer.png(of: result.image, analysis: result.analysis) == png)
    }
}
