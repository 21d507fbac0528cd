/// Fuses two engines' readings into one observation per symbol.
///
/// - Readings of one family at one place are one symbol. When zxing-cpp and ZBar agree on it
///   (same bytes, or same text), the observation lists both engines and has confidence 1.
/// - When they disagree, the symbology's structure settles it (check digits, GS1 element strings);
///   when both pass, zxing-cpp's reading is kept (on ZXing's public test suite it reported fewer
///   wrong values than ZBar). Both are never reported.
/// - A reading only one engine made is reported when it passes its structure check; ZBar's
///   readings from its extra passes (inverted, turned by 45°) only when their symbology checks
///   itself (error correction or a mandatory check digit): zxing-cpp tries inversion and rotation
///   itself, so a Code 39, Codabar or plain I2/5 that only ZBar's extra pass saw is not trusted.
/// - A QR or Micro QR reading that spent the error correction its symbol keeps back for misdecode
///   protection is not trusted (`BarcodeValidation.keepsMisdecodeProtection`).
/// - Symbols do not overlap: a reading that lies mostly inside larger 2-D symbols' outlines is
///   pieces of them misread (a QR code's finder pattern as a Micro QR symbol, a row of modules across
///   two QR codes as a DataBar), and is dropped.
/// - Two ZBar-only 1-D readings of different payloads along one symbol (one above the other, a few
///   scan lines apart) are one symbol: the one with more agreeing scan lines is kept.
/// - A ZBar 1-D reading must span, along its scan lines, at least 80% of the symbology's fewest
///   modules in pixels (a UPC-E read from 8 pixels of a photo's column is not one).
/// - EAN-2/EAN-5 add-ons are never symbols of their own: ZBar's are appended to the EAN/UPC symbol
///   they sit beside (after a space, as zxing-cpp writes them) and dropped when there is none.
enum BarcodeFusion {
    /// Confidence of a symbol both engines read alike.
    static let agreedConfidence = 1.0
    /// Confidence of a symbol one engine read, whose symbology checks itself.
    static let checkedConfidence = 0.9
    /// Confidence of a symbol one engine read, whose symbology has no mandatory check.
    static let uncheckedConfidence = 0.7
    /// Confidence of a symbol the engines read differently, settled by structure.
    static let settledConfidence = 0.6

    static func fuse(zxing: [BarcodeReading], zbar: [BarcodeReading], wanted: Set<BarcodeSymbology>)
        -> [BarcodeObservation]
    {
        let zxingReadings = collapsingDuplicates(zxing.map { $0.canonical() }).filter { wanted.contains($0.symbology) }
        let zbarReadings = attachingAddOns(zbar).map { $0.canonical() }.filter { wanted.contains($0.symbology) }
        var unmatchedZBar = Array(zbarReadings.indices)
        var observations: [BarcodeObservation] = []
        for reading in zxingReadings.sorted(by: orderedForMatching) {
            let candidates = unmatchedZBar.filter { samePlace(reading, zbarReadings[$0]) }
            let partnerIndex =
                candidates.first { agree(reading, zbarReadings[$0]) }
                ?? candidates.min {
                    centreDistance(reading, zbarReadings[$0]) < centreDistance(reading, zbarReadings[$1])
                }
            guard let partnerIndex else {
                if BarcodeValidation.isValid(reading) && trusted(reading) {
                    observations.append(observation(reading, engines: [.zxing]))
                }
                continue
            }
            unmatchedZBar.removeAll { $0 == partnerIndex }
            let partner = zbarReadings[partnerIndex]
            if agree(reading, partner) {
                // The fuller reading (an EAN/UPC add-on one engine missed) is the one reported.
                let (kept, other) = partner.bytes.count > reading.bytes.count ? (partner, reading) : (reading, partner)
                observations.append(
                    observation(kept, geometry: other, engines: [.zbar, .zxing], confidence: agreedConfidence))
                continue
            }
            // Disagreement: structure first, then zxing-cpp.
            let zxingValid = BarcodeValidation.isValid(reading) && trusted(reading),
                zbarValid = BarcodeValidation.isValid(partner) && trusted(partner)
            if zxingValid || !zbarValid {
                if zxingValid {
                    observations.append(observation(reading, engines: [.zxing], confidence: settledConfidence))
                }
            } else {
                observations.append(observation(partner, engines: [.zbar], confidence: settledConfidence))
            }
        }
        for index in unmatchedZBar {
            let reading = zbarReadings[index]
            guard BarcodeValidation.isValid(reading), trusted(reading) else { continue }
            let duplicate = observations.contains {
                $0.symbology.family == reading.symbology.family && $0.payloadBytes == reading.bytes
                    && overlaps($0.boundingBox, reading.boundingBox)
            }
            if duplicate { continue }
            // Another payload along the same 1-D symbol: the reading with more agreeing scan lines
            // stands (a zxing-cpp reading always does).
            if !reading.symbology.isTwoDimensional,
                let rival = observations.firstIndex(where: {
                    $0.symbology.family == reading.symbology.family
                        && alongOneLinearSymbol($0.boundingBox, reading.boundingBox)
                })
            {
                if observations[rival].engines == [BarcodeReading.Engine.zbar.rawValue]
                    && reading.quality > observations[rival].quality
                {
                    observations[rival] = observation(reading, engines: [.zbar])
                }
                continue
            }
            observations.append(observation(reading, engines: [.zbar]))
        }
        return droppingPiecesOfOtherSymbols(observations).sortedForOutput()
    }

    /// Whether one engine's reading may stand on its own (given its structure checks): its symbol kept
    /// its misdecode protection; ZBar's readings also span enough pixels, and its extra passes count
    /// only for self-checking symbologies.
    private static func trusted(_ reading: BarcodeReading) -> Bool {
        guard BarcodeValidation.keepsMisdecodeProtection(reading) else { return false }
        guard reading.engine == .zbar else { return true }
        return BarcodeValidation.hasPlausibleExtent(reading)
            && (reading.pass == .primary || reading.symbology.isSelfChecking)
    }

    /// The observations without those that lie mostly inside larger 2-D symbols' outlines: of points
    /// spread evenly over a reading's outline (5 × 5 of them), at least half fall inside such
    /// symbols (a 1-D reading across two neighbouring QR codes lies in both).
    static func droppingPiecesOfOtherSymbols(_ observations: [BarcodeObservation]) -> [BarcodeObservation] {
        let outlines = observations.indices.filter {
            observations[$0].symbology.isTwoDimensional && observations[$0].corners.count == 4
        }
        guard !outlines.isEmpty else { return observations }
        // A grid of cells as large as the largest outline: each outline is listed in the (at most
        // four) cells it touches, and a point is looked up in its own cell only.
        let cell = max(
            1, outlines.map { max(observations[$0].boundingBox.width, observations[$0].boundingBox.height) }.max() ?? 1)
        func key(_ point: PixelPoint) -> SIMD2<Int> {
            SIMD2(Int((point.x / cell).rounded(.down)), Int((point.y / cell).rounded(.down)))
        }
        var grid: [SIMD2<Int>: [Int]] = [:]
        for index in outlines {
            let box = observations[index].boundingBox
            let low = key(PixelPoint(x: box.x, y: box.y)), high = key(PixelPoint(x: box.maxX, y: box.maxY))
            for cx in low.x...high.x {
                for cy in low.y...high.y { grid[SIMD2(cx, cy), default: []].append(index) }
            }
        }
        let steps = [0.1, 0.3, 0.5, 0.7, 0.9]
        return observations.indices.filter { index in
            let observation = observations[index], area = observation.boundingBox.area
            let corners = observation.corners.count == 4 ? observation.corners : observation.boundingBox.corners
            var inside = 0
            for u in steps {
                for v in steps {
                    let point = interpolated(corners, u, v)
                    let covered = (grid[key(point)] ?? []).contains { other in
                        other != index && observations[other].boundingBox.area > area
                            && isInside(point, observations[other].corners)
                    }
                    if covered { inside += 1 }
                }
            }
            return 2 * inside < steps.count * steps.count
        }.map { observations[$0] }
    }

    /// The point at (u, v) of a quadrilateral (corners in order), 0...1 along its first side and its second.
    private static func interpolated(_ corners: [PixelPoint], _ u: Double, _ v: Double) -> PixelPoint {
        let (a, b, c, d) = (corners[0], corners[1], corners[2], corners[3])
        let top = (x: a.x + (b.x - a.x) * u, y: a.y + (b.y - a.y) * u)
        let bottom = (x: d.x + (c.x - d.x) * u, y: d.y + (c.y - d.y) * u)
        return PixelPoint(x: top.x + (bottom.x - top.x) * v, y: top.y + (bottom.y - top.y) * v)
    }

    /// Whether a point lies inside a convex quadrilateral (corners in order, either way round).
    private static func isInside(_ point: PixelPoint, _ corners: [PixelPoint]) -> Bool {
        var sign = 0.0
        for i in corners.indices {
            let a = corners[i], b = corners[(i + 1) % corners.count]
            let cross = (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x)
            if cross == 0 { continue }
            if sign == 0 { sign = cross } else if (cross > 0) != (sign > 0) { return false }
        }
        return true
    }

    private static func observation(
        _ reading: BarcodeReading, geometry partner: BarcodeReading? = nil,
        engines: [BarcodeReading.Engine], confidence: Double? = nil
    ) -> BarcodeObservation {
        // 2-D codes: zxing-cpp's four corners are exact. 1-D codes: the larger outline (zxing-cpp
        // gives the scan line it read, ZBar the extent of its agreeing scan lines).
        var corners = reading.corners
        if let partner, !reading.symbology.isTwoDimensional, partner.boundingBox.area > reading.boundingBox.area {
            corners = partner.corners
        }
        let text = reading.text ?? BarcodePayloadText.decode(reading.bytes)
        let confidence = confidence ?? (reading.symbology.isSelfChecking ? checkedConfidence : uncheckedConfidence)
        let quality = reading.engine == .zbar ? reading.quality : partner?.quality ?? 0
        return BarcodeObservation(
            symbology: reading.symbology, payloadBytes: reading.bytes, payload: text, corners: corners,
            inverted: reading.inverted, quality: quality, engines: engines.map(\.rawValue), confidence: confidence)
    }

    /// zxing-cpp can report one symbol twice: an EAN/UPC with and without its add-on (the longer
    /// stays), a stacked symbol read in both directions (the first in reading order stays).
    /// (Only readings of one symbology and main payload can be one symbol: they are compared within
    /// such groups, so that a sheet of two thousand codes read twice over is not compared pairwise.)
    static func collapsingDuplicates(_ readings: [BarcodeReading]) -> [BarcodeReading] {
        struct Key: Hashable {
            let symbology: BarcodeSymbology
            let payload: [UInt8]
        }
        var kept: [BarcodeReading] = []
        var groups: [Key: [Int]] = [:]
        for reading in readings.sorted(by: orderedForMatching) {
            let key = Key(
                symbology: reading.symbology,
                payload: reading.symbology.family == .eanUPC ? reading.mainBytes : reading.bytes)
            if let index = groups[key]?.first(where: { overlaps(kept[$0].boundingBox, reading.boundingBox) }) {
                if reading.bytes.count > kept[index].bytes.count { kept[index] = reading }
            } else {
                groups[key, default: []].append(kept.count)
                kept.append(reading)
            }
        }
        return kept
    }

    /// Same payload: equal bytes, or equal text once decoded (character sets, ECI). For EAN/UPC
    /// the main symbols are compared (one engine may have missed the add-on).
    static func agree(_ a: BarcodeReading, _ b: BarcodeReading) -> Bool {
        guard a.symbology.family == b.symbology.family else { return false }
        if a.bytes == b.bytes && a.symbology == b.symbology { return true }
        if a.symbology.family == .eanUPC { return a.symbology == b.symbology && a.mainBytes == b.mainBytes }
        let textA = a.text ?? BarcodePayloadText.decode(a.bytes), textB = b.text ?? BarcodePayloadText.decode(b.bytes)
        return a.symbology == b.symbology && textA == textB
    }

    /// One family, and one outline's centre inside the other's outline grown by a margin (1-D
    /// outlines can be a single scan line).
    static func samePlace(_ a: BarcodeReading, _ b: BarcodeReading) -> Bool {
        a.symbology.family == b.symbology.family && overlaps(a.boundingBox, b.boundingBox)
    }

    /// Two outlines of one 1-D symbol, both read along rows (wider than tall) or both along columns:
    /// their spans across the bars overlap by half the shorter one, and the gap between them along
    /// the bars is at most the taller outline. ZBar reads a blurred symbol's bottom rows as a few scan
    /// lines of another valid payload (a photo of a book's EAN-13, ZXing suite ean13-2/01.png, pasted
    /// into a 10 MP photo: 63 lines agreed on the right value, 2 on a wrong one 42 px below).
    static func alongOneLinearSymbol(_ a: BoundingBox, _ b: BoundingBox) -> Bool {
        func overlap(_ a0: Double, _ a1: Double, _ b0: Double, _ b1: Double) -> Double {
            max(0, min(a1, b1) - max(a0, b0))
        }
        func gap(_ a0: Double, _ a1: Double, _ b0: Double, _ b1: Double) -> Double { max(0, max(a0, b0) - min(a1, b1)) }
        switch (a.width >= a.height, b.width >= b.height) {
        case (true, true):
            return overlap(a.x, a.maxX, b.x, b.maxX) >= 0.5 * min(a.width, b.width)
                && gap(a.y, a.maxY, b.y, b.maxY) <= max(a.height, b.height)
        case (false, false):
            return overlap(a.y, a.maxY, b.y, b.maxY) >= 0.5 * min(a.height, b.height)
                && gap(a.x, a.maxX, b.x, b.maxX) <= max(a.width, b.width)
        default:
            return false
        }
    }

    static func overlaps(_ a: BoundingBox, _ b: BoundingBox) -> Bool {
        func contains(_ box: BoundingBox, _ point: PixelPoint) -> Bool {
            let margin = 4 + 0.1 * max(box.width, box.height)
            return point.x >= box.x - margin && point.x <= box.x + box.width + margin
                && point.y >= box.y - margin && point.y <= box.y + box.height + margin
        }
        return contains(a, b.center) || contains(b, a.center)
    }

    private static func centreDistance(_ a: BarcodeReading, _ b: BarcodeReading) -> Double {
        let p = a.boundingBox.center, q = b.boundingBox.center
        return ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot()
    }

    /// Reading order, then symbology, payload and every corner: a total order, so that which of two
    /// readings of one symbol is kept does not depend on the order the readings came in (the tiles of
    /// a crowded image read one code twice, a pixel apart).
    private static func orderedForMatching(_ a: BarcodeReading, _ b: BarcodeReading) -> Bool {
        let p = a.boundingBox, q = b.boundingBox
        if p.y != q.y { return p.y < q.y }
        if p.x != q.x { return p.x < q.x }
        if a.symbology != b.symbology { return a.symbology < b.symbology }
        if a.bytes != b.bytes { return a.bytes.lexicographicallyPrecedes(b.bytes) }
        return a.corners.flatMap { [$0.x, $0.y] }.lexicographicallyPrecedes(b.corners.flatMap { [$0.x, $0.y] })
    }

    /// ZBar reports EAN-2/EAN-5 add-ons as symbols of their own: each is appended to the EAN/UPC
    /// symbol it sits beside (to its right, within its height), or dropped.
    static func attachingAddOns(_ readings: [BarcodeReading]) -> [BarcodeReading] {
        let isAddOn: (BarcodeReading) -> Bool = { $0.symbology == .ean2AddOn || $0.symbology == .ean5AddOn }
        var mains = readings.filter { !isAddOn($0) }
        for addOn in readings.filter(isAddOn) {
            let box = addOn.boundingBox
            let host = mains.indices.filter { index in
                let main = mains[index]
                guard main.symbology.family == .eanUPC, !main.bytes.contains(0x20) else { return false }
                let mainBox = main.boundingBox
                let slack = max(8, mainBox.height * 0.5)
                return box.center.y >= mainBox.y - slack && box.center.y <= mainBox.y + mainBox.height + slack
                    && box.x >= mainBox.x + mainBox.width * 0.5 && box.x <= mainBox.x + mainBox.width * 1.6 + slack
            }.min {
                abs(mains[$0].boundingBox.center.y - box.center.y) < abs(mains[$1].boundingBox.center.y - box.center.y)
            }
            guard let host else { continue }
            mains[host].bytes += [0x20] + addOn.bytes
            mains[host].corners = BoundingBox(enclosing: mains[host].corners + addOn.corners).corners
        }
        return mains
    }
}

extension BarcodeSymbology {
    /// ZBar's EAN-2/EAN-5 add-ons before they are attached to their main symbol; never reported.
    static let ean2AddOn = BarcodeSymbology(rawValue: "ean2")
    static let ean5AddOn = BarcodeSymbology(rawValue: "ean5")
}
