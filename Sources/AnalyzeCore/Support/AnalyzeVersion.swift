/// The tool's version and the version of its JSON contract.
public enum AnalyzeVersion {
    /// Shown by `--version`, written into every JSON as `toolVersion`.
    public static let tool = "0.4.0"
    /// The version of the JSON written (`schemas/*.schema.json`), as `schemaVersion`: raised when
    /// a field changes meaning or disappears; new optional fields keep it.
    public static let schema = 2
}
