// Where 1-D barcodes may be (see aocv_barcode_regions).
#include "aocv_internal.hpp"
#include "include/aocv_detect.h"
#include <cmath>
#include <cstdint>
#include <vector>

/// Per-tile sums of the Sobel responses, in one pass over the image (no full-size float images: on a
/// 3 MP copy the pass costs a few milliseconds where pooled float images cost over 50).
struct TileSums {
    int64_t xx = 0, yy = 0, xy = 0;   // structure tensor
    int64_t sx = 0, sy = 0;           // signed responses (they cancel over alternating edges)
    int64_t ax = 0, ay = 0;           // absolute responses
};

extern "C" int aocv_barcode_regions(const aocv_mat *gray, int tile, aocv_box *out, int capacity, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        const cv::Mat &g = gray->m;
        if (g.channels() != 1 || g.depth() != CV_8U) throw std::runtime_error("aocv_barcode_regions needs an 8-bit gray image");
        if (tile < 4 || tile > 256) throw std::runtime_error("aocv_barcode_regions: tile under 4 or over 256 px");
        const int tilesX = g.cols / tile, tilesY = g.rows / tile;
        if (tilesX < 1 || tilesY < 1) return 0;
        // 3x3 Sobel responses: exact integers (at most 1020 in magnitude), so the sums below are exact.
        cv::Mat gx, gy;
        cv::Sobel(g, gx, CV_16S, 1, 0, 3);
        cv::Sobel(g, gy, CV_16S, 0, 1, 3);
        std::vector<TileSums> sums((size_t)tilesX * tilesY);
        for (int y = 0; y < tilesY * tile; ++y) {
            const int16_t *px = gx.ptr<int16_t>(y), *py = gy.ptr<int16_t>(y);
            TileSums *row = &sums[(size_t)(y / tile) * tilesX];
            for (int t = 0; t < tilesX; ++t) {
                int64_t xx = 0, yy = 0, xy = 0, sx = 0, sy = 0, ax = 0, ay = 0;
                for (int x = t * tile, end = x + tile; x < end; ++x) {
                    const int32_t a = px[x], b = py[x];
                    xx += a * a; yy += b * b; xy += a * b;
                    sx += a; sy += b; ax += a < 0 ? -a : a; ay += b < 0 ? -b : b;
                }
                TileSums &s = row[t];
                s.xx += xx; s.yy += yy; s.xy += xy; s.sx += sx; s.sy += sy; s.ax += ax; s.ay += ay;
            }
        }
        const double area = (double)tile * tile;
        cv::Mat mask(tilesY, tilesX, CV_8UC1, cv::Scalar(0));
        cv::Mat score(tilesY, tilesX, CV_64FC1, cv::Scalar(0));
        for (int y = 0; y < tilesY; ++y) {
            for (int x = 0; x < tilesX; ++x) {
                const TileSums &s = sums[(size_t)y * tilesX + x];
                const double xx = s.xx / area, yy = s.yy / area, xy = s.xy / area;
                const double energy = xx + yy;
                // Strong edges (RMS Sobel response over 100: about 25 gray levels per pixel)...
                if (energy < 100.0 * 100.0) continue;
                // ...all along one direction (structure-tensor coherence)...
                const double coherence = std::sqrt((xx - yy) * (xx - yy) + 4 * xy * xy) / energy;
                if (coherence < 0.8) continue;
                // ...that alternate: dark-to-light as often as light-to-dark, unlike a single step edge.
                const double mean = std::hypot(s.sx / area, s.sy / area);
                const double absolute = std::hypot(s.ax / area, s.ay / area);
                if (mean > 0.35 * absolute) continue;
                mask.at<uint8_t>(y, x) = 255;
                score.at<double>(y, x) = std::sqrt(energy) * coherence;
            }
        }
        cv::morphologyEx(mask, mask, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
        cv::Mat labels, stats, centroids;
        const int n = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
        // Per component: its score, and its structure tensor (summed over its tiles) for the direction.
        std::vector<double> scores(n, 0.0), txx(n, 0.0), tyy(n, 0.0), txy(n, 0.0);
        for (int y = 0; y < tilesY; ++y)
            for (int x = 0; x < tilesX; ++x) {
                const int label = labels.at<int>(y, x);
                const TileSums &s = sums[(size_t)y * tilesX + x];
                scores[label] += score.at<double>(y, x);
                txx[label] += (double)s.xx; tyy[label] += (double)s.yy; txy[label] += (double)s.xy;
            }
        int count = 0;
        for (int i = 1; i < n; ++i) {
            // A barcode covers at least three tiles; fewer are edges of texture.
            if (stats.at<int>(i, cv::CC_STAT_AREA) < 3) continue;
            if (count < capacity) {
                out[count].x = stats.at<int>(i, cv::CC_STAT_LEFT) * tile;
                out[count].y = stats.at<int>(i, cv::CC_STAT_TOP) * tile;
                out[count].width = stats.at<int>(i, cv::CC_STAT_WIDTH) * tile;
                out[count].height = stats.at<int>(i, cv::CC_STAT_HEIGHT) * tile;
                out[count].score = scores[i];
                // The dominant gradient direction (across the bars), in degrees in [0, 180): 0 for
                // upright bars, 90 for bars lying along the rows.
                double angle = 0.5 * std::atan2(2 * txy[i], txx[i] - tyy[i]) * 180.0 / M_PI;
                if (angle < 0) angle += 180;
                out[count].angle = angle;
            }
            count += 1;
        }
        return count;
    });
}

extern "C" aocv_mat *aocv_crop(const aocv_mat *mat, int x, int y, int width, int height, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        const cv::Rect r = cv::Rect(x, y, width, height) & cv::Rect(0, 0, mat->m.cols, mat->m.rows);
        if (r.width <= 0 || r.height <= 0) throw std::runtime_error("crop outside the image");
        return aocv_wrap(mat->m(r).clone());
    });
}
