/* The cortex_m backend's kernel cortex_m_quantized_avg_pool2d_out for cortex_m::quantized_avg_pool2d.out:
 *   quantized_avg_pool2d.out(Tensor input, int[] kernel_size, int[] stride, int[] padding, bool ceil_mode, int zero_point, int multiplier, int shift, Tensor scratch, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: int8 average pooling as the reference computes
 * it: dequantized ((q - zero_point) * scale, scale = multiplier * 2^shift / 2^31, in
 * float32), averaged over the window without the padding (count_include_pad=False;
 * the window summed row by row in float32, as ATen does), quantized back
 * (round half to even, + zero_point, clamped to int8).
 * Reference: operators.py quantized_avg_pool2d_impl, passes_utils.py dequantize_per_tensor_cmsis /
 * quantize_per_tensor_cmsis; op_quantized_avg_pool2d.cpp for the output size with ceil_mode. */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

/* One dimension's output size, with ceil_mode as ATen's pooling_output_shape. */
static int64_t pool_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode) {
    int64_t num = in + 2 * p - k, o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    if (ceil_mode && num % s) o += 1;
    if (ceil_mode && (o - 1) * s >= in + p) o -= 1;
    return o;
}

opgen_status cortex_m_quantized_avg_pool2d_out(opgen_ctx *ctx, const opgen_tensor *input, opgen_int_list kernel_size, opgen_int_list stride, opgen_int_list padding, bool ceil_mode, int64_t zero_point, int64_t multiplier, int64_t shift, const opgen_tensor *scratch, opgen_tensor *out) {
    if (!input || !scratch || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    CM_EXPECT(ctx, input, OPGEN_DTYPE_Char, "input");
    if (input->dim != 4) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expects a 4-d input", ctx->op);
    int64_t k[2];
    cm_geom g;
    if (opgen_int_pair(ctx, kernel_size, "kernel_size", -1, k) || cm_geometry(ctx, stride, padding, NULL, &g)) return ctx->err->code;
    if (k[0] < 1 || k[1] < 1 || 2 * g.pad[0] > k[0] || 2 * g.pad[1] > k[1]) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: kernel_size must be positive and padding at most half of it", ctx->op);
    int64_t N = input->sizes[0], C = input->sizes[1], H = input->sizes[2], W = input->sizes[3];
    int64_t OH = pool_size(H, k[0], g.stride[0], g.pad[0], ceil_mode), OW = pool_size(W, k[1], g.stride[1], g.pad[1], ceil_mode);
    if (OH <= 0 || OW <= 0) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the window does not fit the padded input", ctx->op);
    int64_t sizes[4] = {N, C, OH, OW};
    int32_t st = opgen_out_any(ctx, out, OPGEN_DTYPE_Char, 4, sizes);
    if (st || ctx->meta) return st;
    const float scale = (float)((double)multiplier * ldexp(1.0, (int)(shift < -64 ? -64 : shift > 64 ? 64 : shift)) / 2147483648.0), zp = (float)zero_point;
    const int8_t *x = input->data;
    int8_t *o = out->data;
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t h0 = oh * g.stride[0] - g.pad[0], w0 = ow * g.stride[1] - g.pad[1];
                    int64_t h1 = h0 + k[0] < H ? h0 + k[0] : H, w1 = w0 + k[1] < W ? w0 + k[1] : W;
                    h0 = h0 < 0 ? 0 : h0, w0 = w0 < 0 ? 0 : w0;
                    float sum = 0;
                    for (int64_t ih = h0; ih < h1; ih++)
                        for (int64_t iw = w0; iw < w1; iw++) sum += ((float)x[cm_at4(input, n, c, ih, iw)] - zp) * scale;
                    int64_t count = (h1 - h0) * (w1 - w0);
                    float avg = count > 0 ? sum / (float)count : 0; /* a window all padding (ceil_mode) */
                    float q = nearbyintf(avg / scale) + zp;
                    o[cm_at4(out, n, c, oh, ow)] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);
                }
    return OPGEN_OK;
}
