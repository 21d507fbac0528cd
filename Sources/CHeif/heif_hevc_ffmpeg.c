// A libheif decoder plugin for HEVC (HEIC photos) that decodes with FFmpeg's libavcodec instead of
// libheif's own libde265 plugin.
//
// Why: HEVC decoding is exact by the standard, so both give the same YCbCr samples and libheif turns them
// into the same RGB, byte for byte (checked on pillow-heif's and libheif's test images, 8/10/12-bit, gray,
// alpha, grids); libavcodec's decoder takes a third less CPU than libde265 on a 12 MP iPhone photo and half
// on a single-stream one (docs/benchmarks.md, fourteenth round).
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

// av_frame_* and av_pix_fmt_desc_get are libavutil's: dlsym on libavcodec's handle finds them there.
#define FFMPEG_FUNCTIONS(X)                                                                                       \
    X(avcodec_find_decoder) X(avcodec_alloc_context3) X(avcodec_open2) X(avcodec_send_packet)                     \
    X(avcodec_receive_frame) X(avcodec_free_context) X(av_packet_alloc) X(av_packet_free) X(av_frame_alloc)        \
    X(av_frame_free) X(av_pix_fmt_desc_get)

ALOAD_FORWARDING(FFMPEG_FUNCTIONS, "libavcodec.so.59", "libavcodec59")
#define AV(name) ALOAD_REAL(name)

/// The most pixels one decoded HEVC picture may have (a grid's tile, or the whole image): the run's
/// --max-pixels, set by aheif_use_ffmpeg_hevc. The container's size is checked before decoding, but the
/// stream inside can claim another; libavcodec refuses a larger picture before allocating it.
static _Atomic long maximum_pixels = 0;

/// Pictures this plugin has decoded in the process (for the tests: the plugin was used, not libde265).
static _Atomic long pictures_decoded = 0;

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
    struct heif_error error = heif_image_create(frame->width, frame->height, mono ? heif_colorspace_monochrome : heif_colorspace_YCbCr, chroma, out);
    if (error.code != heif_error_Ok) return error;
    static const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    size_t bytes_per_sample = depth > 8 ? 2 : 1;
    for (int c = 0; c < format->nb_components; c++) {
        int w = frame->width, h = frame->height;
        if (c > 0) {
            w = -((-w) >> format->log2_chroma_w);   // rounded up, as FFmpeg's AV_CEIL_RSHIFT
            h = -((-h) >> format->log2_chroma_h);
        }
        error = heif_image_add_plane(*out, channels[c], w, h, depth);
        int stride = 0;
        uint8_t *plane = error.code == heif_error_Ok ? heif_image_get_plane(*out, channels[c], &stride) : NULL;
        if (!plane || !frame->data[c]) {
            heif_image_release(*out);
            *out = NULL;
            return error.code != heif_error_Ok ? error : failure(heif_suberror_Unspecified, "no plane for the decoded picture");
        }
        for (int y = 0; y < h; y++)
            memcpy(plane + (size_t)y * stride, frame->data[c] + (ptrdiff_t)y * frame->linesize[c], (size_t)w * bytes_per_sample);
    }
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

static struct heif_error decode_image(void *decoder, struct heif_image **out) {
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
            else if ((result = to_heif_image(frame, out)).code == heif_error_Ok) atomic_fetch_add(&pictures_decoded, 1);
        }
    }
    AV(av_frame_free)(&frame);
    AV(av_packet_free)(&packet);
    AV(avcodec_free_context)(&context);
    return result;
}

static const struct heif_decoder_plugin plugin = {
    .plugin_api_version = 1,
    .get_plugin_name = plugin_name,
    .does_support_format = supports,
    .new_decoder = new_decoder,
    .free_decoder = free_decoder,
    .push_data = push_data,
    .decode_image = decode_image,
};

int aheif_use_ffmpeg_hevc(struct heif_context *context, long maximum) {
    if (aload_error(&library) || aheif_load_error()) return 0;
    atomic_store(&maximum_pixels, maximum);
    return heif_register_decoder(context, &plugin).code == heif_error_Ok;
}

const char *aheif_ffmpeg_load_error(void) { return aload_error(&library); }

long aheif_ffmpeg_pictures_decoded(void) { return atomic_load(&pictures_decoded); }
