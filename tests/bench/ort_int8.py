# Hand-run (tests/bench/int8_peer.sh runs it in the exporter root): ONNX
# Runtime's int8 QDQ model of NAME.onnx (per-channel int8 weights, uint8
# activations, calibrated on 8 seeded inputs), then ORT's median times of NAME
# and NAME_int8 at 1 and 2 threads.
#   python3 ort_int8.py quantize DIR NAME      writes DIR/NAME_int8.onnx
#   python3 ort_int8.py time DIR NAME THREADS REPEAT   prints "NAME threads T: median MS"
#   python3 ort_int8.py layers DIR NAME THREADS REPEAT prints each node's op and
#       median kernel time (us, ORT's enable_profiling), in the order they run
#   python3 ort_int8.py outputs DIR NAME     NAME's outputs on DIR/acc/K.npy, to
#       DIR/acc/NAME_ort_K.npy (export_int8.py bench writes the inputs)
import sys, time
import onnx  # noqa: F401  (before onnxruntime: the other order crashes in shape inference)
import numpy as np
import onnxruntime as ort


def quantize(d, name):
    from onnxruntime.quantization import quantize_static, QuantFormat, QuantType, CalibrationDataReader
    rng = np.random.default_rng(2027)
    calib = [{"x": rng.standard_normal((1, 3, 224, 224)).astype(np.float32)} for _ in range(8)]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(calib)

        def get_next(self):
            return next(self.it, None)

    quantize_static("%s/%s.onnx" % (d, name), "%s/%s_int8.onnx" % (d, name), Reader(), quant_format=QuantFormat.QDQ,
                    per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)


def timeit(d, name, threads, repeat):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    s = ort.InferenceSession("%s/%s.onnx" % (d, name), so, providers=["CPUExecutionProvider"])
    x = np.load("%s/input.npy" % d)
    s.run(None, {"x": x})
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        y = s.run(None, {"x": x})[0]
        ts.append((time.perf_counter() - t0) * 1e3)
    np.save("%s/%s_ort.npy" % (d, name), y)
    print("%s threads %d: median %.3f ms" % (name, threads, sorted(ts)[len(ts) // 2]))


def layers(d, name, threads, repeat):
    import json, os
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.enable_profiling = True
    so.profile_file_prefix = "/tmp/ort_layers"
    s = ort.InferenceSession("%s/%s.onnx" % (d, name), so, providers=["CPUExecutionProvider"])
    x = np.load("%s/input.npy" % d)
    for _ in range(repeat + 1):
        s.run(None, {"x": x})
    path = s.end_profiling()
    with open(path) as f:
        events = json.load(f)
    os.remove(path)
    order, durs = [], {}
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        key = (e["name"][: -len("_kernel_time")], e["args"].get("op_name", "?"))
        if key not in durs:
            order.append(key)
            durs[key] = []
        durs[key].append(e["dur"])
    for key in order:
        ts = sorted(durs[key][1:] or durs[key])  # the first call warms up
        print("%s %s %d" % (key[1], key[0], ts[len(ts) // 2]))


def outputs(d, name):
    import os
    s = ort.InferenceSession("%s/%s.onnx" % (d, name), providers=["CPUExecutionProvider"])
    k = 0
    while os.path.exists("%s/acc/%d.npy" % (d, k)):
        np.save("%s/acc/%s_ort_%d.npy" % (d, name, k), s.run(None, {"x": np.load("%s/acc/%d.npy" % (d, k))})[0])
        k += 1


if __name__ == "__main__":
    if sys.argv[1] == "outputs":
        outputs(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "quantize":
        quantize(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "layers":
        layers(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        timeit(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
