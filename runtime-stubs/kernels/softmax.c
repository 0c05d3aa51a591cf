/* softmax and log_softmax over one dimension, as ATen's CPU kernels compute them
 * in the input's type: m = max(x); softmax = exp(x - m) * (1 / sum exp(x - m));
 * log_softmax = x - (m + log(sum exp(x - m))). */
#include "opgen/loops.h"
#include "opgen_registry.h"

/* e^x for x <= 0 (softmax's x - max) or NaN, in float32, written so that a loop of
 * it vectorizes (ATen's vectorized kernels use SLEEF's exp, within 1 ulp; this is
 * within 0.99 ulp of e^x over every 7th float in [-104, 0], and every build rounds
 * it alike: no FMA): x = n ln 2 + r, |r| <= ln 2 / 2
 * (Cody and Waite's two-part ln 2, the first part's product exact), e^r by Cephes'
 * expf polynomial, times 2^n in two factors so that results below 2^-126 round
 * once into the subnormals. Below -104 every result is 0. */
static inline float exp_nonpositive(float x) {
    x = x < -104.0f ? -104.0f : x; /* a NaN stays */
    float n = x * 1.44269504088896341f;
    n = (n + 12582912.0f) - 12582912.0f; /* to nearest: 1.5 * 2^23 */
    float r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * (r * r) + r + 1.0f;
    int32_t k = (int32_t)(n == n ? n : 0.0f), k1 = k / 2,
            k2 = k - k1; /* each >= -75: a normal scale; a NaN's p is NaN */
    uint32_t b1 = (uint32_t)(k1 + 127) << 23, b2 = (uint32_t)(k2 + 127) << 23;
    float s1, s2;
    memcpy(&s1, &b1, 4), memcpy(&s2, &b2, 4);
    return p * s1 * s2;
}

/* A float row, `is` / `os` elements apart in input and output: the maximum (the
 * first NaN, if any), e^(x - max) and its sum in 16 partial sums, the scaling.
 * The body is compiled twice, for any strides and for contiguous rows, where each
 * pass is one vector loop (built for AVX2 and AVX-512 too): the same operations
 * in the same order, so a row's bytes do not depend on its layout. */
#define SOFTMAX_F32_ROW(IS, OS)                                                                       \
    float most[16], part[16] = {0}, mx = -INFINITY, sum = 0;                                          \
    int nan = 0;                                                                                      \
    int64_t k = 0;                                                                                    \
    for (int u = 0; u < 16; u++) most[u] = -INFINITY;                                                 \
    for (; k + 16 <= len; k += 16)                                                                    \
        for (int u = 0; u < 16; u++) {                                                                \
            float v = x[(k + u) * (IS)];                                                              \
            most[u] = v > most[u] ? v : most[u], nan |= v != v;                                       \
        }                                                                                             \
    for (int u = 0; u < 16; u++) mx = most[u] > mx ? most[u] : mx;                                    \
    for (; k < len; k++) mx = x[k * (IS)] > mx ? x[k * (IS)] : mx, nan |= x[k * (IS)] != x[k * (IS)]; \
    for (k = 0; nan && k < len; k++)                                                                  \
        if (x[k * (IS)] != x[k * (IS)]) {                                                             \
            mx = x[k * (IS)];                                                                         \
            break;                                                                                    \
        }                                                                                             \
    for (k = 0; k + 16 <= len; k += 16)                                                               \
        for (int u = 0; u < 16; u++) {                                                                \
            float e = exp_nonpositive(x[(k + u) * (IS)] - mx);                                        \
            if (!take_log) y[(k + u) * (OS)] = e;                                                     \
            part[u] += e;                                                                             \
        }                                                                                             \
    for (int u = 0; u < 16; u++) sum += part[u];                                                      \
    for (; k < len; k++) {                                                                            \
        float e = exp_nonpositive(x[k * (IS)] - mx);                                                  \
        if (!take_log) y[k * (OS)] = e;                                                               \
        sum += e;                                                                                     \
    }                                                                                                 \
    if (take_log) {                                                                                   \
        float shift = mx + logf(sum);                                                                 \
        for (k = 0; k < len; k++) y[k * (OS)] = x[k * (IS)] - shift;                                  \
    } else {                                                                                          \
        float inv = 1.0f / sum;                                                                       \
        for (k = 0; k < len; k++) y[k * (OS)] *= inv;                                                 \
    }
OPGEN_DISPATCHED static void softmax_row_f32_unit(const float *x, float *y, int64_t len, bool take_log) {
    SOFTMAX_F32_ROW(1, 1)
}
static void softmax_row_f32(const void *xv, int64_t is, void *yv, int64_t os, int64_t len, bool take_log) {
    if (is == 1 && os == 1) {
        softmax_row_f32_unit(xv, yv, len, take_log);
        return;
    }
    const float *x = xv;
    float *y = yv;
    SOFTMAX_F32_ROW(is, os)
}

/* A double row, as ATen computes it: e^(x - max) summed in order. */
static void softmax_row_f64(const void *xv, int64_t is, void *yv, int64_t os, int64_t len, bool take_log) {
    const double *x = xv;
    double *y = yv, mx = -INFINITY, sum = 0;
    for (int64_t k = 0; k < len; k++) {
        double v = x[k * is];
        if (v > mx || v != v) mx = v;
    }
    for (int64_t k = 0; k < len; k++) {
        double e = exp(x[k * is] - mx);
        if (!take_log) y[k * os] = e;
        sum += e;
    }
    if (take_log) {
        double shift = mx + log(sum);
        for (int64_t k = 0; k < len; k++) y[k * os] = x[k * is] - shift;
    } else {
        double inv = 1 / sum;
        for (int64_t k = 0; k < len; k++) y[k * os] *= inv;
    }
}
#define SOFTMAX_ROW_OF(T) _Generic((T)0, float : softmax_row_f32, default : softmax_row_f64)

OPGEN_SPECIALIZED opgen_status softmax(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self, int64_t dim,
                                       bool half_to_float, bool take_log, opgen_tensor *out) {
    int32_t d;
    if (opgen_wrap_dim(ctx, dim, self->dim, &d)) return ctx->err->code;
    if (half_to_float)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID,
                          "%s: conversion from %s to Float is not supported (half_to_float takes Half and BFloat16)",
                          ctx->op, opgen_dtype_name(self->dtype));
    if (!opgen_is_float(self->dtype))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: softmax needs a floating point tensor, not %s", ctx->op,
                          opgen_dtype_name(self->dtype));
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, self->sizes);
    if (st || ctx->meta || !opgen_numel(out)) return st;
    /* every row along d: the other dimensions walked by an iterator over a view
     * with d of size 1 */
    int64_t len = self->dim ? self->sizes[d] : 1, is = self->dim ? self->strides[d] : 1,
            os = self->dim ? out->strides[d] : 1;
    opgen_tensor ov = *out, iv = *self;
    if (self->dim) ov.sizes[d] = iv.sizes[d] = 1;
    opgen_iter it;
    const opgen_tensor *in[1] = {&iv};
    if (opgen_iter_init_strided(ctx, &it, &ov, in, 1)) return ctx->err->code;
    OPGEN_FLOAT_SWITCH(mask, self->dtype, ctx, T, {
        {
            OPGEN_ITER_RUNS(&it, n, p, s, {
        for (int64_t r = 0; r < n; r++) SOFTMAX_ROW_OF(T)(p[1] + r * s[1], is, p[0] + r * s[0], os, len, take_log);
            });
}
})
    return OPGEN_OK;
}

/* Half and BFloat16 in float, rounded once (ATen's opmath); half_to_float keeps
 * the float result. */
OPGEN_SPECIALIZED opgen_status softmax_any(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self, int64_t dim,
                                           bool half_to_float, bool take_log, opgen_tensor *out) {
    if (!OPGEN_REDUCED(mask, self->dtype)) return softmax(ctx, mask, self, dim, half_to_float, take_log, out);
    opgen_tensor x, y;
    opgen_standin(&y);
    opgen_status st = opgen_widen(ctx, self, &x);
    if (!st) st = softmax(ctx, OPGEN_AS_FLOAT(mask), &x, dim, false, take_log, half_to_float ? out : &y);
    return st || half_to_float ? st : opgen_narrow(ctx, out, self->dtype, &y);
}

opgen_status opgen_portable__softmax_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, bool half_to_float,
                                         opgen_tensor *out) {
    return softmax_any(ctx, OPGEN_KERNEL_DTYPES_opgen_portable__softmax_out, self, dim, half_to_float, false, out);
}
opgen_status opgen_portable__log_softmax_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, bool half_to_float,
                                             opgen_tensor *out) {
    return softmax_any(ctx, OPGEN_KERNEL_DTYPES_opgen_portable__log_softmax_out, self, dim, half_to_float, true, out);
}
