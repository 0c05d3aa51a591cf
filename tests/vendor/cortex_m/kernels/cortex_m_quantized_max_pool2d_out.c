/* The cortex_m backend's kernel cortex_m_quantized_max_pool2d_out for cortex_m::quantized_max_pool2d.out:
 *   quantized_max_pool2d.out(Tensor input, int[] kernel_size, int[] stride, int[] padding, int[] dilation, bool ceil_mode, int input_zero_point, int output_zero_point, int activation_min, int activation_max, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: int8 max pooling (padding never wins; dilation
 * 1 and ceil_mode false, as the reference requires; input and output zero points
 * equal), clamped to [activation_min, activation_max].
 * Reference: operators.py quantized_max_pool2d_impl (arm_max_pool_s8). */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

opgen_status cortex_m_quantized_max_pool2d_out(opgen_ctx *ctx, const opgen_tensor *input, opgen_int_list kernel_size, opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation, bool ceil_mode, int64_t input_zero_point, int64_t output_zero_point, int64_t activation_min, int64_t activation_max, opgen_tensor *out) {
    if (!input || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    CM_EXPECT(ctx, input, OPGEN_DTYPE_Char, "input");
    if (input->dim != 4) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expects a 4-d input", ctx->op);
    if (input_zero_point != output_zero_point) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: expects matching input/output zero points", ctx->op);
    if (ceil_mode) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: does not support ceil_mode=True", ctx->op);
    int64_t k[2];
    cm_geom g;
    if (opgen_int_pair(ctx, kernel_size, "kernel_size", -1, k) || cm_geometry(ctx, stride, padding, &dilation, &g)) return ctx->err->code;
    if (g.dil[0] != 1 || g.dil[1] != 1) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: only supports dilation == 1", ctx->op);
    if (k[0] < 1 || k[1] < 1 || 2 * g.pad[0] > k[0] || 2 * g.pad[1] > k[1]) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: kernel_size must be positive and padding at most half of it", ctx->op);
    int64_t N = input->sizes[0], C = input->sizes[1], H = input->sizes[2], W = input->sizes[3];
    int64_t OH = cm_conv_size(H, k[0], g.stride[0], g.pad[0], 1), OW = cm_conv_size(W, k[1], g.stride[1], g.pad[1], 1);
    if (OH <= 0 || OW <= 0) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the window does not fit the padded input", ctx->op);
    int64_t sizes[4] = {N, C, OH, OW};
    int32_t st = opgen_out_any(ctx, out, OPGEN_DTYPE_Char, 4, sizes);
    if (st || ctx->meta) return st;
    const int8_t *x = input->data;
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t m = INT64_MIN;
                    for (int64_t ih = oh * g.stride[0] - g.pad[0]; ih < oh * g.stride[0] - g.pad[0] + k[0]; ih++)
                        for (int64_t iw = ow * g.stride[1] - g.pad[1]; iw < ow * g.stride[1] - g.pad[1] + k[1]; iw++)
                            if (ih >= 0 && ih < H && iw >= 0 && iw < W && x[cm_at4(input, n, c, ih, iw)] > m) m = x[cm_at4(input, n, c, ih, iw)];
                    ((int8_t *)out->data)[cm_at4(out, n, c, oh, ow)] = (int8_t)cm_clamp(m, activation_min, activation_max);
                }
    return OPGEN_OK;
}
