/* Comparisons (eq, ne, lt, le, gt, ge; Tensor and Scalar forms) on the kernel
 * idiom: operands compared in ATen's result type of the two (an Int tensor
 * against 2.5 compares in Float; a Byte tensor against -1 compares with 255, as
 * ATen wraps the Scalar), a Bool result; NaN compares unequal to everything.
 *
 * One loop serves all six: (x < y) & lt | (x > y) & gt | (x == y) & eq, negated
 * for ne (NaN makes all three false: ne true, the others false). The generated
 * mask is the result's dtypes (Bool): a kept kernel compares in every real dtype,
 * whatever the selection, so the loops are shared rather than specialised. */
#include "opgen/loops.h"
#include "opgen_registry.h"

typedef struct cmpop {
    bool lt, gt, eq, negate;
} cmpop;

static opgen_status compare(opgen_ctx *ctx, bool kept, cmpop op, const opgen_tensor *a, const opgen_tensor *b,
                            const opgen_scalar *bs, opgen_tensor *out) {
    opgen_tensor sv; /* a Scalar is a 0-d operand of its own dtype, converted as ATen wraps it */
    if (bs) {
        memset(&sv, 0, sizeof sv);
        sv.dtype = bs->dtype;
        sv.data = (void *)(uintptr_t)&bs->v;
        b = &sv;
    }
    const opgen_tensor *ts[2] = {a, bs ? NULL : b};
    const opgen_scalar *ss[1] = {bs};
    opgen_dtype ct = opgen_compute_dtype(opgen_result_type(ts, 2, ss, 1));
    int32_t dim;
    int64_t sizes[OPGEN_MAX_DIM];
    if (opgen_broadcast(ctx, a, b, &dim, sizes)) return ctx->err->code;
    if (!kept)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: the result has dtype Bool, which this kernel does not handle",
                          ctx->op);
    opgen_status st = opgen_out_any(ctx, out, OPGEN_DTYPE_Bool, dim, sizes);
    if (st || ctx->meta) return st;
    opgen_iter it;
    const opgen_tensor *in[2] = {a, b};
    if (opgen_iter_init(ctx, &it, out, in, 2)) return ctx->err->code;
    OPGEN_REAL_SWITCH(OPGEN_REAL_DTYPES, ct, ctx, T, {
        OPGEN_MAP2(&it, OPGEN_REAL_DTYPES, bool, T,
                   (((x < y) & op.lt) | ((x > y) & op.gt) | ((x == y) & op.eq)) ^ op.negate);
    })
    return OPGEN_OK;
}

#define COMPARE_KERNELS(X) \
    X(eq, 0, 0, 1, 0) X(ne, 0, 0, 1, 1) X(lt, 1, 0, 0, 0) X(le, 1, 0, 1, 0) X(gt, 0, 1, 0, 0) X(ge, 0, 1, 1, 0)
#define COMPARE_DEFINE(name, lt, gt, eq, neg)                                                            \
    opgen_status opgen_portable_##name##_Tensor_out(opgen_ctx *ctx, const opgen_tensor *self,            \
                                                    const opgen_tensor *other, opgen_tensor *out) {      \
        bool kept = OPGEN_HAS(OPGEN_KERNEL_DTYPES_opgen_portable_##name##_Tensor_out, OPGEN_DTYPE_Bool); \
        return compare(ctx, kept, (cmpop){lt, gt, eq, neg}, self, other, NULL, out);                     \
    }                                                                                                    \
    opgen_status opgen_portable_##name##_Scalar_out(opgen_ctx *ctx, const opgen_tensor *self,            \
                                                    const opgen_scalar *other, opgen_tensor *out) {      \
        bool kept = OPGEN_HAS(OPGEN_KERNEL_DTYPES_opgen_portable_##name##_Scalar_out, OPGEN_DTYPE_Bool); \
        return compare(ctx, kept, (cmpop){lt, gt, eq, neg}, self, NULL, other, out);                     \
    }
COMPARE_KERNELS(COMPARE_DEFINE)
