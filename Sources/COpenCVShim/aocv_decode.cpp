// Decoding. JPEG and PNG are read with libjpeg and libpng directly, set up exactly as OpenCV 4.6's
// own decoders set them up (same output pixels), so that what those libraries would print on stderr
// ("Corrupt JPEG data…", "libpng warning: iCCP…", "libpng error: …") becomes the image's warnings
// and error message instead; and so that a JPEG can be decoded at 1/2, 1/4 or 1/8 of its size (DCT
// scaling). GIF, which OpenCV 4.6 cannot decode, is read with giflib (aocv_gif.cpp). Every other
// format (and a CMYK JPEG) goes through cv::imdecode, from OpenCV's image codecs,
// opened on first use (aocv_codecs.cpp).
#include "aocv_internal.hpp"
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>
#include <png.h>
#include <jpeglib.h>

/// The background an image with transparency is composited on: white, or black when what is drawn
/// (its pixels weighted by their opacity) is light on average, so that white text or a white logo on a
/// transparent background stays visible as dark text on white does.
static int alphaBackground(const cv::Mat &m) {
    const int channels = m.channels();
    double weighted = 0, weight = 0;
    for (int y = 0; y < m.rows; ++y) {
        const uint8_t *s = m.ptr<uint8_t>(y);
        for (int x = 0; x < m.cols; ++x, s += channels) {
            const int a = s[channels - 1];
            const double luma = channels == 2 ? s[0] : 0.114 * s[0] + 0.587 * s[1] + 0.299 * s[2];
            weighted += luma * a;
            weight += a;
        }
    }
    return weight > 0 && weighted / weight > 127.5 ? 0 : 255;
}

/// Converts any decoded Mat to 8-bit: gray stays one channel (a scan costs a third of the memory),
/// colour becomes BGR, and alpha is composited over a contrasting background (alphaBackground).
static cv::Mat toBGR8(const cv::Mat &src) {
    cv::Mat m = src;
    if (m.depth() != CV_8U) {
        double scale = 1.0;
        switch (m.depth()) {
        case CV_16U: scale = 1.0 / 257.0; break;
        case CV_16S: scale = 1.0 / 128.0; break;
        case CV_32F: case CV_64F: scale = 255.0; break;
        default: break;
        }
        m.convertTo(m, CV_8U, scale);
    }
    cv::Mat out;
    switch (m.channels()) {
    case 1: out = m; break;
    case 2: { // gray + alpha
        const int b = alphaBackground(m);
        out.create(m.rows, m.cols, CV_8UC1);
        for (int y = 0; y < m.rows; ++y) {
            const uint8_t *s = m.ptr<uint8_t>(y);
            uint8_t *d = out.ptr<uint8_t>(y);
            for (int x = 0; x < m.cols; ++x, s += 2) d[x] = (uint8_t)((s[0] * s[1] + b * (255 - s[1]) + 127) / 255);
        }
        break;
    }
    case 3: out = m; break;
    case 4: {
        const int b = alphaBackground(m);
        out.create(m.rows, m.cols, CV_8UC3);
        for (int y = 0; y < m.rows; ++y) {
            const uint8_t *s = m.ptr<uint8_t>(y);
            uint8_t *d = out.ptr<uint8_t>(y);
            for (int x = 0; x < m.cols; ++x, s += 4, d += 3) {
                const int a = s[3];
                for (int c = 0; c < 3; ++c) d[c] = (uint8_t)((s[c] * a + b * (255 - a) + 127) / 255);
            }
        }
        break;
    }
    default: throw std::runtime_error("unsupported channel count");
    }
    return out;
}

extern "C" aocv_mat *aocv_decode(const uint8_t *bytes, size_t length, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        if (length == 0) throw std::runtime_error("empty file");
        const cv::Mat buffer(1, (int)std::min<size_t>(length, (size_t)INT32_MAX), CV_8UC1, (void *)bytes);
        cv::Mat decoded = aocv_imdecode(buffer, cv::IMREAD_UNCHANGED | cv::IMREAD_IGNORE_ORIENTATION);
        if (decoded.empty()) throw std::runtime_error("not a decodable image (unknown format, truncated or corrupt)");
        return aocv_wrap(toBGR8(decoded));
    });
}


namespace {

/// Collects library messages for one decode: at most 16 distinct lines, each at most 200 bytes.
struct Messages {
    std::vector<std::string> lines;
    void add(const std::string &prefix, const char *text) {
        std::string line = prefix + (text ? text : "");
        if (line.size() > 200) line.resize(200);
        for (auto &c : line) if ((unsigned char)c < 0x20) c = ' ';
        for (const auto &existing : lines) if (existing == line) return;
        if (lines.size() < 64) lines.push_back(line);
    }
    void copy(char *out, size_t capacity) const {
        if (!out || capacity == 0) return;
        std::string joined;
        for (const auto &line : lines) { if (!joined.empty()) joined += '\n'; joined += line; }
        const size_t n = std::min(joined.size(), capacity - 1);
        std::memcpy(out, joined.data(), n);
        out[n] = 0;
    }
};

struct DecodeFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------------------- PNG

struct PNGInput {
    const uint8_t *bytes;
    size_t length;
    size_t position;
    Messages *messages;
};

[[noreturn]] void pngError(png_structp png, png_const_charp message) {
    throw DecodeFailure(std::string("PNG: ") + (message ? message : "error"));
}

void pngWarning(png_structp png, png_const_charp message) {
    auto *input = static_cast<PNGInput *>(png_get_error_ptr(png));
    if (input && input->messages) input->messages->add("PNG: ", message);
}

void pngRead(png_structp png, png_bytep out, png_size_t size) {
    auto *input = static_cast<PNGInput *>(png_get_io_ptr(png));
    if (input->position + size > input->length) png_error(png, "PNG input buffer is incomplete");
    std::memcpy(out, input->bytes + input->position, size);
    input->position += size;
}

/// OpenCV 4.6's PngDecoder with IMREAD_UNCHANGED: the same Mat type and the same transformations.
cv::Mat decodePNG(const uint8_t *bytes, size_t length, Messages &messages) {
    PNGInput input{bytes, length, 0, &messages};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &input, pngError, pngWarning);
    if (!png) throw std::bad_alloc();
    png_infop info = png_create_info_struct(png);
    png_infop endInfo = png_create_info_struct(png);
    struct Cleanup {
        png_structp *png; png_infop *info; png_infop *end;
        ~Cleanup() { png_destroy_read_struct(png, info, end); }
    } cleanup{&png, &info, &endInfo};
    if (!info || !endInfo) throw std::bad_alloc();
    png_set_read_fn(png, &input, pngRead);
    png_read_info(png, info);
    png_uint_32 width = 0, height = 0;
    int bitDepth = 0, colorType = 0;
    png_get_IHDR(png, info, &width, &height, &bitDepth, &colorType, nullptr, nullptr, nullptr);
    if (width == 0 || height == 0 || width > 0x7fffffff || height > 0x7fffffff) throw DecodeFailure("PNG: bad size");
    if (!(bitDepth <= 8 || bitDepth == 16)) throw DecodeFailure("PNG: unsupported bit depth");
    int type;
    switch (colorType) {
    case PNG_COLOR_TYPE_RGB:
    case PNG_COLOR_TYPE_PALETTE: {
        png_bytep trans = nullptr; int numTrans = 0; png_color_16p transValues = nullptr;
        png_get_tRNS(png, info, &trans, &numTrans, &transValues);
        type = numTrans > 0 ? CV_8UC4 : CV_8UC3;
        break;
    }
    case PNG_COLOR_TYPE_GRAY_ALPHA:
    case PNG_COLOR_TYPE_RGB_ALPHA: type = CV_8UC4; break;
    default: type = CV_8UC1;
    }
    if (bitDepth == 16) type = CV_MAKETYPE(CV_16U, CV_MAT_CN(type));
    cv::Mat image((int)height, (int)width, type);
    const bool color = image.channels() > 1;
    if (image.depth() == CV_8U && bitDepth == 16) png_set_strip_16(png);
    else png_set_swap(png); // little-endian host
    if (image.channels() < 4) png_set_strip_alpha(png);
    else png_set_tRNS_to_alpha(png);
    if (colorType == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if ((colorType & PNG_COLOR_MASK_COLOR) == 0 && bitDepth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if ((colorType & PNG_COLOR_MASK_COLOR) && color) png_set_bgr(png);
    else if (color) png_set_gray_to_rgb(png);
    else png_set_rgb_to_gray(png, 1, 0.299, 0.587);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) > image.step[0]) throw DecodeFailure("PNG: row size mismatch");
    std::vector<png_bytep> rows(height);
    for (png_uint_32 y = 0; y < height; ++y) rows[y] = image.ptr<uint8_t>((int)y);
    png_read_image(png, rows.data());
    png_read_end(png, endInfo);
    return image;
}

// --------------------------------------------------------------------------------------- JPEG

struct JPEGErrors {
    jpeg_error_mgr manager;
    Messages *messages;
};

[[noreturn]] void jpegErrorExit(j_common_ptr info) {
    char text[JMSG_LENGTH_MAX] = {0};
    (*info->err->format_message)(info, text);
    throw DecodeFailure(std::string("JPEG: ") + text);
}

void jpegOutputMessage(j_common_ptr info) {
    char text[JMSG_LENGTH_MAX] = {0};
    (*info->err->format_message)(info, text);
    auto *errors = reinterpret_cast<JPEGErrors *>(info->err);
    errors->messages->add("JPEG: ", text);
}

void jpegEmitMessage(j_common_ptr info, int level) {
    // Level -1 is a warning (corrupt data); trace messages (level >= 0) are not wanted.
    if (level < 0) {
        info->err->num_warnings++;
        jpegOutputMessage(info);
    }
}

/// More scans than any encoder writes (a progressive JPEG has about ten; libjpeg-turbo's own documentation
/// suggests 500 as a limit): each scan costs a pass over every block of the image, so a few bytes repeated
/// thousands of times make a small file a minute of CPU.
const int kMaximumJPEGScans = 500;

void jpegProgress(j_common_ptr info) {
    if (!info->is_decompressor) return;
    const int scan = reinterpret_cast<j_decompress_ptr>(info)->input_scan_number;
    if (scan > kMaximumJPEGScans) {
        throw DecodeFailure("JPEG: more than " + std::to_string(kMaximumJPEGScans) + " scans (a progressive JPEG has about ten); not decoded");
    }
}

/// OpenCV 4.6's JpegDecoder with IMREAD_UNCHANGED: gray stays gray, colour is read straight to
/// BGR (JCS_EXT_BGR), default DCT and upsampling. Returns an empty Mat for CMYK/YCCK (OpenCV's own
/// conversion is used for those).
cv::Mat decodeJPEG(const uint8_t *bytes, size_t length, int reduction, Messages &messages) {
    jpeg_decompress_struct info;
    JPEGErrors errors;
    info.err = jpeg_std_error(&errors.manager);
    errors.messages = &messages;
    errors.manager.error_exit = jpegErrorExit;
    errors.manager.output_message = jpegOutputMessage;
    errors.manager.emit_message = jpegEmitMessage;
    jpeg_create_decompress(&info);
    struct Cleanup {
        jpeg_decompress_struct *info;
        ~Cleanup() { jpeg_destroy_decompress(info); }
    } cleanup{&info};
    jpeg_progress_mgr progress{};
    progress.progress_monitor = jpegProgress;
    info.progress = &progress;
    jpeg_mem_src(&info, bytes, (unsigned long)length);
    jpeg_read_header(&info, TRUE);
    if (info.num_components == 4) return cv::Mat();
    const bool color = info.num_components > 1;
    info.out_color_space = color ? JCS_EXT_BGR : JCS_GRAYSCALE;
    info.out_color_components = color ? 3 : 1;
    if (reduction == 2 || reduction == 4 || reduction == 8) {
        info.scale_num = 1;
        info.scale_denom = (unsigned int)reduction;
    }
    jpeg_start_decompress(&info);
    if (info.output_width == 0 || info.output_height == 0 || info.output_width > 0x7fffffff || info.output_height > 0x7fffffff) {
        throw DecodeFailure("JPEG: bad size");
    }
    cv::Mat image((int)info.output_height, (int)info.output_width, color ? CV_8UC3 : CV_8UC1);
    if ((size_t)info.output_width * (size_t)info.output_components > image.step[0]) throw DecodeFailure("JPEG: row size mismatch");
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = image.ptr<uint8_t>((int)info.output_scanline);
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    return image;
}

bool hasPrefix(const uint8_t *bytes, size_t length, const char *prefix, size_t n) {
    return length >= n && std::memcmp(bytes, prefix, n) == 0;
}

} // namespace

extern "C" aocv_mat *aocv_decode_reporting(const uint8_t *bytes, size_t length, int reduction, char *warnings, size_t capacity,
                                           aocv_status *status) {
    if (warnings && capacity) warnings[0] = 0;
    Messages messages;
    aocv_mat *result = aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        if (length == 0) throw std::runtime_error("empty file");
        cv::Mat decoded;
        if (hasPrefix(bytes, length, "\x89PNG\r\n\x1a\n", 8)) {
            decoded = decodePNG(bytes, length, messages);
        } else if (hasPrefix(bytes, length, "\xff\xd8\xff", 3)) {
            decoded = decodeJPEG(bytes, length, reduction, messages);
        } else if (hasPrefix(bytes, length, "GIF87a", 6) || hasPrefix(bytes, length, "GIF89a", 6)) {
            int frames = 0;
            std::string warning;
            decoded = aocv_decode_gif(bytes, length, &frames, &warning);
            if (!warning.empty()) messages.add(warning, "");
            if (frames > 1) {
                const std::string count = frames >= 10000 ? "10000 or more" : std::to_string(frames);
                messages.add("GIF: only the first of its " + count + " frames is analysed", "");
            }
        }
        if (decoded.empty()) {
            const cv::Mat buffer(1, (int)std::min<size_t>(length, (size_t)INT32_MAX), CV_8UC1, (void *)bytes);
            decoded = aocv_imdecode(buffer, cv::IMREAD_UNCHANGED | cv::IMREAD_IGNORE_ORIENTATION);
        }
        if (decoded.empty()) throw std::runtime_error("not a decodable image (unknown format, truncated or corrupt)");
        return aocv_wrap(toBGR8(decoded));
    });
    messages.copy(warnings, capacity);
    return result;
}
