import Synchronization

/// The document page an image was drawn from (a PDF's page, drawn by poppler): the handler's input for
/// requests that read more than the pixels. The text request takes a typeset page's own words from it
/// (``TextRequest/pdfPageText(of:page:resolution:width:height:warnings:)``) instead of reading the
/// pixels. What a request notes while reading it becomes the image's warnings.
package final class DocumentPage: Sendable {
    /// The document, as poppler reads it.
    let document: PDFRenderer.Source
    /// The page, from 1.
    let number: Int
    /// The resolution it was drawn at, in dots per inch.
    let resolution: Int
    /// Seconds poppler is given per call on this page (`--pdf-page-timeout`).
    let timeout: Double
    private let warnings = Mutex<[String]>([])

    init(document: PDFRenderer.Source, number: Int, resolution: Int, timeout: Double) {
        self.document = document
        self.number = number
        self.resolution = resolution
        self.timeout = timeout
    }

    /// Records warnings for the image's JSON.
    func warn(_ more: [String]) {
        guard !more.isEmpty else { return }
        warnings.withLock { $0 += more }
    }

    /// The warnings recorded so far, once.
    func takeWarnings() -> [String] {
        warnings.withLock { taken in
            defer { taken = [] }
            return taken
        }
    }
}
