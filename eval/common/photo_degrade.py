"""Harder copies of development-set photos, for the evaluation scripts (evaluate-objects,
evaluate-horizon --degrade): the same scene as a dim room or a cheap webcam would give it, so
that the ground truth stays (the size is unchanged). Exposure is lowered in linear light, then
optical blur, sensor noise and JPEG are applied; the noise is seeded by the caller (a photo's
hash), so a copy is the same from run to run."""
import cv2
import numpy as np

KINDS = {
    # name: (linear-light gain, Gaussian blur sigma in px, noise sigma in 8-bit levels, JPEG quality)
    "dim": (0.25, 0.0, 4.0, 80),
    "dark": (0.08, 0.0, 3.0, 80),
    "webcam": (0.5, 1.0, 6.0, 50),
    # the webcam copy's parts, one at a time (docs/benchmarks.md: what each costs the detector)
    "webcam-exposure": (0.5, 0.0, 0.0, 95),
    "webcam-blur": (1.0, 1.0, 0.0, 95),
    "webcam-noise": (1.0, 0.0, 6.0, 95),
    "webcam-jpeg": (1.0, 0.0, 0.0, 50),
    "jpeg95": (1.0, 0.0, 0.0, 95),
}


def degrade(bgr, kind, seed):
    """The 8-bit BGR image `bgr` made `kind` (a KINDS key), and the JPEG quality to write it at."""
    gain, blur, noise, quality = KINDS[kind]
    x = bgr.astype(np.float32) / 255
    lin = np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4) * gain
    x = np.where(lin <= 0.0031308, lin * 12.92, 1.055 * np.power(np.maximum(lin, 0), 1 / 2.4) - 0.055) * 255
    if blur:
        x = cv2.GaussianBlur(x, (0, 0), blur)
    x = x + np.random.default_rng(seed).normal(0, noise, x.shape).astype(np.float32)
    return np.clip(x + 0.5, 0, 255).astype(np.uint8), quality


def write(path, bgr, kind, seed):
    """Writes the `kind` copy of `bgr` (None: a photo cv2 could not read) as a JPEG at `path`."""
    if bgr is None:
        raise SystemExit(f"cannot read the photo for {path}")
    out, quality = degrade(bgr, kind, seed)
    if not cv2.imwrite(path, out, [cv2.IMWRITE_JPEG_QUALITY, quality]):
        raise SystemExit(f"cannot write {path}")
