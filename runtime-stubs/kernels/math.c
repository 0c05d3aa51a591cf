/* Elementwise math on the kernel idiom: the float functions (trigonometric,
 * hyperbolic, exponential and logarithmic, roots, erf, reciprocal), rounding
 * (ceil, floor, round, trunc), neg, sign and bitwise_not.
 *
 * The float functions follow ATen's float ops: an integer or Bool input is first
 * converted to Float (the result's dtype), then the function is evaluated in
 * double and rounded once, so a result is never farther from the exact value than
 * ATen's own (Sleef's 1-ulp vector functions, or the C library's). Rounding, neg
 * and sign keep the dtype; on integers rounding is the identity, as in ATen. */
#include "opgen/loops.h"
#include "opgen_registry.h"

static inline double rsqrt_d(double v) { return 1.0 / sqrt(v); }
static inline double reciprocal_d(double v) { return 1.0 / v; }

/* X(op, f): f of double, evaluated in double and rounded once to the result type */
/* clang-format off */
#define FLOAT_FUNCS(X)                                                                                          \
    X(acos, acos) X(acosh, acosh) X(asin, asin) X(asinh, asinh) X(atan, atan) X(atanh, atanh) X(cos, cos)       \
    X(cosh, cosh) X(sin, sin) X(sinh, sinh) X(tan, tan) X(erf, erf) X(expm1, expm1) X(log, log) X(log10, log10) \
    X(log1p, log1p) X(log2, log2) X(rsqrt, rsqrt_d) X(sqrt, sqrt) X(reciprocal, reciprocal_d)
/* clang-format on */

/* The result dtype of a float op: the input's when floating, else Float. */
static opgen_status float_result(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self, opgen_tensor *out,
                                 opgen_iter *it) {
    opgen_dtype res = opgen_is_float(self->dtype) ? self->dtype : OPGEN_DTYPE_Float;
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    opgen_status st = opgen_out_any(ctx, out, res, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    const opgen_tensor *in[1] = {self};
    return opgen_iter_init(ctx, it, out, in, 1);
}

#define FLOAT_DEFINE(name, fn)                                                                              \
    opgen_status opgen_portable_##name##_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) { \
        uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_##name##_out;                                    \
        opgen_iter it;                                                                                      \
        opgen_status st = float_result(ctx, mask, self, out, &it);                                          \
        if (st || ctx->meta) return st;                                                                     \
        OPGEN_FLOAT_SWITCH(mask, out->dtype, ctx, T, { OPGEN_MAP1(&it, mask, T, T, (T)fn((double)x)); })    \
        return OPGEN_OK;                                                                                    \
    }
FLOAT_FUNCS(FLOAT_DEFINE)

typedef enum { R_CEIL, R_FLOOR, R_ROUND, R_TRUNC, R_NEG, R_SIGN, R_NOT } keepop;

/* Ops that keep the dtype. round is to nearest even (nearbyint, as ATen);
 * neg wraps on integers; sign of NaN is 0 (ATen's vector loop), of a Bool itself;
 * bitwise_not of a Bool is logical not. */
OPGEN_SPECIALIZED opgen_status keep_dtype(opgen_ctx *ctx, uint32_t mask, keepop op, const opgen_tensor *self,
                                          opgen_tensor *out) {
    opgen_dtype res = self->dtype;
    if (op == R_NEG && res == OPGEN_DTYPE_Bool)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: negation, the `-` operator, on a bool tensor is not supported",
                          ctx->op);
    if (op == R_NOT && opgen_is_float(res))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: bitwise_not is not defined for %s", ctx->op, opgen_dtype_name(res));
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    opgen_status st = opgen_out_any(ctx, out, res, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    opgen_iter it;
    const opgen_tensor *in[1] = {self};
    if (opgen_iter_init(ctx, &it, out, in, 1)) return ctx->err->code;
    OPGEN_REAL_SWITCH(mask, res, ctx, T, {
        if (op == R_NEG)
            OPGEN_MAP1(&it, mask, T, T, OPGEN_IS_FLOAT_T(T) ? (T)-x : OPGEN_SUB(T, 0, x));
        else if (op == R_SIGN)
            OPGEN_MAP1(&it, mask, T, T, (T)(OPGEN_GT0(T, x) - OPGEN_LT0(T, x)));
        else if (op == R_NOT)
            OPGEN_MAP1(&it, mask, T, T, OPGEN_BITNOT(T, x));
        else if (!OPGEN_IS_FLOAT_T(T))
            OPGEN_MAP1(&it, mask, T, T, x);
        else if (op == R_CEIL)
            OPGEN_MAP1(&it, mask, T, T, OPGEN_MATH(T, ceil)(x));
        else if (op == R_FLOOR)
            OPGEN_MAP1(&it, mask, T, T, OPGEN_MATH(T, floor)(x));
        else if (op == R_ROUND)
            OPGEN_MAP1(&it, mask, T, T, OPGEN_MATH(T, nearbyint)(x));
        else
            OPGEN_MAP1(&it, mask, T, T, OPGEN_MATH(T, trunc)(x));
    })
    return OPGEN_OK;
}

/* clang-format off */
#define KEEP_KERNELS(X)                                                                                 \
    X(ceil, R_CEIL) X(floor, R_FLOOR) X(round, R_ROUND) X(trunc, R_TRUNC) X(neg, R_NEG) X(sign, R_SIGN) \
    X(bitwise_not, R_NOT)
/* clang-format on */
#define KEEP_DEFINE(name, op)                                                                               \
    opgen_status opgen_portable_##name##_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) { \
        return keep_dtype(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_##name##_out, op, self, out);             \
    }
KEEP_KERNELS(KEEP_DEFINE)
