# Hand-run, never in the build or tests: PT2E int8 programs made by ExecuTorch's
# own exporter, in the exporter root of ../shared/reference/exporting-programs.md
# (Debian sid, python3-torch 2.14, ExecuTorch cff6f4dd under /et, torchao at the
# commit ExecuTorch pins under /ao, python3-onnxruntime 1.23):
#
#   python3 tests/exir/export_int8.py tests      the suite's small int8 programs
#                                                (tests/exir/NAME/, committed)
#   python3 tests/exir/export_int8.py bench DIR  ResNet-18 and MobileNetV2 at
#       1x3x224x224 for tests/bench/int8_peer.sh: NAME.pte (float), NAME_int8.pte,
#       NAME.onnx, input.npy, and eager's outputs on it (tests/bench/ort_int8.py
#       makes ONNX Runtime's int8 model from NAME.onnx); for accuracy, 8 more
#       inputs (DIR/acc/K.npy, another seed than input.npy's and the
#       calibration's) and the converted module's outputs on them
#       (DIR/acc/NAME_int8_eager_K.npy)
#
# Quantization is the standard recipe: prepare_pt2e / 8 calibration calls /
# convert_pt2e with XNNPACKQuantizer(get_symmetric_quantization_config(
# is_per_channel=True)), then to_edge(export(converted)).to_executorch() (the
# portable path, no delegate). The reference output is the converted module run
# eagerly (its quantize/dequantize ops in float).
import json, os, sys
sys.path.insert(0, "/et/src")
sys.path.insert(0, "/ao")
import numpy as np
import torch

torch.backends.mkldnn.enabled = False  # eager's float sums in one order, as documented
HERE = os.path.dirname(os.path.abspath(__file__))


def declare_quantized_out_variants():
    """The out= schemas of quantized_decomposed come from ExecuTorch's C++ AOT
    library; without it they are declared here exactly as
    kernels/quantized/quantized.yaml gives them (schemas only)."""
    lib = torch.library.Library("quantized_decomposed", "FRAGMENT")
    import executorch.exir  # noqa: F401  (registers the functional ops)
    for s in [
        "quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
        "dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out) -> Tensor(a!)",
        "dequantize_per_channel.out(Tensor input, Tensor scales, Tensor? zero_points, int axis, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out) -> Tensor(a!)",
    ]:
        try:
            lib.define(s)
        except RuntimeError:
            pass  # already there
    return lib


def quantize(model, example, calib):
    from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e, convert_pt2e
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    m = torch.export.export(model.eval(), example).module()
    q = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
    m = prepare_pt2e(m, q)
    for x in calib:
        m(x)
    return convert_pt2e(m)


def to_pte(module, example, path):
    import executorch.exir as exir
    from executorch.exir import EdgeCompileConfig
    ep = torch.export.export(module, example)
    prog = exir.to_edge(ep, compile_config=EdgeCompileConfig(_check_ir_validity=False)).to_executorch()
    with open(path, "wb") as f:
        f.write(prog.buffer)
    return sorted({str(n.target) for n in prog.exported_program().graph.nodes if n.op == "call_function"})


def settle_batch_norms(model, seed, shape, rounds=4):
    """Random weights leave a deep CNN's signal dead or exploding: batch-norm
    statistics drawn from seeded inputs in train mode make outputs depend on the
    input, and give calibration real ranges."""
    g = torch.Generator().manual_seed(seed)
    model.train()
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.momentum = None  # a cumulative average
    with torch.no_grad():
        for _ in range(rounds):
            model(torch.randn(*shape, generator=g))
    return model.eval()


# ---- the suite's programs: small, shapes and seeds of their own ----

class QMix(torch.nn.Module):
    """Every pattern the integer path takes: convolution (+relu), a residual add
    (+relu), depthwise + hardtanh (a Q/DQ pair on each side: XNNPACKQuantizer does
    not pair convolution with ReLU6), 1x1, max pool, mean, linear."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 12, 3, stride=2, padding=1)
        self.c2 = torch.nn.Conv2d(12, 12, 3, padding=1, bias=False)
        self.dw = torch.nn.Conv2d(12, 12, 3, padding=1, groups=12)
        self.pw = torch.nn.Conv2d(12, 20, 1)
        self.c5 = torch.nn.Conv2d(20, 20, (3, 2), stride=(1, 2), padding=(2, 0), dilation=(2, 1))
        self.fc = torch.nn.Linear(20, 7)

    def forward(self, x):
        a = torch.relu(self.c1(x))
        b = torch.relu(self.c2(a) + a)
        c = torch.nn.functional.hardtanh(self.dw(b), 0.0, 6.0)
        d = torch.nn.functional.max_pool2d(self.pw(c), 3, 2, 1)
        e = torch.relu(self.c5(d))
        return self.fc(e.mean(dim=(2, 3)))


class QUnfused(torch.nn.Module):
    """A product of two dequantized activations between Q/DQ pairs: no integer
    kernel takes it, so the program runs through the fallback around it."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(4, 6, 3, padding=1)

    def forward(self, x):
        a = self.c1(x)
        return a * torch.sigmoid(a)


def export_test(name, model, shape, seed, ncalls=3):
    out = os.path.join(HERE, name)
    for sub in ("inputs", "expected"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    g = torch.Generator().manual_seed(seed)
    model = settle_batch_norms(model, seed + 1, shape)
    calib = [torch.randn(*shape, generator=g) for _ in range(8)]
    cm = quantize(model, (calib[0],), calib)
    ops = to_pte(cm, (calib[0],), os.path.join(out, "model.pte"))
    for k in range(ncalls):
        x = torch.randn(*shape, generator=g) * (1 + k)
        np.save(os.path.join(out, "inputs", "%d_0.npy" % k), x.numpy())
        with torch.no_grad():
            np.save(os.path.join(out, "expected", "%d_0.npy" % k), cm(x).numpy())
    info = {"exporter": "tests/exir/export_int8.py (%s)" % name, "versions": {"torch": torch.__version__, "executorch": "cff6f4dd"},
            "reference": "the converted (Q/DQ) module run eagerly, mkldnn off", "calls": ncalls,
            "call_shapes": [[list(shape)]] * ncalls, "operators": ops}
    with open(os.path.join(out, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(name, os.path.getsize(os.path.join(out, "model.pte")), "bytes;", ops)


# ---- the benchmark's programs ----

def export_bench(d):
    import torchvision
    os.makedirs(d, exist_ok=True)
    shape = (1, 3, 224, 224)
    g = torch.Generator().manual_seed(2027)
    x = torch.randn(*shape, generator=g)
    np.save(os.path.join(d, "input.npy"), x.numpy())
    which = sys.argv[3:] or ["resnet18", "mobilenet_v2"]
    for name, ctor in (("resnet18", torchvision.models.resnet18), ("mobilenet_v2", torchvision.models.mobilenet_v2)):
        if name not in which:
            continue
        torch.manual_seed(11)
        model = settle_batch_norms(ctor(), 12, (4,) + shape[1:])
        calib = [torch.randn(*shape, generator=g) for _ in range(8)]
        with torch.no_grad():
            to_pte(model, (x,), os.path.join(d, name + ".pte"))
            np.save(os.path.join(d, name + "_eager.npy"), model(x).numpy())
            torch.onnx.export(model, (x,), os.path.join(d, name + ".onnx"), dynamo=False, opset_version=17,
                              input_names=["x"], output_names=["y"])
        cm = quantize(model, (x,), calib)
        to_pte(cm, (x,), os.path.join(d, name + "_int8.pte"))
        with torch.no_grad():
            np.save(os.path.join(d, name + "_int8_eager.npy"), cm(x).numpy())
            os.makedirs(os.path.join(d, "acc"), exist_ok=True)
            ga = torch.Generator().manual_seed(2029)
            for k in range(8):
                xa = torch.randn(*shape, generator=ga)
                np.save(os.path.join(d, "acc", "%d.npy" % k), xa.numpy())
                np.save(os.path.join(d, "acc", "%s_int8_eager_%d.npy" % (name, k)), cm(xa).numpy())

        print(name, "done")


if __name__ == "__main__":
    lib = declare_quantized_out_variants()
    if sys.argv[1:2] == ["bench"]:
        export_bench(sys.argv[2])
    else:
        torch.manual_seed(5)
        export_test("int8_mix", QMix(), (2, 3, 18, 22), 31)
        torch.manual_seed(6)
        export_test("int8_unfused", QUnfused(), (1, 4, 9, 7), 41)
