/// The scale at which Tesseract reads a page of large print: glyphs far taller than Tesseract needs
/// cost its page layout analysis (binarisation, connected components, line finding, all in proportion
/// to the pixels) without helping its recognition, which scales every line to 36 px anyway. A page
/// whose glyphs' median height is at least ``largeGlyphHeight`` is read shrunk so that it is
/// ``targetGlyphHeight`` (never by more than half); small print is left alone, and every box is mapped
/// back to the image's pixels.
///
/// Measured with `tesseract` on the corpus's typewritten page (4000×2864, glyphs 52 px): 1.01 s whole,
/// 0.58 s at half size, the same 101 words (and one speck no longer read as "7~"); the 300-dpi fax
/// page (glyphs 21 px) and the photos (6-12 px) are left as they are.
enum GlyphScale {
    /// Images smaller than this are read as they are: their layout analysis is cheap.
    static let minimumPixels = 1_000_000
    /// The median glyph height (pixels) from which a page is read shrunk.
    static let largeGlyphHeight = 40.0
    /// The median glyph height a shrunk page is read at: Tesseract's x-height of 20-30 px.
    static let targetGlyphHeight = 26.0
    /// A page is never shrunk by more than this: its smaller print shrinks too.
    static let smallestScale = 0.5
    /// Fewer glyph-shaped components than this is not a page of text: read as it is.
    static let minimumGlyphs = 40

    /// The scale to read `gray` at, or nil to read it as it is. Measured on a halving (a page's
    /// glyphs are tens of pixels tall; the halving costs a few milliseconds and the components a
    /// quarter as many).
    static func scale(for gray: OpenCVMat) throws(AnalysisError) -> Double? {
        guard gray.width * gray.height >= minimumPixels else { return nil }
        let half = try gray.resized(width: gray.width / 2, height: gray.height / 2)
        let (median, count) = try half.glyphHeight()
        let height = median * Double(gray.height) / Double(half.height)
        guard count >= minimumGlyphs, height >= largeGlyphHeight else { return nil }
        return max(smallestScale, targetGlyphHeight / height)
    }
}
