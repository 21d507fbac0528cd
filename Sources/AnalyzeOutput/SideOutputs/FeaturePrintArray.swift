import AnalyzeCore

/// `--featureprint-npy`: the feature print as a NumPy array, `<name>.featureprint.npy`, for a
/// similarity index built outside analyze (`numpy.load`, then FAISS or scikit-learn): the same unit
/// vector as the JSON's base64 `data`, one dimension of little-endian 32-bit floats.
extension FeaturePrintRequest: SideOutputProducing {
    public static let sideOutputs = [
        SideOutput(
            name: "featureprint-npy",
            help:
                "With --featureprint, also write each image's feature print as a NumPy array, <name>.featureprint.npy (1280 little-endian float32 of unit length; `numpy.load` reads it).",
            files: { analysis, _ in analysis.featurePrint == nil ? [] : ["featureprint.npy"] },
            render: { _, analysis, _, _ throws(AnalysisError) in
                guard let print = analysis.featurePrint else {
                    throw AnalysisError(.outputFailed, "no feature print to write")
                }
                return NumPyArray.float32(littleEndian: print.data, count: print.elementCount)
            })
    ]
}

/// The `.npy` format, version 1.0: a magic string, a header that is a Python dict literal padded
/// with spaces to a multiple of 64 bytes, then the data.
enum NumPyArray {
    /// A one-dimensional array of `count` float32, from their little-endian bytes.
    static func float32(littleEndian data: [UInt8], count: Int) -> [UInt8] {
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (\(count),), }"
        let prefix = 10  // magic (6), version (2), header length (2)
        while (prefix + header.utf8.count + 1) % 64 != 0 { header += " " }
        header += "\n"
        let length = header.utf8.count
        return [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(length & 0xFF), UInt8(length >> 8)] + Array(header.utf8)
            + data
    }
}
