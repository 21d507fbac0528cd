// The C++ the two OpenCV shims share (COpenCVShim's sources and CVideoShim's): the matrix's definition,
// the exception guard every C entry point runs its body in, and small conversions. Header-only and
// inline, so the video library (a shared library of its own) needs no symbol from the other shim.
#pragma once
#include "aocv_common.h"
#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgproc.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <mutex>
#include <new>
#include <streambuf>

struct aocv_mat {
    cv::Mat m;
};

inline void aocv_fail(aocv_status *status, const char *what) {
    if (!status) return;
    status->ok = 0;
    std::snprintf(status->message, sizeof status->message, "%s", what);
}

inline void aocv_succeed(aocv_status *status) {
    if (!status) return;
    status->ok = 1;
    status->message[0] = 0;
}

/// A stream buffer that drops everything written to it.
struct aocv_discarding_buffer : std::streambuf {
    int overflow(int c) override { return traits_type::not_eof(c); }
    std::streamsize xsputn(const char *, std::streamsize n) override { return n; }
};

/// Points std::cerr at a buffer that drops what is written (once; see aocv_guard). Inline, so the
/// video library (a shared library of its own) does the same without a symbol from this one.
inline void aocv_discard_cerr() {
    static aocv_discarding_buffer buffer;
    static std::once_flag once;
    std::call_once(once, [] { std::cerr.rdbuf(&buffer); });
}

/// Runs `body`, turning every C++ exception into a status (ok = 0) and a nullptr/0 result.
template <typename Result, typename Body>
Result aocv_guard(aocv_status *status, Result failure, Body body) {
    // OpenCV's own log ("imdecode_(''): can't read data", "[ERROR] DNN/ONNX …") is off from the first
    // shim call on (as aocv_silence_logging): its failures reach the caller through `status`.
    // cv::imdecode's "imdecode_(''): can't read data: …" is not a log line but a write to std::cerr:
    // C++'s std::cerr writes nowhere from then on (analyze's own lines go through C stdio, untouched).
    static const bool silenced = [] {
        try { cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT); } catch (...) {}
        aocv_discard_cerr();
        return true;
    }();
    (void)silenced;
    try {
        Result r = body();
        aocv_succeed(status);
        return r;
    } catch (const cv::Exception &e) {
        aocv_fail(status, e.err.empty() ? e.what() : e.err.c_str());
    } catch (const std::bad_alloc &) {
        aocv_fail(status, "out of memory");
    } catch (const std::exception &e) {
        aocv_fail(status, e.what());
    } catch (...) {
        aocv_fail(status, "unknown C++ exception");
    }
    return failure;
}

inline aocv_mat *aocv_wrap(cv::Mat m) { return new aocv_mat{std::move(m)}; }

/// Converts any 1-, 3- or 4-channel 8-bit image to BGR (the shim's images are BGR or gray already).
inline cv::Mat aocv_as_bgr(const cv::Mat &m) {
    if (m.channels() == 3) return m;
    cv::Mat bgr;
    cv::cvtColor(m, bgr, m.channels() == 4 ? cv::COLOR_BGRA2BGR : cv::COLOR_GRAY2BGR);
    return bgr;
}
