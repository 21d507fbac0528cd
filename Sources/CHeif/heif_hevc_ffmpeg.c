// A libheif decoder plugin for HEVC (HEIC photos) that decodes with FFmpeg's libavcodec instead of
// libheif's own libde265 plugin.
//
// With `rgb` (see CHeif.h) it also converts 8-bit pictures to RGB itself, as libheif does.
//
// Why: HEVC decoding is exact by the standard, so both give the same YCbCr samples and libheif turns them
// into the same RGB, byte for byte (checked on pillow-heif's and libheif's test images, 8/10/12-bit, gray,
// alpha, grids); libavcodec's decoder takes a third less CPU than libde265 on a 12 MP iPhone photo and half
// on a single-stream one (docs/benchmarks.md, "HEIC photos").
//
// libavcodec.so.59 is opened on the first HEIC, not linked (it would load FFmpeg's codecs on every start),
// and is optional: without it (the package Recommends it, with the video support) libheif's libde265
// decodes as before. HEIFDecoder also decodes again with libde265 when this plugin fails on a file.
#include "CHeif.h"

#include <CLibraryLoader.h>
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavutil/pixdesc.h>
#include <libheif/heif_plugin.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

// av_frame_* and av_pix_fmt_desc_get are libavutil's: dlsym on libavcodec's handle finds them there.
#define FFMPEG_FUNCTIONS(X)                                                                                       \
    X(avcodec_find_decoder) X(avcodec_alloc_context3) X(avcodec_open2) X(avcodec_send_packet)                     \
    X(avcodec_receive_frame) X(avcodec_free_context) X(av_packet_alloc) X(av_packet_free) X(av_frame_alloc)        \
    X(av_frame_free) X(av_pix_fmt_desc_get)

ALOAD_FORWARDING(FFMPEG_FUNCTIONS, "libavcodec.so.59", "libavcodec59")
#define AV(name) ALOAD_REAL(name)

/// The most pixels one decoded HEVC picture may have (a grid's tile, or the whole image): the run's
/// --max-pixels, set by aheif_use_ffmpeg_hevc. The container's size is checked before decoding, but the
/// stream inside can claim another; libavcodec refuses a larger picture before allocating it. (libde265,
/// which HEIFDecoder tries when this plugin fails, has no such limit: as before this plugin.)
static _Atomic long maximum_pixels = 0;

/// Pictures this plugin has handed to libheif in the process, as YCbCr and as RGB converted here (for the
/// tests: the plugin was used, not libde265).
static _Atomic long pictures_as_ycbcr = 0, pictures_as_rgb = 0;

/// One picture's stream, as libheif pushes it: NAL units each after a 4-byte big-endian length (the
/// hvcC box's parameter sets first), turned into Annex B (start codes) for libavcodec.
typedef struct {
    uint8_t *bytes;
    size_t size, capacity;
} stream;

static struct heif_error failure(enum heif_suberror_code code, const char *message) {
    struct heif_error error = {heif_error_Decoder_plugin_error, code, message};
    return error;
}
static struct heif_error success(void) {
    struct heif_error error = {heif_error_Ok, heif_suberror_Unspecified, "Success"};
    return error;
}

static const char *plugin_name(void) { return "FFmpeg libavcodec HEVC (analyze)"; }

// Above libde265's 100, so libheif picks this plugin for every HEVC picture of a context it is registered in.
static int supports(enum heif_compression_format format) { return format == heif_compression_HEVC ? 200 : 0; }

static struct heif_error new_decoder(void **decoder) {
    *decoder = calloc(1, sizeof(stream));
    return *decoder ? success() : failure(heif_suberror_Unspecified, "out of memory");
}

static void free_decoder(void *decoder) {
    stream *s = decoder;
    if (s) free(s->bytes);
    free(s);
}

static struct heif_error push_data(void *decoder, const void *data, size_t size) {
    stream *s = decoder;
    const uint8_t *p = data;
    size_t at = 0;
    while (at < size) {
        if (size - at < 4) return failure(heif_suberror_End_of_data, "HEVC data ends inside a NAL unit's length");
        size_t length = ((size_t)p[at] << 24) | ((size_t)p[at + 1] << 16) | ((size_t)p[at + 2] << 8) | p[at + 3];
        at += 4;
        if (length > size - at) return failure(heif_suberror_End_of_data, "HEVC NAL unit longer than the data");
        size_t needed = s->size + 4 + length + AV_INPUT_BUFFER_PADDING_SIZE;
        if (needed > INT32_MAX) return failure(heif_suberror_Unspecified, "HEVC stream over 2 GB");
        if (needed > s->capacity) {
            size_t capacity = needed + needed / 2;
            uint8_t *grown = realloc(s->bytes, capacity);
            if (!grown) return failure(heif_suberror_Unspecified, "out of memory");
            s->bytes = grown;
            s->capacity = capacity;
        }
        static const uint8_t start_code[4] = {0, 0, 0, 1};
        memcpy(s->bytes + s->size, start_code, 4);
        memcpy(s->bytes + s->size + 4, p + at, length);
        s->size += 4 + length;
        at += length;
    }
    if (s->bytes) memset(s->bytes + s->size, 0, AV_INPUT_BUFFER_PADDING_SIZE);
    return success();
}

/// A new libheif image of `count` planes (`channels`, each `widths[i]` × `heights[i]` at `depth` bits),
/// their memory in `planes` and `strides`; on failure nothing is left allocated.
static struct heif_error new_image(int width, int height, enum heif_colorspace colorspace, enum heif_chroma chroma, int count,
                                   const enum heif_channel *channels, const int *widths, const int *heights, int depth,
                                   struct heif_image **out, uint8_t **planes, int *strides) {
    struct heif_error error = heif_image_create(width, height, colorspace, chroma, out);
    if (error.code != heif_error_Ok) return error;
    for (int c = 0; c < count; c++) {
        error = heif_image_add_plane(*out, channels[c], widths[c], heights[c], depth);
        planes[c] = error.code == heif_error_Ok ? heif_image_get_plane(*out, channels[c], &strides[c]) : NULL;
        if (!planes[c]) {
            heif_image_release(*out);
            *out = NULL;
            return error.code != heif_error_Ok ? error : failure(heif_suberror_Unspecified, "no plane for the decoded picture");
        }
    }
    return success();
}

/// The decoded frame as libheif's plugins hand it over: YCbCr (or monochrome) planes at the stream's bit
/// depth, with the stream's colour description (what libde265's plugin sets from the VUI).
static struct heif_error to_heif_image(const AVFrame *frame, struct heif_image **out) {
    const AVPixFmtDescriptor *format = AV(av_pix_fmt_desc_get)(frame->format);
    if (!format || !(format->flags & AV_PIX_FMT_FLAG_PLANAR) || (format->flags & (AV_PIX_FMT_FLAG_BE | AV_PIX_FMT_FLAG_RGB)) ||
        (format->nb_components != 1 && format->nb_components != 3))
        return failure(heif_suberror_Unsupported_color_conversion, "HEVC picture in a sample format libheif does not take");
    int depth = format->comp[0].depth, mono = format->nb_components == 1;
    for (int c = 1; c < format->nb_components; c++)
        if (format->comp[c].depth != depth) return failure(heif_suberror_Unsupported_color_conversion, "HEVC planes of different bit depths");
    if (depth < 8 || depth > 16) return failure(heif_suberror_Unsupported_color_conversion, "HEVC bit depth outside 8-16");
    enum heif_chroma chroma;
    if (mono) chroma = heif_chroma_monochrome;
    else if (format->log2_chroma_w == 1 && format->log2_chroma_h == 1) chroma = heif_chroma_420;
    else if (format->log2_chroma_w == 1 && format->log2_chroma_h == 0) chroma = heif_chroma_422;
    else if (format->log2_chroma_w == 0 && format->log2_chroma_h == 0) chroma = heif_chroma_444;
    else return failure(heif_suberror_Unsupported_color_conversion, "HEVC chroma subsampling libheif does not take");
    static const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    int widths[3], heights[3], strides[3];
    uint8_t *planes[3];
    for (int c = 0; c < format->nb_components; c++) {
        // Chroma planes rounded up, as FFmpeg's AV_CEIL_RSHIFT.
        widths[c] = c == 0 ? frame->width : -((-frame->width) >> format->log2_chroma_w);
        heights[c] = c == 0 ? frame->height : -((-frame->height) >> format->log2_chroma_h);
        if (!frame->data[c]) return failure(heif_suberror_Unspecified, "libavcodec gave a picture without a plane");
    }
    struct heif_error error = new_image(frame->width, frame->height, mono ? heif_colorspace_monochrome : heif_colorspace_YCbCr, chroma,
                                        format->nb_components, channels, widths, heights, depth, out, planes, strides);
    if (error.code != heif_error_Ok) return error;
    size_t bytes_per_sample = depth > 8 ? 2 : 1;
    for (int c = 0; c < format->nb_components; c++)
        for (int y = 0; y < heights[c]; y++)
            memcpy(planes[c] + (size_t)y * strides[c], frame->data[c] + (ptrdiff_t)y * frame->linesize[c], (size_t)widths[c] * bytes_per_sample);
    struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
    if (nclx) {
        // FFmpeg's enumerations are the ITU-T H.273 code points the VUI carries, as libheif's are.
        heif_nclx_color_profile_set_color_primaries(nclx, (uint16_t)frame->color_primaries);
        heif_nclx_color_profile_set_transfer_characteristics(nclx, (uint16_t)frame->color_trc);
        heif_nclx_color_profile_set_matrix_coefficients(nclx, (uint16_t)frame->colorspace);
        nclx->full_range_flag = frame->color_range == AVCOL_RANGE_JPEG;
        heif_image_set_nclx_color_profile(*out, nclx);
        heif_nclx_color_profile_free(nclx);
    }
    return success();
}

// libheif's own YCbCr-to-RGB step for 8-bit pictures (Op_YCbCr_to_RGB<uint8_t> in libheif 1.15's
// heif_colorconversion.cc: single-precision floats, the nearest chroma sample, +0.5 and truncation), done
// here with the same IEEE operations in the same order, four pixels at a time, so that every byte is the
// one libheif writes (no contraction into fused multiply-adds, which libheif's x86-64 build has not
// either), in a tenth of its time: libheif's scalar loop took 110-140 ms of a 12 MP photo's decode.
// The coefficients are libheif's for matrix_coefficients 1 (BT.709), 5 and 6 (BT.601); libheif gives every
// other value but 0, 8, 12 and 13 (treated apart: those pictures stay YCbCr) its default BT.601 ones.
#pragma STDC FP_CONTRACT OFF
typedef struct {
    float r_cr, g_cb, g_cr, b_cb;
} rgb_coefficients;

static rgb_coefficients coefficients_for(int matrix) {
    float kr, kb;
    switch (matrix) {
    case 1: kr = 0.2126f; kb = 0.0722f; break;
    case 5: case 6: kr = 0.299f; kb = 0.114f; break;
    default: {
        rgb_coefficients defaults = {1.402f, -0.344136f, -0.714136f, 1.772f};
        return defaults;
    }
    }
    rgb_coefficients c;
    c.r_cr = 2 * (-kr + 1);
    c.g_cb = 2 * kb * (-kb + 1) / (kb + kr - 1);
    c.g_cr = 2 * kr * (-kr + 1) / (kb + kr - 1);
    c.b_cb = 2 * (-kb + 1);
    return c;
}

static inline uint8_t clip_to_byte(float value) {
    long x = (long)(value + 0.5f);
    return x < 0 ? 0 : x > 255 ? 255 : (uint8_t)x;
}

/// One row: `y` the luma samples, `cb`/`cr` the chroma row (one sample per two pixels).
static void ycbcr420_row_scalar(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, int width, int full_range,
                                rgb_coefficients c, uint8_t *r, uint8_t *g, uint8_t *b) {
    for (int x = 0; x < width; x++) {
        float yv = (float)y[x], u = (float)(cb[x >> 1] - 128), v = (float)(cr[x >> 1] - 128);
        if (!full_range) {
            yv = (yv - 16.0f) * 1.1689f;
            u = u * 1.1429f;
            v = v * 1.1429f;
        }
        r[x] = clip_to_byte(yv + c.r_cr * v);
        g[x] = clip_to_byte(yv + c.g_cb * u + c.g_cr * v);
        b[x] = clip_to_byte(yv + c.b_cb * u);
    }
}

#ifdef __SSE2__
// Sixteen float lanes (four vectors) to sixteen bytes: +0.5, truncation (cvttps, as the cast to long for
// these small values), and saturation to 0…255 (the packs), as clip_to_byte.
static inline __m128i floats_to_bytes(const __m128 f[4]) {
    const __m128 half = _mm_set1_ps(0.5f);
    __m128i i0 = _mm_cvttps_epi32(_mm_add_ps(f[0], half)), i1 = _mm_cvttps_epi32(_mm_add_ps(f[1], half));
    __m128i i2 = _mm_cvttps_epi32(_mm_add_ps(f[2], half)), i3 = _mm_cvttps_epi32(_mm_add_ps(f[3], half));
    return _mm_packus_epi16(_mm_packs_epi32(i0, i1), _mm_packs_epi32(i2, i3));
}

// Sixteen signed 16-bit values (two vectors) as four vectors of floats.
static inline void widen_signed(__m128i low, __m128i high, __m128 out[4]) {
    const __m128i zero = _mm_setzero_si128();
    out[0] = _mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpacklo_epi16(zero, low), 16));
    out[1] = _mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpackhi_epi16(zero, low), 16));
    out[2] = _mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpacklo_epi16(zero, high), 16));
    out[3] = _mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpackhi_epi16(zero, high), 16));
}
#endif

static void ycbcr420_row(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, int width, int full_range,
                         rgb_coefficients c, uint8_t *r, uint8_t *g, uint8_t *b) {
    int x = 0;
#ifdef __SSE2__
    const __m128i zero = _mm_setzero_si128(), bias = _mm_set1_epi16(128);
    const __m128 r_cr = _mm_set1_ps(c.r_cr), g_cb = _mm_set1_ps(c.g_cb), g_cr = _mm_set1_ps(c.g_cr), b_cb = _mm_set1_ps(c.b_cb);
    const __m128 offset = _mm_set1_ps(16.0f), luma_scale = _mm_set1_ps(1.1689f), chroma_scale = _mm_set1_ps(1.1429f);
    for (; x + 16 <= width; x += 16) {
        __m128i luma = _mm_loadu_si128((const __m128i *)(y + x));
        __m128i u8 = _mm_loadl_epi64((const __m128i *)(cb + x / 2)), v8 = _mm_loadl_epi64((const __m128i *)(cr + x / 2));
        u8 = _mm_unpacklo_epi8(u8, u8);   // each chroma sample for its two pixels
        v8 = _mm_unpacklo_epi8(v8, v8);
        __m128 yv[4], u[4], v[4], red[4], green[4], blue[4];
        widen_signed(_mm_unpacklo_epi8(luma, zero), _mm_unpackhi_epi8(luma, zero), yv);
        widen_signed(_mm_sub_epi16(_mm_unpacklo_epi8(u8, zero), bias), _mm_sub_epi16(_mm_unpackhi_epi8(u8, zero), bias), u);
        widen_signed(_mm_sub_epi16(_mm_unpacklo_epi8(v8, zero), bias), _mm_sub_epi16(_mm_unpackhi_epi8(v8, zero), bias), v);
        for (int i = 0; i < 4; i++) {
            if (!full_range) {
                yv[i] = _mm_mul_ps(_mm_sub_ps(yv[i], offset), luma_scale);
                u[i] = _mm_mul_ps(u[i], chroma_scale);
                v[i] = _mm_mul_ps(v[i], chroma_scale);
            }
            red[i] = _mm_add_ps(yv[i], _mm_mul_ps(r_cr, v[i]));
            green[i] = _mm_add_ps(_mm_add_ps(yv[i], _mm_mul_ps(g_cb, u[i])), _mm_mul_ps(g_cr, v[i]));
            blue[i] = _mm_add_ps(yv[i], _mm_mul_ps(b_cb, u[i]));
        }
        _mm_storeu_si128((__m128i *)(r + x), floats_to_bytes(red));
        _mm_storeu_si128((__m128i *)(g + x), floats_to_bytes(green));
        _mm_storeu_si128((__m128i *)(b + x), floats_to_bytes(blue));
    }
#endif
    if (x < width) ycbcr420_row_scalar(y + x, cb + x / 2, cr + x / 2, width - x, full_range, c, r + x, g + x, b + x);
}

/// An 8-bit 4:2:0 picture as libheif's RGB 4:4:4 planes, converted as libheif converts it with the stream's
/// colour description; nothing (success, *out NULL) for any other picture, which goes to libheif as YCbCr.
static struct heif_error to_heif_rgb_image(const AVFrame *frame, struct heif_image **out) {
    *out = NULL;
    int matrix = frame->colorspace;
    if ((frame->format != AV_PIX_FMT_YUV420P && frame->format != AV_PIX_FMT_YUVJ420P) || matrix == 0 || matrix == 8 ||
        matrix == 12 || matrix == 13)
        return success();
    static const enum heif_channel channels[3] = {heif_channel_R, heif_channel_G, heif_channel_B};
    const int widths[3] = {frame->width, frame->width, frame->width}, heights[3] = {frame->height, frame->height, frame->height};
    uint8_t *planes[3];
    int strides[3];
    struct heif_error error = new_image(frame->width, frame->height, heif_colorspace_RGB, heif_chroma_444, 3, channels, widths, heights, 8,
                                        out, planes, strides);
    if (error.code != heif_error_Ok) return error;
    rgb_coefficients coefficients = coefficients_for(matrix);
    int full_range = frame->color_range == AVCOL_RANGE_JPEG;
    for (int y = 0; y < frame->height; y++)
        ycbcr420_row(frame->data[0] + (ptrdiff_t)y * frame->linesize[0], frame->data[1] + (ptrdiff_t)(y >> 1) * frame->linesize[1],
                     frame->data[2] + (ptrdiff_t)(y >> 1) * frame->linesize[2], frame->width, full_range, coefficients,
                     planes[0] + (size_t)y * strides[0], planes[1] + (size_t)y * strides[1], planes[2] + (size_t)y * strides[2]);
    return success();
}

static struct heif_error decode(void *decoder, struct heif_image **out, int rgb);
static struct heif_error decode_image(void *decoder, struct heif_image **out) { return decode(decoder, out, 0); }
static struct heif_error decode_image_rgb(void *decoder, struct heif_image **out) { return decode(decoder, out, 1); }

static struct heif_error decode(void *decoder, struct heif_image **out, int rgb) {
    stream *s = decoder;
    *out = NULL;
    if (aload_error(&library)) return failure(heif_suberror_Unsupported_codec, aload_error(&library));
    if (s->size == 0) return failure(heif_suberror_End_of_data, "no HEVC data");
    const AVCodec *codec = AV(avcodec_find_decoder)(AV_CODEC_ID_HEVC);
    if (!codec) return failure(heif_suberror_Unsupported_codec, "libavcodec has no HEVC decoder");
    AVCodecContext *context = AV(avcodec_alloc_context3)(codec);
    AVPacket *packet = AV(av_packet_alloc)();
    AVFrame *frame = AV(av_frame_alloc)();
    struct heif_error result = failure(heif_suberror_Unspecified, "out of memory");
    if (context && packet && frame) {
        // One thread: libheif decodes a grid's tiles on threads of its own, and a worker is one core.
        context->thread_count = 1;
        long limit = atomic_load(&maximum_pixels);
        if (limit > 0) context->max_pixels = limit;
        // Every message of this decoder raised above any level printed (an error comes back as a result;
        // FFmpeg's lines would go to stderr, or to a video's log through the video shim's callback). The
        // default callback keeps only the level's low byte: 190 lifts 8 (fatal) … 56 (trace) to 198 … 246.
        context->log_level_offset = 190;
        if (AV(avcodec_open2)(context, codec, NULL) < 0) {
            result = failure(heif_suberror_Unsupported_codec, "libavcodec cannot open its HEVC decoder");
        } else {
            packet->data = s->bytes;
            packet->size = (int)s->size;
            int sent = AV(avcodec_send_packet)(context, packet);
            AV(avcodec_send_packet)(context, NULL);   // end of stream: the picture is output now
            int received = sent < 0 ? sent : AV(avcodec_receive_frame)(context, frame);
            if (received < 0) result = failure(heif_suberror_Unspecified, "libavcodec could not decode the HEVC picture");
            else if (frame->width <= 0 || frame->height <= 0) result = failure(heif_suberror_Invalid_image_size, "empty HEVC picture");
            else {
                result = rgb ? to_heif_rgb_image(frame, out) : success();
                int converted = result.code == heif_error_Ok && *out != NULL;
                if (result.code == heif_error_Ok && *out == NULL) result = to_heif_image(frame, out);
                if (result.code == heif_error_Ok) atomic_fetch_add(converted ? &pictures_as_rgb : &pictures_as_ycbcr, 1);
            }
        }
    }
    AV(av_frame_free)(&frame);
    AV(av_packet_free)(&packet);
    AV(avcodec_free_context)(&context);
    return result;
}

#define PLUGIN(decode)                                                                                         \
    {.plugin_api_version = 1, .get_plugin_name = plugin_name, .does_support_format = supports,                    \
     .new_decoder = new_decoder, .free_decoder = free_decoder, .push_data = push_data, .decode_image = (decode)}
static const struct heif_decoder_plugin plugin = PLUGIN(decode_image);
// The same, handing libheif RGB planes where it can (to_heif_rgb_image).
static const struct heif_decoder_plugin plugin_rgb = PLUGIN(decode_image_rgb);

int aheif_use_ffmpeg_hevc(struct heif_context *context, long maximum, int rgb) {
    if (aload_error(&library) || aheif_load_error()) return 0;
    atomic_store(&maximum_pixels, maximum);
    return heif_register_decoder(context, rgb ? &plugin_rgb : &plugin).code == heif_error_Ok;
}

const char *aheif_ffmpeg_load_error(void) { return aload_error(&library); }

long aheif_ffmpeg_pictures_decoded(void) { return atomic_load(&pictures_as_ycbcr) + atomic_load(&pictures_as_rgb); }
long aheif_ffmpeg_pictures_converted(void) { return atomic_load(&pictures_as_rgb); }
