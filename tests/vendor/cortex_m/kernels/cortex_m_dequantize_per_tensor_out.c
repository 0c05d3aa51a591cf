/* The cortex_m backend's kernel cortex_m_dequantize_per_tensor_out for cortex_m::dequantize_per_tensor.out:
 *   dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: int8 (or int16) to float32,
 * (x - zero_point) * scale in float32.
 * Reference: operators.py dequantize_per_tensor_impl -> quantized_decomposed.dequantize_per_tensor
 * (_decomposed.py: (input.to(float32) - zero_point) * scale). */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

opgen_status cortex_m_dequantize_per_tensor_out(opgen_ctx *ctx, const opgen_tensor *input, double scale, int64_t zero_point, int64_t quant_min, int64_t quant_max, opgen_dtype dtype, opgen_tensor *out) {
    if (!input || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    (void)quant_min, (void)quant_max; /* the reference only checks them */
    if (input->dtype != dtype) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: input has dtype %s, dtype says %s", ctx->op, opgen_dtype_name(input->dtype), opgen_dtype_name(dtype));
    if (dtype != OPGEN_DTYPE_Char && dtype != OPGEN_DTYPE_Short) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: dequantizes int8 or int16, not %s", ctx->op, opgen_dtype_name(dtype));
    int32_t st = opgen_out_any(ctx, out, OPGEN_DTYPE_Float, input->dim, input->sizes);
    if (st || ctx->meta) return st;
    const float s = (float)scale, zp = (float)zero_point;
    int64_t idx[OPGEN_MAX_DIM] = {0}, n = opgen_numel(input);
    float *o = out->data;
    for (int64_t i = 0; i < n; i++, opgen_index_next(input->dim, input->sizes, idx)) {
        int64_t off = cm_offset(input, idx);
        float q = dtype == OPGEN_DTYPE_Char ? (float)((const int8_t *)input->data)[off] : (float)((const int16_t *)input->data)[off];
        o[cm_offset(out, idx)] = (q - zp) * s;
    }
    return OPGEN_OK;
}
