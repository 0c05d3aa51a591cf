"""Writes the example programs' inputs and expected outputs (tests/examples/*/):
weights and inputs from a seeded NumPy generator, outputs from PyTorch itself:
each program's ops run eagerly with torch.ops.aten in float32, as the program
spells them (the values a user compares opgen's with).

Run by hand, once, with Debian's python3-torch (1.13.1) and python3-numpy (1.24);
NOT used by the build or the tests:  cd tests/examples && /usr/bin/python3 make_examples.py
(PyTorch 1.13 has no _native_batch_norm_legit_no_training: native_batch_norm with
training=False is the same computation.)"""
import os
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261121)
A = torch.ops.aten


def f32(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def save(name, inputs, outputs):
    d = os.path.join(HERE, name)
    os.makedirs(os.path.join(d, 'inputs'), exist_ok=True)
    os.makedirs(os.path.join(d, 'expected'), exist_ok=True)
    for k, v in inputs.items():
        np.save(os.path.join(d, 'inputs', k + '.npy'), v)
    for i, v in enumerate(outputs):
        np.save(os.path.join(d, 'expected', f'{i}.npy'), np.array(v.numpy(), order='C'))


def conv(x, w, stride, pad, groups):
    return A.convolution(x, w, None, [stride, stride], [pad, pad], [1, 1], False, [0, 0], groups)


def bn(x, g, b, m, v):
    return A.native_batch_norm(x, g, b, m, v, False, 0.1, 1e-5)[0]


# ---- MLP: linear (permute_copy + addmm), relu, linear, softmax ----
x, w1, b1, w2, b2 = f32(4, 8), f32(16, 8, scale=0.3), f32(16, scale=0.1), f32(3, 16, scale=0.3), f32(3, scale=0.1)
T = {k: torch.tensor(v) for k, v in dict(x=x, w1=w1, b1=b1, w2=w2, b2=b2).items()}
h = A.relu(A.addmm(T['b1'], T['x'], A.permute(T['w1'], [1, 0])))
logits = A.addmm(T['b2'], h, A.permute(T['w2'], [1, 0]))
save('mlp', {'x': x, 'w1': w1, 'b1': b1, 'w2': w2, 'b2': b2}, [A._softmax(logits, 1, False), logits])

# ---- MobileNetV2 inverted residual: 1x1 expand, 3x3 depthwise, 1x1 project, BN, ReLU6, residual; then pooling and a classifier ----
C, E = 8, 16
inp = {'x': f32(1, C, 6, 6), 'we': f32(E, C, 1, 1, scale=0.4), 'wd': f32(E, 1, 3, 3, scale=0.4), 'wp': f32(C, E, 1, 1, scale=0.3), 'wc': f32(5, C, scale=0.5), 'bc': f32(5, scale=0.1)}
for name, n in [('1', E), ('2', E), ('3', C)]:
    inp['g' + name] = (1 + 0.1 * rng.standard_normal(n)).astype(np.float32)
    inp['b' + name] = (0.1 * rng.standard_normal(n)).astype(np.float32)
    inp['m' + name] = (0.1 * rng.standard_normal(n)).astype(np.float32)
    inp['v' + name] = (0.5 + rng.random(n)).astype(np.float32)
T = {k: torch.tensor(v) for k, v in inp.items()}
t = A.hardtanh(bn(conv(T['x'], T['we'], 1, 0, 1), T['g1'], T['b1'], T['m1'], T['v1']), 0.0, 6.0)
t = A.hardtanh(bn(conv(t, T['wd'], 1, 1, E), T['g2'], T['b2'], T['m2'], T['v2']), 0.0, 6.0)
t = bn(conv(t, T['wp'], 1, 0, 1), T['g3'], T['b3'], T['m3'], T['v3'])
y = A.add.Tensor(t, T['x'])
pooled = A.view(A.mean.dim(y, [-1, -2], True), [1, C])
out = A.addmm(T['bc'], pooled, A.permute(T['wc'], [1, 0]))
mp = A.max_pool2d_with_indices(y, [2, 2], [2, 2])[0]
save('mobilenet_block', inp, [y, out, mp])

# ---- attention block: single-head self-attention with a residual and a GELU feed-forward ----
S, H = 4, 8
inp = {'x': f32(S, H), 'wq': f32(H, H, scale=0.35), 'wk': f32(H, H, scale=0.35), 'wv': f32(H, H, scale=0.35), 'w1': f32(H, 2 * H, scale=0.3), 'w2': f32(2 * H, H, scale=0.3)}
T = {k: torch.tensor(v) for k, v in inp.items()}
q, k, v = A.mm(T['x'], T['wq']), A.mm(T['x'], T['wk']), A.mm(T['x'], T['wv'])
s = A.bmm(A.view(q, [1, 4, 8]), A.expand(A.permute(k, [1, 0]), [1, 8, 4]))
attn = A._softmax(A.mul.Scalar(s, 0.35355339059327373), -1, False)
r = A.add.Tensor(A.view(A.bmm(attn, A.view(v, [1, 4, 8])), [4, 8]), T['x'])
o = A.add.Tensor(A.mm(A.gelu(A.mm(r, T['w1']), approximate='tanh'), T['w2']), r)
save('attention', inp, [o, attn])
print('written; PyTorch', torch.__version__)
