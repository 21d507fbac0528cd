// What the two OpenCV shims (COpenCVShim, CVideoShim) share across their C faces: the status every call
// reports through and the matrix they pass each other. See aocv_common.hpp for their shared C++.
#ifndef AOCV_COMMON_H
#define AOCV_COMMON_H

#ifdef __cplusplus
extern "C" {
#endif

/// Outcome of a call: ok = 1 on success; otherwise ok = 0 and `message` says why.
typedef struct aocv_status {
    int ok;
    char message[512];
} aocv_status;

/// An owned OpenCV matrix (8-bit, 1 or 3 channels, BGR order). Free with aocv_mat_free (aocv.h).
typedef struct aocv_mat aocv_mat;

#ifdef __cplusplus
}
#endif

#endif
