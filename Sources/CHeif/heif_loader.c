// Opens libheif.so.1 on first use and forwards the functions HEIFDecoder calls (see include/CHeif.h for
// why it is not linked).
#include "CHeif.h"

#include <CLibraryLoader.h>

#define FORWARDED(X)                                                                                             \
    X(heif_context_alloc) X(heif_context_free) X(heif_context_read_from_memory_without_copy)                     \
    X(heif_context_get_primary_image_handle) X(heif_image_handle_release) X(heif_image_handle_get_width)         \
    X(heif_image_handle_get_height) X(heif_decode_image) X(heif_image_release) X(heif_image_get_plane_readonly)  \
    X(heif_image_get_width) X(heif_image_get_height) X(heif_image_handle_get_luma_bits_per_pixel)                \
    X(heif_image_handle_get_chroma_bits_per_pixel) X(heif_image_get_bits_per_pixel_range)                       \
    X(heif_register_decoder) X(heif_image_create) X(heif_image_add_plane) X(heif_image_get_plane)                \
    X(heif_nclx_color_profile_alloc) X(heif_nclx_color_profile_free) X(heif_image_set_nclx_color_profile)        \
    X(heif_nclx_color_profile_set_color_primaries) X(heif_nclx_color_profile_set_transfer_characteristics)      \
    X(heif_nclx_color_profile_set_matrix_coefficients) X(heif_image_handle_has_alpha_channel)                   \
    X(heif_image_handle_get_nclx_color_profile)

ALOAD_FORWARDING(FORWARDED, "libheif.so.1", "libheif1")

const char *aheif_load_error(void) { return aload_error(&library); }

#define REAL ALOAD_REAL

// Without the library, heif_context_alloc returns NULL (HEIFDecoder reports aheif_load_error first), the
// others an error, 0 or nothing.
static int ready(void) { return aheif_load_error() == NULL; }
static struct heif_error not_loaded(void) {
    struct heif_error error = {heif_error_Unsupported_feature, heif_suberror_Unspecified, "libheif is not loaded"};
    return error;
}

struct heif_context *heif_context_alloc(void) { return ready() ? REAL(heif_context_alloc)() : NULL; }
void heif_context_free(struct heif_context *context) { if (ready()) REAL(heif_context_free)(context); }
struct heif_error heif_context_read_from_memory_without_copy(struct heif_context *context, const void *mem, size_t size,
                                                             const struct heif_reading_options *options) {
    return ready() ? REAL(heif_context_read_from_memory_without_copy)(context, mem, size, options) : not_loaded();
}
struct heif_error heif_context_get_primary_image_handle(struct heif_context *context, struct heif_image_handle **handle) {
    return ready() ? REAL(heif_context_get_primary_image_handle)(context, handle) : not_loaded();
}
void heif_image_handle_release(const struct heif_image_handle *handle) { if (ready()) REAL(heif_image_handle_release)(handle); }
int heif_image_handle_get_width(const struct heif_image_handle *handle) { return ready() ? REAL(heif_image_handle_get_width)(handle) : 0; }
int heif_image_handle_get_height(const struct heif_image_handle *handle) { return ready() ? REAL(heif_image_handle_get_height)(handle) : 0; }
struct heif_error heif_decode_image(const struct heif_image_handle *handle, struct heif_image **image, enum heif_colorspace colorspace,
                                    enum heif_chroma chroma, const struct heif_decoding_options *options) {
    return ready() ? REAL(heif_decode_image)(handle, image, colorspace, chroma, options) : not_loaded();
}
void heif_image_release(const struct heif_image *image) { if (ready()) REAL(heif_image_release)(image); }
const uint8_t *heif_image_get_plane_readonly(const struct heif_image *image, enum heif_channel channel, int *stride) {
    return ready() ? REAL(heif_image_get_plane_readonly)(image, channel, stride) : NULL;
}
int heif_image_get_width(const struct heif_image *image, enum heif_channel channel) { return ready() ? REAL(heif_image_get_width)(image, channel) : 0; }
int heif_image_get_height(const struct heif_image *image, enum heif_channel channel) { return ready() ? REAL(heif_image_get_height)(image, channel) : 0; }
int heif_image_handle_get_luma_bits_per_pixel(const struct heif_image_handle *handle) {
    return ready() ? REAL(heif_image_handle_get_luma_bits_per_pixel)(handle) : -1;
}
int heif_image_handle_get_chroma_bits_per_pixel(const struct heif_image_handle *handle) {
    return ready() ? REAL(heif_image_handle_get_chroma_bits_per_pixel)(handle) : -1;
}
int heif_image_get_bits_per_pixel_range(const struct heif_image *image, enum heif_channel channel) {
    return ready() ? REAL(heif_image_get_bits_per_pixel_range)(image, channel) : -1;
}

// What the FFmpeg HEVC plugin (heif_hevc_ffmpeg.c) calls: it runs only inside heif_decode_image, once the
// library is open.
struct heif_error heif_register_decoder(struct heif_context *context, const struct heif_decoder_plugin *plugin) {
    return ready() ? REAL(heif_register_decoder)(context, plugin) : not_loaded();
}
struct heif_error heif_image_create(int width, int height, enum heif_colorspace colorspace, enum heif_chroma chroma,
                                    struct heif_image **image) {
    return ready() ? REAL(heif_image_create)(width, height, colorspace, chroma, image) : not_loaded();
}
struct heif_error heif_image_add_plane(struct heif_image *image, enum heif_channel channel, int width, int height, int bit_depth) {
    return ready() ? REAL(heif_image_add_plane)(image, channel, width, height, bit_depth) : not_loaded();
}
uint8_t *heif_image_get_plane(struct heif_image *image, enum heif_channel channel, int *stride) {
    return ready() ? REAL(heif_image_get_plane)(image, channel, stride) : NULL;
}
struct heif_color_profile_nclx *heif_nclx_color_profile_alloc(void) { return ready() ? REAL(heif_nclx_color_profile_alloc)() : NULL; }
void heif_nclx_color_profile_free(struct heif_color_profile_nclx *profile) { if (ready()) REAL(heif_nclx_color_profile_free)(profile); }
struct heif_error heif_image_set_nclx_color_profile(struct heif_image *image, const struct heif_color_profile_nclx *profile) {
    return ready() ? REAL(heif_image_set_nclx_color_profile)(image, profile) : not_loaded();
}
struct heif_error heif_nclx_color_profile_set_color_primaries(struct heif_color_profile_nclx *profile, uint16_t value) {
    return ready() ? REAL(heif_nclx_color_profile_set_color_primaries)(profile, value) : not_loaded();
}
struct heif_error heif_nclx_color_profile_set_transfer_characteristics(struct heif_color_profile_nclx *profile, uint16_t value) {
    return ready() ? REAL(heif_nclx_color_profile_set_transfer_characteristics)(profile, value) : not_loaded();
}
struct heif_error heif_nclx_color_profile_set_matrix_coefficients(struct heif_color_profile_nclx *profile, uint16_t value) {
    return ready() ? REAL(heif_nclx_color_profile_set_matrix_coefficients)(profile, value) : not_loaded();
}

// What HEIFDecoder asks to choose the plugin's mode.
int heif_image_handle_has_alpha_channel(const struct heif_image_handle *handle) {
    return ready() ? REAL(heif_image_handle_has_alpha_channel)(handle) : 0;
}
struct heif_error heif_image_handle_get_nclx_color_profile(const struct heif_image_handle *handle, struct heif_color_profile_nclx **profile) {
    return ready() ? REAL(heif_image_handle_get_nclx_color_profile)(handle, profile) : not_loaded();
}
