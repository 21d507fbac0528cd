// Text regions: PP-OCRv4's DB text detector through cv::dnn (see aocv_detect_text_regions).
#include "aocv_internal.hpp"
#include "include/aocv_detect.h"
#include <opencv2/dnn.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

/// One detector, owned by one thread (a cv::dnn::Net is not thread-safe). It runs without layer fusion,
/// so that it takes any input size (MODELS.md pitfall 1: fused, a 4.6 network's outputs are wrong once
/// its input size changes); the convolutions' scalar scales and shifts are folded into their weights by
/// scripts/fetch-models instead, which is what fusion saved (151 against 159 ms a forward at 672x512).
struct aocv_text_detector {
    cv::dnn::Net net;
};

namespace {
/// The probability map for a letterboxed canvas: PaddleOCR's preprocessing (BGR, /255, minus the
/// ImageNet mean, divided by its standard deviation), one forward, the [1,1,H,W] output as [H,W].
cv::Mat probabilities(aocv_text_detector &d, const cv::Mat &canvas) {
    cv::Mat f;
    canvas.convertTo(f, CV_32FC3, 1.0 / 255);
    cv::subtract(f, cv::Scalar(0.485, 0.456, 0.406), f);
    cv::multiply(f, cv::Scalar(1 / 0.229, 1 / 0.224, 1 / 0.225), f);
    d.net.setInput(cv::dnn::blobFromImage(f, 1.0, canvas.size(), cv::Scalar(), /*swapRB*/ false, false));
    cv::Mat out = d.net.forward();
    if (out.total() != canvas.total()) throw std::runtime_error("the text detector's output is not one value per input pixel");
    return cv::Mat(canvas.rows, canvas.cols, CV_32F, out.ptr<float>()).clone();
}
}  // namespace

extern "C" aocv_text_detector *aocv_text_detector_create(const char *onnx_path, aocv_status *status) {
    return aocv_guard<aocv_text_detector *>(status, nullptr, [&]() -> aocv_text_detector * {
        auto d = std::make_unique<aocv_text_detector>();
        d->net = cv::dnn::readNetFromONNX(onnx_path);
        d->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        d->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        d->net.enableFusion(false);
        // No trial forward here: it cost a whole forward (about 200 ms) per worker, and the model is
        // taken by its SHA-256 (a file of another size is never loaded); every forward checks that the
        // output is one value per input pixel.
        if (d->net.empty()) throw std::runtime_error(std::string("cannot load the text detector: ") + onnx_path);
        return d.release();
    });
}

extern "C" void aocv_text_detector_free(aocv_text_detector *detector) { delete detector; }

extern "C" int aocv_detect_text_regions(aocv_text_detector *detector, const aocv_mat *image, int original_width, int original_height,
                                        int input_width, int input_height, double threshold, int min_side, int min_area, aocv_box *out, int capacity, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        if (image->m.empty()) throw std::runtime_error("text regions: the image is empty");
        const cv::Size input = aocv_network_input(input_width, input_height, "text regions");
        const cv::Size original = original_width > 0 && original_height > 0 ? cv::Size(original_width, original_height) : image->m.size();
        const aocv_letterboxed lb = aocv_letterbox(image->m, input, cv::Scalar(), original);
        const cv::Mat prob = probabilities(*detector, lb.canvas);
        cv::Mat binary = prob(cv::Rect(cv::Point(0, 0), lb.fitted)) > threshold;
        // Small print (capitals of 3-4 map pixels: 20 px in a 12 MP photo) comes out of the network as
        // rows of fragments one to three pixels tall, each too small to tell from texture; closed by
        // two pixels across and one up and down, a line's fragments join into one region of its
        // length, which the size filter below keeps.
        cv::dilate(binary, binary, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 3)));
        cv::Mat labels, stats, centroids;
        const int n = cv::connectedComponentsWithStats(binary, labels, stats, centroids, 8, CV_32S);
        const double sx = (double)original.width / lb.fitted.width, sy = (double)original.height / lb.fitted.height;
        int count = 0;
        for (int i = 1; i < n; ++i) {
            const int w = stats.at<int>(i, cv::CC_STAT_WIDTH), h = stats.at<int>(i, cv::CC_STAT_HEIGHT);
            if (std::min(w, h) < min_side || stats.at<int>(i, cv::CC_STAT_AREA) < min_area) continue;
            if (count < capacity) {
                out[count].x = (int)std::floor(stats.at<int>(i, cv::CC_STAT_LEFT) * sx);
                out[count].y = (int)std::floor(stats.at<int>(i, cv::CC_STAT_TOP) * sy);
                out[count].width = (int)std::ceil(w * sx);
                out[count].height = (int)std::ceil(h * sy);
                out[count].score = stats.at<int>(i, cv::CC_STAT_AREA);
                out[count].angle = 0;
            }
            count += 1;
        }
        return count;
    });
}

extern "C" double aocv_glyph_height(const aocv_mat *gray, int *count, aocv_status *status) {
    *count = 0;
    return aocv_guard<double>(status, -1, [&]() -> double {
        const cv::Mat &g = gray->m;
        if (g.empty() || g.type() != CV_8UC1) throw std::runtime_error("glyph height: not an 8-bit gray image");
        cv::Mat ink;
        cv::threshold(g, ink, 0, 255, cv::THRESH_BINARY_INV | cv::THRESH_OTSU);
        // Ink is the minority: light text on a dark ground is inverted.
        if (cv::countNonZero(ink) > (int)(g.total() / 2)) cv::bitwise_not(ink, ink);
        cv::Mat labels, stats, centroids;
        const int n = cv::connectedComponentsWithStats(ink, labels, stats, centroids, 8, CV_32S);
        std::vector<int> heights;
        for (int i = 1; i < n; ++i) {
            const int w = stats.at<int>(i, cv::CC_STAT_WIDTH), h = stats.at<int>(i, cv::CC_STAT_HEIGHT);
            const int area = stats.at<int>(i, cv::CC_STAT_AREA);
            if (h < 4 || h > g.rows / 4 || w > 4 * h || 4 * w < h || 10 * area < w * h) continue;
            heights.push_back(h);
        }
        *count = (int)heights.size();
        if (heights.empty()) return 0;
        std::nth_element(heights.begin(), heights.begin() + heights.size() / 2, heights.end());
        return heights[heights.size() / 2];
    });
}
