# Hand-run, never in the build or tests: eager PyTorch on the models bench_models
# times (tests/bench/bench_models.c), built the same way: torchvision's ResNet-18
# (BasicBlocks [2, 2, 2, 2]) and MobileNetV2 (inverted residuals, ReLU6) written
# out with torch.nn, eval mode, float32, a 1x3x224x224 input, and a llama decode
# step at stories15M's shape (DecodeStep); the median of RUNS
# calls on 1 and 2 threads (torch.set_num_threads), after 2 warm-up calls. Run it
# in the same session as bench_models, for instance in the exporter root of
# ../shared/reference/exporting-programs.md, or with Debian's python3-torch
# (1.13.1 on Debian 12; /usr/bin/python3 where another python3 comes first):
#     python3 tests/bench/eager_models.py [RUNS]
import sys, time
import torch
from torch import nn


class Basic(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1, self.n1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout)
        self.c2, self.n2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout)
        self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)) if stride != 1 or cin != cout else None

    def forward(self, x):
        y = self.n2(self.c2(torch.relu(self.n1(self.c1(x)))))
        return torch.relu(y + (self.down(x) if self.down is not None else x))


def resnet18():
    layers, cin = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)], 64
    for stage in range(4):
        for blk in range(2):
            cout = 64 << stage
            layers.append(Basic(cin, cout, 2 if blk == 0 and stage > 0 else 1))
            cin = cout
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000))


class Inverted(nn.Module):
    def __init__(self, cin, cout, stride, t):
        super().__init__()
        hid = cin * t
        mods = [nn.Conv2d(cin, hid, 1, bias=False), nn.BatchNorm2d(hid), nn.ReLU6()] if t != 1 else []
        mods += [nn.Conv2d(hid, hid, 3, stride, 1, groups=hid, bias=False), nn.BatchNorm2d(hid), nn.ReLU6(), nn.Conv2d(hid, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.body, self.res = nn.Sequential(*mods), stride == 1 and cin == cout

    def forward(self, x):
        return x + self.body(x) if self.res else self.body(x)


def mobilenet_v2():
    cfg = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    layers, cin = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6()], 32
    for t, c, n, s in cfg:
        for i in range(n):
            layers.append(Inverted(cin, c, s if i == 0 else 1, t))
            cin = c
    layers += [nn.Conv2d(cin, 1280, 1, bias=False), nn.BatchNorm2d(1280), nn.ReLU6()]
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1280, 1000))


class DecodeStep(nn.Module):
    """A llama decode step as bench_models' llama_step writes it (ExecuTorch's
    llama example, a KV cache, no custom ops), in eager PyTorch: the cache updated
    in place, as the eager model does; attention as the export decomposes it."""

    def __init__(self, dim, layers, heads, kv_heads, vocab, hidden, max_seq):
        super().__init__()
        self.heads, self.kv_heads, self.hd, self.pos = heads, kv_heads, dim // heads, max_seq // 2
        lin = lambda i, o: nn.Linear(i, o, bias=False)
        self.layers = nn.ModuleList(nn.ModuleDict(dict(wq=lin(dim, dim), wk=lin(dim, kv_heads * self.hd), wv=lin(dim, kv_heads * self.hd), wo=lin(dim, dim),
                                                       w1=lin(dim, hidden), w2=lin(hidden, dim), w3=lin(dim, hidden))) for _ in range(layers))
        self.norms = nn.Parameter(torch.rand(2 * layers + 1, dim) + 0.5)
        self.out = lin(dim, vocab)
        self.caches = torch.rand(layers, 2, 1, kv_heads, max_seq, self.hd) * 2 - 1
        self.mask = torch.full((max_seq, max_seq), float("-inf")).triu(1)
        self.cos, self.sin = torch.rand(max_seq, self.hd // 2), torch.rand(max_seq, self.hd // 2)

    def rope(self, t, n):
        t = t.view(1, 1, n, self.hd // 2, 2)
        re, im, c, s = t[..., 0], t[..., 1], self.cos[self.pos].view(1, 1, 1, -1), self.sin[self.pos].view(1, 1, 1, -1)
        return torch.stack((re * c - im * s, re * s + im * c), -1).view(1, 1, n, self.hd).transpose(1, 2)

    def norm(self, x, i):
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-5) * self.norms[i]

    def forward(self, x):
        rep, root = self.heads // self.kv_heads, (1.0 / self.hd ** 0.5) ** 0.5
        for i, L in enumerate(self.layers):
            h = self.norm(x, 2 * i)
            q, k, v = self.rope(L["wq"](h), self.heads), self.rope(L["wk"](h), self.kv_heads), L["wv"](h).view(1, 1, self.kv_heads, self.hd).transpose(1, 2)
            kc, vc = self.caches[i, 0], self.caches[i, 1]
            kc[:, :, self.pos] = k[:, :, 0]
            vc[:, :, self.pos] = v[:, :, 0]
            kc, vc = kc.repeat_interleave(rep, 1), vc.repeat_interleave(rep, 1)
            s = torch.softmax((q * root) @ (kc.transpose(2, 3) * root) + self.mask[self.pos], -1)
            x = x + L["wo"]((s @ vc).transpose(1, 2).reshape(1, -1))
            h = self.norm(x, 2 * i + 1)
            x = x + L["w2"](nn.functional.silu(L["w1"](h)) * L["w3"](h))
        return self.out(self.norm(x, -1))


def timed(m, x, runs):
    with torch.no_grad():
        for _ in range(2):
            m(x)
        t = []
        for _ in range(runs):
            s = time.perf_counter()
            m(x)
            t.append((time.perf_counter() - s) * 1e3)
    t.sort()
    return t[len(t) // 2], t[0]


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    torch.manual_seed(27)
    x = torch.rand(1, 3, 224, 224) * 2 - 1
    for name, make in (("ResNet-18", resnet18), ("MobileNetV2", mobilenet_v2)):
        m = make().eval()
        for threads in (1, 2):
            torch.set_num_threads(threads)
            med, fast = timed(m, x, runs)
            print("eager PyTorch %s, %d thread%s: %s 1x3x224x224 median %.1f ms (fastest %.1f)" % (torch.__version__, threads, "s" if threads > 1 else "", name, med, fast))
    m = DecodeStep(288, 6, 6, 6, 32000, 768, 256).eval()  # stories15M's shape, as bench_models
    for threads in (1, 2):
        torch.set_num_threads(threads)
        med, fast = timed(m, torch.rand(1, 288) * 2 - 1, runs)
        print("eager PyTorch %s, %d thread%s: stories15M decode step median %.2f ms (fastest %.2f)" % (torch.__version__, threads, "s" if threads > 1 else "", med, fast))


main()
