/* The convolution kernel's 2-D paths (1x1 in place or gathered, depthwise, the GEMM over the
 * input's shifted phase planes, chunk by chunk, im2col packed block by block)
 * against a plain reference loop summing in double, over a few fixed geometries
 * and seeded random ones: strides 1-3,
 * padding, dilation, groups, 1-D and 2-D, batch, with and without bias, widths
 * from 1 to past a GEMM block. With a thread pool, every case again on 2 threads
 * (and on 3 with the best micro-kernels: chunks in uneven ranges): the same bytes. Float and Double. Every case with
 * each GEMM micro-kernel the CPU can run (opgen_gemm_use_variant: AVX-512's, AVX2's, the baseline's). Exits 1 at the
 * first mismatch, naming it. */
#include "opgen/kernel.h"
#include "opgen_registry.h"
#include "runtime-stubs/kernels/conv.h" /* opgen_conv_prepare */
#include "runtime-stubs/kernels/gemm.h" /* opgen_gemm_use_variant */
#ifdef OPGEN_HAVE_POOL
#include "opgen/pool.h"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15u;
static int64_t pick(int64_t lo, int64_t hi) { /* in [lo, hi] */
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return lo + (int64_t)(rng % (uint64_t)(hi - lo + 1));
}

typedef struct geom {
    int64_t N, C, O, H, W, KH, KW, s[2], p[2], d[2], groups, OH, OW;
    bool one_d, bias;
} geom;

/* The first cases are fixed: many output channels over a plane wide enough that
 * the shifted path works its wide output in several chunks. */
static const geom fixed[] = {
    {1, 4, 256, 20, 20, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0, false, true},
    {2, 6, 192, 23, 17, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, 0, 0, false, false},
    {1, 8, 128, 9, 130, 1, 5, {1, 1}, {0, 2}, {1, 2}, 2, 0, 0, false, true},
    {1, 4, 256, 40, 40, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0, false, true}, /* on 2 threads, a range of chunks each */
    /* 1x1 (the input read in place) and im2col packed: whole GEMM tiles take a
     * fused batch norm and activation in registers, ragged ones after */
    {1, 16, 96, 12, 12, 1, 1, {1, 1}, {0, 0}, {1, 1}, 1, 0, 0, false, false},
    {1, 16, 96, 12, 12, 1, 1, {1, 1}, {0, 0}, {1, 1}, 1, 0, 0, false, false},
    {2, 24, 40, 9, 11, 1, 1, {1, 1}, {0, 0}, {1, 1}, 1, 0, 0, false, true},
    {1, 8, 48, 10, 10, 1, 1, {1, 1}, {0, 0}, {1, 1}, 2, 0, 0, false, true},
    {1, 8, 64, 40, 3, 3, 7, {1, 1}, {1, 3}, {1, 1}, 1, 0, 0, false, false},
    {1, 8, 64, 40, 3, 3, 7, {1, 1}, {1, 3}, {1, 1}, 1, 0, 0, false, true},
    /* im2col packed where it computes fewer columns than the wide output: a
     * small output over many channels (49 columns: 32 + 16 and a dot product), a
     * strided 3x3 as ResNet's */
    {1, 12, 256, 7, 7, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0, false, true},
    {1, 6, 128, 28, 27, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, 0, 0, false, false},
    /* strided 1x1 (its pixels gathered, then the 1x1's GEMM), as ResNet's shortcuts */
    {1, 16, 40, 13, 12, 1, 1, {2, 2}, {0, 0}, {1, 1}, 1, 0, 0, false, true},
    {2, 12, 36, 9, 10, 1, 1, {3, 1}, {0, 0}, {2, 1}, 2, 0, 0, false, false},
    {1, 64, 72, 14, 14, 1, 1, {2, 2}, {0, 0}, {1, 1}, 1, 0, 0, false, false},
    /* Winograd F(2x2, 3x3) (float): 3x3, stride 1, padding 1, 32 channels or more
     * each way, 128 tiles or more; odd sizes (a last tile half outside), a batch
     * (the first runs as Double: the shifted path on the same geometry) */
    {1, 32, 40, 24, 22, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0, false, true},
    {2, 48, 64, 31, 33, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0, false, false},
    {1, 64, 32, 23, 45, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0, false, true},
    /* and with its filter transformed at load, of more channels on fewer tiles
     * (42 and 36: fewer blocks than threads, the output channels split; the
     * first runs as Double, the second as Float) */
    {1, 130, 130, 11, 13, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0, false, true},
    {1, 136, 128, 12, 11, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0, false, false},
    /* depthwise: 3x3 (taps in registers) at strides 1 and 2, a multiplier, 5x5 */
    {1, 24, 24, 14, 15, 3, 3, {1, 1}, {1, 1}, {1, 1}, 24, 0, 0, false, true},
    {1, 24, 24, 14, 15, 3, 3, {1, 1}, {1, 1}, {1, 1}, 24, 0, 0, false, false},
    {2, 16, 32, 13, 13, 3, 3, {2, 2}, {1, 1}, {1, 1}, 16, 0, 0, false, false},
    {1, 8, 8, 11, 9, 5, 5, {1, 1}, {2, 2}, {1, 1}, 8, 0, 0, false, true},
    {1, 8, 8, 11, 9, 5, 5, {1, 1}, {2, 2}, {1, 1}, 8, 0, 0, false, false},
    /* and rows of several 16-wide chunks (x86-64's direct 3x3: each chunk down the plane, stride 2 with
     * padding 1 and 0, stride 1; the third runs as Double) */
    {1, 8, 8, 17, 70, 3, 3, {2, 2}, {1, 1}, {1, 1}, 8, 0, 0, false, false},
    {1, 8, 8, 16, 67, 3, 3, {2, 2}, {0, 0}, {1, 1}, 8, 0, 0, false, true},
    {1, 6, 6, 9, 40, 3, 3, {1, 1}, {1, 1}, {1, 1}, 6, 0, 0, false, true},
    {1, 6, 6, 9, 40, 3, 3, {1, 1}, {1, 1}, {1, 1}, 6, 0, 0, false, true},
    /* im2col packed from offset tables (the first as Float: AVX-512's gathers; the second as Double: the
     * same tables, value by value) */
    {1, 12, 256, 7, 7, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0, false, false},
    {1, 12, 256, 7, 7, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0, false, false},
    /* small planes, 16 channels in the lanes (x86-64, float): whole blocks and planes left over, padding 1 and
     * 0, a batch (a block would cross images: the direct path); enough work to split, so on 2 and 3 threads the
     * parts' blocks fall elsewhere and the same bytes there are the direct path's sums (the third: Double) */
    {1, 168, 168, 7, 7, 3, 3, {1, 1}, {1, 1}, {1, 1}, 168, 0, 0, false, true},
    {1, 240, 240, 4, 8, 3, 3, {1, 1}, {1, 1}, {1, 1}, 240, 0, 0, false, false},
    {2, 152, 152, 8, 7, 3, 3, {1, 1}, {0, 0}, {1, 1}, 152, 0, 0, false, false},
    {2, 152, 152, 8, 7, 3, 3, {1, 1}, {0, 0}, {1, 1}, 152, 0, 0, false, true},
    /* and stride 2 (MobileNetV2's 14 -> 7): padding 0 and 1, odd sizes, a batch, planes left over (the
     * second: Double) */
    {2, 136, 136, 13, 15, 3, 3, {2, 2}, {0, 0}, {1, 1}, 136, 0, 0, false, false},
    {1, 96, 96, 14, 14, 3, 3, {2, 2}, {1, 1}, {1, 1}, 96, 0, 0, false, true},
    {1, 200, 200, 15, 12, 3, 3, {2, 2}, {1, 1}, {1, 1}, 200, 0, 0, false, true},
    {1, 176, 176, 14, 14, 3, 3, {2, 2}, {1, 1}, {1, 1}, 176, 0, 0, false, true},
};

static bool draw(geom *g) {
    static size_t next;
    if (next < sizeof fixed / sizeof *fixed) {
        *g = fixed[next++];
        int64_t nh = g->H + 2 * g->p[0] - g->d[0] * (g->KH - 1) - 1,
                nw = g->W + 2 * g->p[1] - g->d[1] * (g->KW - 1) - 1;
        g->OH = nh / g->s[0] + 1, g->OW = nw / g->s[1] + 1;
        return true;
    }
    g->one_d = pick(0, 4) == 0, g->bias = pick(0, 1);
    g->groups = pick(0, 3) ? 1 : pick(2, 3);
    g->N = pick(1, 2), g->C = g->groups * pick(1, 9), g->O = g->groups * pick(1, pick(0, 3) ? 12 : 40);
    g->H = g->one_d ? 1 : pick(1, 24), g->W = pick(1, pick(0, 2) ? 24 : 90);
    g->KH = g->one_d ? 1 : pick(1, 5), g->KW = pick(1, pick(0, 3) ? 3 : 7);
    if (!pick(0, 3)) { /* depthwise (a channel multiplier at times), mostly 3x3: its rows in whole chunks */
        g->groups = g->C = pick(1, 12), g->O = g->C * pick(1, 2);
        if (pick(0, 2) && !g->one_d) g->KH = g->KW = 3;
    }
    for (int i = 0; i < 2; i++) g->s[i] = pick(1, 3), g->p[i] = pick(0, 3), g->d[i] = pick(1, 3);
    if (g->one_d) g->s[0] = 1, g->p[0] = 0, g->d[0] = 1;
    int64_t nh = g->H + 2 * g->p[0] - g->d[0] * (g->KH - 1) - 1, nw = g->W + 2 * g->p[1] - g->d[1] * (g->KW - 1) - 1;
    if (nh < 0 || nw < 0) return false;
    g->OH = nh / g->s[0] + 1, g->OW = nw / g->s[1] + 1;
    return true;
}

/* k / 61: products and sums round, so a summation order that changed with the
 * threads would show in the bytes (k / 64 summed exactly in any order) */
static double value(int64_t i, int seed) { return (double)((i * 7919 + seed * 104729) % 211 - 105) / 61.0; }

static void fill(opgen_tensor *t, int seed) {
    for (int64_t i = 0; i < opgen_numel(t); i++)
        if (t->dtype == OPGEN_DTYPE_Double)
            ((double *)t->data)[i] = value(i, seed);
        else
            ((float *)t->data)[i] = (float)value(i, seed);
}

static double at(const opgen_tensor *t, int64_t i) {
    return t->dtype == OPGEN_DTYPE_Double ? ((const double *)t->data)[i] : ((const float *)t->data)[i];
}

/* out[n, o, y, x] = bias[o] + sum over the group's c, ky, kx of in * w, in double;
 * *mag: the sum of the terms' magnitudes (what a float sum's error scales with) */
static double reference(const geom *g, const opgen_tensor *x, const opgen_tensor *w, const opgen_tensor *b, int64_t n,
                        int64_t o, int64_t oy, int64_t ox, double *mag) {
    int64_t cg = g->C / g->groups, og = g->O / g->groups, grp = o / og;
    double acc = g->bias ? at(b, o) : 0;
    *mag = fabs(acc);
    for (int64_t c = 0; c < cg; c++)
        for (int64_t ky = 0; ky < g->KH; ky++)
            for (int64_t kx = 0; kx < g->KW; kx++) {
                int64_t iy = oy * g->s[0] - g->p[0] + ky * g->d[0], ix = ox * g->s[1] - g->p[1] + kx * g->d[1];
                if (iy < 0 || iy >= g->H || ix < 0 || ix >= g->W) continue;
                double t = at(x, ((n * g->C + grp * cg + c) * g->H + iy) * g->W + ix) *
                           at(w, ((o * cg + c) * g->KH + ky) * g->KW + kx);
                acc += t, *mag += fabs(t);
            }
    return acc;
}

/* out of a plain convolution through the batch norm and activation kernels (act
 * 0: none, 1 relu, 2 hardtanh(lo, hi)), as an unfused program runs them */
static int unfused_post(opgen_tensor *out, const opgen_tensor *bn, int act, const opgen_scalar *lo,
                        const opgen_scalar *hi, opgen_tensor *res, opgen_arena *a, opgen_error *err) {
    opgen_ctx ctx = {a, err, "aten::_native_batch_norm_legit_no_training.out", false, 0, false, -1, NULL, NULL, NULL,
                     0, NULL};
    opgen_tensor y, s1, s2;
    int64_t zero = 0;
    if (opgen_tensor_alloc(&y, out->dtype, out->dim, out->sizes, a, err) ||
        opgen_tensor_alloc(&s1, out->dtype, 1, &zero, a, err) ||
        opgen_tensor_alloc(&s2, out->dtype, 1, &zero, a, err) ||
        opgen_tensor_alloc(res, out->dtype, out->dim, out->sizes, a, err))
        return 1;
    y.capacity = res->capacity = opgen_nbytes(out);
    if (opgen_portable__native_batch_norm_legit_no_training_out(&ctx, out, &bn[0], &bn[1], &bn[2], &bn[3], 0.1, 1e-5,
                                                                act ? &y : res, &s1, &s2))
        return 1;
    ctx.op = act == 1 ? "aten::relu.out" : "aten::hardtanh.out";
    return act == 1   ? opgen_portable_relu_out(&ctx, &y, res) != 0
           : act == 2 ? opgen_portable_hardtanh_out(&ctx, &y, lo, hi, res) != 0
                      : 0;
}

/* The same, then the residual added (add.Tensor, alpha 1, r its self when first)
 * before the activation. */
static int unfused_residual(opgen_tensor *out, const opgen_tensor *bn, int act, const opgen_scalar *lo,
                            const opgen_scalar *hi, const opgen_tensor *r, bool first, opgen_tensor *res,
                            opgen_arena *a, opgen_error *err) {
    opgen_tensor y, sum;
    if (unfused_post(out, bn, 0, lo, hi, &y, a, err) ||
        opgen_tensor_alloc(&sum, out->dtype, out->dim, out->sizes, a, err) ||
        opgen_tensor_alloc(res, out->dtype, out->dim, out->sizes, a, err))
        return 1;
    sum.capacity = res->capacity = opgen_nbytes(out);
    opgen_ctx ctx = {a, err, "aten::add.out", false, 0, false, -1, NULL, NULL, NULL, 0, NULL};
    if (opgen_portable_add_out(&ctx, first ? r : &y, first ? &y : r, NULL, act ? &sum : res)) return 1;
    ctx.op = act == 1 ? "aten::relu.out" : "aten::hardtanh.out";
    return act == 1   ? opgen_portable_relu_out(&ctx, &sum, res) != 0
           : act == 2 ? opgen_portable_hardtanh_out(&ctx, &sum, lo, hi, res) != 0
                      : 0;
}

static int run(const geom *g, int seq, opgen_dtype dt, const opgen_parallel *par, bool prep, opgen_tensor *out,
               int *residual_runs, opgen_arena *a, opgen_error *err) {
    int32_t nd = g->one_d ? 3 : 4;
    int64_t xs[4] = {g->N, g->C, g->H, g->W}, ws[4] = {g->O, g->C / g->groups, g->KH, g->KW}, bs[1] = {g->O},
            os[4] = {g->N, g->O, g->OH, g->OW};
    if (g->one_d) xs[2] = g->W, ws[2] = g->KW, os[2] = g->OW;
    opgen_tensor x, w, b;
    if (opgen_tensor_alloc(&x, dt, nd, xs, a, err) || opgen_tensor_alloc(&w, dt, nd, ws, a, err) ||
        opgen_tensor_alloc(&b, dt, 1, bs, a, err) || opgen_tensor_alloc(out, dt, nd, os, a, err))
        return 1;
    x.capacity = opgen_nbytes(&x), w.capacity = opgen_nbytes(&w), b.capacity = opgen_nbytes(&b),
    out->capacity = opgen_nbytes(out);
    fill(&x, 1), fill(&w, 2), fill(&b, 3);
    int64_t st[2] = {g->s[0], g->s[1]}, pd[2] = {g->p[0], g->p[1]}, dl[2] = {g->d[0], g->d[1]}, zero[2] = {0, 0};
    int k = g->one_d ? 1 : 2, off = g->one_d ? 1 : 0;
    opgen_ctx ctx = {a, err, "aten::convolution.out", false, 0, false, -1, NULL, par, NULL, 0, NULL};
    if (prep) { /* the filter transformed as a program's load does it (kernels/conv.h) */
        size_t nb = opgen_conv_prepared_bytes((int)dt, g->O, g->C / g->groups, g->KH, g->KW, st, pd, dl, g->groups);
        char *u = nb ? opgen_arena_alloc(a, nb + 64) : NULL;
        if (!u) return fputs("no room for the prepared filter\n", stderr), 1;
        u = (char *)(((uintptr_t)u + 63) & ~(uintptr_t)63);
        opgen_conv_prepare(&w, u);
        ctx.prepared = u;
    }
    if (opgen_portable_convolution_out(&ctx, &x, &w, g->bias ? &b : NULL, (opgen_int_list){st + off, k},
                                       (opgen_int_list){pd + off, k}, (opgen_int_list){dl + off, k}, false,
                                       (opgen_int_list){zero, k}, g->groups, out))
        return 1;
    /* again with a batch norm and activation fused (opgen_post), as a program whose
     * convolution only a batch norm reads runs it: the unfused kernels' bytes, NaN
     * (a NaN weight: one channel all NaN) through relu and clamp alike */
    int act = (seq / 3 + seq) % 3; /* every activation with either dtype (seq % 3 picks that) */
    opgen_tensor bn[4], fused, kernels;
    for (int i = 0; i < 4; i++) {
        if (opgen_tensor_alloc(&bn[i], dt, 1, bs, a, err)) return 1;
        fill(&bn[i], 4 + i);
    }
    for (int64_t o = 0; o < g->O; o++) /* a variance of at least 0.1 */
        dt == OPGEN_DTYPE_Double ? (((double *)bn[3].data)[o] = fabs(at(&bn[3], o)) + 0.1)
                                 : (((float *)bn[3].data)[o] = (float)(fabs(at(&bn[3], o)) + 0.1));
    if (dt == OPGEN_DTYPE_Double)
        ((double *)bn[0].data)[g->O / 2] = NAN;
    else
        ((float *)bn[0].data)[g->O / 2] = NAN;
    opgen_scalar lo = {OPGEN_DTYPE_Double, {.f = -0.75}}, hi = {OPGEN_DTYPE_Double, {.f = 0.5}};
    opgen_post post = {
        &bn[0], &bn[1], &bn[2], &bn[3], 1e-5, (opgen_post_act)act, act == 2 ? &lo : NULL, act == 2 ? &hi : NULL,
        false,  NULL,   false};
    if (opgen_tensor_alloc(&fused, dt, nd, os, a, err)) return 1;
    fused.capacity = opgen_nbytes(&fused);
    ctx.post = &post;
    if (opgen_portable_convolution_out(&ctx, &x, &w, g->bias ? &b : NULL, (opgen_int_list){st + off, k},
                                       (opgen_int_list){pd + off, k}, (opgen_int_list){dl + off, k}, false,
                                       (opgen_int_list){zero, k}, g->groups, &fused))
        return 1;
    if (!post.applied) return fputs("the convolution left its batch norm unapplied\n", stderr), 1;
    if (unfused_post(out, bn, act, &lo, &hi, &kernels, a, err)) return 1;
    if (memcmp(fused.data, kernels.data, opgen_nbytes(&kernels)))
        return fprintf(stderr, "fused with %s: other bytes than the kernels one by one\n",
                       act == 0   ? "batch norm"
                       : act == 1 ? "batch norm and relu"
                                  : "batch norm and hardtanh"),
               1;
    /* and with a residual added between the batch norm and the activation (a
     * ResNet block's), as either operand of the add: the kernels' bytes, also
     * where the result is the residual's own memory (applied there or not at all) */
    if (!g->one_d) {
        opgen_tensor res, want, self;
        if (opgen_tensor_alloc(&res, dt, nd, os, a, err) || opgen_tensor_alloc(&self, dt, nd, os, a, err)) return 1;
        res.capacity = self.capacity = opgen_nbytes(&res);
        fill(&res, 9);
        post.residual = &res, post.residual_first = seq % 2;
        if (unfused_residual(out, bn, act, &lo, &hi, &res, post.residual_first, &want, a, err)) return 1;
        if (opgen_portable_convolution_out(&ctx, &x, &w, g->bias ? &b : NULL, (opgen_int_list){st + off, k},
                                           (opgen_int_list){pd + off, k}, (opgen_int_list){dl + off, k}, false,
                                           (opgen_int_list){zero, k}, g->groups, &fused))
            return 1;
        if (!post.applied) return fputs("the convolution left its residual unapplied\n", stderr), 1;
        if (memcmp(fused.data, want.data, opgen_nbytes(&want)))
            return fprintf(stderr, "fused with a residual (%s): other bytes than the kernels one by one\n",
                           seq % 2 ? "the add's self" : "its other"),
                   1;
        memcpy(self.data, res.data, opgen_nbytes(&res));
        post.residual = &self, post.applied = false;
        if (opgen_portable_convolution_out(&ctx, &x, &w, g->bias ? &b : NULL, (opgen_int_list){st + off, k},
                                           (opgen_int_list){pd + off, k}, (opgen_int_list){dl + off, k}, false,
                                           (opgen_int_list){zero, k}, g->groups, &self))
            return 1;
        if (memcmp(self.data, post.applied ? want.data : out->data, opgen_nbytes(&want)))
            return fprintf(stderr, "fused with a residual in the result's own memory, %s: other bytes than %s\n",
                           post.applied ? "applied" : "not applied",
                           post.applied ? "the kernels'" : "the plain convolution's"),
                   1;
        *residual_runs += post.applied;
    }
    if (par) return 0; /* the caller compares its bytes with the one-thread run's, which met the reference */
    /* float: relative to the result, or to the terms' magnitudes where they
     * cancel (Winograd's transforms add and subtract before the products: its
     * error scales with the terms, about 1e-7 of their sum here) */
    double tol = dt == OPGEN_DTYPE_Double ? 1e-12 : 1e-5, tol_mag = dt == OPGEN_DTYPE_Double ? 0 : 1e-6;
    for (int64_t n = 0; n < g->N; n++)
        for (int64_t o = 0; o < g->O; o++)
            for (int64_t oy = 0; oy < g->OH; oy++)
                for (int64_t ox = 0; ox < g->OW; ox++) {
                    double mag, want = reference(g, &x, &w, &b, n, o, oy, ox, &mag),
                                got = at(out, ((n * g->O + o) * g->OH + oy) * g->OW + ox);
                    if (!(fabs(got - want) <= tol * (1 + fabs(want)) + tol_mag * mag)) {
                        fprintf(stderr, "out[%lld, %lld, %lld, %lld] is %.9g, the reference %.9g\n", (long long)n,
                                (long long)o, (long long)oy, (long long)ox, got, want);
                        return 1;
                    }
                }
    return 0;
}

int main(void) {
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_error err = {0};
    const opgen_parallel *par = NULL, *par3 = NULL; /* 2 threads; 3 (chunks in uneven ranges), best kernels alone */
#ifdef OPGEN_HAVE_POOL
    opgen_pool *pool = opgen_pool_create(2), *pool3 = opgen_pool_create(3);
    par = pool ? opgen_pool_parallel(pool) : NULL;
    par3 = pool3 ? opgen_pool_parallel(pool3) : NULL;
#endif
    int cases = 0, in_place = 0, prepared = 0; /* residual fusions applied in the result's own memory */
    for (int i = 0; cases < 300 && i < 3000; i++) {
        geom g;
        if (!draw(&g)) continue;
        opgen_dtype dt = cases % 3 ? OPGEN_DTYPE_Float : OPGEN_DTYPE_Double;
        opgen_tensor one, two;
        opgen_arena_mark mark = opgen_arena_save(&a);
        int bad = 0, v = 0;
        /* a filter a program's load would transform: every case again with it (the same bytes on any threads) */
        int64_t st[2] = {g.s[0], g.s[1]}, pd[2] = {g.p[0], g.p[1]}, dl[2] = {g.d[0], g.d[1]};
        bool preps =
            !g.one_d && opgen_conv_prepared_bytes((int)dt, g.O, g.C / g.groups, g.KH, g.KW, st, pd, dl, g.groups);
        prepared += preps;
        for (; !bad && v < 3;
             v++) { /* the best micro-kernels the CPU has, then AVX2's and the baseline's where it has more */
            opgen_gemm_use_variant(v == 0 ? -1 : 2 - v);
            for (int prep = 0; !bad && prep <= preps; prep++) {
                bad = run(&g, cases, dt, NULL, prep, &one, &in_place, &a, &err) ||
                      (par && run(&g, cases, dt, par, prep, &two, &in_place, &a, &err));
                if (!bad && par && memcmp(one.data, two.data, opgen_nbytes(&one)))
                    fprintf(stderr, "2 threads wrote other bytes than 1%s\n", prep ? " (filter prepared)" : ""),
                        bad = 1;
                if (!bad && par3 && v == 0 && (bad = run(&g, cases, dt, par3, prep, &two, &in_place, &a, &err)) == 0 &&
                    memcmp(one.data, two.data, opgen_nbytes(&one)))
                    fprintf(stderr, "3 threads wrote other bytes than 1%s\n", prep ? " (filter prepared)" : ""),
                        bad = 1;
            }
        }
        opgen_gemm_use_variant(-1);
        if (bad) {
            fprintf(stderr, "test_conv_paths: with the %s micro-kernels\n",
                    v == 1   ? "best"
                    : v == 2 ? "AVX2 (or lesser)"
                             : "baseline");
            char msg[512];
            opgen_error_format(&err, msg, sizeof msg);
            fprintf(
                stderr,
                "test_conv_paths: case %d: %s N=%lld C=%lld O=%lld H=%lld W=%lld k=%lldx%lld stride=%lld,%lld pad=%lld,%lld dil=%lld,%lld groups=%lld bias=%d %s: %s\n",
                cases, g.one_d ? "1-D" : "2-D", (long long)g.N, (long long)g.C, (long long)g.O, (long long)g.H,
                (long long)g.W, (long long)g.KH, (long long)g.KW, (long long)g.s[0], (long long)g.s[1],
                (long long)g.p[0], (long long)g.p[1], (long long)g.d[0], (long long)g.d[1], (long long)g.groups, g.bias,
                opgen_dtype_name(dt), err.code ? msg : "wrong value");
            return 1;
        }
        opgen_arena_restore(&a, mark);
        cases++;
    }
    printf(
        "test_conv_paths: %d convolutions match the reference with each GEMM micro-kernel the CPU has (best, AVX2, baseline)%s; fused with a batch norm, a residual "
        "and an activation, the kernels' bytes (%d times in the result's own memory); %d again with the filter "
        "prepared\n",
        cases, par ? ", and on 2 threads (3 with the best) the same bytes" : "", in_place, prepared);
    if (!prepared) return fputs("test_conv_paths: no filter was prepared\n", stderr), 1;
    if (!in_place) return fputs("test_conv_paths: no residual was fused in place\n", stderr), 1;
#ifdef OPGEN_HAVE_POOL
    opgen_pool_destroy(pool);
    opgen_pool_destroy(pool3);
#endif
    opgen_arena_release(&a);
    return 0;
}
