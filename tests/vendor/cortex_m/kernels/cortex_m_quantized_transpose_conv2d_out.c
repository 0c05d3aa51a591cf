/* The cortex_m backend's kernel cortex_m_quantized_transpose_conv2d_out for cortex_m::quantized_transpose_conv2d.out:
 *   quantized_transpose_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] output_padding, int[] dilation, int input_offset, int output_offset, Tensor requantize_multipliers, Tensor requantize_shifts, int activation_min, int activation_max, Tensor scratch, Tensor output_scratch, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: int8 transposed convolution: each input
 * element (+ input_offset) times the weight (OHWI [Cout, kH, kW, Cin]) scattered to
 * the output, plus bias; per-channel requantization, output_offset, clamp. One
 * group (the reference's weight permutation admits no other).
 * Reference: operators.py quantized_transpose_conv2d_impl (arm_transpose_conv_wrapper_s8). */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

opgen_status cortex_m_quantized_transpose_conv2d_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight, const opgen_tensor *bias, opgen_int_list stride, opgen_int_list padding, opgen_int_list output_padding, opgen_int_list dilation, int64_t input_offset, int64_t output_offset, const opgen_tensor *requantize_multipliers, const opgen_tensor *requantize_shifts, int64_t activation_min, int64_t activation_max, const opgen_tensor *scratch, const opgen_tensor *output_scratch, opgen_tensor *out) {
    if (!input || !weight || !requantize_multipliers || !requantize_shifts || !scratch || !output_scratch || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    CM_EXPECT(ctx, input, OPGEN_DTYPE_Char, "input");
    CM_EXPECT(ctx, weight, OPGEN_DTYPE_Char, "weight");
    if (input->dim != 4 || weight->dim != 4) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expects 4-d input and weight tensors", ctx->op);
    cm_geom g;
    int64_t op[2];
    if (cm_geometry(ctx, stride, padding, &dilation, &g) || opgen_int_pair(ctx, output_padding, "output_padding", 0, op)) return ctx->err->code;
    int64_t N = input->sizes[0], C = input->sizes[1], H = input->sizes[2], W = input->sizes[3], cout = weight->sizes[0], KH = weight->sizes[1], KW = weight->sizes[2];
    if (weight->sizes[3] != C) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the weight takes %lld input channels, the input has %lld (one group only)", ctx->op, (long long)weight->sizes[3], (long long)C);
    if (op[0] < 0 || op[1] < 0 || (op[0] >= g.stride[0] && op[0] >= g.dil[0]) || (op[1] >= g.stride[1] && op[1] >= g.dil[1]))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: output_padding must be smaller than stride or dilation", ctx->op);
    int64_t OH = (H - 1) * g.stride[0] - 2 * g.pad[0] + g.dil[0] * (KH - 1) + op[0] + 1, OW = (W - 1) * g.stride[1] - 2 * g.pad[1] + g.dil[1] * (KW - 1) + op[1] + 1;
    if (OH <= 0 || OW <= 0) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the output would be empty", ctx->op);
    if (bias && (bias->dtype != OPGEN_DTYPE_Int || opgen_numel(bias) != cout)) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: bias must be int32 with one value per output channel", ctx->op);
    if (cm_per_channel(ctx, requantize_multipliers, requantize_shifts, cout)) return ctx->err->code;
    int64_t sizes[4] = {N, cout, OH, OW};
    int32_t st = opgen_out_any(ctx, out, OPGEN_DTYPE_Char, 4, sizes);
    if (st || ctx->meta) return st;
    int64_t *acc = opgen_scratch(ctx, sizeof(int64_t) * (size_t)(OH * OW));
    if (!acc) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    const int8_t *x = input->data, *w = weight->data;
    for (int64_t n = 0; n < N; n++)
        for (int64_t oc = 0; oc < cout; oc++) {
            for (int64_t i = 0; i < OH * OW; i++) acc[i] = bias ? cm_i32(bias, oc) : 0;
            for (int64_t ic = 0; ic < C; ic++)
                for (int64_t ih = 0; ih < H; ih++)
                    for (int64_t iw = 0; iw < W; iw++) {
                        int64_t xv = x[cm_at4(input, n, ic, ih, iw)] + input_offset;
                        for (int64_t kh = 0; kh < KH; kh++) {
                            int64_t oh = ih * g.stride[0] - g.pad[0] + kh * g.dil[0];
                            if (oh < 0 || oh >= OH) continue;
                            for (int64_t kw = 0; kw < KW; kw++) {
                                int64_t ow = iw * g.stride[1] - g.pad[1] + kw * g.dil[1];
                                if (ow >= 0 && ow < OW) acc[oh * OW + ow] += xv * w[cm_at4(weight, oc, kh, kw, ic)];
                            }
                        }
                    }
            int64_t m = cm_i32(requantize_multipliers, oc), sh = cm_i32(requantize_shifts, oc);
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t r = (int64_t)cm_requantize((int32_t)acc[oh * OW + ow], m, sh) + output_offset;
                    ((int8_t *)out->data)[cm_at4(out, n, oc, oh, ow)] = (int8_t)cm_clamp(r, activation_min, activation_max);
                }
        }
    return OPGEN_OK;
}
