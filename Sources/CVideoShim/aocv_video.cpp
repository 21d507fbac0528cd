// Video reading (FFmpeg's libavformat and libavcodec; cv::VideoCapture for V4L2 cameras), writing
// (cv::VideoWriter through FFmpeg) and the CSRT/KCF
// trackers of OpenCV contrib. See include/aocv_video.h.
//
// Built as its own shared library, libAnalyzeVideo.so, which AnalyzeCore loads (dlopen) the first time
// a video, stream or tracker is needed: OpenCV's videoio pulls in FFmpeg and GStreamer (100 shared
// libraries), which would otherwise load with every run, even `analyze --version`. Its matrices are the
// COpenCVShim's (the same struct, allocator and libopencv_core), created here and freed there.
#include "aocv_common.hpp"
#include "include/aocv_video.h"
#include <opencv2/videoio.hpp>
#include <opencv2/tracking.hpp>
#include <cstdarg>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <mutex>
#include <string>
#include <vector>
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/time.h>
#include <libswscale/swscale.h>
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

/// An open video. Files and network streams are demuxed and decoded here with FFmpeg's own API (one
/// decoding thread, so its log lines come on the calling thread): every frame is converted at its own
/// size, a frame over the pixel limit is refused by the decoder before its buffers are allocated, and
/// every blocking call is cut short by the interrupt callback (timeouts, the caller's abort). V4L2
/// cameras go through cv::VideoCapture.
struct aocv_video {
    aocv_log_sink log;
    // A camera.
    cv::VideoCapture camera;
    bool is_camera = false;
    // A file or stream.
    AVFormatContext *format = nullptr;
    AVCodecContext *codec = nullptr;
    AVFrame *frame = nullptr;
    AVPacket *packet = nullptr;
    SwsContext *sws = nullptr;
    int stream = -1;
    bool draining = false;
    bool have_frame = false;
    int rotation = 0;  // clockwise quarter turns that make a frame upright (0, 90, 180, 270)
    int64_t max_pixels = INT64_MAX;
    // The interrupt callback's state.
    int64_t deadline_us = INT64_MAX;
    int read_timeout_ms = 10000;
    int (*abort_requested)(void *) = nullptr;
    void *abort_context = nullptr;
    int end = AOCV_VIDEO_READING;
    int refused_frames = 0;

    ~aocv_video() {
        if (sws) sws_freeContext(sws);
        if (packet) av_packet_free(&packet);
        if (frame) av_frame_free(&frame);
        if (codec) avcodec_free_context(&codec);
        if (format) avformat_close_input(&format);
    }
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

/// FFmpeg's interrupt callback: nonzero (give up) past the deadline of the call in progress or when
/// the caller asks to stop.
int aocv_interrupt(void *opaque) {
    auto *video = static_cast<aocv_video *>(opaque);
    if (video->abort_requested && video->abort_requested(video->abort_context)) return 1;
    return av_gettime_relative() > video->deadline_us ? 1 : 0;
}

void start_deadline(aocv_video *video, int milliseconds) {
    video->deadline_us = milliseconds > 0 ? av_gettime_relative() + (int64_t)milliseconds * 1000 : INT64_MAX;
}

/// Why an FFmpeg call that returned `code` failed, in words, with the last error line FFmpeg logged.
std::string describe(aocv_video *video, int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {0};
    av_strerror(code, text, sizeof text);
    std::string why(text);
    if (!video->log.lines.empty()) why += " (" + video->log.lines.back() + ")";
    return why;
}

/// The quarter turns clockwise that make the stream's frames upright, from its display matrix (as
/// OpenCV's FFmpeg backend and the ffmpeg command apply it).
int rotation_of(AVStream *stream) {
    const uint8_t *matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, nullptr);
    if (!matrix) return 0;
    // Measured on FFmpeg 5.1 (SequenceTests): a phone's `rotate=90` tag, whose frames are viewed turned
    // 90° clockwise, reads +90 here, and OpenCV's backend turned such frames clockwise too.
    double degrees = av_display_rotation_get(reinterpret_cast<const int32_t *>(matrix));
    if (!std::isfinite(degrees)) return 0;
    int turns = (int)std::lround(degrees / 90.0);
    return ((turns % 4) + 4) % 4 * 90;
}

/// Opens `url` into `video`: with `demuxer` (the probed name of a local file's container), that demuxer
/// alone, through the file protocol alone.
void open_stream(aocv_video *video, const std::string &url, const std::string &demuxer, int open_timeout_ms) {
    const bool local_file = !demuxer.empty();
    video->format = avformat_alloc_context();
    if (!video->format) throw std::runtime_error("out of memory");
    video->format->interrupt_callback.callback = aocv_interrupt;
    video->format->interrupt_callback.opaque = video;
    AVDictionary *options = nullptr;
    if (local_file) av_dict_set(&options, "protocol_whitelist", "file", 0);
    start_deadline(video, open_timeout_ms);
    const AVInputFormat *forced = local_file ? av_find_input_format(demuxer.substr(0, demuxer.find(',')).c_str()) : nullptr;
    if (local_file && !forced) throw std::runtime_error("FFmpeg has no demuxer '" + demuxer + "'");
    int opened = avformat_open_input(&video->format, url.c_str(), forced, &options);
    av_dict_free(&options);
    if (opened < 0) {
        // avformat_open_input frees the context when it fails.
        video->format = nullptr;
        if (opened == AVERROR_EXIT) throw std::runtime_error(video->abort_requested && video->abort_requested(video->abort_context)
                                                                 ? "opening was interrupted"
                                                                 : "nothing came within " + std::to_string(open_timeout_ms / 1000) + " s");
        throw std::runtime_error("FFmpeg could not open it: " + describe(video, opened));
    }
    int found = avformat_find_stream_info(video->format, nullptr);
    if (found < 0) throw std::runtime_error("FFmpeg could not read its streams: " + describe(video, found));
    const AVCodec *decoder = nullptr;
    video->stream = av_find_best_stream(video->format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (video->stream < 0 || !decoder) throw std::runtime_error(video->stream == AVERROR_DECODER_NOT_FOUND ? "FFmpeg has no decoder for its video"
                                                                                                         : "it holds no video stream");
    AVStream *stream = video->format->streams[video->stream];
    video->codec = avcodec_alloc_context3(decoder);
    if (!video->codec) throw std::runtime_error("out of memory");
    if (avcodec_parameters_to_context(video->codec, stream->codecpar) < 0) throw std::runtime_error("FFmpeg cannot use its codec parameters");
    video->codec->pkt_timebase = stream->time_base;
    video->codec->thread_count = 1;
    // The decoder refuses a picture over the limit before allocating it (a 16000x16000 frame in a
    // 320x240 video): the frame is dropped and counted, never decoded.
    video->codec->max_pixels = video->max_pixels;
    int codecOpened = avcodec_open2(video->codec, decoder, nullptr);
    if (codecOpened < 0) throw std::runtime_error("FFmpeg could not start its decoder: " + describe(video, codecOpened));
    video->frame = av_frame_alloc();
    video->packet = av_packet_alloc();
    if (!video->frame || !video->packet) throw std::runtime_error("out of memory");
    video->rotation = rotation_of(stream);
}

/// Decodes the next frame into video->frame; false at the end, on a timeout, an abort or a read error
/// (video->end says which).
bool decode_next(aocv_video *video) {
    av_frame_unref(video->frame);
    video->have_frame = false;
    while (true) {
        int received = avcodec_receive_frame(video->codec, video->frame);
        if (received == 0) {
            video->have_frame = true;
            return true;
        }
        if (received == AVERROR_EOF) {
            video->end = AOCV_VIDEO_ENDED;
            return false;
        }
        if (received != AVERROR(EAGAIN)) {
            // A picture the decoder refused (damaged, or over the pixel limit): the next one is tried.
            video->refused_frames += 1;
            continue;
        }
        if (video->draining) {
            video->end = AOCV_VIDEO_ENDED;
            return false;
        }
        start_deadline(video, video->read_timeout_ms);
        int read = av_read_frame(video->format, video->packet);
        if (read == AVERROR(EAGAIN)) continue;
        if (read < 0) {
            if (read == AVERROR_EXIT) {
                video->end = video->abort_requested && video->abort_requested(video->abort_context) ? AOCV_VIDEO_ABORTED : AOCV_VIDEO_STALLED;
                return false;
            }
            if (read != AVERROR_EOF && !(video->format->pb && avio_feof(video->format->pb))) {
                video->end = AOCV_VIDEO_FAILED;
                if (video->log.lines.empty()) {
                    char text[AV_ERROR_MAX_STRING_SIZE] = {0};
                    av_strerror(read, text, sizeof text);
                    video->log.lines.push_back(std::string("reading failed: ") + text);
                    video->log.total += 1;
                }
                return false;
            }
            // The end of the input: what the decoder holds comes out next.
            video->draining = true;
            avcodec_send_packet(video->codec, nullptr);
            continue;
        }
        if (video->packet->stream_index == video->stream) {
            int sent = avcodec_send_packet(video->codec, video->packet);
            if (sent < 0 && sent != AVERROR(EAGAIN) && sent != AVERROR_EOF) video->refused_frames += 1;
        }
        av_packet_unref(video->packet);
    }
}

/// The stream's frames per second, as OpenCV's FFmpeg backend reckons it (0 when unknown).
double stream_fps(aocv_video *video) {
    AVStream *stream = video->format->streams[video->stream];
    AVRational rate = av_guess_frame_rate(video->format, stream, nullptr);
    double fps = rate.den > 0 ? av_q2d(rate) : 0;
    if (!(fps > 0) && video->codec->time_base.num > 0) fps = 1.0 / av_q2d(video->codec->time_base);
    return std::isfinite(fps) && fps > 0 && fps < 1000 ? fps : 0;
}

/// The frames the container declares, or its duration times the rate (as OpenCV reckons it).
double stream_frames(aocv_video *video, double fps) {
    AVStream *stream = video->format->streams[video->stream];
    if (stream->nb_frames > 0) return (double)stream->nb_frames;
    double seconds = video->format->duration != AV_NOPTS_VALUE ? (double)video->format->duration / AV_TIME_BASE : 0;
    if (seconds < 1e-6 && stream->duration != AV_NOPTS_VALUE) seconds = stream->duration * av_q2d(stream->time_base);
    double frames = std::floor(seconds * fps + 0.5);
    return std::isfinite(frames) && frames > 0 ? frames : 0;
}

}  // namespace

extern "C" aocv_video *aocv_video_open(const char *source, int local_file, int open_timeout_ms, int read_timeout_ms, int64_t max_pixels,
                                       int (*_Nullable abort_requested)(void *), void *abort_context, aocv_status *status) {
    aocv_install_ffmpeg_log();
    return aocv_guard<aocv_video *>(status, nullptr, [&]() -> aocv_video * {
        std::unique_ptr<aocv_video> video(new aocv_video());
        aocv_sink_scope scope(&video->log);
        video->max_pixels = max_pixels > 0 ? max_pixels : INT64_MAX;
        video->read_timeout_ms = read_timeout_ms;
        video->abort_requested = abort_requested;
        video->abort_context = abort_context;
        std::string path(source);
        if (local_file) {
            // A local file is opened as what it is named: an absolute path behind `file:`, so that no
            // part of its name reads as a protocol (`http:host:port.mp4`, `concat:a|b`), through the
            // file protocol alone, and only with a demuxer that cannot follow a reference to another
            // file or the network (probed from its bytes before any demuxer reads its header).
            if (path.empty() || path[0] != '/') throw std::runtime_error("a local video must be given by its absolute path");
            std::string url = "file:" + path;
            std::string demuxer = probe_local_demuxer(url);
            if (!is_local_demuxer(demuxer.c_str())) {
                if (demuxer.empty()) throw std::runtime_error("FFmpeg does not recognise it as a video");
                throw std::runtime_error("it is not a self-contained video file (FFmpeg reads it as '" + demuxer +
                                         "', which can name other files or network addresses); give a playlist as a stream URL");
            }
            open_stream(video.get(), url, demuxer, open_timeout_ms);
        } else if (path.rfind("/dev/video", 0) == 0) {
            video->is_camera = true;
            if (!video->camera.open(path, cv::CAP_V4L2) || !video->camera.isOpened()) throw std::runtime_error("the camera could not be opened");
        } else {
            open_stream(video.get(), path, std::string(), open_timeout_ms);
        }
        return video.release();
    });
}

extern "C" void aocv_video_info(const aocv_video *video, double *fps, double *frame_count, int *width, int *height) {
    *fps = 0; *frame_count = 0; *width = 0; *height = 0;
    try {
        if (video->is_camera) {
            auto &c = const_cast<cv::VideoCapture &>(video->camera);
            double f = c.get(cv::CAP_PROP_FPS);
            *fps = std::isfinite(f) && f > 0 && f < 1000 ? f : 0;
            *width = (int)c.get(cv::CAP_PROP_FRAME_WIDTH);
            *height = (int)c.get(cv::CAP_PROP_FRAME_HEIGHT);
            return;
        }
        auto *v = const_cast<aocv_video *>(video);
        *fps = stream_fps(v);
        *frame_count = stream_frames(v, *fps);
        AVCodecParameters *parameters = v->format->streams[v->stream]->codecpar;
        bool turned = v->rotation == 90 || v->rotation == 270;
        *width = turned ? parameters->height : parameters->width;
        *height = turned ? parameters->width : parameters->height;
    } catch (...) {
    }
}

extern "C" int aocv_video_grab(aocv_video *video, double *time_ms) {
    try {
        aocv_sink_scope scope(&video->log);
        *time_ms = -1;
        if (video->is_camera) {
            if (!video->camera.grab()) return 0;
            double t = video->camera.get(cv::CAP_PROP_POS_MSEC);
            *time_ms = std::isfinite(t) ? t : -1;
            return 1;
        }
        // The end and an abort are final; after a stall or a failed read, the next call reads on.
        if (video->end == AOCV_VIDEO_ENDED || video->end == AOCV_VIDEO_ABORTED) return 0;
        video->end = AOCV_VIDEO_READING;
        if (!decode_next(video)) return 0;
        AVStream *stream = video->format->streams[video->stream];
        int64_t pts = video->frame->best_effort_timestamp;
        if (pts != AV_NOPTS_VALUE) {
            if (stream->start_time != AV_NOPTS_VALUE) pts -= stream->start_time;
            double t = pts * av_q2d(stream->time_base) * 1000;
            if (std::isfinite(t)) *time_ms = t;
        }
        return 1;
    } catch (...) {
        video->end = AOCV_VIDEO_FAILED;
        return 0;
    }
}

extern "C" int aocv_video_end(const aocv_video *video, int *refused_frames) {
    *refused_frames = video->refused_frames;
    return video->end;
}

extern "C" aocv_mat *aocv_video_retrieve(aocv_video *video, aocv_status *status) {
    return aocv_guard<aocv_mat *>(status, nullptr, [&]() -> aocv_mat * {
        aocv_sink_scope scope(&video->log);
        cv::Mat out;
        if (video->is_camera) {
            cv::Mat frame;
            if (!video->camera.retrieve(frame) || frame.empty()) throw std::runtime_error("the frame could not be decoded");
            if (frame.depth() != CV_8U) throw std::runtime_error("the frame is not 8-bit");
            if (frame.channels() == 4) cv::cvtColor(frame, frame, cv::COLOR_BGRA2BGR);
            // A capture reuses its buffer: the frame must own its pixels.
            return aocv_wrap(frame.clone());
        }
        if (!video->have_frame) throw std::runtime_error("no frame was read");
        AVFrame *f = video->frame;
        if (f->width <= 0 || f->height <= 0) throw std::runtime_error("the frame is empty");
        if ((int64_t)f->width * f->height > video->max_pixels)
            throw std::runtime_error("the frame is " + std::to_string(f->width) + "x" + std::to_string(f->height) + ", over the pixel limit");
        video->sws = sws_getCachedContext(video->sws, f->width, f->height, (AVPixelFormat)f->format, f->width, f->height, AV_PIX_FMT_BGR24,
                                          SWS_BICUBIC, nullptr, nullptr, nullptr);
        if (!video->sws) throw std::runtime_error("FFmpeg cannot convert its pixel format");
        // swscale's vector code writes whole blocks of pixels, past a row's end when the width is not a
        // multiple of 16 (a frame 2 pixels wide overran its buffer by kilobytes): such a frame is
        // converted into rows and a last row with room to spare, then copied out.
        const bool tight = f->width % 16 == 0;
        cv::Mat target = tight ? cv::Mat(f->height, f->width, CV_8UC3) : cv::Mat(f->height + 1, f->width + 64, CV_8UC3);
        uint8_t *planes[4] = {target.data, nullptr, nullptr, nullptr};
        int strides[4] = {(int)target.step[0], 0, 0, 0};
        sws_scale(video->sws, f->data, f->linesize, 0, f->height, planes, strides);
        out = tight ? target : target(cv::Rect(0, 0, f->width, f->height)).clone();
        switch (video->rotation) {
        case 90: cv::rotate(out, out, cv::ROTATE_90_CLOCKWISE); break;
        case 180: cv::rotate(out, out, cv::ROTATE_180); break;
        case 270: cv::rotate(out, out, cv::ROTATE_90_COUNTERCLOCKWISE); break;
        default: break;
        }
        return aocv_wrap(out);
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
        if (video->is_camera) video->camera.release();
        delete video;
    } catch (...) {
    }
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
    cv::Mat appearance;  // 32x32 gray patch of the object when last placed, blended towards what matches it
    cv::Mat anchor;      // 32x32 gray patch at the last trusted placement (its start, a re-detection), blended only towards boxes that clearly match it
    cv::Mat reference;   // the object's gray pixels at the last trusted placement, at most kReferenceSide on a side
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

/// How far below the anchor's similarity the reported one may not fall: a box whose pixels correlate
/// with the anchor under this (an occluder, the background) is lost however well it matches the
/// blended appearance, which can drift onto whatever covers the object.
constexpr double kAnchorFloor = 0.1;
/// The anchor's own correlation with the box above which it is blended 10% towards the box.
constexpr double kAnchorFollow = 0.5;

/// Places a fresh tracker on `box`. A trusted placement (the start, a re-detection) also takes the
/// anchor and the search reference there; an untrusted one (the object found again by the search)
/// keeps them, so a false match can still be undone by the next search.
void place(aocv_tracker *t, const cv::Mat &frame, const double box[4], bool trusted) {
    cv::Rect r = clamp_box(box, frame);
    if (r.width < 2 || r.height < 2) throw std::runtime_error("the box is outside the frame or too small to track");
    t->tracker = make_tracker(t->kind);
    t->tracker->init(frame, r);
    t->appearance = appearance_of(frame, r);
    if (!trusted && !t->anchor.empty() && !t->reference.empty()) return;
    t->anchor = t->appearance.clone();
    t->referenceScale = std::min(1.0, (double)kReferenceSide / std::max(r.width, r.height));
    cv::resize(gray_of(frame)(r), t->reference, cv::Size(), t->referenceScale, t->referenceScale, cv::INTER_AREA);
}

}  // namespace

extern "C" aocv_tracker *aocv_tracker_create(int kind, const aocv_mat *frame, const double box[4], aocv_status *status) {
    return aocv_guard<aocv_tracker *>(status, nullptr, [&]() -> aocv_tracker * {
        auto *t = new aocv_tracker();
        t->kind = kind;
        try {
            place(t, frame->m, box, true);
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
        if (!tracker->anchor.empty()) {
            const double anchored = similarity_of(now, tracker->anchor);
            *similarity = std::min(*similarity, anchored + kAnchorFloor);
            // The anchor follows an object that changes slowly (a walker's stride) only while the box
            // still clearly looks like it: an occluder, which does not, never moves it.
            if (anchored >= kAnchorFollow) cv::addWeighted(tracker->anchor, 0.9, now, 0.1, 0, tracker->anchor);
        }
        return 1;
    });
}

extern "C" int aocv_tracker_place(aocv_tracker *tracker, const aocv_mat *frame, const double box[4], int trusted, aocv_status *status) {
    return aocv_guard<int>(status, 0, [&]() -> int {
        place(tracker, frame->m, box, trusted != 0);
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
        // The object may have come back nearer or further: the reference is matched at three sizes.
        double best = -1;
        cv::Point bestAt;
        cv::Size bestSize;
        for (double scale : {1.0, 0.8, 1.25}) {
            cv::Mat templ;
            if (scale == 1.0) templ = ref;
            else cv::resize(ref, templ, cv::Size(), scale, scale, scale < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
            if (templ.cols < 4 || templ.rows < 4 || area.cols < templ.cols || area.rows < templ.rows) continue;
            cv::Mat result;
            cv::matchTemplate(area, templ, result, cv::TM_CCOEFF_NORMED);
            double v = 0;
            cv::Point at;
            cv::minMaxLoc(result, nullptr, &v, nullptr, &at);
            if (std::isfinite(v) && v > best) { best = v; bestAt = at; bestSize = templ.size(); }
        }
        if (best < 0) return 0;
        box[0] = window.x + bestAt.x / k;
        box[1] = window.y + bestAt.y / k;
        box[2] = bestSize.width / k;
        box[3] = bestSize.height / k;
        *score = std::max(0.0, std::min(1.0, best));
        return 1;
    });
}

extern "C" void aocv_tracker_free(aocv_tracker *tracker) { delete tracker; }
