// GIF, which OpenCV 4.6 has no decoder for, read with giflib (Debian's libgif): the first frame on
// its logical screen, transparent pixels and the screen around the frame white (as PNG's alpha is
// composited over white), a palette of grays as one channel (a scan), anything else BGR. The frame is
// cut to the screen, whose size the caller has checked against its pixel limit before calling; a
// pixel whose index lies past the colour table is black; a GIF without a colour table is read as gray
// levels. Frames after the first are counted (their
// data skipped, not decoded; up to 10000) so that the caller can say how many were not analysed.
#include "aocv_internal.hpp"
#include <gif_lib.h>
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct GIFInput {
    const uint8_t *bytes;
    size_t length;
    size_t position;
};

int gifRead(GifFileType *gif, GifByteType *out, int size) {
    auto *input = static_cast<GIFInput *>(gif->UserData);
    if (size <= 0) return 0;
    const size_t n = std::min((size_t)size, input->length - input->position);
    std::memcpy(out, input->bytes + input->position, n);
    input->position += n;
    return (int)n;
}

std::string gifError(int code) {
    const char *text = GifErrorString(code);
    return std::string("GIF: ") + (text ? text : "damaged file");
}

struct GIFFile {
    GifFileType *gif = nullptr;
    ~GIFFile() { if (gif) { int ignored = 0; DGifCloseFile(gif, &ignored); } }
};

/// Passes over an extension's data blocks; the graphic control block's transparent index, when it is one.
void readExtension(GifFileType *gif, int *transparent) {
    int code = 0;
    GifByteType *block = nullptr;
    if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) throw std::runtime_error(gifError(gif->Error));
    if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4 && transparent) {
        GraphicsControlBlock control;
        if (DGifExtensionToGCB(block[0], block + 1, &control) == GIF_OK) *transparent = control.TransparentColor;
    }
    while (block) {
        if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) throw std::runtime_error(gifError(gif->Error));
    }
}

} // namespace

/// The first frame of a GIF, composited on its screen; `frames` gets the number of frames (counted up to
/// 10000: giflib keeps a record of each frame it passes).
cv::Mat aocv_decode_gif(const uint8_t *bytes, size_t length, int *frames, std::string *warning) {
    GIFInput input{bytes, length, 0};
    int error = 0;
    GIFFile file;
    file.gif = DGifOpen(&input, gifRead, &error);
    if (!file.gif) throw std::runtime_error(gifError(error));
    GifFileType *gif = file.gif;
    const int width = gif->SWidth, height = gif->SHeight;
    if (width <= 0 || height <= 0) throw std::runtime_error("GIF: the screen is empty");

    int transparent = NO_TRANSPARENT_COLOR;
    cv::Mat indices, canvasMask;   // the frame's colour indices on the screen, and where the frame drew
    // The first frame's colour table, copied: giflib frees the frame's own table when it reads the next
    // frame's descriptor (while the frames are counted).
    std::vector<GifColorType> table;
    bool hasTable = false;
    *frames = 0;
    bool done = false;
    while (!done) {
        GifRecordType record = UNDEFINED_RECORD_TYPE;
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) {
            if (*frames > 0) break;   // what follows the first frame is not read: a damaged tail ends the count
            throw std::runtime_error(gifError(gif->Error));
        }
        switch (record) {
        case EXTENSION_RECORD_TYPE:
            if (*frames > 0) {
                try { readExtension(gif, nullptr); } catch (const std::exception &) { done = true; }
            } else {
                readExtension(gif, &transparent);
            }
            break;
        case IMAGE_DESC_RECORD_TYPE: {
            if (DGifGetImageDesc(gif) == GIF_ERROR) {
                if (*frames > 0) { done = true; break; }
                throw std::runtime_error(gifError(gif->Error));
            }
            if (*frames > 0) {
                // Later frames: counted, their data skipped.
                int codeSize = 0;
                GifByteType *block = nullptr;
                if (DGifGetCode(gif, &codeSize, &block) == GIF_ERROR) { done = true; break; }
                while (block) {
                    if (DGifGetCodeNext(gif, &block) == GIF_ERROR) { done = true; break; }
                }
                if (!done) ++*frames;
                if (*frames >= 10000) done = true;
                break;
            }
            const GifImageDesc &frame = gif->Image;
            const ColorMapObject *colours = frame.ColorMap ? frame.ColorMap : gif->SColorMap;
            if (colours && colours->ColorCount > 0 && colours->Colors) {
                table.assign(colours->Colors, colours->Colors + std::min(colours->ColorCount, 256));
                hasTable = true;
            }
            if (frame.Width <= 0 || frame.Height <= 0) throw std::runtime_error("GIF: the first frame is empty");
            // Every row of the frame is decoded, even the parts off the screen: a frame far larger than
            // its screen (a 32x32 screen with a 65535x65535 frame of one colour is a 3 MB file) would
            // cost a minute of CPU for a thumbnail. The caller checked the screen against its pixel limit.
            if ((double)frame.Width * frame.Height > std::max(4.0 * width * height, 1.0e6)) {
                throw std::runtime_error("GIF: the first frame (" + std::to_string(frame.Width) + "x" + std::to_string(frame.Height) +
                                         ") is far larger than its screen (" + std::to_string(width) + "x" + std::to_string(height) + ")");
            }
            indices = cv::Mat(height, width, CV_16UC1, cv::Scalar(65535));   // 65535: nothing drawn (white)
            std::vector<GifPixelType> row((size_t)frame.Width);
            // Rows in the order they are stored: interlaced images in four passes.
            static const int start[] = {0, 4, 2, 1}, step[] = {8, 8, 4, 2};
            std::vector<int> order;
            order.reserve((size_t)frame.Height);
            if (frame.Interlace) {
                for (int pass = 0; pass < 4; ++pass)
                    for (int y = start[pass]; y < frame.Height; y += step[pass]) order.push_back(y);
            } else {
                for (int y = 0; y < frame.Height; ++y) order.push_back(y);
            }
            for (size_t i = 0; i < order.size(); ++i) {
                if (DGifGetLine(gif, row.data(), frame.Width) == GIF_ERROR) {
                    // giflib fills the last row, then reads on to the end of the frame's data: a file cut
                    // right after the pixels fails there, with every row in place (a viewer shows it whole).
                    if (i + 1 == order.size() && order.size() > 1) {
                        *warning = gifError(gif->Error) + " at the end of the first frame (the file is cut short); its rows are kept";
                        done = true;   // the row is placed below; nothing after it is read
                    } else throw std::runtime_error(gifError(gif->Error) + " (the first frame is cut short at row " + std::to_string(i + 1) + " of " +
                                             std::to_string(frame.Height) + ")");
                }
                const int y = frame.Top + order[i];
                if (y < 0 || y >= height) continue;
                uint16_t *out = indices.ptr<uint16_t>(y);
                for (int x = 0; x < frame.Width; ++x) {
                    const int at = frame.Left + x;
                    if (at < 0 || at >= width) continue;
                    const int index = row[(size_t)x];
                    out[at] = index == transparent ? 65535 : (uint16_t)index;
                }
            }
            *frames = 1;
            break;
        }
        case TERMINATE_RECORD_TYPE:
            done = true;
            break;
        default:
            if (*frames > 0) { done = true; break; }
            throw std::runtime_error("GIF: damaged record");
        }
    }
    if (*frames == 0) throw std::runtime_error("GIF: no image in it");

    // Gray when every colour the frame uses is a gray, or when there is no colour table (the indices
    // are then the gray levels, as Pillow reads such a file).
    const int colourCount = hasTable ? (int)table.size() : 256;
    std::vector<bool> used((size_t)colourCount, false);
    bool gray = true;
    for (int y = 0; hasTable && y < height; ++y) {
        const uint16_t *in = indices.ptr<uint16_t>(y);
        for (int x = 0; x < width; ++x) {
            const int index = in[x];
            if (index == 65535 || index >= colourCount || used[(size_t)index]) continue;
            used[(size_t)index] = true;
            const GifColorType &c = table[(size_t)index];
            if (c.Red != c.Green || c.Green != c.Blue) gray = false;
        }
    }
    cv::Mat out(height, width, gray ? CV_8UC1 : CV_8UC3);
    for (int y = 0; y < height; ++y) {
        const uint16_t *in = indices.ptr<uint16_t>(y);
        uint8_t *d = out.ptr<uint8_t>(y);
        for (int x = 0; x < width; ++x) {
            const int index = in[x];
            uint8_t r = 255, g = 255, b = 255;
            if (index != 65535) {
                if (!hasTable) {
                    r = g = b = (uint8_t)std::min(index, 255);
                } else if (index < colourCount) {
                    const GifColorType &c = table[(size_t)index];
                    r = c.Red; g = c.Green; b = c.Blue;
                } else {
                    r = g = b = 0;
                }
            }
            if (gray) {
                d[x] = r;
            } else {
                d[3 * x] = b; d[3 * x + 1] = g; d[3 * x + 2] = r;
            }
        }
    }
    return out;
}
