// Text regions: the pixel work around PP-OCRv4's DB text detector, which runs on ONNX Runtime (see
// aocv_text_region_planes and aocv_text_regions_from_map).
#include "aocv_internal.hpp"
#include "include/aocv_detect.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

extern "C" int aocv_text_region_planes(const aocv_mat *image, int original_width, int original_height, int input_width, int input_height,
                                       float *out, size_t capacity, int *fitted_width, int *fitted_height, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        if (image->m.empty()) throw std::runtime_error("text regions: the image is empty");
        const cv::Size input = aocv_network_input(input_width, input_height, "text regions");
        if (capacity < (size_t)3 * input.area()) throw std::runtime_error("text regions: the input tensor is too small");
        const cv::Size original = original_width > 0 && original_height > 0 ? cv::Size(original_width, original_height) : image->m.size();
        const aocv_letterboxed lb = aocv_letterbox(image->m, input, cv::Scalar(), original);
        // PaddleOCR's preprocessing: BGR, /255, minus the ImageNet mean, divided by its deviation.
        const double mean[3] = {0.485, 0.456, 0.406}, deviation[3] = {0.229, 0.224, 0.225};
        const size_t plane = (size_t)input.area();
        for (int y = 0; y < input.height; ++y) {
            const uchar *row = lb.canvas.ptr<uchar>(y);
            for (int x = 0; x < input.width; ++x)
                for (int c = 0; c < 3; ++c)
                    out[c * plane + (size_t)y * input.width + x] = (float)((row[3 * x + c] / 255.0 - mean[c]) / deviation[c]);
        }
        *fitted_width = lb.fitted.width;
        *fitted_height = lb.fitted.height;
        return 0;
    });
}

extern "C" int aocv_text_regions_from_map(const float *map, int map_width, int map_height, int fitted_width, int fitted_height,
                                          int original_width, int original_height, double threshold, int min_side, int min_area,
                                          aocv_box *out, int capacity, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        if (map_width < 1 || map_height < 1 || fitted_width < 1 || fitted_height < 1 || fitted_width > map_width || fitted_height > map_height ||
            original_width < 1 || original_height < 1)
            throw std::runtime_error("text regions: inconsistent sizes");
        const cv::Mat prob(map_height, map_width, CV_32F, const_cast<float *>(map));
        cv::Mat binary = prob(cv::Rect(0, 0, fitted_width, fitted_height)) > threshold;
        // Small print (capitals of 3-4 map pixels: 20 px in a 12 MP photo) comes out of the network as
        // rows of fragments one to three pixels tall, each too small to tell from texture; closed by
        // two pixels across and one up and down, a line's fragments join into one region of its
        // length, which the size filter below keeps.
        cv::dilate(binary, binary, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 3)));
        cv::Mat labels, stats, centroids;
        const int n = cv::connectedComponentsWithStats(binary, labels, stats, centroids, 8, CV_32S);
        const double sx = (double)original_width / fitted_width, sy = (double)original_height / fitted_height;
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
