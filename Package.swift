// swift-tools-version: 6.0
import PackageDescription

/// The OpenCV modules the shim uses; linking only these keeps start-up fast
/// (pkg-config's `opencv4` would pull in every contrib module, VTK and Qt). Not opencv_imgcodecs:
/// Debian's pulls in GDAL and some seventy libraries more (80 ms at every start); the shim opens it
/// only when an image needs it (TIFF, WebP, BMP… see aocv_codecs.cpp).
let openCVLibraries = ["opencv_core", "opencv_imgproc", "opencv_calib3d", "opencv_dnn", "opencv_objdetect"]

let package = Package(
    name: "analyze",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "analyze", targets: ["analyze"]),
        // The engine: ImageRequestHandler, the requests and their observations (see the DocC catalogue).
        .library(name: "AnalyzeCore", targets: ["AnalyzeCore"]),
        // Annotated images, SVG overlays, JSON, hOCR; and the batch runner with its report.
        .library(name: "AnalyzeOutput", targets: ["AnalyzeOutput"]),
        .library(name: "AnalyzeBatch", targets: ["AnalyzeBatch"]),
        .library(name: "AnalyzeReport", targets: ["AnalyzeReport"]),
        // Video, streams and trackers: loaded by AnalyzeCore (dlopen) only when a sequence is analysed.
        .library(name: "AnalyzeVideo", type: .dynamic, targets: ["CVideoShim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // `swift package generate-documentation --target AnalyzeCore` (scripts/docs): the API documentation.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // What the two OpenCV shims share (the status, the matrix, the exception guard), so neither includes
        // the other's private headers.
        .target(name: "COpenCVCommon", dependencies: ["COpenCV"]),
        // Thin C++ target: OpenCV behind a plain-C header; every cv::Exception is caught there.
        .target(
            name: "COpenCVShim",
            dependencies: ["COpenCV", "COpenCVCommon"],
            linkerSettings: (openCVLibraries + ["png", "jpeg", "gif"]).map { .linkedLibrary($0) }
        ),
        // Thin C++ target: OpenCV's videoio (FFmpeg) and contrib trackers behind a plain-C header, as the
        // shared library libAnalyzeVideo.so; nothing links it: AnalyzeCore's VideoLibrary opens it on first use.
        .target(
            name: "CVideoShim",
            dependencies: ["COpenCV", "COpenCVCommon"],
            // swiftc links it with the Swift runtime (swiftrt.o, libswiftCore.so): fine for development
            // builds; scripts/install and scripts/package link the same object again with g++, without it.
            linkerSettings: [
                "opencv_core", "opencv_imgproc", "opencv_videoio", "opencv_video", "opencv_tracking", "avformat",
                "avcodec", "swscale", "avutil",
            ].map { .linkedLibrary($0) }
        ),
        // Thin C++ target: dlib's 68-point face landmark predictor behind a plain-C header.
        .target(
            name: "CDlibShim",
            linkerSettings: [.linkedLibrary("dlib"), .linkedLibrary("lapack"), .linkedLibrary("blas")]
        ),
        // Tesseract's C API (libtesseract-dev's header), forwarded to libtesseract.so.5, which is opened
        // with dlopen on first use rather than linked: it loads some forty libraries (curl, NSS, GnuTLS,
        // Kerberos, LDAP…) that would slow every start, `--version` included.
        .target(name: "CTesseract", dependencies: ["CLibraryLoader"]),
        // libheif's C API, forwarded the same way to libheif.so.1 (its codecs' libraries and start-up code
        // would otherwise load on every start).
        .target(name: "CHeif", dependencies: ["CLibraryLoader"]),
        // Opens such a library once, on first use, and looks up its functions (used by the two above).
        .target(name: "CLibraryLoader"),
        // ONNX Runtime's C API behind a few plain-C calls (the recognizer networks OpenCV 4.6 cannot run).
        // Built against the header scripts/fetch-onnxruntime installs; libonnxruntime.so is opened with
        // dlopen at the path the model locator finds, only by runs that use it.
        .target(name: "COnnxRuntime"),
        // OpenCV's headers (`pkg-config --cflags opencv4`) for the two OpenCV shims; its module is empty. No
        // unsafeFlags anywhere, so the package can be a versioned dependency. SwiftPM also links every
        // library in opencv4.pc's Libs (all 55 modules, with VTK, Qt, GDAL): scripts/swift-build points
        // PKG_CONFIG_PATH at a generated opencv4.pc with the Cflags alone, so the shims' own lists below are
        // what gets linked. C++17 is `cxxLanguageStandard`; -O2 for debug builds comes from scripts/swift-build.
        .systemLibrary(name: "COpenCV", pkgConfig: "opencv4", providers: [.apt(["libopencv-dev"])]),
        // System libraries with C APIs, found with pkg-config.
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        // zxing-cpp 3.1.1's C API, a static library built from its PyPI sdist by scripts/fetch-zxing.
        .systemLibrary(name: "CZXing", pkgConfig: "zxing"),
        // Four layers, each seeing only those below it (docs/architecture.md, "Layers"); an import the
        // other way is a compile error (scripts/check-layers).
        // 1. The engine: inputs, decoding, orientation, engines, requests, observations, the handlers.
        .target(
            name: "AnalyzeCore",
            dependencies: [
                "COpenCVShim", "CDlibShim", "CZBar", "CTesseract", "CExif", "CHeif", "CZXing", "COnnxRuntime",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // 2. What observations become: annotated images, SVG, JSON, hOCR, the output files' names.
        .target(name: "AnalyzeOutput", dependencies: ["AnalyzeCore"]),
        // 3. A run over many inputs: the batch runner, the report, the kinds' registry, --require checks.
        .target(name: "AnalyzeBatch", dependencies: ["AnalyzeCore", "AnalyzeOutput"]),
        // 4. What a run tells: summary.json, the HTML report, JUnit, the totals' wording; merging shards.
        .target(name: "AnalyzeReport", dependencies: ["AnalyzeCore", "AnalyzeOutput", "AnalyzeBatch"]),
        // The thin command-line front end. Linked with tcmalloc (Debian's libtcmalloc-minimal4), which
        // replaces malloc for the whole process: it keeps freed pages for the next image, where glibc
        // hands every 12 MP buffer back to the kernel and takes it again zeroed, page by page (about
        // 30,000 page faults and 60 ms of system time per photo; docs/benchmarks.md).
        .executableTarget(
            name: "analyze",
            dependencies: [
                "AnalyzeCore", "AnalyzeOutput", "AnalyzeBatch", "AnalyzeReport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [.linkedLibrary(":libtcmalloc_minimal.so.4", .when(platforms: [.linux]))]
        ),
        .testTarget(
            name: "AnalyzeCoreTests",
            dependencies: ["AnalyzeCore", "AnalyzeOutput", "AnalyzeBatch", "AnalyzeReport", "CHeif"],
            // The recorded outputs are read by path (GoldenOutputTests), not built into the bundle.
            exclude: ["Golden"],
            // The HEIF tests write their photos with libheif's encoder, which CHeif does not forward.
            linkerSettings: [.linkedLibrary("heif")]
        ),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
