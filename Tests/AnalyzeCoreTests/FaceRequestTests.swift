import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

@Suite("Faces through CenterFace, Haar and dlib")
struct FaceRequestTests {
    @Test func findsTheAstronautsFaceWithLandmarksInPlace() throws {
        let analysis = try DebianPhoto.analyze("astronaut.png", RequestSet([FaceRequest(landmarks: true)]))
        let faces = try #require(analysis.faces)
        #expect(faces.count == 1)
        let face = try #require(faces.first)
        // Eileen Collins' face: about x 175–275, y 55–180 of the 512×512 portrait.
        #expect(face.boundingBox.intersectionOverUnion(BoundingBox(x: 175, y: 55, width: 95, height: 125)) > 0.5)
        #expect(face.confidence > 0.7)
        let landmarks = try #require(face.landmarks)
        // The subject's right eye is on the image's left, above the nose, above the mouth.
        #expect(landmarks.rightEye.x < landmarks.leftEye.x)
        #expect(landmarks.rightEye.y < landmarks.nose.y && landmarks.nose.y < landmarks.mouthLeft.y)
        #expect(landmarks.mouthRight.x < landmarks.mouthLeft.x)
        let regions = try #require(face.regions)
        #expect(regions.faceContour.count == 17 && regions.outerLips.count == 12 && regions.innerLips.count == 8)
        // dlib's pupils agree with CenterFace's eyes to within a fifth of the eye distance.
        let eyeDistance = landmarks.leftEye.x - landmarks.rightEye.x
        let pupil = try #require(regions.rightPupil.first)
        #expect(
            abs(pupil.x - landmarks.rightEye.x) < eyeDistance / 5
                && abs(pupil.y - landmarks.rightEye.y) < eyeDistance / 5)
        // An upright, frontal portrait.
        #expect(abs(face.roll ?? 99) < 10)
        #expect(abs(face.yaw ?? 99) < 15)
    }

    @Test(arguments: ["chelsea.png", "coffee.png"])
    func findsNoFaceWhereThereIsNone(_ name: String) throws {
        #expect(try DebianPhoto.analyze(name, RequestSet([FaceRequest()])).faces == [])
    }

    @Test func theCameramanLooksAwayAndYawSaysSo() throws {
        let face = try #require(try DebianPhoto.analyze("camera.png", RequestSet([FaceRequest()])).faces?.first)
        #expect(abs(face.yaw ?? 0) > 20)
    }

    /// A portrait photo is fitted into CenterFace's input as 480×640 and a landscape one as 640×480, so
    /// the faces of both are seen at the same scale: six astronauts (faces of about 160 px)
    /// pasted into the 12 MP phone photo are all found, upright as it is (4000×3000) and turned to
    /// portrait (3000×4000). Letterboxed into 640×480, the portrait photo's faces were 19 px there, and
    /// two of the six were found.
    @Test(arguments: [false, true])
    func facesInAPortraitPhotoAreFoundAsInALandscapeOne(portrait: Bool) throws {
        let path = TextGateTests.phone.appendingPathComponent("pic2/IMG_20200608_111614.jpg").path
        try #require(FileManager.default.fileExists(atPath: path), "run scripts/fetch-test-images (scripts/test does)")
        let source = try #require(InputCollector.collect([path]).first)
        let photo = try ImageRequestHandler(source: source).perform(RequestSet(), engines: WorkerEngines()).image
        let image = portrait ? UprightImage(pixels: try photo.pixels.oriented(.right), orientation: .up) : photo
        #expect((image.width, image.height) == (portrait ? (3000, 4000) : (4000, 3000)))
        let bytes = [UInt8](try Data(contentsOf: DebianPhoto.folder.appendingPathComponent("astronaut.png")))
        let side = 666
        let astronaut = try OpenCVMat.decode(bytes).0.bgr().resized(width: side, height: side)
        let (columns, rows) = portrait ? (2, 3) : (3, 2)
        var places: [(x: Int, y: Int)] = []
        for row in 0..<rows {
            for column in 0..<columns {
                places.append(
                    (
                        x: 200 + column * (image.width - side - 400) / (columns - 1),
                        y: 300 + row * (image.height - side - 600) / (rows - 1)
                    ))
            }
        }
        for place in places { try image.pixels.paste(astronaut, x: place.x, y: place.y) }
        let faces = try FaceRequest().perform(on: image, engines: WorkerEngines())
        #expect(faces.count == 6)
        for place in places {
            // Each astronaut's face: about x 175–275, y 55–180 of the 512×512 picture.
            let expected = BoundingBox(
                x: Double(place.x) + 175 * 1.3, y: Double(place.y) + 55 * 1.3, width: 95 * 1.3, height: 125 * 1.3)
            #expect(
                faces.contains { $0.boundingBox.intersectionOverUnion(expected) > 0.5 },
                "no face at \(place) in \(faces.map(\.boundingBox))")
        }
    }

    /// One worker's CenterFace network reads images of every shape (its input cut to each image) and
    /// gives what a fresh network gives: OpenCV 4.6 with layer fusion gave wrong boxes once a network's
    /// input size changed (MODELS.md pitfall 1), so the order of a folder's images would change faces.
    @Test func oneNetworkReadsImagesOfEveryShapeAsAFreshOneDoes() throws {
        let bytes = [UInt8](try Data(contentsOf: DebianPhoto.folder.appendingPathComponent("astronaut.png")))
        let astronaut = try OpenCVMat.decode(bytes).0.bgr()
        let coffee = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: DebianPhoto.folder.appendingPathComponent("coffee.png")))
        ).0.bgr()
        let wide = try coffee.resized(width: 1600, height: 500), tall = try coffee.resized(width: 500, height: 1200)
        try wide.paste(astronaut.resized(width: 400, height: 400), x: 900, y: 50)
        try tall.paste(astronaut.resized(width: 400, height: 400), x: 50, y: 600)
        let images = [astronaut, wide, tall, astronaut, wide].map { UprightImage(pixels: $0, orientation: .up) }
        #expect(
            images.map { FaceDetector.centerFaceInput(forWidth: $0.width, height: $0.height) }.map {
                [$0.width, $0.height]
            }
                == [[480, 480], [640, 224], [288, 640], [480, 480], [640, 224]])
        let shared = WorkerEngines()
        for image in images {
            let faces = try FaceRequest().perform(on: image, engines: shared)
            let fresh = try FaceRequest().perform(on: image, engines: WorkerEngines())
            #expect(faces.count == 1, "\(image.width)x\(image.height)")
            #expect(
                faces.map(\.boundingBox) == fresh.map(\.boundingBox)
                    && faces.map(\.confidence) == fresh.map(\.confidence))
        }
    }

    /// Faces too small for CenterFace's view of the whole photo are found by its closer look at the
    /// photo's quarters: eight astronauts with faces of about 80 px (under 13 px in the whole 12 MP
    /// photo's 640×480 input, where none of the eight was found) and one with a face of about 250 px
    /// across the edge between two quarters, which is reported once, whole.
    @Test func smallFacesInAGroupPhotoAreFoundByACloserLook() throws {
        let path = TextGateTests.phone.appendingPathComponent("pic2/IMG_20200608_111614.jpg").path
        try #require(FileManager.default.fileExists(atPath: path), "run scripts/fetch-test-images (scripts/test does)")
        let source = try #require(InputCollector.collect([path]).first)
        let image = try ImageRequestHandler(source: source).perform(RequestSet(), engines: WorkerEngines()).image
        let astronaut = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: DebianPhoto.folder.appendingPathComponent("astronaut.png")))
        ).0.bgr()
        // The face is at about x 175–270, y 55–180 of the 512×512 picture.
        func face(at x: Int, _ y: Int, side: Int) -> BoundingBox {
            let k = Double(side) / 512
            return BoundingBox(x: Double(x) + 175 * k, y: Double(y) + 55 * k, width: 95 * k, height: 125 * k)
        }
        try image.pixels.paste(try astronaut.resized(width: 1024, height: 1024), x: 1750, y: 1000)
        var expected = [face(at: 1750, 1000, side: 1024)]
        let small = try astronaut.resized(width: 358, height: 358)
        for y in [200, 2400] {
            for x in [200, 1100, 2000, 2900] {
                try image.pixels.paste(small, x: x, y: y)
                expected.append(face(at: x, y, side: 358))
            }
        }
        let faces = try FaceRequest().perform(on: image, engines: WorkerEngines())
        #expect(faces.count == 9)
        for box in expected {
            #expect(
                faces.filter { $0.boundingBox.intersectionOverUnion(box) > 0.4 }.count == 1,
                "\(box) in \(faces.map(\.boundingBox))")
        }
        #expect(faces.map(\.confidence) == faces.map(\.confidence).sorted(by: >))
    }

    @Test func haarFallbackFindsTheAstronautWithoutLandmarks() throws {
        let faces = try #require(
            try DebianPhoto.analyze("astronaut.png", RequestSet([FaceRequest(detector: .haar)])).faces)
        let face = try #require(faces.first)
        #expect(face.boundingBox.intersectionOverUnion(BoundingBox(x: 175, y: 55, width: 95, height: 125)) > 0.3)
        #expect(face.landmarks == nil && face.roll == nil)
    }

    @Test func aMissingModelSaysHowToFetchIt() throws {
        let error = try #require(throws: AnalysisError.self) {
            _ = try ModelLocator(directories: ["/nonexistent"]).path(of: FaceRequest.centerFace)
        }
        #expect(error.code == .engineUnavailable)
        #expect(error.message.contains("scripts/fetch-models"))
    }

    @Test func aModelWithOtherContentsIsNotTaken() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not a network".utf8).write(to: folder.appendingPathComponent(FaceRequest.centerFace.name))
        let error = try #require(throws: AnalysisError.self) {
            _ = try ModelLocator(directories: [folder.path]).path(of: FaceRequest.centerFace)
        }
        #expect(error.message.contains("other contents"))
    }

    @Test func anImpliedRequestWithoutItsModelIsSkippedAndAnAskedOneIsAnError() throws {
        let nowhere = ModelLocator(directories: ["/nonexistent"])
        let (requests, notes) = try RequestPlan(configured: RequestSet(), asked: []).resolve(models: nowhere)
        #expect(!requests.kinds.contains(.faces) && requests.kinds.contains(.barcodes))
        #expect(notes.contains { $0.hasPrefix("faces skipped") })
        #expect(throws: AnalysisError.self) {
            _ = try RequestPlan(configured: RequestSet(), asked: [.faces]).resolve(models: nowhere)
        }
        // Haar needs no downloaded model.
        let haar = try RequestPlan(configured: RequestSet([FaceRequest(detector: .haar)]), asked: [.faces]).resolve(
            models: nowhere)
        #expect(haar.requests.kinds == [.faces])
    }

    @Test func groupsDlibPointsIntoVisionRegions() throws {
        let points = (0..<68).map { PixelPoint(x: Double($0), y: 0) }
        let regions = try #require(FaceRegions(points68: points))
        #expect(regions.rightEye.map(\.x) == [36, 37, 38, 39, 40, 41])
        #expect(regions.leftPupil.first?.x == 44.5)
        #expect(regions.medianLine.first?.x == 27 && regions.medianLine.last?.x == 8)
        #expect(FaceRegions(points68: Array(points.prefix(5))) == nil)
    }
}
