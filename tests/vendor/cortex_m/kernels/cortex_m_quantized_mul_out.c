/* The cortex_m backend's kernel cortex_m_quantized_mul_out for cortex_m::quantized_mul.out:
 *   quantized_mul.out(Tensor self, int self_zero_point, Tensor other, int other_zero_point, int output_zero_point, int output_multiplier, int output_shift, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: int8 multiplication: (a - a_zero_point) * (b -
 * b_zero_point) in int32, requantized by the output multiplier and shift, plus
 * output_zero_point, clamped to int8. Operands broadcast.
 * Reference: operators.py quantized_mul_impl (arm_elementwise_mul_s8). */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

opgen_status cortex_m_quantized_mul_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t self_zero_point, const opgen_tensor *other, int64_t other_zero_point, int64_t output_zero_point, int64_t output_multiplier, int64_t output_shift, opgen_tensor *out) {
    if (!self || !other || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    CM_EXPECT(ctx, self, OPGEN_DTYPE_Char, "self");
    CM_EXPECT(ctx, other, OPGEN_DTYPE_Char, "other");
    int32_t dim;
    int64_t sizes[OPGEN_MAX_DIM];
    if (opgen_broadcast(ctx, self, other, &dim, sizes)) return ctx->err->code;
    int32_t st = opgen_out_any(ctx, out, OPGEN_DTYPE_Char, dim, sizes);
    if (st || ctx->meta) return st;
    int64_t idx[OPGEN_MAX_DIM] = {0}, n = opgen_numel(out);
    const int8_t *a = self->data, *b = other->data;
    for (int64_t i = 0; i < n; i++, opgen_index_next(dim, sizes, idx)) {
        int64_t p = (a[opgen_bcast_offset(self, dim, idx)] - self_zero_point) * (b[opgen_bcast_offset(other, dim, idx)] - other_zero_point);
        int64_t r = (int64_t)cm_requantize((int32_t)p, output_multiplier, output_shift) + output_zero_point;
        ((int8_t *)out->data)[cm_offset(out, idx)] = (int8_t)cm_clamp(r, -128, 127);
    }
    return OPGEN_OK;
}
