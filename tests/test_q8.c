/* The integer kernels (runtime-stubs/kernels/q8.h) against a direct reference:
 * convolutions of many geometries (dense and depthwise, strides, padding,
 * dilation, channel counts around the micro-kernel's blocks, a linear layer as
 * 1x1 pixels) must give the same bytes as int64 sums requantized as q8.h
 * says (nearbyintf of sum * m + b, clamped), on every product variant this
 * CPU has (AVX-512 VNNI with VBMI's integer depthwise, AVX-512 VNNI, AVX-VNNI,
 * AVX2, portable C) and with 1 or 3 threads; add, table lookup, max pooling
 * and a plane's mean likewise. */
#include "check.h"
#include "../runtime-stubs/kernels/q8.h"
#include "opgen/pool.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9E3779B97F4A7C15u;
static int rnd(int lo, int hi) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return lo + (int)(rng % (uint64_t)(hi - lo + 1));
}

typedef struct ccase {
    int64_t N, C, H, W, O, KH, KW, s, p, d;
    bool dw;
    int act;
} ccase;

static void reference(const ccase *c, const opgen_q8_conv_geom *g, const int8_t *x, const int8_t *w,
                      const opgen_q8_filter *f, const opgen_q8_requant *rq, int8_t *y) {
    int64_t Cg = c->dw ? 1 : c->C;
    for (int64_t n = 0; n < c->N; n++)
        for (int64_t o = 0; o < c->O; o++)
            for (int64_t oh = 0; oh < g->OH; oh++)
                for (int64_t ow = 0; ow < g->OW; ow++) {
                    int64_t acc = 0;
                    for (int64_t ci = 0; ci < Cg; ci++)
                        for (int64_t kh = 0; kh < c->KH; kh++)
                            for (int64_t kw = 0; kw < c->KW; kw++) {
                                int64_t ih = oh * c->s - c->p + kh * c->d, iw = ow * c->s - c->p + kw * c->d;
                                int64_t cin = c->dw ? o : ci;
                                int32_t xv = ih < 0 || ih >= c->H || iw < 0 || iw >= c->W
                                                 ? g->zx
                                                 : x[((n * c->C + cin) * c->H + ih) * c->W + iw];
                                acc += (int64_t)(xv - g->zx) * w[((o * Cg + ci) * c->KH + kh) * c->KW + kw];
                            }
                    float t = (float)(int32_t)acc * f->mul[o];
                    t = t + f->bias[o];
                    t = t < rq->qlo ? rq->qlo : t > rq->qhi ? rq->qhi : t;
                    y[((n * c->O + o) * g->OH + oh) * g->OW + ow] = (int8_t)nearbyintf(t);
                }
}

static void conv_case(const ccase *c, const opgen_parallel *par, int variant) {
    int64_t Cg = c->dw ? 1 : c->C, K = Cg * c->KH * c->KW;
    opgen_q8_conv_geom g = {c->N, c->C, c->H,         c->W,         c->KH,        c->KW,
                            0,    0,    {c->s, c->s}, {c->p, c->p}, {c->d, c->d}, rnd(-128, 127)};
    g.OH = (c->H + 2 * c->p - c->d * (c->KH - 1) - 1) / c->s + 1;
    g.OW = (c->W + 2 * c->p - c->d * (c->KW - 1) - 1) / c->s + 1;
    size_t nx = (size_t)(c->N * c->C * c->H * c->W), nw = (size_t)(c->O * K), ny = (size_t)(c->N * c->O * g.OH * g.OW);
    int8_t *x = malloc(nx), *w = malloc(nw), *y = malloc(ny), *want = malloc(ny);
    float *ws = malloc(sizeof(float) * (size_t)c->O), *bias = malloc(sizeof(float) * (size_t)c->O);
    for (size_t i = 0; i < nx; i++) x[i] = (int8_t)rnd(-128, 127);
    for (size_t i = 0; i < nw; i++) w[i] = (int8_t)rnd(-127, 127);
    for (int64_t o = 0; o < c->O; o++) ws[o] = (float)rnd(1, 1000) * 1e-5f, bias[o] = (float)rnd(-500, 500) * 1e-3f;
    void *mem = malloc(opgen_q8_filter_bytes(c->O, Cg, c->KH, c->KW, c->dw));
    opgen_q8_requant rq = {1.0f / 0.05f, rnd(-20, 20), -128, 127, c->act, 0.0f, 6.0f, 0, 0};
    opgen_q8_requant_range(&rq); /* 0 and 6 are exact steps: 0 and 120 past the zero point */
    float lo = c->act ? (float)rq.zp : -128.0f, hi = c->act == 2 && rq.zp < 7 ? (float)rq.zp + 120.0f : 127.0f;
    CHECK(rq.qlo == lo && rq.qhi == hi, "act %d: range [%g, %g], want [%g, %g]", c->act, rq.qlo, rq.qhi, lo, hi);
    opgen_q8_filter f;
    opgen_q8_use_variant(variant);
    opgen_q8_filter_pack(&f, mem, w, c->O, Cg, c->KH, c->KW, c->dw, ws, true, 0.02f, bias, &rq, &g);
    reference(c, &g, x, w, &f, &rq, want);
    void *scratch = malloc(opgen_q8_conv_scratch(&g, &f, par));
    opgen_q8_conv(par, &g, &f, &rq, x, y, scratch);
    size_t bad = 0;
    for (size_t i = 0; i < ny; i++) bad += y[i] != want[i];
    CHECK(!bad, "%s conv N%lld C%lld %lldx%lld -> O%lld k%lldx%lld s%lld p%lld d%lld%s%s threads %d: %zu of %zu differ",
          opgen_q8_variant(), (long long)c->N, (long long)c->C, (long long)c->H, (long long)c->W, (long long)c->O,
          (long long)c->KH, (long long)c->KW, (long long)c->s, (long long)c->p, (long long)c->d,
          c->dw ? " depthwise" : "", f.lanes ? " lanes" : "", par ? par->nthreads : 1, bad, ny);
    /* in place, as a .pte's plan may put a dense convolution's result over its
     * input (rewrite_q8.c): every part reads x before any writes y */
    if (!c->dw && c->N == 1) {
        int8_t *buf = malloc(nx > ny ? nx : ny);
        memcpy(buf, x, nx);
        opgen_q8_conv(par, &g, &f, &rq, buf, buf, scratch);
        bad = 0;
        for (size_t i = 0; i < ny; i++) bad += buf[i] != want[i];
        CHECK(!bad, "%s conv in place C%lld %lldx%lld -> O%lld k%lldx%lld s%lld%s threads %d: %zu of %zu differ",
              opgen_q8_variant(), (long long)c->C, (long long)c->H, (long long)c->W, (long long)c->O, (long long)c->KH,
              (long long)c->KW, (long long)c->s, f.lanes ? " lanes" : "", par ? par->nthreads : 1, bad, ny);
        free(buf);
    }
    free(x), free(w), free(y), free(want), free(ws), free(bias), free(mem), free(scratch);
}

static void elementwise(void) {
    enum { n = 1000 };
    int8_t a[n], b[n], y[n], t[256];
    for (int i = 0; i < n; i++) a[i] = (int8_t)rnd(-128, 127), b[i] = (int8_t)rnd(-128, 127);
    opgen_q8_requant rq = {1.0f / 0.07f, 3, -128, 127, 1, 0, 0, 0, 0};
    opgen_q8_add(n, a, 0.05f, -4, b, 0.03f, 9, &rq, y);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float fa = (float)(a[i] + 4) * 0.05f, fb = (float)(b[i] - 9) * 0.03f;
        bad += y[i] != (int8_t)opgen_q8_quantize(fa + fb, &rq);
    }
    CHECK(!bad, "add: %d of %d differ", bad, n);
    for (int v = 0; v < 256; v++) t[v] = (int8_t)(255 - v);
    opgen_q8_lookup(n, a, t, y);
    bad = 0;
    for (int i = 0; i < n; i++) bad += y[i] != (int8_t)(255 - (uint8_t)a[i]);
    CHECK(!bad, "lookup: %d of %d differ", bad, n);
    /* 3x3 stride 2 padding 1 over 7x9 and 8x10 planes (and a row of 70: two
     * vectors): each window's largest value */
    int64_t k[2] = {3, 3}, s[2] = {2, 2}, p[2] = {1, 1}, d[2] = {1, 1};
    const int shapes[][2] = {{7, 9}, {8, 10}, {3, 70}};
    for (int sh = 0; sh < 3; sh++) {
        int H = shapes[sh][0], W = shapes[sh][1], OH = (H + 1) / 2, OW = (W + 1) / 2;
        opgen_q8_max_pool(2, H, W, a, OH, OW, k, s, p, d, y);
        bad = 0;
        for (int c = 0; c < 2; c++)
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++) {
                    int m = -200;
                    for (int i = 0; i < 3; i++)
                        for (int j = 0; j < 3; j++) {
                            int ih = oh * 2 - 1 + i, iw = ow * 2 - 1 + j;
                            if (ih >= 0 && ih < H && iw >= 0 && iw < W && a[(c * H + ih) * W + iw] > m)
                                m = a[(c * H + ih) * W + iw];
                        }
                    bad += y[(c * OH + oh) * OW + ow] != m;
                }
        CHECK(!bad, "max_pool %dx%d: %d of %d differ", H, W, bad, 2 * OH * OW);
    }
    /* a row wider than the separable pass's buffers: every tap strided */
    enum { WW = 5000 };
    static int8_t wide[2 * WW], wy[WW];
    for (int i = 0; i < 2 * WW; i++) wide[i] = (int8_t)rnd(-128, 127);
    int64_t k2[2] = {2, 3}, s2[2] = {1, 2}, p2[2] = {0, 1};
    opgen_q8_max_pool(1, 2, WW, wide, 1, WW / 2, k2, s2, p2, d, wy);
    bad = 0;
    for (int ow = 0; ow < WW / 2; ow++) {
        int m = -200;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++) {
                int iw = ow * 2 - 1 + j;
                if (iw >= 0 && iw < WW && wide[i * WW + iw] > m) m = wide[i * WW + iw];
            }
        bad += wy[ow] != m;
    }
    CHECK(!bad, "max_pool, a row of %d: %d of %d differ", WW, bad, WW / 2);
    /* mean: planes of 16 with scales that are powers of two, every step exact;
     * plane 0's mean 0.25 is half an output step, rounded to even (0 + zp),
     * plane 1's 0.75 to 2 steps; planes of 49: the dequantized values' float sum */
    int8_t m16[3 * 16], mq[3];
    for (int i = 0; i < 16; i++) m16[i] = (int8_t)(i == 0 ? 5 : 4), m16[16 + i] = (int8_t)(i == 0 ? 7 : 4);
    for (int i = 0; i < 16; i++) m16[32 + i] = (int8_t)rnd(-128, 127);
    opgen_q8_requant mr = {2.0f, -3, -128, 127, 0, 0, 0, 0, 0};
    opgen_q8_mean(3, 16, m16, 4, 4.0f, &mr, mq);
    int sum = 0;
    for (int i = 0; i < 16; i++) sum += m16[32 + i] - 4;
    double want = nearbyint((double)sum * 4.0 / 16.0 * 2.0) - 3;
    want = want < -128 ? -128 : want > 127 ? 127 : want;
    CHECK(mq[0] == -3 && mq[1] == -1 && mq[2] == (int8_t)want, "mean of 16: %d %d %d, not -3 -1 %d", mq[0], mq[1],
          mq[2], (int)want);
    opgen_q8_requant mr2 = {1.0f / 0.031f, 7, -128, 127, 0, 0, 0, 0, 0};
    opgen_q8_mean(6, 49, a, -2, 0.045f, &mr2, y);
    bad = 0;
    for (int c = 0; c < 6; c++) {
        float f = 0.0f;
        for (int i = 0; i < 49; i++) f += (float)(a[c * 49 + i] + 2) * 0.045f;
        int r = opgen_q8_quantize(f / 49.0f, &mr2);
        bad += y[c] < r - 1 || y[c] > r + 1;
    }
    CHECK(!bad, "mean of 49: %d of 6 more than a step from the float sum's", bad);
}

int main(void) {
    const ccase cases[] = {
        {1, 3, 9, 11, 8, 3, 3, 1, 1, 1, false, 1},
        {2, 5, 8, 8, 13, 3, 3, 2, 1, 1, false, 0},
        {1, 16, 7, 7, 6, 1, 1, 1, 0, 1, false, 2},
        {1, 7, 12, 10, 7, 3, 3, 1, 2, 2, false, 0},
        {1, 64, 14, 14, 70, 3, 3, 1, 1, 1, false, 1},
        {3, 33, 1, 1, 10, 1, 1, 1, 0, 1, false, 0},
        {1, 3, 23, 19, 16, 7, 7, 2, 3, 1, false, 1},
        {1, 12, 9, 9, 12, 3, 3, 1, 1, 1, true, 2},
        {2, 10, 11, 8, 10, 3, 3, 2, 1, 1, true, 0},
        {1, 5, 10, 10, 5, 5, 5, 1, 2, 1, true, 1},
        {1, 9, 40, 40, 20, 1, 1, 1, 0, 1, false, 0},
        {1, 8, 2, 70, 9, 1, 1, 1, 0, 1, false, 0}, /* a tile's 64 pixels in one output row */
        {1, 6, 9, 10, 7, 1, 1, 2, 0, 1, false, 1}, /* 1x1 stride 2: one phase plane of four read */
        {1, 9, 20, 20, 9, 1, 1, 2, 0, 1, false, 0},
        /* 1x1 stride 1: one row of H*W pixels, each part transforming its own
           (323 pixels, 7 channels: the last four one short); a 12x15 plane
           split by channels */
        {1, 7, 17, 19, 13, 1, 1, 1, 0, 1, false, 1},
        {1, 10, 12, 15, 20, 1, 1, 1, 0, 1, false, 2},
        {1, 4, 8, 8, 4, 3, 3, 1, 2, 2, true, 0},
        /* depthwise: stride 2 dilation 2, rows past 64 bytes, 7 taps a row (two groups of four),
           stride 5 (past one vpermb: the float planes) */
        {1, 6, 13, 11, 6, 3, 3, 2, 1, 2, true, 1},
        {1, 3, 9, 70, 3, 3, 3, 1, 1, 1, true, 2},
        {1, 4, 15, 17, 4, 7, 7, 2, 3, 1, true, 0},
        {1, 2, 20, 20, 2, 3, 3, 5, 1, 1, true, 0},
        /* depthwise, narrow rows: three runs of 16 a row (the last ragged), 39 runs in
           all (the last group of four short); rows of exactly 16 */
        {1, 5, 13, 37, 5, 3, 3, 1, 1, 1, true, 1},
        {1, 3, 6, 16, 3, 3, 3, 1, 1, 1, true, 0},
        /* rows spread to the plane several a load: four rows of 16 fill it */
        {1, 3, 9, 16, 3, 3, 3, 1, 0, 1, true, 2},
        /* 3x3 columns of 16 down the plane, stride 2, the last column short */
        {1, 4, 10, 50, 4, 3, 3, 2, 1, 1, true, 1},
        /* rows of 64 outputs (a filter of 5 rows: not the 3x3 column walk) */
        {1, 3, 6, 60, 3, 5, 5, 1, 2, 1, true, 0},
        /* depthwise 3x3 stride 1 on planes whose padded rows fit 64 lanes (one
           wide row): 7x7 of 20 channels, 6x8 of two images, 5x6 unpadded */
        {1, 20, 7, 7, 20, 3, 3, 1, 1, 1, true, 2},
        {2, 5, 6, 8, 5, 3, 3, 1, 1, 1, true, 1},
        {1, 3, 5, 6, 3, 3, 3, 1, 0, 1, true, 0},
        /* channels in the lanes: a 7x7 plane of four blocks (the last of 8
           channels, one vector), split by blocks; stride 2; 420 pixels split
           by pixels, 40 channels (three vectors); dilation 2, two images */
        {1, 32, 7, 7, 200, 3, 3, 1, 1, 1, false, 2},
        {1, 20, 17, 18, 64, 3, 3, 2, 1, 1, false, 1},
        {1, 12, 20, 21, 40, 3, 3, 1, 1, 1, false, 0},
        {2, 8, 9, 9, 16, 3, 3, 1, 2, 2, false, 0},
        /* 1x1 on a 7x7 plane in the lanes, three blocks (the last of 22
           channels) split by blocks, each part transforming its own copy */
        {1, 24, 7, 7, 150, 1, 1, 1, 0, 1, false, 1},
        /* ... and a 3x3 stride-2 filter so split: each part's copy of all four phase planes */
        {1, 16, 13, 12, 192, 3, 3, 2, 1, 1, false, 0},
    };
    opgen_pool *pool = opgen_pool_create(3);
    opgen_parallel split = {0}; /* every call split, however small */
    if (pool) split = *opgen_pool_parallel(pool), split.min_work = 1;
    const opgen_parallel *pars[] = {NULL, pool ? &split : NULL};
    /* each filter packed as the variant would have it, then with its channels
     * in the lanes (dense filters: any variant computes that layout) */
    for (int lanes = -1; lanes <= 1; lanes += 2)
        for (int v = 4; v >= 0; v--)
            for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
                for (int t = 0; t < 2; t++)
                    if ((t == 0 || pars[t]) && (lanes < 0 || !cases[i].dw)) {
                        opgen_q8_use_lanes(lanes);
                        conv_case(&cases[i], pars[t], v);
                    }
    opgen_q8_use_lanes(-1);
    opgen_q8_use_variant(0); /* portable C, then the best this CPU has */
    elementwise();
    opgen_q8_use_variant(-1);
    elementwise();
    if (pool) opgen_pool_destroy(pool);
    printf("q8: %d passed, %d failed (product variants down from %s)\n", checks - failures, failures,
           opgen_q8_variant());
    return failures != 0;
}
