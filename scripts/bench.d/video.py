#!/usr/bin/python3
"""Frames per second of each request on a video (default: opencv-doc's vtest.avi, 768x576, 10 fps).

    scripts/bench --video [--frames N] [--jobs N] [VIDEO]

For each request alone, then with --track (faces, objects), runs `analyze VIDEO --REQUEST --max-frames N
--jobs J --no-png -q` once and reports: frames analysed per second of wall time, CPU ms per frame (user +
system of the process), the request's own ms per frame (summary.json's stage timing), and peak memory. A
final row writes the annotated video too. Prints a Markdown table and writes bench-results/video-latest.md.
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.join(ROOT, ".build", "release", "analyze")

RUNS = [
    ("rects", ["--rects"], "rectangles"),
    ("faces", ["--faces"], "faces"),
    ("barcodes", ["--barcodes"], "barcodes"),
    ("text", ["--text"], "text"),
    ("objects", ["--objects"], "objects"),
    ("classify", ["--classify"], "classification"),
    ("horizon", ["--horizon"], "horizon"),
    ("faces --track", ["--faces", "--track"], "track"),
    ("objects --track", ["--objects", "--track"], "track"),
    ("objects --track --tracker kcf", ["--objects", "--track", "--tracker", "kcf"], "track"),
    ("all four + video out", ["--rects", "--faces", "--barcodes", "--text"], "render.video"),
]


def main(argv):
    frames, jobs, video = 200, 2, os.path.join(ROOT, ".models", "opencv-doc", "vtest.avi")
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--frames":
            frames = int(args.pop(0))
        elif a == "--jobs":
            jobs = int(args.pop(0))
        else:
            video = a
    if not os.path.exists(video):
        print(f"bench: {video} is missing (scripts/fetch-test-images)", file=sys.stderr)
        return 2
    rows = []
    for name, flags, stage in RUNS:
        with tempfile.TemporaryDirectory() as out:
            extra = [] if name.endswith("video out") else ["--no-png"]
            command = [BIN, video, *flags, "--max-frames", str(frames), "--jobs", str(jobs), "-q", "--no-svg", *extra, "-o", out]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.monotonic()
            proc = subprocess.run(["/usr/bin/time", "-f", "%M", *command], capture_output=True, text=True)
            wall = time.monotonic() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if proc.returncode != 0:
                print(f"bench: {name} failed: {proc.stderr[-500:]}", file=sys.stderr)
                continue
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            peak = int(proc.stderr.strip().splitlines()[-1]) / 1024
            summary = json.load(open(os.path.join(out, "summary.json")))
            stem = os.path.splitext(os.path.basename(video))[0]
            analysed = json.load(open(os.path.join(out, stem + ".json")))["sequence"]["framesAnalysed"]
            stage_ms = 1000 * summary["timings"].get(stage, 0) / max(1, analysed)
            rows.append((name, analysed, analysed / wall, 1000 * cpu / max(1, analysed), stage, stage_ms, peak))
    head = f"{os.path.basename(video)}, first {frames} frames, --jobs {jobs}"
    lines = [f"### {head}", "", "| request | frames | frames/s (wall) | CPU ms/frame | stage | stage ms/frame | peak MB |",
             "| --- | ---: | ---: | ---: | --- | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.0f} | {r[4]} | {r[5]:.1f} | {r[6]:.0f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.join(ROOT, "bench-results"), exist_ok=True)
    with open(os.path.join(ROOT, "bench-results", "video-latest.md"), "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
