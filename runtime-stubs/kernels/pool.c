/* 2-D pooling: max_pool2d_with_indices and avg_pool2d over 3-d (C, H, W) or 4-d
 * (N, C, H, W) inputs, typed loops per plane. As ATen: a NaN in a window wins the
 * max (the last NaN, for the index); the average divides the window's sum (in the input's type) by the window
 * clipped to the padded input, or to the input (count_include_pad=False), or by
 * divisor_override. */
#include "opgen/loops.h"
#include "phases.h"
#include "opgen_registry.h"

static int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
    int64_t num = in + 2 * p - d * (k - 1) - 1;
    if (num < 0) return 0; /* the window is larger than the padded input (C's / would round -1/3 up to 0) */
    int64_t o = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
    /* the last window must start inside the input or its left padding */
    if (ceil_mode && (o - 1) * s >= in + p) o--;
    return o;
}

typedef struct pool_geom {
    int64_t k[2], s[2], p[2], d[2], sizes[4];
    int32_t hd; /* the H dimension */
    int64_t planes, H, W, OH, OW;
} pool_geom;

/* ATen pools an empty batch (to an empty result) but refuses a planes' dimension
 * of size 0: every dimension but an optional batch one must be non-empty. */
static opgen_status pool_nonempty(opgen_ctx *ctx, const opgen_tensor *self, int32_t k) {
    for (int32_t i = self->dim == k + 2 ? 1 : 0; i < self->dim; i++)
        if (!self->sizes[i])
            return OPGEN_FAIL(
                ctx, OPGEN_E_SHAPE,
                "%s: dimension %d of the input is empty; only a batch dimension may be (a %d-d or %d-d input)", ctx->op,
                (int)i, (int)(k + 1), (int)(k + 2));
    return OPGEN_OK;
}

/* 3-d (C, H, W) or 4-d (N, C, H, W): the planes and their size */
static opgen_status pool_shape(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list kernel_size,
                               opgen_int_list stride, opgen_int_list padding, bool ceil_mode, pool_geom *g) {
    if (self->dim != 3 && self->dim != 4)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected a 3-d or 4-d input, got %d-d", ctx->op, (int)self->dim);
    if (pool_nonempty(ctx, self, 2)) return ctx->err->code;
    if (opgen_int_pair(ctx, kernel_size, "kernel_size", -1, g->k) || opgen_int_pair(ctx, padding, "padding", -1, g->p))
        return ctx->err->code;
    if (!stride.len)
        g->s[0] = g->k[0], g->s[1] = g->k[1]; /* stride defaults to the kernel size */
    else if (opgen_int_pair(ctx, stride, "stride", -1, g->s))
        return ctx->err->code;
    if (g->k[0] < 1 || g->k[1] < 1 || g->s[0] < 1 || g->s[1] < 1)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: kernel size and stride must be positive", ctx->op);
    if (g->p[0] < 0 || g->p[1] < 0 || g->p[0] * 2 > g->k[0] || g->p[1] * 2 > g->k[1])
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: padding must be at most half the kernel size", ctx->op);
    g->hd = self->dim - 2;
    g->H = self->sizes[g->hd], g->W = self->sizes[g->hd + 1];
    memcpy(g->sizes, self->sizes, sizeof(int64_t) * (size_t)self->dim);
    g->OH = g->sizes[g->hd] = pool_out(g->H, g->k[0], g->s[0], g->p[0], g->d[0], ceil_mode);
    g->OW = g->sizes[g->hd + 1] = pool_out(g->W, g->k[1], g->s[1], g->p[1], g->d[1], ceil_mode);
    if (g->OH < 1 || g->OW < 1) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the output would be empty", ctx->op);
    int64_t hw = g->H * g->W;
    g->planes = hw ? opgen_numel(self) / hw : 0;
    return OPGEN_OK;
}

/* The first element of plane pl (planes run over N then C). */
static int64_t plane_base(const opgen_tensor *t, int64_t pl) {
    return t->dim == 4 ? (pl / t->sizes[1]) * t->strides[0] + (pl % t->sizes[1]) * t->strides[1] : pl * t->strides[0];
}

/* max pooling of planes [lo, hi) of part `part`: each window's first element,
 * then the later ones that are larger or NaN (the last NaN wins, as in ATen),
 * chosen without branches (which a pool's data makes unpredictable). */
typedef struct max_job {
    const pool_geom *g;
    const opgen_tensor *self;
    opgen_tensor *out, *indices;
    int parts;
    bool values_only; /* nothing reads the indices (opgen_ctx.unread): a floating type's values alone */
    char *scratch;    /* MAX_WIDE's buffers, per bytes a part */
    size_t per;
} max_job;
/* One tap over a run of windows: the first largest value wins, a NaN at once
 * (the last NaN, as ATen's loop). The index is kept as 32 bits while the run is
 * worked (the loop then vectorizes at the values' width), 64 when stored. */
#define MAX_TAPS(T, LO, HI, V, INDEX)                                   \
    for (int64_t xo = LO; xo < HI; xo++) {                              \
        T v = V;                                                        \
        bool take = (idx[xo - x0] < 0) | (v > bst[xo - x0]) | (v != v); \
        bst[xo - x0] = take ? v : bst[xo - x0];                         \
        idx[xo - x0] = take ? (int32_t)(INDEX) : idx[xo - x0];          \
    }
/* The same without the index, where nothing reads it (opgen_ctx.unread), for a
 * floating type: every window starts at -infinity. */
#define MAX_VALUES(T, LO, HI, V)                                           \
    for (int64_t xo = LO; xo < HI; xo++) {                                 \
        T v = V;                                                           \
        bst[xo - x0] = ((v > bst[xo - x0]) | (v != v)) ? v : bst[xo - x0]; \
    }
#define NAME max_part_b8
#define T bool
#include "pool_max.inc"
#define NAME max_part_u16
#define T uint16_t
#include "pool_max.inc"
#define NAME max_part_u8
#define T uint8_t
#include "pool_max.inc"
#define NAME max_part_i8
#define T int8_t
#include "pool_max.inc"
#define NAME max_part_i16
#define T int16_t
#include "pool_max.inc"
#define NAME max_part_i32
#define T int32_t
#include "pool_max.inc"
#define NAME max_part_i64
#define T int64_t
#include "pool_max.inc"
#define NAME max_part_f32
#define T float
#include "pool_max.inc"
#define NAME max_part_f64
#define T double
#include "pool_max.inc"
#define MAX_PART_OF(T)               \
    _Generic((T)0, bool              \
             : max_part_b8, uint16_t \
             : max_part_u16, uint8_t \
             : max_part_u8, int8_t   \
             : max_part_i8, int16_t  \
             : max_part_i16, int32_t \
             : max_part_i32, int64_t \
             : max_part_i64, float   \
             : max_part_f32, double  \
             : max_part_f64)

/* Values alone (nothing reads the indices) of a floating type, where the build is
 * for speed: a plane is copied once into phase planes padded with -infinity
 * (plane (py, px) holds the padded input's rows py, py + s0, ... and columns px,
 * px + s1, ..., as far as the windows reach), so that a tap (ky, kx) of every
 * window at once is one plane read from row ky*d0 / s0 and column kx*d1 / s1 on:
 * one long vector loop per tap over the "wide" output (rows Wq long, the first
 * OW of each the windows'), no border cases, no gathers. The taps go in the
 * windows' order, so the same value (the last NaN) wins. */
static void max_phase_dims(const pool_geom *g, int64_t *Hq, int64_t *Wq) {
    int64_t hp = (g->OH - 1) * g->s[0] + (g->k[0] - 1) * g->d[0] + 1,
            wp = (g->OW - 1) * g->s[1] + (g->k[1] - 1) * g->d[1] + 1;
    *Hq = (hp + g->s[0] - 1) / g->s[0], *Wq = (wp + g->s[1] - 1) / g->s[1];
}
/* A part's buffers: the phase planes and the wide output, 64-byte aligned. */
static size_t max_phase_bytes(const pool_geom *g, size_t es) {
    int64_t Hq, Wq;
    max_phase_dims(g, &Hq, &Wq);
    return ((size_t)(g->s[0] * g->s[1] * Hq * Wq + (g->OH - 1) * Wq + g->OW) * es + 63) & ~(size_t)63;
}
/* The window's running maximum a taking tap t: t if larger or NaN (the first NaN wins). */
#define MAX_OR_NAN(t, a) ((((t) > (a)) | ((t) != (t))) ? (t) : (a))
#if defined(__GNUC__) || defined(__clang__)
#define UNROLL_TAPS _Pragma("GCC unroll 9")
#else
#define UNROLL_TAPS
#endif
#define MAX_WIDE(NAME, T)                                                                                        \
    OPGEN_DISPATCHED static void NAME(void *arg, int part) {                                                     \
        const max_job *j = arg;                                                                                  \
        const pool_geom g = *j->g;                                                                               \
        int64_t sh = j->self->strides[g.hd], sw = j->self->strides[g.hd + 1], s0 = g.s[0], s1 = g.s[1], Hq, Wq;  \
        max_phase_dims(&g, &Hq, &Wq);                                                                            \
        int64_t wide = (g.OH - 1) * Wq + g.OW;                                                                   \
        T *ph = (T *)(void *)(j->scratch + (size_t)part * j->per), *acc = ph + s0 * s1 * Hq * Wq;                \
        for (int64_t pl = g.planes * part / j->parts; pl < g.planes * (part + 1) / j->parts; pl++) {             \
            const T *x = (const T *)j->self->data + plane_base(j->self, pl);                                     \
            OPGEN_FILL_PHASES(T, x, sh, sw, g.H, g.W, s0, s1, g.p[0], g.p[1], Hq, Wq, (T)-INFINITY, ph)          \
            if (g.k[0] == 3 && g.k[1] == 3) { /* ResNet's: the nine taps in registers, in the same order */      \
                const T *restrict t[9];                                                                          \
                for (int k = 0; k < 9; k++)                                                                      \
                    t[k] = ph + opgen_phase_offset(k / 3 * g.d[0], k % 3 * g.d[1], s0, s1, Hq, Wq);              \
                for (int64_t q = 0; q < wide; q++) {                                                             \
                    T m = t[0][q];                                                                               \
                    UNROLL_TAPS for (int k = 1; k < 9; k++) m = MAX_OR_NAN(t[k][q], m);                          \
                    acc[q] = m;                                                                                  \
                }                                                                                                \
            } else                                                                                               \
                for (int64_t ky = 0; ky < g.k[0]; ky++)                                                          \
                    for (int64_t kx = 0; kx < g.k[1]; kx++) {                                                    \
                        const T *restrict t = ph + opgen_phase_offset(ky * g.d[0], kx * g.d[1], s0, s1, Hq, Wq); \
                        if (!ky && !kx) /* the first tap: -infinity, then it (so itself) */                      \
                            for (int64_t q = 0; q < wide; q++) acc[q] = t[q];                                    \
                        else                                                                                     \
                            for (int64_t q = 0; q < wide; q++) acc[q] = MAX_OR_NAN(t[q], acc[q]);                \
                    }                                                                                            \
            T *restrict best = (T *)j->out->data + pl * g.OH * g.OW;                                             \
            for (int64_t oy = 0; oy < g.OH; oy++)                                                                \
                for (int64_t ox = 0; ox < g.OW; ox++) best[oy * g.OW + ox] = acc[oy * Wq + ox];                  \
        }                                                                                                        \
    }
MAX_WIDE(max_wide_f32, float)
MAX_WIDE(max_wide_f64, double)
#include "pool_max_direct.inc" /* MAX3S2 on x86-64: ResNet's 3x3 of stride 2 straight from the input */

/* Half or BFloat16: this kernel on float copies, rounded once. */
static opgen_status max_pool2d_reduced(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list kernel_size,
                                       opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation,
                                       bool ceil_mode, opgen_tensor *out, opgen_tensor *indices) {
    opgen_tensor w_self, y_out;
    opgen_standin(&y_out);
    opgen_status st = opgen_widen(ctx, self, &w_self);
    if (!st)
        st = opgen_portable_max_pool2d_with_indices_out(ctx, &w_self, kernel_size, stride, padding, dilation, ceil_mode,
                                                        &y_out, indices);
    if (!st) st = opgen_narrow(ctx, out, self->dtype, &y_out);
    return st;
}

opgen_status opgen_portable_max_pool2d_with_indices_out(opgen_ctx *ctx, const opgen_tensor *self,
                                                        opgen_int_list kernel_size, opgen_int_list stride,
                                                        opgen_int_list padding, opgen_int_list dilation, bool ceil_mode,
                                                        opgen_tensor *out, opgen_tensor *indices) {
    uint32_t mask = OPGEN_WITH_FLOAT(OPGEN_KERNEL_DTYPES_opgen_portable_max_pool2d_with_indices_out);
    if (OPGEN_REDUCED(mask, self->dtype))
        return max_pool2d_reduced(ctx, self, kernel_size, stride, padding, dilation, ceil_mode, out, indices);
    pool_geom g = {0};
    if (opgen_int_pair(ctx, dilation, "dilation", 1, g.d)) return ctx->err->code;
    if (g.d[0] < 1 || g.d[1] < 1) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: dilation must be positive", ctx->op);
    if (pool_shape(ctx, self, kernel_size, stride, padding, ceil_mode, &g)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    if (g.H * g.W > INT32_MAX) /* the loop keeps indices in 32 bits */
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID,
                          "%s: planes of more than 2^31 - 1 elements (%lld x %lld) are not supported", ctx->op,
                          (long long)g.H, (long long)g.W);
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, g.sizes);
    if (!st) st = opgen_out(ctx, indices, OPGEN_DTYPE_Long, self->dim, g.sizes);
    if (st) return st;
    /* indices nothing reads (opgen_ctx.unread, bit 1) are left unwritten, for a
     * floating type (its windows start at -infinity) */
    bool floating = self->dtype == OPGEN_DTYPE_Float || self->dtype == OPGEN_DTYPE_Double;
    max_job j = {&g, self, out, indices, 1, ctx->unread & 2u && floating, NULL, 0};
    j.parts = opgen_parallel_parts_for(ctx->par, (double)opgen_numel(out) * (double)(g.k[0] * g.k[1]), 65536.0);
    if (j.parts > g.planes) j.parts = (int)g.planes;
    /* MAX_WIDE's buffers, asked for alike at load (when what is read is not known yet) and at run */
    if (OPGEN_SPEED_PATHS && floating) {
        j.per = max_phase_bytes(&g, (size_t)opgen_dtype_size(self->dtype));
        j.scratch = opgen_scratch(ctx, j.per * (size_t)j.parts + 64);
        if (!ctx->meta && !j.scratch) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
        j.scratch = (char *)(((uintptr_t)j.scratch + 63) & ~(uintptr_t)63);
    }
    if (ctx->meta) return OPGEN_OK;
#ifdef MAX3S2
    if (j.values_only && self->dtype == OPGEN_DTYPE_Float && max3s2(&g, self->strides[g.hd + 1])) {
        opgen_parallel_for(ctx->par, j.parts, MAX3S2, &j);
        return OPGEN_OK;
    }
#endif
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        if (OPGEN_SPEED_PATHS && j.values_only && OPGEN_IS_FLOAT_T(T))
            opgen_parallel_for(ctx->par, j.parts, _Generic((T)0, double : max_wide_f64, default : max_wide_f32), &j);
        else
            opgen_parallel_for(ctx->par, j.parts, MAX_PART_OF(T), &j);
    })
    return OPGEN_OK;
}

/* Half or BFloat16: this kernel on float copies, rounded once. */
static opgen_status avg_pool2d_reduced(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list kernel_size,
                                       opgen_int_list stride, opgen_int_list padding, bool ceil_mode,
                                       bool count_include_pad, const int64_t *divisor_override, opgen_tensor *out) {
    opgen_tensor w_self, y_out;
    opgen_standin(&y_out);
    opgen_status st = opgen_widen(ctx, self, &w_self);
    if (!st)
        st = opgen_portable_avg_pool2d_out(ctx, &w_self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                           divisor_override, &y_out);
    if (!st) st = opgen_narrow(ctx, out, self->dtype, &y_out);
    return st;
}

opgen_status opgen_portable_avg_pool2d_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list kernel_size,
                                           opgen_int_list stride, opgen_int_list padding, bool ceil_mode,
                                           bool count_include_pad, const int64_t *divisor_override, opgen_tensor *out) {
    uint32_t mask = OPGEN_WITH_FLOAT(OPGEN_KERNEL_DTYPES_opgen_portable_avg_pool2d_out);
    if (OPGEN_REDUCED(mask, self->dtype))
        return avg_pool2d_reduced(ctx, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                  divisor_override, out);
    pool_geom g = {.d = {1, 1}};
    if (pool_shape(ctx, self, kernel_size, stride, padding, ceil_mode, &g)) return ctx->err->code;
    if (divisor_override && *divisor_override == 0)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: divisor must not be zero", ctx->op);
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, g.sizes);
    if (st || ctx->meta) return st;
    int64_t sh = self->strides[g.hd], sw = self->strides[g.hd + 1];
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        T *o = (T *)out->data;
        for (int64_t pl = 0; pl < g.planes; pl++) {
            const T *x = (const T *)self->data + plane_base(self, pl);
            for (int64_t y = 0; y < g.OH; y++)
                for (int64_t xo = 0; xo < g.OW; xo++) {
                    /* ATen: the window clipped to the padded input, then to the input */
                    int64_t y0 = y * g.s[0] - g.p[0], x0 = xo * g.s[1] - g.p[1];
                    int64_t y1 = y0 + g.k[0] < g.H + g.p[0] ? y0 + g.k[0] : g.H + g.p[0],
                            x1 = x0 + g.k[1] < g.W + g.p[1] ? x0 + g.k[1] : g.W + g.p[1];
                    int64_t pool = (y1 - y0) * (x1 - x0);
                    y0 = y0 < 0 ? 0 : y0, x0 = x0 < 0 ? 0 : x0, y1 = y1 > g.H ? g.H : y1, x1 = x1 > g.W ? g.W : x1;
                    T sum = 0;
                    for (int64_t iy = y0; iy < y1; iy++)
                        for (int64_t ixx = x0; ixx < x1; ixx++) sum += x[iy * sh + ixx * sw];
                    int64_t div = divisor_override    ? *divisor_override
                                  : count_include_pad ? pool
                                                      : (y1 - y0) * (x1 - x0);
                    o[(pl * g.OH + y) * g.OW + xo] = div ? sum / (T)div : OPGEN_NAN(T);
                }
        }
    })
    return OPGEN_OK;
}

/* Adaptive average pooling of the last k (1, 2 or 3) dimensions: output cell o of
 * m over n inputs averages [floor(o * n / m), ceil((o + 1) * n / m)), summed in
 * the input's type (ATen's order: depth, height, width). */
OPGEN_SPECIALIZED opgen_status adaptive_avg(opgen_ctx *ctx, uint32_t mask, int32_t k, const opgen_tensor *self,
                                            opgen_int_list output_size, opgen_tensor *out) {
    if ((int32_t)output_size.len != k)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: output_size must have %d values", ctx->op, (int)k);
    if (self->dim != k + 1 && self->dim != k + 2)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected a %d-d or %d-d input, got %d-d", ctx->op, (int)(k + 1),
                          (int)(k + 2), (int)self->dim);
    int32_t b = self->dim - k;
    int64_t sizes[OPGEN_MAX_DIM], n[3] = {1, 1, 1}, m[3] = {1, 1, 1}, nb = 1;
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->dim);
    for (int32_t d = 0; d < b; d++) nb *= self->sizes[d];
    for (int32_t j = 0; j < k; j++) {
        int64_t o = output_size.data[j];
        if (o < 0 || o > ((int64_t)1 << 30))
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: output size %lld is out of range", ctx->op, (long long)o);
        if (self->sizes[b + j] == 0 && o)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: dimension %d of the input is empty", ctx->op, (int)(b + j));
        sizes[b + j] = o, n[3 - k + j] = self->sizes[b + j], m[3 - k + j] = o;
    }
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, sizes);
    opgen_tensor x;
    if (st || opgen_contiguous(ctx, self, &x) || ctx->meta) return st ? st : ctx->err->code;
    OPGEN_FLOAT_SWITCH(mask, self->dtype, ctx, T, {
        const T *xs = x.data;
        T *y = out->data;
        for (int64_t bi = 0; bi < nb; bi++, xs += n[0] * n[1] * n[2])
            for (int64_t o0 = 0; o0 < m[0]; o0++)
                for (int64_t o1 = 0; o1 < m[1]; o1++)
                    for (int64_t o2 = 0; o2 < m[2]; o2++) {
                        int64_t s0 = o0 * n[0] / m[0], e0 = ((o0 + 1) * n[0] + m[0] - 1) / m[0];
                        int64_t s1 = o1 * n[1] / m[1], e1 = ((o1 + 1) * n[1] + m[1] - 1) / m[1];
                        int64_t s2 = o2 * n[2] / m[2], e2 = ((o2 + 1) * n[2] + m[2] - 1) / m[2];
                        T sum = 0;
                        for (int64_t i0 = s0; i0 < e0; i0++)
                            for (int64_t i1 = s1; i1 < e1; i1++)
                                for (int64_t i2 = s2; i2 < e2; i2++) sum += xs[(i0 * n[1] + i1) * n[2] + i2];
                        *y++ = sum / (T)((e0 - s0) * (e1 - s1) * (e2 - s2));
                    }
    })
    return OPGEN_OK;
}

/* Half and BFloat16 in float, rounded once (ATen's opmath) */
OPGEN_SPECIALIZED opgen_status adaptive_avg_any(opgen_ctx *ctx, uint32_t mask, int32_t k, const opgen_tensor *self,
                                                opgen_int_list output_size, opgen_tensor *out) {
    if (!OPGEN_REDUCED(mask, self->dtype)) return adaptive_avg(ctx, mask, k, self, output_size, out);
    opgen_tensor x, y;
    opgen_standin(&y);
    opgen_status st = opgen_widen(ctx, self, &x);
    if (!st) st = adaptive_avg(ctx, OPGEN_AS_FLOAT(mask), k, &x, output_size, &y);
    return st ? st : opgen_narrow(ctx, out, self->dtype, &y);
}

opgen_status opgen_portable_adaptive_avg_pool1d_out(opgen_ctx *ctx, const opgen_tensor *self,
                                                    opgen_int_list output_size, opgen_tensor *out) {
    return adaptive_avg_any(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_adaptive_avg_pool1d_out, 1, self, output_size, out);
}
opgen_status opgen_portable__adaptive_avg_pool2d_out(opgen_ctx *ctx, const opgen_tensor *self,
                                                     opgen_int_list output_size, opgen_tensor *out) {
    return adaptive_avg_any(ctx, OPGEN_KERNEL_DTYPES_opgen_portable__adaptive_avg_pool2d_out, 2, self, output_size,
                            out);
}
opgen_status opgen_portable__adaptive_avg_pool3d_out(opgen_ctx *ctx, const opgen_tensor *self,
                                                     opgen_int_list output_size, opgen_tensor *out) {
    return adaptive_avg_any(ctx, OPGEN_KERNEL_DTYPES_opgen_portable__adaptive_avg_pool3d_out, 3, self, output_size,
                            out);
}

/* avg_pool1d, avg_pool3d and max_pool3d_with_indices: the 2-d rules over the
 * last k dimensions (k = 1 or 3), on a contiguous copy, the dimensions padded to
 * three (a missing one of size 1, kernel 1). */
typedef struct pool_nd {
    int64_t k[3], s[3], p[3], d[3], n[3], m[3], planes;
    int64_t sizes[OPGEN_MAX_DIM];
} pool_nd;

static opgen_status pool_nd_shape(opgen_ctx *ctx, const opgen_tensor *self, int32_t k, opgen_int_list kernel_size,
                                  opgen_int_list stride, opgen_int_list padding, const opgen_int_list *dilation,
                                  bool ceil_mode, pool_nd *g) {
    if (self->dim != k + 1 && self->dim != k + 2)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected a %d-d or %d-d input, got %d-d", ctx->op, (int)(k + 1),
                          (int)(k + 2), (int)self->dim);
    if (pool_nonempty(ctx, self, k)) return ctx->err->code;
    const opgen_int_list *ls[4] = {&kernel_size, &stride, &padding, dilation};
    int64_t *vs[4] = {g->k, g->s, g->p, g->d};
    const char *what[4] = {"kernel_size", "stride", "padding", "dilation"};
    for (int a = 0; a < 4; a++) {
        const opgen_int_list *l = ls[a];
        for (int32_t j = 0; j < 3; j++) vs[a][j] = a == 2 ? 0 : 1;
        if (!l || (a == 1 && !l->len)) continue; /* stride defaults to the kernel size, below */
        if (l->len != 1 && (int32_t)l->len != k)
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %s must be one value or %d", ctx->op, what[a], (int)k);
        for (int32_t j = 0; j < k; j++) {
            int64_t v = l->data[l->len == 1 ? 0 : j];
            if (v < 0 || v > ((int64_t)1 << 30))
                return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %s %lld is out of range", ctx->op, what[a], (long long)v);
            vs[a][3 - k + j] = v;
        }
    }
    if (!stride.len) memcpy(g->s, g->k, sizeof g->s);
    for (int32_t j = 0; j < 3; j++) {
        if (g->k[j] < 1 || g->s[j] < 1 || g->d[j] < 1)
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: kernel size, stride and dilation must be positive", ctx->op);
        if (g->p[j] * 2 > g->k[j])
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: padding must be at most half the kernel size", ctx->op);
    }
    int32_t b = self->dim - k;
    memcpy(g->sizes, self->sizes, sizeof(int64_t) * (size_t)self->dim);
    g->planes = 1;
    for (int32_t d = 0; d < b; d++) g->planes *= self->sizes[d];
    for (int32_t j = 0; j < 3; j++) {
        g->n[j] = j < 3 - k ? 1 : self->sizes[b + j - (3 - k)];
        g->m[j] = pool_out(g->n[j], g->k[j], g->s[j], g->p[j], g->d[j], ceil_mode);
        if (g->m[j] < 1) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the output would be empty", ctx->op);
        if (j >= 3 - k) g->sizes[b + j - (3 - k)] = g->m[j];
    }
    return OPGEN_OK;
}

OPGEN_SPECIALIZED opgen_status avg_pool_nd(opgen_ctx *ctx, uint32_t mask, int32_t k, const opgen_tensor *self,
                                           opgen_int_list kernel_size, opgen_int_list stride, opgen_int_list padding,
                                           bool ceil_mode, bool count_include_pad, const int64_t *divisor_override,
                                           opgen_tensor *out) {
    pool_nd g;
    if (pool_nd_shape(ctx, self, k, kernel_size, stride, padding, NULL, ceil_mode, &g)) return ctx->err->code;
    if (divisor_override && *divisor_override == 0)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: divisor must not be zero", ctx->op);
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, g.sizes);
    opgen_tensor x;
    if (st || opgen_contiguous(ctx, self, &x) || ctx->meta) return st ? st : ctx->err->code;
    OPGEN_FLOAT_SWITCH(mask, self->dtype, ctx, T, {
        const T *xs = x.data;
        T *y = out->data;
        for (int64_t pl = 0; pl < g.planes; pl++, xs += g.n[0] * g.n[1] * g.n[2])
            for (int64_t o0 = 0; o0 < g.m[0]; o0++)
                for (int64_t o1 = 0; o1 < g.m[1]; o1++)
                    for (int64_t o2 = 0; o2 < g.m[2]; o2++) {
                        int64_t lo[3], hi[3], o[3] = {o0, o1, o2}, pool = 1, real = 1;
                        for (int j = 0; j < 3; j++) { /* ATen: clipped to the padded input, then to the input */
                            lo[j] = o[j] * g.s[j] - g.p[j];
                            hi[j] = lo[j] + g.k[j] < g.n[j] + g.p[j] ? lo[j] + g.k[j] : g.n[j] + g.p[j];
                            pool *= hi[j] - lo[j];
                            lo[j] = lo[j] < 0 ? 0 : lo[j], hi[j] = hi[j] > g.n[j] ? g.n[j] : hi[j];
                            real *= hi[j] - lo[j];
                        }
                        T sum = 0;
                        for (int64_t i0 = lo[0]; i0 < hi[0]; i0++)
                            for (int64_t i1 = lo[1]; i1 < hi[1]; i1++)
                                for (int64_t i2 = lo[2]; i2 < hi[2]; i2++) sum += xs[(i0 * g.n[1] + i1) * g.n[2] + i2];
                        int64_t div = divisor_override ? *divisor_override : count_include_pad ? pool : real;
                        *y++ = div ? sum / (T)div : OPGEN_NAN(T);
                    }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_avg_pool1d_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list kernel_size,
                                           opgen_int_list stride, opgen_int_list padding, bool ceil_mode,
                                           bool count_include_pad, opgen_tensor *out) {
    return avg_pool_nd(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_avg_pool1d_out, 1, self, kernel_size, stride, padding,
                       ceil_mode, count_include_pad, NULL, out);
}
opgen_status opgen_portable_avg_pool3d_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list kernel_size,
                                           opgen_int_list stride, opgen_int_list padding, bool ceil_mode,
                                           bool count_include_pad, const int64_t *divisor_override, opgen_tensor *out) {
    return avg_pool_nd(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_avg_pool3d_out, 3, self, kernel_size, stride, padding,
                       ceil_mode, count_include_pad, divisor_override, out);
}

/* the max and its index in the flattened D*H*W input plane; NaN wins (the last) */
opgen_status opgen_portable_max_pool3d_with_indices_out(opgen_ctx *ctx, const opgen_tensor *self,
                                                        opgen_int_list kernel_size, opgen_int_list stride,
                                                        opgen_int_list padding, opgen_int_list dilation, bool ceil_mode,
                                                        opgen_tensor *out, opgen_tensor *indices) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_max_pool3d_with_indices_out;
    pool_nd g;
    if (pool_nd_shape(ctx, self, 3, kernel_size, stride, padding, &dilation, ceil_mode, &g)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, g.sizes);
    if (!st) st = opgen_out(ctx, indices, OPGEN_DTYPE_Long, self->dim, g.sizes);
    opgen_tensor x;
    if (st || opgen_contiguous(ctx, self, &x) || ctx->meta) return st ? st : ctx->err->code;
    int64_t *ix = indices->data;
    OPGEN_REAL_SWITCH(mask, self->dtype, ctx, T, {
        const T *xs = x.data;
        T *y = out->data;
        for (int64_t pl = 0; pl < g.planes; pl++, xs += g.n[0] * g.n[1] * g.n[2])
            for (int64_t o0 = 0; o0 < g.m[0]; o0++)
                for (int64_t o1 = 0; o1 < g.m[1]; o1++)
                    for (int64_t o2 = 0; o2 < g.m[2]; o2++) {
                        T best = 0;
                        int64_t at = -1, o[3] = {o0, o1, o2}, i[3];
                        for (int64_t k0 = 0; k0 < g.k[0]; k0++)
                            for (int64_t k1 = 0; k1 < g.k[1]; k1++)
                                for (int64_t k2 = 0; k2 < g.k[2]; k2++) {
                                    int64_t kk[3] = {k0, k1, k2};
                                    bool in = true;
                                    for (int j = 0; j < 3; j++) {
                                        i[j] = o[j] * g.s[j] - g.p[j] + kk[j] * g.d[j];
                                        in = in && i[j] >= 0 && i[j] < g.n[j];
                                    }
                                    if (!in) continue;
                                    int64_t flat = (i[0] * g.n[1] + i[1]) * g.n[2] + i[2];
                                    T v = xs[flat];
                                    if (at < 0 || v > best || v != v) best = v, at = flat;
                                }
                        *y++ = best;
                        *ix++ = at;
                    }
    })
    return OPGEN_OK;
}
