// libexif (libexif-dev): only the EXIF parser and tag lookup are used, by AnalyzeCore's ExifOrientationReader.
#include <libexif/exif-data.h>
#include <libexif/exif-loader.h>
