// Face detectors: CenterFace (cv::dnn, boxes + 5 landmarks) and a Haar cascade fallback (boxes only).
// CenterFace: four stride-4 maps (decoded below); the OpenCV 4.6 traps this avoids are in docs/architecture.md ("Networks").
#include "aocv_internal.hpp"
#include "include/aocv_detect.h"
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

/// One detector, owned by one thread: a cv::dnn::Net and a CascadeClassifier are not thread-safe.
struct aocv_face_detector {
    enum class Kind { centerface, haar } kind;
    cv::dnn::Net net;                 // CenterFace, without layer fusion: any input size (OpenCV 4.6: a fused network gives wrong outputs once its input size changes)
    std::vector<cv::String> outputs;  // heatmap, scale, offset, landmarks
    cv::CascadeClassifier cascade;    // Haar
};

namespace {

/// A detection in image pixels, before it is copied into the C struct.
struct Face {
    cv::Rect2d box;
    double confidence;
    double landmarks[10];
};

/// Non-maximum suppression with cv::dnn::NMSBoxes: keeps the most confident face of every group
/// overlapping by more than `maxIoU`, and returns the survivors sorted by confidence, best first
/// (equal confidences in decode order). NMSBoxes gets each face's rank in that order as its score,
/// not the confidence itself: its float scores would merge close doubles, and it drops scores <= 0.
std::vector<Face> suppress(const std::vector<Face> &faces, double maxIoU) {
    std::vector<int> order(faces.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = (int)i;
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        return faces[a].confidence != faces[b].confidence ? faces[a].confidence > faces[b].confidence : a < b;
    });
    std::vector<cv::Rect2d> boxes;
    std::vector<float> ranks;
    boxes.reserve(order.size());
    ranks.reserve(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        boxes.push_back(faces[order[i]].box);
        ranks.push_back((float)(order.size() - i));  // exact in a float up to 2^24 faces
    }
    std::vector<int> keep;
    cv::dnn::NMSBoxes(boxes, ranks, 0.0f, (float)maxIoU, keep);
    std::vector<Face> kept;
    kept.reserve(keep.size());
    for (int i : keep) kept.push_back(faces[order[i]]);
    return kept;
}

/// Copies at most `capacity` faces into the caller's array and returns how many were written.
int emit(const std::vector<Face> &faces, aocv_face *out, int capacity) {
    const int n = std::min<int>((int)faces.size(), std::max(capacity, 0));
    for (int i = 0; i < n; ++i) {
        const Face &f = faces[i];
        out[i].x = f.box.x; out[i].y = f.box.y; out[i].width = f.box.width; out[i].height = f.box.height;
        out[i].confidence = f.confidence;
        std::copy(f.landmarks, f.landmarks + 10, out[i].landmarks);
    }
    return n;
}

/// Decodes CenterFace's four stride-4 maps (heatmap, scale, offset, landmarks at stride 4) into faces in canvas pixels.
std::vector<Face> decodeCenterFace(const std::vector<cv::Mat> &outs, double threshold) {
    const cv::Mat &heat = outs[0], &scale = outs[1], &offset = outs[2], &lms = outs[3];
    const int rows = heat.size[2], cols = heat.size[3], plane = rows * cols;
    const float *h = heat.ptr<float>(), *s = scale.ptr<float>(), *o = offset.ptr<float>(), *l = lms.ptr<float>();
    std::vector<Face> faces;
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            const int i = r * cols + c;
            if (!(h[i] > threshold)) continue;
            const double s0 = std::exp(s[i]) * 4, s1 = std::exp(s[plane + i]) * 4;   // height, width
            const double x1 = (c + o[plane + i] + 0.5) * 4 - s1 / 2;
            const double y1 = (r + o[i] + 0.5) * 4 - s0 / 2;
            Face f{cv::Rect2d(x1, y1, s1, s0), h[i], {}};
            for (int j = 0; j < 5; ++j) {
                f.landmarks[2 * j] = l[(2 * j + 1) * plane + i] * s1 + x1;
                f.landmarks[2 * j + 1] = l[(2 * j) * plane + i] * s0 + y1;
            }
            faces.push_back(f);
        }
    }
    return faces;
}

/// Maps a canvas-space face back into the image (divide by the letterbox scale) and clips its box.
Face toImage(Face f, double scale, cv::Size image) {
    f.box = cv::Rect2d(f.box.x / scale, f.box.y / scale, f.box.width / scale, f.box.height / scale);
    f.box &= cv::Rect2d(0, 0, image.width, image.height);
    for (double &v : f.landmarks) v /= scale;
    return f;
}

/// Heatmap cells below this are noise; it also bounds NMS work when the caller asks for threshold 0
/// (every one of the (W/4)·(H/4) cells would otherwise become a candidate).
constexpr double kCenterFaceFloor = 0.05;

/// CenterFace on one image: letterbox (top-left, black) into an `input`-sized canvas, forward, decode,
/// NMS 0.3, map back (divide by the letterbox scale).
std::vector<Face> detectCenterFace(aocv_face_detector &d, const cv::Mat &image, cv::Size original, cv::Size input,
                                   double threshold) {
    threshold = std::max(threshold, kCenterFaceFloor);
    const aocv_letterboxed lb = aocv_letterbox(image, input, cv::Scalar(), original);
    d.net.setInput(cv::dnn::blobFromImage(lb.canvas, 1.0, input, cv::Scalar(), /*swapRB*/ true, false));
    std::vector<cv::Mat> outs;
    d.net.forward(outs, d.outputs);
    if (outs.size() != 4) throw std::runtime_error("CenterFace: expected 4 outputs");
    std::vector<Face> faces;
    for (const Face &f : suppress(decodeCenterFace(outs, threshold), 0.3)) {
        Face m = toImage(f, lb.scale, original);
        if (m.box.area() > 0) faces.push_back(m);
    }
    return faces;
}

/// Squashes a Haar level weight (sum of the last stage's weak-classifier votes, roughly -1…8,
/// larger = surer) into 0..1: weight 2 gives 0.5, weight 5 about 0.88, weight 0 about 0.21.
double haarConfidence(double levelWeight) { return 1.0 / (1.0 + std::exp(-(levelWeight - 2.0) / 1.5)); }

/// Haar cascade on one image: gray, equalised, at most 640 px on the long side; confidence from
/// detectMultiScale3's level weights (outputRejectLevels), boxes mapped back to the image; no landmarks.
std::vector<Face> detectHaar(aocv_face_detector &d, const cv::Mat &image, double threshold) {
    cv::Mat gray;
    if (image.channels() == 1) gray = image; else cv::cvtColor(image, gray, image.channels() == 4 ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGR2GRAY);
    const double scale = std::min(1.0, 640.0 / std::max(gray.cols, gray.rows));
    if (scale < 1.0) aocv_resize_area(gray, gray, cv::Size(), scale, scale);
    cv::equalizeHist(gray, gray);
    const int minSide = std::max(20, (int)(0.02 * std::min(gray.cols, gray.rows)));
    std::vector<cv::Rect> boxes;
    std::vector<int> levels;
    std::vector<double> weights;
    d.cascade.detectMultiScale(gray, boxes, levels, weights, 1.1, 3, 0, cv::Size(minSide, minSide), cv::Size(), true);
    std::vector<Face> faces;
    for (size_t i = 0; i < boxes.size(); ++i) {
        Face f{cv::Rect2d(boxes[i]), haarConfidence(i < weights.size() ? weights[i] : 0.0), {}};
        if (f.confidence < threshold) continue;
        std::fill(f.landmarks, f.landmarks + 10, NAN);
        faces.push_back(toImage(f, scale, image.size()));
    }
    return suppress(faces, 0.3);
}

} // namespace

extern "C" aocv_face_detector *aocv_centerface_create(const char *onnx_path, aocv_status *status) {
    return aocv_guard<aocv_face_detector *>(status, nullptr, [&]() -> aocv_face_detector * {
        auto d = std::make_unique<aocv_face_detector>();
        d->kind = aocv_face_detector::Kind::centerface;
        d->net = cv::dnn::readNetFromONNX(onnx_path);
        if (d->net.empty()) throw std::runtime_error(std::string("cannot load CenterFace model: ") + onnx_path);
        d->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        d->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        // Fusion folds the batch norms and activations into the convolutions when the network is set up,
        // and a new input size sets it up again: fused twice, the outputs are wrong (max error 3.0 on the
        // box sizes). Unfused, a network fed 640x480, then 640x352, then 640x480 gives exactly a fresh
        // network's outputs at each size, and a forward takes the same time (90 against 90 ms).
        d->net.enableFusion(false);
        d->outputs = d->net.getUnconnectedOutLayersNames();
        if (d->outputs.size() != 4) throw std::runtime_error("not a CenterFace model (expected 4 outputs)");
        // ONNX output order is heatmap 537, scale 538, offset 539, landmarks 540; sort to be sure.
        std::sort(d->outputs.begin(), d->outputs.end());
        return d.release();
    });
}

extern "C" aocv_face_detector *aocv_haar_create(const char *cascade_path, aocv_status *status) {
    return aocv_guard<aocv_face_detector *>(status, nullptr, [&]() -> aocv_face_detector * {
        auto d = std::make_unique<aocv_face_detector>();
        d->kind = aocv_face_detector::Kind::haar;
        if (!d->cascade.load(cascade_path) || d->cascade.empty())
            throw std::runtime_error(std::string("cannot load Haar cascade: ") + cascade_path);
        return d.release();
    });
}

extern "C" void aocv_face_detector_free(aocv_face_detector *detector) { delete detector; }

extern "C" int aocv_detect_faces(aocv_face_detector *detector, const aocv_mat *image, int original_width, int original_height,
                                 int input_width, int input_height, double threshold, aocv_face *out, int capacity,
                                 aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        const cv::Mat &m = image->m;
        if (m.empty() || m.depth() != CV_8U) throw std::runtime_error("faces: need a non-empty 8-bit image");
        const cv::Size original = original_width > 0 && original_height > 0 ? cv::Size(original_width, original_height) : m.size();
        if (detector->kind == aocv_face_detector::Kind::haar && original != m.size())
            throw std::runtime_error("faces: the Haar cascade reads the image itself, not a reduction");
        const std::vector<Face> faces = detector->kind == aocv_face_detector::Kind::centerface
                                            ? detectCenterFace(*detector, m, original, aocv_network_input(input_width, input_height, "faces"), threshold)
                                            : detectHaar(*detector, m, threshold);
        return emit(faces, out, capacity);
    });
}
