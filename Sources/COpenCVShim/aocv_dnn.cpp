// Object detection (YOLO) and image classification with cv::dnn. See include/aocv_dnn.h for the
// contract; the models and the OpenCV 4.6 traps this avoids are in docs/architecture.md ("Networks").
#include "aocv_internal.hpp"
#include "include/aocv_dnn.h"
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

/// One model, owned by one thread: a cv::dnn::Net is not thread-safe, and it is only ever fed `input`.
struct aocv_dnn_model {
    cv::dnn::Net net;
    aocv_dnn_params params;
    cv::Size input;
    std::vector<cv::String> outputs;
    enum class Head { darknet, yolov5, scores } head;  // how the outputs are read (see the header)
    int classes = 0;
    bool softmax = false;                               // classifier: outputs are logits
};

namespace {

using Model = aocv_dnn_model;

/// Candidates below this are noise; it also bounds NMS work when the caller asks for threshold 0.
constexpr double kDetectionFloor = 0.01;

bool endsWith(const std::string &s, const std::string &suffix) {
    if (s.size() < suffix.size()) return false;
    return std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(),
                      [](char a, char b) { return std::tolower((unsigned char)a) == std::tolower((unsigned char)b); });
}

/// The file's bytes, read in one call (an istreambuf_iterator copy went byte by byte: 50 ms for the
/// 24 MB of YOLOv4-tiny's weights).
std::vector<char> readFile(const std::string &path) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) throw std::runtime_error("cannot read " + path);
    const std::streamoff size = f.tellg();
    if (size < 0) throw std::runtime_error("cannot read " + path);
    std::vector<char> bytes((size_t)size);
    f.seekg(0);
    if (size > 0 && !f.read(bytes.data(), size)) throw std::runtime_error("cannot read " + path);
    return bytes;
}

/// Throws a clear "cannot read" when the file cannot be opened and read from.
void checkReadable(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    char byte;
    if (!f || !f.read(&byte, 1)) throw std::runtime_error("cannot read " + path);
}

std::string trim(const std::string &s) {
    const size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

/// Rewrites a Darknet cfg so that every [yolo]/[region] section has `thresh=0`: OpenCV's region layer
/// zeroes class scores below `thresh` (0.2 by default), which would hide the 2nd–5th classes of a box.
std::string zeroRegionThresholds(const std::string &cfg) {
    std::istringstream in(cfg);
    std::ostringstream out;
    std::string line;
    bool region = false;
    while (std::getline(in, line)) {
        const std::string t = trim(line);
        if (!t.empty() && t[0] == '[') {
            region = t == "[yolo]" || t == "[region]";
            out << line << '\n';
            if (region) out << "thresh=0\n";
            continue;
        }
        if (region && t.compare(0, 6, "thresh") == 0 && trim(t.substr(6)).compare(0, 1, "=") == 0) continue;
        out << line << '\n';
    }
    return out.str();
}

/// "[1,25200,85]"
std::string shapeOf(const cv::Mat &m) {
    std::string s = "[";
    for (int i = 0; i < m.dims; ++i) s += (i ? "," : "") + std::to_string(m.size[i]);
    return s + "]";
}

/// Rows × columns of a detection output ([N, K] or [1, N, K]); {0, 0} when it is not one.
std::pair<int, int> rowsOf(const cv::Mat &m) {
    if (m.dims == 2) return {m.size[0], m.size[1]};
    if (m.dims == 3 && m.size[0] == 1) return {m.size[1], m.size[2]};
    return {0, 0};
}

/// The number of class scores of a classifier output ([1, C], [1, C, 1, 1], [1, 1, C]…), or 0.
int scoresOf(const cv::Mat &m) {
    int big = 0;
    for (int i = 0; i < m.dims; ++i) {
        if (m.size[i] == 1) continue;
        if (big) return 0;
        big = m.size[i];
    }
    return m.dims >= 2 && m.size[0] == 1 ? big : 0;
}

/// Decides how to read the outputs (role forced or AUTO) and the class count; throws a message that
/// lists the shapes found when they fit neither reading.
void interpret(Model &m, const std::vector<cv::Mat> &outs, bool darknet) {
    const aocv_dnn_kind role = m.params.role;
    // Detection rows: every output [N, K] or [1, N, K] with the same K >= 6. From ONNX also N > K, which
    // tells a YOLOv5 head [1, 25200, 85] from YOLOv8's transposed [1, 84, 8400] (not understood).
    int columns = -1;
    for (const cv::Mat &o : outs) {
        const auto [rows, cols] = rowsOf(o);
        if (rows <= 1 || cols < 6 || (columns >= 0 && cols != columns) || (!darknet && rows <= cols)) { columns = -1; break; }
        columns = cols;
    }
    const bool detector = !outs.empty() && columns >= 6;
    const int scores = outs.size() == 1 ? scoresOf(outs[0]) : 0;
    const bool classifier = scores >= 2;
    if ((role != AOCV_DNN_CLASSIFIER) && detector) {
        m.head = darknet ? Model::Head::darknet : Model::Head::yolov5;
        m.classes = columns - 5;
    } else if (role != AOCV_DNN_DETECTOR && classifier) {
        m.head = Model::Head::scores;
        m.classes = scores;
    } else {
        std::string found = std::to_string(outs.size()) + (outs.size() == 1 ? " output " : " outputs ");
        for (size_t i = 0; i < outs.size(); ++i) found += (i ? ", " : "") + shapeOf(outs[i]);
        const std::string as = role == AOCV_DNN_DETECTOR ? " as a detector" : role == AOCV_DNN_CLASSIFIER ? " as a classifier" : "";
        const std::string expected = role == AOCV_DNN_DETECTOR ? "YOLO detection rows [N, 5+classes]"
                                   : role == AOCV_DNN_CLASSIFIER ? "class scores [1, classes]"
                                   : "YOLO detection rows [N, 5+classes] or class scores [1, classes]";
        throw std::runtime_error("cannot interpret the model's outputs" + as + ": " + found + "; expected " + expected);
    }
    if (m.params.class_count > 0 && m.params.class_count != m.classes)
        throw std::runtime_error("the model has " + std::to_string(m.classes) + " classes, expected " +
                                 std::to_string(m.params.class_count));
}

/// An image brought to the network's input size, and the map from input pixels back to the image:
/// x_image = x_input * ax + bx, y_image = y_input * ay + by.
struct Prepared {
    cv::Mat canvas;  // 8-bit BGR, exactly the input size
    double ax = 1, bx = 0, ay = 1, by = 0;
};

/// INTER_AREA when shrinking both ways, `enlarge` otherwise.
int interpolation(cv::Size from, cv::Size to, int enlarge) {
    return to.width <= from.width && to.height <= from.height ? cv::INTER_AREA : enlarge;
}

/// `original` is the size of the image the caller means, of which `image` may be a reduction (a
/// power-of-two copy of a large photo, at least twice the network's input where it is read): the
/// canvas is fitted, cropped and mapped back as for the original, only its pixels come from the copy.
Prepared prepare(const cv::Mat &image, const aocv_dnn_params &p, cv::Size input, cv::Size original) {
    Prepared r;
    const bool reduced = original != image.size();
    switch (p.resize) {
    case AOCV_DNN_LETTERBOX: {
        aocv_letterboxed lb = aocv_letterbox(image, input, cv::Scalar::all(127), original);
        r.canvas = lb.canvas;
        r.ax = (double)original.width / lb.fitted.width;
        r.ay = (double)original.height / lb.fitted.height;
        return r;
    }
    case AOCV_DNN_CENTER_CROP: {
        // The largest central region with the input's aspect ratio, times the crop fraction (TF's
        // "crop_padding": side = int(224 / (224 + 32) * min(h, w)) for a square input).
        const double fraction = p.crop_fraction > 0 ? std::min(p.crop_fraction, 1.0) : 0.875;
        const double aspect = (double)input.width / input.height;
        const double w0 = std::min<double>(original.width, original.height * aspect), h0 = w0 / aspect;
        const int cw = std::max(1, std::min(original.width, (int)(w0 * fraction)));
        const int ch = std::max(1, std::min(original.height, (int)(h0 * fraction)));
        const int x0 = (original.width - cw + 1) / 2, y0 = (original.height - ch + 1) / 2;
        // Bicubic as in the reference pipeline, whether shrinking or enlarging; a crop more than 4x the
        // input is first brought to 2x with INTER_AREA (bicubic alone would alias a large photo), and so
        // is the crop of a reduction (chosen at least 2x the input).
        cv::Rect region(x0, y0, cw, ch);
        if (reduced) {
            const double sx = (double)image.cols / original.width, sy = (double)image.rows / original.height;
            const int rx = (int)std::lround(x0 * sx), ry = (int)std::lround(y0 * sy);
            region = cv::Rect(rx, ry, std::max(1, std::min(image.cols - rx, (int)std::lround(cw * sx))),
                              std::max(1, std::min(image.rows - ry, (int)std::lround(ch * sy))));
        }
        cv::Mat crop = image(region);
        if (reduced ? (crop.cols > 2 * input.width && crop.rows > 2 * input.height) : (cw > 4 * input.width && ch > 4 * input.height))
            aocv_resize_area(crop, crop, cv::Size(2 * input.width, 2 * input.height));
        cv::resize(crop, r.canvas, input, 0, 0, cv::INTER_CUBIC);
        r.canvas = aocv_as_bgr(r.canvas);
        r.ax = (double)cw / input.width;
        r.ay = (double)ch / input.height;
        r.bx = x0;
        r.by = y0;
        return r;
    }
    case AOCV_DNN_STRETCH:
    default:
        cv::resize(image, r.canvas, input, 0, 0, interpolation(image.size(), input, cv::INTER_CUBIC));
        r.canvas = aocv_as_bgr(r.canvas);
        r.ax = (double)original.width / input.width;
        r.ay = (double)original.height / input.height;
        return r;
    }
}

/// NCHW float blob of (pixel * scale - mean[c]) / std[c], channels in the network's order.
cv::Mat blobOf(const cv::Mat &canvas, const aocv_dnn_params &p) {
    cv::Mat f;
    canvas.convertTo(f, CV_32FC3, p.scale);
    if (p.swap_rb) cv::cvtColor(f, f, cv::COLOR_BGR2RGB);
    const auto inv = [](double s) { return s > 0 ? 1.0 / s : 1.0; };
    cv::subtract(f, cv::Scalar(p.mean[0], p.mean[1], p.mean[2]), f);
    cv::multiply(f, cv::Scalar(inv(p.std[0]), inv(p.std[1]), inv(p.std[2])), f);
    return cv::dnn::blobFromImage(f);
}

std::vector<cv::Mat> forward(Model &m, const cv::Mat &canvas) {
    m.net.setInput(blobOf(canvas, m.params));
    std::vector<cv::Mat> outs;
    m.net.forward(outs, m.outputs);
    return outs;
}

/// A candidate before NMS, in image pixels.
struct Candidate {
    cv::Rect2d box;
    double score;
    int label;
    const float *row;  // the output row its class scores are read from
    bool objectness;   // multiply the class columns by row[4] (YOLOv5 heads)
    int sequence;      // position in the outputs: the last tie-break
};

/// Best first, ties by box top, left, width, height, then output position: a strict total order.
bool better(const Candidate &a, const Candidate &b) {
    if (a.score != b.score) return a.score > b.score;
    return std::make_tuple(a.box.y, a.box.x, a.box.width, a.box.height, a.sequence) <
           std::make_tuple(b.box.y, b.box.x, b.box.width, b.box.height, b.sequence);
}

std::vector<aocv_detection> detect(Model &m, const cv::Mat &image, cv::Size original, double threshold, double nms) {
    threshold = std::max(threshold, kDetectionFloor);
    nms = std::min(std::max(nms, 0.0), 1.0);
    const Prepared prep = prepare(image, m.params, m.input, original);
    const std::vector<cv::Mat> outs = forward(m, prep.canvas);
    const bool darknet = m.head == Model::Head::darknet;
    // Darknet boxes are normalised to the input, YOLOv5 boxes are in input pixels.
    const double sx = darknet ? m.input.width : 1.0, sy = darknet ? m.input.height : 1.0;
    const cv::Rect2d frame(0, 0, original.width, original.height);
    std::vector<Candidate> candidates;
    for (const cv::Mat &o : outs) {
        const auto [rows, cols] = rowsOf(o);
        if (cols != m.classes + 5) throw std::runtime_error("detector output changed shape: " + shapeOf(o));
        const float *data = o.ptr<float>();
        for (int r = 0; r < rows; ++r) {
            const float *row = data + (size_t)r * cols;
            const double objectness = row[4];
            if (!(objectness >= threshold)) continue;  // a class score is at most the objectness
            int best = 0;
            for (int c = 1; c < m.classes; ++c) if (row[5 + c] > row[5 + best]) best = c;
            const double score = darknet ? row[5 + best] : objectness * row[5 + best];
            if (!(score >= threshold)) continue;
            const double w = row[2] * sx, h = row[3] * sy;
            const double x = row[0] * sx - w / 2, y = row[1] * sy - h / 2;
            // A network's numbers are untrusted (--model): a box that is not finite is no box (and
            // would break the sorts below, whose orderings need comparable numbers).
            if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(w) || !std::isfinite(h) || !std::isfinite(score)) continue;
            cv::Rect2d box(x * prep.ax + prep.bx, y * prep.ay + prep.by, w * prep.ax, h * prep.ay);
            box &= frame;
            if (box.area() <= 0) continue;
            candidates.push_back({box, score, best, row, !darknet, (int)candidates.size()});
        }
    }
    // Class-wise NMS. NMSBoxes gets each candidate's rank in `better` order as its score (exact ties and
    // float roundings of doubles are then broken by box position, not by output order).
    std::sort(candidates.begin(), candidates.end(), better);
    std::map<int, std::vector<int>> byClass;
    for (int i = 0; i < (int)candidates.size(); ++i) byClass[candidates[i].label].push_back(i);
    std::vector<const Candidate *> kept;
    for (const auto &[label, members] : byClass) {
        std::vector<cv::Rect2d> boxes;
        std::vector<float> ranks;
        for (size_t i = 0; i < members.size(); ++i) {
            boxes.push_back(candidates[members[i]].box);
            ranks.push_back((float)(members.size() - i));
        }
        std::vector<int> keep;
        cv::dnn::NMSBoxes(boxes, ranks, 0.0f, (float)nms, keep);
        for (int k : keep) kept.push_back(&candidates[members[k]]);
    }
    std::sort(kept.begin(), kept.end(), [](const Candidate *a, const Candidate *b) {
        if (a->score != b->score) return a->score > b->score;
        if (a->label != b->label) return a->label < b->label;
        return better(*a, *b);
    });
    std::vector<aocv_detection> result;
    for (const Candidate *c : kept) {
        aocv_detection d{};
        d.x = c->box.x; d.y = c->box.y; d.width = c->box.width; d.height = c->box.height;
        d.confidence = c->score;
        std::vector<int> order(m.classes);
        for (int i = 0; i < m.classes; ++i) order[i] = i;
        const auto scoreOf = [&](int i) {
            const double v = c->objectness ? (double)c->row[4] * c->row[5 + i] : (double)c->row[5 + i];
            return std::isfinite(v) ? v : -HUGE_VAL;  // NaN would break the ordering; it ranks last and is cut below
        };
        const int top = std::min(5, m.classes);
        std::partial_sort(order.begin(), order.begin() + top, order.end(), [&](int a, int b) {
            const double sa = scoreOf(a), sb = scoreOf(b);
            return sa != sb ? sa > sb : a < b;
        });
        // order[0] is c->label: both pick the lowest class index among equal scores.
        for (int i = 0; i < top; ++i) {
            const double s = scoreOf(order[i]);
            if (i > 0 && !(s > 0)) break;
            d.labels[d.label_count++] = aocv_class_score{order[i], s};
        }
        result.push_back(d);
    }
    return result;
}

/// Scores ranked best first (ties by class index), the k best: softmax applied to logits; NaN and
/// infinities (an untrusted --model) become the lowest score, so that the softmax and the ordering see
/// only finite values (a NaN breaks std::partial_sort's ordering).
std::vector<aocv_class_score> rank(const float *v, int classes, bool softmax, int k) {
    std::vector<double> p(v, v + classes);
    for (double &x : p) if (!std::isfinite(x)) x = softmax ? -1e300 : 0;
    if (softmax) {
        const double top = *std::max_element(p.begin(), p.end());
        double sum = 0;
        for (double &x : p) sum += (x = std::exp(x - top));
        for (double &x : p) x = sum > 0 && std::isfinite(sum) ? x / sum : 0;
    }
    std::vector<int> order(classes);
    for (int i = 0; i < classes; ++i) order[i] = i;
    const int n = std::min(std::max(k, 0), classes);
    std::partial_sort(order.begin(), order.begin() + n, order.end(),
                      [&](int a, int b) { return p[a] != p[b] ? p[a] > p[b] : a < b; });
    std::vector<aocv_class_score> result;
    for (int i = 0; i < n; ++i) result.push_back({order[i], p[order[i]]});
    return result;
}

/// Logits unless every value is >= 0 and they sum to 1 ± 0.01.
bool areLogits(const float *v, size_t count) {
    double sum = 0, low = 0;
    for (size_t i = 0; i < count; ++i) { sum += v[i]; low = std::min(low, (double)v[i]); }
    return !(low >= 0 && std::abs(sum - 1) <= 0.01);
}

std::vector<aocv_class_score> classify(Model &m, const cv::Mat &image, cv::Size original, int k) {
    const Prepared prep = prepare(image, m.params, m.input, original);
    const std::vector<cv::Mat> outs = forward(m, prep.canvas);
    if (outs.size() != 1 || (int)outs[0].total() != m.classes)
        throw std::runtime_error("classifier output changed shape");
    return rank(outs[0].ptr<float>(), m.classes, m.softmax, k);
}

const cv::Mat &checkedImage(const aocv_mat *image) {
    const cv::Mat &m = image->m;
    if (m.empty() || m.depth() != CV_8U || (m.channels() != 1 && m.channels() != 3 && m.channels() != 4))
        throw std::runtime_error("dnn: need a non-empty 8-bit gray or BGR image");
    return m;
}

/// The size of the image the caller means: `image`'s own, or the original it is a reduction of (which
/// must be at least as large on both sides).
cv::Size originalSize(const cv::Mat &image, int width, int height) {
    if (width <= 0 || height <= 0) return image.size();
    if (width < image.cols || height < image.rows) throw std::runtime_error("dnn: the original is smaller than its reduction");
    return cv::Size(width, height);
}

} // namespace

extern "C" aocv_dnn_model *aocv_dnn_load(const char *model_path, const char *config_path, aocv_dnn_params params,
                                         aocv_status *status) {
    return aocv_guard<aocv_dnn_model *>(status, nullptr, [&]() -> aocv_dnn_model * {
        if (params.input_width < 1 || params.input_height < 1 || params.input_width > 8192 || params.input_height > 8192)
            throw std::runtime_error("model input size must be 1..8192 pixels each way");
        if (params.role != AOCV_DNN_AUTO && params.role != AOCV_DNN_DETECTOR && params.role != AOCV_DNN_CLASSIFIER)
            throw std::runtime_error("unknown model role");
        if (params.resize != AOCV_DNN_STRETCH && params.resize != AOCV_DNN_LETTERBOX && params.resize != AOCV_DNN_CENTER_CROP)
            throw std::runtime_error("unknown resize mode");
        if (!std::isfinite(params.scale) || params.scale == 0) throw std::runtime_error("input scale must be finite and non-zero");
        auto m = std::make_unique<aocv_dnn_model>();
        m->params = params;
        m->input = cv::Size(params.input_width, params.input_height);
        const std::string model = model_path, config = config_path ? config_path : "";
        bool darknet = false;
        if (endsWith(model, ".onnx") && config.empty()) {
            checkReadable(model);  // a clear "cannot read" instead of OpenCV's parser error
            m->net = cv::dnn::readNetFromONNX(model);
        } else if ((endsWith(model, ".weights") && endsWith(config, ".cfg")) ||
                   (endsWith(model, ".cfg") && endsWith(config, ".weights"))) {
            const bool cfgFirst = endsWith(model, ".cfg");
            const std::vector<char> cfgBytes = readFile(cfgFirst ? model : config);
            const std::vector<char> weights = readFile(cfgFirst ? config : model);
            const std::string cfg = zeroRegionThresholds(std::string(cfgBytes.begin(), cfgBytes.end()));
            m->net = cv::dnn::readNetFromDarknet(cfg.data(), cfg.size(), weights.data(), weights.size());
            darknet = true;
        } else {
            throw std::runtime_error("unsupported model files (expected a .onnx, or a .weights with its .cfg): " +
                                     model + (config.empty() ? "" : " + " + config));
        }
        if (m->net.empty()) throw std::runtime_error("cannot load " + model);
        m->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        m->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        m->outputs = m->net.getUnconnectedOutLayersNames();
        std::vector<cv::Mat> outs;
        try {
            outs = forward(*m, cv::Mat::zeros(m->input, CV_8UC3));
        } catch (const cv::Exception &e) {
            throw std::runtime_error("the model fails at input " + std::to_string(m->input.width) + "x" +
                                     std::to_string(m->input.height) + ": " + (e.err.empty() ? e.what() : e.err));
        }
        interpret(*m, outs, darknet);
        if (m->head == aocv_dnn_model::Head::scores) {
            m->softmax = areLogits(outs[0].ptr<float>(), outs[0].total());
        }
        return m.release();
    });
}

extern "C" void aocv_dnn_free(aocv_dnn_model *model) { delete model; }

extern "C" aocv_dnn_kind aocv_dnn_role(const aocv_dnn_model *model) {
    return model->head == aocv_dnn_model::Head::scores ? AOCV_DNN_CLASSIFIER : AOCV_DNN_DETECTOR;
}

extern "C" int aocv_dnn_class_count(const aocv_dnn_model *model) { return model->classes; }

extern "C" int aocv_dnn_detect(aocv_dnn_model *model, const aocv_mat *image, int original_width, int original_height,
                               double score_threshold, double nms_threshold, aocv_detection *out, int capacity, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        if (model->head == aocv_dnn_model::Head::scores) throw std::runtime_error("dnn: this model is a classifier, not a detector");
        const cv::Mat &m = checkedImage(image);
        const std::vector<aocv_detection> found = detect(*model, m, originalSize(m, original_width, original_height), score_threshold, nms_threshold);
        const int n = std::min<int>((int)found.size(), std::max(capacity, 0));
        std::copy(found.begin(), found.begin() + n, out);
        return n;
    });
}

extern "C" int aocv_dnn_classify(aocv_dnn_model *model, const aocv_mat *image, int original_width, int original_height,
                                 aocv_class_score *out, int k, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        if (model->head != aocv_dnn_model::Head::scores) throw std::runtime_error("dnn: this model is a detector, not a classifier");
        const cv::Mat &m = checkedImage(image);
        const std::vector<aocv_class_score> found = classify(*model, m, originalSize(m, original_width, original_height), k);
        std::copy(found.begin(), found.end(), out);
        return (int)found.size();
    });
}

extern "C" int aocv_dnn_input_planes(const aocv_mat *image, int original_width, int original_height, aocv_dnn_params params,
                                     float *out, size_t capacity, aocv_dnn_mapping *mapping, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        if (params.input_width < 1 || params.input_height < 1 || params.input_width > 8192 || params.input_height > 8192)
            throw std::runtime_error("model input size must be 1..8192 pixels each way");
        const cv::Size input(params.input_width, params.input_height);
        if (capacity < (size_t)3 * input.area()) throw std::runtime_error("dnn: the input tensor is too small");
        const cv::Mat &m = checkedImage(image);
        const Prepared prep = prepare(m, params, input, originalSize(m, original_width, original_height));
        const cv::Mat blob = blobOf(prep.canvas, params);
        std::copy(blob.ptr<float>(), blob.ptr<float>() + 3 * input.area(), out);
        if (mapping) *mapping = aocv_dnn_mapping{prep.ax, prep.bx, prep.ay, prep.by};
        return 0;
    });
}

extern "C" int aocv_dnn_rank_classes(const float *values, int count, aocv_class_score *out, int k) {
    if (count <= 0 || k <= 0) return 0;
    const std::vector<aocv_class_score> ranked = rank(values, count, areLogits(values, (size_t)count), k);
    std::copy(ranked.begin(), ranked.end(), out);
    return (int)ranked.size();
}
