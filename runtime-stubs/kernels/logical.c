/* Predicates and logic with Bool results, on the kernel idiom: logical_not, isnan,
 * isinf, logical and/or/xor; the operands are read in their own dtypes (every real
 * dtype: the generated mask is the result's, Bool, and says nothing of the
 * inputs'). Whether a value is nonzero does not change when ATen promotes it (no
 * nonzero value converts to zero), so the logical ops test each operand in its own
 * dtype, through one Bool loop, not one loop per dtype. */
#include "opgen/loops.h"
#include "opgen_registry.h"

enum { BOOL_MASK = 1u << OPGEN_DTYPE_Bool };

static opgen_status bool_result(opgen_ctx *ctx, bool kept, opgen_dtype computed) {
    if (!kept)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: the result has dtype Bool, which this kernel does not handle",
                          ctx->op);
    if (!OPGEN_HAS(OPGEN_REAL_DTYPES, opgen_compute_dtype(computed)))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: no kernel for dtype %s", ctx->op, opgen_dtype_name(computed));
    return OPGEN_OK;
}

typedef enum { P_NOT, P_ISNAN, P_ISINF } predop;

static inline bool isinf_f64(double v) { return v == INFINITY || v == -INFINITY; }

static opgen_status predicate(opgen_ctx *ctx, bool kept, predop op, const opgen_tensor *self, opgen_tensor *out) {
    opgen_status st = bool_result(ctx, kept, self->dtype);
    if (st || (st = opgen_out_any(ctx, out, OPGEN_DTYPE_Bool, self->dim, self->sizes)) || ctx->meta) return st;
    opgen_iter it;
    const opgen_tensor *in[1] = {self};
    if (opgen_iter_init(ctx, &it, out, in, 1)) return ctx->err->code;
    opgen_dtype ct = opgen_compute_dtype(self->dtype);
    if (op == P_NOT)
        OPGEN_MAP1(&it, BOOL_MASK, bool, bool, !x);
    else if (!opgen_is_float(ct)) /* an integer is never NaN nor infinite */
        OPGEN_MAP1(&it, BOOL_MASK, bool, bool, x && false);
    else
        OPGEN_FLOAT_SWITCH(OPGEN_REAL_DTYPES, ct, ctx, T, {
            if (op == P_ISNAN)
                OPGEN_MAP1(&it, BOOL_MASK, bool, T, OPGEN_ISNAN(T, x));
            else
                OPGEN_MAP1(&it, BOOL_MASK, bool, T, isinf_f64((double)x));
        })
    return OPGEN_OK;
}

#define PREDICATE_KERNELS(X) X(logical_not, P_NOT) X(isnan, P_ISNAN) X(isinf, P_ISINF)
#define PREDICATE_DEFINE(name, op)                                                                          \
    opgen_status opgen_portable_##name##_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) { \
        bool kept = OPGEN_HAS(OPGEN_KERNEL_DTYPES_opgen_portable_##name##_out, OPGEN_DTYPE_Bool);           \
        return predicate(ctx, kept, op, self, out);                                                         \
    }
PREDICATE_KERNELS(PREDICATE_DEFINE)
/* bitwise and, or, xor on integers and Bool, in the promoted dtype; a Scalar is a
 * 0-d operand of its own dtype (Long or Bool). */
typedef enum { B_AND, B_OR, B_XOR } bitop;
/* out = x OP y over IT, operands and result of type T (bitwise: the integer
 * dtypes; logical: Bool, each operand tested for nonzero) */
#define BITOP_MAP(IT, MASK, T, OP)               \
    do {                                         \
        if ((OP) == B_AND)                       \
            OPGEN_MAP2(IT, MASK, T, T, (x & y)); \
        else if ((OP) == B_OR)                   \
            OPGEN_MAP2(IT, MASK, T, T, (x | y)); \
        else                                     \
            OPGEN_MAP2(IT, MASK, T, T, (x ^ y)); \
    } while (0)

OPGEN_SPECIALIZED opgen_status bitwise(opgen_ctx *ctx, uint32_t mask, bitop op, const opgen_tensor *a,
                                       const opgen_tensor *b, const opgen_scalar *bs, opgen_tensor *out) {
    const opgen_tensor *ts[2] = {a, bs ? NULL : b};
    const opgen_scalar *ss[1] = {bs};
    opgen_dtype res = opgen_result_type(ts, 2, ss, 1);
    if (opgen_is_float(res))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: bitwise ops are not defined for %s", ctx->op, opgen_dtype_name(res));
    opgen_tensor sb;
    if (bs) b = opgen_scalar_operand(bs, &sb);
    opgen_iter it;
    opgen_status st = opgen_binary_prepare(ctx, mask, res, a, b, out, &it);
    if (st || ctx->meta) return st;
    OPGEN_INTEGRAL_SWITCH(mask, res, ctx, T, { BITOP_MAP(&it, mask, T, op); })
    return OPGEN_OK;
}

#define BITWISE_KERNELS(X) X(bitwise_and, B_AND) X(bitwise_or, B_OR) X(bitwise_xor, B_XOR)
#define BITWISE_DEFINE(name, op)                                                                                 \
    opgen_status opgen_portable_##name##_Tensor_out(opgen_ctx *ctx, const opgen_tensor *self,                    \
                                                    const opgen_tensor *other, opgen_tensor *out) {              \
        return bitwise(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_##name##_Tensor_out, op, self, other, NULL, out); \
    }                                                                                                            \
    opgen_status opgen_portable_##name##_Scalar_out(opgen_ctx *ctx, const opgen_tensor *self,                    \
                                                    const opgen_scalar *other, opgen_tensor *out) {              \
        return bitwise(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_##name##_Scalar_out, op, self, NULL, other, out); \
    }
BITWISE_KERNELS(BITWISE_DEFINE)

/* logical and, or, xor: each operand nonzero or not (NaN is nonzero); a Bool
 * result. */
static opgen_status logical(opgen_ctx *ctx, bool kept, bitop op, const opgen_tensor *a, const opgen_tensor *b,
                            opgen_tensor *out) {
    const opgen_tensor *ts[2] = {a, b};
    opgen_status st = bool_result(ctx, kept, opgen_result_type(ts, 2, NULL, 0));
    opgen_iter it;
    if (st || (st = opgen_binary_prepare(ctx, BOOL_MASK, OPGEN_DTYPE_Bool, a, b, out, &it)) || ctx->meta) return st;
    BITOP_MAP(&it, BOOL_MASK, bool, op);
    return OPGEN_OK;
}
#define LOGICAL_KERNELS(X) X(logical_and, B_AND) X(logical_or, B_OR) X(logical_xor, B_XOR)
#define LOGICAL_DEFINE(name, op)                                                                                    \
    opgen_status opgen_portable_##name##_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other,   \
                                             opgen_tensor *out) {                                                   \
        return logical(ctx, OPGEN_HAS(OPGEN_KERNEL_DTYPES_opgen_portable_##name##_out, OPGEN_DTYPE_Bool), op, self, \
                       other, out);                                                                                 \
    }
LOGICAL_KERNELS(LOGICAL_DEFINE)
