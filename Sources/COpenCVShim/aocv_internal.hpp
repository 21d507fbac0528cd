// Shared by the shim's .cpp files: the codecs' and the box filter's declarations, network input sizes and
// the letterbox. What the video shim shares with this one is in COpenCVCommon's aocv_common.hpp.
#pragma once
#include "include/aocv.h"
#include "aocv_common.hpp"
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

/// cv::imdecode and cv::imencode from OpenCV's image codecs, which are opened on first use (see
/// aocv_codecs.cpp); they throw, with the reason, when the library cannot be opened.
cv::Mat aocv_imdecode(const cv::Mat &buffer, int flags);

/// The first frame of a GIF on its screen (aocv_gif.cpp); `frames` gets how many frames the file holds,
/// `warning` what was wrong with a frame still read whole.
cv::Mat aocv_decode_gif(const uint8_t *bytes, size_t length, int *frames, std::string *warning);
bool aocv_imencode(const std::string &extension, const cv::Mat &image, std::vector<uchar> &out, const std::vector<int> &params);

/// cv::resize(src, dst, size, fx, fy, cv::INTER_AREA), byte for byte (aocv_resize.cpp). OpenCV's box
/// filter has a fast path only for whole-number factors; for any other shrink of an 8-bit gray or BGR
/// image this computes the same sums in the same order in about half the time (no sum computed twice,
/// the inner loop over independent columns). Every other case is cv::resize itself.
void aocv_resize_area(const cv::Mat &src, cv::Mat &dst, cv::Size size, double fx = 0, double fy = 0);

/// The input size a fully convolutional network (CenterFace, the text detector) is fed: both sides
/// multiples of 32 (the networks' largest stride) from 32 to 4096; throws otherwise, naming `what`.
inline cv::Size aocv_network_input(int width, int height, const char *what) {
    if (width < 32 || height < 32 || width % 32 || height % 32 || width > 4096 || height > 4096)
        throw std::runtime_error(std::string(what) + ": the network's input must be multiples of 32 from 32 to 4096");
    return cv::Size(width, height);
}

/// `src` brought to `size`: the shim's box filter when it shrinks both ways, bilinear otherwise (an
/// enlargement: a small image fitted to a network's input or a working copy).
inline void aocv_resize_to(const cv::Mat &src, cv::Mat &dst, cv::Size size) {
    if (size.width <= src.cols && size.height <= src.rows) aocv_resize_area(src, dst, size);
    else cv::resize(src, dst, size, 0, 0, cv::INTER_LINEAR);
}

/// An image letterboxed into a network's fixed input (see aocv_letterbox).
struct aocv_letterboxed {
    cv::Mat canvas;     // BGR, exactly the requested size
    double scale;       // the scale asked for: min(width / cols, height / rows)
    cv::Size fitted;    // the size the image was resized to (round(cols * scale) x round(rows * scale))
};

/// Letterboxes an 8-bit gray or BGR image into a BGR canvas of exactly `size`: scaled to fit with its
/// aspect ratio kept (INTER_AREA when shrinking, INTER_LINEAR when enlarging), anchored top-left, the
/// rest filled with `pad`. A canvas point p maps back to the image as p / scale (faces), or exactly as
/// p.x * cols / fitted.width, p.y * rows / fitted.height. A gray image is expanded to BGR only at the
/// network's size.
///
/// `original` (when not empty) is the size of the image the caller means, of which `image` is a
/// reduction at least `fitted` in size (a power-of-two copy of a large photo, cheaper to shrink from):
/// scale and fitted size are the original's, and canvas points map back to the original.
inline aocv_letterboxed aocv_letterbox(const cv::Mat &image, cv::Size size, const cv::Scalar &pad = cv::Scalar(),
                                       cv::Size original = cv::Size()) {
    if (original.empty()) original = image.size();
    aocv_letterboxed lb;
    lb.scale = std::min((double)size.width / original.width, (double)size.height / original.height);
    lb.fitted = cv::Size(std::max(1, std::min(size.width, (int)std::lround(original.width * lb.scale))),
                         std::max(1, std::min(size.height, (int)std::lround(original.height * lb.scale))));
    if (image.size() != original && (image.cols < lb.fitted.width || image.rows < lb.fitted.height))
        throw std::runtime_error("letterbox: the reduction is smaller than the network's input");
    lb.canvas = cv::Mat(size, image.type(), pad);
    cv::Mat resized;
    aocv_resize_to(image, resized, lb.fitted);
    resized.copyTo(lb.canvas(cv::Rect(cv::Point(0, 0), lb.fitted)));
    lb.canvas = aocv_as_bgr(lb.canvas);
    return lb;
}
