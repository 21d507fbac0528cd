import Foundation

/// Where a photo's sky is, cell by cell: a logistic regression on EfficientNet-Lite0's last feature
/// map (1280 channels; a 10 × 10 grid for the photo stretched to 320 px), fitted on our own annotation
/// of the horizon development set (`eval/horizon/train-horizon-sky`: a cell wholly above the horizon is
/// sky, one wholly below is ground; the photos without a horizon are ground everywhere, a kite in the
/// sky is sky everywhere). The horizon search judges its candidate lines by it: a road's edge, a rail
/// or a bay's near shore has ground above it, the horizon has sky; and a line with no ground below it
/// (a sky full of clouds), or a faint one with no sky above it (a forest), is no horizon.
enum HorizonSky {
    /// The network the probe was fitted on, read at its last feature map (after its activation) for the
    /// whole photo stretched to `side` × `side` (`FeatureMapNetwork`).
    static let network = FeatureMapNetwork.Configuration(
        model: {
            var model = NetworkModel.efficientNetLite0
            model.inputWidth = side
            model.inputHeight = side
            model.centreCrop = false
            return model
        }(), tensor: "/_swish_1/Clip_output_0", channels: channels)
    static let channels = 1280
    /// The side the photo is stretched to (10 × 10 cells; 7 × 7 at the classifier's 224 px was too coarse
    /// to judge lines by: docs/benchmarks.md).
    static let side = 320

    /// The probe's weights (see HorizonSky+Weights.swift).
    static let weights: [Float] = {
        guard let data = Data(base64Encoded: encodedWeights, options: .ignoreUnknownCharacters),
            data.count == channels * MemoryLayout<UInt32>.size
        else { return [] }
        return (0..<channels).map { i in
            let bits = (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[data.startIndex + 4 * i + $1]) << (8 * $1) }
            return Float(bitPattern: bits)
        }
    }()

    /// The probability that each cell is sky, row-major, from a feature map of `grid` × `grid` cells
    /// (channel by channel). Nil when the weights did not decode.
    static func probabilities(of map: [Float], grid: Int) -> [Float]? {
        let cells = grid * grid
        guard weights.count == channels, map.count == channels * cells else { return nil }
        var logits = [Float](repeating: bias, count: cells)
        for c in 0..<channels {
            let w = weights[c]
            let base = c * cells
            for i in 0..<cells { logits[i] += w * map[base + i] }
        }
        return logits.map { 1 / (1 + exp(-$0)) }
    }
}
