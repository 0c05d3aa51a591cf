"""Writes the kernel test cases in this folder, from PyTorch itself: per case,
program.graph, its inputs (inputs.npys: the inputs' .npy images one after
another, in the program's order), the values PyTorch's CPU kernels return for
them (expected.npys), the tolerance the comparison uses (tolerance), and for
transcendental ops the float64 values (reference.npys); or expected.err, the
exact error opgen must give.

Run by hand, once, with Debian's python3-torch (1.13.1) and python3-numpy (1.24);
NOT used by the build or the tests, which only read what it wrote:
    cd tests/kernels && /usr/bin/python3 make_cases.py
The quantize/dequantize ops are not in PyTorch 1.13: those expected values are
ExecuTorch's arithmetic written in NumPy below.
Cases added since (their comments say so) were written with PyTorch 2.14.1 in
the exporter root of ../shared/reference/exporting-programs.md, by name:
    chroot ROOT sh -c 'cd /work/main/tests/kernels && python3 make_cases.py NAME_PREFIX...'

Tolerances (tests/test_kernels.c applies them):
  exact   integer, Bool and copied values bit for bit; float add, sub, mul, div,
          clamp, relu, where, max pooling, batch norm's and the copies' results bit
          for bit (NaN equals NaN, -0.0 differs from 0.0);
  exact zeros  the same, but a zero's sign is not compared: maximum of 0.0 and
          -0.0, where ATen's own vectorised loop returns the second operand and
          its scalar tail the first (opgen returns the second, as most elements
          in ATen get);
  ulp N   transcendental ops (exp, tanh, sigmoid, gelu): within N ulp of PyTorch,
          or closer to the float64 value than PyTorch is (PyTorch's vectorised
          exp and erf are 1-ulp approximations; opgen uses the C library's);
  rel R   sums, means, softmax, matrix products and convolution, whose order of
          summation differs from ATen's (its blocked, vectorised loops):
          |opgen - PyTorch| <= R * (|PyTorch| + max |PyTorch| over the result),
          R = 1e-5 for float32 (k terms in another order differ by about
          k * 2^-24 of the largest partial sum: 1e-5 covers k <= ~100 well-scaled
          terms and the cancellation in these cases) and 1e-12 for float64.
"""
import math, os, shutil, sys
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH = {'b8': torch.bool, 'u8': torch.uint8, 'i8': torch.int8, 'i16': torch.int16, 'i32': torch.int32, 'i64': torch.int64,
         'f16': torch.float16, 'bf16': torch.bfloat16, 'f32': torch.float32, 'f64': torch.float64}
NUMPY = {'b8': np.bool_, 'u8': np.uint8, 'i8': np.int8, 'i16': np.int16, 'i32': np.int32, 'i64': np.int64, 'f16': np.float16,
         'f32': np.float32, 'f64': np.float64, 'u16': np.uint16}
INTS = ['u8', 'i8', 'i16', 'i32', 'i64']
REAL = INTS + ['f32', 'f64']
FLOATS = ['f32', 'f64']
CASES = []


def rng_for(name):
    return np.random.default_rng(sum(ord(c) * (i + 1) for i, c in enumerate(name)))


def values(rng, d, shape, kind='normal'):
    """Inputs as numpy arrays (bf16 as float32 values exact in bfloat16)."""
    n = int(np.prod(shape)) if shape else 1
    if kind.startswith('list '):
        v = [float(t) for t in kind[5:].split(',')]
    elif kind.startswith('index'):
        v = rng.integers(0, int(kind.split()[1]), n)
    elif kind == 'distinct':  # no ties: orders are unique
        v = rng.permutation(n) - n // 3
        if d in ('f16', 'bf16', 'f32', 'f64'):
            v = v * 0.75
        elif d == 'u8':
            v = rng.permutation(n) % 256
    elif kind.startswith('mod'):
        v = rng.integers(0, int(kind.split()[1]), n)
    elif kind == 'nonzero' and d not in ('f16', 'bf16', 'f32', 'f64'):
        v = rng.integers(1, 7, n) * (1 if d == 'u8' else rng.choice([-1, 1], n))
    elif d == 'b8':
        v = rng.integers(0, 2, n).astype(bool)
    elif d in ('f16', 'bf16', 'f32', 'f64'):
        if kind == 'special':
            base = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1.5, -2.25, 1e-40 if d != 'f16' else 1e-6, 3.0e38 if d in ('f32', 'bf16') else 6e4, -0.5, 7.0, -3.75]
            v = np.array([base[i % len(base)] for i in range(n)])
        elif kind == 'positive':
            v = rng.uniform(0.25, 4.0, n)
        elif kind == 'nonzero':
            v = rng.uniform(0.5, 4, n) * rng.choice([-1, 1], n)
            v = np.round(v, 3 if d in ('f32', 'f64') else 2)
        elif kind == 'unit':
            v = rng.uniform(-0.999, 0.999, n)
        elif kind == 'above1':
            v = rng.uniform(1.0, 6.0, n)
        else:
            v = np.round(rng.uniform(-4, 4, n), 3 if d in ('f32', 'f64') else 2)
        if d == 'bf16':  # values a bfloat16 holds exactly
            v = torch.tensor(v, dtype=torch.float32).to(torch.bfloat16).to(torch.float32).numpy()
    elif d == 'u16':
        v = rng.integers(0, 65536, n)
    else:
        info = np.iinfo(NUMPY[d])
        if kind == 'wrap':  # near the limits: sums and products wrap
            v = np.array([info.max, info.min, info.max - 1, info.min + 1, info.max // 2 + 3, -1 if info.min < 0 else 1, 2, info.max][:n] * (n // 8 + 1))[:n]
        else:
            lo, hi = (0, 12) if d == 'u8' else (-6, 7)
            v = rng.integers(lo, hi, n)
    dt = np.float32 if d == 'bf16' else NUMPY[d]
    return np.array(v).astype(dt).reshape(shape)


def tt(a, d):
    return torch.tensor(a).to(TORCH[d]) if d != 'u16' else a


def npy_of(t):
    """A result as numpy; bfloat16 as its uint16 bits (NumPy has no bfloat16)."""
    if isinstance(t, np.ndarray):
        return t
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.detach().numpy()


def ty(d, shape):
    return f'{d}[{", ".join(str(s) for s in shape)}]'


def case(name, decls, body, ret, inputs=None, fn=None, tol='exact', ref=None, error=None):
    """decls: [(name, dtype, shape, kind)]; body: graph lines; fn(torch inputs) -> results."""
    head = ', '.join(f'%{n}: {ty(d, s)}' for n, d, s, _ in decls)
    prog = f'graph({head}):\n' + ''.join(f'  {l}\n' for l in body) + f'  return {ret}\n'
    rng = rng_for(name)
    ins = [values(rng, d, s, k) for _, d, s, k in decls]
    CASES.append((name, prog, decls, ins, fn, tol, ref, error))


def write(name, prog, decls, ins, fn, tol, ref, error):
    d = os.path.join(HERE, name)
    os.makedirs(d)
    with open(os.path.join(d, 'program.graph'), 'w') as f:
        f.write(prog)
    if error:
        with open(os.path.join(d, 'expected.err'), 'w') as f:
            f.write(error + '\n')
        return
    with open(os.path.join(d, 'inputs.npys'), 'wb') as f:
        for (n, dt, s, k), a in zip(decls, ins):
            if dt == 'bf16':
                a = npy_of(torch.tensor(a).to(torch.bfloat16))
            np.save(f, np.require(a, requirements='C'))
    targs = [tt(a, dt) for (n, dt, s, k), a in zip(decls, ins)]
    outs = fn(*targs)
    if not isinstance(outs, (list, tuple)):
        outs = [outs]
    with open(os.path.join(d, 'expected.npys'), 'wb') as f:
        for o in outs:
            np.save(f, np.require(npy_of(o), requirements='C'))
    if ref:
        rs = ref(*[torch.tensor(a).to(torch.float64) if dt != 'u16' else a for (n, dt, s, k), a in zip(decls, ins)])
        with open(os.path.join(d, 'reference.npys'), 'wb') as f:
            for r in (rs if isinstance(rs, (list, tuple)) else [rs]):
                np.save(f, np.require(npy_of(r).astype(np.float64), requirements='C'))
    with open(os.path.join(d, 'tolerance'), 'w') as f:
        f.write(tol + '\n')


A = torch.ops.aten
REL = {'f32': 'rel 1e-5', 'f64': 'rel 1e-12'}

# ---- binary arithmetic: every dtype its Edge rows allow, broadcast, specials, wrap ----
for op, alpha in [('add', True), ('sub', True), ('mul', False), ('div', False)]:
    dts = FLOATS if op == 'div' else REAL + (['b8'] if op == 'mul' else [])
    for d in dts:
        al = ', alpha=2' if alpha else ''
        f = getattr(A, op).Tensor
        kw = {'alpha': 2} if alpha else {}
        case(f'{op}_{d}', [('x', d, (2, 3), 'normal'), ('y', d, (3,), 'normal')], [f'%r = aten::{op}.Tensor(%x, %y{al})'], '%r', fn=lambda x, y, f=f, kw=kw: f(x, y, **kw))
        if d in FLOATS:
            case(f'{op}_special_{d}', [('x', d, (12,), 'special'), ('y', d, (12, 1), 'special')], [f'%r = aten::{op}.Tensor(%x, %y)'], '%r', fn=lambda x, y, f=f: f(x, y))
        if d in INTS and op != 'div':
            case(f'{op}_wrap_{d}', [('x', d, (8,), 'wrap'), ('y', d, (8,), 'wrap')], [f'%r = aten::{op}.Tensor(%x, %y{al})'], '%r', fn=lambda x, y, f=f, kw=kw: f(x, y, **kw))
for d in FLOATS:  # alpha other than 1 or 2: ATen fuses a + alpha * b (one rounding)
    case(f'add_alpha_fused_{d}', [('x', d, (32,), 'normal'), ('y', d, (32,), 'normal')], ['%r = aten::add.Tensor(%x, %y, alpha=1.3)', '%s = aten::sub.Tensor(%x, %y, alpha=0.7)'], '(%r, %s)',
         fn=lambda x, y: [A.add.Tensor(x, y, alpha=1.3), A.sub.Tensor(x, y, alpha=0.7)])
promotions = [('u8', 'i8'), ('i32', 'f32'), ('i64', 'f64'), ('u8', 'i64'), ('f32', 'f64'), ('i16', 'f32')]
for a, b in promotions:
    case(f'add_promote_{a}_{b}', [('x', a, (4,), 'normal'), ('y', b, (4,), 'normal')], ['%r = aten::add.Tensor(%x, %y)', '%s = aten::mul.Tensor(%y, %x)'], '(%r, %s)',
         fn=lambda x, y: [A.add.Tensor(x, y), A.mul.Tensor(y, x)])
case('add_zero_dim_both', [('x', 'f32', (), 'normal'), ('y', 'f32', (), 'normal')], ['%r = aten::add.Tensor(%x, %y)'], '%r', fn=lambda x, y: A.add.Tensor(x, y))
case('add_broadcast_both', [('x', 'f32', (3, 1), 'normal'), ('y', 'f32', (1, 4), 'normal')], ['%r = aten::add.Tensor(%x, %y)'], '%r', fn=lambda x, y: A.add.Tensor(x, y))
case('add_broadcast_4d', [('x', 'f32', (2, 3, 4, 5), 'normal'), ('y', 'f32', (3, 1, 5), 'normal')], ['%r = aten::add.Tensor(%x, %y)'], '%r', fn=lambda x, y: A.add.Tensor(x, y))
case('add_long_runs', [('x', 'f32', (3, 1000), 'normal'), ('y', 'f32', (1000,), 'normal')], ['%r = aten::add.Tensor(%x, %y)'], '%r', fn=lambda x, y: A.add.Tensor(x, y))
case('add_empty', [('x', 'f32', (0, 3), 'normal'), ('y', 'f32', (3,), 'normal')], ['%r = aten::add.Tensor(%x, %y)'], '%r', fn=lambda x, y: A.add.Tensor(x, y))
case('div_int_true', [('x', 'i64', (6,), 'normal'), ('y', 'i64', (6,), 'mod 3')], ['%s = aten::add.Scalar(%y, 1)', '%r = aten::div.Tensor(%x, %s)'], '%r',
     fn=lambda x, y: A.div.Tensor(x, A.add.Scalar(y, 1)))
case('div_int32_in_float32', [('x', 'i32', (3,), 'normal'), ('y', 'i32', (3,), 'mod 3')], ['%z = aten::add.Scalar(%x, -316362000)', '%s = aten::add.Scalar(%y, 7)', '%r = aten::div.Tensor(%z, %s)'], '%r',
     fn=lambda x, y: A.div.Tensor(A.add.Scalar(x, -316362000), A.add.Scalar(y, 7)))
for d in REAL:
    case(f'add_scalar_{d}', [('x', d, (5,), 'normal')], ['%r = aten::add.Scalar(%x, 3, alpha=2)'], '%r', fn=lambda x: A.add.Scalar(x, 3, alpha=2))
    case(f'mul_scalar_{d}', [('x', d, (5,), 'normal')], ['%r = aten::mul.Scalar(%x, 3)'], '%r', fn=lambda x: A.mul.Scalar(x, 3))
case('mul_scalar_float_on_int', [('x', 'i32', (4,), 'normal')], ['%r = aten::mul.Scalar(%x, 0.5)'], '%r', fn=lambda x: A.mul.Scalar(x, 0.5))
case('add_scalar_float_on_float', [('x', 'f32', (4,), 'special')], ['%r = aten::add.Scalar(%x, 0.1)'], '%r', fn=lambda x: A.add.Scalar(x, 0.1))
for d in REAL + ['b8']:  # maximum: NaN wins, Bool is or
    case(f'maximum_{d}', [('x', d, (2, 3), 'normal'), ('y', d, (3,), 'normal')], ['%r = aten::maximum(%x, %y)'], '%r', fn=lambda x, y: A.maximum(x, y))
for d in FLOATS:
    case(f'maximum_special_{d}', [('x', d, (12,), 'special'), ('y', d, (12, 1), 'special')], ['%r = aten::maximum(%x, %y)'], '%r', fn=lambda x, y: A.maximum(x, y),
         tol='exact zeros')
case('maximum_promote_i32_f32', [('x', 'i32', (4,), 'normal'), ('y', 'f32', (2, 1), 'normal')], ['%r = aten::maximum(%x, %y)'], '%r', fn=lambda x, y: A.maximum(x, y))
# ---- comparisons: Bool results, operands in their promoted type ----
for op in ['eq', 'ne', 'lt', 'le', 'gt', 'ge']:
    for d in REAL + ['b8']:
        case(f'{op}_{d}', [('x', d, (2, 3), 'normal'), ('y', d, (3,), 'normal')], [f'%r = aten::{op}.Tensor(%x, %y)', f'%s = aten::{op}.Scalar(%x, 1)'], '(%r, %s)',
             fn=lambda x, y, op=op: [getattr(A, op).Tensor(x, y), getattr(A, op).Scalar(x, 1)])
    for d in FLOATS:
        case(f'{op}_special_{d}', [('x', d, (12,), 'special'), ('y', d, (12, 1), 'special')], [f'%r = aten::{op}.Tensor(%x, %y)', f'%s = aten::{op}.Scalar(%x, 1.5)'], '(%r, %s)',
             fn=lambda x, y, op=op: [getattr(A, op).Tensor(x, y), getattr(A, op).Scalar(x, 1.5)])
case('gt_promote_i32_f32', [('x', 'i32', (4,), 'normal'), ('y', 'f32', (2, 1), 'normal')], ['%r = aten::gt.Tensor(%x, %y)', '%s = aten::gt.Scalar(%x, 0.5)'], '(%r, %s)',
     fn=lambda x, y: [A.gt.Tensor(x, y), A.gt.Scalar(x, 0.5)])
case('lt_scalar_wraps_u8', [('x', 'u8', (6,), 'normal')], ['%r = aten::lt.Scalar(%x, -1)'], '%r', fn=lambda x: A.lt.Scalar(x, -1))
case('eq_zero_dim', [('x', 'f32', (), 'normal'), ('y', 'f32', (3,), 'normal')], ['%r = aten::eq.Tensor(%x, %y)'], '%r', fn=lambda x, y: A.eq.Tensor(x, y))
for d in REAL + ['b8']:
    case(f'where_{d}', [('c', 'b8', (2, 3), 'normal'), ('x', d, (2, 3), 'normal'), ('y', d, (3,), 'normal')], ['%r = aten::where.self(%c, %x, %y)'], '%r',
         fn=lambda c, x, y: A.where.self(c, x, y))

# ---- unary ----
for d in REAL:
    case(f'abs_{d}', [('x', d, (7,), 'normal')], ['%r = aten::abs(%x)'], '%r', fn=lambda x: A.abs(x))
for d in INTS[1:]:
    case(f'abs_wrap_{d}', [('x', d, (8,), 'wrap')], ['%r = aten::abs(%x)'], '%r', fn=lambda x: A.abs(x))
for d in FLOATS:
    case(f'abs_special_{d}', [('x', d, (12,), 'special')], ['%r = aten::abs(%x)'], '%r', fn=lambda x: A.abs(x))
for d in REAL:
    case(f'relu_{d}', [('x', d, (7,), 'normal')], ['%r = aten::relu(%x)'], '%r', fn=lambda x: A.relu(x))
for d in FLOATS:
    case(f'relu_special_{d}', [('x', d, (12,), 'special')], ['%r = aten::relu(%x)'], '%r', fn=lambda x: A.relu(x))
for op in ['sigmoid', 'tanh', 'exp']:
    f = getattr(A, op)
    for d in FLOATS + ['i32', 'u8']:
        case(f'{op}_{d}', [('x', d, (2, 50), 'normal')], [f'%r = aten::{op}(%x)'], '%r', fn=lambda x, f=f: f(x), tol='ulp 2', ref=lambda x, f=f: f(x))
    case(f'{op}_special_f32', [('x', 'f32', (12,), 'special')], [f'%r = aten::{op}(%x)'], '%r', fn=lambda x, f=f: f(x), tol='ulp 2', ref=lambda x, f=f: f(x))
for d in FLOATS:
    for appr in ['none', 'tanh']:
        arg = '' if appr == 'none' else ', approximate="tanh"'
        case(f'gelu_{appr}_{d}', [('x', d, (3, 40), 'normal')], [f'%r = aten::gelu(%x{arg})'], '%r', fn=lambda x, a=appr: A.gelu(x, approximate=a), tol='ulp 2',
             ref=lambda x, a=appr: A.gelu(x, approximate=a))
    case(f'hardtanh_{d}', [('x', d, (12,), 'special')], ['%r = aten::hardtanh(%x, -1.5, 2)'], '%r', fn=lambda x: A.hardtanh(x, -1.5, 2))
for d in INTS + FLOATS:
    case(f'clamp_{d}', [('x', d, (8,), 'normal')], ['%r = aten::clamp(%x, 0, 4)', '%s = aten::clamp(%x, None, 2)', '%t = aten::clamp(%x, 3, 1)'], '(%r, %s, %t)',
         fn=lambda x: [A.clamp(x, 0, 4), A.clamp(x, None, 2), A.clamp(x, 3, 1)])
case('clamp_special_f32', [('x', 'f32', (12,), 'special')], ['%r = aten::clamp(%x, -1, 1.5)'], '%r', fn=lambda x: A.clamp(x, -1, 1.5))
# long enough for opgen's vectorised float clamp (16 at a time, then a tail), each
# bound alone, both, and crossed (PyTorch 2.14.1, in the exporter root)
case('clamp_special_long_f32', [('x', 'f32', (2, 37), 'special')],
     ['%r = aten::hardtanh(%x, -1.5, 2)', '%s = aten::clamp(%x, None, 2)', '%t = aten::clamp(%x, -1, None)', '%u = aten::clamp(%x, 3, 1)'],
     '(%r, %s, %t, %u)', fn=lambda x: [A.hardtanh(x, -1.5, 2), A.clamp(x, None, 2), A.clamp(x, -1, None), A.clamp(x, 3, 1)])

# ---- softmax, reductions ----
for d in FLOATS:
    case(f'softmax_{d}', [('x', d, (2, 3, 40), 'normal')], ['%r = aten::_softmax(%x, -1, False)', '%s = aten::_softmax(%x, 1, False)', '%t = aten::_softmax(%x, 0, False)'], '(%r, %s, %t)',
         fn=lambda x: [A._softmax(x, -1, False), A._softmax(x, 1, False), A._softmax(x, 0, False)], tol=REL[d])
    case(f'log_softmax_{d}', [('x', d, (3, 40), 'normal')], ['%r = aten::_log_softmax(%x, 0, False)', '%s = aten::_log_softmax(%x, -1, False)'], '(%r, %s)',
         fn=lambda x: [A._log_softmax(x, 0, False), A._log_softmax(x, -1, False)], tol=REL[d])
    case(f'softmax_special_{d}', [('x', d, (3, 4), 'special')], ['%r = aten::_softmax(%x, 1, False)'], '%r', fn=lambda x: A._softmax(x, 1, False), tol=REL[d])
    case(f'mean_{d}', [('x', d, (2, 3, 300), 'normal')], ['%r = aten::mean.dim(%x, [-1])', '%s = aten::mean.dim(%x, [0, 2], True)', '%t = aten::mean.dim(%x, None)', '%u = aten::mean.dim(%x, [1])'],
         '(%r, %s, %t, %u)', fn=lambda x: [A.mean.dim(x, [-1]), A.mean.dim(x, [0, 2], True), A.mean.dim(x, None), A.mean.dim(x, [1])], tol=REL[d])
    case(f'mean_empty_{d}', [('x', d, (2, 0), 'normal')], ['%r = aten::mean.dim(%x, [1])'], '%r', fn=lambda x: A.mean.dim(x, [1]))
for d in ['b8'] + INTS + FLOATS:
    tol = REL[d] if d in FLOATS else 'exact'
    case(f'sum_{d}', [('x', d, (2, 3, 50), 'normal')], ['%r = aten::sum.dim_IntList(%x, [1])', '%s = aten::sum.dim_IntList(%x, [-1, 0], True)', '%t = aten::sum.dim_IntList(%x, None)'], '(%r, %s, %t)',
         fn=lambda x: [A.sum.dim_IntList(x, [1]), A.sum.dim_IntList(x, [-1, 0], True), A.sum.dim_IntList(x, None)], tol=tol)
case('sum_wrap_i64', [('x', 'i64', (8,), 'wrap')], ['%r = aten::sum.dim_IntList(%x, [0])'], '%r', fn=lambda x: A.sum.dim_IntList(x, [0]))
case('sum_long_row', [('x', 'f32', (3, 5000), 'normal')], ['%r = aten::sum.dim_IntList(%x, [1])'], '%r', fn=lambda x: A.sum.dim_IntList(x, [1]), tol='rel 1e-5')
case('sum_empty', [('x', 'f32', (0, 4), 'normal')], ['%r = aten::sum.dim_IntList(%x, [0])'], '%r', fn=lambda x: A.sum.dim_IntList(x, [0]))
case('sum_zero_dim', [('x', 'f32', (), 'normal')], ['%r = aten::sum.dim_IntList(%x, None)'], '%r', fn=lambda x: A.sum.dim_IntList(x, None))

# ---- matrix products, convolution ----
for d in FLOATS:
    t = REL[d]
    case(f'mm_{d}', [('a', d, (3, 4), 'normal'), ('b', d, (4, 2), 'normal')], ['%r = aten::mm(%a, %b)'], '%r', fn=lambda a, b: A.mm(a, b), tol=t)
    case(f'mm_edges_{d}', [('a', d, (37, 41), 'normal'), ('b', d, (41, 29), 'normal')], ['%r = aten::mm(%a, %b)'], '%r', fn=lambda a, b: A.mm(a, b), tol=t)
    case(f'mm_deep_{d}', [('a', d, (9, 700), 'normal'), ('b', d, (700, 35), 'normal')], ['%r = aten::mm(%a, %b)'], '%r', fn=lambda a, b: A.mm(a, b), tol=t)
    case(f'mm_k0_{d}', [('a', d, (3, 0), 'normal'), ('b', d, (0, 2), 'normal')], ['%r = aten::mm(%a, %b)'], '%r', fn=lambda a, b: A.mm(a, b))
    case(f'bmm_{d}', [('a', d, (3, 5, 4), 'normal'), ('b', d, (3, 4, 6), 'normal')], ['%r = aten::bmm(%a, %b)'], '%r', fn=lambda a, b: A.bmm(a, b), tol=t)
    # batches the threads split by whole products (linalg.c batch_parts): a decode step's heads, one row each; and more batches than threads
    case(f'bmm_heads_{d}', [('a', d, (6, 1, 16), 'normal'), ('b', d, (6, 16, 40), 'normal')], ['%r = aten::bmm(%a, %b)'], '%r', fn=lambda a, b: A.bmm(a, b), tol=t)
    case(f'bmm_batches_{d}', [('a', d, (9, 7, 12), 'normal'), ('b', d, (9, 12, 35), 'normal')], ['%r = aten::bmm(%a, %b)'], '%r', fn=lambda a, b: A.bmm(a, b), tol=t)
    case(f'addmm_{d}', [('c', d, (2,), 'normal'), ('a', d, (3, 4), 'normal'), ('b', d, (4, 2), 'normal')], ['%r = aten::addmm(%c, %a, %b, beta=0.5, alpha=2)'], '%r',
         fn=lambda c, a, b: A.addmm(c, a, b, beta=0.5, alpha=2), tol=t)
    case(f'addmm_beta0_ignores_nan_{d}', [('c', d, (3, 2), 'special'), ('a', d, (3, 4), 'normal'), ('b', d, (4, 2), 'normal')], ['%r = aten::addmm(%c, %a, %b, beta=0)'], '%r',
         fn=lambda c, a, b: A.addmm(c, a, b, beta=0), tol=t)
    case(f'addmm_bias_2d_{d}', [('c', d, (3, 1), 'normal'), ('a', d, (3, 17), 'normal'), ('b', d, (17, 9), 'normal')], ['%r = aten::addmm(%c, %a, %b)'], '%r', fn=lambda c, a, b: A.addmm(c, a, b), tol=t)
    # linear (not core: ExecuTorch's LLM export writes it; PyTorch 2.14.1): 3-D, 1-D and bias-less
    case(f'linear_{d}', [('x', d, (2, 3, 5), 'normal'), ('w', d, (4, 5), 'normal'), ('b', d, (4,), 'normal')], ['%r = aten::linear(%x, %w, %b)'], '%r',
         fn=lambda x, w, b: A.linear(x, w, b), tol=t)
    case(f'linear_1d_nobias_{d}', [('x', d, (37,), 'normal'), ('w', d, (9, 37), 'normal')], ['%r = aten::linear(%x, %w)'], '%r',
         fn=lambda x, w: A.linear(x, w), tol=t)
    # alpha 0: the product is not computed, as BLAS does (PyTorch 2.14.1): its inf and NaN never show
    case(f'addmm_alpha0_{d}', [('c', d, (3, 2), 'normal'), ('a', d, (3, 4), 'special'), ('b', d, (4, 2), 'special')], ['%r = aten::addmm(%c, %a, %b, beta=0.5, alpha=0)'], '%r',
         fn=lambda c, a, b: A.addmm(c, a, b, beta=0.5, alpha=0))
    case(f'addmm_alpha0_beta0_{d}', [('c', d, (3, 2), 'special'), ('a', d, (3, 4), 'special'), ('b', d, (4, 2), 'normal')], ['%r = aten::addmm(%c, %a, %b, beta=0, alpha=0)'], '%r',
         fn=lambda c, a, b: A.addmm(c, a, b, beta=0, alpha=0))
    conv = lambda *a: A.convolution(*a)
    case(f'conv_{d}', [('x', d, (1, 2, 5, 5), 'normal'), ('w', d, (3, 2, 3, 3), 'normal'), ('b', d, (3,), 'normal')],
         ['%r = aten::convolution(%x, %w, %b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)'], '%r', fn=lambda x, w, b: A.convolution(x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), tol=t)
    case(f'conv_1x1_{d}', [('x', d, (2, 8, 4, 5), 'normal'), ('w', d, (6, 8, 1, 1), 'normal')], ['%r = aten::convolution(%x, %w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)'], '%r',
         fn=lambda x, w: A.convolution(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1), tol=t)
    case(f'conv_groups_strided_{d}', [('x', d, (2, 4, 7, 6), 'normal'), ('w', d, (6, 2, 3, 2), 'normal'), ('b', d, (6,), 'normal')],
         ['%r = aten::convolution(%x, %w, %b, [2, 1], [1, 0], [1, 2], False, [0, 0], 2)'], '%r', fn=lambda x, w, b: A.convolution(x, w, b, [2, 1], [1, 0], [1, 2], False, [0, 0], 2), tol=t)
    case(f'conv_depthwise_strided_{d}', [('x', d, (2, 4, 6, 5), 'normal'), ('w', d, (4, 1, 3, 3), 'normal')], ['%r = aten::convolution(%x, %w, None, [2, 1], [1, 0], [1, 2], False, [0, 0], 4)'], '%r',
         fn=lambda x, w: A.convolution(x, w, None, [2, 1], [1, 0], [1, 2], False, [0, 0], 4), tol=t)
    case(f'conv_depthwise_multiplier_{d}', [('x', d, (1, 3, 6, 6), 'normal'), ('w', d, (6, 1, 3, 3), 'normal'), ('b', d, (6,), 'normal')],
         ['%r = aten::convolution(%x, %w, %b, [1, 1], [1, 1], [1, 1], False, [0, 0], 3)'], '%r', fn=lambda x, w, b: A.convolution(x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 3), tol=t)
    # 3x3 of stride 1 over 20 channels into 24 at 18x17 (odd output sizes, padding 0, 1 and 2, a batch
    # of 2): sums of 180 products, as a network's layers have (written with PyTorch 2.14.1:
    # make_cases.py conv_wide)
    case(f'conv_wide_{d}', [('x', d, (2, 20, 18, 17), 'normal'), ('w', d, (24, 20, 3, 3), 'normal'), ('b', d, (24,), 'normal')],
         ['%r = aten::convolution(%x, %w, %b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)', '%s = aten::convolution(%x, %w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)',
          '%q = aten::convolution(%x, %w, %b, [1, 1], [2, 2], [1, 1], False, [0, 0], 1)'], '(%r, %s, %q)',
         fn=lambda x, w, b: [A.convolution(x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), A.convolution(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
                             A.convolution(x, w, b, [1, 1], [2, 2], [1, 1], False, [0, 0], 1)], tol=t)
    # pooling an empty batch gives an empty result (written with PyTorch 2.14.1: make_cases.py pool_empty_)
    case(f'pool_empty_batch_{d}', [('x', d, (0, 2, 4, 4), 'normal')],
         ['%a = aten::avg_pool2d(%x, [2, 2])', '%m, %i = aten::max_pool2d_with_indices(%x, [2, 2])', '%d = aten::_adaptive_avg_pool2d(%x, [3, 3])'], '(%a, %m, %i, %d)',
         fn=lambda x: [A.avg_pool2d(x, [2, 2]), *A.max_pool2d_with_indices(x, [2, 2]), A._adaptive_avg_pool2d(x, [3, 3])], tol=t)
    # every other form aten::convolution takes (written with PyTorch 2.14.1: make_cases.py convnd_)
    for name, xs, ws, bias, args in [
            ('1d_groups_strided', (2, 4, 9), (6, 2, 3), True, ([2], [1], [1], False, [0], 2)),
            ('1d_dilated', (1, 3, 10), (5, 3, 3), False, ([1], [2], [2], False, [0], 1)),
            ('1d_1x1', (2, 6, 7), (4, 6, 1), True, ([1], [0], [1], False, [0], 1)),
            ('1d_depthwise', (1, 4, 8), (4, 1, 3), False, ([1], [1], [1], False, [0], 4)),
            ('3d', (1, 2, 4, 5, 6), (3, 2, 2, 3, 2), True, ([1, 2, 1], [1, 0, 1], [1, 1, 2], False, [0, 0, 0], 1)),
            ('3d_groups', (2, 4, 3, 4, 4), (4, 2, 2, 2, 2), False, ([1], [1], [1], False, [0], 2)),
            ('transposed_2d', (1, 4, 3, 4), (4, 3, 3, 3), True, ([2, 2], [1, 1], [1, 1], True, [1, 0], 1)),
            ('transposed_2d_groups_dilated', (2, 4, 4, 3), (4, 2, 2, 3), False, ([1, 2], [0, 1], [2, 1], True, [0, 1], 2)),
            ('transposed_1d', (2, 3, 5), (3, 4, 3), True, ([3], [1], [1], True, [2], 1)),
            ('transposed_3d', (1, 2, 2, 3, 2), (2, 3, 2, 2, 2), True, ([2, 1, 2], [0, 1, 0], [1, 1, 1], True, [1, 0, 0], 1)),
            ('empty_batch', (0, 2, 5, 5), (3, 2, 3, 3), True, ([1, 1], [1, 1], [1, 1], False, [0, 0], 1))]:
        o = ws[1] * args[5] if args[3] else ws[0]
        decls = [('x', d, xs, 'normal'), ('w', d, ws, 'normal')] + ([('b', d, (o,), 'normal')] if bias else [])
        st, pa, di, tr, op, gr = args
        body = f'%r = aten::convolution(%x, %w, {"%b" if bias else "None"}, {st}, {pa}, {di}, {tr}, {op}, {gr})'
        case(f'convnd_{name}_{d}', decls, [body], '%r', fn=(lambda x, w, b, a=args: A.convolution(x, w, b, *a)) if bias else (lambda x, w, a=args: A.convolution(x, w, None, *a)), tol=t)
    case(f'batchnorm_{d}', [('x', d, (2, 3, 2, 2), 'normal'), ('w', d, (3,), 'normal'), ('b', d, (3,), 'normal'), ('m', d, (3,), 'normal'), ('v', d, (3,), 'positive')],
         ['%o, %s, %t = aten::_native_batch_norm_legit_no_training(%x, %w, %b, %m, %v, 0.1, 1e-05)'], '(%o, %s, %t)',
         fn=lambda x, w, b, m, v: list(A._native_batch_norm_legit_no_training(x, w, b, m, v, 0.1, 1e-05)) if hasattr(A, '_native_batch_norm_legit_no_training')
         else [A.native_batch_norm(x, w, b, m, v, False, 0.1, 1e-05)[0], torch.zeros(0, dtype=x.dtype), torch.zeros(0, dtype=x.dtype)], tol=t)

# ---- pooling, embedding ----
for d in FLOATS:
    case(f'maxpool_{d}', [('x', d, (1, 2, 5, 5), 'normal')], ['%o, %i = aten::max_pool2d_with_indices(%x, [3, 3], [2, 2], [1, 1])'], '(%o, %i)',
         fn=lambda x: list(A.max_pool2d_with_indices(x, [3, 3], [2, 2], [1, 1])))
    case(f'maxpool_ceil_{d}', [('x', d, (2, 4, 4), 'normal')], ['%o, %i = aten::max_pool2d_with_indices(%x, [2, 2], [], 0, 1, True)'], '(%o, %i)',
         fn=lambda x: list(A.max_pool2d_with_indices(x, [2, 2], [], 0, 1, True)))
    case(f'maxpool_dilated_nan_{d}', [('x', d, (1, 1, 6, 6), 'special')], ['%o, %i = aten::max_pool2d_with_indices(%x, [2, 2], [1, 1], 0, 2)'], '(%o, %i)',
         fn=lambda x: list(A.max_pool2d_with_indices(x, [2, 2], [1, 1], 0, 2)))
    case(f'avgpool_{d}', [('x', d, (1, 2, 5, 5), 'normal')],
         ['%r = aten::avg_pool2d(%x, [3, 3], [2, 2], [1, 1])', '%s = aten::avg_pool2d(%x, [3, 3], [2, 2], [1, 1], True, False)', '%t = aten::avg_pool2d(%x, [2, 2], divisor_override=3)'], '(%r, %s, %t)',
         fn=lambda x: [A.avg_pool2d(x, [3, 3], [2, 2], [1, 1]), A.avg_pool2d(x, [3, 3], [2, 2], [1, 1], True, False), A.avg_pool2d(x, [2, 2], divisor_override=3)], tol=REL[d])
    for idt in ['i64', 'i32']:
        case(f'embedding_{d}_{idt}', [('w', d, (5, 3), 'normal'), ('i', idt, (2, 4), 'index 5')], ['%r = aten::embedding(%w, %i)'], '%r', fn=lambda w, i: A.embedding(w, i))

# ---- Half and BFloat16: computed in float, each result rounded once (ATen's CPU
# opmath). Within 1 unit of the dtype's last place of PyTorch's: a float sum in
# another order may round the other way. ----
for d in ['f16', 'bf16']:
    T = 'ulp 1'
    x24, y24 = ('x', d, (2, 4), 'normal'), ('y', d, (4,), 'normal')
    case(f'reduced_binary_{d}', [x24, y24], ['%a = aten::add.Tensor(%x, %y, alpha=2)', '%b = aten::sub.Tensor(%x, %y)', '%c = aten::mul.Tensor(%x, %y)',
         '%e = aten::div.Tensor(%x, %y)', '%f = aten::mul.Scalar(%x, 0.3)', '%k = aten::gt.Tensor(%x, %y)', '%g = aten::where.self(%k, %x, %y)',
         '%h = aten::maximum(%x, %y)'], '(%a, %b, %c, %e, %f, %g, %k, %h)',
         fn=lambda x, y: [A.add.Tensor(x, y, alpha=2), x - y, x * y, x / y, x * 0.3, torch.where(x > y, x, y), x > y, torch.maximum(x, y)], tol=T)
    if d == 'bf16':  # a tensor times a Scalar in one pass (kernels/binary.c): the vector body, specials, exact
        case('mul_scalar_bf16', [('x', d, (7, 70), 'normal'), ('y', d, (12,), 'special')],
             ['%r = aten::mul.Scalar(%x, 0.3)', '%s = aten::mul.Scalar(%y, -3.5)', '%t = aten::mul.Scalar(%x, 1e-38)'], '(%r, %s, %t)',
             fn=lambda x, y: [x * 0.3, y * -3.5, x * 1e-38])
    case(f'reduced_unary_{d}', [('x', d, (3, 20), 'normal')], ['%a = aten::relu(%x)', '%b = aten::sigmoid(%x)', '%c = aten::tanh(%x)', '%e = aten::gelu(%x, approximate="tanh")',
         '%f = aten::exp(%x)', '%g = aten::pow.Tensor_Scalar(%x, 2)', '%h = aten::clamp(%x, -1.5, 2)', '%i = aten::neg(%x)', '%j = aten::abs(%x)'],
         '(%a, %b, %c, %e, %f, %g, %h, %i, %j)', fn=lambda x: [torch.relu(x), torch.sigmoid(x), torch.tanh(x), A.gelu(x, approximate='tanh'), torch.exp(x), x.pow(2),
         torch.clamp(x, -1.5, 2), -x, x.abs()], tol=T)
    case(f'reduced_roots_{d}', [('x', d, (2, 20), 'positive')], ['%a = aten::rsqrt(%x)', '%b = aten::sqrt(%x)', '%c = aten::log(%x)', '%e = aten::reciprocal(%x)'],
         '(%a, %b, %c, %e)', fn=lambda x: [torch.rsqrt(x), torch.sqrt(x), torch.log(x), torch.reciprocal(x)], tol=T)
    case(f'reduced_reduce_{d}', [('x', d, (3, 4, 37), 'normal')], ['%a = aten::mean.dim(%x, [-1], True)', '%b = aten::sum.dim_IntList(%x, [0, 2])',
         '%c = aten::_softmax(%x, -1, False)', '%e = aten::_log_softmax(%x, 1, False)'], '(%a, %b, %c, %e)',
         fn=lambda x: [x.mean(-1, True), x.sum([0, 2]), A._softmax(x, -1, False), A._log_softmax(x, 1, False)], tol=T)
    case(f'reduced_layer_norm_{d}', [('x', d, (2, 3, 24), 'normal'), ('w', d, (24,), 'normal'), ('b', d, (24,), 'normal')],
         ['%o, %m, %r = aten::native_layer_norm(%x, [24], %w, %b, 1e-5)'], '(%o, %m, %r)', fn=lambda x, w, b: list(A.native_layer_norm(x, [24], w, b, 1e-5)), tol=T)
    case(f'reduced_matmul_{d}', [('a', d, (5, 40), 'normal'), ('b', d, (40, 7), 'normal'), ('c', d, (7,), 'normal'), ('v', d, (1, 40), 'normal'), ('w', d, (9, 40), 'normal')],
         ['%m = aten::mm(%a, %b)', '%ad = aten::addmm(%c, %a, %b)', '%wt = aten::permute_copy(%w, [1, 0])', '%g = aten::mm(%v, %wt)',
          '%l = aten::linear(%v, %w)', '%l2 = aten::linear(%a, %w)', '%r = aten::mm(%v, %b)'], '(%m, %ad, %g, %l, %l2, %r)',
         fn=lambda a, b, c, v, w: [a @ b, A.addmm(c, a, b), v @ w.t(), A.linear(v, w), A.linear(a, w), v @ b], tol=T)
    case(f'reduced_bmm_{d}', [('a', d, (3, 2, 17), 'normal'), ('b', d, (3, 17, 5), 'normal')], ['%r = aten::bmm(%a, %b)'], '%r', fn=lambda a, b: A.bmm(a, b), tol=T)
    case(f'reduced_conv_{d}', [('x', d, (1, 3, 9, 8), 'normal'), ('w', d, (4, 3, 3, 3), 'normal'), ('b', d, (4,), 'normal'), ('dw', d, (4, 1, 3, 3), 'normal')],
         ['%c = aten::convolution(%x, %w, %b, [2, 1], [1, 1], [1, 1], False, [0, 0], 1)', '%d = aten::convolution(%c, %dw, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 4)',
          '%p, %i = aten::max_pool2d_with_indices(%d, [2, 2], [2, 2])', '%q = aten::avg_pool2d(%d, [2, 2], [2, 2])', '%g = aten::_adaptive_avg_pool2d(%d, [1, 1])'],
         '(%c, %d, %p, %i, %q, %g)', fn=lambda x, w, b, dw: (lambda c: (lambda dd: [c, dd, *A.max_pool2d_with_indices(dd, [2, 2], [2, 2]), A.avg_pool2d(dd, [2, 2], [2, 2]),
         A._adaptive_avg_pool2d(dd, [1, 1])])(A.convolution(c, dw, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 4)))(A.convolution(x, w, b, [2, 1], [1, 1], [1, 1], False, [0, 0], 1)), tol=T)
    case(f'reduced_batch_norm_{d}', [('x', d, (2, 3, 4, 5), 'normal'), ('w', d, (3,), 'positive'), ('b', d, (3,), 'normal'), ('m', d, (3,), 'normal'), ('v', d, (3,), 'positive')],
         ['%o, %s, %t = aten::_native_batch_norm_legit_no_training(%x, %w, %b, %m, %v, 0.1, 1e-5)'], '%o',
         fn=lambda x, w, b, m, v: A._native_batch_norm_legit_no_training(x, w, b, m, v, 0.1, 1e-5)[0], tol=T)
    case(f'reduced_index_{d}', [('x', d, (4, 6), 'normal'), ('i', 'i64', (3,), 'index 4'), ('v', d, (3, 6), 'normal'), ('e', 'i64', (2, 3), 'index 4')],
         ['%a = aten::index.Tensor(%x, [%i])', '%b = aten::index_put(%x, [%i], %v)', '%c = aten::index_put(%x, [%i], %v, True)', '%g = aten::embedding(%x, %e)',
          '%f = aten::full_like(%x, 0.1)', '%s = aten::scalar_tensor(2.5, dtype=%dt)'.replace('%dt', 'torch.float16' if d == 'f16' else 'torch.bfloat16')],
         '(%a, %b, %c, %g, %f, %s)', fn=lambda x, i, v, e: [x[i], A.index_put(x, [i], v), A.index_put(x, [i], v, True), A.embedding(x, e), torch.full_like(x, 0.1),
         torch.scalar_tensor(2.5, dtype=x.dtype)], tol=T)
    case(f'reduced_convert_{d}', [('x', d, (2, 5), 'normal'), ('f', 'f32', (2, 5), 'normal')], ['%a = aten::_to_copy(%x, dtype=torch.float32)', '%b = aten::_to_copy(%f, dtype=%dt)'.replace('%dt', 'torch.float16' if d == 'f16' else 'torch.bfloat16'),
         '%c = aten::add.Tensor(%x, %f)'], '(%a, %b, %c)', fn=lambda x, f: [x.float(), f.to(x.dtype), x + f], tol=T)

# ---- data movement: every dtype ----
for d in ['b8'] + REAL + ['f16', 'bf16']:
    case(f'permute_{d}', [('x', d, (2, 3, 4), 'normal')], ['%r = aten::permute_copy(%x, [2, 0, -2])'], '%r', fn=lambda x: x.permute(2, 0, 1).contiguous())
    case(f'view_{d}', [('x', d, (2, 3, 4), 'normal')], ['%r = aten::view_copy(%x, [4, -1])'], '%r', fn=lambda x: x.reshape(4, 6).contiguous())
    case(f'expand_{d}', [('x', d, (3, 1), 'normal')], ['%r = aten::expand_copy(%x, [2, -1, 4])'], '%r', fn=lambda x: x.expand(2, 3, 4).contiguous())
    case(f'clone_{d}', [('x', d, (2, 3), 'normal')], ['%p = aten::permute_copy(%x, [1, 0])', '%r = aten::clone(%p)'], '%r', fn=lambda x: x.t().contiguous())
    case(f'cat_{d}', [('x', d, (2, 3), 'normal'), ('y', d, (2, 1), 'normal')], ['%r = aten::cat([%x, %y, %x], -1)', '%s = aten::cat([%x, %x])'], '(%r, %s)',
         fn=lambda x, y: [A.cat([x, y, x], -1), A.cat([x, x])])
# a transpose large enough for the 8 x 8 register blocks, ragged on both sides
for d in ['i16', 'f16', 'bf16', 'i32', 'f32']:
    case(f'transpose_blocks_{d}', [('x', d, (2, 19, 13), 'normal')], ['%r = aten::permute_copy(%x, [0, 2, 1])', '%s = aten::permute_copy(%x, [2, 1, 0])'], '(%r, %s)',
         fn=lambda x: [x.permute(0, 2, 1).contiguous(), x.permute(2, 1, 0).contiguous()])
# uint16 (no such tensor in PyTorch 1.13): the same moves by NumPy
case('permute_u16', [('x', 'u16', (2, 3, 4), 'normal')], ['%r = aten::permute_copy(%x, [2, 0, -2])'], '%r', fn=lambda x: np.ascontiguousarray(x.transpose(2, 0, 1)))
case('view_u16', [('x', 'u16', (2, 3, 4), 'normal')], ['%r = aten::view_copy(%x, [4, -1])'], '%r', fn=lambda x: x.reshape(4, 6))
case('cat_u16', [('x', 'u16', (2, 3), 'normal'), ('y', 'u16', (2, 1), 'normal')], ['%r = aten::cat([%x, %y, %x], -1)'], '%r', fn=lambda x, y: np.concatenate([x, y, x], -1))
case('cat_legacy_empty', [('x', 'f32', (2, 3), 'normal'), ('e', 'f32', (0,), 'normal')], ['%r = aten::cat([%x, %e, %x], 1)'], '%r', fn=lambda x, e: A.cat([x, e, x], 1))

# ---- unary math, rounding, predicates, activations (every dtype the Edge rows allow, in one program per op) ----
ALLD = ['b8'] + INTS + FLOATS


def multi(name, op_fmt, dts, fn, kind='normal', shape=(2, 3), tol='exact', ref=None, extra=(), nout=1):
    """One program applying op to an input of each dtype in dts (plus extra decls:
    a 0-d and an empty f32); results in the same order (nout per call)."""
    decls = [(f'x{i}', d, shape, kind) for i, d in enumerate(dts)] + list(extra)
    outs = lambda i: ', '.join(f'%r{i}_{k}' for k in range(nout))
    body = [f'{outs(i)} = {op_fmt.format(x=f"%{n}")}' for i, (n, _, _, _) in enumerate(decls)]
    ret = '(' + ', '.join(outs(i) for i in range(len(decls))) + ')'
    flat = lambda rs: [t for r in rs for t in (r if nout > 1 else [r])]
    case(name, decls, body, ret, fn=lambda *xs: flat([fn(x) for x in xs]), tol=tol, ref=(lambda *xs: flat([ref(x) for x in xs])) if ref else None)


ZD = [('z', 'f32', (), 'normal'), ('e', 'f32', (0, 2), 'normal')]
DOMAIN = {'acos': 'unit', 'asin': 'unit', 'atanh': 'unit', 'acosh': 'above1', 'log': 'positive', 'log10': 'positive', 'log2': 'positive',
          'log1p': 'positive', 'rsqrt': 'positive', 'sqrt': 'positive'}
for op in 'acos acosh asin asinh atan atanh cos cosh sin sinh tan erf expm1 log log10 log1p log2 rsqrt sqrt reciprocal'.split():
    f = getattr(A, op)
    multi(f'{op}_all', f'aten::{op}({{x}})', ALLD, lambda x, f=f: f(x), kind='normal', tol='ulp 2', ref=lambda x, f=f: f(x), extra=ZD)
    if op in DOMAIN:
        multi(f'{op}_domain', f'aten::{op}({{x}})', FLOATS, lambda x, f=f: f(x), kind=DOMAIN[op], shape=(40,), tol='ulp 2', ref=lambda x, f=f: f(x))
    multi(f'{op}_special', f'aten::{op}({{x}})', FLOATS, lambda x, f=f: f(x), kind='special', shape=(12,), tol='ulp 2', ref=lambda x, f=f: f(x))
KEEPD = {'neg': INTS + FLOATS, 'ceil': INTS + FLOATS, 'floor': INTS + FLOATS, 'round': INTS + FLOATS, 'trunc': INTS + FLOATS, 'sign': ALLD,
         'bitwise_not': ['b8'] + INTS}
for op, dts in KEEPD.items():
    f = getattr(A, op)
    multi(f'{op}_all', f'aten::{op}({{x}})', dts, lambda x, f=f: f(x), extra=ZD if 'f32' in dts else ())
    if 'f32' in dts:
        multi(f'{op}_special', f'aten::{op}({{x}})', FLOATS, lambda x, f=f: f(x), kind='special', shape=(12,))
        multi(f'{op}_halves', f'aten::{op}({{x}})', FLOATS, lambda x, f=f: f(x), kind='list -2.5,-1.5,-0.5,0.5,1.5,2.5,-0.49,0.51,-3.7,3.2', shape=(10,))
multi('neg_wrap', 'aten::neg({x})', INTS[1:], lambda x: A.neg(x), kind='wrap', shape=(8,))
for op in ['logical_not', 'isnan', 'isinf']:
    f = getattr(A, op)
    multi(f'{op}_all', f'aten::{op}({{x}})', ALLD, lambda x, f=f: f(x), extra=ZD)
    multi(f'{op}_special', f'aten::{op}({{x}})', FLOATS, lambda x, f=f: f(x), kind='special', shape=(12,))
for d in FLOATS:
    case(f'elu_{d}', [('x', d, (3, 20), 'normal')], ['%r = aten::elu(%x)', '%s = aten::elu(%x, 0.5, 2, 1.5)'], '(%r, %s)',
         fn=lambda x: [A.elu(x), A.elu(x, 0.5, 2, 1.5)], tol=REL[d])
    case(f'elu_special_{d}', [('x', d, (12,), 'special')], ['%r = aten::elu(%x)'], '%r', fn=lambda x: A.elu(x), tol=REL[d])
    case(f'leaky_relu_{d}', [('x', d, (3, 20), 'normal')], ['%r = aten::leaky_relu(%x)', '%s = aten::leaky_relu(%x, 0.2)'], '(%r, %s)',
         fn=lambda x: [A.leaky_relu(x), A.leaky_relu(x, 0.2)])
    case(f'leaky_relu_special_{d}', [('x', d, (12,), 'special')], ['%r = aten::leaky_relu(%x, 0.1)'], '%r', fn=lambda x: A.leaky_relu(x, 0.1))

# ---- binary arithmetic, bitwise and logical ops (one program per op over the dtypes) ----
def multi2(name, op_fmt, dts, fn, kx='normal', ky='normal', sx=(2, 3), sy=(3,), tol='exact', ref=None):
    decls = []
    for i, d in enumerate(dts):
        decls += [(f'x{i}', d, sx, kx), (f'y{i}', d, sy, ky)]
    body = [f'%r{i} = {op_fmt.format(x=f"%x{i}", y=f"%y{i}")}' for i in range(len(dts))]
    ret = '(' + ', '.join(f'%r{i}' for i in range(len(dts))) + ')'
    pairs = lambda xs: [(xs[2 * i], xs[2 * i + 1]) for i in range(len(xs) // 2)]
    case(name, decls, body, ret, fn=lambda *xs: [fn(x, y) for x, y in pairs(xs)], tol=tol, ref=(lambda *xs: [ref(x, y) for x, y in pairs(xs)]) if ref else None)


NUM = INTS + FLOATS
multi2('minimum_all', 'aten::minimum({x}, {y})', ALLD, lambda x, y: A.minimum(x, y))
multi2('minimum_special', 'aten::minimum({x}, {y})', FLOATS, lambda x, y: A.minimum(x, y), kx='special', ky='special', sx=(12,), sy=(12, 1), tol='exact zeros')
case('minimum_promote', [('x', 'i32', (4,), 'normal'), ('y', 'f32', (2, 1), 'normal'), ('b', 'b8', (4,), 'normal'), ('u', 'u8', (4,), 'normal')],
     ['%r = aten::minimum(%x, %y)', '%s = aten::minimum(%b, %u)', '%t = aten::minimum(%u, %x)'], '(%r, %s, %t)', fn=lambda x, y, b, u: [A.minimum(x, y), A.minimum(b, u), A.minimum(u, x)])
multi2('atan2_all', 'aten::atan2({x}, {y})', ALLD, lambda x, y: A.atan2(x, y), tol='ulp 2', ref=lambda x, y: A.atan2(x, y))
multi2('atan2_special', 'aten::atan2({x}, {y})', FLOATS, lambda x, y: A.atan2(x, y), kx='special', ky='special', sx=(12,), sy=(12, 1), tol='ulp 2', ref=lambda x, y: A.atan2(x, y))
case('atan2_promote', [('x', 'i32', (4,), 'normal'), ('y', 'f64', (4,), 'normal')], ['%r = aten::atan2(%x, %y)'], '%r', fn=lambda x, y: A.atan2(x, y), tol='ulp 2', ref=lambda x, y: A.atan2(x, y))
for op in ['fmod', 'remainder']:
    f = getattr(A, op)
    multi2(f'{op}_all', f'aten::{op}.Tensor({{x}}, {{y}})', NUM, lambda x, y, f=f: f.Tensor(x, y), ky='nonzero')
    multi2(f'{op}_special', f'aten::{op}.Tensor({{x}}, {{y}})', FLOATS, lambda x, y, f=f: f.Tensor(x, y), kx='special', ky='special', sx=(12,), sy=(12, 1))
    multi('{}_scalar'.format(op), f'aten::{op}.Scalar({{x}}, -3)', NUM, lambda x, f=f: f.Scalar(x, -3))
    multi('{}_scalar_float'.format(op), f'aten::{op}.Scalar({{x}}, 2.5)', NUM + ['b8'], lambda x, f=f: f.Scalar(x, 2.5))
    case(f'{op}_promote', [('x', 'i64', (6,), 'normal'), ('y', 'f32', (6,), 'nonzero')], [f'%r = aten::{op}.Tensor(%x, %y)'], '%r', fn=lambda x, y, f=f: f.Tensor(x, y))
multi2('pow_all', 'aten::pow.Tensor_Tensor({x}, {y})', NUM, lambda x, y: A.pow.Tensor_Tensor(x, y), ky='mod 6', tol='ulp 2', ref=lambda x, y: A.pow.Tensor_Tensor(x, y))
multi2('pow_negative_exponent', 'aten::pow.Tensor_Tensor({x}, {y})', INTS[1:], lambda x, y: A.pow.Tensor_Tensor(x, y), kx='list -2,-1,0,1,2,3', ky='list -3,-2,-1,-1,-2,-4', sx=(6,), sy=(6,))
multi2('pow_wrap', 'aten::pow.Tensor_Tensor({x}, {y})', INTS, lambda x, y: A.pow.Tensor_Tensor(x, y), kx='list 3,7,-5,11,2,9', ky='list 40,33,41,19,63,21', sx=(6,), sy=(6,))
multi2('pow_special', 'aten::pow.Tensor_Tensor({x}, {y})', FLOATS, lambda x, y: A.pow.Tensor_Tensor(x, y), kx='special', ky='special', sx=(12,), sy=(12, 1), tol='ulp 2', ref=lambda x, y: A.pow.Tensor_Tensor(x, y))
for e in ['2', '3', '0.5', '-1', '-2', '2.5', '-0.5', '0']:
    multi(f'pow_scalar_{e.replace("-", "m").replace(".", "_")}', f'aten::pow.Tensor_Scalar({{x}}, {e})', FLOATS + (INTS + ['b8'] if '.' in e or e in ('2', '3', '0') else []),
          lambda x, e=e: A.pow.Tensor_Scalar(x, float(e) if '.' in e else int(e)), kind='positive' if e in ('0.5', '-0.5', '2.5') else 'normal', tol='ulp 2',
          ref=lambda x, e=e: A.pow.Tensor_Scalar(x, float(e) if '.' in e else int(e)))
multi('pow_base_scalar', 'aten::pow.Scalar(2, {x})', ['u8', 'i32', 'i64', 'f32', 'f64'], lambda x: A.pow.Scalar(2, x), kind='mod 8', tol='ulp 2', ref=lambda x: A.pow.Scalar(2, x))
multi('pow_base_scalar_float', 'aten::pow.Scalar(2.5, {x})', ['b8', 'i32', 'f32', 'f64'], lambda x: A.pow.Scalar(2.5, x), tol='ulp 2', ref=lambda x: A.pow.Scalar(2.5, x))
for op in ['bitwise_and', 'bitwise_or', 'bitwise_xor']:
    f = getattr(A, op)
    multi2(f'{op}_all', f'aten::{op}.Tensor({{x}}, {{y}})', ['b8'] + INTS, lambda x, y, f=f: f.Tensor(x, y), kx='wrap', ky='normal', sx=(8,), sy=(8,))
    multi(f'{op}_scalar', f'aten::{op}.Scalar({{x}}, 6)', ['b8'] + INTS, lambda x, f=f: f.Scalar(x, 6))
    # torch.ops.aten passes a Python bool Scalar as an int: the public function keeps it Bool
    multi(f'{op}_scalar_bool', f'aten::{op}.Scalar({{x}}, True)', ['b8'] + INTS, lambda x, op=op: getattr(torch, op)(x, True))
    case(f'{op}_promote', [('x', 'u8', (4,), 'normal'), ('y', 'i8', (4,), 'normal'), ('b', 'b8', (4,), 'normal')], [f'%r = aten::{op}.Tensor(%x, %y)', f'%s = aten::{op}.Tensor(%b, %x)'], '(%r, %s)',
         fn=lambda x, y, b, f=f: [f.Tensor(x, y), f.Tensor(b, x)])
for op in ['logical_and', 'logical_or', 'logical_xor']:
    f = getattr(A, op)
    multi2(f'{op}_all', f'aten::{op}({{x}}, {{y}})', ALLD, lambda x, y, f=f: f(x, y), kx='mod 2', ky='mod 2')
    multi2(f'{op}_special', f'aten::{op}({{x}}, {{y}})', FLOATS, lambda x, y, f=f: f(x, y), kx='special', ky='special', sx=(12,), sy=(12, 1))
    case(f'{op}_mixed', [('x', 'i32', (4,), 'mod 2'), ('y', 'f32', (2, 1), 'mod 2'), ('b', 'b8', (4,), 'normal')], [f'%r = aten::{op}(%x, %y)', f'%s = aten::{op}(%b, %x)'], '(%r, %s)',
         fn=lambda x, y, b, f=f: [f(x, y), f(b, x)])
for mode in ['trunc', 'floor']:
    multi2(f'div_{mode}_all', f'aten::div.Tensor_mode({{x}}, {{y}}, rounding_mode="{mode}")', NUM, lambda x, y, m=mode: A.div.Tensor_mode(x, y, rounding_mode=m), ky='nonzero')
    multi2(f'div_{mode}_special', f'aten::div.Tensor_mode({{x}}, {{y}}, rounding_mode="{mode}")', FLOATS, lambda x, y, m=mode: A.div.Tensor_mode(x, y, rounding_mode=m), kx='special', ky='special', sx=(12,), sy=(12, 1))
    multi2(f'div_{mode}_wrap', f'aten::div.Tensor_mode({{x}}, {{y}}, rounding_mode="{mode}")', INTS[1:], lambda x, y, m=mode: A.div.Tensor_mode(x, y, rounding_mode=m), kx='wrap', ky='list -1,3,-1,-7,2,5,-2,4', sx=(8,), sy=(8,))
    multi(f'div_scalar_{mode}', f'aten::div.Scalar_mode({{x}}, -3, rounding_mode="{mode}")', NUM, lambda x, m=mode: A.div.Scalar_mode(x, -3, rounding_mode=m))
    multi(f'div_scalar_float_{mode}', f'aten::div.Scalar_mode({{x}}, 2.5, rounding_mode="{mode}")', NUM + ['b8'], lambda x, m=mode: A.div.Scalar_mode(x, 2.5, rounding_mode=m))
multi2('div_none_all', 'aten::div.Tensor_mode({x}, {y}, rounding_mode=None)', NUM + ['b8'], lambda x, y: A.div.Tensor_mode(x, y, rounding_mode=None), ky='nonzero')
multi('div_scalar_all', 'aten::div.Scalar({x}, 4)', NUM + ['b8'], lambda x: A.div.Scalar(x, 4))
multi('div_scalar_none_mode', 'aten::div.Scalar_mode({x}, -1.5, rounding_mode=None)', NUM, lambda x: A.div.Scalar_mode(x, -1.5, rounding_mode=None))
multi('sub_scalar_all', 'aten::sub.Scalar({x}, 3, alpha=2)', NUM, lambda x: A.sub.Scalar(x, 3, alpha=2))
multi('sub_scalar_float', 'aten::sub.Scalar({x}, 0.25)', NUM, lambda x: A.sub.Scalar(x, 0.25))

# ---- reductions: amax, amin, any, argmax, argmin, max.dim, min.dim, prod, var, mean, cumsum ----
for op in ['amax', 'amin']:
    f = getattr(A, op)
    multi(f'{op}_all', f'aten::{op}({{x}}, [1])', ALLD, lambda x, f=f: f(x, [1]), shape=(3, 5, 2))
    multi(f'{op}_dims_keep', f'aten::{op}({{x}}, [0, -1], True)', FLOATS + ['i32'], lambda x, f=f: f(x, [0, -1], True), shape=(3, 5, 2))
    multi(f'{op}_all_dims', f'aten::{op}({{x}})', FLOATS + ['i64', 'b8'], lambda x, f=f: f(x), shape=(3, 4))
    multi(f'{op}_special', f'aten::{op}({{x}}, [1])', FLOATS, lambda x, f=f: f(x, [1]), kind='special', shape=(3, 4), tol='exact zeros')
multi('any_all', 'aten::any({x})', ALLD, lambda x: A.any(x), kind='mod 2', shape=(3, 4), extra=ZD)
multi('any_zero', 'aten::any({x})', ['b8', 'u8', 'f32'], lambda x: A.any(x), kind='list 0,0,0', shape=(3,))
multi('any_dim', 'aten::any.dim({x}, 1)', ALLD, lambda x: A.any.dim(x, 1), kind='mod 2', shape=(3, 2, 4))
multi('any_dims', 'aten::any.dims({x}, [0, 2], True)', ['b8', 'u8', 'i32', 'f32'], lambda x: torch.any(torch.any(x, 2, True), 0, True), kind='mod 2', shape=(3, 2, 4))
multi('any_special', 'aten::any.dim({x}, 0)', FLOATS, lambda x: A.any.dim(x, 0), kind='special', shape=(12, 1))
for op in ['argmax', 'argmin']:
    f = getattr(A, op)
    multi(f'{op}_dim', f'aten::{op}({{x}}, 1)', NUM, lambda x, f=f: f(x, 1), shape=(3, 7, 2))
    multi(f'{op}_none', f'aten::{op}({{x}})', NUM, lambda x, f=f: f(x), shape=(3, 7))
    multi(f'{op}_keep', f'aten::{op}({{x}}, -1, True)', FLOATS, lambda x, f=f: f(x, -1, True), shape=(3, 7))
    multi(f'{op}_ties', f'aten::{op}({{x}}, 0)', ['i32', 'f32'], lambda x, f=f: f(x, 0), kind='list 1,3,3,1,1,3', shape=(6,))
    multi(f'{op}_special', f'aten::{op}({{x}}, 1)', FLOATS, lambda x, f=f: f(x, 1), kind='special', shape=(3, 4))
for op in ['max', 'min']:
    f = getattr(A, op).dim
    multi(f'{op}_dim_all', f'aten::{op}.dim({{x}}, 1)', ALLD, lambda x, f=f: list(f(x, 1)), shape=(3, 7, 2), nout=2)
    case(f'{op}_dim_keep', [('x', 'f32', (3, 7), 'normal')], [f'%v, %i = aten::{op}.dim(%x, 0, True)'], '(%v, %i)', fn=lambda x, f=f: list(f(x, 0, True)))
    case(f'{op}_dim_special', [('x', 'f64', (3, 4), 'special')], [f'%v, %i = aten::{op}.dim(%x, 1)'], '(%v, %i)', fn=lambda x, f=f: list(f(x, 1)), tol='exact zeros')
    case(f'{op}_dim_zero_dim', [('x', 'f32', (), 'normal')], [f'%v, %i = aten::{op}.dim(%x, 0)'], '(%v, %i)', fn=lambda x, f=f: list(f(x, 0)))
multi('prod_all', 'aten::prod({x})', ALLD, lambda x: A.prod(x), shape=(2, 3), tol='rel 1e-5', extra=ZD)
multi('prod_dim', 'aten::prod.dim_int({x}, 1)', ALLD, lambda x: A.prod.dim_int(x, 1), shape=(3, 4, 2), tol='rel 1e-5')
multi('prod_dim_keep', 'aten::prod.dim_int({x}, -1, True)', FLOATS, lambda x: A.prod.dim_int(x, -1, True), shape=(3, 4), tol='rel 1e-12')
multi('prod_wrap', 'aten::prod.dim_int({x}, 0)', ['i32', 'i64'], lambda x: A.prod.dim_int(x, 0), kind='wrap', shape=(8,))
multi('prod_special', 'aten::prod.dim_int({x}, 0)', FLOATS, lambda x: A.prod.dim_int(x, 0), kind='special', shape=(12, 1))
for d in FLOATS:
    case(f'var_{d}', [('x', d, (3, 4, 20), 'normal')], ['%r = aten::var.dim(%x, [2])', '%s = aten::var.dim(%x, [0, 2], False, True)', '%t = aten::var.dim(%x, None)'], '(%r, %s, %t)',
         fn=lambda x: [A.var.dim(x, [2]), A.var.dim(x, [0, 2], False, True), A.var.dim(x, None)], tol=REL[d])
    case(f'var_correction_{d}', [('x', d, (3, 20), 'normal')], ['%r = aten::var.correction(%x, [1], correction=2)', '%s = aten::var.correction(%x)', '%t = aten::var.correction(%x, [0], correction=0.5, keepdim=True)'],
         '(%r, %s, %t)', tol=REL[d],  # PyTorch 1.13's correction is an int: 0.5 from its m2 (correction 0), in float64
         fn=lambda x: [A.var.correction(x, [1], correction=2), A.var.correction(x, None, correction=1),
                       (A.var.correction(x.double(), [0], correction=0, keepdim=True) * 3 / 2.5).to(x.dtype)])
    case(f'var_one_{d}', [('x', d, (3, 1), 'normal')], ['%r = aten::var.dim(%x, [1])'], '%r', fn=lambda x: A.var.dim(x, [1]))
    case(f'mean_full_{d}', [('x', d, (3, 40), 'normal'), ('z', d, (), 'normal')], ['%r = aten::mean(%x)', '%s = aten::mean(%z)'], '(%r, %s)', fn=lambda x, z: [A.mean(x), A.mean(z)], tol=REL[d])
case('mean_full_dtype', [('x', 'i32', (3, 4), 'normal')], ['%r = aten::mean(%x, dtype=torch.float64)'], '%r', fn=lambda x: A.mean(x, dtype=torch.float64), tol='rel 1e-12')
multi('cumsum_all', 'aten::cumsum({x}, 1)', ALLD, lambda x: A.cumsum(x, 1), shape=(2, 5, 3), tol='rel 1e-5')
multi('cumsum_last', 'aten::cumsum({x}, -1)', FLOATS, lambda x: A.cumsum(x, -1), shape=(3, 300), tol='rel 1e-5')
multi('cumsum_special', 'aten::cumsum({x}, 0)', FLOATS, lambda x: A.cumsum(x, 0), kind='special', shape=(12,))
multi('cumsum_wrap', 'aten::cumsum({x}, 0)', ['i64'], lambda x: A.cumsum(x, 0), kind='wrap', shape=(8,))
case('cumsum_zero_dim', [('x', 'f32', (), 'normal')], ['%r = aten::cumsum(%x, 0)'], '%r', fn=lambda x: A.cumsum(x, 0))

# ---- views as copies, scatters into slices, padding, filling, indexing ----
MOVE = ALLD + ['f16', 'bf16']
multi('squeeze_dim', 'aten::squeeze_copy.dim({x}, 1)', MOVE, lambda x: torch.squeeze(x, 1).contiguous(), shape=(3, 1, 2))
multi('squeeze_dim_noop', 'aten::squeeze_copy.dim({x}, -1)', ['f32', 'i64'], lambda x: torch.squeeze(x, -1).contiguous(), shape=(3, 1, 2))
multi('squeeze_dims', 'aten::squeeze_copy.dims({x}, [0, 2, 3])', MOVE, lambda x: x.reshape(3, 2).contiguous(), shape=(1, 3, 1, 1, 2))
multi('unsqueeze', 'aten::unsqueeze_copy({x}, 1)', MOVE, lambda x: torch.unsqueeze(x, 1).contiguous(), shape=(3, 2), extra=[('e', 'f32', (0, 2), 'normal')])
multi('unsqueeze_last', 'aten::unsqueeze_copy({x}, -1)', ['f32'], lambda x: torch.unsqueeze(x, -1).contiguous(), shape=(3, 2))
multi('select', 'aten::select_copy.int({x}, 1, -2)', MOVE, lambda x: torch.select(x, 1, -2).contiguous(), shape=(2, 4, 3))
multi('slice', 'aten::slice_copy.Tensor({x}, 1, 1, 7, 2)', MOVE, lambda x: x[:, 1:7:2].contiguous(), shape=(2, 8, 3))
multi('slice_bounds', 'aten::slice_copy.Tensor({x}, -1, -3, 100)', ['f32', 'i32'], lambda x: x[..., -3:100].contiguous(), shape=(2, 8))
multi('slice_none', 'aten::slice_copy.Tensor({x}, 0, None, -1)', ['f32'], lambda x: x[:-1].contiguous(), shape=(5, 2))
multi('slice_empty', 'aten::slice_copy.Tensor({x}, 0, 4, 2)', ['f32'], lambda x: x[4:2].contiguous(), shape=(5, 2))
multi('diagonal', 'aten::diagonal_copy({x})', MOVE, lambda x: torch.diagonal(x).contiguous(), shape=(4, 3))
multi('diagonal_offset', 'aten::diagonal_copy({x}, 1, 2, 0)', ['f32', 'i64'], lambda x: torch.diagonal(x, 1, 2, 0).contiguous(), shape=(3, 2, 4))
multi('diagonal_negative', 'aten::diagonal_copy({x}, -2, -1, 0)', ['f32'], lambda x: torch.diagonal(x, -2, -1, 0).contiguous(), shape=(4, 5))
multi('diagonal_empty', 'aten::diagonal_copy({x}, 9)', ['f32'], lambda x: torch.diagonal(x, 9).contiguous(), shape=(4, 5))
multi('alias', 'aten::alias_copy({x})', MOVE, lambda x: x.clone(), shape=(2, 3), extra=ZD)
multi('as_strided', 'aten::as_strided_copy({x}, [3, 2], [1, 3], 1)', MOVE, lambda x: torch.as_strided(x, [3, 2], [1, 3], 1).contiguous(), shape=(4, 3))
multi('as_strided_overlap', 'aten::as_strided_copy({x}, [4, 3], [1, 1])', ['f32'], lambda x: torch.as_strided(x, [4, 3], [1, 1]).contiguous(), shape=(6,))
multi('flip', 'aten::flip({x}, [0, -1])', MOVE, lambda x: torch.flip(x, [0, -1]), shape=(3, 2, 4))
multi('flip_none', 'aten::flip({x}, [])', ['f32'], lambda x: torch.flip(x, []), shape=(3, 2), extra=ZD)
multi('repeat', 'aten::repeat({x}, [2, 1, 3])', MOVE, lambda x: x.repeat(2, 1, 3), shape=(2, 3))
multi('repeat_zero', 'aten::repeat({x}, [0, 2])', ['f32'], lambda x: x.repeat(0, 2), shape=(2, 3))
multi('constant_pad', 'aten::constant_pad_nd({x}, [1, 2, 0, 1], 7)', ALLD, lambda x: A.constant_pad_nd(x, [1, 2, 0, 1], 7), shape=(2, 3, 2))
multi('constant_pad_crop', 'aten::constant_pad_nd({x}, [-1, 2, 1, -2], -1.5)', FLOATS, lambda x: A.constant_pad_nd(x, [-1, 2, 1, -2], -1.5), shape=(2, 4, 3))
multi('constant_pad_default', 'aten::constant_pad_nd({x}, [2, 0])', ['f32', 'i32'], lambda x: A.constant_pad_nd(x, [2, 0]), shape=(3,))
multi('fill', 'aten::fill.Scalar({x}, 3)', ALLD, lambda x: A.fill.Scalar(x, 3), extra=ZD)
multi('fill_float', 'aten::fill.Scalar({x}, -2.75)', FLOATS + ['i32'], lambda x: A.fill.Scalar(x, -2.75))
for d in MOVE:
    case(f'slice_scatter_{d}', [('x', d, (4, 5), 'normal'), ('s', d, (4, 2), 'normal')], ['%r = aten::slice_scatter(%x, %s, 1, 1, 5, 2)'], '%r',
         fn=lambda x, s: A.slice_scatter(x, s, 1, 1, 5, 2))
    case(f'select_scatter_{d}', [('x', d, (4, 5), 'normal'), ('s', d, (5,), 'normal')], ['%r = aten::select_scatter(%x, %s, 0, -1)'], '%r',
         fn=lambda x, s: A.select_scatter(x, s, 0, -1))
    case(f'index_select_{d}', [('x', d, (4, 5), 'normal'), ('i', 'i64', (6,), 'index 4')], ['%r = aten::index_select(%x, 1, %i)', '%s = aten::index_select(%x, 0, %i)'], '(%r, %s)',
         fn=lambda x, i: [A.index_select(x, 1, i), A.index_select(x, 0, i)])
    case(f'gather_{d}', [('x', d, (3, 5), 'normal'), ('i', 'i64', (3, 4), 'index 3')], ['%r = aten::gather(%x, 0, %i)', '%s = aten::gather(%x, -1, %i)'], '(%r, %s)',
         fn=lambda x, i: [A.gather(x, 0, i), A.gather(x, -1, i)])
case('index_select_i32_index', [('x', 'f32', (4, 3), 'normal'), ('i', 'i32', (5,), 'list 3,-1,0,0,2')], ['%r = aten::index_select(%x, 0, %i)'], '%r',
     fn=lambda x, i: A.index_select(x, 0, torch.where(i < 0, i + 4, i)))
# scatter: distinct indices along dim per column (ATen's CPU order decides duplicates; opgen writes in index order too)
for d in ALLD:
    case(f'scatter_{d}', [('x', d, (4, 3), 'normal'), ('i', 'i64', (2, 3), 'list 3,0,1,1,2,3'), ('s', d, (2, 4), 'normal')],
         ['%r = aten::scatter.src(%x, 0, %i, %s)', '%t = aten::scatter.value(%x, 0, %i, 5)'], '(%r, %t)', fn=lambda x, i, s: [A.scatter.src(x, 0, i, s), A.scatter.value(x, 0, i, 5)])
    if d != 'b8':
        case(f'scatter_add_{d}', [('x', d, (4, 3), 'normal'), ('i', 'i64', (3, 3), 'list 2,0,1,2,2,1,0,0,1'), ('s', d, (3, 3), 'normal')],
             ['%r = aten::scatter_add(%x, 0, %i, %s)', '%t = aten::scatter_add(%x, 1, %i, %s)'], '(%r, %t)', fn=lambda x, i, s: [A.scatter_add(x, 0, i, s), A.scatter_add(x, 1, i, s)])

# ---- reflection and replication padding, clamp with tensor bounds, copy, norms, adaptive pooling ----
NB_ = INTS + FLOATS
multi('reflection_pad1d', 'aten::reflection_pad1d({x}, [2, 1])', FLOATS, lambda x: A.reflection_pad1d(x, [2, 1]), shape=(2, 3, 4))
multi('reflection_pad2d', 'aten::reflection_pad2d({x}, [1, 2, 2, 0])', FLOATS, lambda x: A.reflection_pad2d(x, [1, 2, 2, 0]), shape=(2, 3, 4))
multi('reflection_pad2d_4d', 'aten::reflection_pad2d({x}, [0, 1, 1, 1])', FLOATS, lambda x: A.reflection_pad2d(x, [0, 1, 1, 1]), shape=(2, 2, 3, 3))
multi('reflection_pad3d', 'aten::reflection_pad3d({x}, [1, 0, 0, 1, 1, 1])', FLOATS, lambda x: A.reflection_pad3d(x, [1, 0, 0, 1, 1, 1]), shape=(2, 2, 3, 3))
multi('replication_pad2d', 'aten::replication_pad2d({x}, [2, 1, 0, 3])', FLOATS, lambda x: A.replication_pad2d(x, [2, 1, 0, 3]), shape=(2, 3, 4))
multi('replication_pad3d', 'aten::replication_pad3d({x}, [1, 2, 1, 0, 2, 1])', FLOATS, lambda x: A.replication_pad3d(x, [1, 2, 1, 0, 2, 1]), shape=(1, 2, 2, 3, 2))
multi('replication_pad_crop', 'aten::replication_pad2d({x}, [-1, 2, 1, -1])', FLOATS, lambda x: A.replication_pad2d(x, [-1, 2, 1, -1]), shape=(2, 3, 4))
for d in NB_:
    case(f'clamp_tensor_{d}', [('x', d, (2, 5), 'normal'), ('lo', d, (5,), 'normal'), ('hi', d, (2, 1), 'normal')],
         ['%r = aten::clamp.Tensor(%x, %lo, %hi)', '%s = aten::clamp.Tensor(%x, %lo)', '%t = aten::clamp.Tensor(%x, None, %hi)'], '(%r, %s, %t)',
         fn=lambda x, lo, hi: [A.clamp.Tensor(x, lo, hi), A.clamp.Tensor(x, lo), A.clamp.Tensor(x, None, hi)])
case('clamp_tensor_special', [('x', 'f32', (12,), 'special'), ('lo', 'f32', (12, 1), 'special'), ('hi', 'f32', (12,), 'normal')],
     ['%r = aten::clamp.Tensor(%x, %lo, %hi)', '%s = aten::clamp.Tensor(%x, %lo)', '%t = aten::clamp.Tensor(%x, None, %lo)'], '(%r, %s, %t)',
     fn=lambda x, lo, hi: [A.clamp.Tensor(x, lo, hi), A.clamp.Tensor(x, lo), A.clamp.Tensor(x, None, lo)], tol='exact zeros')
for a, b in [('f32', 'i32'), ('i64', 'f64'), ('u8', 'b8'), ('f64', 'f32'), ('b8', 'f32')]:
    case(f'copy_{a}_{b}', [('x', a, (2, 3), 'normal'), ('s', b, (3,), 'normal')], ['%r = aten::copy(%x, %s)'], '%r', fn=lambda x, s: A.copy(x, s))
for d in FLOATS:
    t = REL[d]
    case(f'layer_norm_{d}', [('x', d, (2, 3, 8), 'normal'), ('w', d, (8,), 'normal'), ('b', d, (8,), 'normal')],
         ['%o, %m, %r = aten::native_layer_norm(%x, [8], %w, %b, 1e-05)', '%p, %q, %s = aten::native_layer_norm(%x, [3, 8], None, None, 0.001)'], '(%o, %m, %r, %p, %q, %s)',
         fn=lambda x, w, b: list(A.native_layer_norm(x, [8], w, b, 1e-05)) + list(A.native_layer_norm(x, [3, 8], None, None, 0.001)), tol=t)
    case(f'group_norm_{d}', [('x', d, (2, 6, 3, 2), 'normal'), ('w', d, (6,), 'normal'), ('b', d, (6,), 'normal')],
         ['%o, %m, %r = aten::native_group_norm(%x, %w, %b, 2, 6, 6, 3, 1e-05)', '%p, %q, %s = aten::native_group_norm(%x, None, None, 2, 6, 6, 6, 0.01)'], '(%o, %m, %r, %p, %q, %s)',
         fn=lambda x, w, b: list(A.native_group_norm(x, w, b, 2, 6, 6, 3, 1e-05)) + list(A.native_group_norm(x, None, None, 2, 6, 6, 6, 0.01)), tol=t)
    case(f'batch_norm_training_{d}', [('x', d, (4, 3, 2, 2), 'normal'), ('w', d, (3,), 'normal'), ('b', d, (3,), 'normal')],
         ['%o, %m, %r = aten::_native_batch_norm_legit.no_stats(%x, %w, %b, True, 0.1, 1e-05)'], '(%o, %m, %r)',
         fn=lambda x, w, b: list(A.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-05)), tol=t)
    case(f'adaptive_avg_pool2d_{d}', [('x', d, (2, 3, 7, 5), 'normal')], ['%r = aten::_adaptive_avg_pool2d(%x, [3, 2])', '%s = aten::_adaptive_avg_pool2d(%x, [1, 1])', '%t = aten::_adaptive_avg_pool2d(%x, [9, 5])'],
         '(%r, %s, %t)', fn=lambda x: [A._adaptive_avg_pool2d(x, [3, 2]), A._adaptive_avg_pool2d(x, [1, 1]), A._adaptive_avg_pool2d(x, [9, 5])], tol=t)
    case(f'adaptive_avg_pool1d_{d}', [('x', d, (3, 10), 'normal')], ['%r = aten::adaptive_avg_pool1d(%x, [4])'], '%r', fn=lambda x: A.adaptive_avg_pool1d(x, [4]), tol=t)
    case(f'adaptive_avg_pool3d_{d}', [('x', d, (2, 4, 5, 3), 'normal')], ['%r = aten::_adaptive_avg_pool3d(%x, [3, 2, 2])'], '%r', fn=lambda x: A._adaptive_avg_pool3d(x, [3, 2, 2]), tol=t)


# ---- embedding_4bit: ExecuTorch's Python reference (exir/passes/_quant_patterns_and_replacements.py,
# cff6f4dd) transcribed, run on PyTorch 2.14.1: two 4-bit values a byte (high nibble first), less 8,
# dequantized per row or per group ----
def embedding_4bit(w, s, z, idx, dtype=None):
    gs = (2 * w.size(1)) // (s.size(1) if s.dim() == 2 else 1)
    wu = torch.stack((w.div(16, rounding_mode='trunc'), w.remainder(16)), dim=-1).view(w.shape[0], -1)
    wu = wu.view(torch.int8).add(-8)
    zp = z.reshape(-1, 1) if z is not None else torch.zeros([], dtype=torch.int32)
    dq = wu.reshape(-1, gs).sub(zp).mul(s.reshape(-1, 1)).reshape_as(wu).to(dtype or s.dtype)
    return A.embedding(dq, idx)


case('embedding_4bit', [('w', 'u8', (5, 4), 'normal'), ('s', 'f32', (5,), 'positive'), ('i', 'i64', (3,), 'list 4,0,2')],
     ['%r = quantized_decomposed::embedding_4bit(%w, %s, None, -8, 7, %i)'], '%r', fn=lambda w, s, i: embedding_4bit(w, s, None, i))
case('embedding_4bit_groups', [('w', 'u8', (3, 8), 'normal'), ('s', 'f32', (3, 4), 'positive'), ('z', 'f32', (3, 4), 'normal'),
                               ('i', 'i64', (2, 2), 'list 2,1,0,2')],
     ['%r = quantized_decomposed::embedding_4bit.dtype(%w, %s, %z, -8, 7, %i, torch.float64)'], '%r',
     fn=lambda w, s, z, i: embedding_4bit(w, s, z, i, torch.float64))
CASES.append(('embedding_4bit_range', 'graph(%w: u8[2, 2], %s: f32[2], %i: i64[1]):\n  %r = quantized_decomposed::embedding_4bit(%w, %s, None, 0, 15, %i)\n  return %r\n',
              [], [], None, None, None,
              'program.graph:2:3: error: quantized_decomposed::embedding_4bit: expects weight_quant_min -8 and weight_quant_max 7, got 0 and 15'))


# ---- quantized_decomposed (ExecuTorch's arithmetic, in NumPy: not in PyTorch 1.13) ----
def quantize(x, scale, zp, lo, hi, dt):
    """zero_point + nearbyint(inv_scale * x) in float, clamped; opgen defines what
    ExecuTorch leaves undefined: infinities saturate, NaN gives the zero point."""
    inv = np.float32(1.0) / np.float32(scale)
    with np.errstate(over='ignore', invalid='ignore'):  # int32(zp) + float: a float sum, as in C++
        q = (np.float32(np.int32(zp)) + np.rint(inv * np.asarray(x).astype(np.float32))).astype(np.float64)
    q = np.where(np.isnan(q), zp, q)
    return np.clip(q, lo, hi).astype(np.int64).astype(dt)


for d, lo, hi in [('u8', 0, 255), ('i8', -128, 127), ('i16', -32768, 32767), ('i32', -2**31, 2**31 - 1), ('u16', 0, 65535)]:
    tn = {'u8': 'uint8', 'i8': 'int8', 'i16': 'int16', 'i32': 'int32', 'u16': 'uint16'}[d]
    for fd in FLOATS:
        case(f'quantize_{fd}_{d}', [('x', fd, (10,), 'normal')], [f'%q = quantized_decomposed::quantize_per_tensor(%x, 0.1, 3, {lo}, {hi}, torch.{tn})'], '%q',
             fn=lambda x, lo=lo, hi=hi, d=d: quantize(x.numpy(), 0.1, 3, lo, hi, NUMPY[d]))
    qi = [('q', d, (2, 4), 'mod 200')]
    case(f'dequantize_{d}', qi, [f'%x = quantized_decomposed::dequantize_per_tensor(%q, 0.05, 2, {lo}, {hi}, torch.{tn})',
                                 f'%y = quantized_decomposed::dequantize_per_tensor(%q, 0.05, 2, {lo}, {hi}, torch.{tn}, out_dtype=torch.float64)'], '(%x, %y)',
         fn=lambda q: [((np.asarray(q).astype(np.int64) - 2).astype(np.float32) * np.float32(0.05)), ((np.asarray(q).astype(np.int64) - 2).astype(np.float32) * np.float32(0.05)).astype(np.float64)])
    case(f'dequantize_channel_{d}', [('q', d, (2, 3), 'mod 200'), ('s', 'f32', (3,), 'positive'), ('z', 'i64', (3,), 'mod 4')],
         [f'%x = quantized_decomposed::dequantize_per_channel(%q, %s, %z, 1, {lo}, {hi}, torch.{tn})',
          f'%y = quantized_decomposed::dequantize_per_channel(%q, %s, %z, -1, {lo}, {hi}, torch.{tn}, out_dtype=torch.float64)',
          f'%w = quantized_decomposed::dequantize_per_channel(%q, %s, None, 1, {lo}, {hi}, torch.{tn})'], '(%x, %y, %w)',
         fn=lambda q, s, z: [((np.asarray(q).astype(np.int64) - z.numpy()[None, :]).astype(np.float32) * s.numpy()[None, :]),
                             ((np.asarray(q).astype(np.int64) - z.numpy()[None, :]).astype(np.float32) * s.numpy()[None, :]).astype(np.float64),
                             (np.asarray(q).astype(np.int64).astype(np.float32) * s.numpy()[None, :])])
# large values: the zero point is added in float, rounding as ExecuTorch's does (make_cases.py quantize_large)
case('quantize_large_i32', [('x', 'f32', (6,), 'list 94073640,-94073640,16777217,123456789,2000000000,-7.5')],
     ['%q = quantized_decomposed::quantize_per_tensor(%x, 1.0, 1, -2147483648, 2147483647, torch.int32)', '%r = quantized_decomposed::quantize_per_tensor(%x, 0.25, -3, -2147483648, 2147483647, torch.int32)'], '(%q, %r)',
     fn=lambda x: [quantize(x.numpy(), 1.0, 1, -2**31, 2**31 - 1, np.int32), quantize(x.numpy(), 0.25, -3, -2**31, 2**31 - 1, np.int32)])
case('quantize_clamps', [('x', 'f32', (10,), 'special')], ['%q = quantized_decomposed::quantize_per_tensor(%x, 0.5, 128, 0, 255, torch.uint8)'], '%q',
     fn=lambda x: quantize(x.numpy(), 0.5, 128, 0, 255, np.uint8))


# ---- errors: each kernel's checks, the node named, the exact message ----
def err(name, prog, msg):
    CASES.append((name, prog, [], [], None, None, None, msg))


E = 'program.graph:2:3: error: '
err('add_bad_shape', 'graph(%x: f32[2, 3], %y: f32[4]):\n  %r = aten::add.Tensor(%x, %y)\n  return %r\n', E + 'aten::add.Tensor: shapes do not broadcast: size 3 against 4 in dimension 1')
err('add_int_float_alpha', 'graph(%x: i32[2], %y: i32[2]):\n  %r = aten::add.Tensor(%x, %y, alpha=1.5)\n  return %r\n', E + 'aten::add.Tensor: for integral input tensors, alpha must not be a floating point number')
# an integer alpha past a narrow result type (negated for sub), as c10's checked_convert refuses it
# (PyTorch 2.14.1; Int and Long results wrap there)
err('sub_u8_alpha_overflow', 'graph(%x: u8[3], %y: u8[3]):\n  %r = aten::sub.Tensor(%x, %y, alpha=300)\n  return %r\n', E + 'aten::sub.Tensor: value cannot be converted to type uint8_t without overflow')
err('sub_i8_alpha_min', 'graph(%x: i8[3], %y: i8[3]):\n  %r = aten::sub.Tensor(%x, %y, alpha=-128)\n  return %r\n', E + 'aten::sub.Tensor: value cannot be converted to type int8_t without overflow')
err('add_i16_alpha_overflow', 'graph(%x: i16[3], %y: i16[3]):\n  %r = aten::add.Tensor(%x, %y, alpha=40000)\n  return %r\n', E + 'aten::add.Tensor: value cannot be converted to type int16_t without overflow')
case('sub_u8_alpha_neg', [('x', 'u8', (7,), 'normal'), ('y', 'u8', (7,), 'normal')], ['%r = aten::sub.Tensor(%x, %y, alpha=-255)'], '%r',
     fn=lambda x, y: A.sub.Tensor(x, y, alpha=-255))
err('cat_bad_shape', 'graph(%x: f32[2, 3], %y: f32[3, 1]):\n  %r = aten::cat([%x, %y], 1)\n  return %r\n', E + 'aten::cat: tensor 1 has size 3 in dimension 0, expected 2')
err('view_bad_numel', 'graph(%x: f32[2, 3]):\n  %r = aten::view_copy(%x, [4, 2])\n  return %r\n', E + 'aten::view_copy: shape has 8 elements, the input 6')
err('mm_bad_inner', 'graph(%a: f32[2, 3], %b: f32[2, 3]):\n  %r = aten::mm(%a, %b)\n  return %r\n', E + 'aten::mm: cannot multiply 2x3 by 2x3')
err('softmax_bad_dim', 'graph(%x: f32[2, 3]):\n  %r = aten::_softmax(%x, 2, False)\n  return %r\n', E + 'aten::_softmax: dimension 2 is out of range for a 2-d tensor')
err('no_kernel_for_dtype', 'graph(%x: i32[2, 2], %y: i32[2, 2]):\n  %r = aten::mm(%x, %y)\n  return %r\n', E + 'aten::mm: the input has dtype Int, which this kernel does not handle')
err('bad_conv_channels', 'graph(%x: f32[1, 3, 5, 5], %w: f32[4, 2, 3, 3]):\n  %r = aten::convolution(%x, %w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)\n  return %r\n',
    E + 'aten::convolution: weight has 2 input channels per group, the input 3')
err('bad_conv_groups', 'graph(%x: f32[1, 4, 5, 5], %w: f32[6, 2, 3, 3]):\n  %r = aten::convolution(%x, %w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 3)\n  return %r\n',
    E + 'aten::convolution: 3 groups do not divide 4 input and 6 output channels')
err('bad_conv_big_strided', 'graph(%x: f32[1, 1, 2, 2], %w: f32[1, 1, 3, 3]):\n  %r = aten::convolution(%x, %w, None, [2, 2], [0, 0], [1, 1], False, [0, 0], 1)\n  return %r\n',
    E + 'aten::convolution: the kernel is larger than the padded input')
err('bad_conv_empty_kernel', 'graph(%x: f32[2, 8, 4, 3], %w: f32[6, 8, 1, 0]):\n  %r = aten::convolution(%x, %w, None, [4, 1], [0, 0], [1, 1], False, [0, 0], 1)\n  return %r\n',
    E + 'aten::convolution: the kernel is empty in spatial dimension 1')
err('bad_conv_empty_input', 'graph(%x: f32[2, 8, 4, 0], %w: f32[6, 8, 1, 1]):\n  %r = aten::convolution(%x, %w, None, [4, 1], [0, 0], [1, 1], False, [0, 0], 1)\n  return %r\n',
    E + 'aten::convolution: the input is empty in spatial dimension 1; only an empty batch or channel dimension is supported')
err('bad_conv_bias', 'graph(%x: f32[1, 1, 4, 4], %w: f32[2, 1, 3, 3], %b: f32[3]):\n  %r = aten::convolution(%x, %w, %b, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)\n  return %r\n',
    E + 'aten::convolution: bias must have 2 elements')
err('bad_conv_output_padding', 'graph(%x: f32[1, 1, 4, 4], %w: f32[1, 1, 3, 3]):\n  %r = aten::convolution(%x, %w, None, [2, 2], [0, 0], [1, 1], True, [2, 0], 1)\n  return %r\n',
    E + 'aten::convolution: output_padding 2 must be smaller than either the stride 2 or the dilation 1')
err('bad_conv_rank', 'graph(%x: f32[1, 4, 4], %w: f32[1, 1, 3, 3]):\n  %r = aten::convolution(%x, %w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)\n  return %r\n',
    E + 'aten::convolution: takes a 3-d, 4-d or 5-d input (1-D, 2-D or 3-D, batched) and a weight of as many dimensions, got 3-d and 4-d')
err('bad_conv_transposed_channels', 'graph(%x: f32[1, 2, 4], %w: f32[3, 1, 3]):\n  %r = aten::convolution(%x, %w, None, [1], [0], [1], True, [0], 1)\n  return %r\n',
    E + "aten::convolution: a transposed convolution's weight has 3 input channels, the input 2")
err('bad_pool_empty_channels', 'graph(%x: f32[1, 0, 4, 4]):\n  %r = aten::avg_pool2d(%x, [2, 2])\n  return %r\n',
    E + 'aten::avg_pool2d: dimension 1 of the input is empty; only a batch dimension may be (a 3-d or 4-d input)')
err('bad_maxpool_empty_3d', 'graph(%x: f32[0, 4, 4]):\n  %r, %i = aten::max_pool2d_with_indices(%x, [2, 2])\n  return %r\n',
    E + 'aten::max_pool2d_with_indices: dimension 0 of the input is empty; only a batch dimension may be (a 3-d or 4-d input)')
err('bad_cat_zero_dim', 'graph(%x: f32[], %y: f32[]):\n  %r = aten::cat([%x, %y], 0)\n  return %r\n',
    E + 'aten::cat: tensor 0 is zero-dimensional, which cannot be concatenated')
err('bad_clone_channels_last_rank', 'graph(%x: f32[2, 3, 4]):\n  %r = aten::clone(%x, memory_format=torch.channels_last)\n  return %r\n',
    E + 'aten::clone: channels_last takes a 4-d tensor, not 3-d')
err('bad_clone_channels_last_3d_rank', 'graph(%x: f32[2, 3, 4, 5]):\n  %r = aten::clone(%x, memory_format=torch.channels_last_3d)\n  return %r\n',
    E + 'aten::clone: channels_last_3d takes a 5-d tensor, not 4-d')
err('bad_addmm_bias', 'graph(%c: f32[3], %a: f32[2, 4], %b: f32[4, 5]):\n  %r = aten::addmm(%c, %a, %b)\n  return %r\n', E + 'aten::addmm: self does not broadcast to 2x5')
err('bad_bmm_batch', 'graph(%a: f32[2, 3, 4], %b: f32[3, 4, 5]):\n  %r = aten::bmm(%a, %b)\n  return %r\n', E + 'aten::bmm: batch sizes differ: 2 and 3')
err('bad_mm_dtypes', 'graph(%a: f32[2, 3], %b: f64[3, 2]):\n  %r = aten::mm(%a, %b)\n  return %r\n', E + 'aten::mm: operands must have one dtype, got Float and Double')
err('bad_pool_rank', 'graph(%x: f32[5, 5]):\n  %o, %i = aten::max_pool2d_with_indices(%x, [2, 2])\n  return (%o, %i)\n', E + 'aten::max_pool2d_with_indices: expected a 3-d or 4-d input, got 2-d')
err('bad_pool_padding', 'graph(%x: f32[1, 5, 5]):\n  %o, %i = aten::max_pool2d_with_indices(%x, [2, 2], [1, 1], [2, 2])\n  return (%o, %i)\n',
    E + 'aten::max_pool2d_with_indices: padding must be at most half the kernel size')
err('bad_avgpool_divisor', 'graph(%x: f32[1, 4, 4]):\n  %r = aten::avg_pool2d(%x, [2, 2], divisor_override=0)\n  return %r\n', E + 'aten::avg_pool2d: divisor must not be zero')
err('bad_bn_channels', 'graph(%x: f32[2, 3, 4], %w: f32[2], %m: f32[3], %v: f32[3]):\n  %o, %s, %t = aten::_native_batch_norm_legit_no_training(%x, %w, None, %m, %v, 0.1, 1e-05)\n  return (%o, %s, %t)\n',
    E + 'aten::_native_batch_norm_legit_no_training: weight must have 3 elements')
err('bad_permute_dims', 'graph(%x: f32[2, 3]):\n  %r = aten::permute_copy(%x, [0, 0])\n  return %r\n', E + 'aten::permute_copy: dimension 0 appears twice in dims')
err('bad_permute_len', 'graph(%x: f32[2, 3]):\n  %r = aten::permute_copy(%x, [0])\n  return %r\n', E + 'aten::permute_copy: 1 dims given for a 2-d tensor')
err('bad_expand', 'graph(%x: f32[2, 3]):\n  %r = aten::expand_copy(%x, [4, 3])\n  return %r\n', E + 'aten::expand_copy: cannot expand size 2 to 4 in dimension 0')
err('bad_sum_dim_twice', 'graph(%x: f32[2, 3]):\n  %r = aten::sum.dim_IntList(%x, [1, -1])\n  return %r\n', E + 'aten::sum.dim_IntList: dimension 1 appears twice')
err('bad_mean_int', 'graph(%x: i32[2, 3]):\n  %r = aten::mean.dim(%x, [1])\n  return %r\n', E + 'aten::mean.dim: mean needs a floating point result, not Int')
err('bad_cat_rank', 'graph(%x: f32[2, 3], %y: f32[3]):\n  %r = aten::cat([%x, %y])\n  return %r\n', E + 'aten::cat: tensor 1 has 1 dims, expected 2')
err('bad_cat_dtype', 'graph(%x: f32[2, 3], %y: f64[2, 3]):\n  %r = aten::cat([%x, %y])\n  return %r\n', E + 'aten::cat: tensor 1 has dtype Double, tensor 0 Float')
err('bad_cat_empty_list', 'graph(%x: f32[2, 3]):\n  %r = aten::cat([])\n  return %r\n', E + 'aten::cat: expected a non-empty list of tensors')
err('bad_embed_idx_dtype', 'graph(%w: f32[3, 2], %i: f32[4]):\n  %r = aten::embedding(%w, %i)\n  return %r\n', E + 'aten::embedding: indices must be Int or Long, not Float')
err('bad_embed_rank', 'graph(%w: f32[3], %i: i64[4]):\n  %r = aten::embedding(%w, %i)\n  return %r\n', E + 'aten::embedding: weight must be 2-d, got 1-d')
err('bad_deq_channel_scales', 'graph(%q: u8[2, 3], %s: f32[2]):\n  %r = quantized_decomposed::dequantize_per_channel(%q, %s, None, 1, 0, 255, torch.uint8)\n  return %r\n',
    E + 'quantized_decomposed::dequantize_per_channel: scales must have 3 elements')
err('bad_deq_axis', 'graph(%q: u8[2, 3], %s: f32[3]):\n  %r = quantized_decomposed::dequantize_per_channel(%q, %s, None, 2, 0, 255, torch.uint8)\n  return %r\n',
    E + 'quantized_decomposed::dequantize_per_channel: dimension 2 is out of range for a 2-d tensor')
err('bad_deq_dtype_mismatch', 'graph(%q: u8[2, 3]):\n  %r = quantized_decomposed::dequantize_per_tensor(%q, 0.1, 0, 0, 255, torch.int8)\n  return %r\n',
    E + 'quantized_decomposed::dequantize_per_tensor: input has dtype Byte, but dtype says Char')
err('bad_q_range', 'graph(%x: f32[3]):\n  %r = quantized_decomposed::quantize_per_tensor(%x, 0.1, 0, 0, 300, torch.uint8)\n  return %r\n',
    E + 'quantized_decomposed::quantize_per_tensor: [0, 300] is not a valid range for Byte')
err('bad_q_scale', 'graph(%x: f32[3]):\n  %r = quantized_decomposed::quantize_per_tensor(%x, 0.0, 0, 0, 255, torch.uint8)\n  return %r\n', E + 'quantized_decomposed::quantize_per_tensor: scale must be positive and finite, not 0')
err('bad_softmax_int', 'graph(%x: i32[3]):\n  %r = aten::_softmax(%x, 0, False)\n  return %r\n', E + 'aten::_softmax: softmax needs a floating point tensor, not Int')
err('bad_logsoftmax_dim', 'graph(%x: f32[3]):\n  %r = aten::_log_softmax(%x, -2, False)\n  return %r\n', E + 'aten::_log_softmax: dimension -2 is out of range for a 1-d tensor')
err('bad_clamp_none', 'graph(%x: f32[3]):\n  %r = aten::clamp(%x)\n  return %r\n', E + 'aten::clamp: at least one of min and max must be given')
err('bad_gelu_mode', 'graph(%x: f32[3]):\n  %r = aten::gelu(%x, approximate="fast")\n  return %r\n', E + "aten::gelu: approximate must be 'none' or 'tanh', not 'fast'")
err('bad_mm_rank', 'graph(%a: f32[3], %b: f32[3, 2]):\n  %r = aten::mm(%a, %b)\n  return %r\n', E + 'aten::mm: expected 2-D tensors, got 1-D and 2-D')
err('bad_add_alpha_bool', 'graph(%a: f32[3], %b: f32[3]):\n  %r = aten::add.Tensor(%a, %b, alpha=True)\n  return %r\n', E + 'aten::add.Tensor: a boolean alpha is only allowed for Bool tensors')
err('bad_div_bcast', 'graph(%a: f32[3], %b: f32[2]):\n  %r = aten::div.Tensor(%a, %b)\n  return %r\n', E + 'aten::div.Tensor: shapes do not broadcast: size 3 against 2 in dimension 0')
err('bad_sub_bool', 'graph(%a: b8[3], %b: b8[3]):\n  %r = aten::sub.Tensor(%a, %b)\n  return %r\n', E + 'aten::sub.Tensor: subtraction of Bool tensors is not supported')
err('bad_view_two_infer', 'graph(%x: f32[2, 3]):\n  %r = aten::view_copy(%x, [-1, -1])\n  return %r\n', E + 'aten::view_copy: only one dimension can be -1')
err('bad_relu_bool', 'graph(%x: b8[3]):\n  %r = aten::relu(%x)\n  return %r\n', E + 'aten::relu: relu is not defined for Bool')
err('bad_cumsum_f16', 'graph(%x: f16[3]):\n  %r = aten::cumsum(%x, 0)\n  return %r\n', E + 'aten::cumsum: the result has dtype Half, which this kernel does not handle')
err('bad_hardtanh_int', 'graph(%x: i32[3]):\n  %r = aten::hardtanh(%x)\n  return %r\n', E + 'aten::hardtanh: the result has dtype Int, which this kernel does not handle')
err('bad_exp_c64', 'graph(%x: c64[3]):\n  %r = aten::exp(%x)\n  return %r\n', E + 'aten::exp: no Edge constraint row allows (self=ComplexFloat, __ret_0=Float)')
err('bad_mul_scalar_bool', 'graph(%x: b8[3]):\n  %r = aten::mul.Scalar(%x, 2)\n  return %r\n', E + 'aten::mul.Scalar: no Edge constraint row allows (self=Bool, other=Long, __ret_0=Long)')
err('bad_add_scalar_alpha', 'graph(%x: i32[3]):\n  %r = aten::add.Scalar(%x, 2, 1.5)\n  return %r\n', E + 'aten::add.Scalar: for integral input tensors, alpha must not be a floating point number')
err('where_no_edge_row', 'graph(%c: b8[2], %x: f32[2], %y: f64[2]):\n  %r = aten::where.self(%c, %x, %y)\n  return %r\n',
    E + 'aten::where.self: no Edge constraint row allows (condition=Bool, self=Float, other=Double, __ret_0=Double)')
CASES.append(('bad_fmod_zero', 'graph(%x: i32[3]):\n  %r = aten::fmod.Scalar(%x, 0)\n  return %r\n', [('x', 'i32', (3,), 'normal')], None, None, None, None,
              E + 'aten::fmod.Scalar: ZeroDivisionError (integer division by zero)'))
err('bad_div_mode', 'graph(%x: f32[3], %y: f32[3]):\n  %r = aten::div.Tensor_mode(%x, %y, rounding_mode="ceil")\n  return %r\n', E + "aten::div.Tensor_mode: rounding_mode must be None, 'trunc' or 'floor', not 'ceil'")
err('bad_pow_negative_int', 'graph(%x: i32[3]):\n  %r = aten::pow.Tensor_Scalar(%x, -1)\n  return %r\n', E + 'aten::pow.Tensor_Scalar: integers to negative integer powers are not allowed')
err('bad_bitwise_float', 'graph(%x: f32[3], %y: f32[3]):\n  %r = aten::bitwise_and.Tensor(%x, %y)\n  return %r\n', E + 'aten::bitwise_and.Tensor: bitwise ops are not defined for Float')
err('bad_neg_bool', 'graph(%x: b8[3]):\n  %r = aten::neg(%x)\n  return %r\n', E + 'aten::neg: negation, the `-` operator, on a bool tensor is not supported')
err('bad_remainder_bool', 'graph(%x: b8[3], %y: b8[3]):\n  %r = aten::remainder.Tensor(%x, %y)\n  return %r\n', E + 'aten::remainder.Tensor: not defined for Bool')
CASES.append(('div_floor_int_zero', 'graph(%x: i64[4], %y: i64[4]):\n  %r = aten::div.Tensor_mode(%x, %y, rounding_mode="floor")\n  return %r\n', [('x', 'i64', (4,), 'normal'), ('y', 'i64', (4,), 'list 1,2,0,3')],
              None, None, None, None, 'program.graph:2:3: error: aten::div.Tensor_mode: ZeroDivisionError (integer division by zero)'))
err('bad_amax_empty', 'graph(%x: f32[2, 0]):\n  %r = aten::amax(%x, [1])\n  return %r\n', E + 'aten::amax: cannot reduce over a dimension of size 0')
err('bad_argmax_dim', 'graph(%x: f32[2, 3]):\n  %r = aten::argmax(%x, 2)\n  return %r\n', E + 'aten::argmax: dimension 2 is out of range for a 2-d tensor')
err('bad_var_int', 'graph(%x: i32[2, 3]):\n  %r = aten::var.dim(%x, [1])\n  return %r\n', E + 'aten::var.dim: the result has dtype Int, which this kernel does not handle')
err('bad_select_index', 'graph(%x: f32[2, 3]):\n  %r = aten::select_copy.int(%x, 1, 3)\n  return %r\n', E + 'aten::select_copy.int: index 3 is out of bounds for dimension 1 with size 3')
err('bad_slice_step', 'graph(%x: f32[2, 3]):\n  %r = aten::slice_copy.Tensor(%x, 1, 0, 2, 0)\n  return %r\n', E + 'aten::slice_copy.Tensor: slice step must be positive')
err('bad_as_strided_reach', 'graph(%x: f32[2, 3]):\n  %r = aten::as_strided_copy(%x, [3, 3], [2, 1])\n  return %r\n', E + 'aten::as_strided_copy: the view reaches element 6 of an input of 6')
err('bad_pad_odd', 'graph(%x: f32[2, 3]):\n  %r = aten::constant_pad_nd(%x, [1, 2, 3])\n  return %r\n', E + 'aten::constant_pad_nd: padding length must be even and at most twice the input\'s 2 dims, got 3')
err('bad_diagonal_dims', 'graph(%x: f32[2, 3]):\n  %r = aten::diagonal_copy(%x, 0, 1, -1)\n  return %r\n', E + 'aten::diagonal_copy: diagonal dimensions cannot be identical 1, -1')
err('bad_slice_scatter_src', 'graph(%x: f32[4, 5], %s: f32[4, 3]):\n  %r = aten::slice_scatter(%x, %s, 1, 1, 5, 2)\n  return %r\n', E + 'aten::slice_scatter: src has size 3 in dimension 1, the slot 2')
err('bad_gather_index_dtype', 'graph(%x: f32[4, 5], %i: i32[4, 5]):\n  %r = aten::gather(%x, 0, %i)\n  return %r\n', E + 'aten::gather: index must be Long, not Int')
err('bad_repeat_rank', 'graph(%x: f32[4, 5]):\n  %r = aten::repeat(%x, [2])\n  return %r\n', E + 'aten::repeat: 1 repeats for a 2-d tensor')
CASES.append(('bad_gather_index_range', 'graph(%x: f32[3, 5], %i: i64[2]):\n  %r = aten::index_select(%x, 0, %i)\n  return %r\n', [('x', 'f32', (3, 5), 'normal'), ('i', 'i64', (2,), 'list 1,3')],
              None, None, None, None, 'program.graph:2:3: error: aten::index_select: index 3 is out of bounds for a dimension of size 3'))
err('bad_reflection_pad', 'graph(%x: f32[2, 3]):\n  %r = aten::reflection_pad1d(%x, [3, 0])\n  return %r\n', E + 'aten::reflection_pad1d: padding (3, 0) must be less than the input\'s size 3 in dimension 1')
err('bad_layer_norm_shape', 'graph(%x: f32[2, 3]):\n  %o, %m, %r = aten::native_layer_norm(%x, [2], None, None, 1e-05)\n  return (%o, %m, %r)\n', E + "aten::native_layer_norm: the input's trailing dimensions do not match normalized_shape")
err('bad_group_norm_groups', 'graph(%x: f32[2, 6, 3]):\n  %o, %m, %r = aten::native_group_norm(%x, None, None, 2, 6, 3, 4, 1e-05)\n  return (%o, %m, %r)\n', E + 'aten::native_group_norm: 4 groups do not divide 6 channels')
CASES.append(('embedding_index_range', 'graph(%w: f32[3, 2], %i: i64[4]):\n  %r = aten::embedding(%w, %i)\n  return %r\n', [('w', 'f32', (3, 2), 'normal'), ('i', 'i64', (4,), 'list 0,2,4,1')],
              None, None, None, None, 'program.graph:2:3: error: aten::embedding: index 4 is out of range for 3 embeddings'))


# ---- factories and conversions: the dtype argument names the result's dtype ----
TNAME = {'b8': 'torch.bool', 'u8': 'torch.uint8', 'i8': 'torch.int8', 'i16': 'torch.int16', 'i32': 'torch.int32', 'i64': 'torch.int64',
         'f32': 'torch.float32', 'f64': 'torch.float64'}
REAL8 = ['b8'] + INTS + FLOATS
for fill, tag in [(1, 'int'), (2.5, 'float'), ('True', 'bool')]:
    v = {'True': True}.get(fill, fill)
    dts = [d for d in REAL8 if not (tag == 'float' and d == 'b8')]
    body = ['%d = aten::full([2, 3], ' + str(fill) + ')'] + [f'%r{i} = aten::full([2, 3], {fill}, dtype={TNAME[d]})' for i, d in enumerate(dts)]
    body += ['%z = aten::full([], ' + str(fill) + ', dtype=torch.float64)', '%e = aten::full([0, 3], ' + str(fill) + ')']
    case(f'full_{tag}', [], body, '(%d, ' + ', '.join(f'%r{i}' for i in range(len(dts))) + ', %z, %e)',
         fn=lambda dts=dts, v=v: [torch.full((2, 3), v)] + [torch.full((2, 3), v, dtype=TORCH[d]) for d in dts] + [torch.full((), v, dtype=torch.float64), torch.full((0, 3), v)])
    body = ['%d = aten::full_like(%x, ' + str(fill) + ')'] + [f'%r{i} = aten::full_like(%x, {fill}, dtype={TNAME[d]})' for i, d in enumerate(dts)]
    case(f'full_like_{tag}', [('x', 'i16', (3, 1, 2), 'normal')], body, '(%d, ' + ', '.join(f'%r{i}' for i in range(len(dts))) + ')',
         fn=lambda x, dts=dts, v=v: [torch.full_like(x, v)] + [torch.full_like(x, v, dtype=TORCH[d]) for d in dts])
    body = ['%d = aten::scalar_tensor(' + str(fill) + ')'] + [f'%r{i} = aten::scalar_tensor({fill}, dtype={TNAME[d]})' for i, d in enumerate(dts)]
    case(f'scalar_tensor_{tag}', [], body, '(%d, ' + ', '.join(f'%r{i}' for i in range(len(dts))) + ')',
         fn=lambda dts=dts, v=v: [torch.scalar_tensor(v)] + [torch.scalar_tensor(v, dtype=TORCH[d]) for d in dts])
case('full_like_float_of_int', [('x', 'f64', (2, 2), 'normal')], ['%r = aten::full_like(%x, 7)', '%s = aten::full_like(%x, -1.5, dtype=torch.int32)'], '(%r, %s)',
     fn=lambda x: [torch.full_like(x, 7), torch.full_like(x, -1.5, dtype=torch.int32)])
case('full_uint8_wraps_negative', [], ['%r = aten::full([3], -1, dtype=torch.uint8)'], '%r', fn=lambda: torch.full((3,), -1, dtype=torch.uint8))
err('full_overflow', 'graph():\n  %r = aten::full([3], 300, dtype=torch.int8)\n  return %r\n', E + 'aten::full: value cannot be converted to type Char without overflow')
err('full_nan_int', 'graph():\n  %r = aten::full([3], nan, dtype=torch.int32)\n  return %r\n', E + 'aten::full: value cannot be converted to type Int without overflow')
err('full_negative_size', 'graph():\n  %r = aten::full([2, -1], 1.0)\n  return %r\n', E + 'aten::full: negative dimension -1')
# empty: ATen leaves the values unspecified; the shape and dtype are PyTorch's, the values opgen's zeros
body = ['%d = aten::empty.memory_format([2, 3])'] + [f'%r{i} = aten::empty.memory_format([4, 0, 2], dtype={TNAME[d]})' for i, d in enumerate(REAL8)]
body += [f'%s{i} = aten::empty_strided([3, 2], [1, 3], dtype={TNAME[d]})' for i, d in enumerate(REAL8)]
case('empty_all', [], body, '(%d, ' + ', '.join(f'%r{i}' for i in range(len(REAL8))) + ', ' + ', '.join(f'%s{i}' for i in range(len(REAL8))) + ')',
     fn=lambda: [torch.zeros_like(torch.empty(2, 3))] + [torch.zeros_like(torch.empty(4, 0, 2, dtype=TORCH[d])) for d in REAL8]
     + [torch.zeros_like(torch.empty_strided((3, 2), (1, 3), dtype=TORCH[d])).contiguous() for d in REAL8])
AR = [(0, 5, 1), (0, 5, 1.5), (-3, 4, 2), (10, 1, -3), (0.5, 2.1, 0.3), (1, 1, 1), (-1.0, 1.0, 0.1), (5, 0, -1.5)]
# integer results exactly; float ones within rel 1e-5 (f32) / 1e-12 (f64): ATen's vectorised
# loop adds i * step to a base rounded to the dtype every vector width, opgen computes
# start + i * step in double for each element (ATen's scalar formula)
for group, dts in [('int', INTS), ('f32', ['f32']), ('f64', ['f64'])]:
    body, fns = [], []
    for k, (a, b, c) in enumerate(AR):
        if group != 'int':
            body.append(f'%d{k} = aten::arange.start_step({a}, {b}, {c})' if group == 'f32' else f'%d{k} = aten::arange.start_step({a}, {b}, {c}, dtype=torch.float64)')
            fns.append(lambda a=a, b=b, c=c, g=group: torch.arange(a, b, c, dtype=torch.float64 if g == 'f64' else None))
        for i, d in enumerate(dts):
            if group != 'int' or (d == 'u8' and (a < 0 or b < 0)) or abs(c) < 1:
                continue
            body.append(f'%r{k}_{i} = aten::arange.start_step({a}, {b}, {c}, dtype={TNAME[d]})')
            fns.append(lambda a=a, b=b, c=c, d=d: torch.arange(a, b, c, dtype=TORCH[d]))
    names = [l.split(' = ')[0] for l in body]
    case(f'arange_{group}', [], body, '(' + ', '.join(names) + ')', fn=lambda fns=fns: [f() for f in fns], tol=REL.get(group, 'exact'))
err('arange_zero_step', 'graph():\n  %r = aten::arange.start_step(0, 4, 0)\n  return %r\n', E + 'aten::arange.start_step: step must be nonzero')
err('arange_wrong_sign', 'graph():\n  %r = aten::arange.start_step(0, 4, -1)\n  return %r\n', E + 'aten::arange.start_step: upper bound and larger bound inconsistent with step sign')
for src in REAL8:
    body = [f'%r{i} = aten::_to_copy(%x, dtype={TNAME[d]})' for i, d in enumerate(REAL8)] + ['%s = aten::_to_copy(%x)', '%t = aten::_to_copy(%p, dtype=torch.float64)']
    case(f'to_copy_{src}', [('x', src, (2, 5), 'normal'), ('p', src, (3, 4), 'normal')], body[:-1] + ['%q = aten::permute_copy(%p, [1, 0])', body[-1].replace('%p', '%q')],
         '(' + ', '.join(f'%r{i}' for i in range(len(REAL8))) + ', %s, %t)',
         fn=lambda x, p: [x.to(TORCH[d]) for d in REAL8] + [x.clone(), p.permute(1, 0).to(torch.float64)])
for src in FLOATS:  # ATen's float -> integer conversion truncates; out-of-range values are left out (C leaves them undefined)
    case(f'to_copy_{src}_fractions', [('x', src, (10,), 'list -2.5,-1.5,-0.5,0.5,1.5,2.5,-0.49,0.51,-3.7,3.2')],
         [f'%r{i} = aten::_to_copy(%x, dtype={TNAME[d]})' for i, d in enumerate(REAL8) if d != 'u8'], '(' + ', '.join(f'%r{i}' for i, d in enumerate(REAL8) if d != 'u8') + ')',
         fn=lambda x: [x.to(TORCH[d]) for d in REAL8 if d != 'u8'])
    case(f'to_copy_{src}_special', [('x', src, (12,), 'special')], ['%r = aten::_to_copy(%x, dtype=torch.float32)', '%s = aten::_to_copy(%x, dtype=torch.float64)', '%b = aten::_to_copy(%x, dtype=torch.bool)'],
         '(%r, %s, %b)', fn=lambda x: [x.to(torch.float32), x.to(torch.float64), x.to(torch.bool)])


# ---- sort and topk: values without ties (any order of ties is ATen's to choose), and ties
# and specials against ATen's stable sort ----
for d in REAL8:
    shape = (3, 5, 4) if d != 'u8' else (3, 5, 4)
    kind = 'distinct' if d != 'b8' else 'normal'
    st = d == 'b8'
    case(f'sort_{d}', [('x', d, shape, kind), ('z', d, (), kind)],
         ['%a, %ai = aten::sort(%x)', '%b, %bi = aten::sort(%x, 1, True)', '%c, %ci = aten::sort(%x, 0)', '%e, %ei = aten::sort(%z, 0, True)'],
         '(%a, %ai, %b, %bi, %c, %ci, %e, %ei)',
         fn=lambda x, z, st=st: [*torch.sort(x, stable=st), *torch.sort(x, dim=1, descending=True, stable=st), *torch.sort(x, dim=0, stable=st), *torch.sort(z, dim=0, descending=True)])
    if d == 'b8':
        continue
    case(f'topk_{d}', [('x', d, shape, 'distinct')],
         ['%a, %ai = aten::topk(%x, 2)', '%b, %bi = aten::topk(%x, 3, 1, False)', '%c, %ci = aten::topk(%x, 0, 0)', '%e, %ei = aten::topk(%x, 4, -1, True, False)'],
         '(%a, %ai, %b, %bi, %c, %ci, %e, %ei)',
         fn=lambda x: [*torch.topk(x, 2), *torch.topk(x, 3, 1, False), *torch.topk(x, 0, 0), *torch.topk(x, 4, -1, True, True)])
for d in FLOATS:
    case(f'sort_special_{d}', [('x', d, (2, 12), 'special')], ['%a, %ai = aten::sort(%x)', '%b, %bi = aten::sort(%x, -1, True)'], '(%a, %ai, %b, %bi)',
         fn=lambda x: [*torch.sort(x, stable=True), *torch.sort(x, dim=-1, descending=True, stable=True)])
    case(f'sort_ties_{d}', [('x', d, (4, 9), 'mod 3')], ['%a, %ai = aten::sort(%x, 0)', '%b, %bi = aten::sort(%x, -1, True)'], '(%a, %ai, %b, %bi)',
         fn=lambda x: [*torch.sort(x, dim=0, stable=True), *torch.sort(x, dim=-1, descending=True, stable=True)])
    case(f'topk_special_{d}', [('x', d, (12,), 'list 5,nan,-inf,3,inf,1,-2,0.5,7,-9,2,4')], ['%a, %ai = aten::topk(%x, 4)', '%b, %bi = aten::topk(%x, 3, 0, False)'], '(%a, %ai, %b, %bi)',
         fn=lambda x: [*torch.topk(x, 4), *torch.topk(x, 3, 0, False)])
err('topk_k_range', 'graph(%x: f32[2, 3]):\n  %a, %b = aten::topk(%x, 4)\n  return (%a, %b)\n', E + 'aten::topk: selected index k out of range')
err('topk_bool', 'graph(%x: b8[2, 3]):\n  %a, %b = aten::topk(%x, 1)\n  return (%a, %b)\n', E + 'aten::topk: the input has dtype Bool, which this kernel does not handle')


# ---- pooling in 1 and 3 dimensions, upsampling ----
NNF = torch.nn.functional
for d in FLOATS:
    case(f'avg_pool1d_{d}', [('x', d, (2, 3, 11), 'normal'), ('y', d, (4, 9), 'normal')],
         ['%a = aten::avg_pool1d(%x, [3])', '%b = aten::avg_pool1d(%x, [4], [2], [1])', '%c = aten::avg_pool1d(%x, [3], [2], [1], True, False)', '%e = aten::avg_pool1d(%y, [2], [3])'],
         '(%a, %b, %c, %e)', fn=lambda x, y: [A.avg_pool1d(x, [3]), A.avg_pool1d(x, [4], [2], [1]), A.avg_pool1d(x, [3], [2], [1], True, False), A.avg_pool1d(y, [2], [3])], tol=REL[d])
    case(f'avg_pool3d_{d}', [('x', d, (2, 2, 5, 6, 7), 'normal'), ('y', d, (3, 4, 4, 5), 'normal')],
         ['%a = aten::avg_pool3d(%x, [2, 2, 2])', '%b = aten::avg_pool3d(%x, [3, 2, 3], [2, 1, 2], [1, 1, 0])', '%c = aten::avg_pool3d(%x, [3, 3, 3], [2, 2, 2], [1, 1, 1], True, False)',
          '%e = aten::avg_pool3d(%y, [2, 2, 2], [1, 2, 2], [0, 0, 0], False, True, 3)'],
         '(%a, %b, %c, %e)', fn=lambda x, y: [A.avg_pool3d(x, [2, 2, 2]), A.avg_pool3d(x, [3, 2, 3], [2, 1, 2], [1, 1, 0]), A.avg_pool3d(x, [3, 3, 3], [2, 2, 2], [1, 1, 1], True, False),
                                              A.avg_pool3d(y, [2, 2, 2], [1, 2, 2], [0, 0, 0], False, True, 3)], tol=REL[d])
    case(f'max_pool3d_{d}', [('x', d, (2, 2, 5, 6, 7), 'normal'), ('y', d, (1, 3, 4, 5), 'special')],
         ['%a, %ai = aten::max_pool3d_with_indices(%x, [2, 2, 2])', '%b, %bi = aten::max_pool3d_with_indices(%x, [3, 2, 3], [2, 1, 2], [1, 1, 0], [1, 2, 1], True)',
          '%c, %ci = aten::max_pool3d_with_indices(%y, [2, 2, 2], [1, 1, 1])'],
         '(%a, %ai, %b, %bi, %c, %ci)', fn=lambda x, y: [*A.max_pool3d_with_indices(x, [2, 2, 2]), *A.max_pool3d_with_indices(x, [3, 2, 3], [2, 1, 2], [1, 1, 0], [1, 2, 1], True),
                                                          *A.max_pool3d_with_indices(y, [2, 2, 2], [1, 1, 1])])
for d in ['u8'] + FLOATS:
    case(f'upsample_nearest2d_{d}', [('x', d, (2, 3, 4, 5), 'normal')],
         ['%a = aten::upsample_nearest2d.vec(%x, [8, 10], None)', '%b = aten::upsample_nearest2d.vec(%x, [7, 3], None)', '%c = aten::upsample_nearest2d.vec(%x, None, [1.5, 2.7])',
          '%e = aten::upsample_nearest2d.vec(%x, None, [0.5, 3.0])'],
         '(%a, %b, %c, %e)', fn=lambda x: [A.upsample_nearest2d.vec(x, [8, 10], None), A.upsample_nearest2d.vec(x, [7, 3], None), A.upsample_nearest2d.vec(x, None, [1.5, 2.7]),
                                          A.upsample_nearest2d.vec(x, None, [0.5, 3.0])])
for d in FLOATS:
    for ac in [False, True]:
        case(f'upsample_bilinear2d_{d}{"_ac" if ac else ""}', [('x', d, (2, 3, 4, 5), 'normal')],
             [f'%a = aten::upsample_bilinear2d.vec(%x, [8, 10], {ac}, None)', f'%b = aten::upsample_bilinear2d.vec(%x, [7, 3], {ac}, None)',
              f'%c = aten::upsample_bilinear2d.vec(%x, None, {ac}, [1.5, 2.7])', f'%e = aten::upsample_bilinear2d.vec(%x, [4, 1], {ac}, None)'],
             '(%a, %b, %c, %e)', fn=lambda x, ac=ac: [A.upsample_bilinear2d.vec(x, [8, 10], ac, None), A.upsample_bilinear2d.vec(x, [7, 3], ac, None),
                                                     A.upsample_bilinear2d.vec(x, None, ac, [1.5, 2.7]), A.upsample_bilinear2d.vec(x, [4, 1], ac, None)], tol=REL[d])
err('upsample_both', 'graph(%x: f32[1, 1, 2, 2]):\n  %r = aten::upsample_nearest2d.vec(%x, [4, 4], [2.0, 2.0])\n  return %r\n', E + 'aten::upsample_nearest2d.vec: must specify exactly one of output_size and scale_factors')
err('avg_pool3d_pad', 'graph(%x: f32[1, 1, 4, 4, 4]):\n  %r = aten::avg_pool3d(%x, [2, 2, 2], [1, 1, 1], [2, 0, 0])\n  return %r\n', E + 'aten::avg_pool3d: padding must be at most half the kernel size')


# ---- advanced indexing: index.Tensor and index_put (Long and Int indices, None, broadcast, negatives) ----
for d in REAL8:
    case(f'index_{d}', [('x', d, (4, 5, 6), 'normal'), ('i', 'i64', (3,), 'list 0,-1,2'), ('j', 'i64', (2, 1), 'list 4,1'), ('k', 'i32', (3,), 'list 5,0,-6')],
         ['%a = aten::index.Tensor(%x, [%i])', '%b = aten::index.Tensor(%x, [None, %j])', '%c = aten::index.Tensor(%x, [%i, None, %k])',
          '%e = aten::index.Tensor(%x, [None, %j, %k])', '%f = aten::index.Tensor(%x, [%i, %j])'],
         '(%a, %b, %c, %e, %f)',
         fn=lambda x, i, j, k: [x[i], x[:, j], x[i, :, k.long()], x[:, j, k.long()], x[i, j]])
    case(f'index_put_{d}', [('x', d, (4, 5, 3), 'normal'), ('i', 'i64', (3,), 'list 0,-1,2'), ('j', 'i64', (3,), 'list 4,1,0'), ('v', d, (3, 3), 'normal'), ('w', d, (3,), 'normal'), ('u', d, (5,), 'normal'), ('k', 'i64', (3,), 'list 2,1,0')],
         ['%a = aten::index_put(%x, [%i], %w)', '%b = aten::index_put(%x, [%i, %j], %v)', '%c = aten::index_put(%x, [None, %j], %w, True)',
          '%e = aten::index_put(%x, [%i, None, %k], %u)'],
         '(%a, %b, %c, %e)',
         fn=lambda x, i, j, v, w, u, k: [A.index_put(x, [i], w), A.index_put(x, [i, j], v), A.index_put(x, [None, j], w, True), A.index_put(x, [i, None, k], u)])
case('index_put_accumulate_repeats', [('x', 'f32', (5,), 'normal'), ('i', 'i64', (6,), 'list 1,3,1,1,0,3'), ('v', 'f32', (6,), 'normal')],
     ['%a = aten::index_put(%x, [%i], %v, True)'], '%a', fn=lambda x, i, v: A.index_put(x, [i], v, True), tol=REL['f32'])
CASES.append(('index_out_of_range', 'graph(%x: f32[3, 4], %i: i64[2]):\n  %r = aten::index.Tensor(%x, [None, %i])\n  return %r\n', [('x', 'f32', (3, 4), 'normal'), ('i', 'i64', (2,), 'list 1,4')],
              None, None, None, None, 'program.graph:2:3: error: aten::index.Tensor: index 4 is out of bounds for dimension 1 with size 4'))
# bool and uint8 masks (PyTorch 2.14.1): the result's size is the mask's count (data-dependent)
case('index_bool_mask', [('x', 'f32', (3, 4), 'normal'), ('m', 'b8', (3,), 'normal'), ('n', 'b8', (3, 4), 'normal'), ('k', 'b8', (4,), 'normal')],
     ['%a = aten::index.Tensor(%x, [%m])', '%b = aten::index.Tensor(%x, [%n])', '%c = aten::index.Tensor(%x, [None, %k])'], '(%a, %b, %c)',
     fn=lambda x, m, n, k: [A.index.Tensor(x, [m]), A.index.Tensor(x, [n]), A.index.Tensor(x, [None, k])])
case('index_put_bool_mask', [('x', 'f32', (4, 3), 'normal'), ('m', 'b8', (4, 3), 'normal'), ('v', 'f32', (1,), 'normal')],
     ['%a = aten::index_put(%x, [%m], %v)', '%b = aten::index_put(%x, [%m], %v, True)'], '(%a, %b)',
     fn=lambda x, m, v: [A.index_put(x, [m], v), A.index_put(x, [m], v, True)])
err('index_bool_mask_shape', 'graph(%x: f32[3, 4], %m: b8[4]):\n  %r = aten::index.Tensor(%x, [%m])\n  return %r\n',
    E + 'aten::index.Tensor: the shape of the mask 4 at index 0 does not match the shape of the indexed tensor 3 at index 0')
err('index_broadcast', 'graph(%x: f32[3, 4], %i: i64[2], %j: i64[3]):\n  %r = aten::index.Tensor(%x, [%i, %j])\n  return %r\n',
    E + 'aten::index.Tensor: shape mismatch: indexing tensors could not be broadcast together')


# ---- split_with_sizes_copy: a list of results ----
for d in REAL8:
    case(f'split_with_sizes_{d}', [('x', d, (5, 4, 3), 'normal')],
         ['%a, %b, %c = aten::split_with_sizes_copy(%x, [1, 3, 1])', '%e, %f = aten::split_with_sizes_copy(%x, [0, 4], 1)', '%g, %h = aten::split_with_sizes_copy(%x, [2, 1], -1)'],
         '(%a, %b, %c, %e, %f, %g, %h)',
         fn=lambda x: [*torch.split(x, [1, 3, 1]), *torch.split(x, [0, 4], 1), *torch.split(x, [2, 1], -1)])
err('split_sizes_sum', 'graph(%x: f32[5, 3]):\n  %a, %b = aten::split_with_sizes_copy(%x, [2, 2])\n  return (%a, %b)\n',
    E + 'aten::split_with_sizes_copy: split sizes must sum exactly to 5 (the size of dimension 0)')


# ---- scatter_reduce (every reduction, with and without self) and masked_scatter ----
for d in INTS + FLOATS:
    body, fns = [], []
    for red in ['sum', 'prod', 'mean', 'amax', 'amin']:
        for inc in [True, False]:
            body.append(f'%{red}{int(inc)} = aten::scatter_reduce.two(%x, 1, %i, %s, "{red}", include_self={inc})')
            fns.append(lambda x, i, s_, red=red, inc=inc: x.scatter_reduce(1, i, s_, red, include_self=inc))
    names = [l.split(' = ')[0] for l in body]
    case(f'scatter_reduce_{d}', [('x', d, (3, 5), 'nonzero'), ('i', 'i64', (3, 4), 'index 5'), ('s', d, (3, 4), 'nonzero')], body, '(' + ', '.join(names) + ')',
         fn=lambda x, i, s_, fns=fns: [f(x, i, s_) for f in fns], tol=REL.get(d, 'exact'))
for d in FLOATS:
    case(f'scatter_reduce_special_{d}', [('x', d, (2, 6), 'special'), ('i', 'i64', (2, 6), 'index 3'), ('s', d, (2, 6), 'special')],
         ['%a = aten::scatter_reduce.two(%x, 1, %i, %s, "amax")', '%b = aten::scatter_reduce.two(%x, 1, %i, %s, "amin", include_self=False)'], '(%a, %b)',
         fn=lambda x, i, s_: [x.scatter_reduce(1, i, s_, 'amax'), x.scatter_reduce(1, i, s_, 'amin', include_self=False)])
for d in REAL8:
    case(f'masked_scatter_{d}', [('x', d, (3, 4), 'normal'), ('m', 'b8', (3, 4), 'normal'), ('r', 'b8', (4,), 'normal'), ('s', d, (13,), 'normal')],
         ['%a = aten::masked_scatter(%x, %m, %s)', '%b = aten::masked_scatter(%x, %r, %s)'], '(%a, %b)',
         fn=lambda x, m, r, s_: [x.masked_scatter(m, s_), x.masked_scatter(r, s_)])
err('scatter_reduce_bad', 'graph(%x: f32[3], %i: i64[3], %s: f32[3]):\n  %r = aten::scatter_reduce.two(%x, 0, %i, %s, "max")\n  return %r\n',
    E + 'aten::scatter_reduce.two: reduce argument must be either sum, prod, mean, amax or amin, got max')
CASES.append(('masked_scatter_short', 'graph(%x: f32[4], %m: b8[4], %s: f32[2]):\n  %r = aten::masked_scatter(%x, %m, %s)\n  return %r\n',
              [('x', 'f32', (4,), 'normal'), ('m', 'b8', (4,), 'list 1,1,0,1'), ('s', 'f32', (2,), 'normal')], None, None, None, None,
              'program.graph:2:3: error: aten::masked_scatter: number of elements in source < number of ones in mask'))


# ---- distances; gradients of pooling and embedding; col2im ----
for d in FLOATS:
    case(f'cdist_{d}', [('a', d, (2, 4, 3), 'normal'), ('b', d, (2, 5, 3), 'normal'), ('c', d, (6, 7), 'normal'), ('e', d, (3, 7), 'normal')],
         ['%p2 = aten::_cdist_forward(%a, %b, 2.0, None)', '%p1 = aten::_cdist_forward(%a, %b, 1.0, None)', '%p0 = aten::_cdist_forward(%a, %b, 0.0, None)',
          '%pi = aten::_cdist_forward(%c, %e, inf, None)', '%p3 = aten::_cdist_forward(%c, %e, 3.5, 2)'],
         '(%p2, %p1, %p0, %pi, %p3)',
         fn=lambda a, b, c, e: [A._cdist_forward(a, b, 2.0, None), A._cdist_forward(a, b, 1.0, None), A._cdist_forward(a, b, 0.0, None),
                                A._cdist_forward(c, e, float('inf'), None), A._cdist_forward(c, e, 3.5, 2)], tol=REL[d])
    case(f'pdist_{d}', [('x', d, (6, 4), 'normal'), ('y', d, (1, 3), 'normal')],
         ['%a = aten::_pdist_forward(%x)', '%b = aten::_pdist_forward(%x, 1.0)', '%c = aten::_pdist_forward(%x, inf)', '%e = aten::_pdist_forward(%x, 0.5)', '%f = aten::_pdist_forward(%y)'],
         '(%a, %b, %c, %e, %f)',
         fn=lambda x, y: [A._pdist_forward(x), A._pdist_forward(x, 1.0), A._pdist_forward(x, float('inf')), A._pdist_forward(x, 0.5), A._pdist_forward(y)], tol=REL[d])
    case(f'adaptive_avg_pool2d_backward_{d}', [('g', d, (2, 3, 3, 2), 'normal'), ('x', d, (2, 3, 7, 5), 'normal'), ('h', d, (3, 4, 4), 'normal'), ('y', d, (3, 4, 4), 'normal')],
         ['%a = aten::_adaptive_avg_pool2d_backward(%g, %x)', '%b = aten::_adaptive_avg_pool2d_backward(%h, %y)'], '(%a, %b)',
         fn=lambda g, x, h, y: [A._adaptive_avg_pool2d_backward(g, x), A._adaptive_avg_pool2d_backward(h, y)], tol=REL[d])
    x0 = None
    case(f'avg_pool2d_backward_{d}', [('x', d, (2, 3, 7, 6), 'normal'), ('g1', d, (2, 3, 3, 3), 'normal'), ('g2', d, (2, 3, 4, 4), 'normal'), ('g3', d, (2, 3, 6, 5), 'normal')],
         ['%a = aten::avg_pool2d_backward(%g1, %x, [2, 2], [2, 2], [0, 0], False, True, None)',
          '%b = aten::avg_pool2d_backward(%g2, %x, [3, 3], [2, 2], [1, 1], True, False, None)',
          '%c = aten::avg_pool2d_backward(%g3, %x, [2, 2], [1, 1], [0, 0], False, True, 3)'], '(%a, %b, %c)',
         fn=lambda x, g1, g2, g3: [A.avg_pool2d_backward(g1, x, [2, 2], [2, 2], [0, 0], False, True, None), A.avg_pool2d_backward(g2, x, [3, 3], [2, 2], [1, 1], True, False, None),
                                   A.avg_pool2d_backward(g3, x, [2, 2], [1, 1], [0, 0], False, True, 3)], tol=REL[d])
    case(f'max_pool2d_backward_{d}', [('x', d, (2, 3, 7, 6), 'distinct'), ('g', d, (2, 3, 4, 3), 'normal')],
         ['%m, %i = aten::max_pool2d_with_indices(%x, [3, 2], [2, 2], [1, 0])', '%a = aten::max_pool2d_with_indices_backward(%g, %x, [3, 2], [2, 2], [1, 0], [1, 1], False, %i)'], '(%m, %a)',
         fn=lambda x, g: [A.max_pool2d_with_indices(x, [3, 2], [2, 2], [1, 0])[0], A.max_pool2d_with_indices_backward(g, x, [3, 2], [2, 2], [1, 0], [1, 1], False, A.max_pool2d_with_indices(x, [3, 2], [2, 2], [1, 0])[1])],
         tol=REL[d])
    case(f'embedding_dense_backward_{d}', [('g', d, (2, 5, 3), 'normal'), ('i', 'i64', (2, 5), 'index 4')],
         ['%a = aten::embedding_dense_backward(%g, %i, 6, -1, False)', '%b = aten::embedding_dense_backward(%g, %i, 4, 2, True)'], '(%a, %b)',
         fn=lambda g, i: [A.embedding_dense_backward(g, i, 6, -1, False), A.embedding_dense_backward(g, i, 4, 2, True)], tol=REL[d])
    case(f'col2im_{d}', [('c', d, (2, 12, 12), 'normal'), ('e', d, (8, 48), 'normal')],
         ['%a = aten::col2im(%c, [5, 6], [2, 2], [1, 1], [0, 0], [1, 2])', '%b = aten::col2im(%e, [6, 7], [2, 2], [2, 1], [1, 1], [1, 1])'], '(%a, %b)',
         fn=lambda c, e: [A.col2im(c, [5, 6], [2, 2], [1, 1], [0, 0], [1, 2]), A.col2im(e, [6, 7], [2, 2], [2, 1], [1, 1], [1, 1])], tol=REL[d])


# ---- native_dropout where PyTorch's result does not depend on its generator: eval mode,
# p = 0 and p = 1 in training (random draws: tests/test_exec.c checks their statistics) ----
for d in FLOATS:
    case(f'native_dropout_{d}', [('x', d, (3, 7), 'special')],
         ['%a, %am = aten::native_dropout(%x, 0.3, False)', '%b, %bm = aten::native_dropout(%x, 0.0, True)', '%c, %cm = aten::native_dropout(%x, 1.0, None)'],
         '(%a, %am, %b, %bm, %c, %cm)', fn=lambda x: [*A.native_dropout(x, 0.3, False), *A.native_dropout(x, 0.0, True), *A.native_dropout(x, 1.0, None)])
err('native_dropout_p', 'graph(%x: f32[3]):\n  %a, %b = aten::native_dropout(%x, 1.5, True)\n  return (%a, %b)\n',
    E + 'aten::native_dropout: dropout probability has to be between 0 and 1, but got 1.5')


# ---- gradients of layer and group norm (mean and rstd from the forward op) ----
for d in FLOATS:
    def lnb(x, w, b, g):
        _, mu, rs = A.native_layer_norm(x, [3, 4], w, b, 1e-5)
        _, mu2, rs2 = A.native_layer_norm(x, [4], None, None, 1e-5)
        return [*A.native_layer_norm_backward(g, x, [3, 4], mu, rs, w, b, [True, True, True]), A.native_layer_norm_backward(g, x, [4], mu2, rs2, None, None, [True, False, False])[0]]
    case(f'layer_norm_backward_{d}', [('x', d, (2, 3, 4), 'normal'), ('w', d, (3, 4), 'normal'), ('b', d, (3, 4), 'normal'), ('g', d, (2, 3, 4), 'normal')],
         ['%o, %m, %r = aten::native_layer_norm(%x, [3, 4], %w, %b, 1e-05)', '%a, %a1, %a2 = aten::native_layer_norm_backward(%g, %x, [3, 4], %m, %r, %w, %b, [True, True, True])',
          '%o2, %m2, %r2 = aten::native_layer_norm(%x, [4], None, None, 1e-05)',
          '%c, %c1, %c2 = aten::native_layer_norm_backward(%g, %x, [4], %m2, %r2, None, None, [True, False, False])'],
         '(%a, %a1, %a2, %c)', fn=lnb, tol=REL[d])
    def gnb(x, w, b, g):
        _, mu, rs = A.native_group_norm(x, w, b, 2, 6, 5, 3, 1e-5)
        return [*A.native_group_norm_backward(g, x, mu, rs, w, 2, 6, 5, 3, [True, True, True]), A.native_group_norm_backward(g, x, mu, rs, None, 2, 6, 5, 3, [True, False, False])[0]]
    case(f'group_norm_backward_{d}', [('x', d, (2, 6, 5), 'normal'), ('w', d, (6,), 'normal'), ('b', d, (6,), 'normal'), ('g', d, (2, 6, 5), 'normal')],
         ['%o, %m, %r = aten::native_group_norm(%x, %w, %b, 2, 6, 5, 3, 1e-05)', '%a, %a1, %a2 = aten::native_group_norm_backward(%g, %x, %m, %r, %w, 2, 6, 5, 3, [True, True, True])',
          '%c, %c1, %c2 = aten::native_group_norm_backward(%g, %x, %m, %r, None, 2, 6, 5, 3, [True, False, False])'],
         '(%a, %a1, %a2, %c)', fn=gnb, tol=REL[d])


# ---- nonzero: a data-dependent row count, within the planned upper bound; a later op sees the count ----
for d in REAL8:
    case(f'nonzero_{d}', [('x', d, (3, 4, 2), 'mod 2'), ('z', d, (2, 3), 'mod 1'), ('s', d, (), 'list 3')],
         ['%a = aten::nonzero(%x)', '%b = aten::nonzero(%z)', '%c = aten::nonzero(%s)', '%e = aten::add.Tensor(%a, %a)'], '(%a, %b, %c, %e)',
         fn=lambda x, z, s_: [torch.nonzero(x), torch.nonzero(z), torch.nonzero(s_), torch.nonzero(x) * 2])
for d in FLOATS:
    case(f'nonzero_special_{d}', [('x', d, (12,), 'special')], ['%a = aten::nonzero(%x)'], '%a', fn=lambda x: torch.nonzero(x))


# ---- grid_sampler_2d: every interpolation and padding mode, grids reaching outside ----
for d in FLOATS:
    body, fns = [], []
    for im in range(3):
        for pm in range(3):
            for ac in [False, True]:
                for gv in ['g', 'h']:
                    body.append(f'%r{gv}{im}{pm}{int(ac)} = aten::grid_sampler_2d(%x, %{gv}, {im}, {pm}, {ac})')
                    fns.append(lambda x, g, h, im=im, pm=pm, ac=ac, gv=gv: A.grid_sampler_2d(x, g if gv == 'g' else h, im, pm, ac))
    names = [l.split(' = ')[0] for l in body]
    case(f'grid_sampler_2d_{d}', [('x', d, (2, 3, 4, 5), 'normal'), ('g', d, (2, 3, 4, 2), 'unit'), ('h', d, (2, 3, 4, 2), 'normal')], body, '(' + ', '.join(names) + ')',
         fn=lambda x, g, h, fns=fns: [f(x, g, h) for f in fns], tol=REL[d])


# ---- _embedding_bag: the bags' values (its other results are ATen's internal state for its backward) ----
for d in FLOATS:
    def ebag(w, i, o, p_, o2):
        return [A._embedding_bag(w, i, o, False, 0)[0], A._embedding_bag(w, i, o, False, 1)[0], A._embedding_bag(w, i, o, False, 2)[0],
                A._embedding_bag(w, i, o, False, 0, False, p_)[0], A._embedding_bag(w, i, o2, False, 1, False, None, True)[0],
                A._embedding_bag(w, i, o, False, 1, False, None, False, 3)[0], A._embedding_bag(w, i, o, False, 2, False, None, False, 3)[0]]
    case(f'embedding_bag_{d}', [('w', d, (6, 3), 'normal'), ('i', 'i64', (9,), 'list 3,1,3,0,5,2,2,4,3'), ('o', 'i64', (4,), 'list 0,3,3,7'), ('p', d, (9,), 'normal'), ('o2', 'i64', (3,), 'list 0,4,9')],
         ['%a, %a1, %a2, %a3 = aten::_embedding_bag(%w, %i, %o, False, 0)', '%b, %b1, %b2, %b3 = aten::_embedding_bag(%w, %i, %o, False, 1)',
          '%c, %c1, %c2, %c3 = aten::_embedding_bag(%w, %i, %o, False, 2)', '%e, %e1, %e2, %e3 = aten::_embedding_bag(%w, %i, %o, False, 0, False, %p)',
          '%f, %f1, %f2, %f3 = aten::_embedding_bag(%w, %i, %o2, False, 1, False, None, True)', '%g, %g1, %g2, %g3 = aten::_embedding_bag(%w, %i, %o, False, 1, False, None, False, 3)',
          '%h, %h1, %h2, %h3 = aten::_embedding_bag(%w, %i, %o, False, 2, False, None, False, 3)'],
         '(%a, %b, %c, %e, %f, %g, %h)', fn=ebag, tol=REL[d])


# ---- whole models as graph programs: narrow ResNet-18 and MobileNetV2, a transformer encoder
# layer, an embedding sequence classifier; seeded random weights as inputs; expected values from
# the torch.nn modules themselves (eval mode), at the convolutions' and products' rel 1e-5 ----
class Prog:
    """Emits a graph program op by op; parameters become inputs (their values kept)."""
    def __init__(self, x_name, x):
        self.decls, self.vals, self.body, self.n = [], [], [], 0
        self.x = self.param(x_name, x)

    def param(self, name, t):
        name = name.replace('.', '_')
        self.decls.append((name, 'i64' if t.dtype == torch.int64 else 'f32', tuple(t.shape), 'normal'))
        self.vals.append(t.detach().clone())
        return '%' + name

    def op(self, text, nres=1):
        self.n += 1
        names = [f'%v{self.n}_{k}' for k in range(nres)]
        self.body.append(', '.join(names) + ' = ' + text)
        return names[0] if nres == 1 else names

    def conv(self, x, c, prefix):
        w = self.param(prefix + '.weight', c.weight)
        b = self.param(prefix + '.bias', c.bias) if c.bias is not None else 'None'
        s, pd, g = list(c.stride), list(c.padding), c.groups
        return self.op(f'aten::convolution({x}, {w}, {b}, {s}, {pd}, [1, 1], False, [0, 0], {g})')

    def bn(self, x, b, prefix):
        ps = [self.param(prefix + '.' + k, getattr(b, k)) for k in ['weight', 'bias', 'running_mean', 'running_var']]
        return self.op(f'aten::_native_batch_norm_legit_no_training({x}, {ps[0]}, {ps[1]}, {ps[2]}, {ps[3]}, 0.1, 1e-05)', 3)[0]

    def linear(self, x, l, prefix):
        w = self.param(prefix + '.weight', l.weight)
        b = self.param(prefix + '.bias', l.bias)
        wt = self.op(f'aten::permute_copy({w}, [1, 0])')
        return self.op(f'aten::addmm({b}, {x}, {wt})')

    def emit(self, name, ret, expected):
        decls = self.decls
        prog = 'graph(' + ', '.join(f'%{n}: {ty(d, sh)}' for n, d, sh, _ in decls) + '):\n' + ''.join(f'  {l}\n' for l in self.body) + f'  return {ret}\n'
        ins = [v.numpy() for v in self.vals]
        CASES.append((name, prog, decls, ins, lambda *a: expected, 'rel 1e-5', None, None))


def resnet18_program():
    torch.manual_seed(18)
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout)
            self.conv2, self.bn2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout)
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)) if stride != 1 or cin != cout else None

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return torch.relu(y + (self.down(x) if self.down is not None else x))

    w = [8, 16, 32, 64]  # ResNet-18's layout at an eighth of its width
    net = nn.Sequential(nn.Conv2d(3, w[0], 7, 2, 3, bias=False), nn.BatchNorm2d(w[0]), nn.ReLU(), nn.MaxPool2d(3, 2, 1),
                        *[Block(w[max(i - 1, 0)] if j == 0 else w[i], w[i], 2 if j == 0 and i > 0 else 1) for i in range(4) for j in range(2)],
                        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(w[3], 10))
    for mod in net.modules():  # running statistics away from 0 and 1
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.2, 0.2), mod.running_var.uniform_(0.5, 1.5), mod.weight.data.uniform_(0.5, 1.5), mod.bias.data.uniform_(-0.2, 0.2)
    net.eval()
    x = torch.randn(1, 3, 32, 32)
    P = Prog('x', x)
    h = P.op(f'aten::relu({P.bn(P.conv(P.x, net[0], "stem"), net[1], "stem_bn")})')
    h = P.op(f'aten::max_pool2d_with_indices({h}, [3, 3], [2, 2], [1, 1])', 2)[0]
    for k, blk in enumerate(net[4:12]):
        pre = f'b{k}'
        y = P.op(f'aten::relu({P.bn(P.conv(h, blk.conv1, pre + "c1"), blk.bn1, pre + "n1")})')
        y = P.bn(P.conv(y, blk.conv2, pre + 'c2'), blk.bn2, pre + 'n2')
        sc = P.bn(P.conv(h, blk.down[0], pre + 'dc'), blk.down[1], pre + 'dn') if blk.down is not None else h
        h = P.op(f'aten::relu({P.op(f"aten::add.Tensor({y}, {sc})")})')
    h = P.op(f'aten::_adaptive_avg_pool2d({h}, [1, 1])')
    h = P.op(f'aten::view_copy({h}, [1, {w[3]}])')
    out = P.linear(h, net[14], 'fc')
    with torch.no_grad():
        P.emit('model_resnet18', out, [net(x)])


def mobilenet_v2_program():
    torch.manual_seed(2)
    nn = torch.nn
    # MobileNetV2's inverted residuals (expansion 6, ReLU6, depthwise 3x3) at a quarter width, 5 of its 17 blocks
    cfg = [(1, 8, 1), (6, 12, 2), (6, 12, 1), (6, 16, 2), (6, 16, 1)]
    layers, cin, blocks = [], 8, []
    stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU6())
    for t, c, st in cfg:
        hid = cin * t
        seq = ([nn.Conv2d(cin, hid, 1, bias=False), nn.BatchNorm2d(hid), nn.ReLU6()] if t != 1 else []) + \
              [nn.Conv2d(hid, hid, 3, st, 1, groups=hid, bias=False), nn.BatchNorm2d(hid), nn.ReLU6(), nn.Conv2d(hid, c, 1, bias=False), nn.BatchNorm2d(c)]
        blocks.append((nn.Sequential(*seq), st == 1 and cin == c))
        cin = c
    head = nn.Sequential(nn.Conv2d(cin, 64, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU6())
    fc = nn.Linear(64, 10)
    mods = [stem, head, fc] + [b for b, _ in blocks]
    for mm in mods:
        for mod in mm.modules():
            if isinstance(mod, nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.2, 0.2), mod.running_var.uniform_(0.5, 1.5), mod.weight.data.uniform_(0.5, 1.5), mod.bias.data.uniform_(-0.2, 0.2)
        mm.eval()
    x = torch.randn(1, 3, 32, 32)

    def forward(x):
        h = stem(x)
        for b, res in blocks:
            h = h + b(h) if res else b(h)
        h = head(h).mean([2, 3])
        return fc(h)
    P = Prog('x', x)

    def seq_prog(h, seq, pre):
        mods_ = list(seq)
        i = 0
        while i < len(mods_):
            h = P.bn(P.conv(h, mods_[i], f'{pre}c{i}'), mods_[i + 1], f'{pre}n{i}')
            if i + 2 < len(mods_) and isinstance(mods_[i + 2], nn.ReLU6):
                h = P.op(f'aten::hardtanh({h}, 0.0, 6.0)')
                i += 3
            else:
                i += 2
        return h
    h = seq_prog(P.x, stem, 'stem')
    for k, (b, res) in enumerate(blocks):
        y = seq_prog(h, b, f'b{k}')
        h = P.op(f'aten::add.Tensor({h}, {y})') if res else y
    h = seq_prog(h, head, 'head')
    h = P.op(f'aten::mean.dim({h}, [2, 3])')
    out = P.linear(h, fc, 'fc')
    with torch.no_grad():
        P.emit('model_mobilenet_v2', out, [forward(x)])


def transformer_program():
    torch.manual_seed(7)
    S, E, H, F = 6, 16, 4, 32
    layer = torch.nn.TransformerEncoderLayer(E, H, F, dropout=0.0, batch_first=True).eval()
    x = torch.randn(1, S, E)
    P = Prog('x', x)
    D = E // H
    x2 = P.op(f'aten::view_copy({P.x}, [{S}, {E}])')
    w_in = layer.self_attn.in_proj_weight
    b_in = layer.self_attn.in_proj_bias
    heads = []
    for k, nm in enumerate('qkv'):
        lin = torch.nn.Linear(E, E)
        lin.weight.data, lin.bias.data = w_in[k * E:(k + 1) * E].clone(), b_in[k * E:(k + 1) * E].clone()
        t = P.linear(x2, lin, 'attn_' + nm)
        t = P.op(f'aten::view_copy({t}, [{S}, {H}, {D}])')
        heads.append(P.op(f'aten::permute_copy({t}, [1, 0, 2])'))  # [H, S, D]
    q = P.op(f'aten::mul.Scalar({heads[0]}, {1.0 / math.sqrt(D)!r})')
    kt = P.op(f'aten::permute_copy({heads[1]}, [0, 2, 1])')
    att = P.op(f'aten::_softmax({P.op(f"aten::bmm({q}, {kt})")}, -1, False)')
    ctx_ = P.op(f'aten::bmm({att}, {heads[2]})')  # [H, S, D]
    ctx_ = P.op(f'aten::view_copy({P.op(f"aten::permute_copy({ctx_}, [1, 0, 2])")}, [{S}, {E}])')
    a = P.linear(ctx_, layer.self_attn.out_proj, 'attn_out')
    h = P.op(f'aten::add.Tensor({x2}, {a})')
    n1w, n1b = P.param('norm1_weight', layer.norm1.weight), P.param('norm1_bias', layer.norm1.bias)
    h = P.op(f'aten::native_layer_norm({h}, [{E}], {n1w}, {n1b}, 1e-05)', 3)[0]
    f = P.linear(P.op(f'aten::relu({P.linear(h, layer.linear1, "ff1")})'), layer.linear2, 'ff2')
    h = P.op(f'aten::add.Tensor({h}, {f})')
    n2w, n2b = P.param('norm2_weight', layer.norm2.weight), P.param('norm2_bias', layer.norm2.bias)
    h = P.op(f'aten::native_layer_norm({h}, [{E}], {n2w}, {n2b}, 1e-05)', 3)[0]
    out = P.op(f'aten::view_copy({h}, [1, {S}, {E}])')
    with torch.no_grad():
        P.emit('model_transformer_encoder', out, [layer(x)])


def sequence_classifier_program():
    torch.manual_seed(11)
    V, E, S, C = 50, 12, 9, 4
    emb, l1, l2 = torch.nn.Embedding(V, E), torch.nn.Linear(E, 16), torch.nn.Linear(16, C)
    tokens = torch.randint(0, V, (1, S))
    pos = torch.tensor([[S - 1]])  # the last token's features, picked with gather

    def forward(t):
        e = emb(t)                                  # [1, S, E]
        last = torch.gather(e, 1, pos.unsqueeze(-1).expand(1, 1, E))[:, 0]
        h = torch.relu(l1(e.mean(1) + last))
        logits = l2(h)
        return [logits, torch.softmax(logits, -1), logits.argmax(-1)]
    P = Prog('tokens', tokens)
    ew = P.param('embedding_weight', emb.weight)
    pidx = P.param('pos', pos.unsqueeze(-1).expand(1, 1, E).contiguous())
    e = P.op(f'aten::embedding({ew}, {P.x})')
    last = P.op(f'aten::view_copy({P.op(f"aten::gather({e}, 1, {pidx})")}, [1, {E}])')
    h = P.op(f'aten::add.Tensor({P.op(f"aten::mean.dim({e}, [1])")}, {last})')
    h = P.op(f'aten::relu({P.linear(h, l1, "l1")})')
    logits = P.linear(h, l2, 'l2')
    sm = P.op(f'aten::_softmax({logits}, -1, False)')
    am = P.op(f'aten::argmax({logits}, -1)')
    with torch.no_grad():
        P.emit('model_sequence_classifier', f'({logits}, {sm}, {am})', forward(tokens))


resnet18_program()
mobilenet_v2_program()
transformer_program()
sequence_classifier_program()


def main():
    # with arguments, only the cases whose names start with one of them are (re)written
    only = tuple(sys.argv[1:])
    for entry in os.listdir(HERE):
        if os.path.isdir(os.path.join(HERE, entry)) and (not only or entry.startswith(only)):
            shutil.rmtree(os.path.join(HERE, entry))
    for c in CASES:
        name, prog, decls, ins, fn, tol, ref, error = c
        if only and not name.startswith(only):
            continue
        if error and decls and ins is None:  # an error that needs inputs
            ins = [values(rng_for(name), d, s, k) for _, d, s, k in decls]
            d = os.path.join(HERE, name)
            os.makedirs(d)
            open(os.path.join(d, 'program.graph'), 'w').write(prog)
            with open(os.path.join(d, 'inputs.npys'), 'wb') as f:
                for a in ins:
                    np.save(f, np.require(a, requirements='C'))
            open(os.path.join(d, 'expected.err'), 'w').write(error + '\n')
            continue
        write(*c)
    print(len(CASES), 'cases; PyTorch', torch.__version__, 'NumPy', np.__version__)


main()
