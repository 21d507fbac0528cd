// aocv video (libAnalyzeVideo.so, loaded on first use by AnalyzeCore's VideoLibrary): reading video files and streams (FFmpeg) and cameras (cv::VideoCapture), writing annotated video
// (cv::VideoWriter) and following objects across frames (OpenCV contrib's CSRT and KCF trackers).
// Every function catches every C++ exception (see aocv.h). FFmpeg's own log lines never reach
// stderr: the ones of error level or worse, logged on the calling thread, are kept in the handle
// and returned by aocv_video_take_log.
#ifndef AOCV_VIDEO_H
#define AOCV_VIDEO_H

#include "aocv_common.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// An open video source. Free with aocv_video_close.
typedef struct aocv_video aocv_video;

/// Opens a video file or a stream URL FFmpeg reads (udp://, rtsp://, http://…), demuxed and decoded
/// with FFmpeg's own API, or a V4L2 camera when `source` is a /dev/video* path (cv::VideoCapture).
/// Opening gives up after `open_timeout_ms` and every read after `read_timeout_ms` (FFmpeg sources
/// only), or as soon as `abort_requested(abort_context)` returns nonzero (it is polled while FFmpeg
/// waits, from the calling thread), so a stalled stream or a damaged file never hangs. With
/// `local_file` nonzero, `source` is the absolute path of a local file, opened through FFmpeg's file
/// protocol only and refused unless its container is self-contained (not an HLS or DASH playlist, a
/// concat script or anything else that names other files or addresses). A picture over `max_pixels`
/// is refused by the decoder before it is allocated (and counted, see aocv_video_end).
aocv_video *_Nullable aocv_video_open(const char *source, int local_file, int open_timeout_ms, int read_timeout_ms, int64_t max_pixels,
                                      int (*_Nullable abort_requested)(void *_Nullable), void *_Nullable abort_context, aocv_status *status);
/// What the container says: frames per second (0 when unknown), frame count (0 when unknown or a
/// stream), and the frame size (upright).
void aocv_video_info(const aocv_video *video, double *fps, double *frame_count, int *width, int *height);
/// Reads and decodes the next frame without converting it (cheap skipping). Returns 1 when a frame
/// was read, 0 at the end of the stream or when reading failed (aocv_video_end says which). `time_ms`
/// receives its presentation time from the stream's start (-1 when it has none).
int aocv_video_grab(aocv_video *video, double *time_ms);
/// Why grabbing stopped: one of these.
enum { AOCV_VIDEO_READING = 0, AOCV_VIDEO_ENDED = 1, AOCV_VIDEO_STALLED = 2, AOCV_VIDEO_ABORTED = 3, AOCV_VIDEO_FAILED = 4 };
/// Why grabbing stopped (AOCV_VIDEO_READING while it has not), and in `refused_frames` how many
/// pictures the decoder refused so far (damaged, or over the pixel limit).
int aocv_video_end(const aocv_video *video, int *refused_frames);
/// The frame last grabbed, as 8-bit BGR at its own size, turned upright by the stream's rotation;
/// nullptr when it cannot be converted.
aocv_mat *_Nullable aocv_video_retrieve(aocv_video *video, aocv_status *status);
/// Moves FFmpeg's error lines logged since the last call into `text` (one per line, NUL-terminated,
/// cut at `capacity`); returns how many lines were logged in all since the last call.
int aocv_video_take_log(aocv_video *video, char *text, size_t capacity);
void aocv_video_close(aocv_video *_Nullable video);

/// A video being written. Free with aocv_video_writer_close (which finishes the file).
typedef struct aocv_video_writer aocv_video_writer;

/// Starts writing `path` with the four-character codec `fourcc` (e.g. "mp4v", "MJPG") through FFmpeg.
aocv_video_writer *_Nullable aocv_video_writer_open(const char *path, const char *fourcc, double fps, int width, int height,
                                                   aocv_status *status);
/// Appends a frame (resized to the writer's size if it differs; gray expanded to BGR).
int aocv_video_writer_write(aocv_video_writer *writer, const aocv_mat *frame, aocv_status *status);
/// Finishes the file and frees the writer.
void aocv_video_writer_close(aocv_video_writer *_Nullable writer);

/// A single-object tracker. Free with aocv_tracker_free.
typedef struct aocv_tracker aocv_tracker;

/// Tracker algorithms.
enum { AOCV_TRACKER_CSRT = 0, AOCV_TRACKER_KCF = 1 };

/// Starts following the box x, y, width, height (pixels of `frame`).
aocv_tracker *_Nullable aocv_tracker_create(int kind, const aocv_mat *frame, const double box[_Nonnull 4], aocv_status *status);
/// Follows the object into `frame`. Returns 1 and sets `box` and `similarity` (the normalised
/// cross-correlation, 0–1, of the box's gray pixels with the object's recent appearance: set when
/// placed, then blended 30% towards each frame that matches it by 0.5 or more) when the tracker found it; 0 when it lost it; -1 on error (status says why).
int aocv_tracker_update(aocv_tracker *tracker, const aocv_mat *frame, double box[_Nonnull 4], double *similarity, aocv_status *status);
/// Places the tracker on a new box: a fresh tracker and appearance there. `trusted` (a re-detection) also
/// takes the anchor and the search reference there; untrusted (found again by aocv_tracker_search)
/// keeps those of the last trusted placement. The similarity aocv_tracker_update reports is never more
/// than the box's correlation with the anchor plus 0.1; the anchor is blended 10% towards a box that
/// correlates with it by 0.5 or more (slow change), never towards one that does not (an occluder).
int aocv_tracker_place(aocv_tracker *tracker, const aocv_mat *frame, const double box[_Nonnull 4], int trusted, aocv_status *status);
/// Looks for a lost object: its pixels at the last trusted placement (gray, at most 48 px on a side) matched by
/// normalised cross-correlation over the window around `last` (x, y, width, height) grown by
/// `reach` × its longer side on every side. Returns 1 with the best place in `box` (the placed
/// object's size) and its correlation in `score` (0–1); 0 when there is nothing to search; -1 on error.
int aocv_tracker_search(aocv_tracker *tracker, const aocv_mat *frame, const double last[_Nonnull 4], double reach,
                        double box[_Nonnull 4], double *score, aocv_status *status);
void aocv_tracker_free(aocv_tracker *_Nullable tracker);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif
