# Hand-run, never in the build or tests: eager PyTorch on the models bench_models
# times (tests/bench/bench_models.c), built the same way: torchvision's ResNet-18
# (BasicBlocks [2, 2, 2, 2]) and MobileNetV2 (inverted residuals, ReLU6) written
# out with torch.nn, eval mode, float32, a 1x3x224x224 input; the median of RUNS
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


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    torch.manual_seed(27)
    x = torch.rand(1, 3, 224, 224) * 2 - 1
    for name, make in (("ResNet-18", resnet18), ("MobileNetV2", mobilenet_v2)):
        m = make().eval()
        for threads in (1, 2):
            torch.set_num_threads(threads)
            with torch.no_grad():
                for _ in range(2):
                    m(x)
                t = []
                for _ in range(runs):
                    s = time.perf_counter()
                    m(x)
                    t.append((time.perf_counter() - s) * 1e3)
            t.sort()
            print("eager PyTorch %s, %d thread%s: %s 1x3x224x224 median %.1f ms (fastest %.1f)" % (torch.__version__, threads, "s" if threads > 1 else "", name, t[len(t) // 2], t[0]))


main()
