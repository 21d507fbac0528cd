#!/usr/bin/python3
"""The OpenCV-Python peer for scripts/bench: Haar-cascade faces and contour rectangles, per image.

    /usr/bin/python3 scripts/bench.d/opencv_peer.py [--threads N] [--out FILE] IMAGE...

What a developer would write with Debian's python3-opencv instead of `analyze --faces --rects`:
  faces       gray, at most 640 px on the long side, equalizeHist, haarcascade_frontalface_default,
              detectMultiScale(scaleFactor 1.1, minNeighbors 3, minSize 2% of the short side, >= 20 px)
              (the parameters of `analyze --face-detector haar`, so the two do the same work);
  rectangles  gray at most 800 px on the long side (analyze's working size), GaussianBlur 5x5,
              Canny(50, 150), dilate 3x3, findContours(RETR_LIST), approxPolyDP(2% of the perimeter),
              kept when 4 points, convex, and the shorter bounding side >= 20% of the image's.
Prints one JSON line per image (file, faces, rectangles; boxes in pixels of the image as OpenCV reads it,
i.e. with its EXIF auto-rotation). Unreadable images get "error". Exit status 0.
"""
import argparse
import json
import sys

import cv2

CASCADE = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"


def scaled(gray, side):
    s = min(1.0, side / max(gray.shape[:2]))
    if s < 1.0:
        gray = cv2.resize(gray, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    return gray, s


def faces(cascade, gray):
    g, s = scaled(gray, 640)
    g = cv2.equalizeHist(g)
    m = max(20, int(0.02 * min(g.shape[:2])))
    boxes = cascade.detectMultiScale(g, scaleFactor=1.1, minNeighbors=3, minSize=(m, m))
    return [[round(v / s, 1) for v in b] for b in boxes]


def rectangles(gray):
    g, s = scaled(gray, 800)
    g = cv2.GaussianBlur(g, (5, 5), 0)
    edges = cv2.dilate(cv2.Canny(g, 50, 150), None)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    min_side = 0.2 * min(g.shape[:2])
    quads = []
    for c in contours:
        approx = cv2.approxPolyDP(c, 0.02 * cv2.arcLength(c, True), True)
        if len(approx) != 4 or not cv2.isContourConvex(approx):
            continue
        x, y, w, h = cv2.boundingRect(approx)
        if min(w, h) < min_side:
            continue
        quads.append([[round(float(p[0][0]) / s, 1), round(float(p[0][1]) / s, 1)] for p in approx])
    return quads


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=-1, help="cv2.setNumThreads (default: OpenCV's own)")
    ap.add_argument("--out", default="-")
    ap.add_argument("images", nargs="+")
    a = ap.parse_args()
    if a.threads >= 0:
        cv2.setNumThreads(a.threads)
    cascade = cv2.CascadeClassifier(CASCADE)
    if cascade.empty():
        sys.exit(f"opencv_peer: cannot load {CASCADE} (apt install opencv-data)")
    out = sys.stdout if a.out == "-" else open(a.out, "w", encoding="utf-8")
    for path in a.images:
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        if img is None:
            out.write(json.dumps({"file": path, "error": "unreadable"}) + "\n")
            continue
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        out.write(json.dumps({"file": path, "faces": faces(cascade, gray), "rectangles": rectangles(gray)}) + "\n")
    out.close()


if __name__ == "__main__":
    main()
