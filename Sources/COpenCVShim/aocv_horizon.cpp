// Horizon detection (see aocv_detect_horizon).
#include "aocv_internal.hpp"
#include "include/aocv_detect.h"
#include <vector>



extern "C" int aocv_detect_horizon(const aocv_mat *gray, int working_side, int original_width, int original_height, aocv_horizon *out,
                                   aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        const cv::Mat &source = gray->m;
        if (source.channels() != 1) throw std::runtime_error("aocv_detect_horizon needs a gray image");
        // `source` may be a reduction (a halving at least twice the copy) of the image meant.
        const cv::Size original = original_width > 0 && original_height > 0 ? cv::Size(original_width, original_height) : source.size();
        if (working_side < 32) throw std::runtime_error("horizon: the working copy must be at least 32 px");
        if (original.width < 32 || original.height < 32) return 0;
        const double scale = (double)working_side / std::max(original.width, original.height);
        // A strip more than 20 times longer than it is wide has no room for the band search: no horizon.
        if (std::min(original.width, original.height) * scale < 16) return 0;
        const cv::Size size((int)std::lround(original.width * scale), (int)std::lround(original.height * scale));
        // An image smaller than the working copy (an icon) is enlarged to it, so that the search sees the
        // sizes it was made for; a reduction is always at least the copy.
        if (source.size() != original && (source.cols < size.width || source.rows < size.height))
            throw std::runtime_error("horizon: the reduction is smaller than the working copy");
        cv::Mat work;
        aocv_resize_to(source, work, size);
        cv::GaussianBlur(work, work, cv::Size(3, 3), 0);
        cv::Mat valid(work.size(), CV_8UC1, cv::Scalar(255));
        // A border (black bars of a letterboxed frame, a scan's black edge, a white mat) is not part of
        // the scene: rows and columns at the edges that are one flat near-black or near-white colour
        // (deviation under 4, mean under 24 or over 232), up to a fifth of the side, are left out of the
        // search, so their edge with the picture is never taken for a horizon.
        {
            const auto flat = [](const cv::Mat &line) {
                cv::Scalar mean, deviation;
                cv::meanStdDev(line, mean, deviation);
                return deviation[0] < 2 && (mean[0] < 10 || mean[0] > 245);
            };
            int top = 0, bottom = work.rows, left = 0, right = work.cols;
            while (top < work.rows / 5 && flat(work.row(top))) ++top;
            while (bottom > work.rows - work.rows / 5 && flat(work.row(bottom - 1))) --bottom;
            while (left < work.cols / 5 && flat(work.col(left))) ++left;
            while (right > work.cols - work.cols / 5 && flat(work.col(right - 1))) --right;
            // One more pixel each side where a border was found: the blur spreads its edge.
            if (top > 0) top = std::min(work.rows, top + 2);
            if (bottom < work.rows) bottom = std::max(0, bottom - 2);
            if (left > 0) left = std::min(work.cols, left + 2);
            if (right < work.cols) right = std::max(0, right - 2);
            if (bottom - top < work.rows / 2 || right - left < work.cols / 2) return 0;
            valid.setTo(0);
            valid(cv::Rect(left, top, right - left, bottom - top)).setTo(255);
        }
        const cv::Point2f centre(work.cols / 2.0f, work.rows / 2.0f);
        const int band = std::max(3, work.rows / 25);
        const int rows = work.rows, cols = work.cols;
        struct Best { double score = 0, angle = 0, row = 0, support = 0, contrast = 0, regions = 0; } best;
        // Per column, sums down the rows of the turned copy's valid pixels and of their values:
        // sum[r * cols + x] over rows 0..r-1 of column x. Integers (at most 255 × rows), so every
        // difference below is exact, as it was from the double-precision integral images these replace.
        std::vector<int> valueSums((size_t)(rows + 1) * cols), countSums((size_t)(rows + 1) * cols);
        cv::Mat turned, mask;
        auto search = [&](double from, double to, double stepDegrees) {
            for (double angle = from; angle <= to + 1e-9; angle += stepDegrees) {
                // Turn the copy so that a horizon at `angle` becomes a row.
                const cv::Mat m = cv::getRotationMatrix2D(centre, -angle, 1.0);
                cv::warpAffine(work, turned, m, work.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0));
                cv::warpAffine(valid, mask, m, work.size(), cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
                for (int r = 0; r < rows; ++r) {
                    const uchar *t = turned.ptr<uchar>(r), *k = mask.ptr<uchar>(r);
                    const int *v0 = &valueSums[(size_t)r * cols], *c0 = &countSums[(size_t)r * cols];
                    int *v1 = &valueSums[(size_t)(r + 1) * cols], *c1 = &countSums[(size_t)(r + 1) * cols];
                    for (int x = 0; x < cols; ++x) {
                        const int in = k[x] ? 1 : 0;  // the mask is 0 or 255 (nearest-neighbour of a constant)
                        v1[x] = v0[x] + in * t[x];
                        c1[x] = c0[x] + in;
                    }
                }
                const int *vEnd = &valueSums[(size_t)rows * cols], *cEnd = &countSums[(size_t)rows * cols];
                const int margin = std::max(band + 1, rows / 20);
                for (int r = margin; r < rows - margin; ++r) {
                    const int *vTop = &valueSums[(size_t)(r - band) * cols], *vMid = &valueSums[(size_t)r * cols], *vBottom = &valueSums[(size_t)(r + band) * cols];
                    const int *cTop = &countSums[(size_t)(r - band) * cols], *cMid = &countSums[(size_t)r * cols], *cBottom = &countSums[(size_t)(r + band) * cols];
                    const double minimum = band * 0.9;
                    int columns = 0, positive = 0, negative = 0;
                    double total = 0, above = 0, below = 0, aboveN = 0, belowN = 0;
                    for (int x = 0; x < cols; ++x) {
                        const double na = cMid[x] - cTop[x], nb = cBottom[x] - cMid[x];
                        if (na < minimum || nb < minimum) continue;
                        const double sa = vMid[x] - vTop[x], sb = vBottom[x] - vMid[x];
                        const double step = sa / na - sb / nb;
                        columns += 1;
                        if (step >= 10) positive += 1;
                        if (step <= -10) negative += 1;
                        total += step;
                        // The whole regions above and below, for the region test.
                        above += vMid[x];
                        aboveN += cMid[x];
                        below += vEnd[x] - vMid[x];
                        belowN += cEnd[x] - cMid[x];
                    }
                    // The line must cross nearly the whole width of the image.
                    if (columns < cols * 0.8) continue;
                    const double support = (double)std::max(positive, negative) / columns;
                    const double contrast = std::abs(total) / columns;
                    const double regions = (aboveN > 0 && belowN > 0) ? std::abs(above / aboveN - below / belowN) : 0;
                    // Uncapped, so that the fine search can tell apart angles that all pass easily.
                    const double score = support * support * (contrast / 40.0) * std::min(1.0, regions / 30.0);
                    if (score > best.score) best = {score, angle, (double)r, support, contrast, regions};
                }
            }
        };
        search(-35, 35, 1.0);
        const double coarse = best.angle;
        search(coarse - 1, coarse + 1, 0.1);
        // A horizon: a step along at least 85% of the width, between two regions that differ.
        if (best.support < 0.85 || best.contrast < 12 || best.regions < 15) return 0;
        // The row in the turned copy back to the image: the line through that row's centre point.
        const double radians = best.angle * CV_PI / 180.0;
        const double dy = best.row - centre.y;
        // Point on the line (turned back about the centre), then its left and right ends.
        const double px = centre.x - dy * std::sin(radians), py = centre.y + dy * std::cos(radians);
        const double slope = -std::tan(radians);
        const double back = 1.0 / scale;
        out->x1 = 0;
        out->y1 = (py - slope * px) * back;
        out->x2 = original.width - 1;
        out->y2 = out->y1 + slope * (original.width - 1);
        out->angle = best.angle;
        out->confidence = std::min(1.0, best.support * std::min(1.0, best.contrast / 40.0) * std::min(1.0, best.regions / 30.0));
        return 1;
    });
}

extern "C" aocv_mat *aocv_rotate_reflect(const aocv_mat *mat, double degrees, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        const cv::Mat &s = mat->m;
        const cv::Mat forward = cv::getRotationMatrix2D(cv::Point2f(s.cols / 2.0f, s.rows / 2.0f), degrees, 1.0);
        cv::Mat out;
        cv::warpAffine(s, out, forward, s.size(), cv::INTER_LINEAR, cv::BORDER_REFLECT_101);
        return aocv_wrap(std::move(out));
    });
}

extern "C" aocv_mat *aocv_straighten(const aocv_mat *mat, double degrees, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        const cv::Mat &s = mat->m;
        const double t = std::abs(degrees) * CV_PI / 180.0, w = s.cols, h = s.rows;
        // The zoom that makes the turned image cover the whole frame (no empty corners).
        const double zoom = std::max((w * std::cos(t) + h * std::sin(t)) / w, (w * std::sin(t) + h * std::cos(t)) / h);
        const cv::Mat forward = cv::getRotationMatrix2D(cv::Point2f(s.cols / 2.0f, s.rows / 2.0f), degrees, zoom);
        cv::Mat out;
        cv::warpAffine(s, out, forward, s.size(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
        return aocv_wrap(std::move(out));
    });
}
