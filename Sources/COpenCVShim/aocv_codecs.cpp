// OpenCV's image codecs, opened only when an image needs them (see aocv_imdecode / aocv_imencode).
//
// Why: Debian's libopencv_imgcodecs pulls in GDAL, and GDAL some seventy libraries more (PostgreSQL,
// MariaDB, HDF5, NetCDF, Poppler…): linked, they made every start of analyze, `--version` included,
// cost about 80 ms (a program linking analyze's libraries took 100 ms to start with imgcodecs, 20 ms
// without). analyze decodes JPEG and PNG with libjpeg and libpng itself and encodes JPEG and PNG
// itself, so only TIFF, WebP, BMP, GIF… and WebP output need imgcodecs: it is opened on first use,
// by its soname, and its two functions are looked up by their (Itanium C++ ABI) names.
#include "aocv_internal.hpp"
#include <dlfcn.h>
#include <mutex>
#include <stdexcept>
#include <string>

namespace {

using Imdecode = cv::Mat (*)(const cv::_InputArray &, int);
using Imencode = bool (*)(const cv::String &, const cv::_InputArray &, std::vector<uchar> &, const std::vector<int> &);

constexpr const char *kLibrary = "libopencv_imgcodecs.so.406";

struct Codecs {
    Imdecode imdecode = nullptr;
    Imencode imencode = nullptr;
    std::string error;   // why they could not be opened
};

const Codecs &codecs() {
    static Codecs loaded;
    static std::once_flag once;
    std::call_once(once, [] {
        // RTLD_LOCAL: its symbols serve this lookup only. Never closed: OpenCV registers its codecs
        // in static state that lives as long as the process.
        void *handle = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char *reason = dlerror();
            loaded.error = std::string("OpenCV's image codecs (") + kLibrary + ") cannot be loaded: " + (reason ? reason : "not found") +
                           "; on Debian 12: apt install libopencv-imgcodecs406";
            return;
        }
        loaded.imdecode = reinterpret_cast<Imdecode>(dlsym(handle, "_ZN2cv8imdecodeERKNS_11_InputArrayEi"));
        loaded.imencode = reinterpret_cast<Imencode>(dlsym(handle,
            "_ZN2cv8imencodeERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEERKNS_11_InputArrayERSt6vectorIhSaIhEERKSB_IiSaIiEE"));
        if (!loaded.imdecode || !loaded.imencode) {
            loaded.imdecode = nullptr;
            loaded.imencode = nullptr;
            loaded.error = std::string(kLibrary) + " lacks cv::imdecode or cv::imencode (not OpenCV 4.6?)";
        }
    });
    return loaded;
}

} // namespace

cv::Mat aocv_imdecode(const cv::Mat &buffer, int flags) {
    const Codecs &c = codecs();
    if (!c.imdecode) throw std::runtime_error(c.error);
    return c.imdecode(buffer, flags);
}

bool aocv_imencode(const std::string &extension, const cv::Mat &image, std::vector<uchar> &out, const std::vector<int> &params) {
    const Codecs &c = codecs();
    if (!c.imencode) throw std::runtime_error(c.error);
    return c.imencode(extension, image, out, params);
}
