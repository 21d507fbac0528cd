// adlib: the plain-C face of dlib's 68-point face landmark predictor (dlib::shape_predictor).
// Kept apart from the OpenCV shim so that dlib's headers and link flags stay in one place.
// Every C++ exception is caught and reported through `error` (returns NULL / 0).
#ifndef ADLIB_H
#define ADLIB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

typedef struct adlib_shape_predictor adlib_shape_predictor;

/// Loads a shape predictor model (e.g. /usr/share/dlib/shape_predictor_68_face_landmarks.dat).
adlib_shape_predictor *_Nullable adlib_shape_predictor_load(const char *path, char *error, size_t error_size);

void adlib_shape_predictor_free(adlib_shape_predictor *_Nullable predictor);

/// Number of points the model predicts (68 for the iBUG 300-W model).
int adlib_shape_predictor_parts(const adlib_shape_predictor *predictor);

/// Predicts the landmarks inside a face box of an 8-bit gray image (rows `stride` bytes apart).
/// Writes x,y pairs for every part into `points` (capacity: 2 × parts doubles). Returns 1 on success.
/// The predictor is not modified: one predictor may serve several threads at once.
int adlib_shape_predictor_predict(const adlib_shape_predictor *predictor, const uint8_t *gray, int width,
                                  int height, size_t stride, double left, double top, double box_width,
                                  double box_height, double *points, char *error, size_t error_size);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif
