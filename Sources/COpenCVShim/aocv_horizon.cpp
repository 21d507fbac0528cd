// Horizon detection (see aocv_detect_horizon).
#include "aocv_internal.hpp"
#include "include/aocv_detect.h"
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace {

// The search's constants. Chosen on the development set (eval/horizon/evaluate-horizon; docs/benchmarks.md).
constexpr double kMaxAngle = 25;        // degrees searched either way of level
constexpr double kFineStep = 0.25;      // the fine search around the best line, degrees
constexpr int kBand = 3;                // rows averaged on each side of a line for its step
constexpr double kMinSpan = 0.60;       // a line crosses at least this share of the content's width
constexpr double kEdgeMargin = 0.05;    // ... and keeps this share of the height from its top and bottom
constexpr double kMinCoherence = 0.55;  // |mean step| / mean |step| along the line: one polarity
constexpr double kCoherencePower = 4;   // rank: mean step × coherence^4
constexpr int kCandidates = 24;         // lines kept after suppression (a faint horizon under 12 stronger edges)
constexpr double kMinScore = 4;         // below this the best line is no horizon (Lab units)
constexpr float kBorderDeviation = 4;   // a side row or column flatter than this (L*) is a border
constexpr double kBorderShare = 0.25;   // ... up to this share of the side
constexpr double kCornerDeviation = 10; // an empty corner's pixels differ from its corner pixel by less (8-bit levels) ...
constexpr int kCornerLeg = 4;           // ... its two sides along the picture's edges are at least this long (px)
constexpr double kCornerShare = 0.99;   // ... and at most this share of the side (a bar is the whole side)
constexpr double kCornerSpill = 0.1;    // ... the runs of its colour ending beyond its edge are at most this share
constexpr int kCornerMargin = 3;        // its edge and this many px beyond it are not the scene
constexpr double kCornerStep = 25;      // the picture just beyond that edge differs from the corner by more
constexpr double kFrameMargin = 0.18;   // a frame's sides lie in these outer shares of the picture
constexpr double kFrameStep = 4.2;      // ... each a mean step of at least this (L*)
constexpr int kStrips = 8;              // a row is also measured in this many strips across ...
constexpr int kStripsCounted = 3;       // ... counting its best ones: a horizon a monument hides
constexpr int kRanked = 12;             // with a sky map: the best lines of each measure that are judged
constexpr double kSkyWeight = 2;        // log(score / best) + kSkyWeight × agreement with the sky map
constexpr double kMinGroundBelow = 0.5; // a horizon has ground or water below it (the map's mean) ...
constexpr double kMinSkyAbove = 0.6;    // ... and sky above it (the map's mean) ...
constexpr double kStrongStep = 8;       // ... unless its step scores this much (a hazy sky the map misreads)
constexpr double kMinSkyNext = 0.2;     // ... and, on the snapped map, sky next to it above (the band of
constexpr double kSkyNextShare = 1.0 / 3; // kFineBand), unless that is at least this share of the sky above it
constexpr int kGuideRadius = 12;        // the sky map snapped to the picture's edges: the guided filter's radius (px of the copy)
constexpr double kGuideEps = 1e-3;      // ... and its regularisation (colours 0-1)
constexpr double kFineSkyWeight = 6;    // + kFineSkyWeight × agreement of the snapped map next to the line ...
constexpr double kFineBand = 0.05;      // ... in bands of this share of the height on each side ...
constexpr double kFineGap = 0.01;       // ... this share of the height away from the line
constexpr double kFitDegrees = 3;       // the line is refitted to its edge points within this turn ...
constexpr double kFitReach = 0.04;      // ... taking them within this share of the height of it ...
constexpr double kFitMinStep = 2;       // ... where a column's strongest step of its polarity is at least this (Lab)
constexpr int kFitGap = 8;              // ... along the longest run of them, gaps of up to this many columns bridged
constexpr double kFitLonger = 1.5;      // ... and only when that run is this much longer than the line's own
constexpr double kFitAgreement = 0.02;  // the refitted line's agreement next to it with the snapped sky map may be this much lower

/// A step's weight per channel of the 8-bit Lab copy: L* brought back from 8-bit units, and the mean of
/// the kBand rows on each side.
constexpr float kStepWeights[3] = {100.0f / 255.0f / kBand, 1.0f / kBand, 1.0f / kBand};

/// One row of the turned copy: the mean colour step across it (the band above minus the band below),
/// how coherent the steps are, and whether it may be a horizon.
struct RowStep {
    double edge = 0, coherence = 0;
    bool good = false;
    /// The same over the row's kStripsCounted best strips (along its mean colour step).
    double stripEdge = 0, stripCoherence = 0;
    bool stripGood = false;
};

struct Turned {
    cv::Mat forward;  // the rotation that makes lines at `angle` rows
    std::vector<RowStep> rows;
};

/// Turns the copy by `angle` and measures every row: at each column the step is the mean of the
/// `kBand` rows above minus the mean of the `kBand` rows below, counted where all of them are picture
/// (the mask eroded by the band). The steps, their magnitudes and the rows' and strips' sums are taken
/// in one pass over the turned copy (it is the search's inner loop: 60 turns a photo).
///
/// `lab` is the copy in OpenCV's 8-bit Lab (L* × 2.55, a* and b* + 128): turning 8-bit pixels costs
/// half as much as floats, and the steps come back in Lab units.
Turned measure(const cv::Mat &lab, const cv::Mat &valid, double angle, double contentWidth, bool withStrips) {
    const int h = lab.rows, w = lab.cols;
    Turned t;
    t.forward = cv::getRotationMatrix2D(cv::Point2f(w / 2.0f, h / 2.0f), angle, 1.0);
    cv::Mat turned, mask;
    cv::warpAffine(lab, turned, t.forward, lab.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar::all(0));
    cv::warpAffine(valid, mask, t.forward, valid.size(), cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
    cv::Mat inside;
    cv::erode(mask, inside, cv::Mat::ones(2 * kBand + 1, 1, CV_8U), cv::Point(0, kBand), 1, cv::BORDER_CONSTANT, cv::Scalar(0));
    t.rows.assign(h, RowStep());
    int top = -1, bottom = -1;
    for (int r = 0; r < h; ++r)
        if (cv::countNonZero(mask.row(r)) > 0) {
            if (top < 0) top = r;
            bottom = r;
        }
    if (top < 0) return t;
    const float *weights = kStepWeights;
    int stripStart[kStrips + 1];
    for (int k = 0; k <= kStrips; ++k) stripStart[k] = k * w / kStrips;
    const double margin = kEdgeMargin * (bottom - top);
    // Each column's and channel's sum of the kBand rows above the row and of the kBand rows below it,
    // carried from row to row; and the row's steps and their magnitudes (0 where not counted).
    const int values = 3 * w;
    std::vector<int> above(values, 0), below(values, 0);
    for (int d = 0; d < kBand; ++d) {
        const uchar *a = turned.ptr<uchar>(d), *b = turned.ptr<uchar>(kBand + 1 + d);
        for (int i = 0; i < values; ++i) above[i] += a[i], below[i] += b[i];
    }
    std::vector<float> steps(values), magnitudes(w);
    for (int y = kBand; y < h - kBand; ++y) {
        if (y > kBand) {
            const uchar *enters = turned.ptr<uchar>(y - 1), *leaves = turned.ptr<uchar>(y - 1 - kBand);
            const uchar *entersBelow = turned.ptr<uchar>(y + kBand), *leavesBelow = turned.ptr<uchar>(y);
            for (int i = 0; i < values; ++i) {
                above[i] += enters[i] - leaves[i];
                below[i] += entersBelow[i] - leavesBelow[i];
            }
        }
        const uchar *in = inside.ptr<uchar>(y);
        for (int x = 0; x < w; ++x) {
            const float keep = in[x] ? 1.0f : 0.0f;
            const float s0 = keep * weights[0] * (float)(above[3 * x] - below[3 * x]);
            const float s1 = keep * weights[1] * (float)(above[3 * x + 1] - below[3 * x + 1]);
            const float s2 = keep * weights[2] * (float)(above[3 * x + 2] - below[3 * x + 2]);
            steps[3 * x] = s0, steps[3 * x + 1] = s1, steps[3 * x + 2] = s2;
            magnitudes[x] = std::sqrt(s0 * s0 + s1 * s1 + s2 * s2);
        }
        // Per strip: the step's sum (3 channels), the magnitudes' sum, the columns counted.
        std::array<cv::Vec3d, kStrips> stripStep{};
        std::array<double, kStrips> stripMagnitude{};
        std::array<int, kStrips> stripColumns{};
        cv::Vec3d sum(0, 0, 0);
        double magnitudeSum = 0;
        int columns = 0;
        for (int k = 0; k < kStrips; ++k) {
            double s0 = 0, s1 = 0, s2 = 0, magnitudeK = 0;
            int n = 0;
            for (int x = stripStart[k]; x < stripStart[k + 1]; ++x) {
                s0 += steps[3 * x], s1 += steps[3 * x + 1], s2 += steps[3 * x + 2];
                magnitudeK += magnitudes[x];
                n += in[x] != 0;
            }
            const cv::Vec3d stepK(s0, s1, s2);
            sum += stepK, magnitudeSum += magnitudeK, columns += n;
            stripStep[k] = stepK, stripMagnitude[k] = magnitudeK, stripColumns[k] = n;
        }
        if (columns < 1) continue;
        RowStep &row = t.rows[y];
        row.edge = std::sqrt(sum.dot(sum)) / columns;
        row.coherence = row.edge / std::max(magnitudeSum / columns, 1e-3);
        row.good = columns >= kMinSpan * contentWidth && row.coherence >= kMinCoherence && y > top + margin && y < bottom - margin;
        if (!withStrips || row.edge <= 0) continue;
        // The strips: each one's step along the row's mean step, the best kStripsCounted counted.
        const cv::Vec3d along = sum / std::sqrt(sum.dot(sum));
        std::array<std::pair<double, double>, kStrips> strips{};  // (step along, mean |step|)
        int measured = 0;
        for (int k = 0; k < kStrips; ++k) {
            const double n = stripColumns[k];
            if (n < 0.25 * w / kStrips) continue;
            strips[measured++] = {stripStep[k].dot(along) / n, stripMagnitude[k] / n};
        }
        std::sort(strips.begin(), strips.begin() + measured, [](const auto &a, const auto &b) { return a.first > b.first; });
        const int counted = std::min(measured, kStripsCounted);
        double stepAlong = 0, stepMagnitude = 0;
        for (int k = 0; k < counted; ++k) stepAlong += strips[k].first, stepMagnitude += strips[k].second;
        if (counted == 0 || stepAlong <= 0) continue;
        row.stripEdge = stepAlong / counted;
        row.stripCoherence = stepAlong / std::max(stepMagnitude, 1e-3);
        row.stripGood = columns >= kMinSpan * contentWidth && row.stripCoherence >= kMinCoherence && y > top + margin &&
                        y < bottom - margin;
    }
    return t;
}

/// A line in the copy: y = y0 + slope * x, found as row `row` of the copy turned by `angle`.
struct Line {
    double edge = 0, coherence = 0, angle = 0, y0 = 0, slope = 0, centre = 0;
    int row = 0;
    bool strips = false;  // measured over its best strips (RowStep::stripEdge), not the whole width
    double score() const { return edge * std::pow(coherence, kCoherencePower); }
};

/// Places `line` in the copy (its y0, slope and centre) from a line of the copy turned by `forward`
/// that runs from (0, `left`) to (w, `right`). False when it would be vertical there.
bool placeFromTurned(const cv::Mat &forward, double left, double right, int w, Line &line) {
    cv::Mat back;
    cv::invertAffineTransform(forward, back);
    const auto map = [&](double x, double y) {
        return cv::Point2d(back.at<double>(0, 0) * x + back.at<double>(0, 1) * y + back.at<double>(0, 2),
                           back.at<double>(1, 0) * x + back.at<double>(1, 1) * y + back.at<double>(1, 2));
    };
    const cv::Point2d a = map(0, left), b = map(w, right);
    if (std::abs(b.x - a.x) < 1e-6) return false;
    line.slope = (b.y - a.y) / (b.x - a.x);
    line.y0 = a.y - line.slope * a.x;
    line.centre = line.y0 + line.slope * w / 2.0;
    return true;
}

Line lineOf(const Turned &t, int row, double angle, int w, bool strips = false) {
    Line line;
    placeFromTurned(t.forward, row + 0.5, row + 0.5, w, line);
    line.angle = angle;
    line.row = row;
    line.strips = strips;
    line.edge = strips ? t.rows[row].stripEdge : t.rows[row].edge;
    line.coherence = strips ? t.rows[row].stripCoherence : t.rows[row].coherence;
    return line;
}

/// The straight line the longest run of edge next to `line` lies on. In the copy turned by the line's
/// angle, each column's strongest step of the line's polarity within `reach` rows of it (kFitMinStep at
/// least) is an edge point; of the lines within kFitDegrees of the line's angle and `reach` of its row,
/// the one along which the most columns in one run (gaps of up to kFitGap columns bridged) have their
/// point within 1 px is taken. Columns count alike, not by their step: a horizon seen over half the
/// width beside a cliff's ledge or a ridge is the longer run, though the ledge is the stronger step, and
/// the row measure's strongest line is then the one tilted through both. False, `line` left as it was,
/// when there are too few points or that run is not kFitLonger times the one along `line` itself.
bool fitToEdge(const cv::Mat &lab8, const cv::Mat &valid, Line &line, int reach) {
    const int h = lab8.rows, w = lab8.cols;
    const cv::Mat forward = cv::getRotationMatrix2D(cv::Point2f(w / 2.0f, h / 2.0f), line.angle, 1.0);
    cv::Mat turned, mask, inside;
    cv::warpAffine(lab8, turned, forward, lab8.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar::all(0));
    cv::warpAffine(valid, mask, forward, valid.size(), cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
    cv::erode(mask, inside, cv::Mat::ones(2 * kBand + 1, 1, CV_8U), cv::Point(0, kBand), 1, cv::BORDER_CONSTANT, cv::Scalar(0));
    // The step at (x, y) of the turned copy, as measure takes it.
    const float *weights = kStepWeights;
    const auto step = [&](int x, int y) {
        cv::Vec3d d(0, 0, 0);
        for (int k = 1; k <= kBand; ++k) {
            const uchar *a = turned.ptr<uchar>(y - k) + 3 * x, *b = turned.ptr<uchar>(y + k) + 3 * x;
            for (int c = 0; c < 3; ++c) d[c] += weights[c] * ((double)a[c] - b[c]);
        }
        return d;
    };
    const int r = line.row, from = std::max(kBand, r - reach), to = std::min(h - kBand - 1, r + reach);
    if (r < kBand || r >= h - kBand || from > to) return false;
    // The line's polarity: its mean step.
    cv::Vec3d sum(0, 0, 0);
    for (int x = 0; x < w; ++x)
        if (inside.at<uchar>(r, x)) sum += step(x, r);
    const double norm = std::sqrt(sum.dot(sum));
    if (norm <= 0) return false;
    const cv::Vec3d along = sum / norm;
    std::vector<cv::Point2d> points;  // (column centre from the middle, row), one a column, left to right
    for (int x = 0; x < w; ++x) {
        double strongest = 0;
        int at = -1;
        for (int y = from; y <= to; ++y) {
            if (!inside.at<uchar>(y, x)) continue;
            const double s = step(x, y).dot(along);
            if (s > strongest) strongest = s, at = y;
        }
        if (at >= 0 && strongest >= kFitMinStep) points.emplace_back(x + 0.5 - w / 2.0, at);
    }
    if (points.size() < 8) return false;
    // Every turn within kFitDegrees by a quarter degree and every offset by half a pixel; ties keep the
    // smaller turn, so a line already on its edge stays.
    double longest = -1, bestTurn = 0, bestOffset = r;
    int asIs = 0;  // the longest run along the line as it is
    for (double d = -kFitDegrees; d <= kFitDegrees + 1e-9; d += kFineStep) {
        const double t = std::tan(d * CV_PI / 180.0);
        for (double c = from - 2; c <= to + 2; c += 0.5) {
            int run = 0, best = 0;
            double last = -1e9;
            for (const cv::Point2d &p : points) {
                if (std::abs(p.y - (c + t * p.x)) > 1.0) continue;
                if (p.x - last > kFitGap + 1) run = 0;
                best = std::max(best, ++run);
                last = p.x;
            }
            if (std::abs(d) < 1e-9 && std::abs(c - r) <= 1) asIs = std::max(asIs, best);
            if (best > longest || (best == longest && std::abs(d) < std::abs(bestTurn))) longest = best, bestTurn = d, bestOffset = c;
        }
    }
    if (longest < kFitLonger * asIs) return false;
    // Back to the copy: the fitted line's ends at the turned copy's sides.
    const double t = std::tan(bestTurn * CV_PI / 180.0);
    return placeFromTurned(forward, bestOffset + 0.5 - t * w / 2.0, bestOffset + 0.5 + t * w / 2.0, w, line);
}

/// Whether a line leaves at least 20 picture pixels on each side (a line through a corner does not):
/// the pixels of the picture `inside` with y < the line's height at x, and those with y > it + 1, counted
/// column by column.
bool splitsThePicture(const cv::Rect &inside, const Line &line) {
    long count[2] = {0, 0};
    const int top = inside.y, bottom = inside.y + inside.height;
    for (int x = inside.x; x < inside.x + inside.width; ++x) {
        const double at = line.y0 + line.slope * x;
        // The rows top ≤ y < bottom with y < at, and with y > at + 1.
        const double firstBelow = std::floor(at + 1) + 1;
        count[0] += std::clamp((long)std::min<double>(bottom, std::ceil(at)) - top, 0L, (long)inside.height);
        count[1] += std::clamp((long)bottom - (long)std::max<double>(top, firstBelow), 0L, (long)inside.height);
    }
    return count[0] >= 20 && count[1] >= 20;
}

/// The picture inside flat side rows and columns (letterbox bars, a plain border): [top, bottom) × [left, right).
cv::Rect content(const cv::Mat &lightness) {
    const auto flat = [](const cv::Mat &line) {
        cv::Scalar mean, deviation;
        cv::meanStdDev(line, mean, deviation);
        return deviation[0] < kBorderDeviation;
    };
    const int h = lightness.rows, w = lightness.cols;
    int top = 0, bottom = h, left = 0, right = w;
    while (top < h * kBorderShare && flat(lightness.row(top))) ++top;
    while (h - bottom < h * kBorderShare && flat(lightness.row(bottom - 1))) --bottom;
    while (left < w * kBorderShare && flat(lightness.col(left))) ++left;
    while (w - right < w * kBorderShare && flat(lightness.col(right - 1))) --right;
    return cv::Rect(left, top, right - left, bottom - top);
}

/// An empty corner of a photo turned without cropping: the right triangle at `corner` (a corner of the
/// picture) whose other two vertices are `along` (on the row through it) and `down` (on its column).
struct EmptyCorner {
    cv::Point corner, along, down;
};

/// The empty corners of a photo turned without cropping (an editor's rotate that keeps or enlarges the
/// frame) in the picture `inside` of an 8-bit image: at a corner, a right triangle of one flat colour
/// (black, mostly) whose third side is a straight edge, with a step to the picture beyond it. A
/// triangle is taken only when the runs of its colour along every row and column it covers end on that
/// straight line, so a dark sky or a night's silhouette at a corner is left alone, and only when the
/// picture just beyond the line differs from it, so a smooth gradient (a clear sky's) is too.
std::vector<EmptyCorner> emptyCorners(const cv::Mat &image, const cv::Rect &inside) {
    std::vector<EmptyCorner> found;
    const int x0 = inside.x, y0 = inside.y, w = inside.width, h = inside.height, channels = image.channels();
    if (w < 8 || h < 8 || image.depth() != CV_8U) return found;
    for (int corner = 0; corner < 4; ++corner) {
        const bool right = corner & 1, bottom = corner & 2;
        // Pixel (i, j) of the corner's own frame: i along the row away from the corner, j down the column.
        const auto at = [&](int i, int j) { return cv::Point(right ? x0 + w - 1 - i : x0 + i, bottom ? y0 + h - 1 - j : y0 + j); };
        const uchar *c = image.ptr<uchar>(at(0, 0).y) + channels * at(0, 0).x;
        const auto deviation = [&](int i, int j) {
            const cv::Point p = at(i, j);
            const uchar *v = image.ptr<uchar>(p.y) + channels * p.x;
            double d = 0;
            for (int k = 0; k < channels; ++k) d += (double)(v[k] - c[k]) * (v[k] - c[k]);
            return std::sqrt(d);
        };
        const auto same = [&](int i, int j) { return deviation(i, j) < kCornerDeviation; };
        const auto runAlongRow = [&](int j) {
            int i = 0;
            while (i < w && same(i, j)) ++i;
            return i;
        };
        const auto runDownColumn = [&](int i) {
            int j = 0;
            while (j < h && same(i, j)) ++j;
            return j;
        };
        const int p = runAlongRow(0), q = runDownColumn(0);
        if (p < kCornerLeg || q < kCornerLeg || p > kCornerShare * w || q > kCornerShare * h) continue;
        // Every row's run reaches the edge from (p, 0) to (0, q), and so does every column's; most end
        // there (dark picture next to a black corner carries some further) ...
        int shorter = 0, longer = 0, counted = 0;
        const auto judge = [&](int run, double expected, double tolerance) {
            shorter += run < expected - tolerance, longer += run > expected + tolerance, ++counted;
        };
        for (int j = 0; j < q; ++j) judge(runAlongRow(j), p * (1.0 - (double)j / q), std::max(2.0, 0.03 * p));
        for (int i = 0; i < p; ++i) judge(runDownColumn(i), q * (1.0 - (double)i / p), std::max(2.0, 0.03 * q));
        if (shorter > 0.1 * counted || longer > kCornerSpill * counted) continue;
        // ... and the picture just beyond that edge is not the corner's colour.
        double beyond = 0;
        int measured = 0;
        for (int j = 0; j < q; ++j) {
            const int i = (int)std::lround(p * (1.0 - (double)j / q)) + kCornerMargin + 1;
            if (i < w) beyond += deviation(i, j), ++measured;
        }
        for (int i = 0; i < p; ++i) {
            const int j = (int)std::lround(q * (1.0 - (double)i / p)) + kCornerMargin + 1;
            if (j < h) beyond += deviation(i, j), ++measured;
        }
        if (measured == 0 || beyond / measured < kCornerStep) continue;
        found.push_back({at(0, 0), at(p, 0), at(0, q)});
    }
    return found;
}

/// The triangle an empty corner and the kCornerMargin px beyond its edge cover: that edge is blurred by
/// the turn and the image's compression.
std::array<cv::Point, 3> grownTriangle(const EmptyCorner &c) {
    const auto grown = [](cv::Point v) {
        return cv::Point(v.x == 0 ? 0 : v.x + (v.x > 0 ? kCornerMargin : -kCornerMargin),
                         v.y == 0 ? 0 : v.y + (v.y > 0 ? kCornerMargin : -kCornerMargin));
    };
    return {c.corner, c.corner + grown(c.along - c.corner), c.corner + grown(c.down - c.corner)};
}

/// Clears each empty corner from `mask`: its edge runs parallel to the turned horizon, and is no horizon.
void clearEmptyCorners(const std::vector<EmptyCorner> &corners, cv::Mat &mask) {
    for (const EmptyCorner &c : corners) {
        const std::array<cv::Point, 3> triangle = grownTriangle(c);
        cv::fillConvexPoly(mask, triangle.data(), 3, cv::Scalar(0));
    }
}

/// A picture in a frame (a painting, a mat, a screen): four straight steps parallel to the sides in the
/// outer bands, each much stronger than the picture's typical rows and columns. The inside, or an
/// empty rectangle.
cv::Rect frameInside(const cv::Mat &lightness) {
    cv::Mat g;
    cv::GaussianBlur(lightness, g, cv::Size(0, 0), 1.0);
    const int h = g.rows, w = g.cols;
    if (h < 8 || w < 8) return cv::Rect();
    std::vector<double> rowSteps(h - 1), columnSteps(w - 1);
    for (int y = 0; y + 1 < h; ++y) rowSteps[y] = std::abs(cv::mean(g.row(y + 1) - g.row(y))[0]);
    for (int x = 0; x + 1 < w; ++x) columnSteps[x] = std::abs(cv::mean(g.col(x + 1) - g.col(x))[0]);
    const auto median = [](std::vector<double> v) {
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
    };
    const double rowMedian = median(rowSteps), columnMedian = median(columnSteps);
    const auto strongest = [](const std::vector<double> &v, int from, int to) {
        return (int)(std::max_element(v.begin() + from, v.begin() + to) - v.begin());
    };
    const int my = std::max(2, (int)(h * kFrameMargin)), mx = std::max(2, (int)(w * kFrameMargin));
    const int top = strongest(rowSteps, 0, my), bottom = strongest(rowSteps, h - 1 - my, h - 1);
    const int left = strongest(columnSteps, 0, mx), right = strongest(columnSteps, w - 1 - mx, w - 1);
    const auto side = [](double step, double median) { return step >= kFrameStep && step > 4 * median; };
    if (!(side(rowSteps[top], rowMedian) && side(rowSteps[bottom], rowMedian) && side(columnSteps[left], columnMedian) &&
          side(columnSteps[right], columnMedian)))
        return cv::Rect();
    return cv::Rect(left + 2, top + 2, right - left - 2, bottom - top - 2);
}

/// A line's two sides on a sky map (`grid` × `grid` probabilities that a cell of the picture, stretched
/// to a square, is sky): the mean sky probability of the cells above it and the mean ground probability
/// (its complement) of those below; cells the line crosses are left out, an empty side reads 0.
struct SkySides {
    double sky = 0, ground = 0;
    bool split = false;  // cells on both sides
    /// How well the map agrees with the line: the two means averaged; 0 unless it splits the map.
    double agreement() const { return split ? 0.5 * (sky + ground) : 0; }
};

SkySides sidesOf(const Line &line, const float *sky, const std::vector<bool> &picture, int grid, int w, int h) {
    double above = 0, below = 0;
    int na = 0, nb = 0;
    for (int i = 0; i < grid; ++i)
        for (int j = 0; j < grid; ++j) {
            if (!picture[i * grid + j]) continue;
            const double x = (j + 0.5) / grid * w, d = (i + 0.5) / grid - (line.y0 + line.slope * x) / h;
            const double p = sky[i * grid + j];
            if (d < -0.75 / grid) above += p, ++na;
            else if (d > 0.75 / grid) below += 1 - p, ++nb;
        }
    SkySides sides;
    sides.sky = na > 0 ? above / na : 0;
    sides.ground = nb > 0 ? below / nb : 0;
    sides.split = na > 0 && nb > 0;
    return sides;
}

/// The sky map brought to the copy's pixels: the cells' probabilities upsampled, then snapped to the
/// picture's own edges by a guided filter with the colour copy as its guide (He, Sun and Tang 2010): a
/// coarse map's sky then ends where the picture's colour changes, not at a cell's edge. (OpenCV
/// contrib's ximgproc has a guided filter, but linking it brings in opencv_imgcodecs: see Package.swift.)
cv::Mat fineSky(const float *sky, int grid, const cv::Mat &bgr) {
    const int radius = kGuideRadius;
    const double eps = kGuideEps;
    cv::Mat cells(grid, grid, CV_32F, const_cast<float *>(sky)), p;
    cv::resize(cells, p, bgr.size(), 0, 0, cv::INTER_LINEAR);
    cv::Mat guide;
    bgr.convertTo(guide, CV_32FC3, 1.0 / 255.0);
    std::vector<cv::Mat> I;
    cv::split(guide, I);
    const cv::Size box(2 * radius + 1, 2 * radius + 1);
    const auto mean = [&](const cv::Mat &m) {
        cv::Mat out;
        cv::boxFilter(m, out, CV_32F, box, cv::Point(-1, -1), true, cv::BORDER_REFLECT);
        return out;
    };
    std::array<cv::Mat, 3> mI, covIp;
    const cv::Mat mp = mean(p);
    for (int c = 0; c < 3; ++c) {
        mI[c] = mean(I[c]);
        covIp[c] = mean(I[c].mul(p)) - mI[c].mul(mp);
    }
    std::array<cv::Mat, 6> var;  // rr rg rb gg gb bb
    const int pairs[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
    for (int k = 0; k < 6; ++k) var[k] = mean(I[pairs[k][0]].mul(I[pairs[k][1]])) - mI[pairs[k][0]].mul(mI[pairs[k][1]]);
    std::array<cv::Mat, 3> a;
    for (int c = 0; c < 3; ++c) a[c] = cv::Mat(p.size(), CV_32F);
    cv::Mat b(p.size(), CV_32F);
    for (int y = 0; y < p.rows; ++y)
        for (int x = 0; x < p.cols; ++x) {
            const double rr = var[0].at<float>(y, x) + eps, rg = var[1].at<float>(y, x), rb = var[2].at<float>(y, x);
            const double gg = var[3].at<float>(y, x) + eps, gb = var[4].at<float>(y, x), bb = var[5].at<float>(y, x) + eps;
            // The inverse of the symmetric 3 × 3 covariance (adjugate over determinant).
            const double i00 = gg * bb - gb * gb, i01 = rb * gb - rg * bb, i02 = rg * gb - rb * gg;
            const double i11 = rr * bb - rb * rb, i12 = rb * rg - rr * gb, i22 = rr * gg - rg * rg;
            const double det = rr * i00 + rg * i01 + rb * i02;
            const double c0 = covIp[0].at<float>(y, x), c1 = covIp[1].at<float>(y, x), c2 = covIp[2].at<float>(y, x);
            const double a0 = (i00 * c0 + i01 * c1 + i02 * c2) / det, a1 = (i01 * c0 + i11 * c1 + i12 * c2) / det,
                         a2 = (i02 * c0 + i12 * c1 + i22 * c2) / det;
            a[0].at<float>(y, x) = (float)a0, a[1].at<float>(y, x) = (float)a1, a[2].at<float>(y, x) = (float)a2;
            b.at<float>(y, x) = (float)(mp.at<float>(y, x) - a0 * mI[0].at<float>(y, x) - a1 * mI[1].at<float>(y, x) -
                                        a2 * mI[2].at<float>(y, x));
        }
    cv::Mat q = mean(b);
    for (int c = 0; c < 3; ++c) q += mean(a[c]).mul(I[c]);
    cv::Mat clipped;
    cv::min(cv::max(q, 0.0), 1.0, clipped);
    return clipped;
}

/// A line's two sides next to it on the fine sky map (`fineSky`): the mean sky in the band of `band`
/// pixels above it and the mean ground in the band below, the picture's pixels within `gap` of the line
/// left out. A guard rail or a near shore has ground just above it even where the coarse map's cells
/// above it are mostly sky.
SkySides sidesNear(const Line &line, const cv::Mat &fine, const cv::Mat &valid, double gap, double band) {
    double above = 0, below = 0;
    long na = 0, nb = 0;
    // Only the rows the bands can reach (the line's height at either end, ± gap + band).
    const double reach = gap + band, atLeft = line.y0, atRight = line.y0 + line.slope * fine.cols;
    const int top = std::max(0, (int)std::floor(std::min(atLeft, atRight) - reach) - 1);
    const int bottom = std::min(fine.rows - 1, (int)std::ceil(std::max(atLeft, atRight) + reach) + 1);
    for (int y = top; y <= bottom; ++y) {
        const float *f = fine.ptr<float>(y);
        const uchar *v = valid.ptr<uchar>(y);
        for (int x = 0; x < fine.cols; ++x) {
            if (!v[x]) continue;
            const double d = y - (line.y0 + line.slope * x);
            if (std::abs(d) > reach) continue;
            if (d < -gap) above += f[x], ++na;
            else if (d > gap) below += 1 - f[x], ++nb;
        }
    }
    SkySides sides;
    sides.sky = na > 0 ? above / na : 0;
    sides.ground = nb > 0 ? below / nb : 0;
    sides.split = na > 0 && nb > 0;
    return sides;
}

}  // namespace

extern "C" int aocv_detect_horizon(const aocv_mat *image, int working_side, int original_width, int original_height, const float *sky,
                                   int sky_grid, aocv_horizon *out, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        const cv::Mat &source = image->m;
        if (source.channels() != 1 && source.channels() != 3 && source.channels() != 4)
            throw std::runtime_error("aocv_detect_horizon needs a gray, BGR or BGRA image");
        // `source` may be a reduction (a halving at least twice the copy) of the image meant.
        const cv::Size original = original_width > 0 && original_height > 0 ? cv::Size(original_width, original_height) : source.size();
        if (working_side < 32) throw std::runtime_error("horizon: the working copy must be at least 32 px");
        if (sky && (sky_grid < 2 || sky_grid > 64)) throw std::runtime_error("horizon: the sky map must be 2-64 cells a side");
        if (original.width < 32 || original.height < 32) return 0;
        const double scale = (double)working_side / std::max(original.width, original.height);
        // A strip more than 20 times longer than it is wide has no room for the search: no horizon.
        if (std::min(original.width, original.height) * scale < 16) return 0;
        const cv::Size size((int)std::lround(original.width * scale), (int)std::lround(original.height * scale));
        // An image smaller than the working copy (an icon) is enlarged to it, so that the search sees the
        // sizes it was made for; a reduction is always at least the copy.
        if (source.size() != original && (source.cols < size.width || source.rows < size.height))
            throw std::runtime_error("horizon: the reduction is smaller than the working copy");
        cv::Mat small, bgr, lab;
        aocv_resize_to(source, small, size);
        if (small.channels() == 1) cv::cvtColor(small, bgr, cv::COLOR_GRAY2BGR);
        else if (small.channels() == 4) cv::cvtColor(small, bgr, cv::COLOR_BGRA2BGR);
        else bgr = small;
        // CIE Lab (L* 0-100, a* b* about ±100): a sea and a sky of one gray still differ in colour.
        bgr.convertTo(lab, CV_32FC3, 1.0 / 255.0);
        aocv_prepare_lab_tables();
        cv::cvtColor(lab, lab, cv::COLOR_BGR2Lab);
        cv::GaussianBlur(lab, lab, cv::Size(0, 0), 1.0);
        std::vector<cv::Mat> channels;
        cv::split(lab, channels);
        // OpenCV's 8-bit Lab, for the search (see measure).
        cv::Mat lab8;
        {
            std::vector<cv::Mat> bytes(3);
            for (int c = 0; c < 3; ++c) channels[c].convertTo(bytes[c], CV_8U, c == 0 ? 255.0 / 100.0 : 1.0, c == 0 ? 0.0 : 128.0);
            cv::merge(bytes, lab8);
        }
        const int h = lab.rows, w = lab.cols;
        // Borders and frames are not the scene: their edges are never the horizon.
        cv::Rect inside = content(channels[0]);
        if (inside.width >= 16 && inside.height >= 16) {
            const cv::Rect frame = frameInside(channels[0](inside));
            if (!frame.empty()) inside = cv::Rect(inside.x + frame.x, inside.y + frame.y, frame.width, frame.height);
        }
        if (inside.width < 16 || inside.height < 16) return 0;
        cv::Mat valid(lab.size(), CV_8UC1, cv::Scalar(0));
        valid(inside).setTo(255);
        // The picture without its empty corners, if any (the flat rows and columns `content` trims may be
        // a clear sky's: they still count on the sky map).
        cv::Mat scene(lab.size(), CV_8UC1, cv::Scalar(255));
        clearEmptyCorners(emptyCorners(bgr, cv::Rect(0, 0, w, h)), scene);
        valid &= scene;
        const double contentWidth = inside.width;
        // The sky map's cells that are mostly picture (not an empty corner).
        std::vector<bool> skyCells;
        if (sky) {
            cv::Mat share;
            cv::resize(scene, share, cv::Size(sky_grid, sky_grid), 0, 0, cv::INTER_AREA);
            for (int i = 0; i < sky_grid * sky_grid; ++i) skyCells.push_back(share.at<uchar>(i / sky_grid, i % sky_grid) >= 128);
        }

        // Candidates of each measure (the whole width; with a sky map also the best strips): at every
        // whole degree, the rows whose step is a local peak, the strongest first; a line within 3° and 4%
        // of the height of a stronger one is the same line.
        const int measures = sky ? 2 : 1;
        std::array<std::vector<Line>, 2> found;
        for (double angle = -kMaxAngle; angle <= kMaxAngle + 1e-9; angle += 1.0) {
            const Turned t = measure(lab8, valid, angle, contentWidth, sky != nullptr);
            for (int m = 0; m < measures; ++m) {
                const auto e = [&](int r) {
                    const RowStep &row = t.rows[r];
                    return m == 1 ? (row.stripGood ? row.stripEdge : 0.0) : (row.good ? row.edge : 0.0);
                };
                std::vector<int> peaks;
                for (int y = kBand + 1; y + 1 < h - kBand; ++y)
                    if (e(y) > 0 && e(y) >= e(y - 1) && e(y) >= e(y + 1)) peaks.push_back(y);
                std::sort(peaks.begin(), peaks.end(), [&](int a, int b) { return e(a) > e(b); });
                if ((int)peaks.size() > kCandidates) peaks.resize(kCandidates);
                for (int y : peaks) found[m].push_back(lineOf(t, y, angle, w, m == 1));
            }
        }
        const auto sameLine = [&](const Line &a, const Line &b) {
            return std::abs(a.angle - b.angle) < 3 && std::abs(a.centre - b.centre) < 0.04 * h;
        };
        std::array<std::vector<Line>, 2> kept;
        for (int m = 0; m < measures; ++m) {
            std::stable_sort(found[m].begin(), found[m].end(), [](const Line &a, const Line &b) { return a.edge > b.edge; });
            for (const Line &line : found[m]) {
                const bool same = std::any_of(kept[m].begin(), kept[m].end(), [&](const Line &k) { return sameLine(line, k); });
                if (same) continue;
                kept[m].push_back(line);
                if ((int)kept[m].size() >= kCandidates) break;
            }
        }
        // The horizon. Without a sky map: the candidate with the strongest coherent step across the
        // picture. With one: of each measure's kRanked strongest lines (its best scoring at least
        // kMinScore), the one whose sides agree best with the map, its strength relative to its
        // measure's best weighing in (log(score / best) + kSkyWeight × agreement, + kFineSkyWeight × the
        // agreement next to the line of the map snapped to the picture's edges). A road's edge, a rail
        // or a bay's near shore has ground above it; a far horizon behind a monument counts only in its
        // best strips.
        const Line *best = nullptr;
        SkySides sides;  // the line chosen, on the sky map
        cv::Mat fine;    // the sky map snapped to the picture's edges
        if (!sky) {
            for (const Line &line : kept[0])
                if (splitsThePicture(inside, line) && (!best || line.score() > best->score())) best = &line;
            if (!best || best->score() < kMinScore) return 0;
        } else {
            double bestValue = -std::numeric_limits<double>::infinity();
            fine = fineSky(sky, sky_grid, bgr);
            for (int m = 0; m < measures; ++m) {
                std::vector<const Line *> splitting;
                for (const Line &line : kept[m])
                    if (splitsThePicture(inside, line)) splitting.push_back(&line);
                std::stable_sort(splitting.begin(), splitting.end(), [](const Line *a, const Line *b) { return a->score() > b->score(); });
                if (splitting.empty() || splitting[0]->score() < kMinScore) continue;
                const double strongest = splitting[0]->score();
                for (int i = 0; i < std::min((int)splitting.size(), kRanked); ++i) {
                    const Line &candidate = *splitting[i];
                    const double value = std::log(candidate.score() / strongest) +
                                         kSkyWeight * sidesOf(candidate, sky, skyCells, sky_grid, w, h).agreement() +
                                         kFineSkyWeight * sidesNear(candidate, fine, valid, kFineGap * h, kFineBand * h).agreement();
                    if (value > bestValue) bestValue = value, best = splitting[i];
                }
            }
            if (!best) return 0;
            sides = sidesOf(*best, sky, skyCells, sky_grid, w, h);
            // A line both measures found is placed by the whole width's, which is the more exact.
            if (best->strips)
                for (const Line &line : kept[0])
                    if (sameLine(line, *best) && splitsThePicture(inside, line)) {
                        best = &line;
                        break;
                    }
        }
        // Its angle to a quarter degree, keeping the line through the same centre point.
        Line line = *best;
        for (double angle = best->angle - 1; angle <= best->angle + 1 + 1e-9; angle += kFineStep) {
            const Turned t = measure(lab8, valid, angle, contentWidth, line.strips);
            const cv::Mat &f = t.forward;
            const double centreRow = f.at<double>(1, 0) * (w / 2.0) + f.at<double>(1, 1) * best->centre + f.at<double>(1, 2) - 0.5;
            for (int y = kBand; y < h - kBand; ++y) {
                const RowStep &row = t.rows[y];
                const bool good = line.strips ? row.stripGood : row.good;
                if (good && std::abs(y - centreRow) <= 3 && (line.strips ? row.stripEdge : row.edge) > line.edge)
                    line = lineOf(t, y, angle, w, line.strips);
            }
        }
        // All sky (a kite against clouds) has no ground below any line; a forest's canopy or a wall has
        // no sky above its lines, which are faint.
        const auto mapRejects = [&](const SkySides &coarse, double score) {
            return coarse.ground < kMinGroundBelow || (coarse.sky < kMinSkyAbove && score < kStrongStep);
        };
        if (sky && mapRejects(sides, line.score())) return 0;
        // A line the map sees sky above, but not next to it, lies inside the ground, below the real
        // horizon: the foot of a monument's rubble, grass stalks across the sea, a waterfall's rocks, a
        // glacier's edge. (A hazy sky that the map misreads everywhere, as on a steppe, is no sky above
        // the line at all, and is let through.)
        const auto insideTheGround = [&](const SkySides &near, double skyAbove) {
            return near.sky < kMinSkyNext && near.sky < kSkyNextShare * skyAbove;
        };
        const double skyAbove = sky ? sidesOf(line, sky, skyCells, sky_grid, w, h).sky : -1;
        const SkySides near = sky ? sidesNear(line, fine, valid, kFineGap * h, kFineBand * h) : SkySides();
        if (sky && insideTheGround(near, skyAbove)) return 0;
        // The line judged so far is placed by the run of edge it lies along (fitToEdge). The refitted line
        // is taken only when it passes the same tests and the snapped map agrees with it next to it about
        // as well: a blurred plain's horizon has a sharper field edge just below it. It only moves the line:
        // the judgement that there is a horizon, and how sure it is, stay the line's before it.
        // The copy's pixel centres back to the image's: a line's height at the image's first and last
        // columns' centres, and its angle between them.
        const double sx = (double)original.width / w, sy = (double)original.height / h;
        const auto leftEnd = [&](const Line &l) { return (l.y0 + l.slope * (-0.5 + 0.5 / sx) + 0.5) * sy - 0.5; };
        const auto rightEnd = [&](const Line &l) { return (l.y0 + l.slope * ((original.width - 0.5) / sx - 0.5) + 0.5) * sy - 0.5; };
        const auto angleInImage = [&](const Line &l) {
            return -std::atan2(rightEnd(l) - leftEnd(l), (double)(original.width - 1)) * 180.0 / CV_PI;
        };
        const double judgedAngle = angleInImage(line);
        if (sky) {
            Line fitted = line;
            if (fitToEdge(lab8, valid, fitted, std::max(3, (int)std::lround(kFitReach * h))) && splitsThePicture(inside, fitted)) {
                const SkySides coarse = sidesOf(fitted, sky, skyCells, sky_grid, w, h);
                const SkySides fittedNear = sidesNear(fitted, fine, valid, kFineGap * h, kFineBand * h);
                if (!mapRejects(coarse, line.score()) && !insideTheGround(fittedNear, coarse.sky) &&
                    fittedNear.agreement() >= near.agreement() - kFitAgreement)
                    line = fitted;
            }
        }
        out->x1 = 0;
        out->y1 = leftEnd(line);
        out->x2 = original.width - 1;
        out->y2 = rightEnd(line);
        out->angle = angleInImage(line);
        // The sky above the line and its angle as judged (after its refinement, before its fit), for the
        // caller's confidence.
        out->sky_above = skyAbove;
        out->judged_angle = judgedAngle;
        return 1;
    });
}

extern "C" aocv_mat *aocv_fill_empty_corners(const aocv_mat *mat, int *filled, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        const cv::Mat &s = mat->m;
        // Another kind of image (16-bit, BGRA) is left as it is.
        const bool readable = s.depth() == CV_8U && (s.channels() == 1 || s.channels() == 3);
        const std::vector<EmptyCorner> corners = readable ? emptyCorners(s, cv::Rect(0, 0, s.cols, s.rows)) : std::vector<EmptyCorner>();
        *filled = (int)corners.size();
        cv::Mat out = corners.empty() ? s : s.clone();
        const size_t bytes = s.elemSize();
        for (const EmptyCorner &c : corners) {
            const std::array<cv::Point, 3> t = grownTriangle(c);
            cv::Mat inside(s.size(), CV_8UC1, cv::Scalar(0));
            cv::fillConvexPoly(inside, t.data(), 3, cv::Scalar(255));
            // The unit normal of the edge t[1]-t[2], pointing away from the corner.
            cv::Point2d n(-(double)(t[2].y - t[1].y), (double)(t[2].x - t[1].x));
            n /= std::max(1e-9, std::hypot(n.x, n.y));
            if (n.dot(cv::Point2d(t[0] - t[1])) > 0) n = -n;
            const cv::Rect box = cv::boundingRect(std::vector<cv::Point>(t.begin(), t.end())) & cv::Rect(0, 0, s.cols, s.rows);
            for (int y = box.y; y < box.y + box.height; ++y)
                for (int x = box.x; x < box.x + box.width; ++x) {
                    if (!inside.at<uchar>(y, x)) continue;
                    const double d = n.dot(cv::Point2d(x - t[1].x, y - t[1].y));  // ≤ 0 inside
                    const int rx = std::clamp((int)std::lround(x - 2 * d * n.x), 0, s.cols - 1);
                    const int ry = std::clamp((int)std::lround(y - 2 * d * n.y), 0, s.rows - 1);
                    std::memcpy(out.ptr<uchar>(y) + x * bytes, s.ptr<uchar>(ry) + rx * bytes, bytes);
                }
        }
        return aocv_wrap(std::move(out));
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

extern "C" aocv_mat *aocv_rotate_black(const aocv_mat *mat, double degrees, int enlarge, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        const cv::Mat &s = mat->m;
        cv::Mat forward = cv::getRotationMatrix2D(cv::Point2f(s.cols / 2.0f, s.rows / 2.0f), degrees, 1.0);
        cv::Size size = s.size();
        if (enlarge) {
            const double c = std::abs(std::cos(degrees * CV_PI / 180)), n = std::abs(std::sin(degrees * CV_PI / 180));
            size = cv::Size((int)std::ceil(s.cols * c + s.rows * n), (int)std::ceil(s.cols * n + s.rows * c));
            forward.at<double>(0, 2) += (size.width - s.cols) / 2.0;
            forward.at<double>(1, 2) += (size.height - s.rows) / 2.0;
        }
        cv::Mat out;
        cv::warpAffine(s, out, forward, size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar::all(0));
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
