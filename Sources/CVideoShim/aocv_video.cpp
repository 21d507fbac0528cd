// Video reading and writing (cv::VideoCapture / cv::VideoWriter through FFmpeg) and the CSRT/KCF
// trackers of OpenCV contrib. See include/aocv_video.h.
//
// Built as its own shared library, libAnalyzeVideo.so, which AnalyzeCore loads (dlopen) the first time
// a video, stream or tracker is needed: OpenCV's videoio pulls in FFmpeg and GStreamer (100 shared
// libraries), which would otherwise load with every run, even `analyze --version`. Its matrices are the
// COpenCVShim's (the same struct, allocator and libopencv_core), created here and freed there.
#include "../COpenCVShim/aocv_internal.hpp"
#include "include/aocv_video.h"
#include <opencv2/videoio.hpp>
#include <opencv2/tracking.hpp>
#include <cstdarg>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>
extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/log.h>
}

namespace {

/// The log lines of the video being read on this thread (set around every FFmpeg call).
struct aocv_log_sink {
    std::vector<std::string> lines;
    int total = 0;
};
thread_local aocv_log_sink *current_sink = nullptr;

/// FFmpeg's log callback: error lines go to the calling thread's video, never to stderr; lines
/// logged elsewhere (FFmpeg's own decoding threads) or below error level are dropped.
void aocv_ffmpeg_log(void *context, int level, const char *format, va_list arguments) {
    if (level > AV_LOG_ERROR || current_sink == nullptr) return;
    char line[512];
    char text[480];
    std::vsnprintf(text, sizeof text, format, arguments);
    // FFmpeg names the component (`[mpeg4 @ 0x…]`) through its AVClass.
    const char *component = nullptr;
    if (context) {
        AVClass *cls = *(AVClass **)context;
        if (cls && cls->item_name) component = cls->item_name(context);
    }
    std::snprintf(line, sizeof line, "%s%s%s", component ? component : "", component ? ": " : "", text);
    std::string s(line);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    current_sink->total += 1;
    if (current_sink->lines.size() < 64 && !s.empty()) current_sink->lines.push_back(s);
}

void aocv_install_ffmpeg_log() {
    static std::once_flag once;
    std::call_once(once, [] { av_log_set_callback(aocv_ffmpeg_log); });
}

/// Routes this thread's FFmpeg log lines to `sink` for the scope.
struct aocv_sink_scope {
    aocv_log_sink *previous;
    explicit aocv_sink_scope(aocv_log_sink *sink) : previous(current_sink) { current_sink = sink; }
    ~aocv_sink_scope() { current_sink = previous; }
};

cv::Mat gray_of(const cv::Mat &m) {
    if (m.channels() == 1) return m;
    cv::Mat g;
    cv::cvtColor(m, g, m.channels() == 4 ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGR2GRAY);
    return g;
}

cv::Rect clamp_box(const double box[4], const cv::Mat &frame) {
    cv::Rect r((int)std::lround(box[0]), (int)std::lround(box[1]), (int)std::lround(box[2]), (int)std::lround(box[3]));
    return r & cv::Rect(0, 0, frame.cols, frame.rows);
}

}  // namespace

struct aocv_video {
    cv::VideoCapture capture;
    aocv_log_sink log;
};

namespace {

/// The demuxers a local video file may be read with: containers whose streams are all inside the file.
/// Left out on purpose: playlists and scripts that name other resources (hls, dash, concat, ffmetadata,
/// tee, image2's numbered file patterns, lavfi, subtitles that include files…). The mov demuxer's
/// external data references stay off (FFmpeg's `enable_drefs` defaults to 0).
const char *const local_demuxers[] = {
    "mov", "mp4", "m4a", "3gp", "3g2", "mj2", "matroska", "webm", "avi", "mpegts", "mpeg", "mpegvideo",
    "flv", "ogg", "asf", "nut", "mxf", "dv", "h264", "hevc", "m4v", "mjpeg", "ivf", "rm", "wtv",
    "yuv4mpegpipe", "gif", "obu", "av1",
};

bool is_local_demuxer(const char *names) {
    std::string all(names ? names : "");
    size_t start = 0;
    while (start <= all.size()) {
        size_t end = all.find(',', start);
        std::string name = all.substr(start, end == std::string::npos ? std::string::npos : end - start);
        for (const char *allowed : local_demuxers)
            if (name == allowed) return true;
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return false;
}

/// The name of the demuxer FFmpeg would pick for the local file `url` (a `file:` URL), probed from the
/// file's own bytes through the file protocol alone: nothing is opened but the file, and no demuxer's
/// header is read (an HLS demuxer would open its segments there). Empty when nothing matches.
std::string probe_local_demuxer(const std::string &url) {
    AVDictionary *options = nullptr;
    av_dict_set(&options, "protocol_whitelist", "file", 0);
    AVIOContext *io = nullptr;
    int opened = avio_open2(&io, url.c_str(), AVIO_FLAG_READ, nullptr, &options);
    av_dict_free(&options);
    if (opened < 0 || io == nullptr) throw std::runtime_error("cannot open the file");
    const AVInputFormat *format = nullptr;
    int probed = av_probe_input_buffer2(io, &format, url.c_str(), nullptr, 0, 0);
    avio_closep(&io);
    if (probed < 0 || format == nullptr) return std::string();
    return std::string(format->name ? format->name : "");
}

}  // namespace

extern "C" aocv_video *aocv_video_open(const char *source, int local_file, int open_timeout_ms, int read_timeout_ms, aocv_status *status) {
    aocv_install_ffmpeg_log();
    return aocv_guard<aocv_video *>(status, nullptr, [&]() -> aocv_video * {
        auto *video = new aocv_video();
        aocv_sink_scope scope(&video->log);
        std::string path(source);
        bool opened;
        if (local_file) {
            // A local file is opened as what it is named: an absolute path behind `file:`, so that no
            // part of its name reads as a protocol (`http:host:port.mp4`, `concat:a|b`), and only with
            // a demuxer that cannot follow a reference to another file or the network.
            if (path.empty() || path[0] != '/') {
                delete video;
                throw std::runtime_error("a local video must be given by its absolute path");
            }
            std::string url = "file:" + path;
            std::string demuxer;
            try {
                demuxer = probe_local_demuxer(url);
            } catch (...) {
                delete video;
                throw;
            }
            if (!is_local_demuxer(demuxer.c_str())) {
                delete video;
                if (demuxer.empty()) throw std::runtime_error("FFmpeg does not recognise it as a video");
                throw std::runtime_error("it is not a self-contained video file (FFmpeg reads it as '" + demuxer +
                                         "', which can name other files or network addresses); give a playlist as a stream URL");
            }
            std::vector<int> params{cv::CAP_PROP_OPEN_TIMEOUT_MSEC, open_timeout_ms, cv::CAP_PROP_READ_TIMEOUT_MSEC, read_timeout_ms};
            opened = video->capture.open(url, cv::CAP_FFMPEG, params);
        } else if (path.rfind("/dev/video", 0) == 0) {
            opened = video->capture.open(path, cv::CAP_V4L2);
        } else {
            std::vector<int> params{cv::CAP_PROP_OPEN_TIMEOUT_MSEC, open_timeout_ms, cv::CAP_PROP_READ_TIMEOUT_MSEC, read_timeout_ms};
            opened = video->capture.open(path, cv::CAP_FFMPEG, params);
        }
        if (!opened || !video->capture.isOpened()) {
            std::string why = video->log.lines.empty() ? std::string("FFmpeg could not open it as a video")
                                                       : "FFmpeg could not open it: " + video->log.lines.back();
            delete video;
            throw std::runtime_error(why);
        }
        return video;
    });
}

extern "C" void aocv_video_info(const aocv_video *video, double *fps, double *frame_count, int *width, int *height) {
    try {
        auto &c = const_cast<cv::VideoCapture &>(video->capture);
        double f = c.get(cv::CAP_PROP_FPS), n = c.get(cv::CAP_PROP_FRAME_COUNT);
        *fps = std::isfinite(f) && f > 0 && f < 1000 ? f : 0;
        *frame_count = std::isfinite(n) && n > 0 ? n : 0;
        *width = (int)c.get(cv::CAP_PROP_FRAME_WIDTH);
        *height = (int)c.get(cv::CAP_PROP_FRAME_HEIGHT);
    } catch (...) {
        *fps = 0; *frame_count = 0; *width = 0; *height = 0;
    }
}

extern "C" int aocv_video_grab(aocv_video *video, double *time_ms) {
    try {
        aocv_sink_scope scope(&video->log);
        if (!video->capture.grab()) return 0;
        double t = video->capture.get(cv::CAP_PROP_POS_MSEC);
        *time_ms = std::isfinite(t) ? t : -1;
        return 1;
    } catch (...) {
        return 0;
    }
}

extern "C" aocv_mat *aocv_video_retrieve(aocv_video *video, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        aocv_sink_scope scope(&video->log);
        cv::Mat frame;
        if (!video->capture.retrieve(frame) || frame.empty()) throw std::runtime_error("the frame could not be decoded");
        if (frame.depth() != CV_8U) throw std::runtime_error("the frame is not 8-bit");
        if (frame.channels() == 4) cv::cvtColor(frame, frame, cv::COLOR_BGRA2BGR);
        // A capture reuses its buffer: the frame must own its pixels.
        return aocv_wrap(frame.clone());
    });
}

extern "C" int aocv_video_take_log(aocv_video *video, char *text, size_t capacity) {
    int total = video->log.total;
    size_t used = 0;
    if (capacity > 0) text[0] = 0;
    for (const auto &line : video->log.lines) {
        if (used + line.size() + 2 > capacity) break;
        std::memcpy(text + used, line.data(), line.size());
        used += line.size();
        text[used++] = '\n';
        text[used] = 0;
    }
    video->log.lines.clear();
    video->log.total = 0;
    return total;
}

extern "C" void aocv_video_close(aocv_video *video) {
    if (!video) return;
    try {
        aocv_sink_scope scope(&video->log);
        video->capture.release();
    } catch (...) {
    }
    delete video;
}

struct aocv_video_writer {
    cv::VideoWriter writer;
    cv::Size size;
    aocv_log_sink log;
};

extern "C" aocv_video_writer *aocv_video_writer_open(const char *path, const char *fourcc, double fps, int width, int height,
                                                     aocv_status *status) {
    aocv_install_ffmpeg_log();
    return aocv_guard<aocv_video_writer *>(status, nullptr, [&]() -> aocv_video_writer * {
        if (std::strlen(fourcc) != 4) throw std::runtime_error("a codec is four characters");
        if (width <= 0 || height <= 0) throw std::runtime_error("empty frame size");
        auto *w = new aocv_video_writer();
        aocv_sink_scope scope(&w->log);
        w->size = cv::Size(width, height);
        int code = cv::VideoWriter::fourcc(fourcc[0], fourcc[1], fourcc[2], fourcc[3]);
        if (!w->writer.open(path, cv::CAP_FFMPEG, code, fps > 0 ? fps : 25, w->size, true) || !w->writer.isOpened()) {
            std::string why = w->log.lines.empty() ? std::string("FFmpeg cannot write this codec here") : w->log.lines.back();
            delete w;
            throw std::runtime_error("cannot write the video: " + why);
        }
        return w;
    });
}

extern "C" int aocv_video_writer_write(aocv_video_writer *writer, const aocv_mat *frame, aocv_status *status) {
    return aocv_guard<int>(status, 0, [&]() -> int {
        aocv_sink_scope scope(&writer->log);
        cv::Mat m = aocv_as_bgr(frame->m);
        if (m.size() != writer->size) {
            cv::Mat r;
            cv::resize(m, r, writer->size, 0, 0, cv::INTER_AREA);
            m = r;
        }
        writer->writer.write(m);
        return 1;
    });
}

extern "C" void aocv_video_writer_close(aocv_video_writer *writer) {
    if (!writer) return;
    try {
        aocv_sink_scope scope(&writer->log);
        writer->writer.release();
    } catch (...) {
    }
    delete writer;
}

struct aocv_tracker {
    int kind;
    cv::Ptr<cv::Tracker> tracker;
    cv::Mat appearance;  // 32x32 gray patch of the object when last placed
    cv::Mat reference;   // the object's gray pixels when last placed, at most kReferenceSide on a side
    double referenceScale = 1;  // reference pixels per frame pixel
};

namespace {

cv::Ptr<cv::Tracker> make_tracker(int kind) {
    if (kind == AOCV_TRACKER_KCF) return cv::TrackerKCF::create();
    // A 100-pixel template without colour segmentation: 3.5x faster than the defaults (200, with
    // segmentation) on Megamind.avi's faces (5.5 s instead of 19.3 s), with the same overlap with
    // the per-frame face detections.
    cv::TrackerCSRT::Params params;
    params.template_size = 100;
    params.use_segmentation = false;
    return cv::TrackerCSRT::create(params);
}

cv::Mat appearance_of(const cv::Mat &frame, const cv::Rect &r) {
    cv::Mat patch;
    cv::resize(gray_of(frame)(r), patch, cv::Size(32, 32), 0, 0, cv::INTER_AREA);
    return patch;
}

double similarity_of(const cv::Mat &a, const cv::Mat &b) {
    cv::Mat result;
    cv::matchTemplate(a, b, result, cv::TM_CCOEFF_NORMED);
    double v = result.at<float>(0, 0);
    if (!std::isfinite(v)) return 0;
    return std::max(0.0, std::min(1.0, v));
}

/// The reference a lost object is searched for with: its gray pixels, shrunk to at most this many
/// pixels on its longer side (a search then costs a fraction of a millisecond).
constexpr int kReferenceSide = 48;

void place(aocv_tracker *t, const cv::Mat &frame, const double box[4]) {
    cv::Rect r = clamp_box(box, frame);
    if (r.width < 2 || r.height < 2) throw std::runtime_error("the box is outside the frame or too small to track");
    t->tracker = make_tracker(t->kind);
    t->tracker->init(frame, r);
    t->appearance = appearance_of(frame, r);
    t->referenceScale = std::min(1.0, (double)kReferenceSide / std::max(r.width, r.height));
    cv::resize(gray_of(frame)(r), t->reference, cv::Size(), t->referenceScale, t->referenceScale, cv::INTER_AREA);
}

}  // namespace

extern "C" aocv_tracker *aocv_tracker_create(int kind, const aocv_mat *frame, const double box[4], aocv_status *status) {
    return aocv_guard<aocv_tracker *>(status, nullptr, [&]() -> aocv_tracker * {
        auto *t = new aocv_tracker();
        t->kind = kind;
        try {
            place(t, frame->m, box);
        } catch (...) {
            delete t;
            throw;
        }
        return t;
    });
}

extern "C" int aocv_tracker_update(aocv_tracker *tracker, const aocv_mat *frame, double box[4], double *similarity, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        cv::Rect r;
        if (!tracker->tracker->update(frame->m, r)) return 0;
        cv::Rect inside = r & cv::Rect(0, 0, frame->m.cols, frame->m.rows);
        // Mostly outside the frame: the object left it.
        if (inside.width < 2 || inside.height < 2 || inside.area() * 2 < r.area()) return 0;
        box[0] = r.x; box[1] = r.y; box[2] = r.width; box[3] = r.height;
        cv::Mat now = appearance_of(frame->m, inside);
        *similarity = similarity_of(now, tracker->appearance);
        // The appearance follows slow change (a walker's stride, a turning head) while the match is
        // good, so only a sudden change (the tracker slipping onto the background) loses it.
        if (*similarity >= 0.5) cv::addWeighted(tracker->appearance, 0.7, now, 0.3, 0, tracker->appearance);
        return 1;
    });
}

extern "C" int aocv_tracker_reset(aocv_tracker *tracker, const aocv_mat *frame, const double box[4], aocv_status *status) {
    return aocv_guard<int>(status, 0, [&]() -> int {
        place(tracker, frame->m, box);
        return 1;
    });
}

extern "C" int aocv_tracker_search(aocv_tracker *tracker, const aocv_mat *frame, const double last[4], double reach, double box[4],
                                   double *score, aocv_status *status) {
    return aocv_guard<int>(status, -1, [&]() -> int {
        const cv::Mat &f = frame->m;
        const cv::Mat &ref = tracker->reference;
        if (ref.empty() || f.empty()) return 0;
        const double w = last[2], h = last[3];
        if (!(w >= 2 && h >= 2) || !std::isfinite(last[0]) || !std::isfinite(last[1]) || !std::isfinite(reach)) return 0;
        const double margin = std::max(0.0, reach) * std::max(w, h);
        cv::Rect window((int)std::floor(last[0] - margin), (int)std::floor(last[1] - margin), (int)std::ceil(w + 2 * margin),
                        (int)std::ceil(h + 2 * margin));
        window &= cv::Rect(0, 0, f.cols, f.rows);
        const double k = tracker->referenceScale;
        cv::Mat area;
        cv::resize(gray_of(f)(window), area, cv::Size(), k, k, cv::INTER_AREA);
        if (area.cols < ref.cols || area.rows < ref.rows) return 0;
        cv::Mat result;
        cv::matchTemplate(area, ref, result, cv::TM_CCOEFF_NORMED);
        double best = 0;
        cv::Point at;
        cv::minMaxLoc(result, nullptr, &best, nullptr, &at);
        if (!std::isfinite(best)) return 0;
        box[0] = window.x + at.x / k;
        box[1] = window.y + at.y / k;
        box[2] = ref.cols / k;
        box[3] = ref.rows / k;
        *score = std::max(0.0, std::min(1.0, best));
        return 1;
    });
}

extern "C" void aocv_tracker_free(aocv_tracker *tracker) { delete tracker; }
