/* What the cortex_m kernels share: the integer arithmetic of ExecuTorch's Cortex-M
 * reference (backends/cortex_m/ops/operators.py and passes/passes_utils.py in
 * pytorch/executorch, which model CMSIS-NN), and element addressing through
 * strides, so every kernel takes the dim orders a program gives (channels-last).
 * The cortex_m backend's own file (not written by opgen skeleton). */
#ifndef CORTEX_M_NN_H
#define CORTEX_M_NN_H
#include "opgen/kernel.h"

/* passes_utils.py requantize_cmsis (CMSIS-NN's arm_nn_requantize): val shifted
 * left by max(shift, 0) in 64 bits, times multiplier plus 2^30, arithmetic shift
 * right by 31 (arm_nn_doubling_high_mult_no_sat), then divided by 2^max(-shift, 0)
 * rounding half away from zero (arm_nn_divide_by_power_of_two); the int32 result. */
static inline int32_t cm_requantize(int64_t val, int64_t multiplier, int64_t shift) {
    int64_t left = shift > 0 ? shift : 0, right = shift < 0 ? -shift : 0;
    int64_t v = (int64_t)((uint64_t)val << left);
    int64_t r = (int64_t)((uint64_t)v * (uint64_t)multiplier + (UINT64_C(1) << 30)) >> 31;
    if (right > 0 && right < 63) {
        int64_t mask = ((int64_t)1 << right) - 1, rem = r & mask;
        r >>= right;
        int64_t threshold = (mask >> 1) + (r < 0 ? 1 : 0);
        r += rem > threshold ? 1 : 0;
    }
    return (int32_t)(uint32_t)(uint64_t)r; /* .to(torch.int32) wraps */
}

static inline int64_t cm_clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The element offset of (n, c, h, w) in a 4-d tensor, any dim order. */
static inline int64_t cm_at4(const opgen_tensor *t, int64_t n, int64_t c, int64_t h, int64_t w) {
    return n * t->strides[0] + c * t->strides[1] + h * t->strides[2] + w * t->strides[3];
}

/* The next index of a row-major walk over sizes (logical order). */
static inline int64_t cm_offset(const opgen_tensor *t, const int64_t *idx) {
    int64_t off = 0;
    for (int32_t d = 0; d < t->dim; d++) off += idx[d] * t->strides[d];
    return off;
}

/* A tensor argument of one dtype, or a message naming it. */
#define CM_EXPECT(ctx, t, D, what)                                                                                                \
    do {                                                                                                                          \
        if ((t)->dtype != (D))                                                                                                    \
            return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: %s has dtype %s, expected %s", (ctx)->op, what, opgen_dtype_name((t)->dtype), \
                              opgen_dtype_name(D));                                                                               \
    } while (0)

/* Per-channel requantization parameters (int32 tensors of one value per channel). */
static inline int32_t cm_per_channel(opgen_ctx *ctx, const opgen_tensor *mult, const opgen_tensor *shift, int64_t channels) {
    CM_EXPECT(ctx, mult, OPGEN_DTYPE_Int, "requantize_multipliers");
    CM_EXPECT(ctx, shift, OPGEN_DTYPE_Int, "requantize_shifts");
    if (opgen_numel(mult) != channels || opgen_numel(shift) != channels)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: %lld output channels, %lld multipliers and %lld shifts", ctx->op, (long long)channels, (long long)opgen_numel(mult),
                          (long long)opgen_numel(shift));
    return OPGEN_OK;
}

/* The i-th element of a 1-d int32 tensor (its stride honoured). */
static inline int64_t cm_i32(const opgen_tensor *t, int64_t i) { return ((const int32_t *)t->data)[i * (t->dim ? t->strides[0] : 0)]; }

/* A 2-d window's geometry (convolution, pooling): stride and dilation >= 1,
 * padding >= 0, each one value for both dimensions or two. */
typedef struct cm_geom {
    int64_t stride[2], pad[2], dil[2];
} cm_geom;
static inline int32_t cm_geometry(opgen_ctx *ctx, opgen_int_list stride, opgen_int_list padding, const opgen_int_list *dilation, cm_geom *g) {
    if (opgen_int_pair(ctx, stride, "stride", -1, g->stride) || opgen_int_pair(ctx, padding, "padding", 0, g->pad)) return ctx->err->code;
    g->dil[0] = g->dil[1] = 1;
    if (dilation && opgen_int_pair(ctx, *dilation, "dilation", 1, g->dil)) return ctx->err->code;
    for (int i = 0; i < 2; i++)
        if (g->stride[i] < 1 || g->dil[i] < 1 || g->pad[i] < 0) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: stride and dilation must be positive, padding not negative", ctx->op);
    return OPGEN_OK;
}

/* conv2d's output size of one dimension (floor), or <= 0 when the window does not fit. */
static inline int64_t cm_conv_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) { return (in + 2 * p - d * (k - 1) - 1) / s + 1; }

/* The 2-d convolutions of the reference (quantized_conv2d_impl and
 * quantized_depthwise_conv2d_impl): int32 accumulation of (input + input_offset) *
 * weight plus bias, with padding contributing nothing (F.conv2d pads after the
 * offset is added); each output channel requantized by its multiplier and shift
 * (requantize_cmsis), plus output_offset, clamped to [activation_min,
 * activation_max]. conv2d weights are OHWI [Cout, kH, kW, Cin/groups] (groups =
 * Cin / weight.shape[3]); depthwise weights are IHWO [1, kH, kW, Cout] (groups =
 * Cin, Cout / Cin outputs per input channel). */
static inline int32_t cm_conv2d(opgen_ctx *ctx, const opgen_tensor *in, const opgen_tensor *w, const opgen_tensor *bias, opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation,
                                int64_t in_off, int64_t out_off, const opgen_tensor *mult, const opgen_tensor *shift, int64_t amin, int64_t amax, bool depthwise, opgen_tensor *out) {
    CM_EXPECT(ctx, in, OPGEN_DTYPE_Char, "input");
    CM_EXPECT(ctx, w, OPGEN_DTYPE_Char, "weight");
    if (in->dim != 4 || w->dim != 4) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expects 4-d input and weight tensors", ctx->op);
    cm_geom g;
    if (cm_geometry(ctx, stride, padding, &dilation, &g)) return ctx->err->code;
    int64_t N = in->sizes[0], C = in->sizes[1], H = in->sizes[2], W = in->sizes[3], KH = w->sizes[1], KW = w->sizes[2];
    int64_t cout = depthwise ? w->sizes[3] : w->sizes[0], cin_g = depthwise ? 1 : w->sizes[3];
    if (depthwise && w->sizes[0] != 1) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: a depthwise weight is [1, kH, kW, Cout], this one has %lld in dimension 0", ctx->op, (long long)w->sizes[0]);
    if (cin_g <= 0 || C % cin_g) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: %lld input channels, and the weight takes %lld per group", ctx->op, (long long)C, (long long)cin_g);
    int64_t groups = C / cin_g;
    if (groups <= 0 || cout % groups) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: %lld output channels do not divide into %lld groups", ctx->op, (long long)cout, (long long)groups);
    int64_t per = cout / groups, OH = cm_conv_size(H, KH, g.stride[0], g.pad[0], g.dil[0]), OW = cm_conv_size(W, KW, g.stride[1], g.pad[1], g.dil[1]);
    if (OH <= 0 || OW <= 0) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the kernel does not fit the padded input", ctx->op);
    if (bias && (bias->dtype != OPGEN_DTYPE_Int || opgen_numel(bias) != cout)) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: bias must be int32 with one value per output channel", ctx->op);
    if (cm_per_channel(ctx, mult, shift, cout)) return ctx->err->code;
    int64_t sizes[4] = {N, cout, OH, OW};
    int32_t st = opgen_out_any(ctx, out, OPGEN_DTYPE_Char, 4, sizes);
    if (st || ctx->meta) return st;
    const int8_t *x = in->data, *wt = w->data;
    int8_t *o = out->data;
    /* the channel strides: 1 for channels-last inputs and OHWI weights, where the
     * sum over input channels is a contiguous dot product the compiler vectorises */
    int64_t xs = in->strides[1], ws = depthwise ? 0 : w->strides[3];
    for (int64_t n = 0; n < N; n++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++)
                for (int64_t oc = 0; oc < cout; oc++) {
                    int64_t grp = oc / per, acc = bias ? cm_i32(bias, oc) : 0;
                    for (int64_t kh = 0; kh < KH; kh++) {
                        int64_t ih = oh * g.stride[0] - g.pad[0] + kh * g.dil[0];
                        if (ih < 0 || ih >= H) continue;
                        for (int64_t kw = 0; kw < KW; kw++) {
                            int64_t iw = ow * g.stride[1] - g.pad[1] + kw * g.dil[1];
                            if (iw < 0 || iw >= W) continue;
                            const int8_t *xp = x + cm_at4(in, n, grp * cin_g, ih, iw);
                            const int8_t *wp = wt + (depthwise ? cm_at4(w, 0, kh, kw, oc) : cm_at4(w, oc, kh, kw, 0));
                            int32_t sum = 0; /* products below 2^16: no overflow under 32,768 input channels */
                            if (xs == 1 && ws == 1)
                                for (int64_t i = 0; i < cin_g; i++) sum += ((int32_t)xp[i] + (int32_t)in_off) * wp[i];
                            else
                                for (int64_t i = 0; i < cin_g; i++) sum += ((int32_t)xp[i * xs] + (int32_t)in_off) * wp[i * ws];
                            acc += sum;
                        }
                    }
                    int64_t r = (int64_t)cm_requantize((int32_t)(uint32_t)(uint64_t)acc, cm_i32(mult, oc), cm_i32(shift, oc)) + out_off;
                    o[cm_at4(out, n, oc, oh, ow)] = (int8_t)cm_clamp(r, amin, amax);
                }
    return OPGEN_OK;
}
#endif
