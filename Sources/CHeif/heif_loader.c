// Opens libheif.so.1 on first use and forwards the functions HEIFDecoder calls (see include/CHeif.h for
// why it is not linked).
#include "CHeif.h"

#include <CLibraryLoader.h>

#define FORWARDED(X)                                                                                             \
    X(heif_context_alloc) X(heif_context_free) X(heif_context_read_from_memory_without_copy)                     \
    X(heif_context_get_primary_image_handle) X(heif_image_handle_release) X(heif_image_handle_get_width)         \
    X(heif_image_handle_get_height) X(heif_decode_image) X(heif_image_release) X(heif_image_get_plane_readonly)  \
    X(heif_image_get_width) X(heif_image_get_height) X(heif_image_handle_get_luma_bits_per_pixel)                \
    X(heif_image_handle_get_chroma_bits_per_pixel) X(heif_image_get_bits_per_pixel_range)

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
