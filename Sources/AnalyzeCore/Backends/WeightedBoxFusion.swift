/// Weighted box fusion (Solovyev, Wang and Gabruseva 2021) of one detector's passes over an image at
/// several input sizes: the boxes of one class that overlap are one object, placed at their
/// score-weighted mean, scored by the mean over the passes of each pass's best score in it (a pass that
/// did not see the object counts 0). Two sizes of YOLO11n fused so gained 1–6 points of mAP on the
/// development set, most on dim and webcam-like copies (docs/benchmarks.md).
enum WeightedBoxFusion {
    /// The objects of `passes` (each already suppressed per class, its scores down to a low floor), fused:
    /// those scoring at least `minimumConfidence`, most confident first, at most `maximumObservations`.
    /// A member joins the cluster of its class whose fused box it overlaps most, above `overlap` (IoU).
    /// An object's labels are its members' labels fused the same way (each label's best score in each
    /// pass, averaged over the passes), those under `minimumLabelScore` left out but the first.
    /// The fused objects are then suppressed per class as each pass was: of two that overlap more than
    /// `suppression`, the more confident is kept.
    static func fuse(
        _ passes: [[RecognizedObjectObservation]], overlap: Double, suppression: Double, minimumConfidence: Double,
        maximumObservations: Int, minimumLabelScore: Double
    ) -> [RecognizedObjectObservation] {
        // Every pass's objects, the most confident first; ties in a fixed order, so that the result does
        // not depend on the order the passes listed them in.
        let members = passes.enumerated().flatMap { pass, objects in objects.map { Member(object: $0, pass: pass) } }
            .sorted { a, b in
                if a.object.confidence != b.object.confidence { return a.object.confidence > b.object.confidence }
                let p = a.object.boundingBox, q = b.object.boundingBox
                return (p.x, p.y, p.width, p.height, a.pass) < (q.x, q.y, q.width, q.height, b.pass)
            }
        var clusters: [Cluster] = []
        for member in members {
            var joined: Int?
            var best = overlap
            for (index, cluster) in clusters.enumerated() where cluster.identifier == member.object.identifier {
                let iou = cluster.box.intersectionOverUnion(member.object.boundingBox)
                if iou > best {
                    best = iou
                    joined = index
                }
            }
            guard let index = joined else {
                clusters.append(
                    Cluster(identifier: member.object.identifier, box: member.object.boundingBox, members: [member]))
                continue
            }
            clusters[index].members.append(member)
            clusters[index].box = weightedBox(of: clusters[index].members)
        }
        let count = Double(max(1, passes.count))
        var fused: [RecognizedObjectObservation] = []
        for cluster in clusters {
            // Each label's best score in each pass, averaged over the passes (summed in the passes' order,
            // so that three or more passes give the same last digit every run).
            var scores: [String: [Int: Double]] = [:]
            for member in cluster.members {
                for label in member.object.labels {
                    scores[label.identifier, default: [:]][member.pass] = max(
                        scores[label.identifier]?[member.pass] ?? 0, label.confidence)
                }
            }
            let labels = scores.map {
                ClassificationObservation(
                    identifier: $0.key,
                    confidence: $0.value.sorted { $0.key < $1.key }.reduce(0) { $0 + $1.value } / count)
            }
            .sorted { ($0.confidence, $1.identifier) > ($1.confidence, $0.identifier) }
            // The cluster's own class first: its score is the object's.
            let own = labels.first { $0.identifier == cluster.identifier }
            guard let own, own.confidence >= minimumConfidence else { continue }
            let others = labels.filter { $0.identifier != cluster.identifier && $0.confidence >= minimumLabelScore }
            fused.append(
                RecognizedObjectObservation(
                    boundingBox: cluster.box, confidence: own.confidence, labels: Array(([own] + others).prefix(5))))
        }
        return suppressedPerClass(fused, overlap: suppression, maximumObservations: maximumObservations)
    }

    /// `objects`, most confident first (ties in a fixed order), without those that overlap a more confident
    /// object of their class by more than `overlap` (IoU), at most `maximumObservations` of them.
    static func suppressedPerClass(
        _ objects: [RecognizedObjectObservation], overlap: Double, maximumObservations: Int
    ) -> [RecognizedObjectObservation] {
        let sorted = objects.sorted { a, b in
            if a.confidence != b.confidence { return a.confidence > b.confidence }
            let p = a.boundingBox, q = b.boundingBox
            return (p.x, p.y, p.width, p.height, a.identifier) < (q.x, q.y, q.width, q.height, b.identifier)
        }
        var kept: [RecognizedObjectObservation] = []
        for object in sorted where kept.count < maximumObservations {
            let suppressed = kept.contains {
                $0.identifier == object.identifier
                    && $0.boundingBox.intersectionOverUnion(object.boundingBox) > overlap
            }
            if !suppressed { kept.append(object) }
        }
        return kept
    }

    private struct Member {
        let object: RecognizedObjectObservation
        let pass: Int
    }

    private struct Cluster {
        let identifier: String
        var box: BoundingBox
        var members: [Member]
    }

    /// The members' boxes averaged, each weighted by its score (by equal weights if every score is 0).
    private static func weightedBox(of members: [Member]) -> BoundingBox {
        let total = members.reduce(0) { $0 + $1.object.confidence }
        func weight(_ m: Member) -> Double { total > 0 ? m.object.confidence / total : 1 / Double(members.count) }
        var x = 0.0, y = 0.0, right = 0.0, bottom = 0.0
        for m in members {
            let b = m.object.boundingBox, w = weight(m)
            x += w * b.x
            y += w * b.y
            right += w * (b.x + b.width)
            bottom += w * (b.y + b.height)
        }
        return BoundingBox(x: x, y: y, width: right - x, height: bottom - y)
    }
}
