// Tesseract's C API (libtesseract-dev's <tesseract/capi.h>), for AnalyzeCore's TesseractEngine.
//
// libtesseract is not linked: it brings libcurl, NSS, GnuTLS, Kerberos, LDAP and libarchive, some forty
// shared libraries that the dynamic loader would map and relocate on every start, `analyze --version`
// included (measured: 30 ms of its 90). tesseract_loader.c defines the functions below, each calling
// the library's own, which it opens with dlopen the first time Tesseract is needed.
#include <tesseract/capi.h>

// NULL when libtesseract.so.5 is open and has every function used here, else why not (the loader opens
// it on the first call, once per process). TesseractEngine asks before creating an engine.
const char *atess_load_error(void);

// From Leptonica (Tesseract's image library, liblept), resolved through libtesseract: declared here
// rather than including <leptonica/allheaders.h>, whose thousands of declarations Swift does not need.
// Used once to silence Leptonica's stderr messages ("Error in boxClipToRectangle…"), which are not
// errors of ours.
int setMsgSeverity(int newsev);

// From libgomp (Tesseract's OpenMP runtime), resolved through libtesseract. Tesseract's LSTM asks for
// parallel regions of several threads per call; inside our worker threads that oversubscribes the
// cores. Setting the maximum number of active parallel levels to 0 makes every OpenMP region run on the
// calling thread — what OMP_THREAD_LIMIT=1 would do, but settable at run time (libgomp reads OMP_*
// variables only once, when it loads).
void omp_set_max_active_levels(int max_levels);
