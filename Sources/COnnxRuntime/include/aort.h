// aort: ONNX Runtime's C API behind a few plain-C calls, for networks OpenCV 4.6's DNN cannot run
// (PP-OCRv4's line recognizer) or runs slower.
//
// Why a shim: ONNX Runtime's API is a table of some 300 function pointers (OrtApi) whose every call
// returns an OrtStatus to check and release; the shim does that in one place and hands Swift a status
// and a message. Why dlopen: libonnxruntime.so (20 MB, from PyPI's onnxruntime wheel; Debian 12 has no
// package) is a file found like a model, at a path the caller gives, and opened only by runs that use a
// network on it, so start-up stays fast and an analyze without it still reads barcodes. The header is
// Debian's (libonnxruntime-dev, the same 1.21.0), installed by scripts/fetch-onnxruntime.
#ifndef AORT_H
#define AORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// An ONNX model loaded into an inference session. Not thread-safe in this wrapper's use: one per
/// worker. Free with aort_session_free.
typedef struct aort_session aort_session;

/// A network's output: `count` floats of the given shape, owned by the caller (free with aort_free).
typedef struct {
    float *_Nullable data;
    int64_t shape[8];
    size_t rank;
    size_t count;
} aort_output;

/// Opens ONNX Runtime's library at `library_path` (once per process; later calls must name the same
/// file) and loads `model_path` into a session that runs on `threads` threads of its own, without
/// spinning, with every graph optimisation and without a memory arena (inputs change size with every
/// line). Its first input and first output are the ones aort_session_run uses. NULL on failure, with
/// why in `error` (NUL-terminated, cut at `capacity`).
aort_session *_Nullable aort_session_create(const char *library_path, const char *model_path, int threads,
                                            char *error, size_t capacity);

/// As aort_session_create, with `output_name`, a float tensor inside the graph (EfficientNet-Lite0's pooled
/// features, `/Reshape_output_0`), made an output of the model as loaded and the one aort_session_run
/// returns. The file is not changed: its bytes are read and a second graph message listing that output is
/// appended, which protobuf merges into the first (repeated fields concatenate). A name the graph does not
/// have fails the load. With `input_height` and `input_width` above 0, the model's first input (NCHW) is
/// declared that size instead of its own, in place (a fully convolutional part read at another size;
/// the new sizes must encode to as many bytes as the old: 224 → 320 does).
aort_session *_Nullable aort_session_create_inner_output(const char *library_path, const char *model_path, const char *output_name,
                                                         int input_height, int input_width, int threads, char *error,
                                                         size_t capacity);

/// Runs the session on one float tensor of `rank` dimensions `shape` (row-major `input`), and
/// returns its first output in `output`. 0 on success; -1 with why in `error`.
int aort_session_run(aort_session *session, const float *input, const int64_t *shape, size_t rank,
                     aort_output *output, char *error, size_t capacity);

/// The value of the model's custom metadata `key` (PP-OCR's recognizer keeps its alphabet under
/// "character"), copied with malloc (free with aort_free); NULL when the model has none.
char *_Nullable aort_session_metadata(aort_session *session, const char *key);

/// The declared dimensions of the session's first input (-1 for a dynamic one); returns the rank.
size_t aort_session_input_shape(aort_session *session, int64_t shape[_Nonnull 8]);

void aort_session_free(aort_session *_Nullable session);
void aort_free(void *_Nullable pointer);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif
