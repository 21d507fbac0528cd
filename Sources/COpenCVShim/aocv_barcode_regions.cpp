// Where 1-D barcodes may be (see aocv_barcode_regions).
#include "aocv_internal.hpp"
#include "include/aocv_detect.h"
#include <vector>

extern "C" int aocv_barcode_regions(const aocv_mat *gray, int tile, aocv_box *out, int capacity, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        const cv::Mat &g = gray->m;
        if (g.channels() != 1) throw std::runtime_error("aocv_barcode_regions needs a gray image");
        if (tile < 4) throw std::runtime_error("aocv_barcode_regions: tile under 4 px");
        const int tilesX = g.cols / tile, tilesY = g.rows / tile;
        if (tilesX < 1 || tilesY < 1) return 0;
        cv::Mat gx, gy;
        cv::Sobel(g, gx, CV_32F, 1, 0, 3);
        cv::Sobel(g, gy, CV_32F, 0, 1, 3);
        const cv::Rect whole(0, 0, tilesX * tile, tilesY * tile);
        // Per-tile means (INTER_AREA over whole tiles is an exact box mean).
        auto pool = [&](const cv::Mat &a) {
            cv::Mat m;
            cv::resize(a(whole), m, cv::Size(tilesX, tilesY), 0, 0, cv::INTER_AREA);
            return m;
        };
        const cv::Mat jxx = pool(gx.mul(gx)), jyy = pool(gy.mul(gy)), jxy = pool(gx.mul(gy));
        const cv::Mat mx = pool(gx), my = pool(gy), ax = pool(cv::abs(gx)), ay = pool(cv::abs(gy));
        cv::Mat mask(tilesY, tilesX, CV_8UC1, cv::Scalar(0));
        cv::Mat score(tilesY, tilesX, CV_64FC1, cv::Scalar(0));
        for (int y = 0; y < tilesY; ++y) {
            for (int x = 0; x < tilesX; ++x) {
                const float xx = jxx.at<float>(y, x), yy = jyy.at<float>(y, x), xy = jxy.at<float>(y, x);
                const float energy = xx + yy;
                // Strong edges (RMS Sobel response over 100: about 25 gray levels per pixel)...
                if (energy < 100.0f * 100.0f) continue;
                // ...all along one direction (structure-tensor coherence)...
                const float coherence = std::sqrt((xx - yy) * (xx - yy) + 4 * xy * xy) / energy;
                if (coherence < 0.8f) continue;
                // ...that alternate: dark-to-light as often as light-to-dark, unlike a single step edge.
                const float mean = std::hypot(mx.at<float>(y, x), my.at<float>(y, x));
                const float absolute = std::hypot(ax.at<float>(y, x), ay.at<float>(y, x));
                if (mean > 0.35f * absolute) continue;
                mask.at<uint8_t>(y, x) = 255;
                score.at<double>(y, x) = std::sqrt(energy) * coherence;
            }
        }
        cv::morphologyEx(mask, mask, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
        cv::Mat labels, stats, centroids;
        const int n = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
        std::vector<double> sums(n, 0.0);
        for (int y = 0; y < tilesY; ++y)
            for (int x = 0; x < tilesX; ++x) sums[labels.at<int>(y, x)] += score.at<double>(y, x);
        int count = 0;
        for (int i = 1; i < n; ++i) {
            // A barcode covers at least three tiles; fewer are edges of texture.
            if (stats.at<int>(i, cv::CC_STAT_AREA) < 3) continue;
            if (count < capacity) {
                out[count].x = stats.at<int>(i, cv::CC_STAT_LEFT) * tile;
                out[count].y = stats.at<int>(i, cv::CC_STAT_TOP) * tile;
                out[count].width = stats.at<int>(i, cv::CC_STAT_WIDTH) * tile;
                out[count].height = stats.at<int>(i, cv::CC_STAT_HEIGHT) * tile;
                out[count].score = sums[i];
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
