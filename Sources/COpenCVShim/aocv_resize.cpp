// Box-filter shrinking (INTER_AREA) by a factor that is not a whole number, byte for byte as cv::resize
// does it, in about half the time: see aocv_resize_area.
#include "aocv_internal.hpp"
#include <cfloat>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/// The horizontal pass over one source row. The row's destination values (columns × channels) are
/// summed as if each were a column of a one-channel image: value k = Σ_t S[offset(k, t)]·α(k, t), in
/// OpenCV's order (0 + S·α + S·α + …, no fused multiply-add), `kLanes` values at a time with their
/// offsets and weights stored tap-major within each group of `kLanes` values (`Taps`). Every value's taps are
/// padded to `terms` with weight-0 terms (adding S·0 = +0 to a sum of non-negative terms leaves it
/// unchanged), so every group runs the same loop.
constexpr int kLanes = 8;

struct RowTaps {
    int terms = 0;
    int values = 0;                 // columns × channels
    std::vector<int> offset;        // [(group · terms + t) · kLanes + lane]
    std::vector<float> weight;      // same layout
};

RowTaps rowTaps(const std::vector<std::vector<Tap>> &xtaps, int cn) {
    RowTaps r;
    for (const auto &t : xtaps) r.terms = std::max(r.terms, (int)t.size());
    r.values = (int)xtaps.size() * cn;
    const int groups = (r.values + kLanes - 1) / kLanes;
    r.offset.assign((size_t)groups * r.terms * kLanes, 0);
    r.weight.assign((size_t)groups * r.terms * kLanes, 0.f);
    for (int k = 0; k < groups * kLanes; ++k) {
        // Lanes past the last value repeat the last one (any valid offset) with weight 0.
        const int value = std::min(k, r.values - 1);
        const std::vector<Tap> &t = xtaps[value / cn];
        const int c = value % cn;
        for (int i = 0; i < r.terms; ++i) {
            const size_t at = ((size_t)(k / kLanes) * r.terms + i) * kLanes + k % kLanes;
            r.offset[at] = t[std::min<int>(i, (int)t.size() - 1)].source + c;
            if (i < (int)t.size() && k < r.values) r.weight[at] = t[i].weight;
        }
    }
    return r;
}

void horizontal(const uchar *row, const RowTaps &taps, float *out) {
    const int groups = (taps.values + kLanes - 1) / kLanes;
    float tail[kLanes];
    for (int g = 0; g < groups; ++g) {
        const int *offset = &taps.offset[(size_t)g * taps.terms * kLanes];
        const float *weight = &taps.weight[(size_t)g * taps.terms * kLanes];
        // The last group may hold fewer values than lanes: it is summed into `tail` and copied.
        float *target = (g + 1) * kLanes <= taps.values ? out + (size_t)g * kLanes : tail;
#if defined(__SSE2__)
        __m128 a0 = _mm_setzero_ps(), a1 = _mm_setzero_ps();
        for (int t = 0; t < taps.terms; ++t, offset += kLanes, weight += kLanes) {
            const __m128 s0 = _mm_cvtepi32_ps(_mm_setr_epi32(row[offset[0]], row[offset[1]], row[offset[2]], row[offset[3]]));
            const __m128 s1 = _mm_cvtepi32_ps(_mm_setr_epi32(row[offset[4]], row[offset[5]], row[offset[6]], row[offset[7]]));
            a0 = _mm_add_ps(a0, _mm_mul_ps(s0, _mm_loadu_ps(weight)));
            a1 = _mm_add_ps(a1, _mm_mul_ps(s1, _mm_loadu_ps(weight + 4)));
        }
        _mm_storeu_ps(target, a0);
        _mm_storeu_ps(target + 4, a1);
#else
        float acc[kLanes] = {};
        for (int t = 0; t < taps.terms; ++t, offset += kLanes, weight += kLanes)
            for (int j = 0; j < kLanes; ++j) acc[j] = acc[j] + row[offset[j]] * weight[j];
        for (int j = 0; j < kLanes; ++j) target[j] = acc[j];
#endif
        if (target == tail)
            for (int j = 0; g * kLanes + j < taps.values; ++j) out[(size_t)g * kLanes + j] = tail[j];
    }
}

/// cv::saturate_cast<uchar>(float) of each value: rounded to nearest, ties to even (cvRound), then
/// clamped to 0…255.
void saturate(const float *sum, int count, uchar *d) {
    int x = 0;
#if defined(__SSE2__)
    for (; x + 16 <= count; x += 16) {
        const __m128i i0 = _mm_cvtps_epi32(_mm_loadu_ps(sum + x)), i1 = _mm_cvtps_epi32(_mm_loadu_ps(sum + x + 4));
        const __m128i i2 = _mm_cvtps_epi32(_mm_loadu_ps(sum + x + 8)), i3 = _mm_cvtps_epi32(_mm_loadu_ps(sum + x + 12));
        _mm_storeu_si128((__m128i *)(d + x), _mm_packus_epi16(_mm_packs_epi32(i0, i1), _mm_packs_epi32(i2, i3)));
    }
#endif
    for (; x < count; ++x) d[x] = cv::saturate_cast<uchar>(sum[x]);
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
    const RowTaps taps = rowTaps(xtaps, cn);
    cv::Mat out(dsize, src.type());
    const int width = dsize.width * cn;
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
                horizontal(src.ptr<uchar>(sy), taps, buf);
            }
            const float beta = vt[j].weight;
            // OpenCV starts each destination row's sum as β·row (or 0 + β·row: the same value).
            if (j == 0) for (int x = 0; x < width; ++x) sum[x] = beta * buf[x];
            else for (int x = 0; x < width; ++x) sum[x] += beta * buf[x];
        }
        saturate(sum.data(), width, out.ptr<uchar>(dy));
    }
    dst = out;
}
