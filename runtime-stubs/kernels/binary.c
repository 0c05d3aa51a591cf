/* Binary arithmetic (add, sub, mul, div; Tensor and Scalar forms), maximum and where, on
 * the kernel idiom (opgen/loops.h): ATen's result type, computed in it (float32
 * in float32, in ATen's order: a + alpha * b), integers wrapping as ATen's do,
 * true division of integers in float32. */
#include "opgen/loops.h"
#include "opgen_registry.h"

typedef enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV } binop;

/* ATen converts an integer alpha (negated for sub) to a narrow result type
 * with c10's checked_convert: past the type's range (an unsigned type also
 * takes -max .. -1) is an error. Int and Long results wrap, as ATen's do. */
static bool alpha_overflows(opgen_dtype res, bool negate, int64_t alpha) {
    if (res != OPGEN_DTYPE_Byte && res != OPGEN_DTYPE_Char && res != OPGEN_DTYPE_Short) return false;
    if (alpha == INT64_MIN) return true;
    int64_t v = negate ? -alpha : alpha;
    int64_t max = res == OPGEN_DTYPE_Byte ? 255 : res == OPGEN_DTYPE_Char ? 127 : 32767;
    return res == OPGEN_DTYPE_Byte ? v > max || -v > max : v > max || v < -max - 1;
}

/* The result dtype and checks shared by the Tensor and Scalar forms. */
static opgen_status binary_dtype(opgen_ctx *ctx, binop op, const opgen_tensor *a, const opgen_tensor *b,
                                 const opgen_scalar *bs, const opgen_scalar *alpha, opgen_dtype *res) {
    const opgen_tensor *ts[2] = {a, b};
    const opgen_scalar *ss[1] = {bs};
    *res = opgen_result_type(ts, 2, ss, 1);
    if (op == OP_DIV && !opgen_is_float(*res)) *res = OPGEN_DTYPE_Float; /* true division */
    if (alpha && alpha->dtype == OPGEN_DTYPE_Double && !opgen_is_float(*res))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID,
                          "%s: for integral input tensors, alpha must not be a floating point number", ctx->op);
    if (alpha && alpha->dtype == OPGEN_DTYPE_Bool && *res != OPGEN_DTYPE_Bool)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: a boolean alpha is only allowed for Bool tensors", ctx->op);
    if (alpha && alpha->dtype == OPGEN_DTYPE_Long && alpha_overflows(*res, op == OP_SUB, alpha->v.i))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: value cannot be converted to type %s without overflow", ctx->op,
                          *res == OPGEN_DTYPE_Byte   ? "uint8_t"
                          : *res == OPGEN_DTYPE_Char ? "int8_t"
                                                     : "int16_t");
    if (op == OP_SUB &&
        (a->dtype == OPGEN_DTYPE_Bool || (b && b->dtype == OPGEN_DTYPE_Bool) || (bs && bs->dtype == OPGEN_DTYPE_Bool)))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: subtraction of Bool tensors is not supported", ctx->op);
    return OPGEN_OK;
}

/* a (op) alpha * b, with b a tensor or (bs) a Scalar. */
OPGEN_SPECIALIZED opgen_status binary(opgen_ctx *ctx, uint32_t mask, binop op, const opgen_tensor *a,
                                      const opgen_tensor *b, const opgen_scalar *bs, const opgen_scalar *alpha,
                                      opgen_tensor *out) {
    opgen_dtype res;
    if (binary_dtype(ctx, op, a, b, bs, alpha, &res)) return ctx->err->code;
    int32_t dim = a->dim;
    int64_t sizes[OPGEN_MAX_DIM];
    memcpy(sizes, a->sizes, sizeof(int64_t) * (size_t)a->dim);
    if (b && opgen_broadcast(ctx, a, b, &dim, sizes)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    opgen_status st = opgen_out_any(ctx, out, res, dim, sizes);
    if (st || ctx->meta) return st;
    opgen_iter it;
    const opgen_tensor *in[2] = {a, b};
    if (opgen_iter_init(ctx, &it, out, in, b ? 2 : 1)) return ctx->err->code;
    OPGEN_REAL_SWITCH(mask, res, ctx, T, {
        T al = alpha ? OPGEN_SCALAR_AS(T, alpha) : (T)1;
        if (bs) { /* the Scalar as T, as ATen wraps it */
            T v = OPGEN_SCALAR_AS(T, bs);
            if (op == OP_ADD) OPGEN_MAP1(&it, mask, T, T, OPGEN_ADD(T, x, OPGEN_MUL(T, al, v)));
            if (op == OP_SUB) OPGEN_MAP1(&it, mask, T, T, OPGEN_SUB(T, x, OPGEN_MUL(T, al, v)));
            /* a bf16 tensor times a Scalar in one pass, not block by block through float */
            bool bf16 = OPGEN_SPEED_PATHS && OPGEN_HAS(mask, OPGEN_DTYPE_BFloat16) && sizeof(T) == 4 &&
                        OPGEN_IS_FLOAT_T(T) && opgen_iter_bf16_dense(&it);
            if (op == OP_MUL && bf16)
                opgen_bf16_scale((uint16_t *)it.data[0], (const uint16_t *)it.data[1], (float)v, it.numel);
            else if (op == OP_MUL)
                OPGEN_MAP1(&it, mask, T, T, OPGEN_MUL(T, x, v));
            if (op == OP_DIV) OPGEN_MAP1(&it, mask, T, T, x / v);
        } else {
            /* ATen fuses a + alpha * b for floats (one rounding): alpha 1 is a plain add */
            if (op == OP_ADD && OPGEN_IS_FLOAT_T(T) && al != 1)
                OPGEN_MAP2(&it, mask, T, T, OPGEN_FMA(T)(al, y, x));
            else if (op == OP_ADD)
                OPGEN_MAP2(&it, mask, T, T, OPGEN_ADD(T, x, OPGEN_MUL(T, al, y)));
            if (op == OP_SUB && OPGEN_IS_FLOAT_T(T) && al != 1)
                OPGEN_MAP2(&it, mask, T, T, OPGEN_FMA(T)(-al, y, x));
            else if (op == OP_SUB)
                OPGEN_MAP2(&it, mask, T, T, OPGEN_SUB(T, x, OPGEN_MUL(T, al, y)));
            if (op == OP_MUL) OPGEN_MAP2(&it, mask, T, T, OPGEN_MUL(T, x, y));
            if (op == OP_DIV) OPGEN_MAP2(&it, mask, T, T, x / y);
        }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_add_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other,
                                    const opgen_scalar *alpha, opgen_tensor *out) {
    return binary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_add_out, OP_ADD, self, other, NULL, alpha, out);
}
opgen_status opgen_portable_sub_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other,
                                    const opgen_scalar *alpha, opgen_tensor *out) {
    return binary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_sub_out, OP_SUB, self, other, NULL, alpha, out);
}
opgen_status opgen_portable_mul_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other,
                                    opgen_tensor *out) {
    return binary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_mul_out, OP_MUL, self, other, NULL, NULL, out);
}
opgen_status opgen_portable_div_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other,
                                    opgen_tensor *out) {
    return binary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_div_out, OP_DIV, self, other, NULL, NULL, out);
}
opgen_status opgen_portable_add_Scalar_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *other,
                                           const opgen_scalar *alpha, opgen_tensor *out) {
    return binary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_add_Scalar_out, OP_ADD, self, NULL, other, alpha, out);
}
opgen_status opgen_portable_mul_Scalar_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *other,
                                           opgen_tensor *out) {
    return binary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_mul_Scalar_out, OP_MUL, self, NULL, other, NULL, out);
}

/* maximum: the larger of x and y, NaN when either is (ATen's maximum; on Bool, or);
 * of 0.0 and -0.0 the second, as ATen's vectorised loop gives. */
opgen_status opgen_portable_maximum_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other,
                                        opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_maximum_out;
    const opgen_tensor *ts[2] = {self, other};
    opgen_dtype res = opgen_result_type(ts, 2, NULL, 0);
    int32_t dim;
    int64_t sizes[OPGEN_MAX_DIM];
    if (opgen_broadcast(ctx, self, other, &dim, sizes)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    opgen_status st = opgen_out_any(ctx, out, res, dim, sizes);
    if (st || ctx->meta) return st;
    opgen_iter it;
    const opgen_tensor *in[2] = {self, other};
    if (opgen_iter_init(ctx, &it, out, in, 2)) return ctx->err->code;
    OPGEN_REAL_SWITCH(mask, res, ctx, T, {
        OPGEN_MAP2(&it, mask, T, T, OPGEN_ISNAN(T, x) ? x : OPGEN_ISNAN(T, y) ? y : x > y ? x : y);
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_where_self_out(opgen_ctx *ctx, const opgen_tensor *condition, const opgen_tensor *self,
                                           const opgen_tensor *other, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_where_self_out;
    if (condition->dtype != OPGEN_DTYPE_Bool && condition->dtype != OPGEN_DTYPE_Byte)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: condition must be Bool, not %s", ctx->op,
                          opgen_dtype_name(condition->dtype));
    const opgen_tensor *ts[2] = {self, other};
    opgen_dtype res = opgen_result_type(ts, 2, NULL, 0);
    int32_t d1, dim;
    int64_t s1[OPGEN_MAX_DIM], sizes[OPGEN_MAX_DIM];
    if (opgen_broadcast(ctx, self, other, &d1, s1)) return ctx->err->code;
    opgen_tensor shape;
    memset(&shape, 0, sizeof shape);
    shape.dim = d1;
    memcpy(shape.sizes, s1, sizeof(int64_t) * (size_t)d1);
    if (opgen_broadcast(ctx, condition, &shape, &dim, sizes)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    opgen_status st = opgen_out_any(ctx, out, res, dim, sizes);
    if (st || ctx->meta) return st;
    opgen_iter it;
    const opgen_tensor *in[3] = {self, other, condition};
    if (opgen_iter_init(ctx, &it, out, in, 3)) return ctx->err->code;
    OPGEN_REAL_SWITCH(mask, res, ctx, T, { OPGEN_MAP3(&it, mask, T, T, z ? x : y); })
    return OPGEN_OK;
}

/* minimum: the smaller of x and y, NaN when either is (on Bool, and). */
opgen_status opgen_portable_minimum_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other,
                                        opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_minimum_out;
    const opgen_tensor *ts[2] = {self, other};
    opgen_iter it;
    opgen_status st = opgen_binary_prepare(ctx, mask, opgen_result_type(ts, 2, NULL, 0), self, other, out, &it);
    if (st || ctx->meta) return st;
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        OPGEN_MAP2(&it, mask, T, T, OPGEN_ISNAN(T, x) ? x : OPGEN_ISNAN(T, y) ? y : x < y ? x : y);
    })
    return OPGEN_OK;
}

/* atan2 in the operands' promoted float type (integers give Float), evaluated in
 * double and rounded once. */
opgen_status opgen_portable_atan2_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other,
                                      opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_atan2_out;
    const opgen_tensor *ts[2] = {self, other};
    opgen_dtype res = opgen_result_type(ts, 2, NULL, 0);
    if (!opgen_is_float(res)) res = OPGEN_DTYPE_Float;
    opgen_iter it;
    opgen_status st = opgen_binary_prepare(ctx, mask, res, self, other, out, &it);
    if (st || ctx->meta) return st;
    OPGEN_FLOAT_SWITCH(mask, res, ctx, T, { OPGEN_MAP2(&it, mask, T, T, (T)atan2((double)x, (double)y)); })
    return OPGEN_OK;
}

opgen_status opgen_portable_sub_Scalar_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *other,
                                           const opgen_scalar *alpha, opgen_tensor *out) {
    return binary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_sub_Scalar_out, OP_SUB, self, NULL, other, alpha, out);
}
