// Opens libtesseract.so.5 on first use and forwards the Tesseract, Leptonica and libgomp functions
// AnalyzeCore calls (see include/CTesseract.h for why it is not linked).
#include "CTesseract.h"

#include <CLibraryLoader.h>

// The functions forwarded. Leptonica's and libgomp's are found through libtesseract, which needs them.
#define FORWARDED(X)                                                                                             \
    X(TessBaseAPICreate) X(TessBaseAPIInit3) X(TessBaseAPIDelete) X(TessBaseAPIClear) X(TessBaseAPIEnd)         \
    X(TessBaseAPISetImage) X(TessBaseAPISetSourceResolution) X(TessBaseAPISetVariable) X(TessBaseAPISetPageSegMode) \
    X(TessBaseAPIRecognize) X(TessBaseAPIGetIterator) X(TessBaseAPIGetUTF8Text) X(TessBaseAPIDetectOrientationScript) \
    X(TessBaseAPIClearAdaptiveClassifier) X(TessDeleteText) X(TessPageIteratorIsAtBeginningOf)                   \
    X(TessPageIteratorBoundingBox) X(TessResultIteratorNext) X(TessResultIteratorGetPageIterator)                \
    X(TessResultIteratorDelete) X(TessResultIteratorConfidence) X(TessResultIteratorGetUTF8Text)                 \
    X(setMsgSeverity) X(omp_set_max_active_levels)

ALOAD_FORWARDING(FORWARDED, "libtesseract.so.5", "libtesseract5")

const char *atess_load_error(void) { return aload_error(&library); }

#define REAL ALOAD_REAL

// Each loads the library if needed; without it, the ones that create something return NULL
// (TessBaseAPICreate: TesseractEngine reports atess_load_error first) and the others do nothing and
// return 0 (-1 for the status codes).
static int ready(void) { return atess_load_error() == NULL; }

TessBaseAPI *TessBaseAPICreate(void) { return ready() ? REAL(TessBaseAPICreate)() : NULL; }
int TessBaseAPIInit3(TessBaseAPI *h, const char *datapath, const char *language) { return ready() ? REAL(TessBaseAPIInit3)(h, datapath, language) : -1; }
void TessBaseAPIDelete(TessBaseAPI *h) { if (ready()) REAL(TessBaseAPIDelete)(h); }
void TessBaseAPIClear(TessBaseAPI *h) { if (ready()) REAL(TessBaseAPIClear)(h); }
void TessBaseAPIEnd(TessBaseAPI *h) { if (ready()) REAL(TessBaseAPIEnd)(h); }
void TessBaseAPISetImage(TessBaseAPI *h, const unsigned char *data, int width, int height, int bytes_per_pixel, int bytes_per_line) {
    if (ready()) REAL(TessBaseAPISetImage)(h, data, width, height, bytes_per_pixel, bytes_per_line);
}
void TessBaseAPISetSourceResolution(TessBaseAPI *h, int ppi) { if (ready()) REAL(TessBaseAPISetSourceResolution)(h, ppi); }
BOOL TessBaseAPISetVariable(TessBaseAPI *h, const char *name, const char *value) { return ready() ? REAL(TessBaseAPISetVariable)(h, name, value) : 0; }
void TessBaseAPISetPageSegMode(TessBaseAPI *h, TessPageSegMode mode) { if (ready()) REAL(TessBaseAPISetPageSegMode)(h, mode); }
int TessBaseAPIRecognize(TessBaseAPI *h, ETEXT_DESC *monitor) { return ready() ? REAL(TessBaseAPIRecognize)(h, monitor) : -1; }
TessResultIterator *TessBaseAPIGetIterator(TessBaseAPI *h) { return ready() ? REAL(TessBaseAPIGetIterator)(h) : NULL; }
char *TessBaseAPIGetUTF8Text(TessBaseAPI *h) { return ready() ? REAL(TessBaseAPIGetUTF8Text)(h) : NULL; }
BOOL TessBaseAPIDetectOrientationScript(TessBaseAPI *h, int *orient_deg, float *orient_conf, const char **script_name, float *script_conf) {
    return ready() ? REAL(TessBaseAPIDetectOrientationScript)(h, orient_deg, orient_conf, script_name, script_conf) : 0;
}
void TessBaseAPIClearAdaptiveClassifier(TessBaseAPI *h) { if (ready()) REAL(TessBaseAPIClearAdaptiveClassifier)(h); }
void TessDeleteText(const char *text) { if (ready()) REAL(TessDeleteText)(text); }
BOOL TessPageIteratorIsAtBeginningOf(const TessPageIterator *h, TessPageIteratorLevel level) {
    return ready() ? REAL(TessPageIteratorIsAtBeginningOf)(h, level) : 0;
}
BOOL TessPageIteratorBoundingBox(const TessPageIterator *h, TessPageIteratorLevel level, int *left, int *top, int *right, int *bottom) {
    return ready() ? REAL(TessPageIteratorBoundingBox)(h, level, left, top, right, bottom) : 0;
}
BOOL TessResultIteratorNext(TessResultIterator *h, TessPageIteratorLevel level) { return ready() ? REAL(TessResultIteratorNext)(h, level) : 0; }
TessPageIterator *TessResultIteratorGetPageIterator(TessResultIterator *h) { return ready() ? REAL(TessResultIteratorGetPageIterator)(h) : NULL; }
void TessResultIteratorDelete(TessResultIterator *h) { if (ready()) REAL(TessResultIteratorDelete)(h); }
float TessResultIteratorConfidence(const TessResultIterator *h, TessPageIteratorLevel level) {
    return ready() ? REAL(TessResultIteratorConfidence)(h, level) : 0;
}
char *TessResultIteratorGetUTF8Text(const TessResultIterator *h, TessPageIteratorLevel level) {
    return ready() ? REAL(TessResultIteratorGetUTF8Text)(h, level) : NULL;
}
int setMsgSeverity(int severity) { return ready() ? REAL(setMsgSeverity)(severity) : 0; }
void omp_set_max_active_levels(int levels) { if (ready()) REAL(omp_set_max_active_levels)(levels); }
