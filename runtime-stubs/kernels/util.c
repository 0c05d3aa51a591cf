/* What every kernel shares (opgen/kernel.h, opgen/loops.h): out tensors sized
 * and checked, scratch, ATen's type promotion and broadcasting, dims wrapped,
 * elements loaded and stored by dtype, a portable fused multiply-add. */
#include "opgen/loops.h"
#include <math.h>
#include <string.h>

static opgen_status out_in(opgen_ctx *ctx, opgen_tensor *out, opgen_dtype dtype, int32_t dim, const int64_t *sizes,
                           bool any_order, const uint8_t *order) {
    if (out->capacity == 0 && !out->data) {
        opgen_status st = opgen_tensor_shape_ordered(out, dtype, dim, sizes, order, ctx->err);
        if (st) return st;
        if (ctx->meta) {
            ctx->scratch += opgen_arena_cost(opgen_nbytes(out));
            return OPGEN_OK;
        }
        size_t n = opgen_nbytes(out);
        out->data = opgen_arena_alloc(ctx->arena, n ? n : 1);
        if (!out->data)
            return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory for a %zu-byte output", ctx->op, n);
        out->capacity = n ? n : 1;
        memset(out->data, 0, n);
        return OPGEN_OK;
    }
    /* a given out tensor: its dtype must match; its shape may change within capacity */
    if (out->dtype != dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: out has dtype %s, the result is %s", ctx->op,
                          opgen_dtype_name(out->dtype), opgen_dtype_name(dtype));
    opgen_tensor t = *out;
    opgen_status st =
        opgen_tensor_shape_ordered(&t, dtype, dim, sizes, dim == out->dim ? out->dim_order : NULL, ctx->err);
    if (st) return st;
    if (order && memcmp(t.dim_order, order, (size_t)dim))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: out is laid out in another dim order than the one asked for",
                          ctx->op);
    if (opgen_nbytes(&t) > out->capacity)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: out holds %zu bytes, the result needs %zu", ctx->op, out->capacity,
                          opgen_nbytes(&t));
    if (!any_order && !opgen_tensor_is_contiguous(&t)) {
        if (!ctx->meta)
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID,
                              "%s: writes contiguous results, and its out is in another dim order", ctx->op);
        ctx->relayout = true;
    }
    *out = t;
    return OPGEN_OK;
}

opgen_status opgen_out(opgen_ctx *ctx, opgen_tensor *out, opgen_dtype dtype, int32_t dim, const int64_t *sizes) {
    return out_in(ctx, out, dtype, dim, sizes, false, NULL);
}
opgen_status opgen_out_any(opgen_ctx *ctx, opgen_tensor *out, opgen_dtype dtype, int32_t dim, const int64_t *sizes) {
    return out_in(ctx, out, dtype, dim, sizes, true, NULL);
}
opgen_status opgen_out_ordered(opgen_ctx *ctx, opgen_tensor *out, opgen_dtype dtype, int32_t dim, const int64_t *sizes,
                               const uint8_t *dim_order) {
    return out_in(ctx, out, dtype, dim, sizes, true, dim_order);
}

opgen_status opgen_factory_out(opgen_ctx *ctx, uint32_t mask, opgen_int_list size, opgen_dtype dflt,
                               opgen_tensor *out) {
    if (size.len > OPGEN_MAX_DIM)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: %zu dimensions, at most %d", ctx->op, size.len, OPGEN_MAX_DIM);
    for (size_t i = 0; i < size.len; i++)
        if (size.data[i] < 0)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: negative dimension %lld", ctx->op, (long long)size.data[i]);
    opgen_dtype dtype = opgen_result_dtype(ctx, out, dflt);
    OPGEN_CHECK_DTYPE(ctx, mask, dtype, "the result");
    return opgen_out_any(ctx, out, dtype, (int32_t)size.len, size.data);
}

void *opgen_scratch(opgen_ctx *ctx, size_t n) {
    if (ctx->meta) {
        ctx->scratch += opgen_arena_cost(n);
        return NULL;
    }
    return opgen_arena_alloc(ctx->arena, n ? n : 1);
}

bool opgen_is_float(opgen_dtype d) {
    return d == OPGEN_DTYPE_Float || d == OPGEN_DTYPE_Double || d == OPGEN_DTYPE_Half || d == OPGEN_DTYPE_BFloat16;
}

bool opgen_is_integral(opgen_dtype d, bool include_bool) {
    switch (d) {
    case OPGEN_DTYPE_Byte:
    case OPGEN_DTYPE_Char:
    case OPGEN_DTYPE_Short:
    case OPGEN_DTYPE_Int:
    case OPGEN_DTYPE_Long: return true;
    case OPGEN_DTYPE_Bool: return include_bool;
    default: return false;
    }
}

/* c10's promoteTypes over the real dtypes opgen computes with */
opgen_dtype opgen_promote(opgen_dtype a, opgen_dtype b) {
    /* c10's promoteTypes over the dtypes kernels compute with, as a table (code
     * that every selective build keeps, so kept small) */
    static const signed char at[32] = {0,  1,  2,  3,  4,  5,  6,  7,  -1, -1, -1, 8,  -1, -1, -1, 9,
                                       -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    static const unsigned char table[10][10] = {
        {0, 2, 2, 3, 4, 5, 6, 7, 0, 15},       /* Byte */
        {2, 1, 2, 3, 4, 5, 6, 7, 1, 15},       /* Char */
        {2, 2, 2, 3, 4, 5, 6, 7, 2, 15},       /* Short */
        {3, 3, 3, 3, 4, 5, 6, 7, 3, 15},       /* Int */
        {4, 4, 4, 4, 4, 5, 6, 7, 4, 15},       /* Long */
        {5, 5, 5, 5, 5, 5, 6, 7, 5, 6},        /* Half */
        {6, 6, 6, 6, 6, 6, 6, 7, 6, 6},        /* Float */
        {7, 7, 7, 7, 7, 7, 7, 7, 7, 7},        /* Double */
        {0, 1, 2, 3, 4, 5, 6, 7, 11, 15},      /* Bool */
        {15, 15, 15, 15, 15, 6, 6, 7, 15, 15}, /* BFloat16 */
    };
    int ia = (unsigned)a < 32 ? at[a] : -1, ib = (unsigned)b < 32 ? at[b] : -1;
    if (ia < 0 || ib < 0) return a; /* data-only dtypes: no promotion among them */
    return (opgen_dtype)table[ia][ib];
}
opgen_dtype opgen_promote_scalar(opgen_dtype t, const opgen_scalar *s) {
    /* a Scalar only changes the category: a float Scalar on an integer tensor gives Float */
    if (s->dtype == OPGEN_DTYPE_Double && !opgen_is_float(t)) return OPGEN_DTYPE_Float;
    if (s->dtype == OPGEN_DTYPE_Long && t == OPGEN_DTYPE_Bool) return OPGEN_DTYPE_Long;
    return t;
}

/* ATen's result_type: dimensioned tensors, then 0-d tensors, then Scalars (a float
 * Scalar counts as the default dtype, Float), each group promoted within, and a
 * lower group raising the result only to a higher category (integral -> floating). */
static bool is_fp(opgen_dtype d) { return opgen_is_float(d); }
static opgen_dtype combine(int higher, int lower) {
    if (higher < 0) return (opgen_dtype)lower;
    if (lower < 0) return (opgen_dtype)higher;
    if (is_fp((opgen_dtype)higher)) return (opgen_dtype)higher;
    if (higher == OPGEN_DTYPE_Bool || is_fp((opgen_dtype)lower))
        return opgen_promote((opgen_dtype)higher, (opgen_dtype)lower);
    return (opgen_dtype)higher;
}
opgen_dtype opgen_result_type(const opgen_tensor *const *ts, int nt, const opgen_scalar *const *ss, int ns) {
    int dim = -1, zero = -1, wrapped = -1;
    for (int i = 0; i < nt; i++) {
        if (!ts[i]) continue;
        int *slot = ts[i]->dim ? &dim : &zero;
        *slot = *slot < 0 ? (int)ts[i]->dtype : (int)opgen_promote((opgen_dtype)*slot, ts[i]->dtype);
    }
    for (int i = 0; i < ns; i++) {
        if (!ss[i]) continue;
        opgen_dtype d = ss[i]->dtype == OPGEN_DTYPE_Double ? OPGEN_DTYPE_Float : ss[i]->dtype;
        wrapped = wrapped < 0 ? (int)d : (int)opgen_promote((opgen_dtype)wrapped, d);
    }
    return combine(dim, combine(zero, wrapped));
}

opgen_status opgen_broadcast(opgen_ctx *ctx, const opgen_tensor *a, const opgen_tensor *b, int32_t *dim,
                             int64_t *sizes) {
    int32_t n = a->dim > b->dim ? a->dim : b->dim;
    for (int32_t i = 0; i < n; i++) {
        int32_t ia = i - (n - a->dim), ib = i - (n - b->dim);
        int64_t sa = ia >= 0 ? a->sizes[ia] : 1, sb = ib >= 0 ? b->sizes[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: shapes do not broadcast: size %lld against %lld in dimension %d",
                              ctx->op, (long long)sa, (long long)sb, (int)i);
        sizes[i] = sa == 1 ? sb : sa;
    }
    *dim = n;
    return OPGEN_OK;
}

opgen_status opgen_wrap_dim(opgen_ctx *ctx, int64_t d, int32_t dim, int32_t *out) {
    int32_t n = dim ? dim : 1;
    if (d < -n || d >= n)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: dimension %lld is out of range for a %d-d tensor", ctx->op,
                          (long long)d, (int)dim);
    *out = (int32_t)(d < 0 ? d + n : d);
    return OPGEN_OK;
}

double opgen_load_f64(const opgen_tensor *t, int64_t off) {
    const void *p = t->data;
    switch (t->dtype) {
    case OPGEN_DTYPE_Bool: return ((const bool *)p)[off];
    case OPGEN_DTYPE_Byte: return ((const uint8_t *)p)[off];
    case OPGEN_DTYPE_Char: return ((const int8_t *)p)[off];
    case OPGEN_DTYPE_Short: return ((const int16_t *)p)[off];
    case OPGEN_DTYPE_Int: return ((const int32_t *)p)[off];
    case OPGEN_DTYPE_Long: return (double)((const int64_t *)p)[off];
    case OPGEN_DTYPE_UInt16: return ((const uint16_t *)p)[off];
    case OPGEN_DTYPE_Float: return ((const float *)p)[off];
    case OPGEN_DTYPE_Double: return ((const double *)p)[off];
    case OPGEN_DTYPE_Half: return opgen_half_to_float(((const uint16_t *)p)[off]);
    case OPGEN_DTYPE_BFloat16: return opgen_bf16_to_float(((const uint16_t *)p)[off]);
    default: return 0;
    }
}

int64_t opgen_load_i64(const opgen_tensor *t, int64_t off) {
    const void *p = t->data;
    switch (t->dtype) {
    case OPGEN_DTYPE_Bool: return ((const bool *)p)[off];
    case OPGEN_DTYPE_Byte: return ((const uint8_t *)p)[off];
    case OPGEN_DTYPE_Char: return ((const int8_t *)p)[off];
    case OPGEN_DTYPE_Short: return ((const int16_t *)p)[off];
    case OPGEN_DTYPE_Int: return ((const int32_t *)p)[off];
    case OPGEN_DTYPE_Long: return ((const int64_t *)p)[off];
    case OPGEN_DTYPE_UInt16: return ((const uint16_t *)p)[off];
    case OPGEN_DTYPE_Float: return opgen_f64_to_i64(((const float *)p)[off]);
    case OPGEN_DTYPE_Double: return opgen_f64_to_i64(((const double *)p)[off]);
    default: return 0;
    }
}

void opgen_store_f64(opgen_tensor *t, int64_t off, double v) {
    void *p = t->data;
    switch (t->dtype) {
    case OPGEN_DTYPE_Bool: ((bool *)p)[off] = v != 0; break;
    case OPGEN_DTYPE_Byte: ((uint8_t *)p)[off] = (uint8_t)opgen_f64_to_i64(v); break;
    case OPGEN_DTYPE_Char: ((int8_t *)p)[off] = (int8_t)opgen_f64_to_i64(v); break;
    case OPGEN_DTYPE_Short: ((int16_t *)p)[off] = (int16_t)opgen_f64_to_i64(v); break;
    case OPGEN_DTYPE_Int: ((int32_t *)p)[off] = (int32_t)opgen_f64_to_i64(v); break;
    case OPGEN_DTYPE_Long: ((int64_t *)p)[off] = opgen_f64_to_i64(v); break;
    case OPGEN_DTYPE_UInt16: ((uint16_t *)p)[off] = (uint16_t)opgen_f64_to_i64(v); break;
    case OPGEN_DTYPE_Float: ((float *)p)[off] = (float)v; break;
    case OPGEN_DTYPE_Double: ((double *)p)[off] = v; break;
    default: break;
    }
}

void opgen_store_i64(opgen_tensor *t, int64_t off, int64_t v) {
    void *p = t->data;
    switch (t->dtype) {
    case OPGEN_DTYPE_Bool: ((bool *)p)[off] = v != 0; break;
    case OPGEN_DTYPE_Byte: ((uint8_t *)p)[off] = (uint8_t)v; break;
    case OPGEN_DTYPE_Char: ((int8_t *)p)[off] = (int8_t)v; break;
    case OPGEN_DTYPE_Short: ((int16_t *)p)[off] = (int16_t)v; break;
    case OPGEN_DTYPE_Int: ((int32_t *)p)[off] = (int32_t)v; break;
    case OPGEN_DTYPE_Long: ((int64_t *)p)[off] = v; break;
    case OPGEN_DTYPE_UInt16: ((uint16_t *)p)[off] = (uint16_t)v; break;
    case OPGEN_DTYPE_Float: ((float *)p)[off] = (float)v; break;
    case OPGEN_DTYPE_Double: ((double *)p)[off] = (double)v; break;
    default: break;
    }
}

double opgen_scalar_f64(const opgen_scalar *s) {
    return s->dtype == OPGEN_DTYPE_Double ? s->v.f : s->dtype == OPGEN_DTYPE_Bool ? (double)s->v.b : (double)s->v.i;
}
int64_t opgen_scalar_i64(const opgen_scalar *s) {
    return s->dtype == OPGEN_DTYPE_Double ? opgen_f64_to_i64(s->v.f)
           : s->dtype == OPGEN_DTYPE_Bool ? (int64_t)s->v.b
                                          : s->v.i;
}

opgen_status opgen_int_pair(opgen_ctx *ctx, opgen_int_list l, const char *what, int64_t dflt, int64_t *v) {
    if (l.len == 0 && dflt >= 0) {
        v[0] = v[1] = dflt;
    } else if (l.len == 1 || l.len == 2) {
        v[0] = l.data[0];
        v[1] = l.data[l.len - 1];
    } else {
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %s must have 1 or 2 values, not %zu", ctx->op, what, l.len);
    }
    for (int i = 0; i < 2; i++) /* geometry stays far from int64 overflow */
        if (v[i] > (1 << 30) || v[i] < -(1 << 30))
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %s value %lld is out of range", ctx->op, what,
                              (long long)v[i]);
    return OPGEN_OK;
}

opgen_status opgen_contiguous(opgen_ctx *ctx, const opgen_tensor *t, opgen_tensor *c) {
    *c = *t;
    if (opgen_tensor_shape(c, t->dtype, t->dim, t->sizes, ctx->err)) return ctx->err->code;
    if (ctx->meta) return (void)opgen_scratch(ctx, opgen_nbytes(c)), OPGEN_OK; /* room, whatever the run's layout */
    if (opgen_tensor_is_contiguous(t)) return c->data = t->data, OPGEN_OK;
    c->data = opgen_scratch(ctx, opgen_nbytes(c));
    if (!c->data) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of scratch memory", ctx->op);
    return opgen_copy_same(ctx, c, t);
}

opgen_status opgen_widen(opgen_ctx *ctx, const opgen_tensor *t, opgen_tensor *f) {
    if (!t) return OPGEN_OK;
    *f = *t;
    if (t->dtype != OPGEN_DTYPE_Half && t->dtype != OPGEN_DTYPE_BFloat16) return OPGEN_OK;
    if (opgen_tensor_shape(f, OPGEN_DTYPE_Float, t->dim, t->sizes, ctx->err)) return ctx->err->code;
    f->data = opgen_scratch(ctx, opgen_nbytes(f));
    if (ctx->meta) return OPGEN_OK;
    if (!f->data) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of scratch memory", ctx->op);
    f->capacity = opgen_nbytes(f);
    return opgen_copy(ctx, f, t);
}

opgen_status opgen_narrow(opgen_ctx *ctx, opgen_tensor *out, opgen_dtype dtype, const opgen_tensor *f) {
    opgen_status st = opgen_out_any(ctx, out, dtype, f->dim, f->sizes);
    if (st || ctx->meta) return st;
    return opgen_copy(ctx, out, f);
}

/* A fused multiply-add in software, correctly rounded (Boldo and Melquiond,
 * "Emulation of FMA and correctly rounded sums: proved algorithms using
 * rounding to odd", 2008): x * y exactly as a sum of two doubles (Dekker's
 * product), z added exactly (Knuth's two-sum), the low parts summed rounding to
 * odd, then one rounding to nearest. Exact while the product's low part is a
 * normal number: outside products of 2^-960 to 2^1000 it rounds twice. Needs
 * each operation rounded on its own: ISO C (-std=c11) contracts none. */
static double split_hi(double v) {
    double t = 134217729.0 * v; /* 2^27 + 1: Veltkamp's split into 26-bit halves */
    return t - (t - v);
}

static double two_sum(double a, double b, double *err) {
    double s = a + b, bb = s - a;
    *err = (a - (s - bb)) + (b - bb);
    return s;
}

static double add_round_odd(double a, double b) {
    double err, s = two_sum(a, b, &err);
    uint64_t u;
    memcpy(&u, &s, sizeof u);
    if (err != 0 && isfinite(s) && !(u & 1)) { /* inexact and even: step to the odd neighbour on err's side */
        u += (err > 0) == (s > 0) ? 1 : (uint64_t)-1;
        memcpy(&s, &u, sizeof s);
    }
    return s;
}

double opgen_fma_soft(double x, double y, double z) {
    double p = x * y, ap = fabs(p);
    if (!isfinite(x) || !isfinite(y) || !isfinite(z) || x == 0 || y == 0 || !(ap > 0x1p-960 && ap < 0x1p1000))
        return p + z;
    double xh = split_hi(x), xl = x - xh, yh = split_hi(y), yl = y - yh;
    double pl = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl; /* x * y == p + pl exactly */
    double tl, th = two_sum(z, p, &tl);
    return th + add_round_odd(tl, pl);
}

float opgen_fmaf_soft(float x, float y, float z) {
    /* the product is exact in double; the sum rounded to odd there, then to float */
    return (float)add_round_odd((double)x * (double)y, (double)z);
}
