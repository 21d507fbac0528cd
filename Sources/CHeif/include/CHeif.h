// libheif (libheif-dev's <libheif/heif.h>): reads HEIF/HEIC photos (iPhones, many Android phones) for
// AnalyzeCore's HEIFDecoder.
//
// libheif is not linked: it brings its codecs (libde265, x265, aom, dav1d), whose loading and start-up
// code (de265_init) cost every run, `analyze --version` included. heif_loader.c defines the functions
// HEIFDecoder calls, each calling the library's own, which it opens with dlopen the first time a HEIF
// file is decoded.
#include <libheif/heif.h>

// NULL when libheif.so.1 is open and has every function used here, else why not (the loader opens it
// on the first call, once per process). HEIFDecoder asks before decoding.
const char *aheif_load_error(void);

// Registers, in `context` only, a decoder plugin that decodes HEVC with FFmpeg's libavcodec
// (heif_hevc_ffmpeg.c; the same pixels as libheif's libde265, in less time), each picture limited to
// `maximum_pixels`. With `rgb`, an 8-bit 4:2:0 picture is handed to libheif already converted to RGB
// planes, byte for byte as libheif converts it with the stream's own colour description, in a tenth of
// the time. The caller passes `rgb` only where libheif would convert that way and where every picture
// the plugin decodes is colour: a primary image of type hvc1 or grid, 8-bit, without alpha, whose
// container gives no nclx colour description (libheif would use that one instead), decoded to RGB.
// Returns 0 when libavcodec.so.59 cannot be opened (aheif_ffmpeg_load_error says why): libheif then
// decodes with libde265.
int aheif_use_ffmpeg_hevc(struct heif_context *context, long maximum_pixels, int rgb);
const char *aheif_ffmpeg_load_error(void);
// How many pictures (a grid's tiles each count) the FFmpeg plugin has decoded in this process, and how
// many of them it handed to libheif as RGB.
long aheif_ffmpeg_pictures_decoded(void);
long aheif_ffmpeg_pictures_converted(void);
