internal import COpenCVShim

/// Follows one object from frame to frame with one of OpenCV contrib's trackers, like the
/// tracker behind a `VNTrackObjectRequest`. Owned by one sequence, used on one thread.
final class ObjectTracker {
    private let library: VideoLibrary
    private let handle: OpaquePointer

    /// Starts following `box` in `frame`.
    init(_ algorithm: TrackRequest.Algorithm, frame: OpenCVMat, box: BoundingBox) throws(AnalysisError) {
        let library = try VideoLibrary.get()
        var status = aocv_status()
        let xywh = [box.x, box.y, box.width, box.height]
        let created = xywh.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            guard let base = buffer.baseAddress else { return nil }
            return library.trackerCreate(algorithm.code, frame.handle, base, &status)
        }
        guard let created else {
            throw AnalysisError(.engineFailed, "the tracker could not start: " + OpenCVMat.message(of: &status))
        }
        self.library = library
        handle = created
    }

    deinit { library.trackerFree(handle) }

    /// Where the object is in `frame`, and how much it still looks as it did when last placed
    /// (normalised cross-correlation, 0–1); nil when the tracker lost it.
    func update(_ frame: OpenCVMat) throws(AnalysisError) -> (box: BoundingBox, similarity: Double)? {
        var status = aocv_status()
        var xywh = [Double](repeating: 0, count: 4)
        var similarity = 0.0
        let found = xywh.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return library.trackerUpdate(handle, frame.handle, base, &similarity, &status)
        }
        if found < 0 { throw AnalysisError(.engineFailed, "the tracker failed: " + OpenCVMat.message(of: &status)) }
        guard found == 1 else { return nil }
        return (BoundingBox(x: xywh[0], y: xywh[1], width: xywh[2], height: xywh[3]), similarity)
    }

    /// Where the object, lost, looks most like itself when last placed, within `reach` × its size of
    /// `last` (`aocv_tracker_search`), and how much (normalised cross-correlation, 0–1).
    func search(_ frame: OpenCVMat, around last: BoundingBox, reach: Double) throws(AnalysisError) -> (
        box: BoundingBox, score: Double
    )? {
        var status = aocv_status()
        let around = [last.x, last.y, last.width, last.height]
        var xywh = [Double](repeating: 0, count: 4)
        var score = 0.0
        let found = around.withUnsafeBufferPointer { a -> Int32 in
            xywh.withUnsafeMutableBufferPointer { b -> Int32 in
                guard let a = a.baseAddress, let b = b.baseAddress else { return -1 }
                return library.trackerSearch(handle, frame.handle, a, reach, b, &score, &status)
            }
        }
        if found < 0 {
            throw AnalysisError(.engineFailed, "the tracker's search failed: " + OpenCVMat.message(of: &status))
        }
        guard found == 1 else { return nil }
        return (BoundingBox(x: xywh[0], y: xywh[1], width: xywh[2], height: xywh[3]), score)
    }

    /// Places the tracker on `box`: `trusted` when a re-detection corrects its drift (the box becomes
    /// what the object looks like), not when its own search found it again (what it looks like stays
    /// as last trusted, so a false match is lost again and searched for with the true appearance).
    func reset(_ frame: OpenCVMat, box: BoundingBox, trusted: Bool) throws(AnalysisError) {
        var status = aocv_status()
        let xywh = [box.x, box.y, box.width, box.height]
        let ok = xywh.withUnsafeBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            return library.trackerReset(handle, frame.handle, base, trusted ? 1 : 0, &status)
        }
        if ok == 0 {
            throw AnalysisError(.engineFailed, "the tracker could not be placed: " + OpenCVMat.message(of: &status))
        }
    }
}

extension TrackRequest.Algorithm {
    /// The shim's code for the algorithm.
    var code: Int32 { self == .csrt ? 0 : 1 }  // AOCV_TRACKER_CSRT, AOCV_TRACKER_KCF (CVideoShim/include/aocv_video.h)
}
