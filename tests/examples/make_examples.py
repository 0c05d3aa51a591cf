"""Writes the example programs' inputs and expected outputs (tests/examples/*/):
weights and inputs from a seeded NumPy generator, outputs from a NumPy reference
of each program written independently of opgen's kernels.

Run by hand, once, with Debian's python3-numpy (1.24); NOT used by the build or
the tests:  cd tests/examples && /usr/bin/python3 make_examples.py"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261121)


def f32(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def save(name, inputs, outputs):
    d = os.path.join(HERE, name)
    os.makedirs(os.path.join(d, 'inputs'), exist_ok=True)
    os.makedirs(os.path.join(d, 'expected'), exist_ok=True)
    for k, v in inputs.items():
        np.save(os.path.join(d, 'inputs', k + '.npy'), v)
    for i, v in enumerate(outputs):
        np.save(os.path.join(d, 'expected', f'{i}.npy'), np.array(v, order='C'))


def d(x): return x.astype(np.float64)


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def conv2d(x, w, b, stride, pad, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for y in range(oh):
            for xx in range(ow):
                out[:, oc, y, xx] = (xp[:, g * cg:(g + 1) * cg, y * stride:y * stride + kh, xx * stride:xx * stride + kw] * w[oc]).sum(axis=(1, 2, 3))
        if b is not None:
            out[:, oc] += b[oc]
    return out


def bn(x, w, b, m, v, eps=1e-5):
    s = lambda t: t[None, :, None, None]
    return (x - s(m)) / np.sqrt(s(v) + eps) * s(w) + s(b)


# ---- MLP: linear (permute_copy + addmm), relu, linear, softmax ----
x, w1, b1, w2, b2 = f32(4, 8), f32(16, 8, scale=0.3), f32(16, scale=0.1), f32(3, 16, scale=0.3), f32(3, scale=0.1)
h = np.maximum(d(x) @ d(w1).T + d(b1), 0)
logits = h @ d(w2).T + d(b2)
save('mlp', {'x': x, 'w1': w1, 'b1': b1, 'w2': w2, 'b2': b2}, [softmax(logits, 1).astype(np.float32), logits.astype(np.float32)])

# ---- MobileNetV2 inverted residual: 1x1 expand, 3x3 depthwise, 1x1 project, BN, ReLU6, residual; then pooling and a classifier ----
C, E = 8, 16
inp = {'x': f32(1, C, 6, 6), 'we': f32(E, C, 1, 1, scale=0.4), 'wd': f32(E, 1, 3, 3, scale=0.4), 'wp': f32(C, E, 1, 1, scale=0.3), 'wc': f32(5, C, scale=0.5), 'bc': f32(5, scale=0.1)}
for name, n in [('1', E), ('2', E), ('3', C)]:
    inp['g' + name] = (1 + 0.1 * rng.standard_normal(n)).astype(np.float32)
    inp['b' + name] = (0.1 * rng.standard_normal(n)).astype(np.float32)
    inp['m' + name] = (0.1 * rng.standard_normal(n)).astype(np.float32)
    inp['v' + name] = (0.5 + rng.random(n)).astype(np.float32)
D = {k: d(v) for k, v in inp.items()}
relu6 = lambda t: np.clip(t, 0, 6)
t = relu6(bn(conv2d(D['x'], D['we'], None, 1, 0, 1), D['g1'], D['b1'], D['m1'], D['v1']))
t = relu6(bn(conv2d(t, D['wd'], None, 1, 1, E), D['g2'], D['b2'], D['m2'], D['v2']))
t = bn(conv2d(t, D['wp'], None, 1, 0, 1), D['g3'], D['b3'], D['m3'], D['v3'])
y = t + D['x']
pooled = y.mean(axis=(2, 3))
mp = np.full((1, C, 3, 3), -np.inf)
for yy in range(3):
    for xx in range(3):
        mp[:, :, yy, xx] = y[:, :, 2 * yy:2 * yy + 2, 2 * xx:2 * xx + 2].max(axis=(2, 3))
out = pooled @ D['wc'].T + D['bc']
save('mobilenet_block', inp, [y.astype(np.float32), out.astype(np.float32), mp.astype(np.float32)])

# ---- attention block: single-head self-attention with a residual and a GELU feed-forward ----
S, H = 4, 8
inp = {'x': f32(S, H), 'wq': f32(H, H, scale=0.35), 'wk': f32(H, H, scale=0.35), 'wv': f32(H, H, scale=0.35), 'w1': f32(H, 2 * H, scale=0.3), 'w2': f32(2 * H, H, scale=0.3)}
D = {k: d(v) for k, v in inp.items()}
q, k, v = D['x'] @ D['wq'], D['x'] @ D['wk'], D['x'] @ D['wv']
scores = (q[None] @ k.T[None]) * (1 / np.sqrt(H))
att = softmax(scores, -1) @ v[None]
r = att[0] + D['x']
ff = r @ D['w1']
g = 0.5 * ff * (1 + np.tanh(np.sqrt(2 / np.pi) * (ff + 0.044715 * ff ** 3)))
o = g @ D['w2'] + r
save('attention', inp, [o.astype(np.float32), softmax(scores, -1).astype(np.float32)])
print('written')
