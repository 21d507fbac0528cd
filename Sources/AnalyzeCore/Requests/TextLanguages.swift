import Foundation
import Synchronization

/// The languages a ``TextRequest`` reads, as each engine takes them (Vision's `recognitionLanguages` and
/// `automaticallyDetectsLanguage`). ``automatic`` reads what the engines can: the text network's simplified
/// Chinese and English, and Tesseract's English; each line says which it was read as (``language(of:)``).
/// A list (`eng+deu`, `chi_sim`, `en-US+zh-Hans`) restricts reading to those: the network reads when every
/// language is one of its own, and only the English characters when Chinese is not asked for; Tesseract reads
/// with those of them whose data is installed, and each that is not is a warning naming its package.
public struct TextLanguages: Sendable, Hashable {
    /// What `--languages` is by default: every language the engines read.
    public static let automatic = "auto"

    /// Whether no language was named.
    public let isAutomatic: Bool
    /// The Tesseract codes asked for, in order (`en-US` → `eng`, `zh-Hans` → `chi_sim`).
    public let codes: [String]

    public init(_ languages: String) {
        let parts = languages.split(whereSeparator: { $0 == "+" || $0 == "," }).map {
            String($0).trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        isAutomatic = parts.isEmpty || parts.contains { $0.lowercased() == Self.automatic }
        var seen = Set<String>()
        codes = parts.filter { $0.lowercased() != Self.automatic }.map(Self.tesseractCode).filter {
            seen.insert($0).inserted
        }
    }

    /// A language's Tesseract code: BCP 47's English and simplified Chinese spellings become `eng` and
    /// `chi_sim`; anything else is taken as Tesseract's own code.
    static func tesseractCode(_ code: String) -> String {
        let c = code.lowercased().replacingOccurrences(of: "_", with: "-")
        if c == "eng" || c == "en" || c.hasPrefix("en-") { return "eng" }
        if c == "chi-sim" || c == "zh" || c.hasPrefix("zh-hans") || c == "zh-cn" || c == "zh-sg" { return "chi_sim" }
        return code
    }

    /// Whether the text network reads these languages: automatic, or only English and simplified Chinese.
    public var networkReads: Bool { isAutomatic || codes.allSatisfy { $0 == "eng" || $0 == "chi_sim" } }

    /// Whether the network keeps only English characters (Chinese not asked for).
    public var englishOnly: Bool { !isAutomatic && !codes.contains("chi_sim") }

    /// The languages Tesseract reads with, joined with `+`: those asked for whose data is installed (English
    /// when automatic); nil when none is.
    public var tesseract: String? {
        let wanted = isAutomatic ? ["eng"] : codes
        let installed = wanted.filter(Self.isInstalled)
        return installed.isEmpty ? nil : installed.joined(separator: "+")
    }

    /// A warning for each language asked for whose Tesseract data is not installed, naming its package.
    public var warnings: [String] {
        (isAutomatic ? [] : codes).filter { !Self.isInstalled($0) }.map { code in
            "Tesseract has no data for the language '\(code)' (install tesseract-ocr-\(code.lowercased().replacingOccurrences(of: "_", with: "-")), or set TESSDATA_PREFIX)"
                + (code == "chi_sim" || code == "eng" ? "; the text network reads it in photos" : "")
        }
    }

    /// Where Tesseract looks for `<code>.traineddata`: `$TESSDATA_PREFIX` (or its `tessdata` folder), else
    /// the folders Debian's and upstream's builds use.
    static var dataFolders: [String] {
        var folders: [String] = []
        if let prefix = ProcessInfo.processInfo.environment["TESSDATA_PREFIX"], !prefix.isEmpty {
            folders += [prefix, prefix + "/tessdata"]
        }
        return folders + [
            "/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
            "/usr/local/share/tessdata", "/usr/share/tessdata",
        ]
    }

    /// Whether Tesseract's data for `code` is installed (a file name, not a path: `../x` is not a language).
    /// Looked up once per process and language: every image asks.
    static func isInstalled(_ code: String) -> Bool {
        guard !code.isEmpty, !code.contains("/"), !code.hasPrefix(".") else { return false }
        if let known = installed.withLock({ $0[code] }) { return known }
        let found = dataFolders.contains { FileManager.default.fileExists(atPath: "\($0)/\(code).traineddata") }
        installed.withLock { $0[code] = found }
        return found
    }

    private static let installed = Mutex<[String: Bool]>([:])

    /// The language a line was read as (BCP 47): simplified Chinese when it holds Han characters, else
    /// English when it holds Latin letters and English is read, else the one language asked for; nil for a
    /// line of digits and signs.
    public func language(of text: String) -> String? {
        let scalars = text.unicodeScalars
        if scalars.contains(where: { $0.properties.isIdeographic }) { return "zh-Hans" }
        guard scalars.contains(where: { $0.properties.isAlphabetic }) else { return nil }
        if isAutomatic || codes.contains("eng") { return "en" }
        return codes.count == 1 ? codes[0] : nil
    }
}
