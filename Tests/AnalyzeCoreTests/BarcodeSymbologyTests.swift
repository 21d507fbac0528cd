import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// Every symbology zxing-cpp adds, and the codes both engines read, on "photographed" symbols
/// (`Fixtures/symbologies/`: encoded by zint, set on a card, turned in perspective, blurred,
/// noisy, JPEG; see scripts/make-fixtures).
@Suite("Barcode symbologies through zxing-cpp and ZBar")
struct BarcodeSymbologyTests {
    let request = RequestSet([BarcodeRequest()])

    @Test(arguments: [
        ("datamatrix.jpg", BarcodeSymbology.dataMatrix, "DM-analyze-0042", ["zxing"]),
        ("pdf417.jpg", .pdf417, "PDF417 analyze test 2026", ["zxing"]),
        ("micropdf417.jpg", .microPDF417, "MICROPDF", ["zxing"]),
        ("aztec.jpg", .aztec, "AZTEC-analyze", ["zxing"]),
        ("maxicode.jpg", .maxiCode, "MAXICODE analyze", ["zxing"]),
        ("microqr.jpg", .microQR, "MQR42", ["zxing"]),
        ("databar-stacked.jpg", .gs1DataBar, "0109501101530010", ["zxing"]),
        ("databar-limited.jpg", .gs1DataBarLimited, "0109501101530010", ["zxing"]),
        ("databar-expanded-stacked.jpg", .gs1DataBarExpanded, "0198898765432106320201234515991231", ["zxing"]),
        // Read by both engines: one observation, both engines named, confidence 1.
        ("itf14.jpg", .itf14, "09501101530010", ["zbar", "zxing"]),
        ("upca.jpg", .upca, "012345678905", ["zbar", "zxing"]),
        ("ean13-addon.jpg", .ean13, "9780201379624 51299", ["zbar", "zxing"]),
        ("qr-latin1.jpg", .qr, "Grüße aus Köln", ["zbar", "zxing"]),
    ])
    func decodesOneSymbolOfEachSymbology(file: String, symbology: BarcodeSymbology, payload: String, engines: [String])
        throws
    {
        let codes = try #require(try Fixture.analyze("symbologies/" + file, request).barcodes)
        #expect(codes.count == 1, "\(codes.map { "\($0.symbology):\($0.payload)" })")
        let code = try #require(codes.first)
        #expect(code.symbology == symbology)
        #expect(code.payload == payload)
        #expect(code.engines == engines)
        #expect(code.confidence == (engines.count == 2 ? 1 : 0.9))
        #expect(code.corners.count == 4)
        #expect(code.boundingBox.width > 20 && code.boundingBox.height > 0)
    }

    @Test func decodesAShiftJISQRCodeIntoUnicode() throws {
        // Kanji mode, Shift_JIS, no ECI: what Japanese phones write.
        let code = try #require(try Fixture.analyze("symbologies/qr-shift-jis.jpg", request).barcodes?.first)
        #expect(code.symbology == .qr)
        #expect(code.payload == "こんにちは世界")
        #expect(code.payloadIsUTF8 == false)
        // The raw bytes are kept: Shift_JIS of こ is 0x82 0xB1.
        #expect(Array(code.payloadBytes.prefix(2)) == [0x82, 0xB1])
        #expect(code.engines == ["zbar", "zxing"])
    }

    @Test func keepsISO88591BytesAndDecodesThem() throws {
        let code = try #require(try Fixture.analyze("symbologies/qr-latin1.jpg", request).barcodes?.first)
        #expect(code.payloadIsUTF8 == false)
        #expect(code.payloadBytes.contains(0xFC))  // ü in ISO-8859-1
    }

    @Test func aCodeBothEnginesReadIsOneObservation() throws {
        let codes = try #require(try Fixture.analyze("barcodes/qr-hello.png", request).barcodes)
        #expect(codes.count == 1)
        #expect(codes.first?.engines == ["zbar", "zxing"])
        #expect(codes.first?.confidence == 1)
    }

    @Test func theNameOfASymbolDoesNotDependOnTheRequestedSymbologies() throws {
        for symbologies in [
            BarcodeSymbology.all, [.upca], BarcodeSymbology.named("ean13") ?? [], BarcodeSymbology.named("UPC-A") ?? [],
        ] {
            let codes = try #require(
                try Fixture.analyze("symbologies/upca.jpg", RequestSet([BarcodeRequest(symbologies: symbologies)]))
                    .barcodes)
            #expect(codes.map(\.symbology) == [.upca], "\(symbologies)")
            #expect(codes.map(\.payload) == ["012345678905"])
        }
        // An ISBN is an EAN-13, whether asked for as isbn13, ean13 or everything.
        for name in ["isbn13", "ean13", "isbn10"] {
            let symbologies = try #require(BarcodeSymbology.named(name))
            let codes = try #require(
                try Fixture.analyze("barcodes/ean13.png", RequestSet([BarcodeRequest(symbologies: symbologies)]))
                    .barcodes)
            #expect(codes.map(\.symbology) == [.ean13], "\(name)")
        }
    }

    @Test func onlyTheRequestedSymbologiesAreReported() throws {
        let onlyQR = RequestSet([BarcodeRequest(symbologies: [.qr])])
        #expect(try Fixture.analyze("symbologies/datamatrix.jpg", onlyQR).barcodes?.isEmpty == true)
        let onlyDataMatrix = RequestSet([BarcodeRequest(symbologies: [.dataMatrix])])
        #expect(try Fixture.analyze("symbologies/datamatrix.jpg", onlyDataMatrix).barcodes?.count == 1)
        #expect(try Fixture.analyze("barcodes/qr-hello.png", onlyDataMatrix).barcodes?.isEmpty == true)
    }

    @Test(arguments: [
        "qr", "QR-Code", "microQR", "aztec", "dataMatrix", "data-matrix", "pdf417", "maxicode", "ean-13", "EAN_13",
        "upca", "code128", "i2of5", "itf14", "gs1DataBar", "gs1DataBarExpanded", "gs1DataBarLimited",
        // the names of analyze 0.2 stay accepted
        "i25", "databar", "databar-exp", "isbn13", "isbn10", "sqcode", "ean2", "ean5",
    ])
    func parsesSymbologyNames(_ name: String) {
        #expect(BarcodeSymbology.named(name)?.isEmpty == false)
    }

    @Test func rejectsUnknownSymbologyNames() {
        #expect(BarcodeSymbology.named("telepen") == nil)
        #expect(BarcodeSymbology.named("") == nil)
    }

    @Test func everySymbologyNameHasAFamilyAndRoundTrips() {
        for symbology in BarcodeSymbology.all {
            #expect(BarcodeSymbology.named(symbology.rawValue)?.contains(symbology) == true, "\(symbology)")
        }
    }
}

extension BarcodeReading {
    /// The reading with another share of its error correction unused.
    func with(unused: Double) -> BarcodeReading {
        var reading = self
        reading.unusedErrorCorrection = unused
        return reading
    }
}

/// The fusion's structure checks, on readings made by hand.
@Suite("Barcode fusion")
struct BarcodeFusionTests {
    func reading(
        _ symbology: BarcodeSymbology, _ payload: String, engine: BarcodeReading.Engine,
        pass: BarcodeReading.Pass = .primary,
        x: Double = 100, y: Double = 100, width: Double = 200, height: Double = 40, quality: Int = 3
    ) -> BarcodeReading {
        let corners = BoundingBox(x: x, y: y, width: width, height: height).corners
        return BarcodeReading(
            symbology: symbology, bytes: Array(payload.utf8), text: engine == .zxing ? payload : nil, corners: corners,
            inverted: false, engine: engine, pass: pass, quality: engine == .zbar ? quality : 0)
    }

    let all = Set(BarcodeSymbology.all)

    @Test func agreementIsOneObservationWithBothEngines() {
        let fused = BarcodeFusion.fuse(
            zxing: [reading(.ean13, "9780201379624", engine: .zxing)],
            zbar: [reading(.ean13, "9780201379624", engine: .zbar)], wanted: all)
        #expect(fused.count == 1)
        #expect(fused.first?.engines == ["zbar", "zxing"])
        #expect(fused.first?.confidence == 1)
    }

    @Test func aDisagreementIsSettledByTheCheckDigitNeverByReportingBoth() {
        // ZBar's reading has the valid check digit; zxing-cpp's (made up here) does not.
        let fused = BarcodeFusion.fuse(
            zxing: [reading(.ean13, "9780201379625", engine: .zxing)],
            zbar: [reading(.ean13, "9780201379624", engine: .zbar)], wanted: all)
        #expect(fused.map(\.payload) == ["9780201379624"])
        #expect(fused.first?.engines == ["zbar"])
        #expect(fused.first?.confidence == BarcodeFusion.settledConfidence)
    }

    @Test func anInvalidSingleReadingIsNotReported() {
        #expect(BarcodeFusion.fuse(zxing: [], zbar: [reading(.ean8, "12345678", engine: .zbar)], wanted: all).isEmpty)
        #expect(
            BarcodeFusion.fuse(zxing: [], zbar: [reading(.ean8, "96385074", engine: .zbar)], wanted: all).count == 1)
    }

    @Test func aStrayAddOnIsDroppedAndOneBesideItsSymbolIsAttached() {
        let addOn = reading(.ean5AddOn, "51299", engine: .zbar, x: 320, y: 100, width: 60, height: 40)
        #expect(BarcodeFusion.fuse(zxing: [], zbar: [addOn], wanted: all).isEmpty)
        let main = reading(.ean13, "9780201379624", engine: .zbar, x: 100, y: 100, width: 200, height: 40)
        let fused = BarcodeFusion.fuse(zxing: [], zbar: [main, addOn], wanted: all)
        #expect(fused.map(\.payload) == ["9780201379624 51299"])
        // An add-on far below the symbol is not its add-on.
        let far = reading(.ean5AddOn, "51299", engine: .zbar, x: 320, y: 600, width: 60, height: 40)
        #expect(BarcodeFusion.fuse(zxing: [], zbar: [main, far], wanted: all).map(\.payload) == ["9780201379624"])
    }

    @Test func uncheckedCodesFromZBarsExtraPassesAreNotTrusted() {
        let inverted = reading(.code39, "ABC123", engine: .zbar, pass: .inverted)
        #expect(BarcodeFusion.fuse(zxing: [], zbar: [inverted], wanted: all).isEmpty)
        let primary = reading(.code39, "ABC123", engine: .zbar)
        #expect(
            BarcodeFusion.fuse(zxing: [], zbar: [primary], wanted: all).first?.confidence
                == BarcodeFusion.uncheckedConfidence)
        // Self-checking symbologies from an extra pass are kept.
        let qr = reading(.qr, "hello", engine: .zbar, pass: .rotated)
        #expect(BarcodeFusion.fuse(zxing: [], zbar: [qr], wanted: all).count == 1)
    }

    @Test func aWeakReadingOfAnotherPayloadAlongTheSameSymbolIsAMisread() {
        // ZBar on a blurred book EAN-13 pasted into a 10 MP photo: 63 scan lines read the right
        // value, 2 lines 42 px below read another valid one. In either order, the strong one stands.
        let strong = reading(
            .ean13, "9780804816632", engine: .zbar, x: 2599, y: 1626, width: 305, height: 80, quality: 63)
        let weak = reading(.ean13, "9780204816638", engine: .zbar, x: 2590, y: 1748, width: 324, height: 6, quality: 2)
        #expect(BarcodeFusion.fuse(zxing: [], zbar: [strong, weak], wanted: all).map(\.payload) == ["9780804816632"])
        #expect(BarcodeFusion.fuse(zxing: [], zbar: [weak, strong], wanted: all).map(\.payload) == ["9780804816632"])
        // Two codes side by side on one row, or one far below the other, stay two.
        let beside = reading(
            .ean13, "9780201379624", engine: .zbar, x: 3000, y: 1626, width: 305, height: 80, quality: 2)
        let below = reading(
            .ean13, "9780201379624", engine: .zbar, x: 2599, y: 1900, width: 305, height: 80, quality: 2)
        #expect(BarcodeFusion.fuse(zxing: [], zbar: [strong, beside], wanted: all).count == 2)
        #expect(BarcodeFusion.fuse(zxing: [], zbar: [strong, below], wanted: all).count == 2)
    }

    @Test func aLinearReadingShorterThanItsSymbologyIsNot() {
        // ZBar read "UPC-E" from 8 pixels of a photo's column (ZXing suite, upca-2/38.png).
        let sliver = reading(.upce, "02212166", engine: .zbar, x: 111, y: 115, width: 0, height: 8)
        #expect(BarcodeFusion.fuse(zxing: [], zbar: [sliver], wanted: all).isEmpty)
    }

    /// A 2-D reading with zxing-cpp's error-correction report.
    func matrixReading(
        _ symbology: BarcodeSymbology, _ payload: String, version: String, level: String, unused: Double,
        x: Double = 100, y: Double = 100, side: Double = 27
    ) -> BarcodeReading {
        var made = reading(symbology, payload, engine: .zxing, x: x, y: y, width: side, height: side)
        made.version = version
        made.errorCorrectionLevel = level
        made.unusedErrorCorrection = unused
        return made
    }

    @Test func aReadingThatSpentItsSymbolsMisdecodeProtectionIsNotReported() throws {
        // A QR code's finder pattern read by zxing-cpp as a Micro QR M1 symbol with one error
        // "corrected": an M1 symbol's two error-correction codewords only detect errors.
        let m1 = matrixReading(.microQR, "8740", version: "M1", level: "L", unused: 0)
        #expect(BarcodeFusion.fuse(zxing: [m1], zbar: [], wanted: all).isEmpty)
        #expect(BarcodeFusion.fuse(zxing: [m1.with(unused: 1)], zbar: [], wanted: all).count == 1)
        // A version 1-M QR code corrects 4 errors of its 10 codewords' 5: 5 corrected is a misdecode.
        let qr = matrixReading(.qr, "SHEET-0001", version: "1", level: "M", unused: 0, side: 63)
        #expect(BarcodeFusion.fuse(zxing: [qr], zbar: [], wanted: all).isEmpty)
        #expect(BarcodeFusion.fuse(zxing: [qr.with(unused: 0.2)], zbar: [], wanted: all).count == 1)
        // Larger symbols keep nothing back.
        let v5 = matrixReading(.qr, "SHEET-0001", version: "5", level: "M", unused: 0, side: 63)
        #expect(BarcodeFusion.fuse(zxing: [v5], zbar: [], wanted: all).count == 1)
        // zxing-cpp reports what the rule needs: the fixture's QR code is a version 2-M symbol read
        // without an error.
        let gray = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("barcodes/qr-hello.png"))))
        ).0.bgr().gray()
        let read = try #require(try ZXingReader(families: [.qr]).read(gray).first)
        #expect(read.version == "2" && read.errorCorrectionLevel == "M" && read.unusedErrorCorrection == 1)
        #expect(read.moduleCount == 25)
    }

    @Test func aReadingLyingAcrossTwoQRCodesIsPiecesOfThemNotASymbol() {
        // A DataBar read along a row of modules running through two neighbouring QR codes (a strip of
        // codes 66 px apart), and a Micro QR symbol in one's finder pattern: neither is reported.
        let left = reading(.qr, "A", engine: .zxing, x: 18946, y: 136, width: 58, height: 58)
        let right = reading(.qr, "B", engine: .zxing, x: 19012, y: 136, width: 58, height: 58)
        let across = reading(.gs1DataBar, "0191647624526336", engine: .zxing, x: 18966, y: 164, width: 81, height: 6)
        let finder = reading(.microQR, "794184", engine: .zxing, x: 18946, y: 136, width: 14, height: 14)
        let fused = BarcodeFusion.fuse(zxing: [left, right, across, finder], zbar: [], wanted: all)
        #expect(fused.map(\.payload) == ["A", "B"])
        // The same readings beside the codes, not on them, are symbols.
        let beside = reading(.gs1DataBar, "0191647624526336", engine: .zxing, x: 18966, y: 300, width: 81, height: 6)
        #expect(BarcodeFusion.fuse(zxing: [left, right, beside], zbar: [], wanted: all).count == 3)
    }

    @Test func whichDuplicateIsKeptDoesNotDependOnTheOrderOfTheReadings() {
        // One code read in two overlapping tiles, its corners a pixel apart.
        var first = reading(.qr, "SHEET-0001", engine: .zxing)
        var second = first
        first.corners = [
            PixelPoint(x: 100, y: 100), PixelPoint(x: 163, y: 100), PixelPoint(x: 163, y: 163),
            PixelPoint(x: 100, y: 163),
        ]
        second.corners = [
            PixelPoint(x: 100, y: 100), PixelPoint(x: 164, y: 101), PixelPoint(x: 163, y: 164),
            PixelPoint(x: 100, y: 163),
        ]
        let forward = BarcodeFusion.fuse(zxing: [first, second], zbar: [], wanted: all)
        #expect(forward.count == 1)
        #expect(forward == BarcodeFusion.fuse(zxing: [second, first], zbar: [], wanted: all))
    }

    @Test func dataBarExpandedMustBeAValidElementString() {
        #expect(GS1ElementString.isValid(Array("0198898765432106320201234515991231".utf8)))
        #expect(GS1ElementString.isValid(Array("(01)98898765432106(3202)012345(15)991231".utf8)))
        // The GTIN's check digit is wrong.
        #expect(!GS1ElementString.isValid(Array("0198898765432107320201234515991231".utf8)))
        // Digits that are no element string.
        #expect(!GS1ElementString.isValid(Array("99".utf8)))
        let zbarOnly = reading(.gs1DataBarExpanded, "0198898765432107", engine: .zbar)
        #expect(BarcodeFusion.fuse(zxing: [], zbar: [zbarOnly], wanted: all).isEmpty)
    }

    @Test func shiftJISBytesOnlyZBarSawAreDecoded() {
        let bytes: [UInt8] = [0x82, 0xB1, 0x82, 0xF1, 0x82, 0xC9, 0x82, 0xBF, 0x82, 0xCD]  // こんにちは
        #expect(BarcodePayloadText.decode(bytes) == "こんにちは")
        #expect(BarcodePayloadText.decode([0x47, 0x72, 0xFC, 0xDF, 0x65]) == "Grüße")
        #expect(BarcodePayloadText.decode(Array("plain".utf8)) == "plain")
    }

    @Test func checkDigits() {
        #expect(BarcodeValidation.gs1CheckDigitIsValid([9, 7, 8, 0, 2, 0, 1, 3, 7, 9, 6, 2, 4]))
        #expect(!BarcodeValidation.gs1CheckDigitIsValid([9, 7, 8, 0, 2, 0, 1, 3, 7, 9, 6, 2, 5]))
        #expect(BarcodeValidation.expandUPCE([0, 1, 2, 3, 4, 5, 6, 5]) == [0, 1, 2, 3, 4, 5, 0, 0, 0, 0, 6, 5])
    }
}
