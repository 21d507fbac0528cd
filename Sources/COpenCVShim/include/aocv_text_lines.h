// aocv_text_lines: the pixel work of reading text lines with a network (PP-OCR's DB detector, direction
// classifier and CTC recognizer, which run on ONNX Runtime): network inputs made from images, lines
// found in the detector's probability map, lines cut out of the image upright. Plain C, every exception
// caught and reported through `aocv_status`, as aocv.h.
#ifndef AOCV_TEXT_LINES_H
#define AOCV_TEXT_LINES_H

#include "aocv.h"
#include "aocv_detect.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// Writes the part x, y, width × height of `image` (gray or BGR; the whole image when width or height
/// is 0), resized to `out_width` × `out_height` (bilinear), into `out` as a planar 3 × out_height ×
/// out_width float tensor in BGR order: value = (pixel / 255 - mean[c]) / std[c]. 0, or -1 with status.
int aocv_network_planes(const aocv_mat *image, int x, int y, int width, int height, int out_width, int out_height,
                        const double mean[_Nonnull 3], const double std[_Nonnull 3], float *out, aocv_status *status);

/// Text lines in a DB detector's probability map (`map_width` × `map_height`, one value a pixel), as
/// PaddleOCR finds them: the map over `threshold`, dilated by 2 × 2, its outer contours; each contour's
/// smallest turned rectangle, kept when its shorter side is at least `min_side` map pixels and the mean
/// probability inside the contour's box at least `box_threshold`; grown on every side by
/// area × `unclip_ratio` / perimeter (DB's unclip of a rectangle). Corners go to image pixels as
/// (map x × scale_x + offset_x, map y × scale_y + offset_y), clamped to [0, image_width] ×
/// [0, image_height], ordered top-left, top-right, bottom-right, bottom-left of the line as written
/// left to right; `confidence` is the box's mean probability. Returns how many lines there are (only
/// the first `capacity` written, the largest first), or -1 with status.
int aocv_text_lines_from_map(const float *map, int map_width, int map_height, double threshold, double box_threshold,
                             double unclip_ratio, int min_side, double scale_x, double scale_y, double offset_x,
                             double offset_y, int image_width, int image_height, aocv_quad *out, int capacity,
                             aocv_status *status);

/// Cuts the line with corners `quad` (top-left, top-right, bottom-right, bottom-left) out of `image`
/// upright (a perspective warp to its width × height), turned a quarter clockwise back to horizontal
/// when it is at least `vertical_ratio` times as tall as wide (a vertical line, read top to bottom;
/// `*turned` set to 1), and a half turn more when `half_turn` is nonzero (upside down). Then resized to
/// `height` rows at its own aspect ratio, at most `max_width` columns (at least `min_width`), and
/// written as network planes (see aocv_network_planes; BGR, (pixel / 255 - 0.5) / 0.5) into the first
/// columns of `out`, a 3 × height × `stride` tensor whose other columns are set to 0. Returns the
/// columns written, or -1 with status.
int aocv_text_line_planes(const aocv_mat *image, const aocv_quad *quad, int height, int min_width, int max_width,
                          double vertical_ratio, int half_turn, int *turned, float *out, int stride, aocv_status *status);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif
