#!/usr/bin/python3
"""Whole-process benchmark of `analyze` against its peers on the same images (run through scripts/bench).

    scripts/bench [--reps N] [FOLDER]

Measures, on every image under FOLDER (searched like analyze does: recursively, by extension):

  analyze     --rects, --faces, --barcodes, --text alone and all four together, --objects, --classify and
              all six together, at --jobs 1 and --jobs 2,
              outputs into a temporary folder. Each configuration runs 3 times when its first run takes
              under 20 s, else twice (--reps N forces N); the table shows the median wall time, the median
              CPU time and the largest peak RSS of the runs.
  peers       zbarimg (one process: zbarimg -q --nodbus IMG...), tesseract in list mode (one process over a
              list file) with OMP_THREAD_LIMIT=1 and without it, and scripts/bench.d/opencv_peer.py (Haar faces
              and contour rectangles), each once over all images in one process and once with the list split
              in two interleaved halves run concurrently (one process per core). Peers run once each.
              peer pipeline = zbarimg + tesseract (OMP_THREAD_LIMIT=1) + opencv_peer.py one after the other;
              "both cores" = the sum of the three split runs' walls.
  memory      the images replicated 10x (symlinks rep00_<name>...), all four requests at --jobs 2, once:
              peak RSS against the 1x run.
  accuracy    eval/corpus/evaluate-corpus --binary BIN --corpus FOLDER --jobs 2 --json FILE, after the timings, when
              FOLDER is the corpus (has MANIFEST.tsv and peer-outputs.txt); its Haar is analyze's own
              --face-detector haar. A key it does not (yet) write shows as n/a.
  stages      DIR/summary.json of the all-four --jobs 1 run ("timings": seconds per stage summed over the
              run), as ms per image.
  start-up    `analyze --version` (median of 11) and one small PNG with --barcodes (median of 7), end to end;
              and the folder's largest file alone with all four requests at --jobs 1 and --jobs 2 (median of
              5 each; at --jobs 2 the second worker takes some of the image's requests).

Wall times come from a monotonic clock around the process; CPU (user + sys) and peak RSS from
`/usr/bin/time -v`. For two concurrent processes CPU is summed and peak RSS is the sum of both peaks (what
the machine must hold). Prints one table and writes bench-results/bench-<date>.json and bench-results/latest.md
(bench-results/photos-latest.md for the photo folder, `scripts/bench --photos`).
Exit status 0 when every target passes, 1 when one fails or a run failed, 2 on a usage error.
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(REPO, ".build", "release", "analyze")
PEER_CV = os.path.join(REPO, "scripts", "bench.d", "opencv_peer.py")
EVALUATE = os.path.join(REPO, "scripts", "evaluate-corpus")
PYTHON = "/usr/bin/python3"  # Debian's, with python3-opencv
EXTENSIONS = {"jpg", "jpeg", "jpe", "png", "tif", "tiff", "bmp", "dib", "webp"}  # analyze's InputCollector
REQUESTS = [("--rects", ["--rects"]), ("--faces", ["--faces"]), ("--barcodes", ["--barcodes"]),
            ("--text", ["--text"]), ("all four", ["--rects", "--faces", "--barcodes", "--text"]),
            ("--objects", ["--objects"]), ("--classify", ["--classify"]),
            ("all six", ["--rects", "--faces", "--barcodes", "--text", "--objects", "--classify"])]
STAGES = ["read", "orientation", "decode", "rectangles", "faces", "barcodes", "text", "objects", "classification", "render", "write"]
TARGETS = {"pipeline": 3.0, "text": 1.0, "jobs": 1.8, "rss_mb": 600.0, "rss_growth": 1.10, "cpu_12mp_ms": 250.0}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def images_under(folder):
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for f in files:
            if not f.startswith(".") and os.path.splitext(f)[1][1:].lower() in EXTENSIONS:
                found.append(os.path.join(root, f))
    return sorted(found)


def parse_time_v(path):
    """-> (cpu seconds, peak RSS in MB) from a `/usr/bin/time -v -o path` report."""
    user = sys_ = rss_kb = None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.strip().rpartition(": ")
                if key == "User time (seconds)":
                    user = float(value)
                elif key == "System time (seconds)":
                    sys_ = float(value)
                elif key == "Maximum resident set size (kbytes)":
                    rss_kb = int(value)
    except OSError:
        pass
    cpu = user + sys_ if user is not None and sys_ is not None else None
    return cpu, (rss_kb / 1024 if rss_kb is not None else None)


def run_concurrently(commands, tmp, tag, ok_codes=(0,), env=None):
    """Runs each command under /usr/bin/time -v, all at once. -> dict(wall, cpu, rss, codes, ok, stderr)."""
    procs = []
    t0 = time.monotonic()
    for i, cmd in enumerate(commands):
        tfile = os.path.join(tmp, f"{tag}.{i}.time")
        efile = open(os.path.join(tmp, f"{tag}.{i}.stderr"), "wb")
        p = subprocess.Popen(["/usr/bin/time", "-v", "-o", tfile] + cmd, stdout=subprocess.DEVNULL, stderr=efile,
                             env=env)
        procs.append((p, tfile, efile))
    codes = []
    for p, _, efile in procs:
        codes.append(p.wait())
        efile.close()
    wall = time.monotonic() - t0
    cpus, rsss = zip(*(parse_time_v(t) for _, t, _ in procs))
    ok = all(c in ok_codes for c in codes)
    tail = ""
    if not ok:
        with open(os.path.join(tmp, f"{tag}.0.stderr"), "rb") as f:
            tail = f.read()[-1500:].decode("utf-8", "replace")
    return {"wall": wall, "cpu": sum(c for c in cpus if c is not None) if any(c is not None for c in cpus) else None,
            "rss": sum(r for r in rsss if r is not None) if any(r is not None for r in rsss) else None,
            "codes": codes, "ok": ok, "stderr_tail": tail}


def analyze_env():
    env = dict(os.environ)
    env.pop("OMP_THREAD_LIMIT", None)  # as a user runs it: analyze limits OpenMP itself at run time
    return env


def run_analyze(inputs, flags, jobs, tmp, tag, reps, env=None):
    """Runs analyze `reps` times (None: 3 if the first run is under 20 s, else 2), in `env` (default
    analyze_env()).
    -> row dict with median wall/cpu, max rss, the runs, and the output dir of the median run."""
    runs = []
    n = reps
    i = 0
    while True:
        out = os.path.join(tmp, f"{tag}.r{i}.out")
        cmd = [BIN] + inputs + flags + ["--jobs", str(jobs), "-q", "-o", out]
        r = run_concurrently([cmd], tmp, f"{tag}.r{i}", ok_codes=(0, 1), env=env or analyze_env())
        r["out"] = out
        runs.append(r)
        log(f"  {tag} run {i + 1}: {r['wall']:.2f} s, CPU {fmt(r['cpu'], '.1f')} s, peak {fmt(r['rss'], '.0f')} MB"
            + ("" if r["ok"] else f"  FAILED exit {r['codes']}"))
        if not r["ok"]:
            sys.stderr.write(r["stderr_tail"])
            break
        if n is None:
            n = 3 if r["wall"] < 20 else 2
        i += 1
        if i >= n:
            break
    ok = all(r["ok"] for r in runs)
    walls = sorted(runs, key=lambda r: r["wall"])
    median = walls[(len(walls) - 1) // 2] if ok else runs[-1]
    for r in runs:  # keep only the median run's outputs
        if r is not median:
            shutil.rmtree(r["out"], ignore_errors=True)
    cpus = [r["cpu"] for r in runs if r["cpu"] is not None]
    rsss = [r["rss"] for r in runs if r["rss"] is not None]
    return {"wall": statistics.median(r["wall"] for r in runs), "cpu": statistics.median(cpus) if cpus else None,
            "rss": max(rsss) if rsss else None,
            "runs": [{"wall": round(r["wall"], 3), "cpu": r["cpu"], "peak_mb": round(r["rss"]) if r["rss"] else None}
                     for r in runs],
            "exit": [r["codes"][0] for r in runs], "ok": ok, "out": median["out"]}


def read_summary(outdir):
    try:
        with open(os.path.join(outdir, "summary.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def halves(items):
    return [items[0::2], items[1::2]]


# ---------------------------------------------------------------------------------------------- peers

def zbar_cmd(imgs, tmp, tag):
    return ["zbarimg", "-q", "--nodbus"] + imgs


def tess_cmd(imgs, tmp, tag):
    lst = os.path.join(tmp, f"{tag}.list")
    with open(lst, "w", encoding="utf-8") as f:
        f.write("\n".join(imgs) + "\n")
    return ["tesseract", lst, os.path.join(tmp, f"{tag}.ocr")]


def cv_cmd_seq(imgs, tmp, tag):
    return [PYTHON, PEER_CV, "--out", os.path.join(tmp, f"{tag}.jsonl")] + imgs


def cv_cmd_split(imgs, tmp, tag):
    # one process per core: keep OpenCV's own pool from doubling up
    return [PYTHON, PEER_CV, "--threads", "1", "--out", os.path.join(tmp, f"{tag}.jsonl")] + imgs


def run_peer(name, imgs, tmp, tag, seq_cmd, split_cmd, ok_codes=(0,), env=None):
    rows = {}
    for mode in ("seq", "split"):
        parts = [imgs] if mode == "seq" else halves(imgs)
        make = seq_cmd if mode == "seq" else split_cmd
        cmds = [make(p, tmp, f"{tag}.{mode}{k}") for k, p in enumerate(parts)]
        r = run_concurrently(cmds, tmp, f"{tag}.{mode}", ok_codes=ok_codes, env=env)
        log(f"  {name} ({'1 process' if mode == 'seq' else '2 processes'}): {r['wall']:.2f} s"
            + ("" if r["ok"] else f"  FAILED exit {r['codes']}"))
        if not r["ok"]:
            sys.stderr.write(r["stderr_tail"])
        rows[mode] = {"wall": r["wall"], "cpu": r["cpu"], "rss": r["rss"], "exit": r["codes"], "ok": r["ok"]}
    return rows


# ---------------------------------------------------------------------------------------------- report

def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def check(label, value, target, op, unit="×"):
    """A target check; op "info" reports the value without a target."""
    if op == "info":
        return {"check": label, "value": None if value is None else round(value, 3), "target": None, "result": "info", "unit": unit}
    if value is None:
        return {"check": label, "value": None, "target": f"{op} {target:g}{unit}", "result": "n/a"}
    passed = value >= target if op == "≥" else value < target if op == "<" else value <= target
    return {"check": label, "value": round(value, 3), "target": f"{op} {target:g}{unit}",
            "result": "PASS" if passed else "FAIL", "unit": unit}


def machine_info():
    model = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None

    def first_line(cmd):
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=20)
            return p.stdout.decode("utf-8", "replace").strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return None
    return {"nproc": os.cpu_count(), "cpu_model": model, "kernel": platform.release(),
            "mem_total_mb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20),
            "loadavg_1min_at_start": load,
            "analyze_commit": first_line(["git", "-C", REPO, "describe", "--always", "--dirty"]),
            "zbarimg": first_line(["zbarimg", "--version"]), "tesseract": first_line(["tesseract", "--version"]),
            "opencv_python": first_line([PYTHON, "-c", "import cv2; print(cv2.__version__)"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?")
    ap.add_argument("--reps", type=int, choices=(1, 2, 3, 4, 5), help="runs per analyze configuration (default 2-3)")
    a = ap.parse_args()

    corpus = os.path.normpath(os.path.join(REPO, "..", "shared", "fixtures", "corpus"))
    folder = os.path.abspath(a.folder or (corpus if os.path.isdir(corpus) else os.path.join(REPO, "Fixtures", "samples")))
    if not os.path.isdir(folder):
        print(f"bench: {folder} is not a folder", file=sys.stderr)
        return 2
    if not os.access(BIN, os.X_OK):
        print(f"bench: {BIN} missing (swift build -c release --product analyze)", file=sys.stderr)
        return 2
    imgs = images_under(folder)
    if not imgs:
        print(f"bench: no images under {folder}", file=sys.stderr)
        return 2
    n = len(imgs)
    is_corpus = all(os.path.isfile(os.path.join(folder, f)) for f in ("MANIFEST.tsv", "peer-outputs.txt"))
    started = datetime.datetime.now()
    t_start = time.monotonic()
    machine = machine_info()
    log(f"bench: {n} images in {folder}; {machine['nproc']} cores, {machine['cpu_model']}; "
        f"load average {fmt(machine['loadavg_1min_at_start'], '.2f')}")
    if machine["loadavg_1min_at_start"] and machine["loadavg_1min_at_start"] > 0.5:
        log("bench: WARNING: the machine is not idle (1-min load average > 0.5); timings will be noisy")

    tmp = tempfile.mkdtemp(prefix="analyze-bench-")
    rows, notes = [], []
    try:
        # ------------------------------------------------------------------ analyze, 1x
        analyze = {}
        for name, flags in REQUESTS:
            for jobs in (1, 2):
                tag = f"analyze.{name.strip('-').replace(' ', '')}.j{jobs}"
                r = run_analyze([folder], flags, jobs, tmp, tag, a.reps)
                analyze[(name, jobs)] = r
                if (name, jobs) != ("all four", 1):
                    shutil.rmtree(r["out"], ignore_errors=True)

        # stage breakdown: summary.json of the all-four --jobs 1 run
        summary = read_summary(analyze[("all four", 1)]["out"])
        stages = None
        if summary is None:
            notes.append("analyze wrote no summary.json: stage breakdown n/a")
        else:
            timings = summary.get("timings") or {}
            keys = [k for k in STAGES if k in timings] + sorted(k for k in timings if k not in STAGES)
            stages = {"ms_per_image": {k: round(1000 * timings[k] / n, 1) for k in keys
                                       if isinstance(timings[k], (int, float))},
                      "wallSeconds": summary.get("wallSeconds"),
                      "megapixels": megapixels(imgs)}
        shutil.rmtree(analyze[("all four", 1)]["out"], ignore_errors=True)

        # ------------------------------------------------------------------ peers
        peers = {}
        peers["zbarimg"] = run_peer("zbarimg", imgs, tmp, "zbar", zbar_cmd, zbar_cmd, ok_codes=(0, 4))
        env1 = dict(os.environ, OMP_THREAD_LIMIT="1")
        env0 = dict(os.environ)
        env0.pop("OMP_THREAD_LIMIT", None)
        peers["tesseract OMP_THREAD_LIMIT=1"] = run_peer("tesseract OMP_THREAD_LIMIT=1", imgs, tmp, "tess1",
                                                         tess_cmd, tess_cmd, env=env1)
        peers["tesseract (no OMP limit)"] = run_peer("tesseract (no OMP limit)", imgs, tmp, "tess0",
                                                     tess_cmd, tess_cmd, env=env0)
        peers["opencv_peer.py"] = run_peer("opencv_peer.py", imgs, tmp, "cv", cv_cmd_seq, cv_cmd_split)
        pipe_tools = ["zbarimg", "tesseract OMP_THREAD_LIMIT=1", "opencv_peer.py"]
        pipeline = {}
        for mode in ("seq", "split"):
            parts = [peers[t][mode] for t in pipe_tools]
            pipeline[mode] = {"wall": sum(p["wall"] for p in parts),
                              "cpu": sum(p["cpu"] for p in parts) if all(p["cpu"] is not None for p in parts) else None,
                              "rss": max(p["rss"] for p in parts) if all(p["rss"] is not None for p in parts) else None,
                              "ok": all(p["ok"] for p in parts)}

        # ------------------------------------------------------------------ memory scaling, 10x
        rep = os.path.join(tmp, "rep10")
        os.makedirs(rep)
        for k in range(10):
            for img in imgs:
                flat = os.path.relpath(img, folder).replace(os.sep, "_")
                os.symlink(img, os.path.join(rep, f"rep{k:02d}_{flat}"))
        all_flags = dict(REQUESTS)["all four"]
        log(f"  analyze all four --jobs 2 on {10 * n} images (10x, symlinks)")
        rep10 = run_analyze([rep], all_flags, 2, tmp, "analyze.all.j2.rep10", 1)
        shutil.rmtree(rep10["out"], ignore_errors=True)

        # ------------------------------------------------------------------ accuracy (after the timings)
        accuracy = None
        if is_corpus:
            jfile = os.path.join(tmp, "evaluate.json")
            log("  eval/corpus/evaluate-corpus --json FILE (runs analyze itself: barcodes+text, faces, rects)")
            p = subprocess.run([EVALUATE, "--binary", BIN, "--corpus", folder, "--jobs", "2", "--json", jfile,
                                "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            try:
                with open(jfile, encoding="utf-8") as f:
                    accuracy = json.load(f)
            except (OSError, ValueError):
                notes.append(f"evaluate-corpus wrote no JSON (exit {p.returncode}): accuracy n/a")
                log(p.stdout.decode("utf-8", "replace")[-1500:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    # ------------------------------------------------------------------ table
    def row(config, r, images, note=""):
        wall = r.get("wall")
        return {"configuration": config, "wall_s": round(wall, 2) if wall is not None else None,
                "images_per_s": round(images / wall, 2) if wall else None,
                "cpu_s": round(r["cpu"], 2) if r.get("cpu") is not None else None,
                "peak_mb": round(r["rss"]) if r.get("rss") is not None else None,
                "ok": r.get("ok", True), "note": note}

    for name, _ in REQUESTS:
        for jobs in (1, 2):
            r = analyze[(name, jobs)]
            rows.append(row(f"analyze {name} --jobs {jobs}", r, n, f"median of {len(r['runs'])}"))
    rows.append(row(f"analyze all four --jobs 2, 10x ({10 * n} images)", rep10, 10 * n, "1 run"))
    for t, pr in peers.items():
        rows.append(row(f"{t}, 1 process", pr["seq"], n))
        rows.append(row(f"{t}, 2 processes (halves)", pr["split"], n, "peak = sum of both"))
    rows.append(row("peer pipeline, 1 process each", pipeline["seq"], n, "zbarimg + tesseract(OMP=1) + opencv; peak = max"))
    rows.append(row("peer pipeline, both cores", pipeline["split"], n, "sum of the 3 split runs"))

    def ratio(x, y):
        return x / y if x and y else None

    a4j1, a4j2 = analyze[("all four", 1)], analyze[("all four", 2)]
    mp = stages.get("megapixels") if stages else None
    # Start-up: the whole process, median of several runs (shared libraries, Swift runtime, argument parsing).
    def median_ms(command, runs):
        times = []
        for _ in range(runs):
            t = time.monotonic()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=analyze_env())
            times.append(1000 * (time.monotonic() - t))
        return sorted(times)[len(times) // 2]
    version_ms = median_ms([BIN, "--version"], 11)
    startup_out = tempfile.mkdtemp(prefix="analyze-bench-startup-")
    small_ms = median_ms([BIN, os.path.join(REPO, "Fixtures", "barcodes", "qr-hello.png"), "--barcodes", "--no-png", "--no-svg", "-q",
                          "-o", startup_out], 7)
    shutil.rmtree(startup_out, ignore_errors=True)
    # One image alone, all four requests, end to end: the folder's largest file (a 12-16 MP photo in the
    # photo folder). At --jobs 2 the second worker takes some of its requests (IdleWorkers).
    largest = max(imgs, key=os.path.getsize)
    single_ms = {}
    for jobs in (1, 2):
        single_out = tempfile.mkdtemp(prefix="analyze-bench-single-")
        single_ms[jobs] = median_ms([BIN, largest, *dict(REQUESTS)["all four"], "-q", "--jobs", str(jobs), "-o", single_out], 5)
        shutil.rmtree(single_out, ignore_errors=True)
    # Phone photos saved as HEIC (what an iPhone writes): the photo run also times all four requests on
    # .models/photos-heic (scripts/fetch-test-images), where decoding HEVC costs several times a JPEG's.
    # No peer reads HEIC, so there is no peer row.
    heic_checks = []
    heic_folder = os.path.join(REPO, ".models", "photos-heic")
    heic_imgs = sorted(os.path.join(heic_folder, f) for f in os.listdir(heic_folder)
                       if os.path.splitext(f)[1].lower() in (".heic", ".heif")) if os.path.normpath(folder) == os.path.join(REPO, ".models", "photos") and os.path.isdir(heic_folder) else []
    if heic_imgs:
        heic_tmp = tempfile.mkdtemp(prefix="analyze-bench-heic-")
        log(f"  analyze all four --jobs 1 on {len(heic_imgs)} HEIC photos")
        heic = run_analyze([heic_folder], dict(REQUESTS)["all four"], 1, heic_tmp, "analyze.all.j1.heic", 3)
        summary = read_summary(heic["out"]) or {}
        decode = (summary.get("timings") or {}).get("decode")
        heic_mp = sum(e.get("width", 0) * e.get("height", 0) for e in summary.get("entries", [])) / 1e6 / len(heic_imgs)
        # The same with libheif's own libde265 (libavcodec hidden from the dynamic loader by an empty file of
        # its name, as on a machine without it): what CHeif's FFmpeg plugin saves, the pixels being the same.
        hidden = tempfile.mkdtemp(prefix="analyze-bench-no-libavcodec-")
        open(os.path.join(hidden, "libavcodec.so.59"), "wb").close()
        env = analyze_env()
        env["LD_LIBRARY_PATH"] = hidden + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        log(f"  the same with libde265 (libavcodec hidden)")
        de265 = run_analyze([heic_folder], dict(REQUESTS)["all four"], 1, heic_tmp, "analyze.all.j1.heic.libde265", 3, env=env)
        de265_decode = ((read_summary(de265["out"]) or {}).get("timings") or {}).get("decode")
        shutil.rmtree(hidden, ignore_errors=True)
        shutil.rmtree(heic_tmp, ignore_errors=True)
        label = f"HEIC photos ({len(heic_imgs)}, {heic_mp:.1f} MP on average), all four --jobs 1"
        per_image = lambda seconds: 1000 * seconds / len(heic_imgs) if seconds is not None else None
        heic_checks = [
            check(f"{label}, CPU ms per image (whole process)", per_image(heic["cpu"]), None, "info", " ms"),
            check(f"{label}, decode ms per image (summary.json)", per_image(decode), None, "info", " ms"),
            check(f"{label} with libde265 instead of libavcodec, CPU ms per image", per_image(de265["cpu"]), None, "info", " ms"),
            check(f"{label} with libde265 instead of libavcodec, decode ms per image", per_image(de265_decode), None, "info", " ms"),
        ]
    checks = heic_checks + [
        check("start-up: analyze --version, median of 11 (ms)", version_ms, None, "info", " ms"),
        check("start-up: one small PNG --barcodes end to end, median of 7 (ms)", small_ms, None, "info", " ms"),
        check(f"one image alone ({os.path.basename(largest)}), all four, end to end, --jobs 1, median of 5 (ms)", single_ms[1], None, "info", " ms"),
        check("the same image, --jobs 2 (its requests on both cores), median of 5 (ms)", single_ms[2], None, "info", " ms"),
        check("all four --jobs 2 vs peer pipeline on both cores (speed-up)",
              ratio(pipeline["split"]["wall"], a4j2["wall"]), TARGETS["pipeline"], "≥"),
        check("--barcodes --jobs 1 vs zbarimg, 1 process (speed-up)",
              ratio(peers["zbarimg"]["seq"]["wall"], analyze[("--barcodes", 1)]["wall"]), None, "info"),
        check("--text --jobs 1 vs tesseract list mode OMP_THREAD_LIMIT=1 (speed-up)",
              ratio(peers["tesseract OMP_THREAD_LIMIT=1"]["seq"]["wall"], analyze[("--text", 1)]["wall"]),
              TARGETS["text"], "≥"),
        check("all four --jobs 2 vs --jobs 1 (speed-up)", ratio(a4j1["wall"], a4j2["wall"]), TARGETS["jobs"], "≥"),
        check("all six --jobs 2 vs --jobs 1 (speed-up)", ratio(analyze[("all six", 1)]["wall"], analyze[("all six", 2)]["wall"]), TARGETS["jobs"], "≥"),
        check("--objects --jobs 1, ms per image (MODELS.md: ~65)", 1000 * analyze[("--objects", 1)]["wall"] / n, None, "info", " ms"),
        check("--classify --jobs 1, ms per image (MODELS.md: ~19)", 1000 * analyze[("--classify", 1)]["wall"] / n, None, "info", " ms"),
        check("all four --jobs 1, CPU ms per image (whole process)", 1000 * a4j1["cpu"] / n if a4j1["cpu"] else None, None, "info", " ms"),
        check("all four --jobs 1, CPU ms per 12 MP (whole process, scaled by the mean megapixels)",
              1000 * a4j1["cpu"] / n * 12 / mp if a4j1["cpu"] and mp else None, TARGETS["cpu_12mp_ms"], "≤", " ms"),
        check("peak RSS, all four --jobs 2 (MB)", a4j2["rss"], TARGETS["rss_mb"], "<", " MB"),
        check("peak RSS 10x / 1x, all four --jobs 2", ratio(rep10["rss"], a4j2["rss"]), TARGETS["rss_growth"], "≤"),
    ]
    failed_runs = [r["configuration"] for r in rows if not r["ok"]]

    total = time.monotonic() - t_start
    try:
        machine["loadavg_1min_at_end"] = os.getloadavg()[0]
    except OSError:
        pass
    table = render_table(rows, checks)
    extra = render_extra(stages, accuracy, is_corpus, n)
    print(table)
    print(extra)
    if failed_runs:
        print("FAILED RUNS: " + ", ".join(failed_runs))
    for note in notes:
        print("note: " + note)
    print(f"bench: {n} images, total {total:.0f} s")

    # ------------------------------------------------------------------ files
    outdir = os.path.join(REPO, "bench-results")
    os.makedirs(outdir, exist_ok=True)
    stamp = started.strftime("%Y-%m-%dT%H%M%S")
    # The folder as the repository sees it (relative), never this machine's absolute path.
    shown_folder = os.path.relpath(os.path.abspath(folder), REPO) if folder else folder
    result = {"date": started.isoformat(timespec="seconds"), "folder": shown_folder, "images": n, "machine": machine,
              "total_seconds": round(total, 1), "rows": rows, "checks": checks, "stages": stages,
              "accuracy": accuracy_summary(accuracy) if accuracy else None, "failed_runs": failed_runs, "notes": notes,
              "analyze_runs": {f"{k[0]} --jobs {k[1]}": v["runs"] for k, v in analyze.items()}}
    jpath = os.path.join(outdir, f"bench-{stamp}.json")
    with open(jpath, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2, ensure_ascii=False)
        f.write("\n")
    md = (f"Benchmark, {started.strftime('%Y-%m-%d')}: {n} images (`{os.path.relpath(folder, REPO)}`), "
          f"{machine['nproc']} cores, {machine['cpu_model']}, analyze `{machine['analyze_commit']}`"
          f"{', load average ' + format(machine['loadavg_1min_at_start'], '.2f') + ' at start' if machine['loadavg_1min_at_start'] is not None else ''}"
          f"; `scripts/bench`, {total:.0f} s.\n\n" + render_table(rows, checks, markdown=True) + "\n"
          + render_extra(stages, accuracy, is_corpus, n, markdown=True))
    # The photo folder's table has its own file, so that a photo run does not replace the corpus's.
    photos = os.path.normpath(folder) == os.path.join(REPO, ".models", "photos")
    latest = "photos-latest.md" if photos else "latest.md"
    with open(os.path.join(outdir, latest), "w", encoding="utf-8") as f:
        f.write(md)
    print(f"bench: wrote {os.path.relpath(jpath, REPO)} and bench-results/{latest}")
    return 1 if failed_runs or any(c["result"] == "FAIL" for c in checks) else 0


def render_table(rows, checks, markdown=False):
    head = ["configuration", "wall s", "img/s", "CPU s", "peak MB", "ratio / target / result"]
    body = [[r["configuration"] + ("" if r["ok"] else " (FAILED)"), fmt(r["wall_s"], ".2f"), fmt(r["images_per_s"], ".2f"),
             fmt(r["cpu_s"], ".1f"), fmt(r["peak_mb"], ".0f"), r["note"]] for r in rows]
    for c in checks:
        mb = "MB" in (c["target"] or "")
        unit = c.get("unit", "×")
        val = ("n/a" if c["value"] is None else f"{c['value']:.0f} MB" if mb else f"{c['value']:.0f}{unit}" if unit == " ms"
               else f"{c['value']:.2f}×")
        body.append([c["check"], "", "", "", "", "  ".join(x for x in (val, c["target"], c["result"]) if x)])
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(["---"] + ["---:"] * 4 + ["---"]) + " |"]
        lines += ["| " + " | ".join(x.replace("|", "\\|") for x in r) + " |" for r in body]
        return "\n".join(lines) + "\n"
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    line = lambda r: "  ".join(r[i].ljust(widths[i]) if i in (0, 5) else r[i].rjust(widths[i]) for i in range(len(r))).rstrip()
    sep = "-" * (sum(widths) + 2 * (len(widths) - 1))
    out = [line(head), sep] + [line(r) for r in body[:len(rows)]] + [sep] + [line(r) for r in body[len(rows):]]
    return "\n".join(out) + "\n"


def accuracy_summary(acc):
    """The numbers the table shows from evaluate-corpus's JSON; a missing key stays None (printed n/a)."""
    def get(*path):
        v = acc
        for k in path:
            v = v.get(k) if isinstance(v, dict) else None
        return v
    out = {k: get("barcodes", k) for k in ("expected", "analyze_decoded", "zbarimg_decoded", "false_positives_analyze",
                                           "false_positives_zbarimg")}
    out.update({f"text_{k}": get("text", k) for k in ("gt_words", "analyze_hits", "tesseract_hits")})
    for det in ("centerface", "haar"):
        out.update({f"faces_{det}_{k}": get("faces", det, k) for k in ("annotated", "hits", "false_positives")})
    out["rectangles_pass"] = get("rectangles", "pass")
    out["evaluate_pass"] = get("pass")
    return out


def megapixels(images):
    """Mean megapixels per image (sizes read with OpenCV; None when unreadable)."""
    try:
        import cv2
    except ImportError:
        return None
    total, count = 0.0, 0
    for path in images:
        img = cv2.imread(path, cv2.IMREAD_REDUCED_GRAYSCALE_8)
        if img is None:
            continue
        h, w = img.shape[:2]
        total += (w * 8) * (h * 8) / 1e6   # the reduced read is 1/8 of each side
        count += 1
    return total / count if count else None


def render_extra(stages, accuracy, is_corpus, n, markdown=False):
    lines = []
    if stages:
        parts = ", ".join(f"{k} {v:.1f}" for k, v in stages["ms_per_image"].items())
        total = sum(stages["ms_per_image"].values())
        lines.append(f"Stages, all four --jobs 1 (ms/image of worker time, from summary.json): {parts}; "
                     f"sum {total:.1f}" + (f"; wallSeconds {stages['wallSeconds']}" if stages.get("wallSeconds") is not None else ""))
        mp = stages.get("megapixels")
        if mp:
            per = ", ".join(f"{k} {v / mp:.1f}" for k, v in stages["ms_per_image"].items())
            lines.append(f"Per megapixel (images of {mp:.1f} MP on average; ms/MP): {per}; sum {total / mp:.1f}")
    else:
        lines.append("Stages, all four --jobs 1: n/a (no summary.json from analyze)")
    if not is_corpus:
        lines.append("Accuracy: n/a (FOLDER is not the corpus)")
    elif not accuracy:
        lines.append("Accuracy: n/a (evaluate-corpus gave no JSON)")
    else:
        s = accuracy_summary(accuracy)
        g = lambda k: "n/a" if s.get(k) is None else str(s[k])
        pct = lambda h, d: f" ({100 * s[h] / s[d]:.1f}%)" if s.get(h) is not None and s.get(d) else ""
        lines.append(f"Accuracy (eval/corpus/evaluate-corpus): barcodes decoded analyze "
                     f"{g('analyze_decoded')}/{g('expected')}, zbarimg {g('zbarimg_decoded')}/{g('expected')}; "
                     f"false positives analyze {g('false_positives_analyze')}, zbarimg {g('false_positives_zbarimg')}; "
                     f"word recall analyze {g('text_analyze_hits')}/{g('text_gt_words')}{pct('text_analyze_hits', 'text_gt_words')}, "
                     f"tesseract {g('text_tesseract_hits')}/{g('text_gt_words')}{pct('text_tesseract_hits', 'text_gt_words')}; "
                     f"faces recall CenterFace {g('faces_centerface_hits')}/{g('faces_centerface_annotated')} "
                     f"({g('faces_centerface_false_positives')} false positives), Haar {g('faces_haar_hits')}/"
                     f"{g('faces_haar_annotated')} ({g('faces_haar_false_positives')} false positives); "
                     f"rectangle checks {'n/a' if s['rectangles_pass'] is None else 'pass' if s['rectangles_pass'] else 'FAIL'}; "
                     f"evaluate-corpus {'n/a' if s['evaluate_pass'] is None else 'PASS' if s['evaluate_pass'] else 'FAIL'}")
    sep = "\n\n" if markdown else "\n"
    return sep.join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
