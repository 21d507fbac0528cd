internal import CExif

/// Reads the EXIF orientation tag with libexif (`exif_data_load_data`, `exif_content_get_entry`).
///
/// Finds the EXIF block in JPEG (APP1), PNG (`eXIf` chunk) and WebP (`EXIF` chunk) files; a TIFF's
/// tag is read from its first directory by ``ImageHeader/TIFFKind``, wherever that lies. The bytes
/// are untrusted: every length is checked and nothing here can crash on them.
enum ExifOrientationReader {
    /// The result of looking for the tag.
    enum Tag: Equatable {
        case absent
        case valid(ImageOrientation)
        case invalid(Int)
    }

    static func orientationTag(in bytes: [UInt8]) -> Tag {
        if let tiff = ImageHeader.TIFFKind(bytes) {
            guard let raw = tiff.firstDirectoryValue(bytes, tag: 274) else { return .absent }
            return ImageOrientation(rawValue: raw).map(Tag.valid) ?? .invalid(raw)
        }
        guard let exif = exifPayload(in: bytes) else { return .absent }
        return exif.withUnsafeBufferPointer { buffer -> Tag in
            guard let base = buffer.baseAddress, let data = exif_data_new() else { return .absent }
            defer { exif_data_unref(data) }
            // Parse only; do not "repair" the data or add mandatory tags.
            exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
            exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
            exif_data_load_data(data, base, UInt32(clamping: buffer.count))
            guard let ifd0 = data.pointee.ifd.0,
                let entry = exif_content_get_entry(ifd0, EXIF_TAG_ORIENTATION)
            else { return .absent }
            let e = entry.pointee
            guard e.components >= 1, let value = e.data else { return .invalid(0) }
            let order = exif_data_get_byte_order(data)
            let raw: Int
            switch e.format {
            case EXIF_FORMAT_SHORT where e.size >= 2: raw = Int(exif_get_short(value, order))
            case EXIF_FORMAT_LONG where e.size >= 4: raw = Int(exif_get_long(value, order))
            case EXIF_FORMAT_BYTE where e.size >= 1: raw = Int(value.pointee)
            default: return .invalid(-1)
            }
            if let orientation = ImageOrientation(rawValue: raw) { return .valid(orientation) }
            return .invalid(raw)
        }
    }

    /// The bytes libexif should parse: a JPEG as it is (libexif finds APP1 itself), or an
    /// `Exif\0\0`-prefixed TIFF block taken from PNG or WebP containers.
    static func exifPayload(in bytes: [UInt8]) -> [UInt8]? {
        let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
        if bytes.starts(with: [0xFF, 0xD8]) { return bytes }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            // PNG chunks: length(4, big-endian) type(4) data crc(4)
            var offset = 8
            while offset + 8 <= bytes.count {
                let length = Int(bytes.readUInt32BE(at: offset))
                let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
                let start = offset + 8
                guard length >= 0, start + length <= bytes.count else { return nil }
                if type == "eXIf" {
                    let chunk = Array(bytes[start..<start + length])
                    return chunk.starts(with: exifHeader) ? chunk : exifHeader + chunk
                }
                if type == "IDAT" || type == "IEND" { return nil }
                offset = start + length + 4
            }
            return nil
        }
        if bytes.count >= 12, bytes.starts(with: [0x52, 0x49, 0x46, 0x46]),
            Array(bytes[8..<12]) == [0x57, 0x45, 0x42, 0x50]
        {
            var offset = 12
            while offset + 8 <= bytes.count {
                let type = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
                let length = Int(bytes.readUInt32LE(at: offset + 4))
                let start = offset + 8
                guard start + length <= bytes.count else { return nil }
                if type == "EXIF" {
                    let chunk = Array(bytes[start..<start + length])
                    return chunk.starts(with: exifHeader) ? chunk : exifHeader + chunk
                }
                offset = start + length + (length & 1)
            }
        }
        return nil
    }
}

extension [UInt8] {
    func readUInt32BE(at offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= count else { return 0 }
        return UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
            | UInt32(self[offset + 3])
    }

    func readUInt32LE(at offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= count else { return 0 }
        return UInt32(self[offset + 3]) << 24 | UInt32(self[offset + 2]) << 16 | UInt32(self[offset + 1]) << 8
            | UInt32(self[offset])
    }

    func readUInt16BE(at offset: Int) -> UInt16 {
        guard offset >= 0, offset + 2 <= count else { return 0 }
        return UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    func readUInt16LE(at offset: Int) -> UInt16 {
        guard offset >= 0, offset + 2 <= count else { return 0 }
        return UInt16(self[offset + 1]) << 8 | UInt16(self[offset])
    }
}
