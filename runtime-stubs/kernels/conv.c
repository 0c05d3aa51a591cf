/* 2-D convolution (aten::convolution, not transposed), Float and Double, three
 * ways: a 1x1 convolution (stride 1, no padding) is one GEMM per image and group,
 * its input read in place; a depthwise one (one input channel per group) is a
 * direct loop per channel; any other is im2col into scratch, then a GEMM. */
#include "gemm.h"
#include "opgen/loops.h"
#include "opgen_registry.h"

/* The convolution's geometry: N C H W in, O Cg KH KW weight, OH OW out. */
typedef struct conv_geom {
    int64_t N, C, H, W, O, Cg, KH, KW, OH, OW, groups, s[2], p[2], d[2];
} conv_geom;

static int32_t conv_geometry(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight, const opgen_tensor *bias, opgen_int_list stride, opgen_int_list padding,
                             opgen_int_list dilation, int64_t groups, conv_geom *g) {
    if (input->dim != 4 || weight->dim != 4) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: 2-D convolution takes a 4-d input and weight, got %d-d and %d-d", ctx->op, input->dim, weight->dim);
    if (opgen_int_pair(ctx, stride, "stride", -1, g->s) || opgen_int_pair(ctx, padding, "padding", -1, g->p) || opgen_int_pair(ctx, dilation, "dilation", -1, g->d)) return ctx->err->code;
    g->N = input->sizes[0], g->C = input->sizes[1], g->H = input->sizes[2], g->W = input->sizes[3];
    g->O = weight->sizes[0], g->Cg = weight->sizes[1], g->KH = weight->sizes[2], g->KW = weight->sizes[3], g->groups = groups;
    if (groups < 1 || g->C % groups || g->O % groups)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %lld groups do not divide %lld input and %lld output channels", ctx->op, (long long)groups, (long long)g->C, (long long)g->O);
    if (g->Cg != g->C / groups) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: weight has %lld input channels per group, the input %lld", ctx->op, (long long)g->Cg, (long long)(g->C / groups));
    if (g->s[0] < 1 || g->s[1] < 1 || g->d[0] < 1 || g->d[1] < 1 || g->p[0] < 0 || g->p[1] < 0)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: stride and dilation must be positive, padding non-negative", ctx->op);
    if (bias && (bias->dim != 1 || bias->sizes[0] != g->O)) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: bias must have %lld elements", ctx->op, (long long)g->O);
    if (input->dtype != weight->dtype || (bias && bias->dtype != input->dtype)) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: input, weight and bias must have one dtype", ctx->op);
    int64_t nh = g->H + 2 * g->p[0] - g->d[0] * (g->KH - 1) - 1, nw = g->W + 2 * g->p[1] - g->d[1] * (g->KW - 1) - 1;
    g->OH = nh < 0 ? 0 : nh / g->s[0] + 1, g->OW = nw < 0 ? 0 : nw / g->s[1] + 1; /* C's / rounds -1/2 up to 0 */
    if (g->OH < 1 || g->OW < 1) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the kernel is larger than the padded input", ctx->op);
    return OPGEN_OK;
}

typedef enum { CONV_1X1, CONV_DEPTHWISE, CONV_IM2COL } conv_path;

static conv_path path_of(const conv_geom *g, const opgen_tensor *in) {
    if (g->Cg == 1 && g->groups == g->C) return CONV_DEPTHWISE;
    bool flat = in->strides[2] == g->W * in->strides[3]; /* H and W one dimension */
    if (g->KH == 1 && g->KW == 1 && g->s[0] == 1 && g->s[1] == 1 && !g->p[0] && !g->p[1] && flat) return CONV_1X1;
    return CONV_IM2COL;
}

/* Depthwise: each output channel oc reads input channel oc / (O / C). */
#define DEPTHWISE(T)                                                                                                             \
    for (int64_t n = 0; n < g.N; n++)                                                                                            \
        for (int64_t oc = 0; oc < g.O; oc++) {                                                                                   \
            int64_t ic = oc / (g.O / g.C);                                                                                       \
            const T *x = (const T *)input->data + n * input->strides[0] + ic * input->strides[1];                                 \
            const T *w = (const T *)weight->data + oc * weight->strides[0];                                                      \
            T *y = (T *)out->data + (n * g.O + oc) * g.OH * g.OW, b0 = bias ? ((const T *)bias->data)[oc * bias->strides[0]] : (T)0; \
            for (int64_t i = 0; i < g.OH * g.OW; i++) y[i] = b0;                                                                 \
            for (int64_t ky = 0; ky < g.KH; ky++)                                                                                \
                for (int64_t kx = 0; kx < g.KW; kx++) {                                                                          \
                    T wv = w[ky * weight->strides[2] + kx * weight->strides[3]];                                                  \
                    for (int64_t oy = 0; oy < g.OH; oy++) {                                                                      \
                        int64_t iy = oy * g.s[0] - g.p[0] + ky * g.d[0];                                                         \
                        if (iy < 0 || iy >= g.H) continue;                                                                       \
                        /* the columns whose input lies inside: ox in [lo, hi) */                                                 \
                        int64_t off = kx * g.d[1] - g.p[1], lo = off < 0 ? (-off + g.s[1] - 1) / g.s[1] : 0;                     \
                        int64_t hi = g.W - off <= 0 ? 0 : (g.W - off - 1) / g.s[1] + 1;                                          \
                        if (hi > g.OW) hi = g.OW;                                                                                 \
                        const T *row = x + iy * input->strides[2];                                                               \
                        T *yr = y + oy * g.OW;                                                                                   \
                        if (g.s[1] == 1 && input->strides[3] == 1)                                                               \
                            for (int64_t ox = lo; ox < hi; ox++) yr[ox] += wv * row[ox + off];                                   \
                        else                                                                                                     \
                            for (int64_t ox = lo; ox < hi; ox++) yr[ox] += wv * row[(ox * g.s[1] + off) * input->strides[3]];    \
                    }                                                                                                            \
                }                                                                                                                \
        }

/* im2col of one image's group: col[(c, ky, kx), (oy, ox)], zero where padded. Per
 * output row, the columns whose input lies inside are one strided run (a copy
 * when the stride is 1), the rest zeros. */
#define IM2COL(T, col, x)                                                                                                        \
    for (int64_t c = 0; c < g.Cg; c++)                                                                                           \
        for (int64_t ky = 0; ky < g.KH; ky++)                                                                                    \
            for (int64_t kx = 0; kx < g.KW; kx++) {                                                                              \
                T *dst = (col) + ((c * g.KH + ky) * g.KW + kx) * g.OH * g.OW;                                                    \
                int64_t off = kx * g.d[1] - g.p[1], lo = off < 0 ? (-off + g.s[1] - 1) / g.s[1] : 0;                             \
                int64_t hi = g.W - off <= 0 ? 0 : (g.W - off - 1) / g.s[1] + 1, sw = input->strides[3];                          \
                if (hi > g.OW) hi = g.OW;                                                                                        \
                if (lo > hi) lo = hi;                                                                                            \
                for (int64_t oy = 0; oy < g.OH; oy++, dst += g.OW) {                                                             \
                    int64_t iy = oy * g.s[0] - g.p[0] + ky * g.d[0];                                                             \
                    if (iy < 0 || iy >= g.H) {                                                                                   \
                        memset(dst, 0, sizeof(T) * (size_t)g.OW);                                                                \
                        continue;                                                                                                \
                    }                                                                                                            \
                    const T *src = (x) + c * input->strides[1] + iy * input->strides[2] + off * sw;                              \
                    for (int64_t ox = 0; ox < lo; ox++) dst[ox] = 0;                                                             \
                    if (g.s[1] == 1 && sw == 1)                                                                                  \
                        memcpy(dst + lo, src + lo, sizeof(T) * (size_t)(hi - lo));                                               \
                    else                                                                                                         \
                        for (int64_t ox = lo; ox < hi; ox++) dst[ox] = src[ox * g.s[1] * sw];                                    \
                    for (int64_t ox = hi; ox < g.OW; ox++) dst[ox] = 0;                                                          \
                }                                                                                                                \
            }

opgen_status opgen_portable_convolution_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight, const opgen_tensor *bias, opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation, bool transposed, opgen_int_list output_padding, int64_t groups, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_convolution_out;
    (void)output_padding;
    if (transposed) return OPGEN_FAIL(ctx, OPGEN_E_NOT_IMPLEMENTED, "%s: transposed convolution is not implemented", ctx->op);
    conv_geom g = {0};
    if (conv_geometry(ctx, input, weight, bias, stride, padding, dilation, groups, &g)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    int64_t sizes[4] = {g.N, g.O, g.OH, g.OW};
    int32_t st = opgen_out(ctx, out, input->dtype, 4, sizes);
    if (st) return st;
    conv_path path = path_of(&g, input);
    int64_t og = g.O / g.groups, ck = g.Cg * g.KH * g.KW, hw = g.OH * g.OW;
    size_t es = (size_t)opgen_dtype_size(input->dtype);
    void *gs = path == CONV_DEPTHWISE ? NULL : opgen_scratch(ctx, opgen_gemm_scratch(input->dtype, og, hw, ck));
    void *col = path == CONV_IM2COL ? opgen_scratch(ctx, (size_t)(ck * hw) * es) : NULL;
    /* the GEMM reads each group's weight as a matrix [og, Cg*KH*KW]: a weight laid
     * out otherwise is copied so first */
    bool flat = weight->strides[3] == 1 && weight->strides[2] == g.KW && weight->strides[1] == g.KH * g.KW && weight->strides[0] == ck;
    opgen_tensor wc = *weight;
    if (!flat) {
        if (opgen_tensor_shape(&wc, weight->dtype, 4, weight->sizes, ctx->err)) return ctx->err->code;
        wc.data = opgen_scratch(ctx, opgen_nbytes(&wc));
    }
    if (ctx->meta) return OPGEN_OK;
    if ((path != CONV_DEPTHWISE && !gs) || (path == CONV_IM2COL && !col) || !wc.data) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    if (!flat && opgen_copy(ctx, &wc, weight)) return ctx->err->code;
    weight = &wc;
    OPGEN_FLOAT_SWITCH(mask, input->dtype, ctx, T, {
        {
            if (path == CONV_DEPTHWISE) {
                DEPTHWISE(T)
            } else {
                for (int64_t n = 0; n < g.N; n++)
                    for (int64_t gi = 0; gi < g.groups; gi++) {
                        const T *x = (const T *)input->data + n * input->strides[0] + gi * g.Cg * input->strides[1];
                        T *y = (T *)out->data + (n * g.O + gi * og) * hw;
                        for (int64_t o = 0; bias && o < og; o++) /* the bias first; the product adds to it */
                            for (int64_t i = 0; i < hw; i++) y[o * hw + i] = ((const T *)bias->data)[(gi * og + o) * bias->strides[0]];
                        const T *b = x;
                        int64_t rsb = input->strides[1], csb = input->strides[3];
                        if (path == CONV_IM2COL) {
                            IM2COL(T, (T *)col, x)
                            b = col, rsb = hw, csb = 1;
                        }
                        /* the weight of the group as a matrix [og, Cg*KH*KW]: rows weight->strides[0] apart */
                        const T *w = (const T *)weight->data + gi * og * weight->strides[0];
                        _Generic((T)0, float: opgen_gemm_f32, default: opgen_gemm_f64)(og, hw, ck, (T)1, (const void *)w, weight->strides[0], weight->strides[3], (const void *)b, rsb, csb,
                                                                                      bias ? (T)1 : (T)0, (void *)y, hw, gs);
                    }
            }
        }
    })
    return OPGEN_OK;
}
