/// Reads the output of an anchor-free YOLO head (Ultralytics' YOLOv8 and YOLO11 exports): one tensor
/// [1, 4 + C, N], per candidate N its box centre x, centre y, width and height in input pixels, then C
/// class scores already through a sigmoid; no objectness row and no suppression in the graph. Candidates
/// are kept for their best class, then suppressed per class, as Ultralytics' own `non_max_suppression`.
struct AnchorFreeDetections {
    /// Where an input pixel comes from in the image: x_image = x × ax + bx, y_image = y × ay + by.
    struct Mapping {
        var ax = 1.0, bx = 0.0, ay = 1.0, by = 0.0
    }

    struct Candidate {
        var box: BoundingBox
        var classIndex: Int
        var score: Double
        /// Up to 5 classes, best first, each at least the caller's label score (the best always).
        var labels: [(index: Int, score: Double)]
    }

    /// The candidates of `output` whose best class reaches `minimumConfidence` (never below 0.01, which
    /// also bounds the work), mapped into an image of `width` × `height` (clipped to it), suppressed per
    /// class (IoU above `maximumOverlap`), best first: by score, then class, then top, then left. At most
    /// `capacity`. Boxes or scores that are not finite are dropped (a network's numbers are untrusted).
    static func decode(
        _ output: FloatTensor, classes: Int, mapping: Mapping, width: Int, height: Int, minimumConfidence: Double,
        maximumOverlap: Double, capacity: Int, minimumLabelScore: Double
    ) throws(AnalysisError) -> [Candidate] {
        guard output.shape.count == 3, output.shape[0] == 1, output.shape[1] == 4 + classes, output.shape[2] > 0,
            output.values.count == output.shape[1] * output.shape[2]
        else {
            throw AnalysisError(.engineFailed, "the detector's output \(output.shape) is not [1, \(4 + classes), N]")
        }
        let count = output.shape[2]
        let threshold = Float(max(0.01, minimumConfidence))
        var candidates: [Candidate] = []
        output.values.withUnsafeBufferPointer { v in
            for n in 0..<count {
                var best = 0, bestScore: Float = -1
                for c in 0..<classes {
                    let s = v[(4 + c) * count + n]
                    if s > bestScore { bestScore = s; best = c }
                }
                guard bestScore >= threshold, bestScore.isFinite else { continue }
                let cx = Double(v[n]), cy = Double(v[count + n]), w = Double(v[2 * count + n]),
                    h = Double(v[3 * count + n])
                guard [cx, cy, w, h].allSatisfy(\.isFinite), w > 0, h > 0 else { continue }
                let x0 = max(0, min(Double(width), (cx - w / 2) * mapping.ax + mapping.bx))
                let y0 = max(0, min(Double(height), (cy - h / 2) * mapping.ay + mapping.by))
                let x1 = max(0, min(Double(width), (cx + w / 2) * mapping.ax + mapping.bx))
                let y1 = max(0, min(Double(height), (cy + h / 2) * mapping.ay + mapping.by))
                guard x1 > x0, y1 > y0 else { continue }
                var ranked: [(index: Int, score: Double)] = []
                for c in 0..<classes {
                    let s = Double(v[(4 + c) * count + n])
                    guard s.isFinite, c == best || s >= minimumLabelScore else { continue }
                    ranked.append((c, s))
                }
                ranked.sort { $0.score != $1.score ? $0.score > $1.score : $0.index < $1.index }
                candidates.append(
                    Candidate(
                        box: BoundingBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0), classIndex: best,
                        score: Double(bestScore), labels: Array(ranked.prefix(5))))
            }
        }
        candidates.sort(by: Self.isBefore)
        var kept: [Candidate] = []
        for candidate in candidates where kept.count < capacity {
            let overlaps = kept.contains {
                $0.classIndex == candidate.classIndex && $0.box.intersectionOverUnion(candidate.box) > maximumOverlap
            }
            if !overlaps { kept.append(candidate) }
        }
        return kept
    }

    /// Best first: by score, then class index, then top, then left (a stable order whatever the input order).
    private static func isBefore(_ a: Candidate, _ b: Candidate) -> Bool {
        if a.score != b.score { return a.score > b.score }
        if a.classIndex != b.classIndex { return a.classIndex < b.classIndex }
        if a.box.y != b.box.y { return a.box.y < b.box.y }
        return a.box.x < b.box.x
    }
}
