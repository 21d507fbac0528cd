// COpenCVCommon is headers (aocv_common.h, aocv_common.hpp); SwiftPM wants a source file in every C
// target, and this one checks that the C++ header compiles on its own.
#include "aocv_common.hpp"
