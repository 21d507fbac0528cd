// Drawing observations onto the annotated PNG. Drawing never fails the image: errors are swallowed.
#include "aocv_internal.hpp"
#include <opencv2/imgproc.hpp>
#include <cmath>
#include <vector>

static cv::Scalar bgr(uint8_t r, uint8_t g, uint8_t b) { return cv::Scalar(b, g, r); }

extern "C" void aocv_draw_polyline(aocv_mat *mat, const double *points, int count, int closed, uint8_t r,
                                   uint8_t g, uint8_t b, int thickness) {
    try {
        if (count < 2) return;
        constexpr int shift = 4; // sub-pixel precision
        std::vector<cv::Point> pts;
        pts.reserve(count);
        for (int i = 0; i < count; ++i)
            pts.emplace_back((int)std::lround(points[2 * i] * (1 << shift)),
                             (int)std::lround(points[2 * i + 1] * (1 << shift)));
        cv::polylines(mat->m, pts, closed != 0, bgr(r, g, b), std::max(1, thickness), cv::LINE_AA, shift);
    } catch (...) {}
}

extern "C" void aocv_fill_rect(aocv_mat *mat, int x, int y, int width, int height, uint8_t value) {
    try {
        cv::Rect box = cv::Rect(x, y, width, height) & cv::Rect(0, 0, mat->m.cols, mat->m.rows);
        if (!box.empty()) mat->m(box).setTo(cv::Scalar::all(value));
    } catch (...) {}
}

extern "C" void aocv_draw_circle(aocv_mat *mat, double x, double y, double radius, uint8_t r, uint8_t g,
                                 uint8_t b, int thickness) {
    try {
        constexpr int shift = 4;
        cv::circle(mat->m, cv::Point((int)std::lround(x * 16), (int)std::lround(y * 16)),
                   (int)std::lround(radius * 16), bgr(r, g, b), thickness < 0 ? cv::FILLED : thickness,
                   cv::LINE_AA, shift);
    } catch (...) {}
}

extern "C" void aocv_label_size(const char *text, double scale, double *width, double *height) {
    *width = 0;
    *height = 0;
    try {
        const int thickness = std::max(1, (int)std::lround(scale * 1.5));
        int baseline = 0;
        const cv::Size size = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, scale, thickness, &baseline);
        const int pad = std::max(2, (int)std::lround(scale * 4));
        *width = size.width + 2 * pad;
        *height = size.height + baseline + 2 * pad;
    } catch (...) {}
}

extern "C" void aocv_draw_label(aocv_mat *mat, const char *text, double x, double y, double scale, uint8_t r,
                                uint8_t g, uint8_t b) {
    try {
        const int font = cv::FONT_HERSHEY_SIMPLEX;
        const int thickness = std::max(1, (int)std::lround(scale * 1.5));
        int baseline = 0;
        const cv::Size size = cv::getTextSize(text, font, scale, thickness, &baseline);
        const int pad = std::max(2, (int)std::lround(scale * 4));
        int left = (int)std::lround(x), top = (int)std::lround(y);
        left = std::max(0, std::min(left, mat->m.cols - size.width - 2 * pad));
        top = std::max(0, std::min(top, mat->m.rows - size.height - baseline - 2 * pad));
        cv::rectangle(mat->m, cv::Rect(left, top, size.width + 2 * pad, size.height + baseline + 2 * pad),
                      bgr(r, g, b), cv::FILLED);
        const double luminance = 0.299 * r + 0.587 * g + 0.114 * b;
        const cv::Scalar ink = luminance > 140 ? cv::Scalar(0, 0, 0) : cv::Scalar(255, 255, 255);
        cv::putText(mat->m, text, cv::Point(left + pad, top + pad + size.height), font, scale, ink, thickness,
                    cv::LINE_AA);
    } catch (...) {}
}
