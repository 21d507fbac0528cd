// The pixel work of network text reading: see include/aocv_text_lines.h. Decisions (thresholds, which
// lines to read, how to read them) are the caller's; this file follows PaddleOCR's own pre- and
// post-processing, which the networks were trained with.
#include "aocv_internal.hpp"
#include <climits>
#include "include/aocv_text_lines.h"
#include <stdexcept>

namespace {

/// Writes `bgr` (already out_width × out_height, 8-bit BGR) as planes into `out`, `stride` floats a row.
void write_planes(const cv::Mat &bgr, const double mean[3], const double std[3], float *out, int stride, int rows) {
    const size_t plane = (size_t)rows * stride;
    for (int c = 0; c < 3; ++c) {
        const float a = (float)(1.0 / (255.0 * std[c])), b = (float)(-mean[c] / std[c]);
        for (int r = 0; r < bgr.rows; ++r) {
            const uchar *p = bgr.ptr<uchar>(r);
            float *o = out + c * plane + (size_t)r * stride;
            for (int x = 0; x < bgr.cols; ++x) o[x] = p[3 * x + c] * a + b;
        }
    }
}

/// The four corners of a turned rectangle in PaddleOCR's order (get_mini_boxes): of the two leftmost
/// points the upper is top-left, the lower bottom-left; of the two rightmost the upper is top-right.
void ordered_corners(const cv::RotatedRect &r, cv::Point2f out[4]) {
    cv::Point2f p[4];
    r.points(p);
    std::sort(p, p + 4, [](const cv::Point2f &a, const cv::Point2f &b) { return a.x < b.x; });
    const cv::Point2f &tl = p[0].y <= p[1].y ? p[0] : p[1], &bl = p[0].y <= p[1].y ? p[1] : p[0];
    const cv::Point2f &tr = p[2].y <= p[3].y ? p[2] : p[3], &br = p[2].y <= p[3].y ? p[3] : p[2];
    out[0] = tl; out[1] = tr; out[2] = br; out[3] = bl;
}

/// The mean of `map` inside the quadrilateral `q` (DB's box_score_fast).
double mean_inside(const cv::Mat &map, const cv::Point2f q[4]) {
    float x0 = q[0].x, x1 = q[0].x, y0 = q[0].y, y1 = q[0].y;
    for (int i = 1; i < 4; ++i) { x0 = std::min(x0, q[i].x); x1 = std::max(x1, q[i].x); y0 = std::min(y0, q[i].y); y1 = std::max(y1, q[i].y); }
    const int left = std::clamp((int)std::floor(x0), 0, map.cols - 1), right = std::clamp((int)std::ceil(x1), 0, map.cols - 1);
    const int top = std::clamp((int)std::floor(y0), 0, map.rows - 1), bottom = std::clamp((int)std::ceil(y1), 0, map.rows - 1);
    cv::Mat mask = cv::Mat::zeros(bottom - top + 1, right - left + 1, CV_8U);
    std::vector<cv::Point> poly;
    for (int i = 0; i < 4; ++i) poly.emplace_back((int)std::lround(q[i].x - left), (int)std::lround(q[i].y - top));
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{poly}, cv::Scalar(1));
    return cv::mean(map(cv::Rect(left, top, right - left + 1, bottom - top + 1)), mask)[0];
}

}  // namespace

extern "C" int aocv_network_planes(const aocv_mat *image, int x, int y, int width, int height, int out_width, int out_height,
                                   const double mean[3], const double std[3], float *out, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        if (image->m.empty()) throw std::runtime_error("network input: the image is empty");
        if (out_width <= 0 || out_height <= 0 || out_width > 8192 || out_height > 8192) throw std::runtime_error("network input: bad size");
        cv::Rect part = width > 0 && height > 0 ? cv::Rect(x, y, width, height) : cv::Rect(0, 0, image->m.cols, image->m.rows);
        part &= cv::Rect(0, 0, image->m.cols, image->m.rows);
        if (part.empty()) throw std::runtime_error("network input: the part is outside the image");
        cv::Mat resized;
        const cv::Mat source = aocv_as_bgr(image->m(part));
        const bool shrinking = out_width < part.width && out_height < part.height;
        if (shrinking) aocv_resize_area(source, resized, cv::Size(out_width, out_height));
        else cv::resize(source, resized, cv::Size(out_width, out_height), 0, 0, cv::INTER_LINEAR);
        write_planes(resized, mean, std, out, out_width, out_height);
        return 0;
    });
}

extern "C" int aocv_text_lines_from_map(const float *map, int map_width, int map_height, double threshold, double box_threshold,
                                        double unclip_ratio, int min_side, double scale_x, double scale_y, double offset_x,
                                        double offset_y, int image_width, int image_height, aocv_quad *out, int capacity,
                                        aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        if (map_width <= 0 || map_height <= 0) throw std::runtime_error("text lines: empty map");
        const cv::Mat prob(map_height, map_width, CV_32F, const_cast<float *>(map));
        cv::Mat binary = prob > threshold;
        cv::dilate(binary, binary, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2, 2)));
        std::vector<std::vector<cv::Point>> contours;
        cv::findContours(binary, contours, cv::RETR_LIST, cv::CHAIN_APPROX_SIMPLE);
        struct found { aocv_quad quad; double area; };
        std::vector<found> lines;
        // PaddleOCR looks at no more than 1000 candidates.
        const size_t candidates = std::min<size_t>(contours.size(), 1000);
        for (size_t i = 0; i < candidates; ++i) {
            if (contours[i].size() < 3) continue;
            cv::RotatedRect box = cv::minAreaRect(contours[i]);
            if (std::min(box.size.width, box.size.height) < min_side) continue;
            cv::Point2f q[4];
            ordered_corners(box, q);
            const double score = mean_inside(prob, q);
            if (score < box_threshold) continue;
            const double w = box.size.width, h = box.size.height;
            const double grow = w * h * unclip_ratio / (2 * (w + h));
            cv::RotatedRect grown(box.center, cv::Size2f((float)(w + 2 * grow), (float)(h + 2 * grow)), box.angle);
            if (std::min(grown.size.width, grown.size.height) < min_side + 2) continue;
            ordered_corners(grown, q);
            found f;
            for (int k = 0; k < 4; ++k) {
                f.quad.x[k] = std::clamp(std::round(q[k].x * scale_x + offset_x), 0.0, (double)image_width);
                f.quad.y[k] = std::clamp(std::round(q[k].y * scale_y + offset_y), 0.0, (double)image_height);
            }
            f.quad.confidence = score;
            f.area = grown.size.width * grown.size.height;
            lines.push_back(f);
        }
        std::stable_sort(lines.begin(), lines.end(), [](const found &a, const found &b) { return a.area > b.area; });
        const int n = (int)lines.size();
        for (int i = 0; i < n && i < capacity; ++i) out[i] = lines[i].quad;
        return n;
    });
}

extern "C" int aocv_text_line_planes(const aocv_mat *image, const aocv_quad *quad, int height, int min_width, int max_width,
                                     double vertical_ratio, int half_turn, int *turned, float *out, int stride, aocv_status *status) {
    *turned = 0;
    return aocv_guard<int>(status, -1, [&]() -> int {
        if (image->m.empty()) throw std::runtime_error("text line: the image is empty");
        if (height <= 0 || max_width <= 0 || stride < max_width || min_width > max_width) throw std::runtime_error("text line: bad size");
        cv::Point2f src[4];
        for (int k = 0; k < 4; ++k) src[k] = cv::Point2f((float)quad->x[k], (float)quad->y[k]);
        const int w = (int)std::max(cv::norm(src[0] - src[1]), cv::norm(src[2] - src[3]));
        const int h = (int)std::max(cv::norm(src[0] - src[3]), cv::norm(src[1] - src[2]));
        if (w < 1 || h < 1 || (double)w * h > 64e6) throw std::runtime_error("text line: degenerate or huge box");
        cv::Mat source = image->m;
        int cw = w, ch = h;
        // OpenCV's warps take images under 32767 px a side: in a longer strip (a panorama, a receipt
        // roll) the line is cut out with a margin first, and shrunk when it is that long itself.
        constexpr int kWarpLimit = SHRT_MAX - 1;
        if (source.cols >= kWarpLimit || source.rows >= kWarpLimit || w >= kWarpLimit || h >= kWarpLimit) {
            const cv::Rect box = cv::boundingRect(std::vector<cv::Point2f>(src, src + 4));
            const cv::Rect roi = (box + cv::Size(6, 6) - cv::Point(3, 3)) & cv::Rect(0, 0, source.cols, source.rows);
            if (roi.empty()) throw std::runtime_error("text line: the box lies outside the image");
            const double shrink = std::min(1.0, (kWarpLimit - 1) / (double)std::max({roi.width, roi.height, w, h}));
            if (shrink < 1.0) {
                cv::resize(source(roi), source, cv::Size(), shrink, shrink, cv::INTER_AREA);
                cw = std::max(1, (int)(w * shrink));
                ch = std::max(1, (int)(h * shrink));
            } else {
                source = source(roi);
            }
            for (auto &p : src) p = cv::Point2f((float)((p.x - roi.x) * shrink), (float)((p.y - roi.y) * shrink));
        }
        const cv::Point2f dst[4] = {{0, 0}, {(float)cw, 0}, {(float)cw, (float)ch}, {0, (float)ch}};
        cv::Mat crop;
        cv::warpPerspective(aocv_as_bgr(source), crop, cv::getPerspectiveTransform(src, dst), cv::Size(cw, ch), cv::INTER_CUBIC,
                            cv::BORDER_REPLICATE);
        if ((double)h / w >= vertical_ratio) {
            // A vertical line: a quarter turn counter-clockwise, as PaddleOCR (np.rot90); one written
            // bottom to top comes out upside down, which the direction classifier turns.
            cv::rotate(crop, crop, cv::ROTATE_90_COUNTERCLOCKWISE);
            *turned = 1;
        }
        if (half_turn) cv::rotate(crop, crop, cv::ROTATE_180);
        const int columns = std::clamp((int)std::ceil(height * (double)crop.cols / crop.rows), std::max(1, min_width), max_width);
        cv::Mat resized;
        cv::resize(crop, resized, cv::Size(columns, height), 0, 0, cv::INTER_LINEAR);
        std::fill(out, out + (size_t)3 * height * stride, 0.0f);
        const double mean[3] = {0.5, 0.5, 0.5}, std[3] = {0.5, 0.5, 0.5};
        write_planes(resized, mean, std, out, stride, height);
        return columns;
    });
}
