/* ExecuTorch's prim ops (kernels/prim_ops in ExecuTorch): the KernelCalls an
 * exported program makes on values rather than tensors: sizes read at run
 * (aten::sym_size.int, aten::sym_numel), arithmetic and comparisons on them
 * (executorch_prim::*.Scalar), a tensor's first element as a scalar
 * (aten::_local_scalar_dense) and a view with sizes computed at run
 * (executorch_prim::et_view.default). They compute as ExecuTorch's do: ints stay
 * ints (C's / and % where ExecuTorch uses them, Python's floor where it floors),
 * an int and a float give a float. */
#include "prim_ops.h"
#include "opgen/kernel.h"
#include "opgen_registry.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef opgen_ivalue iv;

static opgen_status kinds(const char *op, const iv *a, const iv *b, opgen_error *err) {
    const char *k[] = {"a tensor", "an int", "a float", "a bool"};
    int ka = a->kind >= 0 && a->kind <= 3 ? a->kind : 0, kb = b && b->kind >= 0 && b->kind <= 3 ? b->kind : 0;
    return b ? opgen_fail(err, OPGEN_E_DTYPE, "%s: takes numbers, got %s and %s", op, k[ka], k[kb])
             : opgen_fail(err, OPGEN_E_DTYPE, "%s: takes a number, got %s", op, k[ka]);
}
static bool num(const iv *v) { return v->kind == OPGEN_GV_INT || v->kind == OPGEN_GV_FLOAT; }
static double dbl(const iv *v) { return v->kind == OPGEN_GV_INT ? (double)v->i : v->f; }
static void set_int(iv *o, int64_t x) { o->kind = OPGEN_GV_INT, o->i = x; }
static void set_float(iv *o, double x) { o->kind = OPGEN_GV_FLOAT, o->f = x; }
static void set_bool(iv *o, bool x) { o->kind = OPGEN_GV_BOOL, o->b = x; }

/* ---- sizes ---- */

static opgen_status sym_size(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    const opgen_tensor *t = &a[0]->t;
    int64_t d = a[1]->i;
    if (d < -t->dim || d >= t->dim)
        return opgen_fail(err, OPGEN_E_INVALID, "%s: dimension %lld of a %d-d tensor", op, (long long)d, (int)t->dim);
    set_int(a[2], t->sizes[d < 0 ? d + t->dim : d]);
    return OPGEN_OK;
}
static opgen_status sym_numel(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    (void)op, (void)err;
    set_int(a[1], opgen_numel(&a[0]->t));
    return OPGEN_OK;
}
static opgen_status local_scalar_dense(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    const opgen_tensor *t = &a[0]->t;
    if (opgen_numel(t) < 1) return opgen_fail(err, OPGEN_E_INVALID, "%s: the tensor has no elements", op);
    if (t->dtype == OPGEN_DTYPE_Bool)
        set_bool(a[1], opgen_load_f64(t, 0) != 0);
    else if (opgen_is_float(t->dtype))
        set_float(a[1], opgen_load_f64(t, 0));
    else
        set_int(a[1], opgen_load_i64(t, 0));
    return OPGEN_OK;
}

/* ---- arithmetic: int op int is an int, else a float ---- */

#define ALGEBRA(NAME, OPR)                                                     \
    static int32_t NAME(const char *op, iv **a, int n, opgen_error *err) {     \
        (void)n;                                                               \
        if (!num(a[0]) || !num(a[1])) return kinds(op, a[0], a[1], err);       \
        if (a[0]->kind == OPGEN_GV_INT && a[1]->kind == OPGEN_GV_INT)          \
            set_int(a[2], (int64_t)((uint64_t)a[0]->i OPR(uint64_t) a[1]->i)); \
        else                                                                   \
            set_float(a[2], dbl(a[0]) OPR dbl(a[1]));                          \
        return OPGEN_OK;                                                       \
    }
ALGEBRA(add, +)
ALGEBRA(sub, -)
ALGEBRA(mul, *)

#define COMPARE(NAME, OPR)                                                 \
    static int32_t NAME(const char *op, iv **a, int n, opgen_error *err) { \
        (void)n;                                                           \
        if (a[0]->kind == OPGEN_GV_BOOL && a[1]->kind == OPGEN_GV_BOOL) {  \
            set_bool(a[2], a[0]->b OPR a[1]->b);                           \
            return OPGEN_OK;                                               \
        }                                                                  \
        if (!num(a[0]) || !num(a[1])) return kinds(op, a[0], a[1], err);   \
        if (a[0]->kind == OPGEN_GV_INT && a[1]->kind == OPGEN_GV_INT)      \
            set_bool(a[2], a[0]->i OPR a[1]->i);                           \
        else                                                               \
            set_bool(a[2], dbl(a[0]) OPR dbl(a[1]));                       \
        return OPGEN_OK;                                                   \
    }
COMPARE(eq, ==)
COMPARE(gt, >)
COMPARE(lt, <)
COMPARE(ge, >=)
COMPARE(le, <=)

static opgen_status int_pair(const char *op, iv **a, opgen_error *err) {
    if (a[0]->kind != OPGEN_GV_INT || a[1]->kind != OPGEN_GV_INT) return kinds(op, a[0], a[1], err);
    if (!a[1]->i) return opgen_fail(err, OPGEN_E_INVALID, "%s: %lld divided by zero", op, (long long)a[0]->i);
    if (a[0]->i == INT64_MIN && a[1]->i == -1)
        return opgen_fail(err, OPGEN_E_INVALID, "%s: %lld by -1 leaves 64 bits", op, (long long)a[0]->i);
    return OPGEN_OK;
}

/* Python's //: ints floor; floats from fmod, as ExecuTorch computes them */
static opgen_status floordiv(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    if (!num(a[0]) || !num(a[1])) return kinds(op, a[0], a[1], err);
    if (a[0]->kind == OPGEN_GV_INT && a[1]->kind == OPGEN_GV_INT) {
        if (int_pair(op, a, err)) return err->code;
        int64_t q = a[0]->i / a[1]->i;
        set_int(a[2], (a[0]->i < 0) != (a[1]->i < 0) && a[0]->i % a[1]->i ? q - 1 : q);
        return OPGEN_OK;
    }
    double x = dbl(a[0]), y = dbl(a[1]);
    if (y == 0) return set_float(a[2], signbit(x) ? -INFINITY : INFINITY), OPGEN_OK;
    double mod = fmod(x, y), div = (x - mod) / y;
    set_float(a[2], mod != 0 && signbit(y) != signbit(mod) ? div - 1 : div);
    return OPGEN_OK;
}
static opgen_status truediv(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    if (!num(a[0]) || !num(a[1])) return kinds(op, a[0], a[1], err);
    set_float(a[2], dbl(a[0]) / dbl(a[1]));
    return OPGEN_OK;
}
/* floordiv.int and mod.int/.Scalar: C's / and %, as ExecuTorch computes them */
static opgen_status floordiv_int(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    if (int_pair(op, a, err)) return err->code;
    set_int(a[2], a[0]->i / a[1]->i);
    return OPGEN_OK;
}
static opgen_status mod(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    if (int_pair(op, a, err)) return err->code;
    set_int(a[2], a[0]->i % a[1]->i);
    return OPGEN_OK;
}
static opgen_status sym_max(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    if (!num(a[0]) || !num(a[1])) return kinds(op, a[0], a[1], err);
    if (a[0]->kind == OPGEN_GV_INT && a[1]->kind == OPGEN_GV_INT)
        set_int(a[2], a[0]->i > a[1]->i ? a[0]->i : a[1]->i);
    else
        set_float(a[2], fmax(dbl(a[0]), dbl(a[1])));
    return OPGEN_OK;
}
static opgen_status sym_min(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    if (!num(a[0]) || !num(a[1])) return kinds(op, a[0], a[1], err);
    if (a[0]->kind == OPGEN_GV_INT && a[1]->kind == OPGEN_GV_INT)
        set_int(a[2], a[0]->i < a[1]->i ? a[0]->i : a[1]->i);
    else
        set_float(a[2], fmin(dbl(a[0]), dbl(a[1])));
    return OPGEN_OK;
}

/* ---- one operand ---- */

static opgen_status neg(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    if (a[0]->kind == OPGEN_GV_INT)
        set_int(a[1], (int64_t)(0 - (uint64_t)a[0]->i));
    else if (a[0]->kind == OPGEN_GV_FLOAT)
        set_float(a[1], -a[0]->f);
    else
        return kinds(op, a[0], NULL, err);
    return OPGEN_OK;
}
static opgen_status sym_float(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    if (!num(a[0])) return kinds(op, a[0], NULL, err);
    set_float(a[1], dbl(a[0]));
    return OPGEN_OK;
}
static opgen_status sym_int(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    if (!num(a[0])) return kinds(op, a[0], NULL, err);
    set_int(a[1], a[0]->kind == OPGEN_GV_INT ? a[0]->i : (int64_t)a[0]->f);
    return OPGEN_OK;
}
static opgen_status sym_not(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    if (a[0]->kind != OPGEN_GV_BOOL) return opgen_fail(err, OPGEN_E_DTYPE, "%s: takes a bool", op);
    set_bool(a[1], !a[0]->b);
    return OPGEN_OK;
}
static opgen_status sym_ite(const char *op, iv **a, int n, opgen_error *err) {
    (void)n;
    if (a[0]->kind != OPGEN_GV_BOOL) return opgen_fail(err, OPGEN_E_DTYPE, "%s: its condition is not a bool", op);
    *a[3] = a[0]->b ? *a[1] : *a[2];
    return OPGEN_OK;
}
/* ceil, round (half to even, as Python's), trunc: of a float, to an int */
static opgen_status rounding(const char *op, iv **a, opgen_error *err, double (*fn)(double)) {
    if (a[0]->kind != OPGEN_GV_FLOAT) return opgen_fail(err, OPGEN_E_DTYPE, "%s: takes a float", op);
    set_int(a[1], (int64_t)fn(a[0]->f));
    return OPGEN_OK;
}
static double half_even(double v) {
    double r = round(v), d = r - v;
    return fabs(d) != 0.5 || fmod(r, 2.0) == 0.0 ? r : v - d;
}
static opgen_status ceil_(const char *op, iv **a, int n, opgen_error *err) {
    return (void)n, rounding(op, a, err, ceil);
}
static opgen_status round_(const char *op, iv **a, int n, opgen_error *err) {
    return (void)n, rounding(op, a, err, half_even);
}
static opgen_status trunc_(const char *op, iv **a, int n, opgen_error *err) {
    return (void)n, rounding(op, a, err, trunc);
}

/* ---- et_view: out shares self's bytes, with sizes computed now (one -1 inferred) ---- */

/* args: self, out, then the values of the size list's elements (ints a prim may
 * have computed this run) */
static opgen_status et_view(const char *op, iv **a, int n, opgen_error *err) {
    const opgen_tensor *self = &a[0]->t;
    opgen_tensor *out = &a[1]->t;
    if (n - 2 != out->dim)
        return opgen_fail(err, OPGEN_E_SHAPE, "%s: %d sizes for a %d-d view", op, n - 2, (int)out->dim);
    if (out->dtype != self->dtype)
        return opgen_fail(err, OPGEN_E_DTYPE, "%s: a %s view of a %s tensor", op, opgen_dtype_name(out->dtype),
                          opgen_dtype_name(self->dtype));
    if (!opgen_tensor_is_contiguous(self))
        return opgen_fail(err, OPGEN_E_INVALID, "%s: views a tensor that is not contiguous in the default dim order",
                          op);
    int64_t sizes[OPGEN_MAX_DIM], known = 1;
    int infer = -1;
    for (int d = 0; d < out->dim; d++) {
        if (a[2 + d]->kind != OPGEN_GV_INT) return opgen_fail(err, OPGEN_E_DTYPE, "%s: size %d is not an int", op, d);
        sizes[d] = a[2 + d]->i;
        if (sizes[d] == -1 && infer < 0)
            infer = d;
        else if (sizes[d] < 0)
            return opgen_fail(err, OPGEN_E_SHAPE, "%s: size %lld in dimension %d", op, (long long)sizes[d], d);
        else
            known *= sizes[d];
    }
    if (infer >= 0) {
        if (!known)
            return opgen_fail(err, OPGEN_E_SHAPE, "%s: cannot infer dimension %d beside a zero size", op, infer);
        sizes[infer] = opgen_numel(self) / known;
    }
    opgen_tensor v;
    if (opgen_tensor_shape(&v, self->dtype, out->dim, sizes, err)) return err->code;
    if (opgen_numel(&v) != opgen_numel(self))
        return opgen_fail(err, OPGEN_E_SHAPE, "%s: a view of %lld elements of a tensor of %lld", op,
                          (long long)opgen_numel(&v), (long long)opgen_numel(self));
    v.data = self->data;
    v.capacity = self->capacity;
    *out = v;
    return OPGEN_OK;
}

/* A trimmed build keeps the prim ops its selection names (OPGEN_SELECTED); the
 * others' rows are empty and their code is never referenced. */
#define PRIM(id, name, nargs, flags, fn) \
    { OPGEN_SELECTED(id) ? name : NULL, nargs, flags, OPGEN_SELECTED(id) ? fn : NULL }

static const opgen_prim_op table[] = {
    PRIM(aten_sym_size_int, "aten::sym_size.int", 3, OPGEN_PRIM_SIZE, sym_size),
    PRIM(aten_sym_numel, "aten::sym_numel", 2, OPGEN_PRIM_SIZE, sym_numel),
    PRIM(aten__local_scalar_dense, "aten::_local_scalar_dense", 2, OPGEN_PRIM_SIZE, local_scalar_dense),
    PRIM(executorch_prim_add_Scalar, "executorch_prim::add.Scalar", 3, 0, add),
    PRIM(executorch_prim_sub_Scalar, "executorch_prim::sub.Scalar", 3, 0, sub),
    PRIM(executorch_prim_mul_Scalar, "executorch_prim::mul.Scalar", 3, 0, mul),
    PRIM(executorch_prim_floordiv_Scalar, "executorch_prim::floordiv.Scalar", 3, 0, floordiv),
    PRIM(executorch_prim_truediv_Scalar, "executorch_prim::truediv.Scalar", 3, 0, truediv),
    PRIM(executorch_prim_floordiv_int, "executorch_prim::floordiv.int", 3, 0, floordiv_int),
    PRIM(executorch_prim_mod_int, "executorch_prim::mod.int", 3, 0, mod),
    PRIM(executorch_prim_mod_Scalar, "executorch_prim::mod.Scalar", 3, 0, mod),
    PRIM(executorch_prim_eq_Scalar, "executorch_prim::eq.Scalar", 3, 0, eq),
    PRIM(executorch_prim_gt_Scalar, "executorch_prim::gt.Scalar", 3, 0, gt),
    PRIM(executorch_prim_lt_Scalar, "executorch_prim::lt.Scalar", 3, 0, lt),
    PRIM(executorch_prim_ge_Scalar, "executorch_prim::ge.Scalar", 3, 0, ge),
    PRIM(executorch_prim_le_Scalar, "executorch_prim::le.Scalar", 3, 0, le),
    PRIM(executorch_prim_sym_max_Scalar, "executorch_prim::sym_max.Scalar", 3, 0, sym_max),
    PRIM(executorch_prim_sym_min_Scalar, "executorch_prim::sym_min.Scalar", 3, 0, sym_min),
    PRIM(executorch_prim_neg_Scalar, "executorch_prim::neg.Scalar", 2, 0, neg),
    PRIM(executorch_prim_sym_float_Scalar, "executorch_prim::sym_float.Scalar", 2, 0, sym_float),
    PRIM(executorch_prim_sym_int_Scalar, "executorch_prim::sym_int.Scalar", 2, 0, sym_int),
    PRIM(executorch_prim_sym_not_Scalar, "executorch_prim::sym_not.Scalar", 2, 0, sym_not),
    PRIM(executorch_prim_sym_ite_Scalar, "executorch_prim::sym_ite.Scalar", 4, 0, sym_ite),
    PRIM(executorch_prim_ceil_Scalar, "executorch_prim::ceil.Scalar", 2, 0, ceil_),
    PRIM(executorch_prim_round_Scalar, "executorch_prim::round.Scalar", 2, 0, round_),
    PRIM(executorch_prim_trunc_Scalar, "executorch_prim::trunc.Scalar", 2, 0, trunc_),
    PRIM(executorch_prim_et_view_default, "executorch_prim::et_view.default", 3, OPGEN_PRIM_VIEW, et_view),
};

const opgen_prim_op *opgen_prim_find(const char *name) {
    for (size_t k = 0; k < sizeof table / sizeof *table; k++)
        if (table[k].name && !strcmp(table[k].name, name)) return &table[k];
    return NULL;
}
