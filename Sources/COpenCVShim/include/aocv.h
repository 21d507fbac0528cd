// aocv: the small plain-C face of OpenCV 4.6 that AnalyzeCore uses.
//
// Why a C header and not Swift's C++ interop: a cv::Exception crossing interop aborts the
// process. Every function here catches every exception and reports it through `aocv_status`
// (ok = 0, message set), so bad pixels can only ever become a Swift error.
// Every symbol carries the `aocv_` prefix. Pointers are non-null unless marked _Nullable.
#ifndef AOCV_H
#define AOCV_H

#include "aocv_common.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// Limits OpenCV's own worker threads (cv::setNumThreads). The batch runner passes 1 per worker.
void aocv_set_num_threads(int threads);

/// Builds OpenCV's colour-conversion tables for CIE Lab, once per process (OpenCV builds them on its first
/// Lab conversion, in soft floating point: 110-155 ms, unguarded against two threads doing it at once).
/// Every later call returns at once, or waits for the first one to finish.
void aocv_prepare_lab_tables(void);

/// Turns OpenCV's own log off (cv::utils::logging, process-wide): its warnings and errors ("imdecode_:
/// can't read data", "[ERROR] DNN/ONNX …") are not analyze's lines; a failure reaches the caller as
/// the exception's message, through aocv_status. Every shim call does this once, first.
void aocv_silence_logging(void);

/// Decodes an encoded image (JPEG, PNG, TIFF, BMP, WebP…) with cv::imdecode, WITHOUT applying
/// EXIF orientation (IMREAD_IGNORE_ORIENTATION): orientation is decided in one place, by libexif.
/// The result is 8-bit: one channel for gray sources, BGR otherwise; 16-bit is scaled, alpha is
/// composited on white.
aocv_mat *_Nullable aocv_decode(const uint8_t *bytes, size_t length, aocv_status *status);

/// Decodes like aocv_decode, but reads JPEG and PNG with libjpeg and libpng directly (set up as
/// OpenCV's decoders set them up: the same pixels), so that nothing reaches stderr: those libraries'
/// warnings ("JPEG: Corrupt JPEG data: …", "PNG: iCCP: known incorrect sRGB profile") are written
/// to `warnings` (one per line, NUL-terminated, cut at `capacity`) and their errors become the
/// status message. `reduction` 2, 4 or 8 decodes a JPEG at 1/reduction of its size (libjpeg's DCT
/// scaling; the matrix's size tells what was done); 1 or any other value decodes at full size.
aocv_mat *_Nullable aocv_decode_reporting(const uint8_t *bytes, size_t length, int reduction, char *_Nullable warnings,
                                          size_t capacity, aocv_status *status);

/// Copies interleaved 8-bit RGB pixels (rows `stride` bytes apart, e.g. from libheif) into a new BGR matrix.
aocv_mat *_Nullable aocv_mat_from_rgb(const uint8_t *pixels, int width, int height, size_t stride, aocv_status *status);

/// Interleaves three 8-bit planes (R, G, B, each with its own row stride, e.g. libheif's 4:4:4 planes)
/// into a new BGR matrix.
aocv_mat *_Nullable aocv_mat_from_rgb_planes(const uint8_t *red, size_t redStride, const uint8_t *green, size_t greenStride,
                                             const uint8_t *blue, size_t blueStride, int width, int height, aocv_status *status);

void aocv_mat_free(aocv_mat *_Nullable mat);
int aocv_mat_width(const aocv_mat *mat);
int aocv_mat_height(const aocv_mat *mat);
int aocv_mat_channels(const aocv_mat *mat);
/// Pointer to the first pixel; rows are `*stride` bytes apart.
const uint8_t *aocv_mat_data(const aocv_mat *mat, size_t *stride);

/// Applies an EXIF orientation (1–8) to the pixels, returning the upright image.
aocv_mat *_Nullable aocv_orient(const aocv_mat *mat, int orientation, aocv_status *status);
/// 8-bit single-channel luminance (cv::cvtColor BGR2GRAY).
aocv_mat *_Nullable aocv_gray(const aocv_mat *mat, aocv_status *status);
/// A BGR copy (gray expanded; cv::cvtColor GRAY2BGR).
aocv_mat *_Nullable aocv_bgr(const aocv_mat *mat, aocv_status *status);
/// 255 - value for every pixel (cv::bitwise_not).
aocv_mat *_Nullable aocv_invert(const aocv_mat *mat, aocv_status *status);
/// Resizes to width × height (INTER_AREA when shrinking, INTER_CUBIC when enlarging).
aocv_mat *_Nullable aocv_resize(const aocv_mat *mat, int width, int height, aocv_status *status);
/// cv::resize with INTER_AREA itself, never the shim's own box filter: what the tests hold aocv_resize's
/// shrinks to, byte for byte.
aocv_mat *_Nullable aocv_resize_opencv_area(const aocv_mat *mat, int width, int height, aocv_status *status);
/// Rotates by `degrees` counter-clockwise about the centre onto a canvas large enough to hold
/// the whole image (new area filled with `fill`). `inverse` receives the 2×3 affine matrix
/// (row-major) that maps a point of the rotated image back into `mat`.
aocv_mat *_Nullable aocv_rotate(const aocv_mat *mat, double degrees, uint8_t fill,
                                double inverse[_Nonnull 6], aocv_status *status);
/// Perspective-corrects the quadrilateral `corners` (x,y × 4: top-left, top-right,
/// bottom-right, bottom-left) into a width × height image (cv::warpPerspective).
aocv_mat *_Nullable aocv_warp_quad(const aocv_mat *mat, const double corners[_Nonnull 8],
                                   int width, int height, aocv_status *status);

/// A new BGR matrix of width × height filled with the colour r,g,b.
aocv_mat *_Nullable aocv_mat_new(int width, int height, uint8_t r, uint8_t g, uint8_t b, aocv_status *status);
/// Copies `source` (gray or BGR) into `target` (BGR) with its top-left corner at x,y; the part
/// outside `target` is cut.
int aocv_mat_paste(aocv_mat *target, const aocv_mat *source, int x, int y, aocv_status *status);

/// Draws a polyline through `count` points (x,y pairs) in colour r,g,b (anti-aliased).
void aocv_draw_polyline(aocv_mat *mat, const double *points, int count, int closed,
                        uint8_t r, uint8_t g, uint8_t b, int thickness);
/// Sets every channel of the pixels in the rectangle (cut at the edges) to `value`.
void aocv_fill_rect(aocv_mat *mat, int x, int y, int width, int height, uint8_t value);
/// Draws a circle; thickness < 0 fills it.
void aocv_draw_circle(aocv_mat *mat, double x, double y, double radius,
                      uint8_t r, uint8_t g, uint8_t b, int thickness);
/// The size in pixels of the label aocv_draw_label draws for `text` at `scale` (its background box).
void aocv_label_size(const char *text, double scale, double *width, double *height);
/// Draws a short ASCII label with its top-left corner at x,y on a filled box of colour r,g,b,
/// in black or white text, whichever reads better. Non-ASCII bytes must be replaced by the caller.
void aocv_draw_label(aocv_mat *mat, const char *text, double x, double y, double scale,
                     uint8_t r, uint8_t g, uint8_t b);

/// Encodes as PNG into a malloc'ed buffer that the caller frees with aocv_buffer_free.
int aocv_encode_png(const aocv_mat *mat, uint8_t *_Nullable *_Nonnull bytes, size_t *length,
                    aocv_status *status);
/// Encodes as JPEG (webp = 0) or WebP (webp = 1) at `quality` (1–100); freed with aocv_buffer_free.
int aocv_encode_lossy(const aocv_mat *mat, int webp, int quality, uint8_t *_Nullable *_Nonnull bytes, size_t *length,
                      aocv_status *status);
void aocv_buffer_free(uint8_t *_Nullable bytes);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif
