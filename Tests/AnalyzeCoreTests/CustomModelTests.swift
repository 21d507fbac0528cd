import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// `--model`: a network of one's own, taken as a detector or a classifier by its outputs.
@Suite("Your own model")
struct CustomModelTests {
    static let models = Fixture.root.deletingLastPathComponent().appendingPathComponent(".models")

    func file(_ name: String) throws -> String {
        let path = Self.models.appendingPathComponent(name).path
        try #require(FileManager.default.fileExists(atPath: path), "run scripts/fetch-models (scripts/test does)")
        return path
    }

    @Test func aClassifierIsRecognisedByItsOutputsAndLabelsTheImage() throws {
        var models = ModelLocator(directories: [])
        let request = try CustomModel.request(
            weights: try file("efficientnet-lite0.onnx"), configuration: nil, labels: try file("imagenet.names"),
            inputWidth: 224, inputHeight: 224, preprocessing: .tf, minimumConfidence: nil, models: &models)
        let classify = try #require(request as? ClassificationRequest)
        let source = ImageSource(path: try OpenCVSample.path("squirrel_cls.jpg"), outputName: "x")
        let analysis = try ImageRequestHandler(source: source).perform(
            RequestSet([classify]), engines: WorkerEngines(models: models)
        ).analysis
        #expect(analysis.classification?.first?.identifier == "fox squirrel")
    }

    @Test func aDarknetDetectorIsRecognisedAndFindsTheBall() throws {
        var models = ModelLocator(directories: [])
        let request = try CustomModel.request(
            weights: try file("yolov4-tiny.weights"), configuration: try file("yolov4-tiny.cfg"),
            labels: try file("coco.names"),
            inputWidth: 416, inputHeight: 416, preprocessing: nil, minimumConfidence: nil, models: &models)
        let detect = try #require(request as? ObjectRequest)
        let source = ImageSource(path: try OpenCVSample.path("messi5.jpg"), outputName: "x")
        let analysis = try ImageRequestHandler(source: source).perform(
            RequestSet([detect]), engines: WorkerEngines(models: models)
        ).analysis
        #expect(analysis.objects?.contains { $0.identifier == "sports ball" } == true)
    }

    /// An anchor-free YOLO (YOLO11n's own ONNX, output [1, 84, N]), which OpenCV 4.6 cannot run, runs on
    /// ONNX Runtime at the input size given and finds what --objects finds.
    @Test func anAnchorFreeYOLORunsOnONNXRuntime() throws {
        var models = ModelLocator.standard  // where ONNX Runtime's library is
        let request = try CustomModel.request(
            weights: try file("yolo11n.onnx"), configuration: nil, labels: try file("yolo11n.names"),
            inputWidth: 640, inputHeight: 640, preprocessing: nil, minimumConfidence: nil, models: &models)
        let detect = try #require(request as? ObjectRequest)
        #expect(detect.model.runtime == .onnxRuntime && detect.model.role == .detector && !detect.model.fitsByArea)
        let source = ImageSource(path: try OpenCVSample.path("messi5.jpg"), outputName: "x")
        let analysis = try ImageRequestHandler(source: source).perform(
            RequestSet([detect]), engines: WorkerEngines(models: models)
        ).analysis
        let objects = try #require(analysis.objects)
        #expect(objects.contains { $0.identifier == "sports ball" && $0.confidence > 0.6 })
        #expect(objects.filter { $0.identifier == "person" }.count >= 3)
        // The same on the command line, through the model's probe in a process of its own.
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let cli = try runProgram(
            CommandLineTests.binary.path,
            [
                try OpenCVSample.path("messi5.jpg"), "--model", try file("yolo11n.onnx"), "--labels",
                try file("yolo11n.names"), "--model-input", "640x640", "-o", out.path, "--no-png", "--no-svg", "-q",
            ])
        #expect(cli.status == 0, "\(cli.output)")
        let json = try String(contentsOf: out.appendingPathComponent("messi5.json"), encoding: .utf8)
        #expect(json.contains("\"sports ball\""))
    }

    @Test func outputsThatAreNeitherAreRefusedWithTheirShapes() throws {
        var models = ModelLocator(directories: [])
        let error = try #require(throws: AnalysisError.self) {
            _ = try CustomModel.request(
                weights: try file("centerface.onnx"), configuration: nil, labels: try file("coco.names"),
                inputWidth: 416, inputHeight: 416, preprocessing: nil, minimumConfidence: nil, models: &models)
        }
        #expect(error.message.contains("cannot interpret") && error.message.contains("[1,10,104,104]"))
    }

    @Test func labelsThatDoNotMatchTheClassesAreRefused() throws {
        var models = ModelLocator(directories: [])
        let error = try #require(throws: AnalysisError.self) {
            _ = try CustomModel.request(
                weights: try file("yolov4-tiny.weights"), configuration: try file("yolov4-tiny.cfg"),
                labels: try file("imagenet.names"),
                inputWidth: 416, inputHeight: 416, preprocessing: nil, minimumConfidence: nil, models: &models)
        }
        #expect(error.message.contains("80") && error.message.contains("1000"))
    }

    @Test func onTheCommandLineABadModelIsAUsageError() throws {
        let result = try CommandLineTests().run([
            Fixture.path("samples/gift-card.jpg"), "--model", try file("centerface.onnx"), "--labels",
            try file("coco.names"), "-o", "/tmp/never-written",
        ])
        #expect(result.status == 2 && result.stderr.contains("cannot interpret"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never-written"))
        #expect(try CommandLineTests().run([Fixture.path("samples/gift-card.jpg"), "--model", "x.onnx"]).status == 2)
    }
    /// A network whose outputs are NaN (sqrt of a negative number, made here with Debian's python3-onnx):
    /// the run goes on, each image gets its JSON, nothing NaN is written (issue 35, item 3).
    @Test(arguments: [("classifier", [1, 4], 4), ("detector", [1, 10, 7], 2)])
    func aModelThatOutputsNaNKillsNothing(role: String, shape: [Int], classes: Int) throws {
        let folder = try Fixture.temporaryDirectory()
        let model = folder.appendingPathComponent("nan-\(role).onnx").path,
            labels = folder.appendingPathComponent("labels.txt").path
        try Data((0..<classes).map { "class\($0)\n" }.joined().utf8).write(to: URL(fileURLWithPath: labels))
        let script = """
            import sys, numpy as np, onnx
            from onnx import helper, TensorProto, numpy_helper
            shape = [int(v) for v in sys.argv[2].split(',')]
            n = int(np.prod(shape))
            inits = [numpy_helper.from_array(np.array([-1.0], np.float32), 'm1'), numpy_helper.from_array(np.ones((3, n), np.float32), 'w'),
                     numpy_helper.from_array(np.array(shape, np.int64), 'shape')]
            nodes = [helper.make_node('GlobalAveragePool', ['x'], ['g']), helper.make_node('Flatten', ['g'], ['f']),
                     helper.make_node('Abs', ['f'], ['a']), helper.make_node('Sub', ['m1', 'a'], ['neg']),
                     helper.make_node('Sqrt', ['neg'], ['nan']), helper.make_node('MatMul', ['nan', 'w'], ['mm']),
                     helper.make_node('Reshape', ['mm', 'shape'], ['y'])]
            graph = helper.make_graph(nodes, 'nan', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 3, 32, 32])],
                                      [helper.make_tensor_value_info('y', TensorProto.FLOAT, shape)], inits)
            m = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 11)])
            m.ir_version = 6
            onnx.save(m, sys.argv[1])
            """
        let made = try runProgram(
            "/usr/bin/python3", ["-c", script, model, shape.map(String.init).joined(separator: ",")])
        try #require(made.status == 0, "python3-onnx (scripts/test installs it): \(made.output)")
        let out = try Fixture.temporaryDirectory()
        let run = try CommandLineTests().run([
            Fixture.path("samples"), "--model", model, "--labels", labels, "--model-input", "32x32", "-o", out.path,
        ])
        #expect(run.status == 0, "\(run.status): \(run.stderr.suffix(400))")
        for name in ["gift-card", "printed-page", "product-label", "receipt-exif6"] {
            let json =
                try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent(name + ".json")))
                as? [String: Any]
            #expect(json?["errors"] == nil, "\(name).json: \(String(describing: json?["errors"]))")
        }
    }

    /// A tiny ONNX whose graph expands its input to [10000, 3, 224, 224] (6 GB of floats a blob; in the
    /// run's own process it grew past 40 GB): loading it
    /// is tried in a process of its own under a memory cap and a time limit, and refused with a clear
    /// error before any image is read (issue 35, item 4); nothing is written.
    @Test func aModelThatExplodesWhileLoadingIsRefused() throws {
        let folder = try Fixture.temporaryDirectory()
        let model = folder.appendingPathComponent("expand.onnx").path,
            labels = folder.appendingPathComponent("labels.txt").path
        try Data("a\nb\n".utf8).write(to: URL(fileURLWithPath: labels))
        let script = """
            import sys, numpy as np, onnx
            from onnx import helper, TensorProto, numpy_helper
            shape = numpy_helper.from_array(np.array([10000, 3, 224, 224], np.int64), 'shape')
            graph = helper.make_graph([helper.make_node('Expand', ['x', 'shape'], ['y'])], 'bomb',
                                      [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 3, 224, 224])],
                                      [helper.make_tensor_value_info('y', TensorProto.FLOAT, [10000, 3, 224, 224])], [shape])
            m = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
            m.ir_version = 7
            onnx.save(m, sys.argv[1])
            """
        let made = try runProgram("/usr/bin/python3", ["-c", script, model])
        try #require(made.status == 0, "python3-onnx (scripts/test installs it): \(made.output)")
        let out = folder.appendingPathComponent("out")
        let started = Date()
        let run = try CommandLineTests().run([
            Fixture.path("samples/gift-card.jpg"), "--model", model, "--labels", labels, "--model-input", "224x224",
            "-o", out.path,
        ])
        #expect(
            run.status == 2 && run.stderr.contains("--model \(model): "), "\(run.status): \(run.stderr.suffix(400))")
        #expect(
            run.stderr.contains("Failed to allocate") || run.stderr.contains("memory")
                || run.stderr.contains("refused"), "\(run.stderr.suffix(400))")
        #expect(Date().timeIntervalSince(started) < CustomModel.probeTimeout + 30)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}

/// A network of one's own is untrusted input: it reads no file it was not given, and each of its forwards
/// is bounded in time and memory on the image it runs on (issue 63, items 2 and 3).
@Suite("Your own model, hostile")
struct HostileModelTests {
    /// Writes the model `script` makes (python3-onnx) into a new folder, with two class names.
    static func model(_ script: String, name: String = "model.onnx", arguments: [String] = []) throws -> (
        folder: URL, model: String, labels: String
    ) {
        let folder = try Fixture.temporaryDirectory()
        let model = folder.appendingPathComponent(name).path, labels = folder.appendingPathComponent("labels.txt").path
        try Data("a\nb\n".utf8).write(to: URL(fileURLWithPath: labels))
        let made = try runProgram("/usr/bin/python3", ["-c", script, model] + arguments)
        try #require(made.status == 0, "python3-onnx (scripts/test installs it): \(made.output)")
        return (folder, model, labels)
    }

    /// A detector's head [1, 6, 4] (2 classes) read from an initializer `W` whose bytes are external data at
    /// `location` (argv[2]), plus nothing of the image (0 × its mean).
    static let externalDataModel = """
        import sys, numpy as np, onnx
        from onnx import helper, TensorProto, numpy_helper
        w = numpy_helper.from_array(np.zeros((1, 6, 4), np.float32), 'W')
        w.ClearField('raw_data')
        w.data_location = TensorProto.EXTERNAL
        for k, v in [('location', sys.argv[2]), ('offset', '0'), ('length', '96')]:
            e = w.external_data.add(); e.key = k; e.value = v
        zero = numpy_helper.from_array(np.zeros((1,), np.float32), 'zero')
        shape = numpy_helper.from_array(np.array([1, 1, 1], np.int64), 'shape')
        nodes = [helper.make_node('ReduceMean', ['x'], ['m'], axes=[1, 2, 3], keepdims=0),
                 helper.make_node('Mul', ['m', 'zero'], ['z']), helper.make_node('Reshape', ['z', 'shape'], ['r']),
                 helper.make_node('Add', ['W', 'r'], ['y'])]
        graph = helper.make_graph(nodes, 'external', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 3, 32, 32])],
                                  [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 6, 4])], [w, zero, shape])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
        m.ir_version = 7
        onnx.save(m, sys.argv[1])
        """

    /// External data named by an absolute path, by `..`, or through a symbolic link out of the model's
    /// folder is refused before anything opens it, with a clear error; a file beside the model is read.
    @Test func externalDataOutsideTheModelsFolderIsRefused() throws {
        let secret = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: secret) }
        try Data(repeating: 0x41, count: 96).write(to: secret.appendingPathComponent("secret.bin"))
        for location in [
            "/etc/passwd", secret.appendingPathComponent("secret.bin").path, "../secret.bin", "link/secret.bin",
        ] {
            let (folder, model, labels) = try Self.model(Self.externalDataModel, arguments: [location])
            defer { try? FileManager.default.removeItem(at: folder) }
            try FileManager.default.createSymbolicLink(
                at: folder.appendingPathComponent("link"), withDestinationURL: secret)
            try Data(repeating: 0x41, count: 96).write(
                to: folder.deletingLastPathComponent().appendingPathComponent("secret.bin"))
            let out = folder.appendingPathComponent("out")
            let run = try CommandLineTests().run([
                Fixture.path("samples/gift-card.jpg"), "--model", model, "--labels", labels, "--model-input", "32x32",
                "-o", out.path,
            ])
            #expect(run.status == 2, "\(location): \(run.status) \(run.stderr.suffix(400))")
            #expect(
                run.stderr.contains("external data") && run.stderr.contains("the model's own folder"),
                "\(location): \(run.stderr.suffix(400))")
            #expect(!FileManager.default.fileExists(atPath: out.path))
            try? FileManager.default.removeItem(
                at: folder.deletingLastPathComponent().appendingPathComponent("secret.bin"))
        }
        // The same model with its weights beside it loads and runs.
        let (folder, model, labels) = try Self.model(Self.externalDataModel, arguments: ["weights.bin"])
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(count: 96).write(to: folder.appendingPathComponent("weights.bin"))
        #expect(try ONNXExternalData.check(modelAt: model) == ["weights.bin"])
        let run = try CommandLineTests().run([
            Fixture.path("samples/gift-card.jpg"), "--model", model, "--labels", labels, "--model-input", "32x32",
            "-o", folder.appendingPathComponent("out").path, "-q",
        ])
        #expect(run.status == 0, "\(run.stderr.suffix(400))")
    }

    /// A model whose cost depends on the pixels passes the probe (a mid-gray image costs nothing) and then,
    /// on a real image, loops for ever or asks for 8 GB: the forward runs in the model's own process, which
    /// is stopped at --model-timeout or dies at its memory cap; the image gets an error, the run ends.
    @Test(arguments: ["loop", "expand"])
    func aModelWhoseCostDependsOnThePixelsIsStoppedOnEachImage(kind: String) throws {
        let script = """
            import sys, numpy as np, onnx
            from onnx import helper, TensorProto, numpy_helper
            kind = sys.argv[2]
            c = lambda name, v, t=np.float32: numpy_helper.from_array(np.array(v, t), name)
            inits = [c('half', 0.5), c('zero', [0.0]), c('shape', [1, 1, 1], np.int64), c('W', np.zeros((1, 6, 4)))]
            nodes = [helper.make_node('ReduceMax', ['x'], ['mx'], keepdims=0), helper.make_node('Sub', ['mx', 'half'], ['d'])]
            if kind == 'loop':
                # Trip count (max pixel - 0.5) * 1e9: none on a mid-gray image, 500 million on a white one.
                inits += [c('big', 1e9), c('cond', True, np.bool_)]
                body = helper.make_graph([helper.make_node('Identity', ['c_in'], ['c_out']), helper.make_node('Identity', ['v_in'], ['v_out'])], 'body',
                    [helper.make_tensor_value_info('i', TensorProto.INT64, []), helper.make_tensor_value_info('c_in', TensorProto.BOOL, []),
                     helper.make_tensor_value_info('v_in', TensorProto.FLOAT, [1, 6, 4])],
                    [helper.make_tensor_value_info('c_out', TensorProto.BOOL, []), helper.make_tensor_value_info('v_out', TensorProto.FLOAT, [1, 6, 4])])
                nodes += [helper.make_node('Mul', ['d', 'big'], ['t']), helper.make_node('Cast', ['t'], ['trips'], to=TensorProto.INT64),
                          helper.make_node('Loop', ['trips', 'cond', 'W'], ['y'], body=body)]
            else:
                # An Expand to [(max pixel - 0.5) * 4000, 1000, 1000] floats: empty on a mid-gray image, 8 GB on a white one.
                inits += [c('k', 4000.0), c('rest', [1000, 1000], np.int64), c('one', [1.0])]
                nodes += [helper.make_node('Mul', ['d', 'k'], ['t']), helper.make_node('Cast', ['t'], ['n'], to=TensorProto.INT64),
                          helper.make_node('Unsqueeze', ['n'], ['n1'], axes=[0]), helper.make_node('Concat', ['n1', 'rest'], ['s'], axis=0),
                          helper.make_node('Expand', ['one', 's'], ['big']), helper.make_node('ReduceSum', ['big'], ['sum'], keepdims=0),
                          helper.make_node('Mul', ['sum', 'zero'], ['z']), helper.make_node('Reshape', ['z', 'shape'], ['r']),
                          helper.make_node('Add', ['W', 'r'], ['y'])]
            graph = helper.make_graph(nodes, kind, [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 3, 64, 64])],
                                      [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 6, 4])], inits)
            m = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 12)])
            m.ir_version = 7
            onnx.save(m, sys.argv[1])
            """
        let (folder, model, labels) = try Self.model(script, arguments: [kind])
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let started = Date()
        let run = try CommandLineTests().run([
            Fixture.path("samples/gift-card.jpg"), "--model", model, "--labels", labels, "--model-input", "64x64",
            "--model-timeout", "5", "-o", out.path, "--no-png", "--no-svg",
        ])
        #expect(run.status == 1, "\(run.status): \(run.stderr.suffix(600))")
        #expect(Date().timeIntervalSince(started) < 50)
        let json = try String(contentsOf: out.appendingPathComponent("gift-card.json"), encoding: .utf8)
        let said = kind == "loop" ? "did not finish within 5 s on this image" : "memory"
        #expect(json.contains(said) || (kind == "expand" && json.contains("bad_alloc")), "\(json.prefix(800))")
    }
}
