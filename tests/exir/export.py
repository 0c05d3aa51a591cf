# Hand-run, never in the build or tests: programs exported by ExecuTorch's own
# exporter for the suite (tests/exir/NAME/: model.pte, inputs/K_I.npy,
# expected/K_O.npy from eager PyTorch, info.json), with shapes and seeds of their
# own. Run in the exporter root of ../shared/reference/exporting-programs.md
# (Debian sid, python3-torch 2.14.1, ExecuTorch cff6f4dd under /et):
#     python3 tests/exir/export.py [residual_blocks|wide_blocks]   (all, or that one)
import json, os, sys
sys.path.insert(0, "/et/src")
import numpy as np
import torch
from torch.export import Dim
import executorch.exir as exir

HERE = os.path.dirname(os.path.abspath(__file__))


class SeqMix(torch.nn.Module):
    """A dynamic sequence length: sizes read at run (sym_size), arithmetic on them
    (executorch_prim ops), views of dynamic tensors (et_view)."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 6)

    def forward(self, x):
        b, t, c = x.shape
        y = self.proj(x.reshape(b * t, c))        # [b*t, 6]
        z = y.reshape(b, t * 2, 3)                # a view with computed sizes
        return torch.softmax(z, dim=-1) * (t + 1), z.sum(dim=1)


def export(name, model, example, dynamic_shapes, calls):
    out = os.path.join(HERE, name)
    for sub in ("inputs", "expected"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    model.eval()
    with torch.no_grad():
        ep = torch.export.export(model, example, dynamic_shapes=dynamic_shapes)
        prog = exir.to_edge(ep).to_executorch()
        with open(os.path.join(out, "model.pte"), "wb") as f:
            f.write(prog.buffer)
        for k, args in enumerate(calls):
            for i, a in enumerate(args):
                np.save(os.path.join(out, "inputs", "%d_%d.npy" % (k, i)), a.numpy())
            res = model(*args)
            for o, r in enumerate(res if isinstance(res, tuple) else (res,)):
                np.save(os.path.join(out, "expected", "%d_%d.npy" % (k, o)), np.ascontiguousarray(r.numpy()))
    ops = sorted({str(n.target) for n in prog.exported_program().graph.nodes if n.op == "call_function"})
    info = {"exporter": "tests/exir/export.py (%s)" % name, "versions": {"torch": torch.__version__, "executorch": "cff6f4dd"},
            "calls": len(calls), "call_shapes": [[list(a.shape) for a in args] for args in calls], "operators": ops}
    with open(os.path.join(out, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(name, os.path.getsize(os.path.join(out, "model.pte")), "bytes;", ops)


class Lists(torch.nn.Module):
    """Ops whose out is a TensorList the exporter plans tensor by tensor."""

    def forward(self, x):
        a, b = torch.split(x, [2, 4], dim=1)      # split_with_sizes_copy
        rows = torch.unbind(x, dim=0)             # unbind_copy
        c = torch.chunk(x, 3, dim=1)              # split_copy
        return a * 2 + b[:, 1:3], rows[1] - rows[3], c[0] + c[2]


class Recurrent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(5, 7, num_layers=2, batch_first=True)
        self.head = torch.nn.Linear(7, 3)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y[:, -1])


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(d_model=12, nhead=3, dim_feedforward=20, dropout=0.0, batch_first=True)

    def forward(self, x):
        return self.layer(x)


class Residual(torch.nn.Module):
    """ResNet's basic blocks (conv, batch norm, add, relu: the add's other operand
    the block's input, or its self where a strided 1x1 shortcut comes after) and
    MobileNetV2's inverted residual (conv, batch norm, add, no activation): the
    chains opgen's kernel fuses into the convolution."""

    def __init__(self):
        super().__init__()
        bn = lambda c: torch.nn.BatchNorm2d(c)
        self.c1, self.b1, self.c2, self.b2 = torch.nn.Conv2d(8, 8, 3, padding=1, bias=False), bn(8), torch.nn.Conv2d(8, 8, 3, padding=1, bias=False), bn(8)
        self.c3, self.b3, self.c4, self.b4 = torch.nn.Conv2d(8, 16, 3, 2, 1, bias=False), bn(16), torch.nn.Conv2d(16, 16, 3, padding=1, bias=False), bn(16)
        self.ds, self.bds = torch.nn.Conv2d(8, 16, 1, 2, bias=False), bn(16)
        self.e, self.be, self.dw, self.bdw = torch.nn.Conv2d(16, 48, 1, bias=False), bn(48), torch.nn.Conv2d(48, 48, 3, padding=1, groups=48, bias=False), bn(48)
        self.p, self.bp = torch.nn.Conv2d(48, 16, 1, bias=False), bn(16)
        for m in self.modules():  # batch norms that are not the identity
            if isinstance(m, torch.nn.BatchNorm2d):
                m.weight.data.uniform_(0.5, 1.5), m.bias.data.uniform_(-0.5, 0.5), m.running_mean.uniform_(-0.2, 0.2), m.running_var.uniform_(0.5, 2)

    def forward(self, x):
        r = torch.relu
        x = r(self.b2(self.c2(r(self.b1(self.c1(x))))) + x)
        y = self.b4(self.c4(r(self.b3(self.c3(x)))))
        x = r(y + self.bds(self.ds(x)))
        return x + self.bp(self.p(torch.nn.functional.relu6(self.bdw(self.dw(torch.nn.functional.relu6(self.be(self.e(x))))))))


def export_residual():
    torch.manual_seed(35)
    g = torch.Generator().manual_seed(36)
    export("residual_blocks", Residual(), (torch.randn(1, 8, 12, 11, generator=g),), None, [(torch.randn(1, 8, 12, 11, generator=g),) for _ in range(2)])


class WideBlocks(torch.nn.Module):
    """3x3 convolutions of 32 to 64 channels on small odd planes: the Winograd
    path with its filter transformed at load (kernels/conv.h), a residual and a
    batch norm fused into it, then a strided 3x3 on the direct path."""

    def __init__(self):
        super().__init__()
        bn = torch.nn.BatchNorm2d
        self.c1, self.b1 = torch.nn.Conv2d(40, 32, 3, padding=1, bias=False), bn(32)
        self.c2 = torch.nn.Conv2d(32, 64, 3, padding=1)
        self.c3, self.b3 = torch.nn.Conv2d(64, 64, 3, padding=1, bias=False), bn(64)
        self.c4 = torch.nn.Conv2d(64, 32, 3, 2, 1)
        for m in self.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.weight.data.uniform_(0.5, 1.5), m.bias.data.uniform_(-0.5, 0.5), m.running_mean.uniform_(-0.2, 0.2), m.running_var.uniform_(0.5, 2)

    def forward(self, x):
        y = self.c2(torch.relu(self.b1(self.c1(x))))
        return self.c4(torch.relu(self.b3(self.c3(y)) + y))


def export_wide():
    torch.manual_seed(37)
    g = torch.Generator().manual_seed(38)
    export("wide_blocks", WideBlocks(), (torch.randn(1, 40, 15, 13, generator=g),), None, [(torch.randn(1, 40, 15, 13, generator=g),) for _ in range(2)])


class NonZero(torch.nn.Module):
    """Data-dependent sizes: nonzero.out, its count bounded by torch._check."""

    def forward(self, x):
        idx = torch.nonzero(x > 0.25)
        torch._check(idx.shape[0] <= 30)
        return idx, (idx.sum(dim=1) * 2).to(torch.float32)


class MaskIndex(torch.nn.Module):
    """x[mask]: index.Tensor with a bool index, its count bounded."""

    def forward(self, x, y):
        v = x[x > y]
        torch._check(v.shape[0] <= 40)
        return v * 3 + 1


class MaskedScatter(torch.nn.Module):
    """masked_scatter: as many source values consumed as the mask has true
    elements (0 to all), in row-major order."""

    def forward(self, x, y, src):
        return x.masked_scatter(x > y, src) * 2


class Bags(torch.nn.Module):
    """nn.EmbeddingBag in the three modes the exporter emits (_embedding_bag.out,
    its auxiliary results planned empty), sum with per-sample weights."""

    def __init__(self):
        super().__init__()
        self.s = torch.nn.EmbeddingBag(11, 5, mode="sum")
        self.m = torch.nn.EmbeddingBag(11, 5, mode="mean", padding_idx=3)
        self.x = torch.nn.EmbeddingBag(11, 5, mode="max")

    def forward(self, idx, off, w):
        return self.s(idx, off, per_sample_weights=w), self.m(idx, off), self.x(idx, off)


def export_data_dependent():
    g = torch.Generator().manual_seed(37)
    # counts 0, 30 (the bound), and some between
    calls = [(torch.randn(6, 8, generator=g) - 0.6,) for _ in range(2)]
    calls += [(torch.full((6, 8), -1.0),), (torch.where(torch.arange(48.0).reshape(6, 8) < 30, 1.0, -1.0),)]
    export("nonzero", NonZero(), calls[0], None, calls)
    calls = [(torch.randn(5, 8, generator=g), torch.randn(5, 8, generator=g) + 0.4) for _ in range(2)]
    calls += [(torch.zeros(5, 8), torch.ones(5, 8)), (torch.ones(5, 8), torch.where(torch.arange(40.0).reshape(5, 8) < 39, 0.0, 2.0))]
    export("mask_index", MaskIndex(), calls[0], None, calls)
    calls = [(torch.randn(4, 7, generator=g), torch.randn(4, 7, generator=g), torch.randn(30, generator=g)) for _ in range(2)]
    calls += [(torch.zeros(4, 7), torch.ones(4, 7), torch.randn(30, generator=g)), (torch.ones(4, 7), torch.zeros(4, 7), torch.randn(30, generator=g))]
    export("masked_scatter", MaskedScatter(), calls[0], None, calls)
    torch.manual_seed(38)
    off = torch.tensor([0, 2, 2, 5])  # an empty bag among them
    calls = [(torch.randint(0, 11, (7,), generator=g), off, torch.rand(7, generator=g)) for _ in range(2)]
    export("embedding_bag", Bags(), calls[0], None, calls)


if __name__ == "__main__" and sys.argv[1:] == ["data_dependent"]:
    export_data_dependent()
elif __name__ == "__main__" and sys.argv[1:] == ["residual_blocks"]:
    export_residual()
    export_wide()
elif __name__ == "__main__" and sys.argv[1:] == ["wide_blocks"]:
    export_wide()
elif __name__ == "__main__":
    torch.manual_seed(31)
    g = torch.Generator().manual_seed(32)
    seq = Dim("seq", min=1, max=12)
    export("seq_dynamic", SeqMix(), (torch.randn(1, 5, 8, generator=g),), {"x": {1: seq}},
           [(torch.randn(1, t, 8, generator=g),) for t in (5, 1, 12, 7)])
    export("lists", Lists(), (torch.randn(4, 6, generator=g),), None, [(torch.randn(4, 6, generator=g),) for _ in range(2)])
    torch.manual_seed(33)
    export("lstm", Recurrent(), (torch.randn(2, 4, 5, generator=g),), None, [(torch.randn(2, 4, 5, generator=g),) for _ in range(2)])
    torch.manual_seed(34)
    export("transformer_block", Block(), (torch.randn(2, 5, 12, generator=g),), None, [(torch.randn(2, 5, 12, generator=g),) for _ in range(2)])
    export_residual()
    export_wide()
