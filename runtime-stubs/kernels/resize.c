/* Upsampling of (N, C, H, W) inputs: upsample_nearest2d.vec and
 * upsample_bilinear2d.vec, with ATen's index arithmetic (UpSample.h): the
 * output size from output_size or floor(size * scale); source indices in float
 * from 1 / scale when a scale is given, else input / output size; bilinear
 * weights in float, blended width first, then height. */
#include "opgen/loops.h"
#include "opgen_registry.h"

typedef struct resize_geom {
    int64_t H, W, OH, OW, planes;
    bool has_scale[2];
    double scale[2];
    int64_t sizes[4];
} resize_geom;

static opgen_status resize_shape(opgen_ctx *ctx, const opgen_tensor *input, const opgen_int_list *output_size,
                                 const opgen_float_list *scale_factors, resize_geom *g) {
    if (input->dim != 4)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected a 4-d input, got %d-d", ctx->op, (int)input->dim);
    if (!output_size == !scale_factors)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: must specify exactly one of output_size and scale_factors",
                          ctx->op);
    g->H = input->sizes[2], g->W = input->sizes[3];
    g->planes = input->sizes[0] * input->sizes[1];
    int64_t in[2] = {g->H, g->W}, o[2];
    for (int j = 0; j < 2; j++) {
        g->has_scale[j] = scale_factors != NULL;
        if (output_size) {
            if (output_size->len != 2)
                return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: output_size must have 2 values", ctx->op);
            o[j] = output_size->data[j];
        } else {
            if (scale_factors->len != 2)
                return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: scale_factors must have 2 values", ctx->op);
            g->scale[j] = scale_factors->data[j];
            double v = (double)in[j] * g->scale[j];
            o[j] = v >= 0 && v < 1e9 ? (int64_t)v : -1;
        }
        if (o[j] <= 0 || o[j] > ((int64_t)1 << 30))
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: output size %lld is out of range", ctx->op, (long long)o[j]);
    }
    if (!g->H || !g->W)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the input's height and width must be positive", ctx->op);
    g->OH = o[0], g->OW = o[1];
    g->sizes[0] = input->sizes[0], g->sizes[1] = input->sizes[1], g->sizes[2] = g->OH, g->sizes[3] = g->OW;
    return OPGEN_OK;
}

/* ATen's compute_scales_value: 1 / scale when one is given, else in / out */
static float scale_value(const resize_geom *g, int j, int64_t in, int64_t out) {
    return g->has_scale[j] && g->scale[j] > 0 ? (float)(1.0 / g->scale[j]) : (float)in / (float)out;
}

static int64_t nearest_index(const resize_geom *g, int j, int64_t o, int64_t in, int64_t out) {
    if (out == in) return o;
    if (out == 2 * in) return o >> 1;
    int64_t i = (int64_t)floorf((float)o * scale_value(g, j, in, out));
    return i < in - 1 ? i : in - 1;
}

opgen_status opgen_portable_upsample_nearest2d_vec_out(opgen_ctx *ctx, const opgen_tensor *input,
                                                       const opgen_int_list *output_size,
                                                       const opgen_float_list *scale_factors, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_upsample_nearest2d_vec_out;
    resize_geom g;
    if (resize_shape(ctx, input, output_size, scale_factors, &g)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, input->dtype, 4, g.sizes);
    int64_t *ix = opgen_scratch(ctx, sizeof(int64_t) * (size_t)g.OW);
    if (st || ctx->meta) return st;
    if (!ix) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    for (int64_t x = 0; x < g.OW; x++) ix[x] = nearest_index(&g, 1, x, g.W, g.OW) * input->strides[3];
    OPGEN_REAL_SWITCH(mask, input->dtype, ctx, T, {
        T *y = out->data;
        for (int64_t pl = 0; pl < g.planes; pl++) {
            const T *src = (const T *)input->data + (pl / input->sizes[1]) * input->strides[0] +
                           (pl % input->sizes[1]) * input->strides[1];
            for (int64_t oy = 0; oy < g.OH; oy++) {
                const T *row = src + nearest_index(&g, 0, oy, g.H, g.OH) * input->strides[2];
                for (int64_t x = 0; x < g.OW; x++) *y++ = row[ix[x]];
            }
        }
    })
    return OPGEN_OK;
}

/* ATen's compute_source_index_and_lambda in its opmath type: float for float
 * results, double for double ones (dbl). Float arithmetic is done in double and
 * rounded after each step, which gives the float result exactly. */
static void linear_index(const resize_geom *g, int j, int64_t o, int64_t in, int64_t out, bool align_corners, bool dbl,
                         int64_t *i0, int64_t *i1, double *l0, double *l1) {
#define R(v) (dbl ? (double)(v) : (double)(float)(v))
    if (in == out) {
        *i0 = *i1 = o, *l0 = 1, *l1 = 0;
        return;
    }
    double scale;
    if (align_corners)
        scale = out > 1 ? R((double)(in - 1) / (double)(out - 1)) : 0;
    else
        scale = g->has_scale[j] && g->scale[j] > 0 ? R(1.0 / g->scale[j]) : R(R(in) / R(out));
    double src = align_corners ? R(scale * R(o)) : R(R(scale * R(R(o) + 0.5)) - 0.5);
    if (!align_corners && src < 0) src = 0;
    int64_t i = (int64_t)floor(src);
    *i0 = i < in - 1 ? i : in - 1;
    double l = R(src - R(*i0));
    *l1 = l < 0 ? 0 : l > 1 ? 1 : l;
    *i1 = *i0 + (*i0 < in - 1);
    *l0 = R(1.0 - *l1);
#undef R
}

opgen_status opgen_portable_upsample_bilinear2d_vec_out(opgen_ctx *ctx, const opgen_tensor *input,
                                                        const opgen_int_list *output_size, bool align_corners,
                                                        const opgen_float_list *scale_factors, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_upsample_bilinear2d_vec_out;
    resize_geom g;
    if (resize_shape(ctx, input, output_size, scale_factors, &g)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, input->dtype, 4, g.sizes);
    int64_t *xi = opgen_scratch(ctx, sizeof(int64_t) * 2 * (size_t)g.OW);
    double *xl = opgen_scratch(ctx, sizeof(double) * 2 * (size_t)g.OW);
    bool dbl = input->dtype == OPGEN_DTYPE_Double;
    if (st || ctx->meta) return st;
    if (!xi || !xl) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    for (int64_t x = 0; x < g.OW; x++) {
        linear_index(&g, 1, x, g.W, g.OW, align_corners, dbl, &xi[2 * x], &xi[2 * x + 1], &xl[2 * x], &xl[2 * x + 1]);
        xi[2 * x] *= input->strides[3], xi[2 * x + 1] *= input->strides[3];
    }
    OPGEN_FLOAT_SWITCH(mask, input->dtype, ctx, T, {
        T *y = out->data;
        for (int64_t pl = 0; pl < g.planes; pl++) {
            const T *src = (const T *)input->data + (pl / input->sizes[1]) * input->strides[0] +
                           (pl % input->sizes[1]) * input->strides[1];
            for (int64_t oy = 0; oy < g.OH; oy++) {
                int64_t y0, y1;
                double h0, h1;
                linear_index(&g, 0, oy, g.H, g.OH, align_corners, dbl, &y0, &y1, &h0, &h1);
                const T *r0 = src + y0 * input->strides[2], *r1 = src + y1 * input->strides[2];
                for (int64_t x = 0; x < g.OW; x++) {
                    T w0 = (T)xl[2 * x], w1 = (T)xl[2 * x + 1];
                    T t0 = r0[xi[2 * x]] * w0 + r0[xi[2 * x + 1]] * w1,
                      t1 = r1[xi[2 * x]] * w0 + r1[xi[2 * x + 1]] * w1;
                    *y++ = t0 * (T)h0 + t1 * (T)h1;
                }
            }
        }
    })
    return OPGEN_OK;
}

/* ---- grid_sampler_2d: ATen's GridSampler.h, in the input's type ---- */
static double gs_unnormalize(double c, int64_t size, bool align) {
    return align ? (c + 1) / 2 * (double)(size - 1) : ((c + 1) * (double)size - 1) / 2;
}
static double gs_clip(double c, int64_t size) { return c < 0 ? 0 : c > (double)(size - 1) ? (double)(size - 1) : c; }
static double gs_reflect(double c, int64_t twice_low, int64_t twice_high) {
    if (twice_low == twice_high) return 0;
    double min = (double)twice_low / 2, span = (double)(twice_high - twice_low) / 2;
    c = fabs(c - min);
    double extra = fmod(c, span);
    int64_t flips = (int64_t)floor(c / span);
    return flips % 2 == 0 ? extra + min : span - extra + min;
}
/* padding_mode 0 zeros (as is), 1 border (clipped), 2 reflection (then clipped) */
static double gs_pad(double c, int64_t size, int64_t padding_mode, bool align) {
    if (padding_mode == 1) return gs_clip(c, size);
    if (padding_mode == 2)
        return gs_clip(align ? gs_reflect(c, 0, 2 * (size - 1)) : gs_reflect(c, -1, 2 * size - 1), size);
    return c;
}
static double cubic1(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
static double cubic2(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }
static double cubic_interp(const double v[4], double t) {
    const double a = -0.75;
    return v[0] * cubic2(t + 1, a) + v[1] * cubic1(t, a) + v[2] * cubic1(1 - t, a) + v[3] * cubic2(2 - t, a);
}

/* input element (n, c, yy, xx), or 0 outside the input */
#define GS_AT(c, yy, xx) \
    ((yy) >= 0 && (yy) < H && (xx) >= 0 && (xx) < W ? (double)x[n * is[0] + (c)*is[1] + (yy)*is[2] + (xx)*is[3]] : 0.0)

opgen_status opgen_portable_grid_sampler_2d_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *grid,
                                                int64_t interpolation_mode, int64_t padding_mode, bool align_corners,
                                                opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_grid_sampler_2d_out;
    if (input->dim != 4 || grid->dim != 4 || grid->sizes[3] != 2 || grid->sizes[0] != input->sizes[0])
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected a (N, C, H, W) input and a (N, H_out, W_out, 2) grid",
                          ctx->op);
    if (interpolation_mode < 0 || interpolation_mode > 2 || padding_mode < 0 || padding_mode > 2)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: interpolation_mode must be 0, 1 or 2 and padding_mode 0, 1 or 2",
                          ctx->op);
    if (grid->dtype != input->dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: grid and input must have the same dtype", ctx->op);
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    int64_t N = input->sizes[0], C = input->sizes[1], H = input->sizes[2], W = input->sizes[3], OH = grid->sizes[1],
            OW = grid->sizes[2];
    int64_t sizes[4] = {N, C, OH, OW};
    opgen_status st = opgen_out(ctx, out, input->dtype, 4, sizes);
    if (st || ctx->meta) return st;
    const int64_t *is = input->strides, *gs = grid->strides;
    OPGEN_FLOAT_SWITCH(mask, input->dtype, ctx, T, {
        const T *x = input->data, *g = grid->data;
        T *y = out->data;
        for (int64_t n = 0; n < N; n++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    const T *gp = g + n * gs[0] + oh * gs[1] + ow * gs[2];
                    double gx = (double)gp[0], gy = (double)gp[gs[3]];
                    for (int64_t c = 0; c < C; c++) {
                        double v;
                        if (interpolation_mode == 2) { /* bicubic: taps padded one by one */
                            double ix = gs_unnormalize(gx, W, align_corners), iy = gs_unnormalize(gy, H, align_corners);
                            double fx = floor(ix), fy = floor(iy), row[4];
                            for (int i = 0; i < 4; i++) {
                                double taps[4];
                                for (int j = 0; j < 4; j++) {
                                    double px = gs_pad(fx - 1 + j, W, padding_mode, align_corners),
                                           py = gs_pad(fy - 1 + i, H, padding_mode, align_corners);
                                    taps[j] = GS_AT(c, (int64_t)py, (int64_t)px);
                                }
                                row[i] = cubic_interp(taps, ix - fx);
                            }
                            v = cubic_interp(row, iy - fy);
                        } else {
                            double ix = gs_pad(gs_unnormalize(gx, W, align_corners), W, padding_mode, align_corners);
                            double iy = gs_pad(gs_unnormalize(gy, H, align_corners), H, padding_mode, align_corners);
                            if (interpolation_mode == 1) {
                                double rx = nearbyint(ix), ry = nearbyint(iy);
                                v = rx >= 0 && rx < (double)W && ry >= 0 && ry < (double)H
                                        ? GS_AT(c, (int64_t)ry, (int64_t)rx)
                                        : 0.0;
                            } else {
                                double fx = floor(ix), fy = floor(iy);
                                int64_t x0 = (int64_t)fx, y0 = (int64_t)fy;
                                double tx = ix - fx, ty = iy - fy;
                                v = GS_AT(c, y0, x0) * (1 - tx) * (1 - ty) + GS_AT(c, y0, x0 + 1) * tx * (1 - ty) +
                                    GS_AT(c, y0 + 1, x0) * (1 - tx) * ty + GS_AT(c, y0 + 1, x0 + 1) * tx * ty;
                            }
                        }
                        y[((n * C + c) * OH + oh) * OW + ow] = (T)v;
                    }
                }
    })
    return OPGEN_OK;
}
