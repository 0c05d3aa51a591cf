#!/usr/bin/env python3
"""Writes cases.h: cases for every kernel of the cortex_m backend, with expected
values from ExecuTorch's Cortex-M reference semantics re-implemented here in
integer numpy (float32 numpy where the reference computes in float): the
functions of backends/cortex_m/ops/operators.py and passes/passes_utils.py in
pytorch/executorch (commit cff6f4dd32). Each case names the reference function
its rule comes from, with its line in operators.py at that commit. Run by hand (numpy 1.24 made the committed cases.h):
    python3 tests/vendor/cortex_m_test/make_cases.py > tests/vendor/cortex_m_test/cases.h
"""
import numpy as np

rng = np.random.default_rng(20261122)
out = []
ncase = 0


def requantize(x, m, s):  # passes_utils.py:103 requantize_cmsis
    v = x.astype(np.int64) << max(s, 0)
    r = (v * int(m) + (1 << 30)) >> 31
    rs = max(-s, 0)
    if rs:
        mask = (1 << rs) - 1
        rem = r & mask
        r = r >> rs
        thr = np.where(r < 0, (mask >> 1) + 1, mask >> 1)
        r = r + (rem > thr)
    return r.astype(np.int32)


def carr(name, ctype, a):
    a = np.asarray(a).reshape(-1)
    if ctype == 'float':
        body = ', '.join(np.format_float_positional(np.float32(v), unique=True) + 'f' if np.isfinite(v) else ('NAN' if np.isnan(v) else ('INFINITY' if v > 0 else '-INFINITY')) for v in a)
    else:
        body = ', '.join(str(int(v)) for v in a)
    return f'    static const {ctype} {name}[] = {{{body if len(a) else "0"}}};'


CT = {np.int8: ('int8_t', 'OPGEN_DTYPE_Char'), np.int16: ('int16_t', 'OPGEN_DTYPE_Short'), np.int32: ('int32_t', 'OPGEN_DTYPE_Int'), np.float32: ('float', 'OPGEN_DTYPE_Float')}


def tensor(lines, name, a, cl=False):
    ct, dt = CT[a.dtype.type]
    lines.append(carr(name + '_d', ct, a))
    lines.append(f'    static const int64_t {name}_s[] = {{{", ".join(map(str, a.shape)) or "0"}}};')
    lines.append(f'    opgen_tensor {name} = t_of({dt}, {a.ndim}, {name}_s, {name}_d, {"true" if cl else "false"});')


def il(v):
    return f'IL({", ".join(map(str, v))})'


def case(op, ref, tensors, call, expected, cl_out=False):
    global ncase
    ncase += 1
    lines = [f'static void case_{ncase}(void) {{ /* {op}: {ref} */']
    for name, a, cl in tensors:
        tensor(lines, name, a, cl)
    ct, dt = CT[expected.dtype.type]
    lines.append(carr('want', ct, expected))
    lines.append(f'    static const int64_t want_s[] = {{{", ".join(map(str, expected.shape)) or "0"}}};')
    lines.append('    opgen_tensor out = {0};')
    lines.append('    opgen_ctx ctx = new_ctx("cortex_m::' + op + '.out");')
    lines.append(f'    check({ncase}, "{op}", "{ref}", {call}, &out, {dt}, {expected.ndim}, want_s, want);')
    lines.append('}')
    out.append('\n'.join(lines))


def i8(shape, lo=-128, hi=127):
    return rng.integers(lo, hi + 1, size=shape).astype(np.int8)


def conv_ref(x, w_oihw, bias, stride, pad, dil, groups, in_off):  # F.conv2d on int32
    N, C, H, W = x.shape
    O, Cg, KH, KW = w_oihw.shape
    OH = (H + 2 * pad[0] - dil[0] * (KH - 1) - 1) // stride[0] + 1
    OW = (W + 2 * pad[1] - dil[1] * (KW - 1) - 1) // stride[1] + 1
    xp = np.zeros((N, C, H + 2 * pad[0], W + 2 * pad[1]), np.int64)
    xp[:, :, pad[0]:pad[0] + H, pad[1]:pad[1] + W] = x.astype(np.int64) + in_off
    acc = np.zeros((N, O, OH, OW), np.int64) + bias.astype(np.int64)[None, :, None, None]
    per = O // groups
    for o in range(O):
        g = o // per
        for i in range(Cg):
            for kh in range(KH):
                for kw in range(KW):
                    win = xp[:, g * Cg + i, kh * dil[0]:kh * dil[0] + stride[0] * (OH - 1) + 1:stride[0], kw * dil[1]:kw * dil[1] + stride[1] * (OW - 1) + 1:stride[1]]
                    acc[:, o] += win * int(w_oihw[o, i, kh, kw])
    return acc.astype(np.int32)


def per_channel(acc, mult, shift, out_off, amin, amax):
    r = np.stack([requantize(acc[:, c], int(mult[c]), int(shift[c])) for c in range(acc.shape[1])], axis=1).astype(np.int64)
    return np.clip(r + out_off, amin, amax).astype(np.int8)


def mults(n):
    return rng.integers(1 << 29, (1 << 31) - 1, size=n).astype(np.int32), rng.integers(-9, 2, size=n).astype(np.int32)


# quantize / dequantize (quantized_decomposed, float32)
for shape, scale, zp, cl in [((2, 3, 4, 5), 0.05, 3, False), ((1, 3, 3, 4), 0.0173, -7, True), ((7,), 0.5, 0, False)]:
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    x.reshape(-1)[:3] = [1.25, -2.75, 0.0][:x.size]  # halfway cases round to even
    inv = np.float32(1.0 / scale)
    q = np.clip(np.round(x * inv) + np.float32(zp), -128, 127).astype(np.int8)
    case('quantize_per_tensor', 'operators.py:63 quantize_per_tensor_impl -> _decomposed.py quantize_per_tensor', [('x', x, cl)],
         f'cortex_m_quantize_per_tensor_out(&ctx, &x, {scale!r}, {zp}, -128, 127, OPGEN_DTYPE_Char, &out)', q)
    d = ((q.astype(np.float32) - np.float32(zp)) * np.float32(scale)).astype(np.float32)
    case('dequantize_per_tensor', 'operators.py:105 dequantize_per_tensor_impl -> _decomposed.py dequantize_per_tensor', [('q', q, cl)],
         f'cortex_m_dequantize_per_tensor_out(&ctx, &q, {scale!r}, {zp}, -128, 127, OPGEN_DTYPE_Char, &out)', d)

# quantized_add / mul (requantize_cmsis)
for shape, oshape, cl in [((2, 3, 4, 4), (2, 3, 4, 4), False), ((1, 4, 3, 3), (1, 4, 1, 1), False), ((1, 2, 3, 3), (1, 2, 3, 3), True)]:
    a, b = i8(shape), i8(oshape)
    azp, bzp, ozp = -3, 11, 5
    (am,), (ash,) = mults(1); (bm,), (bsh,) = mults(1); (om,), (osh,) = mults(1)
    ash, bsh, osh = -1, 0, -18  # SHIFT_INT8 = 20 scaled inputs need a large right shift out
    af = requantize((a.astype(np.int32) - azp) << 20, int(am), ash)
    bf = requantize((b.astype(np.int32) - bzp) << 20, int(bm), bsh)
    r = np.clip(requantize(af + bf, int(om), osh).astype(np.int64) + ozp, -100, 120).astype(np.int8)
    case('quantized_add', 'operators.py:169 quantized_add_impl', [('a', a, cl), ('b', b, cl and oshape == shape)],
         f'cortex_m_quantized_add_out(&ctx, &a, {azp}, {am}, {ash}, &b, {bzp}, {bm}, {bsh}, {ozp}, {om}, {osh}, -100, 120, &out)', r)
    p = (a.astype(np.int32) - azp) * (b.astype(np.int32) - bzp)
    r = np.clip(requantize(p, int(om), -7).astype(np.int64) + ozp, -128, 127).astype(np.int8)
    case('quantized_mul', 'operators.py:243 quantized_mul_impl', [('a', a, cl), ('b', b, cl and oshape == shape)],
         f'cortex_m_quantized_mul_out(&ctx, &a, {azp}, &b, {bzp}, {ozp}, {om}, -7, &out)', r)

# quantized_div (float32)
for dt in (np.int8, np.int16):
    lo, hi = (-128, 127) if dt == np.int8 else (-32768, 32767)
    a = rng.integers(lo, hi + 1, size=(3, 8)).astype(dt)
    b = rng.integers(lo, hi + 1, size=(3, 8)).astype(dt)
    b.reshape(-1)[:2] = 4  # other - zp == 0: the reference gives 0
    s = 0.37
    af = (a.astype(np.int32) - 2).astype(np.float32)
    bf = (b.astype(np.int32) - 4).astype(np.float32)
    with np.errstate(divide='ignore', invalid='ignore'):
        qt = np.where(bf != 0, af / bf, np.float32(0)).astype(np.float32)
    r = np.clip(np.round(qt * np.float32(s)) + np.float32(-1), lo, hi).astype(dt)
    case('quantized_div', 'operators.py:304 quantized_div_impl', [('a', a, False), ('b', b, False)], f'cortex_m_quantized_div_out(&ctx, &a, 2, &b, 4, -1, {s!r}, &out)', r)

# quantized_activation (lookup table)
x, lut = i8((2, 5, 3)), i8((256,))
case('quantized_activation', 'operators.py:356 quantized_activation_impl', [('x', x, False), ('lut', lut, False)], 'cortex_m_quantized_activation_out(&ctx, &x, &lut, &out)', lut[x.astype(np.int32) + 128])

# minimum / maximum (torch.minimum / torch.maximum, broadcasting)
for a, b in [(i8((2, 3, 4)), i8((2, 3, 4))), (i8((2, 3, 4)), i8((1,)))]:
    case('minimum', 'operators.py:440 minimum_impl', [('a', a, False), ('b', b, False)], 'cortex_m_minimum_out(&ctx, &a, &b, &out)', np.minimum(a, b))
    case('maximum', 'operators.py:467 maximum_impl', [('a', a, False), ('b', b, False)], 'cortex_m_maximum_out(&ctx, &a, &b, &out)', np.maximum(a, b))
a = rng.standard_normal((5,)).astype(np.float32); a[1] = np.nan
b = rng.standard_normal((5,)).astype(np.float32)
case('maximum', 'operators.py:467 maximum_impl (NaN propagates)', [('a', a, False), ('b', b, False)], 'cortex_m_maximum_out(&ctx, &a, &b, &out)', np.maximum(a, b))

# quantized_linear (with bias; with kernel_sum)
x, w = i8((3, 16)), i8((5, 16))
bias = rng.integers(-5000, 5000, size=5).astype(np.int32)
acc = (x.astype(np.int32) + 7) @ (w.astype(np.int32) - 3).T + bias
r = np.clip(requantize(acc, 1518500250, -9).astype(np.int64) - 12, -128, 100).astype(np.int8)
case('quantized_linear', 'operators.py:532 quantized_linear_impl (bias path)', [('x', x, False), ('w', w, False), ('bias', bias, False)],
     'cortex_m_quantized_linear_out(&ctx, &x, &w, &bias, NULL, 7, -3, -12, IL(1518500250), IL(-9), 100, -128, &out)', r)
ksum = rng.integers(-9000, 9000, size=5).astype(np.int32)
acc = x.astype(np.int32) @ w.astype(np.int32).T + x.astype(np.int32).sum(-1, keepdims=True) * 4 + ksum
r = np.clip(requantize(acc, 1518500250, -9).astype(np.int64) + 3, -128, 127).astype(np.int8)
case('quantized_linear', 'operators.py:532 quantized_linear_impl (kernel_sum path)', [('x', x, False), ('w', w, False), ('ksum', ksum, False)],
     'cortex_m_quantized_linear_out(&ctx, &x, &w, NULL, &ksum, 7, 4, 3, IL(1518500250), IL(-9), 127, -128, &out)', r)

# quantized_conv2d (OHWI weights) and quantized_depthwise_conv2d (IHWO weights)
for (N, C, H, W), (O, KH, KW), stride, pad, dil, groups, cl in [((1, 3, 7, 6), (4, 3, 3), (1, 1), (1, 1), (1, 1), 1, True),
                                                               ((2, 4, 9, 8), (6, 2, 3), (2, 1), (0, 1), (1, 2), 2, False)]:
    x, w = i8((N, C, H, W)), i8((O, KH, KW, C // groups))
    bias = rng.integers(-3000, 3000, size=O).astype(np.int32)
    m, s = mults(O)
    acc = conv_ref(x, w.transpose(0, 3, 1, 2), bias, stride, pad, dil, groups, 9)
    r = per_channel(acc, m, s, -6, -128, 110)
    case('quantized_conv2d', 'operators.py:854 quantized_conv2d_impl', [('x', x, cl), ('w', w, False), ('bias', bias, False), ('m', m, False), ('s', s, False), ('scratch', np.zeros(1, np.int8), False)],
         f'cortex_m_quantized_conv2d_out(&ctx, &x, &w, &bias, {il(stride)}, {il(pad)}, {il(dil)}, 9, -6, &m, &s, -128, 110, &scratch, &out)', r)
for (N, C, H, W), mult, (KH, KW), stride, pad, cl, has_bias in [((1, 4, 8, 5), 1, (3, 3), (1, 1), (1, 1), True, True), ((1, 3, 6, 6), 2, (3, 2), (2, 2), (0, 1), False, False)]:
    O = C * mult
    x, w = i8((N, C, H, W)), i8((1, KH, KW, O))
    bias = rng.integers(-3000, 3000, size=O).astype(np.int32) if has_bias else np.zeros(O, np.int32)
    m, s = mults(O)
    acc = conv_ref(x, w.transpose(3, 0, 1, 2), bias, stride, pad, (1, 1), C, 128)
    r = per_channel(acc, m, s, -128, -128, 127)
    case('quantized_depthwise_conv2d', 'operators.py:995 quantized_depthwise_conv2d_impl', [('x', x, cl), ('w', w, False)] + ([('bias', bias, False)] if has_bias else []) + [('m', m, False), ('s', s, False), ('scratch', np.zeros(1, np.int8), False)],
         f'cortex_m_quantized_depthwise_conv2d_out(&ctx, &x, &w, {"&bias" if has_bias else "NULL"}, {il(stride)}, {il(pad)}, IL(1, 1), {mult}, 128, -128, &m, &s, -128, 127, &scratch, &out)', r)

# quantized_transpose_conv2d (OHWI weights, one group; float accumulation of integers is exact here)
x, w = i8((1, 3, 4, 5)), i8((2, 3, 3, 3))
bias = rng.integers(-3000, 3000, size=2).astype(np.int32)
m, s = mults(2)
stride, pad, opad = (2, 2), (1, 0), (1, 0)
N, C, H, W = x.shape
OH, OW = (H - 1) * 2 - 2 + 2 + 1 + 1, (W - 1) * 2 - 0 + 2 + 0 + 1
acc = np.zeros((1, 2, OH, OW), np.int64) + bias[None, :, None, None]
for oc in range(2):
    for ic in range(C):
        for ih in range(H):
            for iw in range(W):
                for kh in range(3):
                    for kw in range(3):
                        oh, ow = ih * 2 - 1 + kh, iw * 2 - 0 + kw
                        if 0 <= oh < OH and 0 <= ow < OW:
                            acc[0, oc, oh, ow] += (int(x[0, ic, ih, iw]) + 5) * int(w[oc, kh, kw, ic])
r = per_channel(acc.astype(np.int32), m, s, 2, -128, 127)
case('quantized_transpose_conv2d', 'operators.py:1197 quantized_transpose_conv2d_impl', [('x', x, True), ('w', w, False), ('bias', bias, False), ('m', m, False), ('s', s, False), ('scratch', np.zeros(1, np.int8), False)],
     'cortex_m_quantized_transpose_conv2d_out(&ctx, &x, &w, &bias, IL(2, 2), IL(1, 0), IL(1, 0), IL(1, 1), 5, 2, &m, &s, -128, 127, &scratch, &scratch, &out)', r)

# quantized_avg_pool2d (float32 through dequantize/quantize_per_tensor_cmsis; count_include_pad=False)
for (N, C, H, W), k, st, pd, ceil, cl in [((1, 3, 6, 5), (2, 2), (2, 2), (0, 0), False, True), ((1, 2, 7, 7), (3, 3), (2, 2), (1, 1), True, False), ((1, 4, 5, 3), (5, 3), (1, 1), (0, 0), False, True)]:
    x = i8((N, C, H, W))
    zp, mlt, sh = -4, 1395864371, -5
    scale = np.float32(mlt * (2.0 ** sh) / (1 << 31))
    d = (x.astype(np.float32) - np.float32(zp)) * scale

    def osz(i, kk, ss, pp):
        num = i + 2 * pp - kk
        o = num // ss + 1
        if ceil and num % ss:
            o += 1
        if ceil and (o - 1) * ss >= i + pp:
            o -= 1
        return o
    OH, OW = osz(H, k[0], st[0], pd[0]), osz(W, k[1], st[1], pd[1])
    res = np.zeros((N, C, OH, OW), np.float32)
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * st[0] - pd[0], ow * st[1] - pd[1]
            h1, w1 = min(h0 + k[0], H), min(w0 + k[1], W)
            h0, w0 = max(h0, 0), max(w0, 0)
            acc = np.zeros((N, C), np.float32)
            for ih in range(h0, h1):
                for iw in range(w0, w1):
                    acc = (acc + d[:, :, ih, iw]).astype(np.float32)
            res[:, :, oh, ow] = acc / np.float32((h1 - h0) * (w1 - w0))
    q = np.clip(np.round(res / scale) + np.float32(zp), -128, 127).astype(np.int8)
    case('quantized_avg_pool2d', 'operators.py:1337 quantized_avg_pool2d_impl', [('x', x, cl), ('scratch', np.zeros(1, np.int8), False)],
         f'cortex_m_quantized_avg_pool2d_out(&ctx, &x, {il(k)}, {il(st)}, {il(pd)}, {"true" if ceil else "false"}, {zp}, {mlt}, {sh}, &scratch, &out)', q)

# quantized_max_pool2d
for (N, C, H, W), k, st, pd, cl in [((1, 3, 6, 6), (2, 2), (2, 2), (0, 0), True), ((2, 2, 7, 5), (3, 3), (2, 1), (1, 1), False)]:
    x = i8((N, C, H, W))
    OH, OW = (H + 2 * pd[0] - k[0]) // st[0] + 1, (W + 2 * pd[1] - k[1]) // st[1] + 1
    res = np.zeros((N, C, OH, OW), np.int64)
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * st[0] - pd[0], ow * st[1] - pd[1]
            res[:, :, oh, ow] = x[:, :, max(h0, 0):min(h0 + k[0], H), max(w0, 0):min(w0 + k[1], W)].max(axis=(2, 3))
    case('quantized_max_pool2d', 'operators.py:1468 quantized_max_pool2d_impl', [('x', x, cl)],
         f'cortex_m_quantized_max_pool2d_out(&ctx, &x, {il(k)}, {il(st)}, {il(pd)}, IL(1, 1), false, 3, 3, -90, 100, &out)', np.clip(res, -90, 100).astype(np.int8))

# quantized_batch_matmul
a, b = i8((2, 3, 7)), i8((2, 4, 7))
acc = np.einsum('bik,bjk->bij', a.astype(np.int64) + 6, b.astype(np.int64) - 2)
r = np.clip(requantize(acc.astype(np.int32), 1200000000, -8).astype(np.int64) + 9, -128, 127).astype(np.int8)
case('quantized_batch_matmul', 'operators.py:399 quantized_batch_matmul_impl', [('a', a, False), ('b', b, False), ('scratch', np.zeros(1, np.int8), False)],
     'cortex_m_quantized_batch_matmul_out(&ctx, &a, 6, &b, -2, 9, 1200000000, -8, &scratch, &out)', r)

# softmax (float32 softmax of the dequantized input, quantized with scale 1/256, zero point -128)
for shape, dim in [((2, 10), 1), ((3, 4, 5), 1)]:
    x = i8(shape)
    mlt, sh = 1717986918, 2
    scale = np.float32(np.ldexp(mlt / float(1 << 31), sh) / float(1 << 26))
    f = (x.astype(np.int32) - 3).astype(np.float32) * scale
    e = np.exp((f - f.max(axis=dim, keepdims=True)).astype(np.float32)).astype(np.float32)
    p = (e * (np.float32(1) / e.sum(axis=dim, keepdims=True, dtype=np.float32))).astype(np.float32)
    q = np.clip(np.round(p * np.float32(256)) - 128, -128, 127).astype(np.int8)
    case('softmax', 'operators.py:613 softmax_impl', [('x', x, False)], f'cortex_m_softmax_out(&ctx, &x, {dim}, 3, -128, {mlt}, {sh}, 0, &out)', q)

# transpose
x = i8((2, 3, 4))
case('transpose', 'operators.py:660 transpose_impl', [('x', x, False)], 'cortex_m_transpose_out(&ctx, &x, IL(2, 0, 1), &out)', np.ascontiguousarray(x.transpose(2, 0, 1)))

# pad (physical order: N, H, W, C for a channels-last input)
x = i8((1, 3, 4, 2))
pre, post = [0, 1, 2, 0], [0, 2, 0, 1]  # channels-last: N, H, W, C
want = np.pad(x, [(0, 0), (0, 1), (1, 2), (2, 0)], constant_values=-128)
case('pad', 'operators.py:706 pad_impl (channels-last: _pad_to_logical_order)', [('x', x, True)], f'cortex_m_pad_out(&ctx, &x, {il(pre)}, {il(post)}, -128, &out)', want)
x = i8((2, 3, 4))
want = np.pad(x, [(1, 0), (0, 2), (3, 1)], constant_values=7)
case('pad', 'operators.py:706 pad_impl (3-d: the last three of four)', [('x', x, False)], 'cortex_m_pad_out(&ctx, &x, IL(0, 1, 0, 3), IL(0, 0, 2, 1), 7, &out)', want)

print('/* Generated by make_cases.py (numpy %s): the cortex_m kernels\' cases with the\n * reference semantics\' results. Do not edit; re-run the script. */' % np.__version__)
print('\n\n'.join(out))
print('\nstatic void (*const cases[])(void) = {%s};' % ', '.join(f'case_{i}' for i in range(1, ncase + 1)))

# a graph program calling the vendor's op (graph/vendor_op.graph): inputs and the
# reference result as .npy
import os
gdir = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'graph')
a, b = i8((2, 3, 4)), i8((2, 3, 4))
np.save(os.path.join(gdir, 'a.npy'), a)
np.save(os.path.join(gdir, 'b.npy'), b)
p = (a.astype(np.int32) + 3) * (b.astype(np.int32) - 11)
np.save(os.path.join(gdir, 'expected.npy'), np.clip(requantize(p, 1518500250, -7).astype(np.int64) + 5, -128, 127).astype(np.int8))
