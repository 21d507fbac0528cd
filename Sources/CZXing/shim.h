// zxing-cpp's C API (built by scripts/fetch-zxing from the PyPI sdist zxing-cpp==3.1.1: reader core, static).
#include <ZXing/ZXingC.h>
