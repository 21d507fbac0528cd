// Tesseract's C API (libtesseract-dev). Imported as-is; AnalyzeCore's TesseractEngine owns the handle.
#include <tesseract/capi.h>

// From Leptonica (Tesseract's image library, liblept): declared here rather than including
// <leptonica/allheaders.h>, whose thousands of declarations Swift does not need. Used once to
// silence Leptonica's stderr messages ("Error in boxClipToRectangle…"), which are not errors of ours.
extern int setMsgSeverity(int newsev);
