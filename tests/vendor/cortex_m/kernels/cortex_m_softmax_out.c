/* The cortex_m backend's kernel cortex_m_softmax_out for cortex_m::softmax.out:
 *   softmax.out(Tensor input, int dim, int input_zero_point, int output_zero_point, int input_multiplier, int input_shift, int diff_min, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: int8 softmax as the reference evaluates it:
 * the input dequantized with the scale its multiplier and shift stand for
 * (multiplier / 2^31 * 2^shift / 2^(31 - 5)), softmax in float32 along dim (max
 * subtracted, exp, sum, times 1/sum as ATen's kernel does), quantized with scale
 * 1/256 and zero point -128 (round half to even), clamped to int8.
 * Reference: operators.py softmax_impl (SOFTMAX_INPUT_INTEGER_BITS = 5; CMSIS_SOFTMAX_SCALE 1/256,
 * CMSIS_SOFTMAX_ZERO_POINT -128 in quantizer/quantization_configs.py). */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

opgen_status cortex_m_softmax_out(opgen_ctx *ctx, const opgen_tensor *input, int64_t dim, int64_t input_zero_point, int64_t output_zero_point, int64_t input_multiplier, int64_t input_shift, int64_t diff_min, opgen_tensor *out) {
    if (!input || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    (void)diff_min; /* not used by the reference */
    CM_EXPECT(ctx, input, OPGEN_DTYPE_Char, "input");
    if (output_zero_point != -128) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: expected output_zero_point -128, got %lld", ctx->op, (long long)output_zero_point);
    int32_t d;
    if (opgen_wrap_dim(ctx, dim, input->dim ? input->dim : 1, &d)) return ctx->err->code;
    double real = ldexp((double)input_multiplier / 2147483648.0, (int)(input_shift < -64 ? -64 : input_shift > 64 ? 64 : input_shift)) / (double)(1 << 26);
    if (!(real > 0)) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: the multiplier and shift give a non-positive input scale", ctx->op);
    int32_t st = opgen_out_any(ctx, out, OPGEN_DTYPE_Char, input->dim, input->sizes);
    if (st || ctx->meta) return st;
    const float scale = (float)real, zp = (float)input_zero_point;
    int64_t len = input->dim ? input->sizes[d] : 1, xs = input->dim ? input->strides[d] : 0, os = out->dim ? out->strides[d] : 0;
    float *e = opgen_scratch(ctx, sizeof(float) * (size_t)(len ? len : 1));
    if (!e) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    int64_t idx[OPGEN_MAX_DIM] = {0}, rows = len ? opgen_numel(input) / len : 0;
    const int8_t *x = input->data;
    for (int64_t r = 0; r < rows; r++) {
        int64_t xo = cm_offset(input, idx), oo = cm_offset(out, idx);
        float mx = -INFINITY, sum = 0;
        for (int64_t k = 0; k < len; k++) {
            e[k] = ((float)x[xo + k * xs] - zp) * scale;
            mx = e[k] > mx ? e[k] : mx;
        }
        for (int64_t k = 0; k < len; k++) sum += e[k] = expf(e[k] - mx);
        float inv = 1.0f / sum;
        for (int64_t k = 0; k < len; k++) {
            float q = nearbyintf(e[k] * inv * 256.0f) - 128.0f;
            ((int8_t *)out->data)[oo + k * os] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);
        }
        for (int32_t k = input->dim - 1; k >= 0; k--) { /* the next row: every index but dim */
            if (k == d) continue;
            if (++idx[k] < input->sizes[k]) break;
            idx[k] = 0;
        }
    }
    return OPGEN_OK;
}
