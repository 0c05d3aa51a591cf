/* Elementwise kernels: binary arithmetic with broadcasting and ATen's type
 * promotion, where, and the unary activations. Results are stored through a
 * dtype switch over the kernel's generated dtype set; inputs of other dtypes are
 * read converted (promotion). */
#include "opgen/kernel.h"
#include "opgen_registry.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_SQRT1_2
#define M_SQRT1_2 0.70710678118654752440
#endif

#define IS_FLOATING(T) _Generic((T)0, float: 1, double: 1, default: 0)

typedef enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV } binop;

static double f64_binop(binop op, double a, double b, double alpha) {
    switch (op) {
    case OP_ADD: return a + alpha * b;
    case OP_SUB: return a - alpha * b;
    case OP_MUL: return a * b;
    default: return a / b;
    }
}

static int64_t i64_binop(binop op, int64_t a, int64_t b, int64_t alpha) {
    switch (op) {
    case OP_ADD: return (int64_t)((uint64_t)a + (uint64_t)alpha * (uint64_t)b); /* wraps like ATen, no UB */
    case OP_SUB: return (int64_t)((uint64_t)a - (uint64_t)alpha * (uint64_t)b);
    default: return (int64_t)((uint64_t)a * (uint64_t)b);
    }
}

/* a (op) alpha * b, with b a tensor or (when bs is set) a Scalar. */
OPGEN_SPECIALIZED int32_t binary(opgen_ctx *ctx, uint32_t mask, binop op, const opgen_tensor *a, const opgen_tensor *b, const opgen_scalar *bs, const opgen_scalar *alpha, opgen_tensor *out) {
    opgen_dtype res = bs ? opgen_promote_scalar(a->dtype, bs) : opgen_promote(a->dtype, b->dtype);
    if (op == OP_DIV && !opgen_is_float(res)) res = OPGEN_DTYPE_Float; /* true division */
    if (alpha && alpha->dtype == OPGEN_DTYPE_Double && !opgen_is_float(res))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: for integral input tensors, alpha must not be a floating point number", ctx->op);
    if ((op == OP_SUB) && (a->dtype == OPGEN_DTYPE_Bool || (b && b->dtype == OPGEN_DTYPE_Bool)))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: subtraction of Bool tensors is not supported", ctx->op);
    int32_t dim = a->dim;
    int64_t sizes[OPGEN_MAX_DIM];
    memcpy(sizes, a->sizes, sizeof(int64_t) * (size_t)a->dim);
    if (b && opgen_broadcast(ctx, a, b, &dim, sizes)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    int32_t st = opgen_out(ctx, out, res, dim, sizes);
    if (st || ctx->meta) return st;
    int64_t n = opgen_numel(out), idx[OPGEN_MAX_DIM] = {0};
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        T *o = (T *)out->data;
        /* the Scalars as each case needs them (so a float-only build has no integer code) */
        double alf = IS_FLOATING(T) && alpha ? opgen_scalar_f64(alpha) : 1, bf = IS_FLOATING(T) && bs ? opgen_scalar_f64(bs) : 0;
        int64_t ali = !IS_FLOATING(T) && alpha ? opgen_scalar_i64(alpha) : 1, bi = !IS_FLOATING(T) && bs ? opgen_scalar_i64(bs) : 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t oa = opgen_bcast_offset(a, dim, idx), ob = b ? opgen_bcast_offset(b, dim, idx) : 0;
            if (IS_FLOATING(T))
                o[i] = (T)f64_binop(op, opgen_load_f64(a, oa), b ? opgen_load_f64(b, ob) : bf, alf);
            else
                o[i] = (T)i64_binop(op, opgen_load_i64(a, oa), b ? opgen_load_i64(b, ob) : bi, ali);
            opgen_index_next(dim, sizes, idx);
        }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_add_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other, const opgen_scalar *alpha, opgen_tensor *out) {
    return binary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_add_out, OP_ADD, self, other, NULL, alpha, out);
}
opgen_status opgen_portable_sub_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other, const opgen_scalar *alpha, opgen_tensor *out) {
    return binary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_sub_out, OP_SUB, self, other, NULL, alpha, out);
}
opgen_status opgen_portable_mul_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other, opgen_tensor *out) {
    return binary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_mul_out, OP_MUL, self, other, NULL, NULL, out);
}
opgen_status opgen_portable_div_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other, opgen_tensor *out) {
    return binary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_div_out, OP_DIV, self, other, NULL, NULL, out);
}
opgen_status opgen_portable_add_Scalar_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *other, const opgen_scalar *alpha, opgen_tensor *out) {
    return binary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_add_Scalar_out, OP_ADD, self, NULL, other, alpha, out);
}
opgen_status opgen_portable_mul_Scalar_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *other, opgen_tensor *out) {
    return binary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_mul_Scalar_out, OP_MUL, self, NULL, other, NULL, out);
}

opgen_status opgen_portable_where_self_out(opgen_ctx *ctx, const opgen_tensor *condition, const opgen_tensor *self, const opgen_tensor *other, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_where_self_out;
    if (condition->dtype != OPGEN_DTYPE_Bool && condition->dtype != OPGEN_DTYPE_Byte)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: condition must be Bool, not %s", ctx->op, opgen_dtype_name(condition->dtype));
    opgen_dtype res = opgen_promote(self->dtype, other->dtype);
    int32_t d1, dim;
    int64_t s1[OPGEN_MAX_DIM], sizes[OPGEN_MAX_DIM];
    if (opgen_broadcast(ctx, self, other, &d1, s1)) return ctx->err->code;
    opgen_tensor shape;
    memset(&shape, 0, sizeof shape);
    shape.dim = d1;
    memcpy(shape.sizes, s1, sizeof(int64_t) * (size_t)d1);
    if (opgen_broadcast(ctx, condition, &shape, &dim, sizes)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    int32_t st = opgen_out(ctx, out, res, dim, sizes);
    if (st || ctx->meta) return st;
    int64_t n = opgen_numel(out), idx[OPGEN_MAX_DIM] = {0};
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        T *o = (T *)out->data;
        for (int64_t i = 0; i < n; i++) {
            bool c = opgen_load_i64(condition, opgen_bcast_offset(condition, dim, idx)) != 0;
            const opgen_tensor *src = c ? self : other;
            int64_t off = opgen_bcast_offset(src, dim, idx);
            o[i] = IS_FLOATING(T) ? (T)opgen_load_f64(src, off) : (T)opgen_load_i64(src, off);
            opgen_index_next(dim, sizes, idx);
        }
    })
    return OPGEN_OK;
}

/* ---- unary ---- */

typedef enum { U_RELU, U_SIGMOID, U_TANH, U_EXP, U_GELU, U_GELU_TANH } unop;

static double f64_unop(unop op, double x) {
    switch (op) {
    case U_RELU: return x > 0 ? x : (x == x ? 0 : x); /* NaN stays NaN */
    case U_SIGMOID: return 1 / (1 + exp(-x));
    case U_TANH: return tanh(x);
    case U_EXP: return exp(x);
    case U_GELU: return 0.5 * x * (1 + erf(x * M_SQRT1_2));
    default: return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    }
}

/* Float math on float tensors; integer input gives Float (ATen's float ops), except relu. */
OPGEN_SPECIALIZED int32_t unary(opgen_ctx *ctx, uint32_t mask, unop op, const opgen_tensor *self, opgen_tensor *out) {
    opgen_dtype res = self->dtype;
    if (op == U_RELU) {
        if (self->dtype == OPGEN_DTYPE_Bool) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: relu is not defined for Bool", ctx->op);
    } else if (!opgen_is_float(res)) {
        if (op == U_GELU || op == U_GELU_TANH) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: gelu needs a floating point tensor, not %s", ctx->op, opgen_dtype_name(res));
        res = OPGEN_DTYPE_Float;
    }
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    int32_t st = opgen_out(ctx, out, res, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    int64_t n = opgen_numel(out), idx[OPGEN_MAX_DIM] = {0};
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        T *o = (T *)out->data;
        for (int64_t i = 0; i < n; i++) {
            int64_t off = opgen_bcast_offset(self, self->dim, idx);
            if (IS_FLOATING(T)) {
                o[i] = (T)f64_unop(op, opgen_load_f64(self, off));
            } else {
                int64_t v = opgen_load_i64(self, off);
                o[i] = (T)(v > 0 ? v : 0); /* only relu keeps an integer dtype */
            }
            opgen_index_next(self->dim, self->sizes, idx);
        }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_relu_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    return unary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_relu_out, U_RELU, self, out);
}
opgen_status opgen_portable_sigmoid_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    return unary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_sigmoid_out, U_SIGMOID, self, out);
}
opgen_status opgen_portable_tanh_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    return unary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_tanh_out, U_TANH, self, out);
}
opgen_status opgen_portable_exp_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    return unary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_exp_out, U_EXP, self, out);
}
opgen_status opgen_portable_gelu_out(opgen_ctx *ctx, const opgen_tensor *self, const char *approximate, opgen_tensor *out) {
    unop op;
    if (!strcmp(approximate, "none"))
        op = U_GELU;
    else if (!strcmp(approximate, "tanh"))
        op = U_GELU_TANH;
    else
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: approximate must be 'none' or 'tanh', not '%s'", ctx->op, approximate);
    return unary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_gelu_out, op, self, out);
}

/* clamp and hardtanh: min/max Scalars, either may be absent (clamp) */
OPGEN_SPECIALIZED int32_t clamp(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self, const opgen_scalar *lo, const opgen_scalar *hi, opgen_tensor *out) {
    opgen_dtype res = self->dtype;
    if (lo) res = opgen_promote_scalar(res, lo);
    if (hi) res = opgen_promote_scalar(res, hi);
    if (res == OPGEN_DTYPE_Bool) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: not defined for Bool", ctx->op);
    if (!lo && !hi) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: at least one of min and max must be given", ctx->op);
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    int32_t st = opgen_out(ctx, out, res, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    int64_t n = opgen_numel(out), idx[OPGEN_MAX_DIM] = {0};
    double lf = lo ? opgen_scalar_f64(lo) : -INFINITY, hf = hi ? opgen_scalar_f64(hi) : INFINITY;
    int64_t li = lo ? opgen_scalar_i64(lo) : INT64_MIN, hii = hi ? opgen_scalar_i64(hi) : INT64_MAX;
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        T *o = (T *)out->data;
        for (int64_t i = 0; i < n; i++) {
            int64_t off = opgen_bcast_offset(self, self->dim, idx);
            if (IS_FLOATING(T)) {
                double v = opgen_load_f64(self, off);
                if (v == v) v = v < lf ? lf : v > hf ? hf : v; /* NaN passes through */
                o[i] = (T)v;
            } else {
                int64_t v = opgen_load_i64(self, off);
                o[i] = (T)(v < li ? li : v > hii ? hii : v);
            }
            opgen_index_next(self->dim, self->sizes, idx);
        }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_hardtanh_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *min_val, const opgen_scalar *max_val, opgen_tensor *out) {
    return clamp(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_hardtanh_out, self, min_val, max_val, out);
}
opgen_status opgen_portable_clamp_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *min, const opgen_scalar *max, opgen_tensor *out) {
    return clamp(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_clamp_out, self, min, max, out);
}
