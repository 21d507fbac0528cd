import Foundation

/// The files an ONNX model names for its tensors' bytes (`external_data` with a `location`, ONNX's
/// format for models over 2 GB), checked before ONNX Runtime or OpenCV opens the model: a model is
/// untrusted input, and both libraries open whatever path a tensor names, so a model could read
/// `/etc/passwd` or a key into its weights and hand its bytes back as outputs. A location must be a
/// relative path inside the model's own folder: not absolute, no `..`, no symbolic link on the way,
/// and a regular file at the end. Every tensor of the model is looked at: initializers, sparse ones,
/// the attributes of every node (a `Constant`'s value) in every graph and subgraph, and functions.
public enum ONNXExternalData {
    /// The locations the model at `path` names, after checking each; throws for the first that is not
    /// allowed, or when the file is not an ONNX model this parser can read (a model the check cannot
    /// read is not given to a library that might read it otherwise).
    @discardableResult
    public static func check(modelAt path: String) throws(AnalysisError) -> [String] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw AnalysisError(.engineUnavailable, "the model file cannot be read", file: path)
        }
        var locations: [String] = []
        var failure: ParseError?
        data.withUnsafeBytes { raw in
            do throws(ParseError) {
                try walk(raw, as: .model, depth: 0, found: &locations)
            } catch {
                failure = error
            }
        }
        if let failure {
            throw AnalysisError(
                .engineUnavailable, "it is not an ONNX model that can be read (\(failure.reason))", file: path)
        }
        let folder = (path as NSString).deletingLastPathComponent
        for location in Set(locations).sorted() {
            try checkLocation(location, folder: folder.isEmpty ? "." : folder, model: path)
        }
        return Set(locations).sorted()
    }

    private static func checkLocation(_ location: String, folder: String, model: String) throws(AnalysisError) {
        func refuse(_ why: String) -> AnalysisError {
            AnalysisError(
                .engineUnavailable,
                "a tensor's external data \(location.debugDescription) \(why): external data must be a file in the model's own folder",
                file: model)
        }
        guard !location.isEmpty, !location.utf8.contains(0) else { throw refuse("is not a file name") }
        guard !location.hasPrefix("/"), !location.contains("\\") else { throw refuse("is an absolute path") }
        let components = location.split(separator: "/", omittingEmptySubsequences: true)
        guard !components.contains(".."), !components.isEmpty else { throw refuse("leaves the model's folder") }
        var path = folder
        for (index, component) in components.enumerated() where component != "." {
            path += "/" + component
            var info = stat()
            guard lstat(path, &info) == 0 else { throw refuse("does not exist") }
            let type = info.st_mode & S_IFMT
            if type == S_IFLNK { throw refuse("is reached through a symbolic link") }
            if index == components.count - 1 {
                guard type == S_IFREG else { throw refuse("is not a regular file") }
            } else if type != S_IFDIR {
                throw refuse("does not exist")
            }
        }
    }

    struct ParseError: Error {
        let reason: String
    }

    /// The messages of onnx.proto that can hold a tensor, and the fields that lead to one.
    private enum Message {
        case model, graph, function, trainingInfo, node, attribute, tensor, sparseTensor, entry

        /// The message a length-delimited field of this message holds, or nil for bytes and strings.
        func child(_ field: UInt64) -> Message? {
            switch (self, field) {
            case (.model, 7): .graph
            case (.model, 20): .trainingInfo
            case (.model, 25): .function
            case (.trainingInfo, 1), (.trainingInfo, 2): .graph
            case (.graph, 1), (.function, 7): .node
            case (.graph, 5): .tensor
            case (.graph, 15): .sparseTensor
            case (.node, 5): .attribute
            case (.attribute, 5), (.attribute, 10): .tensor
            case (.attribute, 6), (.attribute, 11): .graph
            case (.attribute, 22), (.attribute, 23): .sparseTensor
            case (.sparseTensor, 1), (.sparseTensor, 2): .tensor
            case (.tensor, 13): .entry
            default: nil
            }
        }
    }

    /// Protobuf's wire format, read field by field (unknown fields skipped as protobuf skips them);
    /// the `location` of every tensor's external data is collected into `found`.
    private static func walk(_ bytes: UnsafeRawBufferPointer, as message: Message, depth: Int, found: inout [String])
        throws(ParseError)
    {
        // protobuf's own parser stops at 100 levels of nesting.
        guard depth < 100 else { throw ParseError(reason: "nested too deeply") }
        var at = 0
        var key: String?, value: String?
        var groups = 0
        while at < bytes.count {
            let tag = try varint(bytes, &at)
            let field = tag >> 3
            guard field > 0 else { throw ParseError(reason: "a field numbered 0") }
            switch tag & 7 {
            case 0: _ = try varint(bytes, &at)
            case 1: at += 8
            case 5: at += 4
            case 2:
                let length = try varint(bytes, &at)
                guard length <= UInt64(bytes.count - at) else { throw ParseError(reason: "a field runs past its end") }
                let body = UnsafeRawBufferPointer(rebasing: bytes[at..<at + Int(length)])
                at += Int(length)
                if groups > 0 { continue }
                if message == .entry {
                    let text = String(decoding: body, as: UTF8.self)
                    if field == 1 { key = text } else if field == 2 { value = text }
                } else if let child = message.child(field) {
                    try walk(body, as: child, depth: depth + 1, found: &found)
                }
            case 3: groups += 1
            case 4:
                guard groups > 0 else { throw ParseError(reason: "a group ends that did not start") }
                groups -= 1
            default: throw ParseError(reason: "a field of wire type \(tag & 7)")
            }
            guard at <= bytes.count else { throw ParseError(reason: "a field runs past its end") }
        }
        guard groups == 0 else { throw ParseError(reason: "a group does not end") }
        if message == .entry, key == "location", let value { found.append(value) }
    }

    private static func varint(_ bytes: UnsafeRawBufferPointer, _ at: inout Int) throws(ParseError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while at < bytes.count, shift < 64 {
            let byte = bytes[at]
            at += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        throw ParseError(reason: "a number runs past its end")
    }
}
