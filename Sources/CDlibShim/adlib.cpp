// dlib's shape predictor behind a C API. dlib's generic image interface is implemented for a
// borrowed gray buffer, so predictions read the caller's pixels without copying the image.
#include "include/adlib.h"
#include <dlib/image_processing/shape_predictor.h>
#include <dlib/serialize.h>
#include <cmath>
#include <cstdio>
#include <exception>

struct adlib_shape_predictor {
    dlib::shape_predictor model;
};

namespace adlib_detail {
/// A read-only view of 8-bit gray pixels in caller memory, with dlib's generic image
/// interface (found by argument-dependent lookup, so it lives in this namespace).
struct gray_view {
    const uint8_t *data;
    long rows, columns;
    long stride;
};
inline long num_rows(const gray_view &img) { return img.rows; }
inline long num_columns(const gray_view &img) { return img.columns; }
inline const void *image_data(const gray_view &img) { return img.data; }
inline long width_step(const gray_view &img) { return img.stride; }

void report(char *error, size_t size, const char *message) {
    if (error && size > 0) std::snprintf(error, size, "%s", message);
}
} // namespace adlib_detail

namespace dlib {
template <> struct image_traits<adlib_detail::gray_view> { typedef unsigned char pixel_type; };
} // namespace dlib

extern "C" adlib_shape_predictor *adlib_shape_predictor_load(const char *path, char *error, size_t error_size) {
    try {
        auto *predictor = new adlib_shape_predictor();
        dlib::deserialize(path) >> predictor->model;
        return predictor;
    } catch (const std::exception &e) {
        adlib_detail::report(error, error_size, e.what());
    } catch (...) {
        adlib_detail::report(error, error_size, "unknown C++ exception");
    }
    return nullptr;
}

extern "C" void adlib_shape_predictor_free(adlib_shape_predictor *predictor) { delete predictor; }

extern "C" int adlib_shape_predictor_parts(const adlib_shape_predictor *predictor) {
    return (int)predictor->model.num_parts();
}

extern "C" int adlib_shape_predictor_predict(const adlib_shape_predictor *predictor, const uint8_t *gray, int width,
                                             int height, size_t stride, double left, double top, double box_width,
                                             double box_height, double *points, char *error, size_t error_size) {
    try {
        const adlib_detail::gray_view view{gray, height, width, (long)stride};
        const dlib::rectangle box((long)std::lround(left), (long)std::lround(top),
                                  (long)std::lround(left + box_width) - 1, (long)std::lround(top + box_height) - 1);
        const dlib::full_object_detection shape = predictor->model(view, box);
        for (unsigned long i = 0; i < shape.num_parts(); ++i) {
            points[2 * i] = (double)shape.part(i).x();
            points[2 * i + 1] = (double)shape.part(i).y();
        }
        return 1;
    } catch (const std::exception &e) {
        adlib_detail::report(error, error_size, e.what());
    } catch (...) {
        adlib_detail::report(error, error_size, "unknown C++ exception");
    }
    return 0;
}
