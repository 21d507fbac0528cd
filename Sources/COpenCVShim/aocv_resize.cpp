// Box-filter shrinking (INTER_AREA) by a factor that is not a whole number, byte for byte as cv::resize
// does it, in about half the time: see aocv_resize_area.
#include "aocv_internal.hpp"
#include <cfloat>

// Every sum below must be computed exactly as OpenCV computes it: no fused multiply-add.
#pragma clang fp contract(off)

namespace {

/// One term of a destination pixel's sum: the source index (pixels × channels) and its weight.
struct Tap {
    int source;
    float weight;
};

/// OpenCV's computeResizeAreaTab for one axis (resize.cpp, 4.6), grouped by destination index: the
/// same source indices, the same float weights, in the same order. `cn` multiplies the indices.
std::vector<std::vector<Tap>> areaTaps(int ssize, int dsize, int cn, double scale) {
    std::vector<std::vector<Tap>> taps(dsize);
    for (int dx = 0; dx < dsize; dx++) {
        const double fsx1 = dx * scale;
        const double fsx2 = fsx1 + scale;
        const double cellWidth = std::min(scale, ssize - fsx1);
        int sx1 = cvCeil(fsx1), sx2 = cvFloor(fsx2);
        sx2 = std::min(sx2, ssize - 1);
        sx1 = std::min(sx1, sx2);
        if (sx1 - fsx1 > 1e-3) taps[dx].push_back({(sx1 - 1) * cn, (float)((sx1 - fsx1) / cellWidth)});
        for (int sx = sx1; sx < sx2; sx++) taps[dx].push_back({sx * cn, float(1.0 / cellWidth)});
        if (fsx2 - sx2 > 1e-3) taps[dx].push_back({sx2 * cn, (float)(std::min(std::min(fsx2 - sx2, 1.), cellWidth) / cellWidth)});
    }
    return taps;
}

/// `lanes` destination columns from their taps (`terms` each, stored together): 0 + S[a]·α_a + S[b]·α_b + …
/// in OpenCV's order, summed in registers. Several columns at a time give independent chains of
/// additions, which keep the adder busy (one column's sum is a chain, each addition waiting for the last).
template <int cn, int lanes>
void sumColumns(const uchar *row, const int *ix, const float *w, int terms, float *out) {
    float acc[lanes][cn] = {};
    for (int t = 0; t < terms; ++t) {
        for (int j = 0; j < lanes; ++j) {
            const uchar *s = row + ix[j * terms + t];
            const float a = w[j * terms + t];
            for (int c = 0; c < cn; ++c) acc[j][c] = acc[j][c] + s[c] * a;
        }
    }
    for (int j = 0; j < lanes; ++j)
        for (int c = 0; c < cn; ++c) out[j * cn + c] = acc[j][c];
}

/// The horizontal pass over one source row, four columns at a time. Every column's taps are padded to
/// `terms` with weight-0 terms (adding S·0 = +0 to a sum of non-negative terms leaves it unchanged), so
/// every column runs the same short loop.
template <int cn>
void horizontal(const uchar *row, const std::vector<int> &index, const std::vector<float> &weight, int terms, int columns, float *out) {
    int dx = 0;
    for (; dx + 4 <= columns; dx += 4) sumColumns<cn, 4>(row, &index[(size_t)dx * terms], &weight[(size_t)dx * terms], terms, out + dx * cn);
    for (; dx < columns; ++dx) sumColumns<cn, 1>(row, &index[(size_t)dx * terms], &weight[(size_t)dx * terms], terms, out + dx * cn);
}

}  // namespace

void aocv_resize_area(const cv::Mat &src, cv::Mat &dst, cv::Size size, double fx, double fy) {
    // cv::resize's own size and scale arithmetic, to take the same path with the same numbers.
    cv::Size dsize = size;
    double inv_scale_x = fx, inv_scale_y = fy;
    if (dsize.empty()) {
        dsize = cv::Size(cv::saturate_cast<int>(src.cols * fx), cv::saturate_cast<int>(src.rows * fy));
    } else {
        inv_scale_x = (double)dsize.width / src.cols;
        inv_scale_y = (double)dsize.height / src.rows;
    }
    const int cn = src.channels();
    const double scale_x = 1. / inv_scale_x, scale_y = 1. / inv_scale_y;
    const int iscale_x = cv::saturate_cast<int>(scale_x), iscale_y = cv::saturate_cast<int>(scale_y);
    const bool wholeFactors = std::abs(scale_x - iscale_x) < DBL_EPSILON && std::abs(scale_y - iscale_y) < DBL_EPSILON;
    if (src.empty() || dsize.empty() || wholeFactors || scale_x < 1 || scale_y < 1 || src.depth() != CV_8U || (cn != 1 && cn != 3)) {
        // OpenCV's whole-factor path is fast already; everything else is OpenCV's too.
        cv::resize(src, dst, size, fx, fy, cv::INTER_AREA);
        return;
    }
    const std::vector<std::vector<Tap>> xtaps = areaTaps(src.cols, dsize.width, cn, scale_x);
    const std::vector<std::vector<Tap>> ytaps = areaTaps(src.rows, dsize.height, 1, scale_y);
    int terms = 0;
    for (const auto &t : xtaps) terms = std::max(terms, (int)t.size());
    const int columns = dsize.width;
    std::vector<int> index((size_t)terms * columns);
    std::vector<float> weight((size_t)terms * columns, 0.f);
    for (int dx = 0; dx < columns; ++dx) {
        const std::vector<Tap> &t = xtaps[dx];
        for (int k = 0; k < terms; ++k) {
            // Padding repeats the last index (any valid one) with weight 0.
            index[(size_t)dx * terms + k] = t[std::min<int>(k, (int)t.size() - 1)].source;
            if (k < (int)t.size()) weight[(size_t)dx * terms + k] = t[k].weight;
        }
    }
    cv::Mat out(dsize, src.type());
    const int width = columns * cn;
    // Two horizontal rows: a source row on the border of two destination rows is summed once, not twice.
    std::vector<float> rows((size_t)width * 2), sum(width);
    int cachedRow[2] = {-1, -1};
    int next = 0;
    for (int dy = 0; dy < dsize.height; ++dy) {
        const std::vector<Tap> &vt = ytaps[dy];
        for (size_t j = 0; j < vt.size(); ++j) {
            const int sy = vt[j].source;
            float *buf;
            if (cachedRow[0] == sy) {
                buf = &rows[0];
            } else if (cachedRow[1] == sy) {
                buf = &rows[width];
            } else {
                buf = &rows[(size_t)next * width];
                cachedRow[next] = sy;
                next ^= 1;
                const uchar *row = src.ptr<uchar>(sy);
                if (cn == 1) horizontal<1>(row, index, weight, terms, columns, buf);
                else horizontal<3>(row, index, weight, terms, columns, buf);
            }
            const float beta = vt[j].weight;
            // OpenCV starts each destination row's sum as β·row (or 0 + β·row: the same value).
            if (j == 0) for (int x = 0; x < width; ++x) sum[x] = beta * buf[x];
            else for (int x = 0; x < width; ++x) sum[x] += beta * buf[x];
        }
        uchar *d = out.ptr<uchar>(dy);
        for (int x = 0; x < width; ++x) d[x] = cv::saturate_cast<uchar>(sum[x]);
    }
    dst = out;
}
