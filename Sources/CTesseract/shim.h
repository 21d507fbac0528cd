// Tesseract's C API (libtesseract-dev). Imported as-is; AnalyzeCore's TesseractEngine owns the handle.
#include <tesseract/capi.h>

// From Leptonica (Tesseract's image library, liblept): declared here rather than including
// <leptonica/allheaders.h>, whose thousands of declarations Swift does not need. Used once to
// silence Leptonica's stderr messages ("Error in boxClipToRectangle…"), which are not errors of ours.
extern int setMsgSeverity(int newsev);

// From libgomp (Tesseract's OpenMP runtime, which libtesseract already loads). Tesseract's LSTM
// asks for parallel regions of several threads per call; inside our worker threads that
// oversubscribes the cores. Setting the maximum number of active parallel levels to 0 makes every
// OpenMP region run on the calling thread, process-wide — what OMP_THREAD_LIMIT=1 would do, but
// settable at run time (libgomp reads OMP_* variables only once, when it loads).
extern void omp_set_max_active_levels(int max_levels);
