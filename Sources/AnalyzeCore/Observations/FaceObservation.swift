import Foundation

/// A face, like `VNFaceObservation`. Coordinates are pixels of the upright image, origin top-left.
///
/// Left and right are the **subject's**: the subject's right eye appears on the image's left.
public struct FaceObservation: ListedObservation {
    public static let noun = "face"

    public let boundingBox: BoundingBox
    /// The detector's score, 0–1 (CenterFace's heatmap peak; for Haar, see ``FaceDetectorKind``).
    public let confidence: Double
    /// Head roll in degrees: the angle of the line from the subject's right eye to the left eye,
    /// positive when the face is tilted clockwise as seen in the image. Nil without eye landmarks.
    public let roll: Double?
    /// Head yaw in degrees, positive when the face turns towards the image's right. An estimate
    /// from the nose's offset between the eyes, assuming the nose tip stands half an eye distance
    /// in front of the eyes (an average adult face): good to about ±10°, not a measurement.
    public let yaw: Double?
    /// CenterFace's five landmarks (absent with the Haar detector).
    public let landmarks: FaceLandmarks?
    /// dlib's 68 points grouped into Vision's regions (only with `--landmarks`).
    public let regions: FaceRegions?

    public init(boundingBox: BoundingBox, confidence: Double, landmarks: FaceLandmarks?, regions: FaceRegions?) {
        self.boundingBox = boundingBox
        self.confidence = confidence.roundedConfidence
        self.landmarks = landmarks
        self.regions = regions
        let eyes: (right: PixelPoint, left: PixelPoint, nose: PixelPoint)?
        if let regions, let right = regions.rightPupil.first, let left = regions.leftPupil.first,
            let nose = regions.noseCrest.last
        {
            eyes = (right, left, nose)
        } else if let landmarks {
            eyes = (landmarks.rightEye, landmarks.leftEye, landmarks.nose)
        } else {
            eyes = nil
        }
        if let eyes {
            let dx = eyes.left.x - eyes.right.x, dy = eyes.left.y - eyes.right.y
            let distance = (dx * dx + dy * dy).squareRoot()
            roll = (atan2(dy, dx) * 180 / .pi * 10).rounded() / 10
            if distance > 0 {
                // Offset of the nose from the eyes' midpoint, along the eye line.
                let mx = (eyes.left.x + eyes.right.x) / 2, my = (eyes.left.y + eyes.right.y) / 2
                let along = ((eyes.nose.x - mx) * dx + (eyes.nose.y - my) * dy) / distance
                yaw = (atan(2 * along / distance) * 180 / .pi * 10).rounded() / 10
            } else {
                yaw = nil
            }
        } else {
            roll = nil
            yaw = nil
        }
    }
}

/// CenterFace's five facial landmarks.
public struct FaceLandmarks: Sendable, Hashable, Codable {
    public let rightEye: PixelPoint
    public let leftEye: PixelPoint
    public let nose: PixelPoint
    public let mouthRight: PixelPoint
    public let mouthLeft: PixelPoint

    public var points: [PixelPoint] { [rightEye, leftEye, nose, mouthRight, mouthLeft] }
}

/// dlib's 68 landmarks grouped into Vision's `VNFaceLandmarks2D` regions (subject's left/right).
public struct FaceRegions: Sendable, Hashable, Codable {
    public let faceContour: [PixelPoint]
    public let rightEyebrow: [PixelPoint]
    public let leftEyebrow: [PixelPoint]
    public let noseCrest: [PixelPoint]
    public let nose: [PixelPoint]
    public let rightEye: [PixelPoint]
    public let leftEye: [PixelPoint]
    public let outerLips: [PixelPoint]
    public let innerLips: [PixelPoint]
    /// The face's vertical midline: nose bridge, nose tip, lip centres, chin.
    public let medianLine: [PixelPoint]
    /// One point: the centre of the eye outline.
    public let rightPupil: [PixelPoint]
    public let leftPupil: [PixelPoint]

    /// Groups the 68 points of the iBUG 300-W layout (0-based indices).
    public init?(points68 p: [PixelPoint]) {
        guard p.count == 68 else { return nil }
        func range(_ r: ClosedRange<Int>) -> [PixelPoint] { Array(p[r]) }
        func centre(_ r: ClosedRange<Int>) -> [PixelPoint] {
            let pts = p[r]
            return [
                PixelPoint(
                    x: pts.reduce(0) { $0 + $1.x } / Double(pts.count),
                    y: pts.reduce(0) { $0 + $1.y } / Double(pts.count))
            ]
        }
        faceContour = range(0...16)
        rightEyebrow = range(17...21)
        leftEyebrow = range(22...26)
        noseCrest = range(27...30)
        nose = range(31...35)
        rightEye = range(36...41)
        leftEye = range(42...47)
        outerLips = range(48...59)
        innerLips = range(60...67)
        medianLine = [27, 28, 29, 30, 33, 51, 62, 66, 57, 8].map { p[$0] }
        rightPupil = centre(36...41)
        leftPupil = centre(42...47)
    }

    /// Every region with its name, for drawing: (name, points, closed outline?).
    public var named: [(name: String, points: [PixelPoint], closed: Bool)] {
        [
            ("faceContour", faceContour, false), ("rightEyebrow", rightEyebrow, false),
            ("leftEyebrow", leftEyebrow, false),
            ("noseCrest", noseCrest, false), ("nose", nose, false), ("rightEye", rightEye, true),
            ("leftEye", leftEye, true),
            ("outerLips", outerLips, true), ("innerLips", innerLips, true), ("medianLine", medianLine, false),
            ("rightPupil", rightPupil, false), ("leftPupil", leftPupil, false),
        ]
    }
}
