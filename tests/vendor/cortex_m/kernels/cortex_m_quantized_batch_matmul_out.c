/* The cortex_m backend's kernel cortex_m_quantized_batch_matmul_out for cortex_m::quantized_batch_matmul.out:
 *   quantized_batch_matmul.out(Tensor lhs, int lhs_zero_point, Tensor rhs_transposed, int rhs_zero_point, int output_zero_point, int output_multiplier, int output_shift, Tensor scratch, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: int8 batched matrix product of lhs [B, M, K]
 * and rhs_transposed [B, N, K]: sum((lhs + lhs_zero_point) * (rhs +
 * rhs_zero_point)) (the offsets are negated zero points), requantized by the
 * output multiplier and shift, plus output_zero_point, clamped to int8.
 * Reference: operators.py quantized_batch_matmul_impl (arm_batch_matmul_s8). */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

opgen_status cortex_m_quantized_batch_matmul_out(opgen_ctx *ctx, const opgen_tensor *lhs, int64_t lhs_zero_point, const opgen_tensor *rhs_transposed, int64_t rhs_zero_point, int64_t output_zero_point, int64_t output_multiplier, int64_t output_shift, const opgen_tensor *scratch, opgen_tensor *out) {
    if (!lhs || !rhs_transposed || !scratch || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    const opgen_tensor *rhs = rhs_transposed;
    CM_EXPECT(ctx, lhs, OPGEN_DTYPE_Char, "lhs");
    CM_EXPECT(ctx, rhs, OPGEN_DTYPE_Char, "rhs_transposed");
    if (lhs->dim != 3 || rhs->dim != 3 || lhs->sizes[0] != rhs->sizes[0] || lhs->sizes[2] != rhs->sizes[2])
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expects lhs [B, M, K] and rhs_transposed [B, N, K]", ctx->op);
    int64_t B = lhs->sizes[0], M = lhs->sizes[1], K = lhs->sizes[2], N = rhs->sizes[1], sizes[3] = {B, M, N};
    int32_t st = opgen_out_any(ctx, out, OPGEN_DTYPE_Char, 3, sizes);
    if (st || ctx->meta) return st;
    const int8_t *a = lhs->data, *b = rhs->data;
    for (int64_t bb = 0; bb < B; bb++)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                int64_t acc = 0;
                for (int64_t k = 0; k < K; k++)
                    acc += (a[bb * lhs->strides[0] + i * lhs->strides[1] + k * lhs->strides[2]] + lhs_zero_point) * (b[bb * rhs->strides[0] + j * rhs->strides[1] + k * rhs->strides[2]] + rhs_zero_point);
                int64_t r = (int64_t)cm_requantize((int32_t)acc, output_multiplier, output_shift) + output_zero_point;
                ((int8_t *)out->data)[bb * out->strides[0] + i * out->strides[1] + j * out->strides[2]] = (int8_t)cm_clamp(r, -128, 127);
            }
    return OPGEN_OK;
}
