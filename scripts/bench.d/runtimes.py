#!/usr/bin/python3
"""Times each ONNX network analyze runs on OpenCV 4.6's DNN and on ONNX Runtime 1.21, one thread each, same input.

    .models/text-dev/rapidocr/bin/python scripts/bench.d/runtimes.py [--reps N]

Needs a Python with both cv2 (Debian's python3-opencv 4.6) and onnxruntime 1.21.0: the venv eval/text/evaluate-text
makes (.models/text-dev/rapidocr, over Debian's site packages) has both. Input: opencv-doc's messi5.jpg
(scripts/fetch-test-images) resized to each network's input, preprocessed as analyze does. Prints, per network,
the median forward time on each runtime (after one warm-up) and the largest difference between their outputs.
YOLOv4-tiny is Darknet weights, which ONNX Runtime does not read, and is not measured.
"""
import argparse, os, statistics, time
import cv2, numpy as np, onnxruntime as ort

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
M = os.path.join(REPO, ".models")


def blob(image, w, h, mean, std, rgb):
    x = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    if rgb:
        x = x[..., ::-1]
    x = (x - np.array(mean, np.float32)) / np.array(std, np.float32)
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None])


def free_input(path):
    """The model's bytes with its input's dimensions made free (CenterFace declares 10x3x32x32, which OpenCV
    ignores and ONNX Runtime enforces), and its outputs' too."""
    import onnx
    m = onnx.load(path)
    for v in list(m.graph.input[:1]) + list(m.graph.output):
        for i, d in enumerate(v.type.tensor_type.shape.dim):
            d.Clear()
            d.dim_param = f"d{i}"
    return m.SerializeToString()


def timed(run, reps):
    run()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000, out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    image = cv2.imread(os.path.join(M, "opencv-doc", "messi5.jpg"))
    # name, OpenCV's file, ONNX Runtime's file, input w x h, mean, std (0-255 scale), RGB, OpenCV fusion
    networks = [
        ("CenterFace (faces)", "centerface.onnx", "centerface.onnx", 640, 480, (0, 0, 0), (1, 1, 1), True, True),
        ("EfficientNet-Lite0 (labels)", "efficientnet-lite0.onnx", "efficientnet-lite0.onnx", 224, 224, (127, 127, 127), (128, 128, 128), True, True),
        ("PP-OCRv4 DB detector (text gate, lines)", "ppocr-det.onnx", "ppocr-det-v4.onnx", 672, 512,
         (123.675, 116.28, 103.53)[::-1], (58.395, 57.12, 57.375)[::-1], False, False),
    ]
    print("| network | input | OpenCV 4.6 DNN | ONNX Runtime 1.21 | max difference |")
    print("| --- | --- | ---: | ---: | ---: |")
    for name, cv_file, ort_file, w, h, mean, std, rgb, fusion in networks:
        if not os.path.exists(os.path.join(M, cv_file)):
            # ppocr-det.onnx was the detector patched for OpenCV, which analyze 0.5 no longer fetches.
            print(f"| {name} | {w}x{h} | (no {cv_file}) | | |")
            continue
        x = blob(image, w, h, mean, std, rgb)
        net = cv2.dnn.readNetFromONNX(os.path.join(M, cv_file))
        net.enableFusion(fusion)

        def opencv():
            net.setInput(x)
            return [o.copy() for o in net.forward(net.getUnconnectedOutLayersNames())]

        session = ort.InferenceSession(free_input(os.path.join(M, ort_file)), options)
        feed = {session.get_inputs()[0].name: x}
        cv_ms, cv_out = timed(opencv, args.reps)
        ort_ms, ort_out = timed(lambda: session.run(None, feed), args.reps)
        # Outputs paired by size (and then by their first values, for CenterFace's two 2-channel maps),
        # compared element by element.
        def order(outs):
            return sorted(outs, key=lambda a: (a.size, float(a.ravel()[0])))
        diff = max(float(np.abs(a.ravel() - b.ravel()).max()) for a, b in zip(order(cv_out), order(ort_out)))
        print(f"| {name} | {w}x{h} | {cv_ms:.0f} ms | {ort_ms:.0f} ms | {diff:.2g} |")


if __name__ == "__main__":
    main()
