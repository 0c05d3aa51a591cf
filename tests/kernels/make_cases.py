"""Writes the kernel test cases in this folder: per case, program.graph and the
values NumPy computes for it (expected.npys: the results' .npy images one after
another), or expected.err for a program that must fail.

Run by hand, once, with Debian's python3-numpy (1.24); NOT used by the build or
the tests, which only read what it wrote:  /usr/bin/python3 make_cases.py

The reference implementations below follow PyTorch's documented semantics and
are written independently of runtime-stubs/kernels/. Inputs come from the same
formula as tests/test_kernels.c."""
import math, os, re, shutil
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DT = {'b8': np.bool_, 'u8': np.uint8, 'i8': np.int8, 'i16': np.int16, 'i32': np.int32, 'i64': np.int64,
      'f16': np.float16, 'f32': np.float32, 'f64': np.float64, 'u16': np.uint16}
FLOATS = (np.float16, np.float32, np.float64)


def formula(dtype, n, j, mod=0, positive=False):
    k = np.arange(n, dtype=np.int64)
    base = k * 7 + j * 3
    if mod:
        v = base % mod
    elif positive:
        v = 0.5 + (base % 9) / 4.0
    elif dtype == np.bool_:
        v = (k + j) % 3 == 0
    elif dtype == np.uint8:
        v = base % 11
    elif dtype in FLOATS:
        v = (base % 23 - 11) / 4.0
    else:
        v = base % 11 - 5
    return v.astype(dtype)


def inputs_of(program):
    head = re.match(r'graph\((.*?)\):', program, re.S).group(1)
    ins, j = {}, 0
    for name, ty in re.findall(r'%(\w+): (\w+(?:\[[^\]]*\])?)', head):
        if '[' not in ty:
            continue
        dt, sizes = ty.split('[')
        shape = tuple(int(s) for s in sizes.rstrip(']').split(',') if s.strip())
        m = re.search(r'#@ %' + name + r' (mod (\d+)|positive)', program)
        mod = int(m.group(2)) if m and m.group(2) else 0
        pos = bool(m and m.group(1) == 'positive')
        ins[name] = formula(DT[dt], int(np.prod(shape)), j, mod, pos).reshape(shape)
        j += 1
    return ins


# ---- PyTorch semantics ----

def promote(a, b):
    a, b = np.dtype(a), np.dtype(b)
    if a == b: return a.type
    if a == np.bool_: return b.type
    if b == np.bool_: return a.type
    fa, fb = a.kind == 'f', b.kind == 'f'
    if fa or fb:
        if fa and fb: return (a if a.itemsize >= b.itemsize else b).type
        return (a if fa else b).type
    if {a.type, b.type} == {np.uint8, np.int8}: return np.int16
    return (a if a.itemsize >= b.itemsize else b).type


def arith(a, b, res, f):
    """compute like the kernels: in float64 (or int64) then cast to the result"""
    if np.dtype(res).kind == 'f':
        return f(a.astype(np.float64), b.astype(np.float64) if isinstance(b, np.ndarray) else float(b)).astype(res)
    if res == np.bool_:
        return (f(a.astype(np.int64), b.astype(np.int64) if isinstance(b, np.ndarray) else int(b)) != 0)
    with np.errstate(over='ignore'):
        return f(a.astype(np.int64), b.astype(np.int64) if isinstance(b, np.ndarray) else int(b)).astype(res)


def f64(x): return x.astype(np.float64)
def unary_res(x): return x.dtype.type if x.dtype.kind == 'f' else np.float32
erf = np.vectorize(math.erf)


def softmax(x, d, log):
    x = f64(x)
    m = x.max(axis=d, keepdims=True)
    e = np.exp(x - m)
    s = e.sum(axis=d, keepdims=True)
    return (x - m - np.log(s)) if log else e / s


def conv2d(x, w, b, stride, pad, dil, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    xp = np.zeros((n, c, h + 2 * pad[0], wd + 2 * pad[1]))
    xp[:, :, pad[0]:pad[0] + h, pad[1]:pad[1] + wd] = x
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for y in range(oh):
            for xx in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg, y * stride[0]:y * stride[0] + dil[0] * (kh - 1) + 1:dil[0], xx * stride[1]:xx * stride[1] + dil[1] * (kw - 1) + 1:dil[1]]
                out[:, oc, y, xx] = (patch * f64(w[oc])).sum(axis=(1, 2, 3))
        if b is not None:
            out[:, oc] += float(b[oc])
    return out.astype(x.dtype)


def pool_size(n, k, s, p, d, ceil):
    num = n + 2 * p - d * (k - 1) - 1
    o = (-(-num // s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def maxpool(x, k, s, p, d, ceil):
    H, W = x.shape[-2:]
    oh, ow = pool_size(H, k[0], s[0], p[0], d[0], ceil), pool_size(W, k[1], s[1], p[1], d[1], ceil)
    out = np.zeros(x.shape[:-2] + (oh, ow), x.dtype)
    idx = np.zeros(out.shape, np.int64)
    for pos in np.ndindex(*x.shape[:-2]):
        for y in range(oh):
            for xx in range(ow):
                best, at = -np.inf, -1
                for ky in range(k[0]):
                    iy = y * s[0] - p[0] + ky * d[0]
                    if iy < 0 or iy >= H: continue
                    for kx in range(k[1]):
                        ix = xx * s[1] - p[1] + kx * d[1]
                        if ix < 0 or ix >= W: continue
                        v = float(x[pos + (iy, ix)])
                        if at < 0 or v > best:
                            best, at = v, iy * W + ix
                out[pos + (y, xx)] = best
                idx[pos + (y, xx)] = at
    return out, idx


def avgpool(x, k, s, p, ceil, include_pad, divisor):
    H, W = x.shape[-2:]
    oh, ow = pool_size(H, k[0], s[0], p[0], 1, ceil), pool_size(W, k[1], s[1], p[1], 1, ceil)
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for pos in np.ndindex(*x.shape[:-2]):
        for y in range(oh):
            for xx in range(ow):
                y0, x0 = y * s[0] - p[0], xx * s[1] - p[1]
                y1, x1 = min(y0 + k[0], H + p[0]), min(x0 + k[1], W + p[1])
                size = (y1 - y0) * (x1 - x0)
                y0, x0, y1, x1 = max(y0, 0), max(x0, 0), min(y1, H), min(x1, W)
                total = f64(x[pos + (slice(y0, y1), slice(x0, x1))]).sum()
                div = divisor if divisor else (size if include_pad else (y1 - y0) * (x1 - x0))
                out[pos + (y, xx)] = total / div
    return out.astype(x.dtype)


CASES = []


def case(name, program, fn=None, error=None):
    CASES.append((name, program, fn, error))


def binary_cases(op, f, dtypes, alpha=True):
    for d in dtypes:
        prog = f'graph(%x: {d}[2, 3], %y: {d}[3]):\n  %r = aten::{op}.Tensor(%x, %y{", alpha=2" if alpha else ""})\n  return %r\n'
        def fn(i, f=f):
            res = promote(i['x'].dtype, i['y'].dtype)
            if op == 'div' and np.dtype(res).kind != 'f': res = np.float32
            return [arith(i['x'], i['y'], res, f)]
        case(f'{op}_{d}', prog, fn)


INTS = ['u8', 'i8', 'i16', 'i32', 'i64']
REAL = INTS + ['f32', 'f64']
binary_cases('add', lambda a, b: a + 2 * b, REAL)
binary_cases('sub', lambda a, b: a - 2 * b, REAL)
binary_cases('mul', lambda a, b: a * b, REAL + ['b8'], alpha=False)
binary_cases('div', lambda a, b: a / b, ['f32', 'f64'], alpha=False)
case('add_promote_int_float', 'graph(%x: i32[4], %y: f32[4]):\n  %r = aten::add.Tensor(%x, %y)\n  return %r\n', lambda i: [arith(i['x'], i['y'], np.float32, lambda a, b: a + b)])
case('add_promote_u8_i8', 'graph(%x: u8[4], %y: i8[4]):\n  %r = aten::add.Tensor(%x, %y)\n  return %r\n', lambda i: [arith(i['x'], i['y'], np.int16, lambda a, b: a + b)])
case('add_broadcast_both', 'graph(%x: f32[3, 1], %y: f32[1, 4]):\n  %r = aten::add.Tensor(%x, %y)\n  return %r\n', lambda i: [arith(i['x'], i['y'], np.float32, lambda a, b: a + b)])
case('add_empty', 'graph(%x: f32[0, 3], %y: f32[3]):\n  %r = aten::add.Tensor(%x, %y)\n  return %r\n', lambda i: [np.zeros((0, 3), np.float32)])
case('add_bad_shape', 'graph(%x: f32[2, 3], %y: f32[4]):\n  %r = aten::add.Tensor(%x, %y)\n  return %r\n',
     error='program.graph:2:3: error: aten::add.Tensor: shapes do not broadcast: size 3 against 4 in dimension 1')
case('add_int_float_alpha', 'graph(%x: i32[2], %y: i32[2]):\n  %r = aten::add.Tensor(%x, %y, alpha=1.5)\n  return %r\n',
     error='program.graph:2:3: error: aten::add.Tensor: for integral input tensors, alpha must not be a floating point number')
case('div_int_true', 'graph(%x: i64[4], %y: i64[4]):\n  #@ %y mod 3\n  %s = aten::add.Scalar(%y, 1)\n  %r = aten::div.Tensor(%x, %s)\n  return %r\n',
     lambda i: [(f64(i['x']) / f64(i['y'] + 1)).astype(np.float32)])
for d in REAL:
    case(f'add_scalar_{d}', f'graph(%x: {d}[5]):\n  %r = aten::add.Scalar(%x, 3, alpha=2)\n  return %r\n', lambda i: [arith(i['x'], 3, i['x'].dtype.type, lambda a, b: a + 2 * b)])
    case(f'mul_scalar_{d}', f'graph(%x: {d}[5]):\n  %r = aten::mul.Scalar(%x, 3)\n  return %r\n', lambda i: [arith(i['x'], 3, i['x'].dtype.type, lambda a, b: a * b)])
case('mul_scalar_float_on_int', 'graph(%x: i32[4]):\n  %r = aten::mul.Scalar(%x, 0.5)\n  return %r\n', lambda i: [arith(i['x'], 0.5, np.float32, lambda a, b: a * b)])
for d in REAL + ['b8']:
    case(f'where_{d}', f'graph(%c: b8[2, 3], %x: {d}[2, 3], %y: {d}[3]):\n  %r = aten::where.self(%c, %x, %y)\n  return %r\n',
         lambda i: [np.where(i['c'], i['x'], np.broadcast_to(i['y'], (2, 3))).astype(i['x'].dtype)])
for d in REAL:
    case(f'relu_{d}', f'graph(%x: {d}[7]):\n  %r = aten::relu(%x)\n  return %r\n', lambda i: [np.where(i['x'] > 0, i['x'], 0).astype(i['x'].dtype)])
for d in ['f32', 'f64', 'i32']:
    case(f'sigmoid_{d}', f'graph(%x: {d}[6]):\n  %r = aten::sigmoid(%x)\n  return %r\n', lambda i: [(1 / (1 + np.exp(-f64(i['x'])))).astype(unary_res(i['x']))])
    case(f'tanh_{d}', f'graph(%x: {d}[6]):\n  %r = aten::tanh(%x)\n  return %r\n', lambda i: [np.tanh(f64(i['x'])).astype(unary_res(i['x']))])
    case(f'exp_{d}', f'graph(%x: {d}[6]):\n  %r = aten::exp(%x)\n  return %r\n', lambda i: [np.exp(f64(i['x'])).astype(unary_res(i['x']))])
for d in ['f32', 'f64']:
    case(f'gelu_{d}', f'graph(%x: {d}[6]):\n  %r = aten::gelu(%x)\n  return %r\n', lambda i: [(0.5 * f64(i['x']) * (1 + erf(f64(i['x']) / math.sqrt(2)))).astype(i['x'].dtype)])
    case(f'gelu_tanh_{d}', f'graph(%x: {d}[6]):\n  %r = aten::gelu(%x, approximate="tanh")\n  return %r\n',
         lambda i: [(0.5 * f64(i['x']) * (1 + np.tanh(math.sqrt(2 / math.pi) * (f64(i['x']) + 0.044715 * f64(i['x']) ** 3)))).astype(i['x'].dtype)])
    case(f'hardtanh_{d}', f'graph(%x: {d}[8]):\n  %r = aten::hardtanh(%x, -1.5, 2)\n  return %r\n', lambda i: [np.clip(f64(i['x']), -1.5, 2).astype(i['x'].dtype)])
    case(f'softmax_{d}', f'graph(%x: {d}[2, 3, 4]):\n  %r = aten::_softmax(%x, -1, False)\n  %s = aten::_softmax(%x, 1, False)\n  return (%r, %s)\n',
         lambda i: [softmax(i['x'], -1, False).astype(i['x'].dtype), softmax(i['x'], 1, False).astype(i['x'].dtype)])
    case(f'log_softmax_{d}', f'graph(%x: {d}[3, 4]):\n  %r = aten::_log_softmax(%x, 0, False)\n  return %r\n', lambda i: [softmax(i['x'], 0, True).astype(i['x'].dtype)])
    case(f'mm_{d}', f'graph(%a: {d}[3, 4], %b: {d}[4, 2]):\n  %r = aten::mm(%a, %b)\n  return %r\n', lambda i: [(f64(i['a']) @ f64(i['b'])).astype(i['a'].dtype)])
    case(f'bmm_{d}', f'graph(%a: {d}[2, 3, 4], %b: {d}[2, 4, 5]):\n  %r = aten::bmm(%a, %b)\n  return %r\n', lambda i: [(f64(i['a']) @ f64(i['b'])).astype(i['a'].dtype)])
    case(f'addmm_{d}', f'graph(%c: {d}[2], %a: {d}[3, 4], %b: {d}[4, 2]):\n  %r = aten::addmm(%c, %a, %b, beta=0.5, alpha=2)\n  return %r\n',
         lambda i: [(0.5 * f64(i['c']) + 2 * (f64(i['a']) @ f64(i['b']))).astype(i['a'].dtype)])
    case(f'mean_{d}', f'graph(%x: {d}[2, 3, 4]):\n  %r = aten::mean.dim(%x, [-1])\n  %s = aten::mean.dim(%x, [0, 2], True)\n  %t = aten::mean.dim(%x, None)\n  return (%r, %s, %t)\n',
         lambda i: [f64(i['x']).mean(axis=-1).astype(i['x'].dtype), f64(i['x']).mean(axis=(0, 2), keepdims=True).astype(i['x'].dtype), np.array(f64(i['x']).mean()).astype(i['x'].dtype)])
    case(f'conv_{d}', f'graph(%x: {d}[1, 2, 5, 5], %w: {d}[3, 2, 3, 3], %b: {d}[3]):\n  %r = aten::convolution(%x, %w, %b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)\n  return %r\n',
         lambda i: [conv2d(i['x'], i['w'], i['b'], (1, 1), (1, 1), (1, 1), 1)])
    case(f'conv_depthwise_strided_{d}', f'graph(%x: {d}[2, 4, 6, 5], %w: {d}[4, 1, 3, 3]):\n  %r = aten::convolution(%x, %w, None, [2, 1], [1, 0], [1, 2], False, [0, 0], 4)\n  return %r\n',
         lambda i: [conv2d(i['x'], i['w'], None, (2, 1), (1, 0), (1, 2), 4)])
    case(f'batchnorm_{d}', f'graph(%x: {d}[2, 3, 2, 2], %w: {d}[3], %b: {d}[3], %m: {d}[3], %v: {d}[3]):\n  #@ %v positive\n  %o, %s, %t = aten::_native_batch_norm_legit_no_training(%x, %w, %b, %m, %v, 0.1, 1e-05)\n  return (%o, %s, %t)\n',
         lambda i: [((f64(i['x']) - f64(i['m'])[None, :, None, None]) / np.sqrt(f64(i['v'])[None, :, None, None] + 1e-05) * f64(i['w'])[None, :, None, None] + f64(i['b'])[None, :, None, None]).astype(i['x'].dtype),
                    np.zeros((0,), i['x'].dtype), np.zeros((0,), i['x'].dtype)])
    case(f'maxpool_{d}', f'graph(%x: {d}[1, 2, 5, 5]):\n  %o, %i = aten::max_pool2d_with_indices(%x, [3, 3], [2, 2], [1, 1])\n  return (%o, %i)\n',
         lambda i: list(maxpool(i['x'], (3, 3), (2, 2), (1, 1), (1, 1), False)))
    case(f'maxpool_ceil_{d}', f'graph(%x: {d}[2, 4, 4]):\n  %o, %i = aten::max_pool2d_with_indices(%x, [2, 2], [], 0, 1, True)\n  return (%o, %i)\n',
         lambda i: list(maxpool(i['x'], (2, 2), (2, 2), (0, 0), (1, 1), True)))
    case(f'avgpool_{d}', f'graph(%x: {d}[1, 2, 5, 5]):\n  %r = aten::avg_pool2d(%x, [3, 3], [2, 2], [1, 1])\n  %s = aten::avg_pool2d(%x, [3, 3], [2, 2], [1, 1], True, False)\n  %t = aten::avg_pool2d(%x, [2, 2], divisor_override=3)\n  return (%r, %s, %t)\n',
         lambda i: [avgpool(i['x'], (3, 3), (2, 2), (1, 1), False, True, 0), avgpool(i['x'], (3, 3), (2, 2), (1, 1), True, False, 0), avgpool(i['x'], (2, 2), (2, 2), (0, 0), False, True, 3)])
    case(f'embedding_{d}', f'graph(%w: {d}[5, 3], %i: i64[2, 4]):\n  #@ %i mod 5\n  %r = aten::embedding(%w, %i)\n  return %r\n', lambda i: [i['w'][i['i']]])
for d in INTS + ['f32', 'f64']:
    case(f'clamp_{d}', f'graph(%x: {d}[8]):\n  %r = aten::clamp(%x, 0, 4)\n  %s = aten::clamp(%x, None, 2)\n  return (%r, %s)\n',
         lambda i: [np.clip(i['x'].astype(np.int64) if i['x'].dtype.kind != 'f' else f64(i['x']), 0, 4).astype(i['x'].dtype),
                    np.minimum(i['x'].astype(np.int64) if i['x'].dtype.kind != 'f' else f64(i['x']), 2).astype(i['x'].dtype)])
for d in ['b8', 'i32', 'i64', 'f32', 'f64']:
    case(f'sum_{d}', f'graph(%x: {d}[2, 3, 4]):\n  %r = aten::sum.dim_IntList(%x, [1])\n  %s = aten::sum.dim_IntList(%x, [-1, 0], True)\n  return (%r, %s)\n',
         lambda i: [(i['x'].astype(np.int64) if i['x'].dtype.kind != 'f' else f64(i['x'])).sum(axis=1).astype(np.int64 if i['x'].dtype.kind != 'f' else i['x'].dtype),
                    (i['x'].astype(np.int64) if i['x'].dtype.kind != 'f' else f64(i['x'])).sum(axis=(0, 2), keepdims=True).astype(np.int64 if i['x'].dtype.kind != 'f' else i['x'].dtype)])
for d in ['b8'] + REAL + ['f16', 'u16']:
    case(f'permute_{d}', f'graph(%x: {d}[2, 3, 4]):\n  %r = aten::permute_copy(%x, [2, 0, -2])\n  return %r\n', lambda i: [np.ascontiguousarray(i['x'].transpose(2, 0, 1))])
    case(f'view_{d}', f'graph(%x: {d}[2, 3, 4]):\n  %r = aten::view_copy(%x, [4, -1])\n  return %r\n', lambda i: [i['x'].reshape(4, 6)])
    case(f'expand_{d}', f'graph(%x: {d}[3, 1]):\n  %r = aten::expand_copy(%x, [2, -1, 4])\n  return %r\n', lambda i: [np.ascontiguousarray(np.broadcast_to(i['x'], (2, 3, 4)))])
    case(f'clone_{d}', f'graph(%x: {d}[2, 3]):\n  %p = aten::permute_copy(%x, [1, 0])\n  %r = aten::clone(%p)\n  return %r\n', lambda i: [np.ascontiguousarray(i['x'].T)])
    case(f'cat_{d}', f'graph(%x: {d}[2, 3], %y: {d}[2, 1]):\n  %r = aten::cat([%x, %y, %x], -1)\n  %s = aten::cat([%x, %x])\n  return (%r, %s)\n',
         lambda i: [np.concatenate([i['x'], i['y'], i['x']], -1), np.concatenate([i['x'], i['x']], 0)])
case('cat_bad_shape', 'graph(%x: f32[2, 3], %y: f32[3, 1]):\n  %r = aten::cat([%x, %y], 1)\n  return %r\n',
     error='program.graph:2:3: error: aten::cat: tensor 1 has size 3 in dimension 0, expected 2')
case('view_bad_numel', 'graph(%x: f32[2, 3]):\n  %r = aten::view_copy(%x, [4, 2])\n  return %r\n', error='program.graph:2:3: error: aten::view_copy: shape has 8 elements, the input 6')
case('mm_bad_inner', 'graph(%a: f32[2, 3], %b: f32[2, 3]):\n  %r = aten::mm(%a, %b)\n  return %r\n', error='program.graph:2:3: error: aten::mm: cannot multiply 2x3 by 2x3')
case('softmax_bad_dim', 'graph(%x: f32[2, 3]):\n  %r = aten::_softmax(%x, 2, False)\n  return %r\n', error='program.graph:2:3: error: aten::_softmax: dimension 2 is out of range for a 2-d tensor')
case('no_kernel_for_dtype', 'graph(%x: i32[2, 2], %y: i32[2, 2]):\n  %r = aten::mm(%x, %y)\n  return %r\n', error='program.graph:2:3: error: aten::mm: the input has dtype Int, which this kernel does not handle')
# bad inputs: each kernel's checks (shapes, dims, dtypes, arguments), the node named
case('bad_conv_channels', 'graph(%x: f32[1, 3, 5, 5], %w: f32[4, 2, 3, 3]):\n  %r = aten::convolution(%x, %w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)\n  return %r\n',
     error='program.graph:2:3: error: aten::convolution: weight has 2 input channels per group, the input 3')
case('bad_conv_groups', 'graph(%x: f32[1, 4, 5, 5], %w: f32[6, 2, 3, 3]):\n  %r = aten::convolution(%x, %w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 3)\n  return %r\n',
     error='program.graph:2:3: error: aten::convolution: 3 groups do not divide 4 input and 6 output channels')
case('bad_conv_big_strided', 'graph(%x: f32[1, 1, 2, 2], %w: f32[1, 1, 3, 3]):\n  %r = aten::convolution(%x, %w, None, [2, 2], [0, 0], [1, 1], False, [0, 0], 1)\n  return %r\n',
     error='program.graph:2:3: error: aten::convolution: the kernel is larger than the padded input')
case('bad_conv_bias', 'graph(%x: f32[1, 1, 4, 4], %w: f32[2, 1, 3, 3], %b: f32[3]):\n  %r = aten::convolution(%x, %w, %b, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)\n  return %r\n',
     error='program.graph:2:3: error: aten::convolution: bias must have 2 elements')
case('bad_conv_transposed', 'graph(%x: f32[1, 1, 4, 4], %w: f32[1, 1, 3, 3]):\n  %r = aten::convolution(%x, %w, None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1)\n  return %r\n',
     error='program.graph:2:3: error: aten::convolution: transposed convolution is not implemented')
case('bad_bmm_batch', 'graph(%a: f32[2, 3, 4], %b: f32[3, 4, 5]):\n  %r = aten::bmm(%a, %b)\n  return %r\n',
     error='program.graph:2:3: error: aten::bmm: batch sizes differ: 2 and 3')
case('bad_bmm_rank', 'graph(%a: f32[3, 4], %b: f32[4, 5]):\n  %r = aten::bmm(%a, %b)\n  return %r\n',
     error='program.graph:2:3: error: aten::bmm: expected 3-D tensors, got 2-D and 2-D')
case('bad_addmm_bias', 'graph(%c: f32[3], %a: f32[2, 4], %b: f32[4, 5]):\n  %r = aten::addmm(%c, %a, %b)\n  return %r\n',
     error='program.graph:2:3: error: aten::addmm: shapes do not broadcast: size 3 against 5 in dimension 1')
case('bad_batchnorm_c', 'graph(%x: f32[1, 3, 2, 2], %w: f32[4], %b: f32[4], %m: f32[4], %v: f32[4]):\n  %r, %s, %t = aten::_native_batch_norm_legit_no_training(%x, %w, %b, %m, %v, 0.1, 1e-05)\n  return %r\n',
     error='program.graph:2:3: error: aten::_native_batch_norm_legit_no_training: weight must have 3 elements')
case('bad_maxpool_big', 'graph(%x: f32[1, 1, 2, 2]):\n  %r, %i = aten::max_pool2d_with_indices(%x, [3, 3])\n  return %r\n',
     error='program.graph:2:3: error: aten::max_pool2d_with_indices: the output would be empty')
case('bad_maxpool_pad', 'graph(%x: f32[1, 1, 4, 4]):\n  %r, %i = aten::max_pool2d_with_indices(%x, [2, 2], [1, 1], [2, 2])\n  return %r\n',
     error='program.graph:2:3: error: aten::max_pool2d_with_indices: padding must be at most half the kernel size')
case('bad_avgpool_rank', 'graph(%x: f32[4, 4]):\n  %r = aten::avg_pool2d(%x, [2, 2])\n  return %r\n',
     error='program.graph:2:3: error: aten::avg_pool2d: expected a 3-d or 4-d input, got 2-d')
case('bad_avgpool_div0', 'graph(%x: f32[1, 1, 4, 4]):\n  %r = aten::avg_pool2d(%x, [2, 2], divisor_override=0)\n  return %r\n',
     error='program.graph:2:3: error: aten::avg_pool2d: divisor must not be zero')
case('bad_where_bcast', 'graph(%c: b8[3], %x: f32[2], %y: f32[2]):\n  %r = aten::where.self(%c, %x, %y)\n  return %r\n',
     error='program.graph:2:3: error: aten::where.self: shapes do not broadcast: size 3 against 2 in dimension 0')
case('bad_expand_bad', 'graph(%x: f32[2, 3]):\n  %r = aten::expand_copy(%x, [4, 3])\n  return %r\n',
     error='program.graph:2:3: error: aten::expand_copy: cannot expand size 2 to 4 in dimension 0')
case('bad_expand_fewer', 'graph(%x: f32[2, 3]):\n  %r = aten::expand_copy(%x, [3])\n  return %r\n',
     error='program.graph:2:3: error: aten::expand_copy: cannot expand a 2-d tensor to 1 dims')
case('bad_permute_dup', 'graph(%x: f32[2, 3]):\n  %r = aten::permute_copy(%x, [0, 0])\n  return %r\n',
     error='program.graph:2:3: error: aten::permute_copy: dimension 0 appears twice in dims')
case('bad_permute_len', 'graph(%x: f32[2, 3]):\n  %r = aten::permute_copy(%x, [1])\n  return %r\n',
     error='program.graph:2:3: error: aten::permute_copy: 1 dims given for a 2-d tensor')
case('bad_mean_dim', 'graph(%x: f32[2, 3]):\n  %r = aten::mean.dim(%x, [-3])\n  return %r\n',
     error='program.graph:2:3: error: aten::mean.dim: dimension -3 is out of range for a 2-d tensor')
case('bad_mean_int', 'graph(%x: i32[2, 3]):\n  %r = aten::mean.dim(%x, [1])\n  return %r\n',
     error='program.graph:2:3: error: aten::mean.dim: mean needs a floating point result, not Int')
case('bad_sum_dupdim', 'graph(%x: f32[2, 3]):\n  %r = aten::sum.dim_IntList(%x, [1, -1])\n  return %r\n',
     error='program.graph:2:3: error: aten::sum.dim_IntList: dimension 1 appears twice')
case('bad_cat_rank', 'graph(%x: f32[2, 3], %y: f32[3]):\n  %r = aten::cat([%x, %y])\n  return %r\n',
     error='program.graph:2:3: error: aten::cat: tensor 1 has 1 dims, expected 2')
case('bad_cat_dtype', 'graph(%x: f32[2, 3], %y: f64[2, 3]):\n  %r = aten::cat([%x, %y])\n  return %r\n',
     error='program.graph:2:3: error: aten::cat: tensor 1 has dtype Double, tensor 0 Float')
case('bad_cat_empty_list', 'graph(%x: f32[2, 3]):\n  %r = aten::cat([])\n  return %r\n',
     error='program.graph:2:3: error: aten::cat: expected a non-empty list of tensors')
case('bad_embed_idx_dtype', 'graph(%w: f32[3, 2], %i: f32[4]):\n  %r = aten::embedding(%w, %i)\n  return %r\n',
     error='program.graph:2:3: error: aten::embedding: indices must be Int or Long, not Float')
case('bad_embed_rank', 'graph(%w: f32[3], %i: i64[4]):\n  %r = aten::embedding(%w, %i)\n  return %r\n',
     error='program.graph:2:3: error: aten::embedding: weight must be 2-d, got 1-d')
case('bad_deq_channel_scales', 'graph(%q: u8[2, 3], %s: f32[2]):\n  %r = quantized_decomposed::dequantize_per_channel(%q, %s, None, 1, 0, 255, torch.uint8)\n  return %r\n',
     error='program.graph:2:3: error: quantized_decomposed::dequantize_per_channel: scales must have 3 elements')
case('bad_deq_axis', 'graph(%q: u8[2, 3], %s: f32[3]):\n  %r = quantized_decomposed::dequantize_per_channel(%q, %s, None, 2, 0, 255, torch.uint8)\n  return %r\n',
     error='program.graph:2:3: error: quantized_decomposed::dequantize_per_channel: dimension 2 is out of range for a 2-d tensor')
case('bad_deq_dtype_mismatch', 'graph(%q: u8[2, 3]):\n  %r = quantized_decomposed::dequantize_per_tensor(%q, 0.1, 0, 0, 255, torch.int8)\n  return %r\n',
     error='program.graph:2:3: error: quantized_decomposed::dequantize_per_tensor: input has dtype Byte, but dtype says Char')
case('bad_q_range', 'graph(%x: f32[3]):\n  %r = quantized_decomposed::quantize_per_tensor(%x, 0.1, 0, 0, 300, torch.uint8)\n  return %r\n',
     error='program.graph:2:3: error: quantized_decomposed::quantize_per_tensor: [0, 300] is not a valid range for Byte')
case('bad_q_scale', 'graph(%x: f32[3]):\n  %r = quantized_decomposed::quantize_per_tensor(%x, 0.0, 0, 0, 255, torch.uint8)\n  return %r\n',
     error='program.graph:2:3: error: quantized_decomposed::quantize_per_tensor: scale must be positive')
case('bad_softmax_int', 'graph(%x: i32[3]):\n  %r = aten::_softmax(%x, 0, False)\n  return %r\n',
     error='program.graph:2:3: error: aten::_softmax: softmax needs a floating point tensor, not Int')
case('bad_logsoftmax_dim', 'graph(%x: f32[3]):\n  %r = aten::_log_softmax(%x, -2, False)\n  return %r\n',
     error='program.graph:2:3: error: aten::_log_softmax: dimension -2 is out of range for a 1-d tensor')
case('bad_clamp_none', 'graph(%x: f32[3]):\n  %r = aten::clamp(%x)\n  return %r\n',
     error='program.graph:2:3: error: aten::clamp: at least one of min and max must be given')
case('bad_gelu_mode', 'graph(%x: f32[3]):\n  %r = aten::gelu(%x, approximate="fast")\n  return %r\n',
     error="program.graph:2:3: error: aten::gelu: approximate must be 'none' or 'tanh', not 'fast'")
case('bad_mm_rank', 'graph(%a: f32[3], %b: f32[3, 2]):\n  %r = aten::mm(%a, %b)\n  return %r\n',
     error='program.graph:2:3: error: aten::mm: expected 2-D tensors, got 1-D and 2-D')
case('bad_add_alpha_bool', 'graph(%a: f32[3], %b: f32[3]):\n  %r = aten::add.Tensor(%a, %b, alpha=True)\n  return %r\n',
     error='program.graph:2:3: error: aten::add.Tensor: no Edge constraint row allows (self=Float, other=Float, alpha=Bool, __ret_0=Float)')
case('bad_div_bcast', 'graph(%a: f32[3], %b: f32[2]):\n  %r = aten::div.Tensor(%a, %b)\n  return %r\n',
     error='program.graph:2:3: error: aten::div.Tensor: shapes do not broadcast: size 3 against 2 in dimension 0')
case('bad_sub_bool', 'graph(%a: b8[3], %b: b8[3]):\n  %r = aten::sub.Tensor(%a, %b)\n  return %r\n',
     error='program.graph:2:3: error: aten::sub.Tensor: subtraction of Bool tensors is not supported')
case('bad_view_two_infer', 'graph(%x: f32[2, 3]):\n  %r = aten::view_copy(%x, [-1, -1])\n  return %r\n',
     error='program.graph:2:3: error: aten::view_copy: only one dimension can be -1')
case('bad_relu_bool', 'graph(%x: b8[3]):\n  %r = aten::relu(%x)\n  return %r\n',
     error='program.graph:2:3: error: aten::relu: relu is not defined for Bool')
case('bad_tanh_f16', 'graph(%x: f16[3]):\n  %r = aten::tanh(%x)\n  return %r\n',
     error='program.graph:2:3: error: aten::tanh: the result has dtype Half, which this kernel does not handle')
case('bad_hardtanh_int', 'graph(%x: i32[3]):\n  %r = aten::hardtanh(%x)\n  return %r\n',
     error='program.graph:2:3: error: aten::hardtanh: the result has dtype Int, which this kernel does not handle')
case('bad_exp_c64', 'graph(%x: c64[3]):\n  %r = aten::exp(%x)\n  return %r\n',
     error='program.graph:2:3: error: aten::exp: no Edge constraint row allows (self=ComplexFloat, __ret_0=Float)')
case('bad_mul_scalar_bool', 'graph(%x: b8[3]):\n  %r = aten::mul.Scalar(%x, 2)\n  return %r\n',
     error='program.graph:2:3: error: aten::mul.Scalar: no Edge constraint row allows (self=Bool, other=Long, __ret_0=Long)')
case('bad_add_scalar_alpha', 'graph(%x: i32[3]):\n  %r = aten::add.Scalar(%x, 2, 1.5)\n  return %r\n',
     error='program.graph:2:3: error: aten::add.Scalar: for integral input tensors, alpha must not be a floating point number')
case('where_no_edge_row', 'graph(%c: b8[2], %x: f32[2], %y: f64[2]):\n  %r = aten::where.self(%c, %x, %y)\n  return %r\n', error='program.graph:2:3: error: aten::where.self: no Edge constraint row allows (condition=Bool, self=Float, other=Double, __ret_0=Double)')
case('embedding_index_range', 'graph(%w: f32[3, 2], %i: i64[4]):\n  #@ %i mod 5\n  %r = aten::embedding(%w, %i)\n  return %r\n', error='program.graph:3:3: error: aten::embedding: index 3 is out of range for 3 embeddings')


def quantize(x, scale, zp, lo, hi, dt):
    inv = np.float32(1.0) / np.float32(scale)
    return np.clip(np.rint(inv * x.astype(np.float32)).astype(np.int64) + zp, lo, hi).astype(dt)


for d, dt, lo, hi in [('u8', np.uint8, 0, 255), ('i8', np.int8, -128, 127), ('i16', np.int16, -32768, 32767), ('i32', np.int32, -2**31, 2**31 - 1), ('u16', np.uint16, 0, 65535)]:
    tname = {'u8': 'uint8', 'i8': 'int8', 'i16': 'int16', 'i32': 'int32', 'u16': 'uint16'}[d]
    for fd in ['f32', 'f64']:
        case(f'quantize_{fd}_{d}', f'graph(%x: {fd}[10]):\n  %q = quantized_decomposed::quantize_per_tensor(%x, 0.1, 3, {lo}, {hi}, torch.{tname})\n  return %q\n',
             lambda i, lo=lo, hi=hi, dt=dt: [quantize(i['x'], 0.1, 3, lo, hi, dt)])
    case(f'dequantize_{d}', f'graph(%q: {d}[2, 4]):\n  %x = quantized_decomposed::dequantize_per_tensor(%q, 0.05, 2, {lo}, {hi}, torch.{tname})\n  %y = quantized_decomposed::dequantize_per_tensor(%q, 0.05, 2, {lo}, {hi}, torch.{tname}, out_dtype=torch.float64)\n  return (%x, %y)\n',
         lambda i: [((i['q'].astype(np.int64) - 2).astype(np.float32) * np.float32(0.05)), ((i['q'].astype(np.int64) - 2).astype(np.float32) * np.float32(0.05)).astype(np.float64)])
    # axis 1 and -1 (negative dim), Float and Double out, zero points given and None
    case(f'dequantize_channel_{d}', f'graph(%q: {d}[2, 3], %s: f32[3], %z: i64[3]):\n  #@ %s positive\n  #@ %z mod 4\n  %x = quantized_decomposed::dequantize_per_channel(%q, %s, %z, 1, {lo}, {hi}, torch.{tname})\n  %y = quantized_decomposed::dequantize_per_channel(%q, %s, %z, -1, {lo}, {hi}, torch.{tname}, out_dtype=torch.float64)\n  %w = quantized_decomposed::dequantize_per_channel(%q, %s, None, 1, {lo}, {hi}, torch.{tname})\n  return (%x, %y, %w)\n',
         lambda i: [((i['q'].astype(np.int64) - i['z'][None, :]).astype(np.float32) * i['s'][None, :].astype(np.float32)),
                    ((i['q'].astype(np.int64) - i['z'][None, :]).astype(np.float32) * i['s'][None, :].astype(np.float32)).astype(np.float64),
                    (i['q'].astype(np.int64).astype(np.float32) * i['s'][None, :].astype(np.float32))])
case('quantize_clamps', 'graph(%x: f32[10]):\n  %m = aten::mul.Scalar(%x, 100)\n  %q = quantized_decomposed::quantize_per_tensor(%m, 0.5, 128, 0, 255, torch.uint8)\n  return %q\n',
     lambda i: [quantize((f64(i['x']) * 100).astype(np.float32), 0.5, 128, 0, 255, np.uint8)])


def main():
    for entry in os.listdir(HERE):
        if os.path.isdir(os.path.join(HERE, entry)):
            shutil.rmtree(os.path.join(HERE, entry))
    for name, prog, fn, error in CASES:
        d = os.path.join(HERE, name)
        os.makedirs(d)
        with open(os.path.join(d, 'program.graph'), 'w') as f:
            f.write(prog)
        if error:
            with open(os.path.join(d, 'expected.err'), 'w') as f:
                f.write(error + '\n')
            continue
        outs = fn(inputs_of(prog))
        with open(os.path.join(d, 'expected.npys'), 'wb') as f:
            for o in outs:
                np.save(f, np.array(o, order='C', copy=True))
    print(len(CASES), 'cases')


main()
