// The module's umbrella header: every public header of the shim, listed. (With an umbrella
// directory instead, an incremental build does not notice a new header in it: seen when
// aocv_dnn.h was added; an edit here is noticed.)
#include "aocv.h"
#include "aocv_detect.h"
#include "aocv_dnn.h"
#include "aocv_text_lines.h"
