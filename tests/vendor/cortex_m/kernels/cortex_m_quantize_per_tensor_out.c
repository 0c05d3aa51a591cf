/* The cortex_m backend's kernel cortex_m_quantize_per_tensor_out for cortex_m::quantize_per_tensor.out:
 *   quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: float32 to int8 (or the integer dtype asked for),
 * round(x * (1 / scale)) + zero_point clamped to [quant_min, quant_max], in float32
 * with rounding half to even.
 * Reference: operators.py quantize_per_tensor_impl -> quantized_decomposed.quantize_per_tensor
 * (torch/ao/quantization/fx/_decomposed.py: inv_scale = 1.0 / scale; clamp(round(input * inv_scale) + zero_point)). */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

opgen_status cortex_m_quantize_per_tensor_out(opgen_ctx *ctx, const opgen_tensor *input, double scale, int64_t zero_point, int64_t quant_min, int64_t quant_max, opgen_dtype dtype, opgen_tensor *out) {
    if (!input || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    CM_EXPECT(ctx, input, OPGEN_DTYPE_Float, "input");
    if (dtype != OPGEN_DTYPE_Char && dtype != OPGEN_DTYPE_Short) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: quantizes to int8 or int16, not %s", ctx->op, opgen_dtype_name(dtype));
    if (quant_min > quant_max) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: quant_min %lld exceeds quant_max %lld", ctx->op, (long long)quant_min, (long long)quant_max);
    int32_t st = opgen_out_any(ctx, out, dtype, input->dim, input->sizes);
    if (st || ctx->meta) return st;
    const float inv = (float)(1.0 / scale), zp = (float)zero_point, lo = (float)quant_min, hi = (float)quant_max;
    int64_t idx[OPGEN_MAX_DIM] = {0}, n = opgen_numel(input);
    const float *x = input->data;
    for (int64_t i = 0; i < n; i++, opgen_index_next(input->dim, input->sizes, idx)) {
        float v = nearbyintf(x[cm_offset(input, idx)] * inv) + zp;
        v = v < lo ? lo : v > hi ? hi : v != v ? 0 : v; /* NaN: .to(int) of NaN is 0 on x86 */
        if (dtype == OPGEN_DTYPE_Char)
            ((int8_t *)out->data)[cm_offset(out, idx)] = (int8_t)v;
        else
            ((int16_t *)out->data)[cm_offset(out, idx)] = (int16_t)v;
    }
    return OPGEN_OK;
}
