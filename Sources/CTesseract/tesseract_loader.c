// Opens libtesseract.so.5 on first use and forwards the Tesseract, Leptonica and libgomp functions
// AnalyzeCore calls (see include/CTesseract.h for why it is not linked).
#include "CTesseract.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static const char kLibrary[] = "libtesseract.so.5";

// One pointer per function, named and typed as the function it forwards to.
#define TESSERACT_FUNCTIONS(X)                                                                                   \
    X(TessBaseAPI *, TessBaseAPICreate, (void))                                                                  \
    X(int, TessBaseAPIInit3, (TessBaseAPI *, const char *, const char *))                                       \
    X(void, TessBaseAPIDelete, (TessBaseAPI *))                                                                  \
    X(void, TessBaseAPIClear, (TessBaseAPI *))                                                                   \
    X(void, TessBaseAPIEnd, (TessBaseAPI *))                                                                     \
    X(void, TessBaseAPISetImage, (TessBaseAPI *, const unsigned char *, int, int, int, int))                     \
    X(void, TessBaseAPISetSourceResolution, (TessBaseAPI *, int))                                                \
    X(BOOL, TessBaseAPISetVariable, (TessBaseAPI *, const char *, const char *))                                 \
    X(void, TessBaseAPISetPageSegMode, (TessBaseAPI *, TessPageSegMode))                                         \
    X(int, TessBaseAPIRecognize, (TessBaseAPI *, ETEXT_DESC *))                                                  \
    X(TessResultIterator *, TessBaseAPIGetIterator, (TessBaseAPI *))                                             \
    X(char *, TessBaseAPIGetUTF8Text, (TessBaseAPI *))                                                           \
    X(BOOL, TessBaseAPIDetectOrientationScript, (TessBaseAPI *, int *, float *, const char **, float *))         \
    X(void, TessBaseAPIClearAdaptiveClassifier, (TessBaseAPI *))                                                 \
    X(void, TessDeleteText, (const char *))                                                                      \
    X(BOOL, TessPageIteratorIsAtBeginningOf, (const TessPageIterator *, TessPageIteratorLevel))                  \
    X(BOOL, TessPageIteratorBoundingBox, (const TessPageIterator *, TessPageIteratorLevel, int *, int *, int *, int *)) \
    X(BOOL, TessResultIteratorNext, (TessResultIterator *, TessPageIteratorLevel))                               \
    X(TessPageIterator *, TessResultIteratorGetPageIterator, (TessResultIterator *))                             \
    X(void, TessResultIteratorDelete, (TessResultIterator *))                                                    \
    X(float, TessResultIteratorConfidence, (const TessResultIterator *, TessPageIteratorLevel))                  \
    X(char *, TessResultIteratorGetUTF8Text, (const TessResultIterator *, TessPageIteratorLevel))                \
    X(int, setMsgSeverity, (int))                                                                                \
    X(void, omp_set_max_active_levels, (int))

#define DECLARE_POINTER(type, name, parameters) type(*name) parameters;
static struct {
    TESSERACT_FUNCTIONS(DECLARE_POINTER)
} api;
#undef DECLARE_POINTER

static char load_error[512];
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // RTLD_LOCAL: its symbols serve these lookups only (dlsym on the handle also searches the libraries
    // it needs: liblept, libgomp). Never closed: Tesseract keeps process-wide state.
    void *handle = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "Tesseract (%s) cannot be loaded: %s; on Debian 12: apt install libtesseract5",
                 kLibrary, reason ? reason : "not found");
        return;
    }
#define RESOLVE(type, name, parameters)                                                                          \
    if (!(*(void **)&api.name = dlsym(handle, #name))) {                                                         \
        snprintf(load_error, sizeof load_error, "%s lacks %s (not Tesseract 5?)", kLibrary, #name);              \
        return;                                                                                                  \
    }
    TESSERACT_FUNCTIONS(RESOLVE)
#undef RESOLVE
    loaded = 1;
}

const char *atess_load_error(void) {
    pthread_once(&once, load);
    return loaded ? NULL : load_error;
}

// The forwarding functions. Each loads the library if needed; without it, the ones that create
// something return NULL (TessBaseAPICreate: TesseractEngine reports atess_load_error first) and the
// others do nothing and return 0.
static int ready(void) { return atess_load_error() == NULL; }

TessBaseAPI *TessBaseAPICreate(void) { return ready() ? api.TessBaseAPICreate() : NULL; }
int TessBaseAPIInit3(TessBaseAPI *h, const char *datapath, const char *language) { return ready() ? api.TessBaseAPIInit3(h, datapath, language) : -1; }
void TessBaseAPIDelete(TessBaseAPI *h) { if (ready()) api.TessBaseAPIDelete(h); }
void TessBaseAPIClear(TessBaseAPI *h) { if (ready()) api.TessBaseAPIClear(h); }
void TessBaseAPIEnd(TessBaseAPI *h) { if (ready()) api.TessBaseAPIEnd(h); }
void TessBaseAPISetImage(TessBaseAPI *h, const unsigned char *data, int width, int height, int bytes_per_pixel, int bytes_per_line) {
    if (ready()) api.TessBaseAPISetImage(h, data, width, height, bytes_per_pixel, bytes_per_line);
}
void TessBaseAPISetSourceResolution(TessBaseAPI *h, int ppi) { if (ready()) api.TessBaseAPISetSourceResolution(h, ppi); }
BOOL TessBaseAPISetVariable(TessBaseAPI *h, const char *name, const char *value) { return ready() ? api.TessBaseAPISetVariable(h, name, value) : 0; }
void TessBaseAPISetPageSegMode(TessBaseAPI *h, TessPageSegMode mode) { if (ready()) api.TessBaseAPISetPageSegMode(h, mode); }
int TessBaseAPIRecognize(TessBaseAPI *h, ETEXT_DESC *monitor) { return ready() ? api.TessBaseAPIRecognize(h, monitor) : -1; }
TessResultIterator *TessBaseAPIGetIterator(TessBaseAPI *h) { return ready() ? api.TessBaseAPIGetIterator(h) : NULL; }
char *TessBaseAPIGetUTF8Text(TessBaseAPI *h) { return ready() ? api.TessBaseAPIGetUTF8Text(h) : NULL; }
BOOL TessBaseAPIDetectOrientationScript(TessBaseAPI *h, int *orient_deg, float *orient_conf, const char **script_name, float *script_conf) {
    return ready() ? api.TessBaseAPIDetectOrientationScript(h, orient_deg, orient_conf, script_name, script_conf) : 0;
}
void TessBaseAPIClearAdaptiveClassifier(TessBaseAPI *h) { if (ready()) api.TessBaseAPIClearAdaptiveClassifier(h); }
void TessDeleteText(const char *text) { if (ready()) api.TessDeleteText(text); }
BOOL TessPageIteratorIsAtBeginningOf(const TessPageIterator *h, TessPageIteratorLevel level) { return ready() ? api.TessPageIteratorIsAtBeginningOf(h, level) : 0; }
BOOL TessPageIteratorBoundingBox(const TessPageIterator *h, TessPageIteratorLevel level, int *left, int *top, int *right, int *bottom) {
    return ready() ? api.TessPageIteratorBoundingBox(h, level, left, top, right, bottom) : 0;
}
BOOL TessResultIteratorNext(TessResultIterator *h, TessPageIteratorLevel level) { return ready() ? api.TessResultIteratorNext(h, level) : 0; }
TessPageIterator *TessResultIteratorGetPageIterator(TessResultIterator *h) { return ready() ? api.TessResultIteratorGetPageIterator(h) : NULL; }
void TessResultIteratorDelete(TessResultIterator *h) { if (ready()) api.TessResultIteratorDelete(h); }
float TessResultIteratorConfidence(const TessResultIterator *h, TessPageIteratorLevel level) { return ready() ? api.TessResultIteratorConfidence(h, level) : 0; }
char *TessResultIteratorGetUTF8Text(const TessResultIterator *h, TessPageIteratorLevel level) { return ready() ? api.TessResultIteratorGetUTF8Text(h, level) : NULL; }
int setMsgSeverity(int severity) { return ready() ? api.setMsgSeverity(severity) : 0; }
void omp_set_max_active_levels(int levels) { if (ready()) api.omp_set_max_active_levels(levels); }
