// Rectangle detector (VNDetectRectanglesRequest semantics): finds convex quadrilaterals at any
// orientation and under perspective, refines their sides to sub-pixel lines and scores them.
//
// Pipeline, all on a copy scaled to at most kWorkingSide px (corners mapped back exactly):
//   1. candidates: contours of several binary maps (Canny at two thresholds, Canny after a
//      closing that erases text, Otsu), each simplified with approxPolyDP to 4 convex corners;
//      the image frame is drawn into the edge maps so a document cut by the frame still closes;
//   2. refinement: each side is re-found as the strongest same-polarity edge near it and fitted
//      with a robust line; corners are the intersections of neighbouring lines (twice);
//   3. Vision's filters (aspect ratio, corner angles, minimum size) on the refined corners;
//   4. confidence = 0.45·edge + 0.35·fit + 0.20·angle (see scoreQuad), × 0.9 per side that lies on
//      the image frame (no edge can be measured there; × 0.85 more when two such sides meet);
//      quads with 3+ sides on the frame are the frame itself and are dropped;
//   5. non-maximum suppression (IoU > 0.8 or all corners within 2% of the diagonal), best first.
#include "aocv_internal.hpp"
#include "include/aocv_detect.h"
#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace {

using Quad = std::array<cv::Point2d, 4>;

constexpr int kWorkingSide = 800;        // long side of the working copy (speed vs. detail)
constexpr double kMinGradient = 1.5;     // gray levels per pixel for a sample to count as edge
constexpr double kFullContrast = 40.0;   // step height (gray levels) that earns full contrast credit
constexpr double kContrastOffset = 3.0;  // px each side of an edge where its step height is read

/// Validated detector parameters, clamped to Vision's ranges.
struct Params {
    double minAspect, maxAspect, tolerance, minSize, minConfidence;
    int maxObservations;
};

/// The working copy of the image and what every stage reads from it.
struct Work {
    cv::Mat gray;      // 8-bit working-scale luminance
    cv::Mat smooth;    // CV_32F, Gaussian-smoothed gray (contrast is read here)
    cv::Mat gx, gy;    // CV_32F, Sobel / 8 = gray levels per pixel
    double scaleX, scaleY;   // working = original × scale (per axis: sizes are rounded)
    double margin;     // px from the frame within which a side counts as lying on it
};

/// A quadrilateral under consideration, with its score parts (all 0..1).
struct Candidate {
    Quad q;                 // working-scale corners, TL, TR, BR, BL
    double contourFit = 0;  // how closely the source contour follows the quad
    double edge = 0, straight = 0, angle = 0;
    int clipped = 0;        // sides lying on the image frame
    double confidence = 0;
};

/// One side re-found in the image.
struct SideFit {
    cv::Point2d point, dir;  // fitted line (unit direction)
    double support = 0;      // fraction of samples where a same-polarity edge was found
    double straight = 0;     // fraction of those within 1 px of the fitted line
    double contrast = 0;     // median step height across the side, gray levels
    bool clipped = false;    // lies on the image frame
};

/// Checks and clamps the caller's parameters (Vision rejects out-of-range values; we clamp, except
/// for NaN and an empty aspect range, which are caller errors).
Params validate(const aocv_rect_params &p) {
    for (const double v : {p.minimum_aspect_ratio, p.maximum_aspect_ratio, p.quadrature_tolerance, p.minimum_size,
                           p.minimum_confidence})
        if (std::isnan(v)) throw std::runtime_error("rectangle parameters must not be NaN");
    Params v{std::clamp(p.minimum_aspect_ratio, 0.0, 1.0), std::clamp(p.maximum_aspect_ratio, 0.0, 1.0),
             std::clamp(p.quadrature_tolerance, 0.0, 45.0), std::clamp(p.minimum_size, 0.0, 1.0),
             std::clamp(p.minimum_confidence, 0.0, 1.0), p.maximum_observations};
    if (v.minAspect > v.maxAspect) throw std::runtime_error("minimum_aspect_ratio exceeds maximum_aspect_ratio");
    return v;
}

/// The scale of the working copy: its long side at most kWorkingSide.
double workingScale(cv::Size image) { return std::min(1.0, (double)kWorkingSide / std::max(image.width, image.height)); }

/// Builds the working copy: gray, scaled to at most kWorkingSide, smoothed, with gradients.
Work prepare(const cv::Mat &image) {
    Work w;
    cv::Mat gray;
    if (image.channels() == 1) gray = image;
    else cv::cvtColor(image, gray, image.channels() == 4 ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGR2GRAY);
    const double scale = workingScale(gray.size());
    if (scale < 1.0) aocv_resize_area(gray, w.gray, cv::Size(), scale, scale);
    else w.gray = gray.clone();
    w.scaleX = (double)w.gray.cols / gray.cols;
    w.scaleY = (double)w.gray.rows / gray.rows;
    cv::GaussianBlur(w.gray, w.smooth, cv::Size(5, 5), 1.2);
    w.smooth.convertTo(w.smooth, CV_32F);
    cv::Sobel(w.smooth, w.gx, CV_32F, 1, 0, 3, 1.0 / 8);
    cv::Sobel(w.smooth, w.gy, CV_32F, 0, 1, 3, 1.0 / 8);
    w.margin = std::max(3.0, 0.015 * std::min(w.gray.cols, w.gray.rows));
    return w;
}

/// Bilinear sample of a CV_32F image, coordinates clamped to the image.
float sample(const cv::Mat &m, double x, double y) {
    x = std::clamp(x, 0.0, m.cols - 1.001);
    y = std::clamp(y, 0.0, m.rows - 1.001);
    const int x0 = (int)x, y0 = (int)y;
    const double fx = x - x0, fy = y - y0;
    const float *r0 = m.ptr<float>(y0), *r1 = m.ptr<float>(y0 + 1);
    return (float)((r0[x0] * (1 - fx) + r0[x0 + 1] * fx) * (1 - fy) + (r1[x0] * (1 - fx) + r1[x0 + 1] * fx) * fy);
}

/// Binary maps whose contours outline candidate quads. Why several: a single Canny threshold
/// misses faint document borders or drowns strong ones in clutter; closing first erases dark
/// text so a page's outline is not broken into it; Otsu catches uniformly bright/dark regions.
/// The frame is drawn into the edge maps so regions cut by the image border still close.
std::vector<cv::Mat> candidateMaps(const Work &w) {
    cv::Mat blurred, closed;
    cv::GaussianBlur(w.gray, blurred, cv::Size(5, 5), 0);
    cv::morphologyEx(blurred, closed, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(9, 9)));
    const cv::Mat kernel = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3));
    std::vector<cv::Mat> maps;
    const auto addEdges = [&](const cv::Mat &src, double lo, double hi) {
        cv::Mat e;
        cv::Canny(src, e, lo, hi);
        cv::rectangle(e, cv::Rect(0, 0, e.cols, e.rows), cv::Scalar(255), 1);
        cv::dilate(e, e, kernel);
        maps.push_back(e);
    };
    addEdges(blurred, 20, 60);
    addEdges(blurred, 50, 150);
    addEdges(closed, 30, 90);
    cv::Mat otsu;
    cv::threshold(blurred, otsu, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
    maps.push_back(otsu);
    return maps;
}

/// Orders 4 corners clockwise on screen starting from the top-left (smallest x + y).
Quad orderCorners(Quad q) {
    const cv::Point2d c = (q[0] + q[1] + q[2] + q[3]) * 0.25;
    std::sort(q.begin(), q.end(), [&](const cv::Point2d &a, const cv::Point2d &b) {
        return std::atan2(a.y - c.y, a.x - c.x) < std::atan2(b.y - c.y, b.x - c.x);
    });
    const auto first = std::min_element(q.begin(), q.end(), [](const cv::Point2d &a, const cv::Point2d &b) {
        return a.x + a.y < b.x + b.y;
    });
    std::rotate(q.begin(), first, q.end());
    return q;
}

/// Interior angle at corner i, in degrees.
double cornerAngle(const Quad &q, int i) {
    const cv::Point2d a = q[(i + 3) % 4] - q[i], b = q[(i + 1) % 4] - q[i];
    const double c = a.dot(b) / (std::hypot(a.x, a.y) * std::hypot(b.x, b.y) + 1e-12);
    return std::acos(std::clamp(c, -1.0, 1.0)) * 180.0 / CV_PI;
}

/// Largest departure of any corner from 90 degrees.
double maxAngleDeviation(const Quad &q) {
    double worst = 0;
    for (int i = 0; i < 4; ++i) worst = std::max(worst, std::abs(cornerAngle(q, i) - 90.0));
    return worst;
}

/// Mean lengths of the two pairs of opposite sides (top/bottom, left/right).
std::pair<double, double> sidePairs(const Quad &q) {
    const auto len = [&](int i) { const cv::Point2d d = q[(i + 1) % 4] - q[i]; return std::hypot(d.x, d.y); };
    return {(len(0) + len(2)) / 2, (len(1) + len(3)) / 2};
}

/// Vision's filters: convex, aspect ratio (shorter/longer mean side) in range, every corner within
/// the quadrature tolerance, shorter mean side at least minSize × the image's smaller side.
/// `slack` loosens them for the coarse pre-filter before refinement.
bool passesFilters(const Quad &q, const Params &p, cv::Size size, double slack) {
    std::vector<cv::Point2f> pts;
    for (const auto &c : q) pts.emplace_back((float)c.x, (float)c.y);
    if (!cv::isContourConvex(pts)) return false;
    const auto [a, b] = sidePairs(q);
    const double shorter = std::min(a, b), longer = std::max(a, b);
    if (longer <= 0) return false;
    const double aspect = shorter / longer;
    if (aspect < p.minAspect - slack || aspect > p.maxAspect + slack) return false;
    if (maxAngleDeviation(q) > p.tolerance + 90 * slack) return false;
    const double minSide = std::max(8.0, p.minSize * std::min(size.width, size.height));
    return shorter >= minSide * (1 - slack);
}

/// Mean distance of the contour's points to the quad's outline, as a 0..1 fit (1 = on the outline,
/// 0 = off by 1% of the perimeter on average): tells a straight-sided shape from a blob.
double contourFit(const std::vector<cv::Point> &contour, const Quad &q) {
    std::vector<cv::Point2f> poly;
    for (const auto &c : q) poly.emplace_back((float)c.x, (float)c.y);
    double sum = 0;
    for (const auto &p : contour) sum += std::abs(cv::pointPolygonTest(poly, cv::Point2f((float)p.x, (float)p.y), true));
    const double mean = sum / std::max<size_t>(1, contour.size());
    const double perimeter = cv::arcLength(poly, true);
    return std::clamp(1.0 - mean / (0.01 * perimeter + 1.0), 0.0, 1.0);
}

/// Quads read from one binary map: each contour large enough is simplified to 4 convex corners
/// (directly at two tolerances, else through its convex hull, which ignores notches such as a
/// thumb over an edge); survivors of a loose Vision pre-filter become candidates.
void collectCandidates(const cv::Mat &map, const Params &p, cv::Size size, std::vector<Candidate> &out) {
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(map, contours, cv::RETR_LIST, cv::CHAIN_APPROX_SIMPLE);
    const double minSide = std::max(8.0, p.minSize * std::min(size.width, size.height));
    const double minArea = 0.5 * minSide * minSide * std::max(0.1, p.minAspect);
    for (const auto &contour : contours) {
        if (std::abs(cv::contourArea(contour)) < minArea) continue;
        const double perimeter = cv::arcLength(contour, true);
        std::vector<cv::Point> approx;
        for (const double eps : {0.02, 0.04}) {
            cv::approxPolyDP(contour, approx, eps * perimeter, true);
            if (approx.size() == 4 && cv::isContourConvex(approx)) break;
        }
        if (approx.size() != 4 || !cv::isContourConvex(approx)) {
            std::vector<cv::Point> hull;
            cv::convexHull(contour, hull);
            cv::approxPolyDP(hull, approx, 0.02 * cv::arcLength(hull, true), true);
            if (approx.size() != 4) continue;
        }
        Candidate c;
        for (int i = 0; i < 4; ++i) c.q[i] = cv::Point2d(approx[i].x, approx[i].y);
        c.q = orderCorners(c.q);
        if (!passesFilters(c.q, p, size, 0.15)) continue;
        c.contourFit = contourFit(contour, c.q);
        out.push_back(c);
    }
}

/// True when segment a–b lies along one edge of the image frame (both ends within the margin).
bool onFrame(cv::Point2d a, cv::Point2d b, const Work &w) {
    const double m = w.margin, W = w.gray.cols - 1, H = w.gray.rows - 1;
    return (a.x <= m && b.x <= m) || (a.y <= m && b.y <= m) || (a.x >= W - m && b.x >= W - m) ||
           (a.y >= H - m && b.y >= H - m);
}

/// The frame line a clipped side lies on: the outer edge of the border pixels (−0.5 or size − 0.5),
/// so its corners map back onto the original image's border exactly.
SideFit frameSide(cv::Point2d a, cv::Point2d b, const Work &w) {
    const double m = w.margin, W = w.gray.cols - 1, H = w.gray.rows - 1;
    SideFit s;
    s.clipped = true;
    if (a.x <= m && b.x <= m) { s.point = {-0.5, 0}; s.dir = {0, 1}; }
    else if (a.x >= W - m && b.x >= W - m) { s.point = {W + 0.5, 0}; s.dir = {0, 1}; }
    else if (a.y <= m && b.y <= m) { s.point = {0, -0.5}; s.dir = {1, 0}; }
    else { s.point = {0, H + 0.5}; s.dir = {1, 0}; }
    return s;
}

/// Strongest edge of the given polarity (+1 brighter inside, -1 darker inside, 0 either) along
/// the outward normal within ±halfWidth of `base`; returns its offset (sub-pixel) and strength.
std::pair<double, double> strongestEdge(const Work &w, cv::Point2d base, cv::Point2d n, double halfWidth, int polarity) {
    const int steps = (int)std::ceil(halfWidth * 2);
    std::vector<double> g(2 * steps + 1);
    for (int k = -steps; k <= steps; ++k) {
        const cv::Point2d p = base + n * (k * 0.5);
        // Gradient along the outward normal is negative when the inside is brighter.
        g[k + steps] = -(sample(w.gx, p.x, p.y) * n.x + sample(w.gy, p.x, p.y) * n.y);
    }
    int best = 0;
    double bestValue = -1;
    for (int k = 0; k < (int)g.size(); ++k) {
        const double v = polarity == 0 ? std::abs(g[k]) : polarity * g[k];
        if (v > bestValue) { bestValue = v; best = k; }
    }
    double offset = best;
    if (best > 0 && best + 1 < (int)g.size()) {   // parabola through the peak and its neighbours
        const double l = std::abs(g[best - 1]), c = std::abs(g[best]), r = std::abs(g[best + 1]);
        const double den = l - 2 * c + r;
        if (den < 0) offset += std::clamp(0.5 * (l - r) / den, -0.5, 0.5);
    }
    return {(offset - steps) * 0.5, polarity == 0 ? g[best] : bestValue};
}

/// Re-finds side a–b in the image: at evenly spaced samples, the strongest edge near the current
/// line with the side's dominant polarity; a Huber line through those points is the new side.
/// Also measures how much of the side has an edge (support), how straight it is and its contrast.
SideFit fitSide(const Work &w, cv::Point2d a, cv::Point2d b, cv::Point2d centre, double halfWidth) {
    if (onFrame(a, b, w)) return frameSide(a, b, w);
    SideFit s;
    const cv::Point2d d = b - a;
    const double len = std::hypot(d.x, d.y);
    if (len < 1.0) return s;   // degenerate side: no evidence
    s.point = a; s.dir = d / len;
    cv::Point2d n(-s.dir.y, s.dir.x);
    if (n.dot((a + b) * 0.5 - centre) < 0) n = -n;   // outward
    const int count = std::clamp((int)std::lround(len / 5), 10, 80);
    std::vector<cv::Point2d> bases;
    double votes = 0;
    for (int k = 0; k < count; ++k) {
        bases.push_back(a + d * (0.08 + 0.84 * k / (count - 1)));
        votes += strongestEdge(w, bases.back(), n, halfWidth, 0).second;
    }
    const int polarity = votes >= 0 ? 1 : -1;
    std::vector<cv::Point2f> found;
    for (const auto &base : bases) {
        const auto [offset, strength] = strongestEdge(w, base, n, halfWidth, polarity);
        if (strength >= kMinGradient) found.emplace_back(base + n * offset);
    }
    s.support = (double)found.size() / count;
    if (found.size() < std::max<size_t>(4, count / 4)) return s;   // too little edge: keep the line
    cv::Vec4f line;
    cv::fitLine(found, line, cv::DIST_HUBER, 0, 0.01, 0.01);
    s.dir = {line[0], line[1]};
    s.point = {line[2], line[3]};
    std::vector<double> steps;
    int close = 0;
    for (const auto &p : found) {
        const cv::Point2d q(p.x, p.y);
        const cv::Point2d r = q - s.point;
        if (std::abs(r.x * s.dir.y - r.y * s.dir.x) <= 1.0) ++close;
        const cv::Point2d in = q - n * kContrastOffset, out = q + n * kContrastOffset;
        steps.push_back(std::abs(sample(w.smooth, in.x, in.y) - sample(w.smooth, out.x, out.y)));
    }
    s.straight = (double)close / found.size();
    std::nth_element(steps.begin(), steps.begin() + steps.size() / 2, steps.end());
    s.contrast = steps[steps.size() / 2];
    return s;
}

/// Intersection of two lines given as point + direction; false when they are (nearly) parallel.
bool intersect(const SideFit &l1, const SideFit &l2, cv::Point2d &at) {
    const double cross = l1.dir.x * l2.dir.y - l1.dir.y * l2.dir.x;
    if (std::abs(cross) < 1e-6) return false;
    const cv::Point2d d = l2.point - l1.point;
    const double t = (d.x * l2.dir.y - d.y * l2.dir.x) / cross;
    at = l1.point + l1.dir * t;
    return true;
}

/// Scores a refined quad from its four sides (all terms 0..1):
///   edge     = per side support × (0.4 + 0.6 × contrast/40 capped), then ½ min + ½ mean over sides
///              (one missing side hurts: clutter rarely has four good edges);
///   fit      = ½ contour fit + ½ mean straightness of the re-found edges;
///   angle    = 1 − ½ × (worst corner deviation / tolerance): 0.5 at the tolerance limit.
/// Sides on the frame have nothing to measure: they are skipped and cost a factor 0.9 each, and a
/// further 0.85 when two of them meet (the quad then sits in an image corner: weak evidence).
void scoreQuad(Candidate &c, const std::array<SideFit, 4> &sides, const Params &p) {
    double minEdge = 1, sumEdge = 0, sumStraight = 0;
    int measured = 0;
    c.clipped = 0;
    for (const SideFit &s : sides) {
        if (s.clipped) { ++c.clipped; continue; }
        const double e = s.support * (0.4 + 0.6 * std::min(1.0, s.contrast / kFullContrast));
        minEdge = std::min(minEdge, e);
        sumEdge += e;
        sumStraight += s.straight;
        ++measured;
    }
    c.edge = measured ? 0.5 * minEdge + 0.5 * sumEdge / measured : 0;
    c.straight = measured ? sumStraight / measured : 0;
    const double tolerance = std::max(p.tolerance, 1.0);
    c.angle = std::clamp(1.0 - 0.5 * maxAngleDeviation(c.q) / tolerance, 0.0, 1.0);
    const double fit = 0.5 * c.contourFit + 0.5 * c.straight;
    bool cornerOfFrame = false;   // two adjacent sides on the frame: any two crossing edges make such a quad
    for (int i = 0; i < 4; ++i) cornerOfFrame |= sides[i].clipped && sides[(i + 1) % 4].clipped;
    c.confidence = (0.45 * c.edge + 0.35 * fit + 0.20 * c.angle) * std::pow(0.9, c.clipped) * (cornerOfFrame ? 0.85 : 1.0);
}

/// Re-fits the four sides of `q` (search ±halfWidth, or ±3% of the side up to 12 px when wide).
std::array<SideFit, 4> fitSides(const Work &w, const Quad &q, bool wide) {
    const cv::Point2d centre = (q[0] + q[1] + q[2] + q[3]) * 0.25;
    std::array<SideFit, 4> sides;
    for (int i = 0; i < 4; ++i) {
        const cv::Point2d a = q[i], b = q[(i + 1) % 4];
        const double halfWidth = wide ? std::max(2.5, std::min(12.0, 0.03 * cv::norm(b - a))) : 2.5;
        sides[i] = fitSide(w, a, b, centre, halfWidth);
    }
    return sides;
}

/// Refines a candidate's corners (a wide then a narrow search, each followed by intersecting the
/// fitted sides), then measures and scores the final sides. False when the refined corners fail
/// Vision's filters, the sides do not meet, or the quad is the image frame (3+ sides on it).
bool refine(Candidate &c, const Work &w, const Params &p) {
    for (const bool wide : {true, false}) {
        const std::array<SideFit, 4> sides = fitSides(w, c.q, wide);
        Quad q;
        for (int i = 0; i < 4; ++i)
            if (!intersect(sides[(i + 3) % 4], sides[i], q[i])) return false;
        c.q = orderCorners(q);
        if (!passesFilters(c.q, p, w.gray.size(), 0.0)) return false;
    }
    const std::array<SideFit, 4> sides = fitSides(w, c.q, false);
    int clipped = 0;
    for (const auto &s : sides) clipped += s.clipped;
    if (clipped >= 3) return false;
    scoreQuad(c, sides, p);
    return true;
}

/// Area of intersection over union of two convex quads.
double quadIoU(const Quad &a, const Quad &b) {
    std::vector<cv::Point2f> pa, pb, inter;
    for (int i = 0; i < 4; ++i) { pa.emplace_back((float)a[i].x, (float)a[i].y); pb.emplace_back((float)b[i].x, (float)b[i].y); }
    const double i = cv::intersectConvexConvex(pa, pb, inter, true);
    const double u = cv::contourArea(pa) + cv::contourArea(pb) - i;
    return u > 0 ? i / u : 0;
}

/// True when two quads describe the same object: heavy overlap, or every corner close.
bool sameQuad(const Quad &a, const Quad &b, double cornerTolerance) {
    double worst = 0;
    for (int i = 0; i < 4; ++i) worst = std::max(worst, cv::norm(a[i] - b[i]));
    return worst < cornerTolerance || quadIoU(a, b) > 0.8;
}

/// Greedy non-maximum suppression over candidates sorted best first.
std::vector<Candidate> suppress(std::vector<Candidate> all, double cornerTolerance) {
    std::sort(all.begin(), all.end(), [](const Candidate &a, const Candidate &b) { return a.confidence > b.confidence; });
    std::vector<Candidate> kept;
    for (const auto &c : all) {
        bool duplicate = false;
        for (const auto &k : kept) if (sameQuad(c.q, k.q, cornerTolerance)) { duplicate = true; break; }
        if (!duplicate) kept.push_back(c);
    }
    return kept;
}

/// Drops raw candidates whose corners are within 3 px of an earlier one (cheap, before refining).
std::vector<Candidate> dedupeRaw(const std::vector<Candidate> &all) {
    std::vector<Candidate> kept;
    for (const auto &c : all) {
        bool duplicate = false;
        for (const auto &k : kept) {
            double worst = 0;
            for (int i = 0; i < 4; ++i) worst = std::max(worst, cv::norm(c.q[i] - k.q[i]));
            if (worst < 3.0) { duplicate = true; break; }
        }
        if (!duplicate) kept.push_back(c);
    }
    return kept;
}

/// Maps a working-scale point (pixel centres) back to the original image, clamped inside it
/// (the inverse of resize's pixel-centre mapping, so it is exact).
cv::Point2d toOriginal(cv::Point2d p, const Work &w, cv::Size original) {
    const double x = (p.x + 0.5) / w.scaleX - 0.5, y = (p.y + 0.5) / w.scaleY - 0.5;
    return {std::clamp(x, 0.0, original.width - 1.0), std::clamp(y, 0.0, original.height - 1.0)};
}

/// The whole detector on one image: candidates, refinement, scoring, suppression.
std::vector<Candidate> detect(const cv::Mat &image, const Params &p) {
    // Too small to hold a measurable quad, or a strip so long that its working copy would be (a 100000x40
    // image's would be 800x0).
    if (std::min(image.cols, image.rows) < 16 || std::min(image.cols, image.rows) * workingScale(image.size()) < 16) return {};
    const Work w = prepare(image);
    std::vector<Candidate> raw;
    for (const cv::Mat &map : candidateMaps(w)) collectCandidates(map, p, w.gray.size(), raw);
    std::vector<Candidate> refined;
    for (Candidate c : dedupeRaw(raw))
        if (refine(c, w, p) && c.confidence >= p.minConfidence) refined.push_back(c);
    const double diagonal = std::hypot(w.gray.cols, w.gray.rows);
    std::vector<Candidate> kept = suppress(std::move(refined), 0.02 * diagonal);
    for (auto &c : kept)
        for (auto &corner : c.q) corner = toOriginal(corner, w, image.size());
    if (p.maxObservations > 0 && (int)kept.size() > p.maxObservations) kept.resize(p.maxObservations);
    return kept;
}

} // namespace

extern "C" int aocv_detect_rectangles(const aocv_mat *image, const aocv_rect_params *params, aocv_quad *out,
                                      int capacity, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        const cv::Mat &m = image->m;
        if (m.empty() || m.depth() != CV_8U) throw std::runtime_error("rectangles: need a non-empty 8-bit image");
        const std::vector<Candidate> found = detect(m, validate(*params));
        const int n = std::min<int>((int)found.size(), std::max(capacity, 0));
        for (int i = 0; i < n; ++i) {
            for (int k = 0; k < 4; ++k) { out[i].x[k] = found[i].q[k].x; out[i].y[k] = found[i].q[k].y; }
            out[i].confidence = found[i].confidence;
        }
        return n;
    });
}
