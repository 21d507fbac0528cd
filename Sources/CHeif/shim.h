// libheif (libheif-dev): reads HEIF/HEIC photos (iPhones, many Android phones) for AnalyzeCore's HEIFDecoder.
#include <libheif/heif.h>
