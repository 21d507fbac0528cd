// ZBar's C API (libzbar-dev). Imported as-is; AnalyzeCore's ZBarScanner owns the handles.
#include <zbar.h>
