/* Division with rounding modes, fmod, remainder and pow (Tensor and Scalar forms)
 * on the kernel idiom, in ATen's result type and with ATen's formulas: floats in
 * their own type (float32 in float32), integers with C's truncating division
 * corrected as ATen corrects it. Integer division by zero fails, as ATen's
 * ZeroDivisionError; the most negative integer divided by -1 wraps (ATen's
 * hardware division would trap). */
#include "opgen/loops.h"
#include "opgen_registry.h"

/* ---- per-type helpers: float, double, and integers computed in 64 bits and
 * wrapped back to their type (so int8's -128 / -1 is -128, as in ATen) ---- */
static inline int64_t wrap_neg(int64_t a) { return (int64_t)(0 - (uint64_t)a); }
static inline int64_t idiv_trunc(int64_t a, int64_t b) { return b == -1 ? wrap_neg(a) : a / b; }
static inline int64_t idiv_floor(int64_t a, int64_t b) {
    if (b == -1) return wrap_neg(a);
    int64_t q = a / b, r = a % b;
    return r && ((a < 0) != (b < 0)) ? q - 1 : q;
}
static inline int64_t imod_trunc(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }
static inline int64_t imod_floor(int64_t a, int64_t b) {
    int64_t r = imod_trunc(a, b);
    return r && ((r < 0) != (b < 0)) ? r + b : r;
}
/* ATen's powi: negative exponents give 0 except for bases 1 and -1 */
static inline int64_t ipow(int64_t a, int64_t b) {
    if (b < 0) return a == 1 ? 1 : a == -1 ? ((-(b + 1)) % 2 ? 1 : -1) : 0;
    uint64_t r = 1, x = (uint64_t)a;
    for (uint64_t e = (uint64_t)b; e; e >>= 1, x *= x)
        if (e & 1) r *= x;
    return (int64_t)r;
}
#define FLOAT_HELPERS(T, S)                                                         \
    static inline T fmod_##S(T a, T b) { return OPGEN_MATH(T, fmod)(a, b); }        \
    static inline T rem_##S(T a, T b) {                                             \
        T m = OPGEN_MATH(T, fmod)(a, b);                                            \
        return m != 0 && ((b < 0) != (m < 0)) ? m + b : m;                          \
    }                                                                               \
    static inline T trunc_div_##S(T a, T b) { return OPGEN_MATH(T, trunc)(a / b); } \
    static inline T floor_div_##S(T a, T b) { /* ATen's div_floor_floating */       \
        if (b == 0) return a / b;                                                   \
        T m = OPGEN_MATH(T, fmod)(a, b), d = (a - m) / b;                           \
        if (m != 0 && ((b < 0) != (m < 0))) d -= (T)1;                              \
        if (d == 0) return OPGEN_MATH(T, copysign)((T)0, a / b);                    \
        T f = OPGEN_MATH(T, floor)(d);                                              \
        return d - f > (T)0.5 ? f + (T)1 : f;                                       \
    }
FLOAT_HELPERS(float, f32)
FLOAT_HELPERS(double, f64)
#define BY_TYPE(T, fl, db, in) _Generic((T)0, float : fl##_f32, double : db##_f64, default : in)
#define TRUNC_DIV(T, a, b) ((T)BY_TYPE(T, trunc_div, trunc_div, idiv_trunc)(a, b))
#define FLOOR_DIV(T, a, b) ((T)BY_TYPE(T, floor_div, floor_div, idiv_floor)(a, b))
#define FMOD(T, a, b) ((T)BY_TYPE(T, fmod, fmod, imod_trunc)(a, b))
#define REM(T, a, b) ((T)BY_TYPE(T, rem, rem, imod_floor)(a, b))

typedef enum { A_TRUEDIV, A_TRUNC, A_FLOOR, A_FMOD, A_REM, A_POW } arithop;

/* ATen's result dtype: true division and pow of a float Scalar go to Float;
 * nothing here is defined on a Bool result. */
static opgen_status arith_dtype(opgen_ctx *ctx, arithop op, const opgen_tensor *a, const opgen_scalar *as,
                                const opgen_tensor *b, const opgen_scalar *bs, opgen_dtype *res) {
    const opgen_tensor *ts[2] = {as ? NULL : a, bs ? NULL : b};
    const opgen_scalar *ss[2] = {as, bs};
    *res = opgen_result_type(ts, 2, ss, 2);
    if (op == A_TRUEDIV && !opgen_is_float(*res)) *res = OPGEN_DTYPE_Float;
    if (*res == OPGEN_DTYPE_Bool) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: not defined for Bool", ctx->op);
    if (op == A_POW && bs && !opgen_is_float(*res) && bs->dtype != OPGEN_DTYPE_Double && opgen_scalar_i64(bs) < 0)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: integers to negative integer powers are not allowed", ctx->op);
    return OPGEN_OK;
}

/* out = a (op) b; a Scalar operand (as, bs) is a 0-d operand of its own dtype. */
OPGEN_SPECIALIZED opgen_status arith(opgen_ctx *ctx, uint32_t mask, arithop op, const opgen_tensor *a,
                                     const opgen_scalar *as, const opgen_tensor *b, const opgen_scalar *bs,
                                     opgen_tensor *out) {
    opgen_dtype res;
    if (arith_dtype(ctx, op, a, as, b, bs, &res)) return ctx->err->code;
    opgen_tensor sa, sb;
    if (as) a = opgen_scalar_operand(as, &sa);
    if (bs) b = opgen_scalar_operand(bs, &sb);
    opgen_iter it;
    opgen_status st = opgen_binary_prepare(ctx, mask, res, a, b, out, &it);
    if (st || ctx->meta) return st;
    bool zero = false; /* an integer division by zero */
    OPGEN_REAL_SWITCH(mask, res, ctx, T, {
        if (op == A_TRUEDIV)
            OPGEN_MAP2(&it, mask, T, T, x / y);
        else if (op == A_POW && OPGEN_IS_FLOAT_T(T))
            OPGEN_MAP2(&it, mask, T, T, (T)pow((double)x, (double)y));
        else if (op == A_POW)
            OPGEN_MAP2(&it, mask, T, T, (T)ipow((int64_t)x, (int64_t)y));
        else if (OPGEN_IS_FLOAT_T(T)) {
            if (op == A_TRUNC)
                OPGEN_MAP2(&it, mask, T, T, TRUNC_DIV(T, x, y));
            else if (op == A_FLOOR)
                OPGEN_MAP2(&it, mask, T, T, FLOOR_DIV(T, x, y));
            else if (op == A_FMOD)
                OPGEN_MAP2(&it, mask, T, T, FMOD(T, x, y));
            else
                OPGEN_MAP2(&it, mask, T, T, REM(T, x, y));
        } else {
            if (op == A_TRUNC)
                OPGEN_MAP2(&it, mask, T, T, y ? TRUNC_DIV(T, x, y) : (zero = true, (T)0));
            else if (op == A_FLOOR)
                OPGEN_MAP2(&it, mask, T, T, y ? FLOOR_DIV(T, x, y) : (zero = true, (T)0));
            else if (op == A_FMOD)
                OPGEN_MAP2(&it, mask, T, T, y ? FMOD(T, x, y) : (zero = true, (T)0));
            else
                OPGEN_MAP2(&it, mask, T, T, y ? REM(T, x, y) : (zero = true, (T)0));
        }
    })
    if (zero) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: ZeroDivisionError (integer division by zero)", ctx->op);
    return OPGEN_OK;
}

static opgen_status rounding(opgen_ctx *ctx, const char *mode, arithop *op) {
    if (!mode)
        *op = A_TRUEDIV;
    else if (!strcmp(mode, "trunc"))
        *op = A_TRUNC;
    else if (!strcmp(mode, "floor"))
        *op = A_FLOOR;
    else
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: rounding_mode must be None, 'trunc' or 'floor', not '%s'", ctx->op,
                          mode);
    return OPGEN_OK;
}

opgen_status opgen_portable_div_out_mode(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other,
                                         const char *rounding_mode, opgen_tensor *out) {
    arithop op = A_TRUEDIV;
    if (rounding(ctx, rounding_mode, &op)) return ctx->err->code;
    return arith(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_div_out_mode, op, self, NULL, other, NULL, out);
}
opgen_status opgen_portable_div_Scalar_mode_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *other,
                                                const char *rounding_mode, opgen_tensor *out) {
    arithop op = A_TRUEDIV;
    if (rounding(ctx, rounding_mode, &op)) return ctx->err->code;
    return arith(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_div_Scalar_mode_out, op, self, NULL, NULL, other, out);
}
opgen_status opgen_portable_div_Scalar_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *other,
                                           opgen_tensor *out) {
    return arith(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_div_Scalar_out, A_TRUEDIV, self, NULL, NULL, other, out);
}

#define ARITH_KERNELS(X) X(fmod, A_FMOD) X(remainder, A_REM)
#define ARITH_DEFINE(name, op)                                                                                       \
    opgen_status opgen_portable_##name##_Tensor_out(opgen_ctx *ctx, const opgen_tensor *self,                        \
                                                    const opgen_tensor *other, opgen_tensor *out) {                  \
        return arith(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_##name##_Tensor_out, op, self, NULL, other, NULL, out); \
    }                                                                                                                \
    opgen_status opgen_portable_##name##_Scalar_out(opgen_ctx *ctx, const opgen_tensor *self,                        \
                                                    const opgen_scalar *other, opgen_tensor *out) {                  \
        return arith(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_##name##_Scalar_out, op, self, NULL, NULL, other, out); \
    }
ARITH_KERNELS(ARITH_DEFINE)

/* pow: floats evaluated in double and rounded once (ATen's float pow is a 1-ulp
 * vector function); integers by squaring, wrapping. */
opgen_status opgen_portable_pow_Tensor_Tensor_out(opgen_ctx *ctx, const opgen_tensor *self,
                                                  const opgen_tensor *exponent, opgen_tensor *out) {
    return arith(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_pow_Tensor_Tensor_out, A_POW, self, NULL, exponent, NULL, out);
}
opgen_status opgen_portable_pow_Tensor_Scalar_out(opgen_ctx *ctx, const opgen_tensor *self,
                                                  const opgen_scalar *exponent, opgen_tensor *out) {
    return arith(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_pow_Tensor_Scalar_out, A_POW, self, NULL, NULL, exponent, out);
}
opgen_status opgen_portable_pow_Scalar_out(opgen_ctx *ctx, const opgen_scalar *self, const opgen_tensor *exponent,
                                           opgen_tensor *out) {
    return arith(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_pow_Scalar_out, A_POW, NULL, self, exponent, NULL, out);
}
