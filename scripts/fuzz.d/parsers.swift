// libFuzzer target for the parsers that read untrusted bytes before any decoder: the image header
// parser (sizes for --max-pixels, truncated JPEGs) and the EXIF orientation reader (libexif).
// Built by scripts/fuzz --parsers with swiftc -sanitize=fuzzer,address from the library's own files.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let header = ImageHeader(parsing: bytes) {
        precondition(header.width >= 0 && header.height >= 0, "negative size from the header parser")
    }
    _ = ImageHeader.isTruncatedJPEG(bytes)
    if let tiff = ImageHeader.TIFFKind(bytes) {
        for offset in tiff.pageDirectories(bytes, limit: 64) {
            var page = bytes
            tiff.makeFirstDirectory(offset, in: &page)
            _ = ImageHeader(parsing: page)
        }
    }
    _ = ExifOrientationReader.orientationTag(in: bytes)
    return 0
}
