import Foundation

/// GIF images (old scans, screenshots, web graphics), which OpenCV 4.6 has no decoder for, read by
/// FFmpeg through the video library (``VideoCapture``) from their file: the first frame, upright as
/// stored, transparent pixels black. An animated GIF is analysed at its first frame, and its warnings
/// say so. Its size is checked against `--max-pixels` from its header before FFmpeg opens it.
enum GIFReader {
    /// The first frame of the GIF at `path`, whose bytes (`bytes`) were read; with the warnings.
    static func firstFrame(path: String, bytes: [UInt8], maximumPixels: Int) throws(AnalysisError) -> (OpenCVMat, warnings: [String]) {
        guard let header = ImageHeader(parsing: bytes), header.width > 0, header.height > 0 else {
            throw AnalysisError(.undecodable, "GIF: no screen size in its header")
        }
        guard header.pixelCount <= maximumPixels else {
            throw AnalysisError(.tooLarge, "the header claims \(header.width)x\(header.height) = \(header.pixelCount) pixels, over the limit of \(maximumPixels) (raise it with --max-pixels)")
        }
        // FFmpeg reads the file itself: a regular file only, named by an absolute path (a relative
        // `http:x.gif` would be taken for a URL).
        try RegularFile.validate(path)
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let capture = try VideoCapture(absolute)
        guard capture.grab() != nil else {
            let said = capture.takeLog().lines.last.map { ": " + $0 } ?? ""
            throw AnalysisError(.undecodable, "GIF: FFmpeg read no frame\(said)")
        }
        let frame = try capture.retrieve()
        guard frame.width * frame.height <= maximumPixels else {
            throw AnalysisError(.tooLarge, "\(frame.width)x\(frame.height) pixels is over the limit of \(maximumPixels) (raise it with --max-pixels)")
        }
        var warnings: [String] = []
        if let frames = capture.declaredFrameCount, frames > 1 { warnings.append("GIF: only the first of its \(frames) frames is analysed") }
        return (frame, warnings)
    }
}
