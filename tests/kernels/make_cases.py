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
import math, os, shutil
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
    elif kind.startswith('mod'):
        v = rng.integers(0, int(kind.split()[1]), n)
    elif d == 'b8':
        v = rng.integers(0, 2, n).astype(bool)
    elif d in ('f16', 'bf16', 'f32', 'f64'):
        if kind == 'special':
            base = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1.5, -2.25, 1e-40 if d != 'f16' else 1e-6, 3.0e38 if d in ('f32', 'bf16') else 6e4, -0.5, 7.0, -3.75]
            v = np.array([base[i % len(base)] for i in range(n)])
        elif kind == 'positive':
            v = rng.uniform(0.25, 4.0, n)
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
    case(f'addmm_{d}', [('c', d, (2,), 'normal'), ('a', d, (3, 4), 'normal'), ('b', d, (4, 2), 'normal')], ['%r = aten::addmm(%c, %a, %b, beta=0.5, alpha=2)'], '%r',
         fn=lambda c, a, b: A.addmm(c, a, b, beta=0.5, alpha=2), tol=t)
    case(f'addmm_beta0_ignores_nan_{d}', [('c', d, (3, 2), 'special'), ('a', d, (3, 4), 'normal'), ('b', d, (4, 2), 'normal')], ['%r = aten::addmm(%c, %a, %b, beta=0)'], '%r',
         fn=lambda c, a, b: A.addmm(c, a, b, beta=0), tol=t)
    case(f'addmm_bias_2d_{d}', [('c', d, (3, 1), 'normal'), ('a', d, (3, 17), 'normal'), ('b', d, (17, 9), 'normal')], ['%r = aten::addmm(%c, %a, %b)'], '%r', fn=lambda c, a, b: A.addmm(c, a, b), tol=t)
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

# ---- data movement: every dtype ----
for d in ['b8'] + REAL + ['f16', 'bf16']:
    case(f'permute_{d}', [('x', d, (2, 3, 4), 'normal')], ['%r = aten::permute_copy(%x, [2, 0, -2])'], '%r', fn=lambda x: x.permute(2, 0, 1).contiguous())
    case(f'view_{d}', [('x', d, (2, 3, 4), 'normal')], ['%r = aten::view_copy(%x, [4, -1])'], '%r', fn=lambda x: x.reshape(4, 6).contiguous())
    case(f'expand_{d}', [('x', d, (3, 1), 'normal')], ['%r = aten::expand_copy(%x, [2, -1, 4])'], '%r', fn=lambda x: x.expand(2, 3, 4).contiguous())
    case(f'clone_{d}', [('x', d, (2, 3), 'normal')], ['%p = aten::permute_copy(%x, [1, 0])', '%r = aten::clone(%p)'], '%r', fn=lambda x: x.t().contiguous())
    case(f'cat_{d}', [('x', d, (2, 3), 'normal'), ('y', d, (2, 1), 'normal')], ['%r = aten::cat([%x, %y, %x], -1)', '%s = aten::cat([%x, %x])'], '(%r, %s)',
         fn=lambda x, y: [A.cat([x, y, x], -1), A.cat([x, x])])
# uint16 (no such tensor in PyTorch 1.13): the same moves by NumPy
case('permute_u16', [('x', 'u16', (2, 3, 4), 'normal')], ['%r = aten::permute_copy(%x, [2, 0, -2])'], '%r', fn=lambda x: np.ascontiguousarray(x.transpose(2, 0, 1)))
case('view_u16', [('x', 'u16', (2, 3, 4), 'normal')], ['%r = aten::view_copy(%x, [4, -1])'], '%r', fn=lambda x: x.reshape(4, 6))
case('cat_u16', [('x', 'u16', (2, 3), 'normal'), ('y', 'u16', (2, 1), 'normal')], ['%r = aten::cat([%x, %y, %x], -1)'], '%r', fn=lambda x, y: np.concatenate([x, y, x], -1))
case('cat_legacy_empty', [('x', 'f32', (2, 3), 'normal'), ('e', 'f32', (0,), 'normal')], ['%r = aten::cat([%x, %e, %x], 1)'], '%r', fn=lambda x, e: A.cat([x, e, x], 1))


# ---- quantized_decomposed (ExecuTorch's arithmetic, in NumPy: not in PyTorch 1.13) ----
def quantize(x, scale, zp, lo, hi, dt):
    """zero_point + nearbyint(inv_scale * x) in float, clamped; opgen defines what
    ExecuTorch leaves undefined: infinities saturate, NaN gives the zero point."""
    inv = np.float32(1.0) / np.float32(scale)
    with np.errstate(over='ignore', invalid='ignore'):
        q = np.rint(inv * np.asarray(x).astype(np.float32)).astype(np.float64) + zp
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
case('quantize_clamps', [('x', 'f32', (10,), 'special')], ['%q = quantized_decomposed::quantize_per_tensor(%x, 0.5, 128, 0, 255, torch.uint8)'], '%q',
     fn=lambda x: quantize(x.numpy(), 0.5, 128, 0, 255, np.uint8))


# ---- errors: each kernel's checks, the node named, the exact message ----
def err(name, prog, msg):
    CASES.append((name, prog, [], [], None, None, None, msg))


E = 'program.graph:2:3: error: '
err('add_bad_shape', 'graph(%x: f32[2, 3], %y: f32[4]):\n  %r = aten::add.Tensor(%x, %y)\n  return %r\n', E + 'aten::add.Tensor: shapes do not broadcast: size 3 against 4 in dimension 1')
err('add_int_float_alpha', 'graph(%x: i32[2], %y: i32[2]):\n  %r = aten::add.Tensor(%x, %y, alpha=1.5)\n  return %r\n', E + 'aten::add.Tensor: for integral input tensors, alpha must not be a floating point number')
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
err('bad_conv_bias', 'graph(%x: f32[1, 1, 4, 4], %w: f32[2, 1, 3, 3], %b: f32[3]):\n  %r = aten::convolution(%x, %w, %b, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)\n  return %r\n',
    E + 'aten::convolution: bias must have 2 elements')
err('bad_conv_transposed', 'graph(%x: f32[1, 1, 4, 4], %w: f32[1, 1, 3, 3]):\n  %r = aten::convolution(%x, %w, None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1)\n  return %r\n',
    E + 'aten::convolution: transposed convolution is not implemented')
err('bad_conv_rank', 'graph(%x: f32[1, 4, 4], %w: f32[1, 1, 3, 3]):\n  %r = aten::convolution(%x, %w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)\n  return %r\n',
    E + 'aten::convolution: 2-D convolution takes a 4-d input and weight, got 3-d and 4-d')
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
err('bad_q_scale', 'graph(%x: f32[3]):\n  %r = quantized_decomposed::quantize_per_tensor(%x, 0.0, 0, 0, 255, torch.uint8)\n  return %r\n', E + 'quantized_decomposed::quantize_per_tensor: scale must be positive')
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
err('bad_tanh_f16', 'graph(%x: f16[3]):\n  %r = aten::tanh(%x)\n  return %r\n', E + 'aten::tanh: the result has dtype Half, which this kernel does not handle')
err('bad_hardtanh_int', 'graph(%x: i32[3]):\n  %r = aten::hardtanh(%x)\n  return %r\n', E + 'aten::hardtanh: the result has dtype Int, which this kernel does not handle')
err('bad_exp_c64', 'graph(%x: c64[3]):\n  %r = aten::exp(%x)\n  return %r\n', E + 'aten::exp: no Edge constraint row allows (self=ComplexFloat, __ret_0=Float)')
err('bad_mul_scalar_bool', 'graph(%x: b8[3]):\n  %r = aten::mul.Scalar(%x, 2)\n  return %r\n', E + 'aten::mul.Scalar: no Edge constraint row allows (self=Bool, other=Long, __ret_0=Long)')
err('bad_add_scalar_alpha', 'graph(%x: i32[3]):\n  %r = aten::add.Scalar(%x, 2, 1.5)\n  return %r\n', E + 'aten::add.Scalar: for integral input tensors, alpha must not be a floating point number')
err('where_no_edge_row', 'graph(%c: b8[2], %x: f32[2], %y: f64[2]):\n  %r = aten::where.self(%c, %x, %y)\n  return %r\n',
    E + 'aten::where.self: no Edge constraint row allows (condition=Bool, self=Float, other=Double, __ret_0=Double)')
CASES.append(('embedding_index_range', 'graph(%w: f32[3, 2], %i: i64[4]):\n  %r = aten::embedding(%w, %i)\n  return %r\n', [('w', 'f32', (3, 2), 'normal'), ('i', 'i64', (4,), 'list 0,2,4,1')],
              None, None, None, None, 'program.graph:2:3: error: aten::embedding: index 4 is out of range for 3 embeddings'))


def main():
    for entry in os.listdir(HERE):
        if os.path.isdir(os.path.join(HERE, entry)):
            shutil.rmtree(os.path.join(HERE, entry))
    for c in CASES:
        name, prog, decls, ins, fn, tol, ref, error = c
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
