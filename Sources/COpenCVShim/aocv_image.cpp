// Orientation and pixel transforms (decoding is in aocv_decode.cpp).
#include "aocv_internal.hpp"
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <png.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <jpeglib.h>
#include <stdexcept>
#include <vector>
#include <algorithm>
#include <cmath>
#include <mutex>

extern "C" void aocv_set_num_threads(int threads) {
    try { cv::setNumThreads(threads); } catch (...) {}
}

extern "C" void aocv_prepare_lab_tables(void) {
    static std::once_flag once;
    try {
        std::call_once(once, [] {
            cv::Mat pixel(1, 1, CV_32FC3, cv::Scalar(0.5, 0.5, 0.5)), lab;
            cv::cvtColor(pixel, lab, cv::COLOR_BGR2Lab);
        });
    } catch (...) {}
}

extern "C" void aocv_silence_logging(void) {
    aocv_discard_cerr();
    try { cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT); } catch (...) {}
}

extern "C" aocv_mat *aocv_mat_from_rgb(const uint8_t *pixels, int width, int height, size_t stride, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        if (width <= 0 || height <= 0 || stride < (size_t)width * 3) throw std::runtime_error("bad RGB buffer geometry");
        const cv::Mat rgb(height, width, CV_8UC3, (void *)pixels, stride);
        cv::Mat bgr;
        cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
        return aocv_wrap(std::move(bgr));
    });
}

extern "C" aocv_mat *aocv_mat_from_rgb_planes(const uint8_t *red, size_t redStride, const uint8_t *green, size_t greenStride,
                                              const uint8_t *blue, size_t blueStride, int width, int height, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        if (width <= 0 || height <= 0 || redStride < (size_t)width || greenStride < (size_t)width || blueStride < (size_t)width)
            throw std::runtime_error("bad RGB plane geometry");
        const cv::Mat planes[3] = {cv::Mat(height, width, CV_8UC1, (void *)blue, blueStride),
                                   cv::Mat(height, width, CV_8UC1, (void *)green, greenStride),
                                   cv::Mat(height, width, CV_8UC1, (void *)red, redStride)};
        cv::Mat bgr;
        cv::merge(planes, 3, bgr);
        return aocv_wrap(std::move(bgr));
    });
}

extern "C" void aocv_mat_free(aocv_mat *mat) { delete mat; }
extern "C" int aocv_mat_width(const aocv_mat *mat) { return mat->m.cols; }
extern "C" int aocv_mat_height(const aocv_mat *mat) { return mat->m.rows; }
extern "C" int aocv_mat_channels(const aocv_mat *mat) { return mat->m.channels(); }
extern "C" const uint8_t *aocv_mat_data(const aocv_mat *mat, size_t *stride) {
    *stride = mat->m.step[0];
    return mat->m.data;
}

extern "C" aocv_mat *aocv_orient(const aocv_mat *mat, int orientation, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        const cv::Mat &s = mat->m;
        cv::Mat out;
        switch (orientation) {
        case 1: out = s.clone(); break;
        case 2: cv::flip(s, out, 1); break;                         // mirror horizontal
        case 3: cv::rotate(s, out, cv::ROTATE_180); break;
        case 4: cv::flip(s, out, 0); break;                         // mirror vertical
        case 5: cv::transpose(s, out); break;                       // transpose
        case 6: cv::rotate(s, out, cv::ROTATE_90_CLOCKWISE); break;
        case 7: cv::transpose(s, out); cv::rotate(out, out, cv::ROTATE_180); break; // transverse
        case 8: cv::rotate(s, out, cv::ROTATE_90_COUNTERCLOCKWISE); break;
        default: throw std::runtime_error("orientation must be 1-8");
        }
        return aocv_wrap(std::move(out));
    });
}

extern "C" aocv_mat *aocv_gray(const aocv_mat *mat, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        if (mat->m.channels() == 1) return aocv_wrap(mat->m.clone());
        cv::Mat g;
        cv::cvtColor(mat->m, g, cv::COLOR_BGR2GRAY);
        return aocv_wrap(std::move(g));
    });
}

extern "C" aocv_mat *aocv_bgr(const aocv_mat *mat, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        if (mat->m.channels() == 3) return aocv_wrap(mat->m.clone());
        cv::Mat bgr;
        cv::cvtColor(mat->m, bgr, cv::COLOR_GRAY2BGR);
        return aocv_wrap(std::move(bgr));
    });
}

extern "C" aocv_mat *aocv_invert(const aocv_mat *mat, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        cv::Mat out;
        cv::bitwise_not(mat->m, out);
        return aocv_wrap(std::move(out));
    });
}

extern "C" aocv_mat *aocv_resize(const aocv_mat *mat, int width, int height, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        if (width <= 0 || height <= 0) throw std::runtime_error("resize to an empty size");
        cv::Mat out;
        const bool shrink = width < mat->m.cols;
        if (shrink) aocv_resize_area(mat->m, out, cv::Size(width, height));
        else cv::resize(mat->m, out, cv::Size(width, height), 0, 0, cv::INTER_CUBIC);
        return aocv_wrap(std::move(out));
    });
}

extern "C" aocv_mat *aocv_resize_opencv_area(const aocv_mat *mat, int width, int height, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        if (width <= 0 || height <= 0) throw std::runtime_error("resize to an empty size");
        cv::Mat out;
        cv::resize(mat->m, out, cv::Size(width, height), 0, 0, cv::INTER_AREA);
        return aocv_wrap(std::move(out));
    });
}

extern "C" aocv_mat *aocv_rotate(const aocv_mat *mat, double degrees, uint8_t fill, double inverse[6],
                                 aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        const cv::Mat &s = mat->m;
        const cv::Point2f centre(s.cols / 2.0f, s.rows / 2.0f);
        cv::Mat forward = cv::getRotationMatrix2D(centre, degrees, 1.0);
        const double a = std::abs(forward.at<double>(0, 0)), b = std::abs(forward.at<double>(0, 1));
        const int w = (int)std::lround(s.rows * b + s.cols * a), h = (int)std::lround(s.rows * a + s.cols * b);
        forward.at<double>(0, 2) += w / 2.0 - centre.x;
        forward.at<double>(1, 2) += h / 2.0 - centre.y;
        cv::Mat out;
        cv::warpAffine(s, out, forward, cv::Size(w, h), cv::INTER_LINEAR, cv::BORDER_CONSTANT,
                       cv::Scalar::all(fill));
        cv::Mat inv;
        cv::invertAffineTransform(forward, inv);
        for (int i = 0; i < 6; ++i) inverse[i] = inv.at<double>(i / 3, i % 3);
        return aocv_wrap(std::move(out));
    });
}

extern "C" aocv_mat *aocv_warp_quad(const aocv_mat *mat, const double corners[8], int width, int height,
                                    aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        if (width <= 0 || height <= 0) throw std::runtime_error("empty target size");
        const cv::Point2f src[4] = {{(float)corners[0], (float)corners[1]}, {(float)corners[2], (float)corners[3]},
                                    {(float)corners[4], (float)corners[5]}, {(float)corners[6], (float)corners[7]}};
        const cv::Point2f dst[4] = {{0, 0}, {(float)width - 1, 0}, {(float)width - 1, (float)height - 1},
                                    {0, (float)height - 1}};
        cv::Mat out;
        cv::warpPerspective(mat->m, out, cv::getPerspectiveTransform(src, dst), cv::Size(width, height),
                            cv::INTER_LINEAR, cv::BORDER_REPLICATE);
        return aocv_wrap(std::move(out));
    });
}

/// Appends libpng's output to a byte vector.
static void appendToVector(png_structp png, png_bytep data, png_size_t length) {
    auto *out = static_cast<std::vector<uint8_t> *>(png_get_io_ptr(png));
    out->insert(out->end(), data, data + length);
}

/// libpng errors unwind through a C++ exception (libpng's default is longjmp).
[[noreturn]] static void throwPNGError(png_structp, png_const_charp message) { throw std::runtime_error(message); }

/// Encodes with libpng directly rather than cv::imencode, to choose the speed/size trade-off:
/// the SUB row filter only (libpng's default tries all five on every row) and zlib level 1.
/// On the corpus this halves the annotated PNG's cost for files about 10% larger.
static std::vector<uint8_t> encodePNG(const cv::Mat &m) {
    if (m.depth() != CV_8U || (m.channels() != 1 && m.channels() != 3)) throw std::runtime_error("PNG needs 8-bit gray or BGR");
    std::vector<uint8_t> out;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, throwPNGError, nullptr);
    if (!png) throw std::bad_alloc();
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, nullptr);
        throw std::bad_alloc();
    }
    try {
        png_set_write_fn(png, &out, appendToVector, nullptr);
        png_set_IHDR(png, info, (png_uint_32)m.cols, (png_uint_32)m.rows, 8,
                     m.channels() == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
        png_set_compression_level(png, 1);
        png_write_info(png, info);
        if (m.channels() == 3) png_set_bgr(png);
        for (int y = 0; y < m.rows; ++y) png_write_row(png, m.ptr<uint8_t>(y));
        png_write_end(png, nullptr);
    } catch (...) {
        png_destroy_write_struct(&png, &info);
        throw;
    }
    png_destroy_write_struct(&png, &info);
    return out;
}

extern "C" int aocv_encode_png(const aocv_mat *mat, uint8_t **bytes, size_t *length, aocv_status *status) {
    *bytes = nullptr;
    *length = 0;
    return aocv_guard<int>(status, 0, [&]() -> int {
        const std::vector<uint8_t> buffer = encodePNG(mat->m);
        uint8_t *out = (uint8_t *)std::malloc(buffer.size());
        if (!out) throw std::bad_alloc();
        std::copy(buffer.begin(), buffer.end(), out);
        *bytes = out;
        *length = buffer.size();
        return 1;
    });
}

/// libjpeg errors unwind through a C++ exception (libjpeg's default prints and exits the process).
[[noreturn]] static void throwJPEGError(j_common_ptr info) {
    char text[JMSG_LENGTH_MAX] = {0};
    (*info->err->format_message)(info, text);
    throw std::runtime_error(std::string("JPEG: ") + text);
}

static void ignoreJPEGMessage(j_common_ptr, int) {}

/// Encodes with libjpeg directly, set up as OpenCV 4.6's JPEG encoder sets it up for cv::imencode
/// with only a quality (baseline, default tables scaled to `quality`, 4:2:0, no optimised Huffman
/// coding, no restart markers), so that writing a photo's annotated JPEG does not open OpenCV's image
/// codecs (aocv_codecs.cpp). BGR goes in as libjpeg-turbo's JCS_EXT_BGR: the same colour conversion
/// OpenCV's BGR-to-RGB copy followed by JCS_RGB gives.
/// The bytes are libjpeg's own malloc'ed buffer, handed to the caller (freed with aocv_buffer_free):
/// a photo's JPEG is not copied again.
static void encodeJPEG(const cv::Mat &m, int quality, uint8_t **bytes, size_t *length) {
    if (m.depth() != CV_8U || (m.channels() != 1 && m.channels() != 3)) throw std::runtime_error("JPEG needs 8-bit gray or BGR");
    jpeg_compress_struct info;
    jpeg_error_mgr errors;
    info.err = jpeg_std_error(&errors);
    errors.error_exit = throwJPEGError;
    errors.emit_message = ignoreJPEGMessage;
    jpeg_create_compress(&info);
    unsigned char *memory = nullptr;
    unsigned long size = 0;
    struct Cleanup {
        jpeg_compress_struct *info;
        unsigned char **memory;
        ~Cleanup() {
            jpeg_destroy_compress(info);
            std::free(*memory);   // jpeg_mem_dest's buffer is malloc'ed
        }
    } cleanup{&info, &memory};
    jpeg_mem_dest(&info, &memory, &size);
    info.image_width = (JDIMENSION)m.cols;
    info.image_height = (JDIMENSION)m.rows;
    info.input_components = m.channels();
    info.in_color_space = m.channels() == 3 ? JCS_EXT_BGR : JCS_GRAYSCALE;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, std::clamp(quality, 1, 100), TRUE);
    jpeg_start_compress(&info, TRUE);
    for (int y = 0; y < m.rows; ++y) {
        JSAMPROW row = const_cast<JSAMPROW>(m.ptr<uint8_t>(y));
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    *bytes = memory;
    *length = size;
    memory = nullptr;   // now the caller's
}

extern "C" int aocv_encode_lossy(const aocv_mat *mat, int webp, int quality, uint8_t **bytes, size_t *length, aocv_status *status) {
    *bytes = nullptr;
    *length = 0;
    return aocv_guard<int>(status, 0, [&]() -> int {
        if (!webp) {
            encodeJPEG(mat->m, quality, bytes, length);
            return 1;
        }
        std::vector<uint8_t> buffer;
        const std::vector<int> params = {cv::IMWRITE_WEBP_QUALITY, std::clamp(quality, 1, 100)};
        if (!aocv_imencode(".webp", mat->m, buffer, params)) throw std::runtime_error("cv::imencode failed");
        uint8_t *out = (uint8_t *)std::malloc(buffer.size());
        if (!out) throw std::bad_alloc();
        std::copy(buffer.begin(), buffer.end(), out);
        *bytes = out;
        *length = buffer.size();
        return 1;
    });
}

extern "C" void aocv_buffer_free(uint8_t *bytes) { std::free(bytes); }

extern "C" aocv_mat *aocv_mat_new(int width, int height, uint8_t r, uint8_t g, uint8_t b, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        if (width <= 0 || height <= 0 || (long long)width * height > 400000000LL) throw std::runtime_error("bad canvas size");
        return aocv_wrap(cv::Mat(height, width, CV_8UC3, cv::Scalar(b, g, r)));
    });
}

extern "C" int aocv_mat_paste(aocv_mat *target, const aocv_mat *source, int x, int y, aocv_status *status) {
    return aocv_guard<int>(status, 0, [&]() -> int {
        cv::Mat src = aocv_as_bgr(source->m);
        cv::Rect where = cv::Rect(x, y, src.cols, src.rows) & cv::Rect(0, 0, target->m.cols, target->m.rows);
        if (where.empty()) return 1;
        src(cv::Rect(where.x - x, where.y - y, where.width, where.height)).copyTo(target->m(where));
        return 1;
    });
}
