import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

@Suite("Barcodes")
struct BarcodeRequestTests {
    let request = RequestSet([BarcodeRequest()])

    @Test(arguments: [
        ("barcodes/qr-hello.png", BarcodeSymbology.qr, "Hello, analyze!"),
        ("barcodes/qr-rotated.png", .qr, "ROTATED-30"),
        ("barcodes/code128.png", .code128, "ANALYZE-128"),
        ("barcodes/ean13.png", .ean13, "9780201379624"),
    ])
    func decodesKnownPayload(file: String, symbology: BarcodeSymbology, payload: String) throws {
        let codes = try #require(try Fixture.analyze(file, request).barcodes)
        #expect(codes.count == 1)
        let code = try #require(codes.first)
        #expect(code.symbology == symbology)
        #expect(code.payload == payload)
        #expect(code.inverted == false)
        #expect(code.corners.count == 4)
    }

    @Test func decodesLightOnDarkQRCodeWithoutAnyFlag() throws {
        let codes = try #require(try Fixture.analyze("barcodes/qr-inverted.png", request).barcodes)
        let code = try #require(codes.first)
        #expect(codes.count == 1)
        #expect(code.payload == "INVERTED-42")
        #expect(code.inverted)
    }

    @Test func decodesCode128RotatedBy45Degrees() throws {
        let analysis = try Fixture.analyze("barcodes/code128-rotated.png", request)
        let code = try #require(analysis.barcodes?.first)
        #expect(code.payload == "ANALYZE-128")
        // Corners are mapped back into the image: the box is centred, not in the rotated copy's frame.
        #expect(abs(code.boundingBox.center.x - Double(analysis.width) / 2) < Double(analysis.width) * 0.15)
        #expect(abs(code.boundingBox.center.y - Double(analysis.height) / 2) < Double(analysis.height) * 0.15)
    }

    @Test func keepsBinaryPayloadBytesExactly() throws {
        let code = try #require(try Fixture.analyze("barcodes/qr-binary.png", request).barcodes?.first)
        #expect(code.payloadBytes == [0x41, 0x00, 0x42, 0xFF, 0xFE, 0x43])
        #expect(code.payloadBase64 == "QQBC//5D")
        #expect(code.payloadIsUTF8 == false)
    }

    @Test func keepsHostilePayloadVerbatimInTheObservation() throws {
        let code = try #require(try Fixture.analyze("barcodes/qr-hostile.png", request).barcodes?.first)
        #expect(code.payload == #"<script>alert(1)</script><img src=x onerror=alert(2)>&"'"#)
    }

    @Test func reportsNothingOnAnImageWithoutBarcodes() throws {
        let codes = try #require(try Fixture.analyze("barcodes/none.png", request).barcodes)
        #expect(codes.isEmpty)
    }

    @Test func restrictsToRequestedSymbologies() throws {
        let onlyQR = RequestSet([BarcodeRequest(symbologies: [.qr])])
        #expect(try Fixture.analyze("barcodes/code128.png", onlyQR).barcodes?.isEmpty == true)
        #expect(try Fixture.analyze("barcodes/qr-hello.png", onlyQR).barcodes?.count == 1)
    }

    @Test func findsQRAndBarcodeOnTheGiftCardSample() throws {
        let codes = try #require(try Fixture.analyze("samples/gift-card.jpg", request).barcodes)
        let found = Set(codes.map { "\($0.symbology):\($0.payload)" })
        #expect(found == ["qr:https://example.com/redeem?card=603491205578", "code128:603491205578"])
    }

    @Test func findsNothingInPhotographsWithoutBarcodes() throws {
        // A reading on a negative image is a bug: the skimage and opencv-doc photos have no codes.
        let photos = [OpenCVSample.folder.path, DebianPhoto.folder.path].filter {
            FileManager.default.fileExists(atPath: $0)
        }
        let sources = InputCollector.collect(photos).filter { $0.kind == .image }
        #expect(sources.count >= 5)
        for source in sources {
            let analysis = try ImageRequestHandler(source: source).perform(request, engines: WorkerEngines()).analysis
            #expect(analysis.barcodes?.isEmpty == true, "\(source.path): \(analysis.barcodes?.map(\.payload) ?? [])")
        }
    }

    /// A 10 MP photo (the forest wallpaper scaled to 4000×2500) with small codes pasted in: read on
    /// the 3 MP copy they are too small to decode, so they are read only in the full-resolution
    /// regions the barcode-region finder picks out.
    func largePhoto(with codes: [(file: String, width: Int, x: Int, y: Int)], width: Int = 4000, height: Int = 2500)
        throws -> UprightImage
    {
        let photo = try Wallpaper.image("Path").pixels.resized(width: width, height: height)
        for code in codes {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path(code.file))))
            let (pixels, _) = try OpenCVMat.decode(bytes)
            let height = pixels.height * code.width / pixels.width
            try photo.paste(try pixels.bgr().resized(width: code.width, height: height), x: code.x, y: code.y)
        }
        return UprightImage(pixels: photo, orientation: .up)
    }

    @Test func readsSmallCodesInALargePhotoAtFullResolution() throws {
        // The EAN-13's modules are 2 px wide here, 1.1 px on the 3 MP copy; the Code 128's 1.6 px (0.9).
        let image = try largePhoto(with: [
            ("barcodes/ean13.png", 226, 2900, 1700), ("barcodes/code128.png", 300, 600, 400),
        ])
        let codes = try BarcodeRequest().perform(on: image, engines: WorkerEngines())
        let found = Dictionary(uniqueKeysWithValues: codes.map { ($0.payload, $0.boundingBox) })
        #expect(Set(found.keys) == ["9780201379624", "ANALYZE-128"], "\(codes.map(\.payload))")
        // Boxes are in the full image's pixels, where the codes were pasted.
        let ean = try #require(found["9780201379624"])
        #expect(ean.x >= 2890 && ean.x + ean.width <= 2900 + 226 + 10 && ean.y >= 1690 && ean.y < 1700 + 116)
        let code128 = try #require(found["ANALYZE-128"])
        #expect(code128.x >= 590 && code128.x + code128.width <= 600 + 300 + 10)
    }

    @Test func readsCodesInAMidSizePhotoWhereZBarReadsOnlyTheRegions() throws {
        // 1920×1200 (2.3 MP): read whole by zxing-cpp, by ZBar only in the barcode-like regions. The
        // small EAN-13 and Code 128 and a light-on-dark QR code (no ZBar inverted pass on such an
        // image: zxing-cpp's own inverted read finds it) are all read, each where it was pasted.
        let image = try largePhoto(
            with: [
                ("barcodes/ean13.png", 226, 1400, 800), ("barcodes/code128.png", 300, 200, 150),
                ("barcodes/qr-inverted.png", 160, 1500, 100),
            ],
            width: 1920, height: 1200)
        let codes = try BarcodeRequest().perform(on: image, engines: WorkerEngines())
        let found = Dictionary(codes.map { ($0.payload, $0.boundingBox) }, uniquingKeysWith: { a, _ in a })
        #expect(
            Set(found.keys) == ["9780201379624", "ANALYZE-128", "INVERTED-42"],
            "\(codes.map { "\($0.symbology):\($0.payload)" })")
        #expect(codes.count == 3)
        let ean = try #require(found["9780201379624"])
        #expect(ean.center.x > 1400 && ean.center.x < 1400 + 226 && ean.center.y > 800 && ean.center.y < 800 + 116)
        let code128 = try #require(found["ANALYZE-128"])
        #expect(code128.center.x > 200 && code128.center.x < 500 && code128.center.y > 150 && code128.center.y < 232)
        let qr = try #require(found["INVERTED-42"])
        #expect(qr.center.x > 1500 && qr.center.x < 1660 && qr.center.y > 100 && qr.center.y < 260)
    }

    @Test func readsACodeTurnedBy45DegreesInAMidSizePhoto() throws {
        // The 45° pass turns only the parts of the copy around diagonal regions on a mid-size image too:
        // the region finder must see the turned Code 128 as one (ZBar reads it on the turned copy alone).
        let image = try largePhoto(with: [("barcodes/code128-rotated.png", 600, 300, 300)], width: 1920, height: 1200)
        let diagonal = try BarcodeRegions.find(in: try image.gray(), scale: 1, fullWidth: 1920, fullHeight: 1200)
            .filter(\.isDiagonal)
        #expect(
            diagonal.contains {
                $0.x < 300 + 600 && $0.x + $0.width > 300 && $0.y < 300 + 600 && $0.y + $0.height > 300
            }, "\(diagonal)")
        let codes = try BarcodeRequest().perform(on: image, engines: WorkerEngines())
        #expect(codes.map(\.payload) == ["ANALYZE-128"])
        let box = try #require(codes.first?.boundingBox)
        #expect(box.center.x > 300 && box.center.x < 900 && box.center.y > 300 && box.center.y < 900)
    }

    @Test func findsNoBarcodeRegionInAForestAndOneAroundAPastedCode() throws {
        let forest = try largePhoto(with: [])
        let (reduced, scale) = try BarcodeRequest.reduced(forest, toPixels: BarcodeRequest.largeImagePixels)
        #expect(try BarcodeRegions.find(in: reduced, scale: scale, fullWidth: 4000, fullHeight: 2500).isEmpty)

        let labelled = try largePhoto(with: [("barcodes/ean13.png", 226, 2900, 1700)])
        let (reducedLabel, _) = try BarcodeRequest.reduced(labelled, toPixels: BarcodeRequest.largeImagePixels)
        let regions = try BarcodeRegions.find(in: reducedLabel, scale: scale, fullWidth: 4000, fullHeight: 2500)
        #expect(regions.count == 1)
        let region = try #require(regions.first)
        #expect(
            region.x <= 2900 && region.x + region.width >= 2900 + 226 && region.y <= 1760
                && region.y + region.height >= 1760)
        #expect(region.area < 4000 * 2500 / 50)
        // Its bars stand upright: the 45° copy is not needed for it.
        #expect(!region.isDiagonal, "angle \(region.angle)")
    }

    @Test func readsALargeCodeTurnedBy45DegreesInALargePhoto() throws {
        // The 45° pass runs on a large photo only where the region finder sees diagonal bars: it must
        // see them around a Code 128 turned by 45° (read by ZBar on the turned copy alone).
        let image = try largePhoto(with: [("barcodes/code128-rotated.png", 1400, 1200, 600)])
        let (reduced, scale) = try BarcodeRequest.reduced(image, toPixels: BarcodeRequest.largeImagePixels)
        let regions = try BarcodeRegions.find(in: reduced, scale: scale, fullWidth: 4000, fullHeight: 2500)
        let around = regions.filter {
            $0.x < 1200 + 1400 && $0.x + $0.width > 1200 && $0.y < 600 + 1400 && $0.y + $0.height > 600
        }
        #expect(!around.isEmpty && around.allSatisfy(\.isDiagonal), "\(around)")
        // A code large enough for the 1000-px copy makes a region that is most of it: the whole copy is turned.
        let (small, smallScale) = try BarcodeRequest.limited(
            reduced, maximumSide: BarcodeRequest.secondaryPassMaximumSide)
        let parts = try BarcodeRequest.turnedPassParts(
            of: small, scale: scale * smallScale, diagonalRegions: regions.filter(\.isDiagonal))
        #expect(parts.count == 1 && parts.first?.0.width == small.width && parts.first?.0.height == small.height)

        let codes = try BarcodeRequest().perform(on: image, engines: WorkerEngines())
        #expect(codes.map(\.payload) == ["ANALYZE-128"])
        let box = try #require(codes.first?.boundingBox)
        #expect(box.center.x > 1200 && box.center.x < 1200 + 1400 && box.center.y > 600 && box.center.y < 600 + 1400)
    }

    @Test func turnsOnlyThePartsOfTheCopyAroundSmallDiagonalRegions() throws {
        // A small code turned by 45° (texture-sized for the 1000-px copy): its region is diagonal, and
        // the 45° pass turns only the part of the copy around it, not the whole copy.
        let image = try largePhoto(with: [("barcodes/code128-rotated.png", 300, 2600, 1500)])
        let (reduced, scale) = try BarcodeRequest.reduced(image, toPixels: BarcodeRequest.largeImagePixels)
        let diagonal = try BarcodeRegions.find(in: reduced, scale: scale, fullWidth: 4000, fullHeight: 2500).filter(
            \.isDiagonal)
        #expect(!diagonal.isEmpty)
        let (small, smallScale) = try BarcodeRequest.limited(
            reduced, maximumSide: BarcodeRequest.secondaryPassMaximumSide)
        let parts = try BarcodeRequest.turnedPassParts(of: small, scale: scale * smallScale, diagonalRegions: diagonal)
        #expect(!parts.isEmpty)
        for (part, toCopy) in parts {
            #expect(part.width * part.height * 10 < small.width * small.height)
            // Each part lies where the pasted code is (2600-2900, 1500-1800 of the image; a quarter in the copy).
            let (x, y) = (toCopy[2] / (scale * smallScale), toCopy[5] / (scale * smallScale))
            #expect(x > 2300 && x < 2900 && y > 1200 && y < 1800, "part at \(x), \(y)")
        }
        // No diagonal region: nothing is turned; no regions computed (a small image): the whole copy.
        #expect(try BarcodeRequest.turnedPassParts(of: small, scale: scale * smallScale, diagonalRegions: []).isEmpty)
        #expect(try BarcodeRequest.turnedPassParts(of: small, scale: 1, diagonalRegions: nil).count == 1)
    }

    /// Distinct QR codes of one version at level M, `columns` × `rows` of them in reading order, drawn
    /// `module` pixels a module with a quiet zone of `quiet` modules, as zint encodes them (`--batch
    /// --dump`: the modules of one symbol per payload, a row of hex digits per row of modules); the
    /// image and the payloads.
    static func qrSheet(
        columns: Int, rows: Int, version: Int, module: Int, quiet: Int, payload: (Int) -> String
    ) throws -> (UprightImage, [String]) {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/zint"), "run scripts/test (installs zint)")
        let payloads = (1...(columns * rows)).map(payload)
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("payloads.txt")
        try Data((payloads.joined(separator: "\n") + "\n").utf8).write(to: list)
        let (status, output) = try runProgram(
            "/usr/bin/zint", ["-b", "58", "--secure=2", "--vers=\(version)", "--batch", "--dump", "-i", list.path])
        let lines = output.split(separator: "\n").filter { $0.allSatisfy { $0.isHexDigit || $0 == " " } }
        let side = 17 + 4 * version
        try #require(status == 0 && lines.count == side * payloads.count, "zint: \(output.prefix(300))")
        let pitch = (side + 2 * quiet) * module
        let (width, height) = (columns * pitch, rows * pitch)
        var pixels = [UInt8](repeating: 255, count: width * height)
        pixels.withUnsafeMutableBufferPointer { buffer in
            for code in payloads.indices {
                let (left, top) = ((code % columns) * pitch + quiet * module, (code / columns) * pitch + quiet * module)
                for row in 0..<side {
                    let bits = Array(lines[code * side + row].filter { $0 != " " })
                    for column in 0..<side {
                        guard let nibble = bits[column / 4].hexDigitValue, nibble & (8 >> (column % 4)) != 0 else {
                            continue
                        }
                        for y in 0..<module {
                            let start = (top + row * module + y) * width + left + column * module
                            for x in 0..<module { buffer[start + x] = 0 }
                        }
                    }
                }
            }
        }
        let pgm = Array("P5\n\(width) \(height)\n255\n".utf8) + pixels
        return (try UprightImage(decoding: pgm, orientation: .up, maximumPixels: width * height), payloads)
    }

    /// Every payload of the sheet read (99% of them at least), each once, and nothing that is not on it.
    func expectEveryCodeAndNothingElse(_ codes: [BarcodeObservation], _ payloads: [String]) {
        let expected = Set(payloads), found = codes.map(\.payload)
        let read = Set(found).intersection(expected).count
        #expect(read * 100 >= expected.count * 99, "\(read) of \(expected.count) read")
        let invented = codes.filter { !expected.contains($0.payload) || $0.symbology != .qr }
        #expect(invented.isEmpty, "\(invented.map { "\($0.symbology):\($0.payload) at \($0.boundingBox)" })")
        #expect(found.count == Set(found).count, "a code reported twice")
    }

    @Test func readsEveryCodeOfASheetOfTwoThousandSmallQRCodes() throws {
        // 50 × 40 codes of 75 px (version 1, 3 px modules): 3750 × 3000, a large image, first read on its
        // 3 MP copy, where the modules are 1.5 px and only a few codes are read; those call for the
        // full-resolution tiles.
        let (sheet, payloads) = try Self.qrSheet(columns: 50, rows: 40, version: 1, module: 3, quiet: 2) {
            String(format: "SHEET-%04d", $0)
        }
        let codes = try BarcodeRequest().perform(on: sheet, engines: WorkerEngines())
        expectEveryCodeAndNothingElse(codes, payloads)
    }

    @Test(arguments: [10, 4]) func readsEveryCodeOfAStripOfTwoThousandAndInventsNone(rows: Int) throws {
        // 200 × 10 (13200 × 660) or 500 × 4 (33000 × 264) codes of 66 px (version 3, 2 px modules): too
        // narrow to be a large image, read whole at full resolution. zxing-cpp's one read finds 85 codes,
        // and a Micro QR symbol in a QR code's finder pattern (on both), a DataBar along a row of two
        // codes' modules (on the second); the tiles read all the codes, and what lies within them is no
        // symbol.
        let (strip, payloads) = try Self.qrSheet(columns: 2000 / rows, rows: rows, version: 3, module: 2, quiet: 2) {
            String(format: "https://example.com/t/%04d", $0)
        }
        let codes = try BarcodeRequest().perform(on: strip, engines: WorkerEngines())
        expectEveryCodeAndNothingElse(codes, payloads)
    }

    @Test func onlyACrowdOrCodesNearTheCopysResolutionLimitCallForTheTiles() throws {
        func qr(_ index: Int, side: Double) -> BarcodeReading {
            BarcodeReading(
                symbology: .qr, bytes: Array("\(index)".utf8), text: "\(index)",
                corners: BoundingBox(x: Double(index) * 200, y: 100, width: side, height: side).corners,
                inverted: false, engine: .zxing, pass: .primary, quality: 0, version: "1", errorCorrectionLevel: "M",
                unusedErrorCorrection: 1)
        }
        // Three codes read whole: nothing more.
        #expect(
            BarcodeSheet.plan(after: (0..<3).map { qr($0, side: 84) }, copyScale: 1, width: 4000, height: 3000) == nil)
        // Four are a crowd: QR codes read again in tiles covering the image, each code's size whole in one.
        let plan = try #require(
            BarcodeSheet.plan(after: (0..<4).map { qr($0, side: 84) }, copyScale: 1, width: 4000, height: 3000))
        #expect(plan.families == [.qr])
        for (starts, length) in [(Set(plan.tiles.map(\.x)).sorted(), 4000), (Set(plan.tiles.map(\.y)).sorted(), 3000)] {
            let side = plan.tiles[0].width
            #expect(starts.first == 0 && starts.last.map { $0 + side } == length)
            for (a, b) in zip(starts, starts.dropFirst()) { #expect(a + side - b >= 84) }
        }
        // One version 1 code (21 modules) of 84 px on a large image's copy: at 0.4 its modules are 1.6 px
        // there, near the copy's limit; at 0.6, 2.4 px.
        #expect(BarcodeSheet.plan(after: [qr(0, side: 84)], copyScale: 0.4, width: 4000, height: 3000) != nil)
        #expect(BarcodeSheet.plan(after: [qr(0, side: 84)], copyScale: 0.6, width: 4000, height: 3000) == nil)
    }

    /// An SQ code drawn cell by cell as ZBar's reader (`zbar/sqcode.c`) follows it: a border of dots
    /// every other cell along the top and left, a 2×2 corner (black top-left and bottom-right cells)
    /// at the top-right and bottom-left, dots on odd cells down the right and along the bottom, and
    /// an 8×8 grid of data bits (MSB first, row by row) three cells in. 14 cells of 12 px, a white margin.
    static func sqCode(bytes: [UInt8]) -> [UInt8] {
        let n = 14, cell = 12, margin = 24, side = n * cell + 2 * margin
        var black = Set<[Int]>()
        for i in stride(from: 0, through: 10, by: 2) { black.insert([i, 0]); black.insert([0, i]) }
        for c in [[12, 0], [13, 1], [0, 12], [1, 13]] { black.insert(c) }
        for i in stride(from: 3, through: 13, by: 2) { black.insert([13, i]) }
        for i in stride(from: 3, through: 11, by: 2) { black.insert([i, 13]) }
        for bit in 0..<64 where bytes[bit / 8] & (0x80 >> UInt8(bit % 8)) != 0 {
            black.insert([3 + bit % 8, 3 + bit / 8])
        }
        var pgm = Array("P5\n\(side) \(side)\n255\n".utf8)
        for y in 0..<side {
            for x in 0..<side {
                let (cx, cy) = ((x - margin) / cell, (y - margin) / cell)
                let inside = x >= margin && y >= margin && cx < n && cy < n
                pgm.append(inside && black.contains([cx, cy]) ? 0 : 255)
            }
        }
        return pgm
    }

    @Test func readsAnSQCodeWithoutScanLinesAsWithThem() throws {
        // ZBar reads SQ codes from the whole image, not from scan lines: a scanner for SQ codes alone
        // scans no lines (the 1000-px copy of a large photo) and must read what a full scan reads.
        let data: [UInt8] = [0x41, 0x6E, 0x61, 0x6C, 0x79, 0x7A, 0x65, 0x21]
        let gray = try OpenCVMat.decode(Self.sqCode(bytes: data)).0.bgr().gray()
        let expected = Array(Data(data).base64EncodedString().utf8)
        for density in [1, 2] {
            let alone = try ZBarScanner(families: [.sqCode]).scan(gray, pass: .primary, density: density)
            #expect(alone.map(\.symbology) == [.sqCode] && alone.map(\.bytes) == [expected])
        }
        let withLines = try ZBarScanner(families: BarcodeSymbology.Family.allCases).scan(
            gray, pass: .primary, density: 1)
        #expect(withLines.filter { $0.symbology == .sqCode }.map(\.bytes) == [expected])
    }
}
