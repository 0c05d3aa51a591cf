/* The cortex_m backend's kernel cortex_m_minimum_out for cortex_m::minimum.out:
 *   minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: the elementwise minimum (torch.minimum: broadcasting,
 * NaN propagating) of int8, int16, int32 or float32 tensors of one dtype.
 * Reference: operators.py minimum_impl (arm_minimum_s8 in op_minimum.cpp). */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

#define MINMAX_LOOP(T)                                                                                        \
    do {                                                                                                      \
        const T *a = self->data, *b = other->data;                                                            \
        for (int64_t i = 0; i < n; i++, opgen_index_next(dim, sizes, idx)) {                                  \
            T x = a[opgen_bcast_offset(self, dim, idx)], y = b[opgen_bcast_offset(other, dim, idx)];          \
            ((T *)out->data)[cm_offset(out, idx)] = x != x ? x : y != y ? y : (x < y) ? x : y; /* NaN wins */ \
        }                                                                                                     \
    } while (0)

opgen_status cortex_m_minimum_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other, opgen_tensor *out) {
    if (!self || !other || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    CM_EXPECT(ctx, other, self->dtype, "other");
    int32_t dim;
    int64_t sizes[OPGEN_MAX_DIM];
    if (opgen_broadcast(ctx, self, other, &dim, sizes)) return ctx->err->code;
    int32_t st;
    int64_t idx[OPGEN_MAX_DIM] = {0}, n;
    switch (self->dtype) {
    case OPGEN_DTYPE_Char:
        if ((st = opgen_out_any(ctx, out, self->dtype, dim, sizes)) || ctx->meta) return st;
        n = opgen_numel(out);
        MINMAX_LOOP(int8_t);
        return OPGEN_OK;
    case OPGEN_DTYPE_Short:
        if ((st = opgen_out_any(ctx, out, self->dtype, dim, sizes)) || ctx->meta) return st;
        n = opgen_numel(out);
        MINMAX_LOOP(int16_t);
        return OPGEN_OK;
    case OPGEN_DTYPE_Int:
        if ((st = opgen_out_any(ctx, out, self->dtype, dim, sizes)) || ctx->meta) return st;
        n = opgen_numel(out);
        MINMAX_LOOP(int32_t);
        return OPGEN_OK;
    case OPGEN_DTYPE_Float:
        if ((st = opgen_out_any(ctx, out, self->dtype, dim, sizes)) || ctx->meta) return st;
        n = opgen_numel(out);
        MINMAX_LOOP(float);
        return OPGEN_OK;
    default:
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: the cortex_m backend has no case for %s", ctx->op, opgen_dtype_name(self->dtype));
    }
}
