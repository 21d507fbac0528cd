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
