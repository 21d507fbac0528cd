#!/usr/bin/python3
"""Prototype horizon detector (to be ported to C++/OpenCV 4.6).

detect(bgr) -> None or dict(angle=deg, p1=(x,y), p2=(x,y), confidence=0..1, score=raw)

Coordinates are in the input image's pixels; p1 is on x=0, p2 on x=W-1.
`angle` is atan2(y2-y1, x2-x1) in degrees in image coordinates (y down), i.e.
positive when the line goes down to the right.

Idea: a horizon is a straight boundary crossing the whole picture that splits it
into a smooth region above (sky) and a different region below (ground/water),
with a contrast that keeps the same sign along its whole length. We search all
lines with |angle| <= MAX_ANGLE by rotating a small copy of the picture so that
the candidate angle becomes horizontal, then scoring every row. See PARAMS.
"""
import math

import cv2
import numpy as np

PARAMS = dict(
    work_side=320,        # long side of the working copy (px)
    blur_sigma=1.0,       # Gaussian blur of the Lab working copy (px)
    max_angle=25.0,       # degrees searched either way
    coarse_step=1.0,      # coarse angle step (deg)
    fine_step=0.25,       # fine angle step around the best coarse angle (deg)
    edge_band=3,          # rows averaged on each side of a line for the local step (px)
    min_span=0.60,        # the line must cross >= this fraction of the picture width (valid pixels)
    edge_margin=0.05,     # ignore lines closer than this (fraction of height) to content top/bottom
    border_std=4.0,       # a border row/col is "constant" when its L std is below this
    border_max=0.25,      # at most this fraction is trimmed from each side as border
    frame_margin=0.18,    # frame search: outer fraction of each side
    frame_strength=12.0,  # frame search: minimum coherent step (Lab units) of each of the four sides
    n_cands=12,           # candidate lines kept after non-maximum suppression (NMS: |dAngle|<3 deg and |dy_centre|<4% H)
    min_coherence=0.55,   # |mean step vector| / mean |step| along the line (same-sign contrast)
    coh_power=4.0,        # score = edge * coherence**coh_power
    min_score=10.0,       # reject (None) when the best score is below this (Lab units)
    min_sep=0.5,          # ... or when |mean_above - mean_below|^2 / (var_above + var_below) is below this
    conf_a=1.2,           # confidence = logistic(conf_a*ln(score) + conf_b*ln(1+sep) + conf_c)
    conf_b=1.0,
    conf_c=-3.2,
)

# operating points measured on the dev set (see eval/horizon/evaluate-horizon --preset)
PRESETS = {
    "strict": {},                                  # few false horizons
    "loose": {"min_score": 4.0, "min_sep": 0.3},   # more horizons found, more false ones
}


def _lab(img):
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab).astype(np.float32)
    # OpenCV 8-bit Lab: L in 0..255 (L*2.55), a,b offset by 128. Use L* scale for L.
    lab[..., 0] *= 100.0 / 255.0
    lab[..., 1:] -= 128.0
    return lab


def _content_rect(L, p):
    """Trim near-constant rows/columns at the image sides (black or flat padding)."""
    h, w = L.shape
    rs = L.std(axis=1)
    cs = L.std(axis=0)
    top, bot, left, right = 0, h, 0, w
    while top < h * p["border_max"] and rs[top] < p["border_std"]:
        top += 1
    while h - bot < h * p["border_max"] and rs[bot - 1] < p["border_std"]:
        bot -= 1
    while left < w * p["border_max"] and cs[left] < p["border_std"]:
        left += 1
    while w - right < w * p["border_max"] and cs[right - 1] < p["border_std"]:
        right -= 1
    return top, bot, left, right


def _row_steps(lab, valid, k):
    """Local step across each row: mean of k rows above minus mean of k rows below (per column)."""
    h, w, _ = lab.shape
    cs = np.cumsum(np.concatenate([np.zeros((1, w, 3), np.float32), lab], 0), 0)
    vs = np.cumsum(np.concatenate([np.zeros((1, w), np.float32), valid], 0), 0)
    y = np.arange(k, h - k)
    above = (cs[y] - cs[y - k]) / k
    below = (cs[y + 1 + k] - cs[y + 1]) / k
    ok = ((vs[y] - vs[y - k]) >= k) & ((vs[y + 1 + k] - vs[y + 1]) >= k)
    return y, above - below, ok


def _frame_inset(lab, p):
    """If four strong straight edges parallel to the sides sit in the outer bands,
    the picture is framed (painting, mat, screen): return the inner rectangle."""
    L = lab[..., 0]
    h, w = L.shape
    g = cv2.GaussianBlur(L, (0, 0), 1.0)
    dy = np.abs(np.diff(g, axis=0)).mean(axis=1)  # per-row mean |vertical step|
    dx = np.abs(np.diff(g, axis=1)).mean(axis=0)
    # coherent (same sign) steps only
    sy = np.abs(np.diff(g, axis=0).mean(axis=1))
    sx = np.abs(np.diff(g, axis=1).mean(axis=0))
    m = p["frame_margin"]
    my, mx = max(2, int(h * m)), max(2, int(w * m))
    t = int(np.argmax(sy[:my])); b = h - my + int(np.argmax(sy[-my:]))
    l = int(np.argmax(sx[:mx])); r = w - mx + int(np.argmax(sx[-mx:]))
    strengths = [sy[t], sy[b - 1] if b - 1 < len(sy) else 0, sx[l], sx[r - 1] if r - 1 < len(sx) else 0]
    if min(strengths) >= p["frame_strength"] * 0.35 and min(sy[t], sy[min(b, len(sy) - 1)]) > 0:
        # the four sides must be clearly stronger than typical rows/cols
        if (sy[t] > 4 * np.median(sy) and sy[min(b, len(sy) - 1)] > 4 * np.median(sy)
                and sx[l] > 4 * np.median(sx) and sx[min(r, len(sx) - 1)] > 4 * np.median(sx)):
            return t + 2, b - 1, l + 2, r - 1
    return None


def _edge_rows(lab, valid, deg, p):
    """Rotate so that lines of angle `deg` become rows; return per-row coherent edge data."""
    h, w, _ = lab.shape
    M = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), deg, 1.0)
    R = cv2.warpAffine(lab, M, (w, h), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    V = cv2.warpAffine(valid, M, (w, h), flags=cv2.INTER_NEAREST, borderValue=0)
    k = p["edge_band"]
    ys, step, ok = _row_steps(R, V, k)
    n_ok = ok.sum(1).astype(np.float32)
    okf = ok[..., None].astype(np.float32)
    mean_vec = (step * okf).sum(1) / np.maximum(n_ok, 1)[:, None]
    mean_abs = (np.linalg.norm(step, axis=2) * ok).sum(1) / np.maximum(n_ok, 1)
    edge = np.linalg.norm(mean_vec, axis=1)
    coh = edge / np.maximum(mean_abs, 1e-3)
    vrows = np.where(V.sum(1) > 0)[0]
    top, bot = (vrows[0], vrows[-1]) if len(vrows) else (0, 0)
    margin = p["edge_margin"] * (bot - top)
    good = ((n_ok >= p["min_span"] * w_content(valid)) & (coh >= p["min_coherence"])
            & (ys > top + margin) & (ys < bot - margin))
    return ys, edge, coh, good, M


def w_content(valid):
    return float(valid.sum(1).max())


def _line_from_row(M, yrow, w):
    Mi = cv2.invertAffineTransform(M)
    pts = np.array([[0, yrow + 0.5], [w, yrow + 0.5]], np.float64)
    q = (Mi[:, :2] @ pts.T).T + Mi[:, 2]
    (x1, y1), (x2, y2) = q
    m = (y2 - y1) / (x2 - x1)
    return y1 + m * (0 - x1), m   # y at x=0 and slope, in work pixels


def _region_features(lab, valid, lap, y0, m):
    """Statistics of the whole regions above and below the line y = y0 + m x."""
    h, w, _ = lab.shape
    yy, xx = np.mgrid[0:h, 0:w]
    above = (yy < y0 + m * xx) & (valid > 0)
    below = (yy > y0 + m * xx + 1) & (valid > 0)
    na, nb = above.sum(), below.sum()
    if na < 20 or nb < 20:
        return None
    A, B = lab[above], lab[below]
    ma, mb = A.mean(0), B.mean(0)
    va, vb = A.var(0).sum(), B.var(0).sum()
    ta, tb = lap[above].mean(), lap[below].mean()
    return dict(sep=float(np.sum((ma - mb) ** 2) / (va + vb + 1.0)),
                sd_above=float(np.sqrt(va)), sd_below=float(np.sqrt(vb)),
                tex_above=float(ta), tex_below=float(tb),
                smooth=float((tb - ta) / (tb + ta + 1e-3)),
                dL=float(ma[0] - mb[0]), frac_above=float(na / (na + nb)))


def candidates(lab, valid, p):
    h, w, _ = lab.shape
    cands = []
    for deg in np.arange(-p["max_angle"], p["max_angle"] + 1e-6, p["coarse_step"]):
        ys, edge, coh, good, M = _edge_rows(lab, valid, float(deg), p)
        e = np.where(good, edge, 0)
        pk = np.where((e[1:-1] > 0) & (e[1:-1] >= e[:-2]) & (e[1:-1] >= e[2:]))[0] + 1
        pk = pk[np.argsort(-e[pk])][:p["n_cands"]]
        for i in pk:
            cands.append((float(e[i]), float(deg), int(ys[i]), float(coh[i]), M))
    cands.sort(key=lambda c: -c[0])
    kept = []
    for c in cands:
        y0, m = _line_from_row(c[4], c[2], w)
        yc = y0 + m * w / 2
        if any(abs(c[1] - k[1]) < 3 and abs(yc - k[5]) < 0.04 * h for k in kept):
            continue
        kept.append(c + (yc, y0, m))
        if len(kept) >= p["n_cands"]:
            break
    return kept


def refine(lab, valid, c, p):
    """Fine angle search around a candidate, keeping the row near its centre height."""
    h, w, _ = lab.shape
    best = c
    for deg in np.arange(c[1] - p["coarse_step"], c[1] + p["coarse_step"] + 1e-6, p["fine_step"]):
        ys, edge, coh, good, M = _edge_rows(lab, valid, float(deg), p)
        # rows whose line passes within 3 px of the candidate's centre height
        yr_c = M[1, 0] * (w / 2.0) + M[1, 1] * c[5] + M[1, 2] - 0.5
        for i in np.where(good & (np.abs(ys - yr_c) <= 3))[0]:
            if edge[i] > best[0]:
                y0, m = _line_from_row(M, ys[i], w)
                best = (float(edge[i]), float(deg), int(ys[i]), float(coh[i]), M, y0 + m * w / 2, y0, m)
    return best


def detect(bgr, params=None, debug=False, features=False):
    p = dict(PARAMS)
    if params:
        p.update(params)
    H0, W0 = bgr.shape[:2]
    s = p["work_side"] / max(H0, W0)
    small = cv2.resize(bgr, (max(8, round(W0 * s)), max(8, round(H0 * s))), interpolation=cv2.INTER_AREA)
    lab = _lab(small)
    lab = cv2.GaussianBlur(lab, (0, 0), p["blur_sigma"])
    h, w = lab.shape[:2]
    t, b, l, r = _content_rect(lab[..., 0], p)
    inner = _frame_inset(lab[t:b, l:r], p)
    framed = inner is not None
    if framed:
        t, b, l, r = t + inner[0], t + inner[1], l + inner[2], l + inner[3]
    valid = np.zeros((h, w), np.float32)
    valid[t:b, l:r] = 1.0
    if b - t < 16 or r - l < 16:
        return None
    lap = np.abs(cv2.Laplacian(lab[..., 0], cv2.CV_32F, ksize=3))
    cands = candidates(lab, valid, p)
    scored = []
    for c in cands:
        f = _region_features(lab, valid, lap, c[6], c[7])
        if f is None:
            continue
        f.update(edge=c[0], coh=c[3], deg=c[1])
        f["score"] = score_of(f, p)
        scored.append((f["score"], c, f))
    if features:
        return [(f, _to_input(c[6], c[7], w, h, W0, H0)) for _, c, f in scored]
    if not scored:
        return None
    scored.sort(key=lambda z: -z[0])
    sc, c, f = scored[0]
    if sc < p["min_score"] or f["sep"] < p["min_sep"]:
        return None if not debug else dict(rejected=True, score=sc, parts=f)
    c = refine(lab, valid, c, p)
    p1, p2 = _to_input(c[6], c[7], w, h, W0, H0)
    ang = math.degrees(math.atan2(p2[1] - p1[1], p2[0] - p1[0]))
    z = p["conf_a"] * math.log(sc) + p["conf_b"] * math.log1p(f["sep"]) + p["conf_c"]
    conf = 1.0 / (1.0 + math.exp(-z))
    out = dict(angle=ang, p1=p1, p2=p2, confidence=conf, score=float(sc))
    if debug:
        out.update(parts=f, framed=framed, content=(t, b, l, r))
    return out


def _to_input(y0, m, w, h, W0, H0):
    sx = W0 / w
    sy = H0 / h
    # work pixel centres -> input pixel centres
    def Y(xw):
        return (y0 + m * xw + 0.5) * sy - 0.5
    xa, xb = -0.5 + 0.5 / sx, (W0 - 0.5) / sx - 0.5
    ya, yb = Y(xa), Y(xb)
    return (0.0, float(ya)), (float(W0 - 1), float(yb))


def score_of(f, p):
    # ranking: coherent full-width contrast, strongly favouring same-sign contrast along the line
    return f["edge"] * f["coh"] ** p["coh_power"]


if __name__ == "__main__":
    import sys
    for f in sys.argv[1:]:
        im = cv2.imread(f, cv2.IMREAD_COLOR)
        print(f, detect(im, debug=True))
