/// Why an image could not be analysed (or an output not written): a code, a message, the file.
public struct AnalysisError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is; stable names for scripts and reports.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let missingFile = Code(rawValue: "missing-file")
        public static let unreadable = Code(rawValue: "unreadable")
        public static let emptyFile = Code(rawValue: "empty-file")
        public static let undecodable = Code(rawValue: "undecodable")
        public static let tooLarge = Code(rawValue: "too-large")
        public static let engineFailed = Code(rawValue: "engine-failed")
        public static let engineUnavailable = Code(rawValue: "engine-unavailable")
        public static let outputFailed = Code(rawValue: "output-failed")
        /// A bad argument or combination of options (the command exits 2).
        public static let usage = Code(rawValue: "usage")
    }

    public let code: Code
    public let message: String
    /// The file concerned, when known.
    public var file: String?

    /// `message` is made one line: engines' messages (libheif's, OpenCV's) may end in a newline or hold
    /// control characters taken from the file itself, and each failure is one line on stderr and in the
    /// report. Control characters become spaces, runs of spaces one space, and the ends are trimmed.
    public init(_ code: Code, _ message: String, file: String? = nil) {
        self.code = code
        self.message = Self.oneLine(message)
        self.file = file
    }

    static func oneLine(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar == " " || scalar == "\u{2028}"
                || scalar == "\u{2029}"
            {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.append(" ") }
            pendingSpace = false
            out.append(scalar)
        }
        return String(out)
    }

    public var description: String {
        if let file { return "\(file): \(message)" }
        return message
    }
}
