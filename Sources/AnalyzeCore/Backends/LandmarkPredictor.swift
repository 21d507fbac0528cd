internal import CDlibShim
import Foundation
import Synchronization

/// dlib's 68-point face landmark predictor (`adlib_shape_predictor_*`).
///
/// The model is ~100 MB, so one predictor is loaded per process, on first use, and shared.
/// `@unchecked Sendable`: after loading, the predictor is never modified; dlib's
/// `shape_predictor::operator()` is const, so concurrent predictions are safe.
final class LandmarkPredictor: @unchecked Sendable {
    private let handle: OpaquePointer

    private init(path: String) throws(AnalysisError) {
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = adlib_shape_predictor_load(path, &error, error.count) else {
            throw AnalysisError(
                .engineUnavailable,
                "cannot load dlib's landmark model \(path): "
                    + String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        guard adlib_shape_predictor_parts(handle) == 68 else {
            adlib_shape_predictor_free(handle)
            throw AnalysisError(.engineUnavailable, "\(path) is not a 68-point landmark model")
        }
        self.handle = handle
    }

    deinit { adlib_shape_predictor_free(handle) }

    private static let loaded = Mutex<LandmarkPredictor?>(nil)

    /// The process's predictor, loaded on first use (under the mutex, so it is loaded once).
    static func shared() throws(AnalysisError) -> LandmarkPredictor {
        try loaded.withLock { (slot: inout LandmarkPredictor?) throws(AnalysisError) -> LandmarkPredictor in
            if let slot { return slot }
            let predictor = try LandmarkPredictor(
                path: ModelLocator.packaged(ModelLocator.dlibLandmarksPath, package: "libdlib-data"))
            slot = predictor
            return predictor
        }
    }

    /// The 68 landmarks for a face box from CenterFace or Haar, grouped into Vision's regions.
    /// dlib's model was trained on its own detector's boxes: the box is turned into a square of
    /// the box's width, moved down by 8% of its height (MODELS.md), which matches dlib's boxes.
    func regions(in gray: OpenCVMat, faceBox: BoundingBox) -> FaceRegions? {
        let side = faceBox.width
        let cx = faceBox.x + faceBox.width / 2, cy = faceBox.y + faceBox.height / 2 + 0.08 * faceBox.height
        var points = [Double](repeating: 0, count: 136)
        var error = [CChar](repeating: 0, count: 256)
        let ok = gray.withPixels { pixels, stride in
            adlib_shape_predictor_predict(
                handle, pixels, Int32(gray.width), Int32(gray.height), stride,
                cx - side / 2, cy - side / 2, side, side, &points, &error, error.count)
        }
        guard ok == 1 else { return nil }
        return FaceRegions(points68: (0..<68).map { PixelPoint(x: points[2 * $0], y: points[2 * $0 + 1]) })
    }
}
