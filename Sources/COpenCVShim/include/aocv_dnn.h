// aocv_dnn: object detection (YOLO) and image classification with cv::dnn, behind the same plain-C
// contract as aocv.h (every exception caught and reported through `aocv_status`; pointers non-null
// unless _Nullable).
//
// One aocv_dnn_model per thread: a cv::dnn::Net is not thread-safe, and it is always fed the one input
// size given at load (OpenCV 4.6 silently computes wrong outputs when a Net's input size changes after
// its first forward pass).
//
// Models known to work (scripts/fetch-models):
//   YOLOv4-tiny (Darknet .cfg + .weights, 80 COCO classes): detector, 416x416, scale 1/255, mean 0,
//     std 1, swap_rb 1, LETTERBOX (on 4:3 and wider photos it finds more, and surer, than STRETCH);
//     NMS 0.45. Scores seen: real objects mostly 0.5-0.99; false ones up to ~0.6 (a baboon as a person
//     0.59, a drawn circle as a clock 0.56), candy as oranges 0.80; plain text pages nothing above 0.01.
//   EfficientNet-Lite0 (ONNX, 1000 ImageNet classes): classifier, 224x224, CENTER_CROP 0.875,
//     swap_rb 1, scale 1, mean 127, std 128 (TF's preprocessing for the Lite models).
#ifndef AOCV_DNN_H
#define AOCV_DNN_H

#include "aocv.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// What a model does. AOCV_DNN_AUTO (load only) decides from the shapes of its outputs.
typedef enum aocv_dnn_kind {
    AOCV_DNN_AUTO = 0,
    AOCV_DNN_DETECTOR = 1,
    AOCV_DNN_CLASSIFIER = 2,
} aocv_dnn_kind;

/// How an image is brought to the network's fixed input size.
typedef enum aocv_dnn_resize {
    /// Resized to exactly the input size, aspect ratio not kept.
    AOCV_DNN_STRETCH = 0,
    /// Scaled to fit with the aspect ratio kept, anchored top-left, the rest filled with mid-gray (127).
    AOCV_DNN_LETTERBOX = 1,
    /// The central region with the input's aspect ratio, `crop_fraction` of the largest such region
    /// (0.875 = ImageNet's "resize 256, crop 224"), resized to the input size. Detections found in it
    /// are mapped back into the whole image; nothing outside it is seen.
    AOCV_DNN_CENTER_CROP = 2,
} aocv_dnn_resize;

/// Parameters of a model, fixed at load. Resizing: STRETCH uses INTER_AREA when shrinking, INTER_CUBIC
/// when enlarging; LETTERBOX INTER_AREA / INTER_LINEAR (the faces' letterbox); CENTER_CROP INTER_CUBIC
/// both ways, as TF's reference pipeline (a crop over 4x the input is first shrunk to 2x with INTER_AREA).
typedef struct aocv_dnn_params {
    aocv_dnn_kind role;        // AUTO, DETECTOR or CLASSIFIER; a forced role the outputs do not fit fails
    int input_width;           // the network's fixed input, e.g. 416x416 (YOLOv4-tiny), 224x224 (Lite0)
    int input_height;
    /// Each input value is (pixel * scale - mean[c]) / std[c], with pixel in 0..255 and c the channel
    /// in the order fed to the network (R, G, B when swap_rb). std[c] <= 0 counts as 1.
    double scale;
    double mean[3];
    double std[3];
    int swap_rb;               // 1: feed RGB (both models above); 0: feed BGR
    aocv_dnn_resize resize;
    double crop_fraction;      // CENTER_CROP only, in (0, 1]; <= 0 means 0.875
    int class_count;           // classes the caller's names file has; 0 = unknown (not checked)
} aocv_dnn_params;

typedef struct aocv_dnn_model aocv_dnn_model;

/// A class and its score (probability for a classifier; objectness × class probability for a detector).
typedef struct aocv_class_score {
    int index;
    double score;
} aocv_class_score;

/// A detected object: box in image pixels (origin top-left, clipped to the image), its confidence
/// (= labels[0].score) and up to 5 classes, best first (ties by class index).
typedef struct aocv_detection {
    double x, y, width, height;
    double confidence;
    int label_count;
    aocv_class_score labels[5];
} aocv_detection;

/// Loads a model and checks, with one forward pass on a blank input, that its outputs can be read:
///   Darknet: `model_path` .weights and `config_path` .cfg (either order): cv::dnn::readNetFromDarknet.
///            The cfg's [yolo]/[region] `thresh` is set to 0 in memory, so that OpenCV keeps every
///            class score (it zeroes those below 0.2 otherwise) and a detection can list 5 classes.
///   ONNX:    `model_path` .onnx, `config_path` NULL: cv::dnn::readNetFromONNX (opset <= 10 and fixed
///            input dimensions for OpenCV 4.6). A fully convolutional model may also run, without error,
///            at a size other than its own: give the size it was exported with.
/// Outputs understood:
///   detector   every output [N, 5+C] or [1, N, 5+C] (N > 1, same C), rows of cx, cy, w, h, objectness,
///              C class scores:
///              - Darknet YOLO region layers (YOLOv2/v3/v4, tiny or not): box normalised to the input
///                (0..1), class columns already objectness × class probability (OpenCV multiplies);
///              - ONNX YOLOv5-style heads (one output [1, N, 5+C] with N > 5+C, sigmoids applied in the
///                model): box in input pixels, score = objectness × class probability.
///              Not understood: YOLOv8-style [1, 4+C, N] (no objectness), raw per-level YOLOv5 heads
///              [1, 3, H, W, 5+C], SSD/Faster R-CNN [1, 1, N, 7].
///   classifier one output of C values ([1, C], [1, C, 1, 1] or [1, 1, C]): probabilities, or logits to
///              which softmax is applied (decided at load: logits unless every value of the blank pass
///              is >= 0 and they sum to 1 ± 0.01).
/// Fails (NULL, status set) on unreadable files, a forward pass that fails at the input size, outputs
/// it cannot interpret (the message lists their shapes), or a class count different from class_count.
aocv_dnn_model *_Nullable aocv_dnn_load(const char *model_path, const char *_Nullable config_path,
                                        aocv_dnn_params params, aocv_status *status);
void aocv_dnn_free(aocv_dnn_model *_Nullable model);

/// The model's role (DETECTOR or CLASSIFIER, never AUTO) and its number of classes.
aocv_dnn_kind aocv_dnn_role(const aocv_dnn_model *model);
int aocv_dnn_class_count(const aocv_dnn_model *model);

/// Detects objects in an 8-bit BGR or gray image. Every candidate row whose best class score reaches
/// `score_threshold` (never below 0.01, which also bounds the work at threshold 0) is kept for its best
/// class; non-maximum suppression (cv::dnn::NMSBoxes, IoU above
/// `nms_threshold` suppressed) runs per class. Boxes are mapped back exactly through the resize.
/// `original_width` × `original_height` (0 × 0: the image's own size) is the size of the image meant,
/// of which `image` is a reduction (a power-of-two copy): boxes are in the original's pixels.
/// Returns the count written to `out` (<= capacity), by confidence desc, then class index, then box
/// top, left; or -1 with status set (also for a classifier).
int aocv_dnn_detect(aocv_dnn_model *model, const aocv_mat *image, int original_width, int original_height,
                    double score_threshold, double nms_threshold, aocv_detection *out, int capacity, aocv_status *status);

/// Where a network's input pixels come from in the image: x_image = x_input × ax + bx, y_image = y_input × ay + by.
typedef struct aocv_dnn_mapping {
    double ax, bx, ay, by;
} aocv_dnn_mapping;

/// The input a network described by `params` reads for `image` (resize, scale, mean, std, swap_rb as
/// for aocv_dnn_load; role and class_count ignored), for a network run elsewhere (ONNX Runtime): a
/// planar 1 × 3 × input_height × input_width float tensor written to `out`, which holds `capacity`
/// floats. `original_width` × `original_height` as for aocv_dnn_detect. `mapping` (may be NULL)
/// receives the map from input pixels back to the original. 0, or -1 with status set.
int aocv_dnn_input_planes(const aocv_mat *image, int original_width, int original_height, aocv_dnn_params params,
                          float *out, size_t capacity, aocv_dnn_mapping *_Nullable mapping, aocv_status *status);

/// A classifier's `count` output values ranked as aocv_dnn_classify ranks them: softmax applied when
/// they are logits (some value below 0, or a sum off 1 by more than 0.01), values that are not finite
/// ranked last; the k best written to `out`, best first, ties by class index. Returns how many.
int aocv_dnn_rank_classes(const float *values, int count, aocv_class_score *out, int k);

/// Classifies an 8-bit BGR or gray image: writes the k best classes (probabilities, best first, ties by
/// class index) and returns how many (<= k and <= the class count), or -1 with status set (also for a
/// detector). `original_width` × `original_height` as for aocv_dnn_detect: the centre crop is the
/// original's, its pixels read from the reduction.
int aocv_dnn_classify(aocv_dnn_model *model, const aocv_mat *image, int original_width, int original_height,
                      aocv_class_score *out, int k, aocv_status *status);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif
