import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// The shim's box filter (`aocv_resize_area`, behind `OpenCVMat.resized`, every letterbox and working
/// copy) must give exactly OpenCV's `INTER_AREA` pixels: the requests' results were measured with those.
@Suite("Shrinking images")
struct ResizeTests {
    /// An image's pixel bytes, row by row (without the rows' padding).
    func bytes(_ mat: OpenCVMat) -> [UInt8] {
        mat.withPixels { base, stride in
            var out: [UInt8] = []
            out.reserveCapacity(mat.width * mat.height * mat.channels)
            for y in 0..<mat.height {
                out.append(contentsOf: UnsafeBufferPointer(start: base + y * stride, count: mat.width * mat.channels))
            }
            return out
        }
    }

    /// Real photographs, colour and gray, shrunk to sizes whose factors are not whole numbers (from just
    /// over 1 to over 12, with rounding at the edges) and to whole-number ones: byte for byte OpenCV's.
    @Test func shrinksExactlyAsOpenCVsBoxFilter() throws {
        let photo = try Wallpaper.image("Path").pixels
        let sources = [photo, try photo.gray(), try photo.cropped(x: 3, y: 5, width: 1001, height: 757)]
        for source in sources {
            let sizes = [
                (640, 400), (672, 419), (320, 200), (1999, 1249), (799, 333), (200, 1200), (1, 1), (37, 1031),
                (source.width / 2, source.height / 2), (source.width - 1, source.height - 1),
                (source.width, source.height),
            ]
            for (width, height) in sizes where width <= source.width && height <= source.height {
                let ours = try source.resized(width: width, height: height)
                let opencv = try source.resizedByOpenCVArea(width: width, height: height)
                #expect(ours.width == width && ours.height == height && ours.channels == source.channels)
                #expect(
                    bytes(ours) == bytes(opencv),
                    "\(source.width)x\(source.height)x\(source.channels) -> \(width)x\(height)")
            }
        }
    }
}
