// Shared by the shim's .cpp files: the aocv_mat definition and the exception guard.
#pragma once
#include "include/aocv.h"
#include <opencv2/core.hpp>
#include <cstdio>
#include <exception>
#include <new>

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

/// Runs `body`, turning every C++ exception into a status (ok = 0) and a nullptr/0 result.
template <typename Result, typename Body>
Result aocv_guard(aocv_status *status, Result failure, Body body) {
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
