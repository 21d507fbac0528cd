// Horizon detection (see aocv_detect_horizon).
#include "aocv_internal.hpp"
#include "include/aocv_detect.h"
#include <vector>



extern "C" int aocv_detect_horizon(const aocv_mat *gray, aocv_horizon *out, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        const cv::Mat &source = gray->m;
        if (source.channels() != 1) throw std::runtime_error("aocv_detect_horizon needs a gray image");
        if (source.cols < 32 || source.rows < 32) return 0;
        // A small copy: a horizon is a large structure.
        const double scale = 320.0 / std::max(source.cols, source.rows);
        cv::Mat work;
        cv::resize(source, work, cv::Size(std::max(16, (int)std::lround(source.cols * scale)), std::max(16, (int)std::lround(source.rows * scale))),
                   0, 0, cv::INTER_AREA);
        cv::GaussianBlur(work, work, cv::Size(3, 3), 0);
        cv::Mat valid(work.size(), CV_8UC1, cv::Scalar(255));
        const cv::Point2f centre(work.cols / 2.0f, work.rows / 2.0f);
        const int band = std::max(3, work.rows / 25);
        struct Best { double score = 0, angle = 0, row = 0, support = 0, contrast = 0, regions = 0; } best;
        auto search = [&](double from, double to, double stepDegrees) {
            for (double angle = from; angle <= to + 1e-9; angle += stepDegrees) {
                // Turn the copy so that a horizon at `angle` becomes a row.
                const cv::Mat m = cv::getRotationMatrix2D(centre, -angle, 1.0);
                cv::Mat turned, mask;
                cv::warpAffine(work, turned, m, work.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0));
                cv::warpAffine(valid, mask, m, work.size(), cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
                // Per column, cumulative sums down the rows (valid pixels only).
                cv::Mat values, counts;
                turned.convertTo(values, CV_32F);
                mask.convertTo(counts, CV_32F, 1.0 / 255);
                values = values.mul(counts);
                cv::Mat cv, cc;
                cv::integral(values, cv, CV_64F);
                cv::integral(counts, cc, CV_64F);
                const int margin = std::max(band + 1, work.rows / 20);
                for (int r = margin; r < work.rows - margin; ++r) {
                    int columns = 0, positive = 0, negative = 0;
                    double total = 0, above = 0, below = 0, aboveN = 0, belowN = 0;
                    for (int x = 0; x < work.cols; ++x) {
                        const double na = cc.at<double>(r, x + 1) - cc.at<double>(r - band, x + 1) - cc.at<double>(r, x) + cc.at<double>(r - band, x);
                        const double nb = cc.at<double>(r + band, x + 1) - cc.at<double>(r, x + 1) - cc.at<double>(r + band, x) + cc.at<double>(r, x);
                        if (na < band * 0.9 || nb < band * 0.9) continue;
                        const double sa = cv.at<double>(r, x + 1) - cv.at<double>(r - band, x + 1) - cv.at<double>(r, x) + cv.at<double>(r - band, x);
                        const double sb = cv.at<double>(r + band, x + 1) - cv.at<double>(r, x + 1) - cv.at<double>(r + band, x) + cv.at<double>(r, x);
                        const double step = sa / na - sb / nb;
                        columns += 1;
                        if (step >= 10) positive += 1;
                        if (step <= -10) negative += 1;
                        total += step;
                        // The whole regions above and below, for the region test.
                        const double colAboveN = cc.at<double>(r, x + 1) - cc.at<double>(r, x);
                        const double colBelowN = cc.at<double>(work.rows, x + 1) - cc.at<double>(r, x + 1) - cc.at<double>(work.rows, x) + cc.at<double>(r, x);
                        above += cv.at<double>(r, x + 1) - cv.at<double>(r, x);
                        aboveN += colAboveN;
                        below += cv.at<double>(work.rows, x + 1) - cv.at<double>(r, x + 1) - cv.at<double>(work.rows, x) + cv.at<double>(r, x);
                        belowN += colBelowN;
                    }
                    // The line must cross nearly the whole width of the image.
                    if (columns < work.cols * 0.8) continue;
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
        out->x2 = source.cols - 1;
        out->y2 = out->y1 + slope * (source.cols - 1);
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
