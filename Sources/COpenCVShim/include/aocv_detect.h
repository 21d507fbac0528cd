// aocv_detect: rectangle and face detectors behind the same plain-C contract as aocv.h
// (every exception caught and reported through `aocv_status`; pointers non-null unless _Nullable).
#ifndef AOCV_DETECT_H
#define AOCV_DETECT_H

#include "aocv.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// A horizon: the line from (x1, y1) at the image's left edge to (x2, y2) at its right edge, in
/// pixels; `angle` in degrees, positive when the line rises to the right. With a sky map, `sky_above`
/// is the map's mean sky probability above the line (0-1; cells it crosses left out), -1 without one.
typedef struct aocv_horizon {
    double x1, y1, x2, y2;
    double angle;
    double sky_above;
    /// The line's angle before it was fitted to its run of edge (the angle the scene is judged at).
    double judged_angle;
} aocv_horizon;

/// Looks for a horizon line (like VNDetectHorizonRequest): a straight colour step between two
/// regions running across most of the picture, within 25° of level. On a copy `working_side` px on
/// its long side, in CIE Lab, lightly blurred, without flat border rows and columns and inside a
/// frame when it has one: at every whole degree the copy is turned so that lines at that angle are
/// rows, and each row is measured by its mean colour step (3 rows above minus 3 below) and by how
/// coherent the steps are (|mean step| / mean |step|: one polarity along the line). The 24 strongest
/// distinct peaks are ranked by mean step × coherence⁴; the best is refined to a quarter degree.
/// Returns 1 and fills `out` when a line scores 4 or more, 0 when there is none, -1 with status
/// set on error. Whether the scene has a horizon at all is the caller's judgement (HorizonRequest).
///
/// `sky` (may be NULL) is a `sky_grid` × `sky_grid` map, row-major, of the probability that each cell
/// of the picture (stretched to a square) is sky. With it, rows are also measured over their 3 best
/// of 8 strips (a horizon a monument hides), and of each measure's 12 strongest lines the one is kept
/// whose sides agree best with the map, its strength relative to the measure's best weighing in. That
/// line is no horizon when the map below it is less than half ground, or, unless its step scores 8 or
/// more, when the map above it is less than 60% sky, or when the map snapped to the picture's edges
/// has less than 20% sky just above it and less than a third of the map's sky above it (the line lies
/// inside the ground: rubble at a monument's foot, grass, a waterfall's rocks). With the map, the line
/// is then fitted to the longest run of edge points near it (within 3°), if that run is 1.5 times its own
/// and the fitted line passes the same tests: a horizon seen over half the width is not tilted through a
/// ledge beside it. `judged_angle` is the angle before that fit.
///
/// `original_width` × `original_height` (0 × 0: the image's own size) is the size of the image meant,
/// of which `image` (gray, BGR or BGRA) may be a reduction at least twice the copy (a halving of a
/// large photo); the line is in the original's pixels.
int aocv_detect_horizon(const aocv_mat *image, int working_side, int original_width, int original_height,
                        const float *_Nullable sky, int sky_grid, aocv_horizon *out, aocv_status *status);

/// Rotates by `degrees` (counter-clockwise) about the centre keeping the size, filling the
/// corners by reflecting the image (no straight border edges): for tests of rotation-aware detectors.
aocv_mat *_Nullable aocv_rotate_reflect(const aocv_mat *mat, double degrees, aocv_status *status);

/// Rotates by `degrees` (counter-clockwise) about the centre as a photo editor's rotate without crop
/// does: the corners left black, in the same frame, or (`enlarge` non-zero) in a frame enlarged to hold
/// the whole image. For tests.
aocv_mat *_Nullable aocv_rotate_black(const aocv_mat *mat, double degrees, int enlarge, aocv_status *status);

/// The empty corners of a photo turned without cropping (flat triangles at its corners, each bounded
/// by a straight edge; see aocv_horizon.cpp) filled with the picture reflected across that edge, as a
/// copy; `filled` is set to the number of corners filled (0: the copy is the image's pixels; so it is
/// for an image other than 8-bit gray or BGR).
aocv_mat *_Nullable aocv_fill_empty_corners(const aocv_mat *mat, int *filled, aocv_status *status);

/// Straightens: turns by `degrees` (counter-clockwise) about the centre and zooms just enough that
/// the turned image fills the same frame (no empty corners), as a photo editor's straighten tool does.
aocv_mat *_Nullable aocv_straighten(const aocv_mat *mat, double degrees, aocv_status *status);

/// Parameters of the rectangle detector, with Vision's VNDetectRectanglesRequest meanings.
typedef struct aocv_rect_params {
    double minimum_aspect_ratio;      // shorter side / longer side, default 0.5
    double maximum_aspect_ratio;      // default 1.0
    double quadrature_tolerance;      // degrees a corner may depart from 90, default 30
    double minimum_size;              // fraction of the smaller image side the quad's shorter side must reach, default 0.2
    double minimum_confidence;        // 0..1
    int maximum_observations;         // best first; <= 0 means no limit other than `capacity`
} aocv_rect_params;

/// A detected quadrilateral. Corners: top-left, top-right, bottom-right, bottom-left
/// (image coordinates, origin top-left, clockwise on screen); confidence in 0..1.
typedef struct aocv_quad {
    double x[4];
    double y[4];
    double confidence;
} aocv_quad;

/// Finds projected rectangles (documents, receipts, cards, screens, signs at an angle). Returns the
/// count written to `out` (<= capacity), best first, or -1 with status set. Out-of-range parameters
/// are clamped to Vision's ranges (tolerance 0..45); minimum > maximum aspect ratio is an error.
/// Corners are in pixel-centre coordinates (OpenCV's convention), clamped to [0, w-1] × [0, h-1].
/// Confidence = 0.45·edge (how much of each side has a same-polarity edge, and its contrast)
///            + 0.35·fit (source contour and re-found edges lie on straight sides)
///            + 0.20·angle (1 at 90° corners, 0.5 at the quadrature tolerance),
/// × 0.9 for each side lying on the image frame (a document cut by the frame; × 0.85 more when two
/// such sides meet at an image corner). Typical: 0.9+ a clean rectangle with four visible edges,
/// 0.6–0.85 a faint, occluded or frame-cut one, below ~0.6 mostly rectangle-shaped clutter.
/// The image frame itself (3 or 4 sides on the border) is never reported.
int aocv_detect_rectangles(const aocv_mat *image, const aocv_rect_params *params, aocv_quad *out,
                           int capacity, aocv_status *status);

/// A detected face: box in image pixels, confidence in 0..1, 5 landmarks as x,y pairs of right eye,
/// left eye, nose, right mouth corner, left mouth corner (subject's right/left as in CenterFace).
typedef struct aocv_face {
    double x, y, width, height;
    double confidence;
    double landmarks[10];
} aocv_face;

typedef struct aocv_face_detector aocv_face_detector;

/// Loads CenterFace ONNX (cv::dnn::readNetFromONNX) without OpenCV's layer fusion, so that one network
/// takes any input size (with fusion, OpenCV 4.6 gives wrong outputs once a network's input size changes:
/// MODELS.md pitfall 1; without it the outputs are those of a fresh network, in the same time). Each
/// call to aocv_detect_faces names its input size. One detector per thread.
aocv_face_detector *_Nullable aocv_centerface_create(const char *onnx_path, aocv_status *status);
/// Loads an OpenCV Haar cascade XML (fallback detector, no landmarks: landmarks set to NAN).
/// Its confidence is the detectMultiScale3 level weight w squashed by 1/(1+exp(-(w-2)/1.5))
/// (weight 2 → 0.5); the cascade runs on at most 640 px, min face 2% of the shorter side.
aocv_face_detector *_Nullable aocv_haar_create(const char *cascade_path, aocv_status *status);
void aocv_face_detector_free(aocv_face_detector *_Nullable detector);

/// Detects faces in a BGR image; returns the count (<= capacity), sorted by confidence desc,
/// or -1 with status. `threshold` is the minimum confidence (0.5 is a good default for both;
/// CenterFace never reports below 0.05, its heatmap noise floor). For CenterFace, the network's input is
/// `input_width` × `input_height` (positive multiples of 32; the Haar cascade ignores them), and `image`
/// may be a reduction of an image of `original_width` × `original_height` (0, 0: the image itself), at
/// least the fitted size: it is letterboxed as the original would be, and faces are in the original.
int aocv_detect_faces(aocv_face_detector *detector, const aocv_mat *image, int original_width, int original_height,
                      int input_width, int input_height, double threshold, aocv_face *out, int capacity,
                      aocv_status *status);

/// An axis-aligned box in pixels.
typedef struct aocv_box {
    int x, y, width, height;
    double score;   // how strongly the box shows what was looked for (see each function)
    double angle;   // aocv_barcode_regions: the bars' gradient direction in degrees, [0, 180); else 0
} aocv_box;

/// Where 1-D barcodes may be, so that a large photo is decoded at full resolution only there. Per
/// `tile`×`tile` tile of `gray`: strong edges (RMS Sobel response over 100), along one direction
/// (structure-tensor coherence over 0.8) and alternating in sign (a single step edge is not a
/// barcode). Neighbouring tiles are joined; boxes of at least three tiles are written to `out` (up to
/// `capacity`) in raster order, each with its score (the sum over its tiles of RMS response × coherence)
/// and its angle (the direction across its bars, from its summed structure tensor: 0 for upright bars,
/// 90 for bars along the rows, 45 and 135 diagonal). Returns how many boxes there are (possibly more than `capacity`),
/// or -1 with status set on error.
int aocv_barcode_regions(const aocv_mat *gray, int tile, aocv_box *out, int capacity, aocv_status *status);

/// A copy of the part of `mat` inside the box (clipped to the image).
aocv_mat *_Nullable aocv_crop(const aocv_mat *mat, int x, int y, int width, int height, aocv_status *status);

/// The input of PP-OCRv4's DB text detector (run on ONNX Runtime by the caller) for `image` (gray or
/// BGR): letterboxed into `input_width` × `input_height` (multiples of 32; black padding), PaddleOCR's
/// normalisation, written as a planar 3 × input_height × input_width tensor (BGR) into `out` (at least
/// `capacity` floats). `fitted_width` × `fitted_height` receive the size of the image inside it. `image`
/// may be a reduction of an image of `original_width` × `original_height` (0, 0: the image itself): it
/// is letterboxed as the original would be. 0, or -1 with status set.
int aocv_text_region_planes(const aocv_mat *image, int original_width, int original_height, int input_width, int input_height,
                            float *out, size_t capacity, int *fitted_width, int *fitted_height, aocv_status *status);

/// Where text is (like VNDetectTextRectanglesRequest, without the characters), from the detector's
/// probability map for that input (`map_width` × `map_height`): its fitted part thresholded at
/// `threshold`, closed by 5 × 3, split into connected components, of which those at least `min_side`
/// map pixels on their shorter side and `min_area` in area are written to `out` (up to `capacity`) as
/// boxes in the original's pixels, in raster order (score: the component's area in map pixels).
/// Returns how many there are, or -1 with status set.
int aocv_text_regions_from_map(const float *map, int map_width, int map_height, int fitted_width, int fitted_height,
                               int original_width, int original_height, double threshold, int min_side, int min_area,
                               aocv_box *out, int capacity, aocv_status *status);

/// The size of a page's glyphs: `gray` thresholded with Otsu's method (the minority of pixels taken as
/// ink, dark or light), its 8-connected components, and of those shaped like glyphs (at least 4 px tall, at
/// most a quarter of the image, neither side over 4 times the other, filling at least a tenth of their
/// box) the median height in pixels. `count` receives how many there are. Returns -1 with status set on error.
double aocv_glyph_height(const aocv_mat *gray, int *count, aocv_status *status);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif
