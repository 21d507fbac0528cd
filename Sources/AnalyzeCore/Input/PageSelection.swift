import Foundation

/// Which pages of multi-page files (TIFF scans, PDFs) are analysed (`--pages 1-3,7,10-`): page numbers
/// from 1, ranges closed or open at their end. Inputs of one page, and every other input, are analysed whole.
public struct PageSelection: Sendable, Hashable, CustomStringConvertible {
    /// Closed ranges; `upperBound` Int.max for an open one (`10-`).
    public let ranges: [ClosedRange<Int>]

    /// Every page.
    public static let all = PageSelection(ranges: [1...Int.max])

    init(ranges: [ClosedRange<Int>]) { self.ranges = ranges }

    /// Parses `1-3,7,10-`; nil for anything else (a page 0, a range that ends before it starts, junk).
    public init?(_ text: String) {
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard let first = bounds.first, let low = Int(first), low >= 1 else { return nil }
            if bounds.count == 1 {
                ranges.append(low...low)
            } else if bounds[1].isEmpty {
                ranges.append(low...Int.max)
            } else {
                guard let high = Int(bounds[1]), high >= low else { return nil }
                ranges.append(low...high)
            }
        }
        guard !ranges.isEmpty else { return nil }
        self.ranges = ranges
    }

    public func contains(_ page: Int) -> Bool { ranges.contains { $0.contains(page) } }

    public var description: String {
        ranges.map {
            $0.lowerBound == $0.upperBound
                ? "\($0.lowerBound)"
                : $0.upperBound == Int.max ? "\($0.lowerBound)-" : "\($0.lowerBound)-\($0.upperBound)"
        }
        .joined(separator: ",")
    }
}
