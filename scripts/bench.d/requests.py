#!/usr/bin/python3
"""Per-request timing of one or more analyze binaries on the same folder (run through scripts/bench).

    scripts/bench --photos --requests [--reps N] [--binary LABEL=PATH]... [--config=LABEL=FLAGS]...

Each configuration (default: --objects, --horizon, and both) runs with each binary (default: the
release build, as "now") at --jobs 1 into a temporary folder with --no-png --no-svg, --reps times (default
3). The table shows, per configuration and binary, the median wall time per photo (the whole process:
start-up, reading, decoding and the request), and the request's own stage per photo from summary.json
("objects", "horizon"). "Before" and "after" of a change are two binaries: build the older commit in a
worktree and pass it as --binary before=PATH. A configuration's FLAGS are split on spaces, so
"--config=yolov4-tiny=--objects --model DIR/yolov4-tiny.weights ..." times another model with one binary
(write --config=…: FLAGS begin with a dash).
Writes bench-results/requests-latest.md.
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXTENSIONS = {"jpg", "jpeg", "jpe", "png", "tif", "tiff", "bmp", "webp", "heic"}
STAGES = {"--objects": "objects", "--horizon": "horizon"}


def images_under(folder):
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        found += [os.path.join(root, f) for f in sorted(files) if f.rsplit(".", 1)[-1].lower() in EXTENSIONS]
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--binary", action="append", default=[], metavar="LABEL=PATH")
    ap.add_argument("--config", action="append", default=[], metavar="LABEL=FLAGS")
    a = ap.parse_args()
    binaries = [b.split("=", 1) for b in a.binary] or [["now", os.path.join(REPO, ".build", "release", "analyze")]]
    configs = [c.split("=", 1) for c in a.config] or [
        ["--objects", "--objects"], ["--horizon", "--horizon"], ["both", "--objects --horizon"]]
    for label, path in binaries:
        if not os.access(path, os.X_OK):
            print(f"bench: {label}: {path} is not an executable", file=sys.stderr)
            return 2
    imgs = images_under(a.folder)
    if not imgs:
        print(f"bench: no images under {a.folder}", file=sys.stderr)
        return 2
    n = len(imgs)
    rows = []
    tmp = tempfile.mkdtemp(prefix="analyze-bench-requests-")
    try:
        for clabel, flags in configs:
            for blabel, path in binaries:
                walls, stages = [], {}
                for rep in range(a.reps):
                    out = os.path.join(tmp, f"{blabel}-{rep}")
                    cmd = [path, "--jobs", "1", "--no-png", "--no-svg", "--quiet", "-o", out] + shlex.split(flags) + imgs
                    t0 = time.monotonic()
                    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                    walls.append(time.monotonic() - t0)
                    if r.returncode != 0:
                        print(f"bench: {blabel} {flags}: exit {r.returncode}: {r.stderr.strip()[-300:]}", file=sys.stderr)
                        return 1
                    timings = json.load(open(os.path.join(out, "summary.json"))).get("timings", {})
                    for key, value in timings.items():
                        stages.setdefault(key, []).append(value)
                    shutil.rmtree(out, ignore_errors=True)
                own = [STAGES[f] for f in shlex.split(flags) if f in STAGES]
                cells = {k: 1000 * statistics.median(stages.get(k, [0])) / n for k in own + ["decode"]}
                rows.append((clabel, blabel, 1000 * statistics.median(walls) / n, cells))
                print(f"{clabel:12s} {blabel:10s} wall {rows[-1][2]:7.1f} ms/photo  "
                      + "  ".join(f"{k} {v:6.1f}" for k, v in cells.items()), file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    lines = [f"{n} photos in {os.path.relpath(a.folder, REPO)}, --jobs 1, median of {a.reps} runs; ms per photo", "",
             "| configuration | binary | wall | objects stage | horizon stage | decode stage |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    for clabel, blabel, wall, cells in rows:
        cell = lambda k: f"{cells[k]:.0f}" if k in cells else "–"
        lines.append(f"| {clabel} | {blabel} | {wall:.0f} | {cell('objects')} | {cell('horizon')} | {cell('decode')} |")
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.join(REPO, "bench-results"), exist_ok=True)
    with open(os.path.join(REPO, "bench-results", "requests-latest.md"), "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
