/// The engines one worker thread owns: created on first use, reused for every image the worker
/// processes, freed when the worker ends. Never shared between threads.
public final class WorkerEngines {
    private var scanners: [[BarcodeSymbology]: ZBarScanner] = [:]
    private var textEngines: [String: TesseractEngine] = [:]
    private var faceDetectors: [FaceDetectorKind: FaceDetector] = [:]

    public init() {}

    func barcodeScanner(for symbologies: [BarcodeSymbology]) throws(AnalysisError) -> ZBarScanner {
        if let existing = scanners[symbologies] { return existing }
        let scanner = try ZBarScanner(symbologies: symbologies)
        scanners[symbologies] = scanner
        return scanner
    }

    func faceDetector(_ kind: FaceDetectorKind, models: ModelLocator) throws(AnalysisError) -> FaceDetector {
        if let existing = faceDetectors[kind] { return existing }
        let detector = try FaceDetector(kind: kind, models: models)
        faceDetectors[kind] = detector
        return detector
    }

    func textEngine(languages: String) throws(AnalysisError) -> TesseractEngine {
        if let existing = textEngines[languages] { return existing }
        let engine = try TesseractEngine(languages: languages)
        textEngines[languages] = engine
        return engine
    }
}
