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

static int32_t resize_shape(opgen_ctx *ctx, const opgen_tensor *input, const opgen_int_list *output_size, const opgen_float_list *scale_factors, resize_geom *g) {
    if (input->dim != 4) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected a 4-d input, got %d-d", ctx->op, input->dim);
    if (!output_size == !scale_factors) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: must specify exactly one of output_size and scale_factors", ctx->op);
    g->H = input->sizes[2], g->W = input->sizes[3];
    g->planes = input->sizes[0] * input->sizes[1];
    int64_t in[2] = {g->H, g->W}, o[2];
    for (int j = 0; j < 2; j++) {
        g->has_scale[j] = scale_factors != NULL;
        if (output_size) {
            if (output_size->len != 2) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: output_size must have 2 values", ctx->op);
            o[j] = output_size->data[j];
        } else {
            if (scale_factors->len != 2) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: scale_factors must have 2 values", ctx->op);
            g->scale[j] = scale_factors->data[j];
            double v = (double)in[j] * g->scale[j];
            o[j] = v >= 0 && v < 1e9 ? (int64_t)v : -1;
        }
        if (o[j] <= 0 || o[j] > ((int64_t)1 << 30)) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: output size %lld is out of range", ctx->op, (long long)o[j]);
    }
    if (!g->H || !g->W) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the input's height and width must be positive", ctx->op);
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

opgen_status opgen_portable_upsample_nearest2d_vec_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_int_list *output_size, const opgen_float_list *scale_factors, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_upsample_nearest2d_vec_out;
    resize_geom g;
    if (resize_shape(ctx, input, output_size, scale_factors, &g)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    int32_t st = opgen_out(ctx, out, input->dtype, 4, g.sizes);
    int64_t *ix = opgen_scratch(ctx, sizeof(int64_t) * (size_t)g.OW);
    if (st || ctx->meta) return st;
    if (!ix) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    for (int64_t x = 0; x < g.OW; x++) ix[x] = nearest_index(&g, 1, x, g.W, g.OW) * input->strides[3];
    OPGEN_REAL_SWITCH(mask, input->dtype, ctx, T, {
        T *y = out->data;
        for (int64_t pl = 0; pl < g.planes; pl++) {
            const T *src = (const T *)input->data + (pl / input->sizes[1]) * input->strides[0] + (pl % input->sizes[1]) * input->strides[1];
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
static void linear_index(const resize_geom *g, int j, int64_t o, int64_t in, int64_t out, bool align_corners, bool dbl, int64_t *i0, int64_t *i1, double *l0, double *l1) {
#define R(v) (dbl ? (double)(v) : (double)(float)(v))
    if (in == out) {
        *i0 = *i1 = o, *l0 = 1, *l1 = 0;
        return;
    }
    double scale;
    if (align_corners) scale = out > 1 ? R((double)(in - 1) / (double)(out - 1)) : 0;
    else scale = g->has_scale[j] && g->scale[j] > 0 ? R(1.0 / g->scale[j]) : R(R(in) / R(out));
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

opgen_status opgen_portable_upsample_bilinear2d_vec_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_int_list *output_size, bool align_corners, const opgen_float_list *scale_factors, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_upsample_bilinear2d_vec_out;
    resize_geom g;
    if (resize_shape(ctx, input, output_size, scale_factors, &g)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    int32_t st = opgen_out(ctx, out, input->dtype, 4, g.sizes);
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
            const T *src = (const T *)input->data + (pl / input->sizes[1]) * input->strides[0] + (pl % input->sizes[1]) * input->strides[1];
            for (int64_t oy = 0; oy < g.OH; oy++) {
                int64_t y0, y1;
                double h0, h1;
                linear_index(&g, 0, oy, g.H, g.OH, align_corners, dbl, &y0, &y1, &h0, &h1);
                const T *r0 = src + y0 * input->strides[2], *r1 = src + y1 * input->strides[2];
                for (int64_t x = 0; x < g.OW; x++) {
                    T w0 = (T)xl[2 * x], w1 = (T)xl[2 * x + 1];
                    T t0 = r0[xi[2 * x]] * w0 + r0[xi[2 * x + 1]] * w1, t1 = r1[xi[2 * x]] * w0 + r1[xi[2 * x + 1]] * w1;
                    *y++ = t0 * (T)h0 + t1 * (T)h1;
                }
            }
        }
    })
    return OPGEN_OK;
}
