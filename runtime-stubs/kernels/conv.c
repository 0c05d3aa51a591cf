/* aten::convolution in every form ATen's takes, Float and Double: 1-, 2- and
 * 3-D, transposed (with output_padding), grouped, dilated, strided and padded.
 * 2-D (and 1-D, as 2-D of height 1) never write an im2col matrix: a 1x1
 * convolution (no padding) is one GEMM per image and group, its input read in
 * place (strided, the pixels it reads gathered first); any other reads im2col's
 * rows in place as shifts of the input's zero-padded phase planes
 * (conv_shifted), or, for very narrow inputs, has the GEMM pack them block by
 * block from the input (im2col_panel); a float 3x3 of stride 1 over enough
 * channels is Winograd's F(2x2, 3x3) (conv_winograd.inc); a depthwise one
 * (one input channel per group) works each tap over the same planes. 3-D and
 * transposed convolutions are direct loops over the output (or, transposed,
 * scattered from the input). */
#include "chunks.h"
#include "conv.h"
#include "gemm.h"
#include "phases.h"
#include "opgen/loops.h"
#include "opgen_registry.h"

/* The convolution's geometry: N C H W in, O Cg KH KW weight, OH OW out. */
typedef struct conv_geom {
    int64_t N, C, H, W, O, Cg, KH, KW, OH, OW, groups, s[2], p[2], d[2];
} conv_geom;

static opgen_status conv_geometry(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight,
                                  const opgen_tensor *bias, opgen_int_list stride, opgen_int_list padding,
                                  opgen_int_list dilation, int64_t groups, conv_geom *g) {
    if (opgen_int_pair(ctx, stride, "stride", -1, g->s) || opgen_int_pair(ctx, padding, "padding", -1, g->p) ||
        opgen_int_pair(ctx, dilation, "dilation", -1, g->d))
        return ctx->err->code;
    g->N = input->sizes[0], g->C = input->sizes[1], g->H = input->sizes[2], g->W = input->sizes[3];
    g->O = weight->sizes[0], g->Cg = weight->sizes[1], g->KH = weight->sizes[2], g->KW = weight->sizes[3],
    g->groups = groups;
    if (groups < 1 || g->C % groups || g->O % groups)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %lld groups do not divide %lld input and %lld output channels",
                          ctx->op, (long long)groups, (long long)g->C, (long long)g->O);
    if (g->Cg != g->C / groups)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: weight has %lld input channels per group, the input %lld", ctx->op,
                          (long long)g->Cg, (long long)(g->C / groups));
    if (g->s[0] < 1 || g->s[1] < 1 || g->d[0] < 1 || g->d[1] < 1 || g->p[0] < 0 || g->p[1] < 0)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: stride and dilation must be positive, padding non-negative",
                          ctx->op);
    if (bias && (bias->dim != 1 || bias->sizes[0] != g->O))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: bias must have %lld elements", ctx->op, (long long)g->O);
    if (input->dtype != weight->dtype || (bias && bias->dtype != input->dtype))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: input, weight and bias must have one dtype", ctx->op);
    int64_t nh = g->H + 2 * g->p[0] - g->d[0] * (g->KH - 1) - 1, nw = g->W + 2 * g->p[1] - g->d[1] * (g->KW - 1) - 1;
    g->OH = nh < 0 ? 0 : nh / g->s[0] + 1, g->OW = nw < 0 ? 0 : nw / g->s[1] + 1; /* C's / rounds -1/2 up to 0 */
    if (g->OH < 1 || g->OW < 1)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the kernel is larger than the padded input", ctx->op);
    return OPGEN_OK;
}

typedef enum { CONV_1X1, CONV_1X1_GATHERED, CONV_DEPTHWISE, CONV_SHIFTED, CONV_IM2COL, CONV_WINOGRAD } conv_path;

/* A convolution's "wide" output (conv_shifted): rows Wq long, a phase plane's
 * width (the padded input's width / the stride, rounded up), of which the first OW
 * are the result; its length is wide_length. */
static int64_t phase_height(const conv_geom *g) { return (g->H + 2 * g->p[0] + g->s[0] - 1) / g->s[0]; }
/* Stride 1 with padding no wider than the taps' span: a row's right padding is
 * the next row's left (zeros either way), so rows are W + p long, not W + 2p,
 * and the wide output carries fewer unused columns. */
static bool shared_pad(const conv_geom *g) { return g->s[1] == 1 && g->p[1] <= g->d[1] * (g->KW - 1); }
static int64_t phase_width(const conv_geom *g) {
    return shared_pad(g) ? g->W + g->p[1] : (g->W + 2 * g->p[1] + g->s[1] - 1) / g->s[1];
}
/* One channel's phase planes, with the last row's right padding when shared. */
static int64_t planes_size(const conv_geom *g) {
    return g->s[0] * g->s[1] * phase_height(g) * phase_width(g) + (shared_pad(g) ? g->p[1] : 0);
}
static int64_t wide_length(const conv_geom *g) { return (g->OH - 1) * phase_width(g) + g->OW; }
/* How much of it is worked at a time: a quarter MiB of floats over the group's
 * output channels (stays in L2 until compacted), at least a few panels. */
static int64_t wide_chunk(const conv_geom *g) {
    int64_t c = 65536 / (g->O / g->groups);
    c = c < 256 ? 256 : c / 64 * 64;
    return c < wide_length(g) ? c : wide_length(g);
}

/* What the GEMM computes for n columns, in columns of whole tiles (32 wide): a
 * ragged end of 16 or fewer is a half tile, of 17 a half tile and one column of
 * dot products, of one that column alone (about four tiled columns' time). */
static int64_t gemm_columns(int64_t n) {
    int64_t r = n % 32;
    return n - r + (r == 0 ? 0 : r == 1 ? 4 : r <= 16 ? 16 : r == 17 ? 20 : 32);
}
/* Whether im2col packing beats the shifted planes: packing a column costs about
 * what 32 output channels' products of it do (measured on an AMD EPYC VM, 2026-11-28:
 * 3x3 convolutions from 4x4 to 56x56 outputs, 16 to 1024 channels), and a strided
 * convolution's wide output a quarter more than its columns (its phase planes'
 * fill and compaction). So 7x7 outputs and smaller over 256 channels or more,
 * ResNet's strided 3x3s, and no small-channel layer. */
static bool im2col_pays(const conv_geom *g) {
    int64_t og = g->O / g->groups, shifted = gemm_columns(wide_length(g)) * og;
    if (g->s[0] > 1 || g->s[1] > 1) shifted += shifted / 4;
    return gemm_columns(g->OH * g->OW) * (og + 32) < shifted;
}

static bool winograd_pays(const conv_geom *g, bool prepared); /* conv_winograd.inc */
/* prepared: the filter transformed at load (opgen_conv_prepare) */
static conv_path path_of(const conv_geom *g, const opgen_tensor *in, bool prepared) {
    if (g->Cg == 1 && g->groups == g->C) return CONV_DEPTHWISE;
    if (in->dtype == OPGEN_DTYPE_Float && winograd_pays(g, prepared)) return CONV_WINOGRAD;
    bool flat = in->strides[2] == g->W * in->strides[3]; /* H and W one dimension */
    if (g->KH == 1 && g->KW == 1 && g->s[0] == 1 && g->s[1] == 1 && !g->p[0] && !g->p[1] && flat) return CONV_1X1;
    /* a strided (or strided-in-memory) 1x1 without padding, as ResNet's downsampling
     * shortcuts: the pixels it reads gathered into [Cg, OH*OW] (a quarter of a
     * stride-2 input), then the 1x1's GEMM, which writes the result directly (phase
     * planes would copy all four phases and compact a wide output); not in -Os */
    if (OPGEN_SPEED_PATHS && g->KH == 1 && g->KW == 1 && !g->p[0] && !g->p[1]) return CONV_1X1_GATHERED;
    /* the shifted planes are read in place but the GEMM computes the wide output;
     * im2col packing computes the result's columns alone but packs each of them
     * (a build for size (-Os) has no im2col packing) */
    if (OPGEN_SPEED_PATHS && im2col_pays(g)) return CONV_IM2COL;
    return CONV_SHIFTED;
}

#include "conv_post.inc" /* post_job, POST_RUN, post_params_*, post_* */

/* The output columns ox whose input column for tap kx lies inside: [lo, hi). */
static void tap_columns(const conv_geom *g, int64_t kx, int64_t *lo, int64_t *hi) {
    int64_t off = kx * g->d[1] - g->p[1];
    *lo = off < 0 ? (-off + g->s[1] - 1) / g->s[1] : 0;
    *hi = g->W - off <= 0 ? 0 : (g->W - off - 1) / g->s[1] + 1;
    if (*hi > g->OW) *hi = g->OW;
}

/* One input channel x (rows hs, columns ws apart) as zero-padded phase planes
 * [s0, s1, Hq, Wq] in dst: plane (py, px) holds the padded input's rows py, py +
 * s0, ... and columns px, px + s1, ... (for stride 1, the padded input itself).
 * A tap (ky, kx) of every output at once is then one plane read from row ky*d0/s0
 * and column kx*d1/s1 on (tap_offset), in the "wide" layout: rows Wq long, the
 * first OW of each the outputs'. */
/* Stride 1, unit column stride, where the input may be read whole chunks past a
 * row (before its end: a depthwise's fill): the padded plane in whole chunks of
 * FILL_CHUNK values, each row's values, then zeros from its end over the right
 * and the next row's left padding (pads of at most a chunk), each chunk's
 * overrun overwritten by the next; no per-value loops, no calls, for a 7- or
 * 14-wide plane as for a 112-wide one. */
#define FILL_CHUNK 16
#define ZERO_CHUNKS(D, N)                         \
    for (int64_t q = 0; q < (N); q += FILL_CHUNK) \
        for (int k = 0; k < FILL_CHUNK; k++) (D)[q + k] = 0;
#define FILL_STRIDE1(NAME, T)                                                                                        \
    OPGEN_DISPATCHED static void NAME(const conv_geom *g, const T *restrict x, int64_t hs, T *restrict dst) {        \
        int64_t W = g->W, Wq = phase_width(g), p1 = g->p[1], whole = (W + FILL_CHUNK - 1) / FILL_CHUNK * FILL_CHUNK; \
        ZERO_CHUNKS(dst, g->p[0] * Wq + p1) /* the top rows and the first row's left */                              \
        for (int64_t iy = 0; iy < g->H; iy++) {                                                                      \
            T *restrict d = dst + (g->p[0] + iy) * Wq + p1;                                                          \
            const T *restrict s = x + iy * hs;                                                                       \
            for (int64_t q = 0; q < whole; q += FILL_CHUNK)                                                          \
                for (int k = 0; k < FILL_CHUNK; k++) d[q + k] = s[q + k];                                            \
            ZERO_CHUNKS(d + W, Wq - W) /* the right and the next row's left */                                       \
        }                                                                                                            \
        int64_t done = (g->p[0] + g->H) * Wq + p1;                                                                   \
        ZERO_CHUNKS(dst + done, planes_size(g) - done) /* the bottom rows */                                         \
    }
FILL_STRIDE1(fill_stride1_f32, float)
FILL_STRIDE1(fill_stride1_f64, double)
/* Stride 2 so: the four phase planes row by row, a row's values (every other
 * input value from its phase on) in whole chunks, zeros in whole chunks around
 * them, each chunk's overrun overwritten by what follows. */
#define FILL_STRIDE2(NAME, T)                                                                                 \
    OPGEN_DISPATCHED static void NAME(const conv_geom *g, const T *restrict x, int64_t hs, T *restrict dst) { \
        int64_t Hq = phase_height(g), Wq = phase_width(g), p0 = g->p[0], p1 = g->p[1];                        \
        for (int64_t py = 0; py < 2; py++)                                                                    \
            for (int64_t px = 0; px < 2; px++) {                                                              \
                /* the plane's columns inside the input: [lo, hi) */                                          \
                int64_t lo = px >= p1 ? 0 : (p1 - px + 1) / 2,                                                \
                        hi = g->W + p1 - px <= 0 ? 0 : (g->W + p1 - px + 1) / 2;                              \
                hi = hi > Wq ? Wq : hi, lo = lo > hi ? hi : lo;                                               \
                for (int64_t r = 0; r < Hq; r++) {                                                            \
                    T *restrict d = dst + ((py * 2 + px) * Hq + r) * Wq;                                      \
                    int64_t iy = 2 * r + py - p0;                                                             \
                    if (iy < 0 || iy >= g->H) {                                                               \
                        ZERO_CHUNKS(d, Wq)                                                                    \
                        continue;                                                                             \
                    }                                                                                         \
                    const T *restrict s = x + iy * hs + px - p1;                                              \
                    ZERO_CHUNKS(d, lo)                                                                        \
                    for (int64_t q = lo; q < hi; q += FILL_CHUNK)                                             \
                        for (int k = 0; k < FILL_CHUNK; k++) d[q + k] = s[2 * (q + k)];                       \
                    ZERO_CHUNKS(d + hi, Wq - hi)                                                              \
                }                                                                                             \
            }                                                                                                 \
    }
FILL_STRIDE2(fill_stride2_f32, float)
FILL_STRIDE2(fill_stride2_f64, double)
/* end: where x's readable values end, for the whole chunks of FILL_STRIDE1 and
 * FILL_STRIDE2 (then dst has FILL_CHUNK values of slack past the planes), or
 * NULL: value by value (OPGEN_FILL_PHASES). */
#define FILL_PHASES(NAME, T, STRIDE1, STRIDE2)                                                                  \
    OPGEN_SPECIALIZED void NAME(const conv_geom *g, const T *x, int64_t hs, int64_t ws, T *dst, const T *end) { \
        int64_t Hq = phase_height(g), Wq = phase_width(g);                                                      \
        if (OPGEN_SPEED_PATHS && end && g->s[0] == 1 && g->s[1] == 1 && ws == 1 && Wq - g->W <= FILL_CHUNK &&   \
            x + (g->H - 1) * hs + (g->W + FILL_CHUNK - 1) / FILL_CHUNK * FILL_CHUNK <= end) {                   \
            STRIDE1(g, x, hs, dst);                                                                             \
            return;                                                                                             \
        }                                                                                                       \
        /* a row's last chunk reads at most 2 * (Wq + FILL_CHUNK) values on from its start */                   \
        if (OPGEN_SPEED_PATHS && end && g->s[0] == 2 && g->s[1] == 2 && ws == 1 &&                              \
            x + (g->H - 1) * hs + 2 * (Wq + FILL_CHUNK) <= end) {                                               \
            STRIDE2(g, x, hs, dst);                                                                             \
            return;                                                                                             \
        }                                                                                                       \
        OPGEN_FILL_PHASES(T, x, hs, ws, g->H, g->W, g->s[0], g->s[1], g->p[0], g->p[1], Hq, Wq, (T)0, dst)      \
        for (int64_t q = g->s[0] * g->s[1] * Hq * Wq; q < planes_size(g); q++)                                  \
            dst[q] = 0; /* the last row's shared padding */                                                     \
    }
FILL_PHASES(fill_phases_f32, float, fill_stride1_f32, fill_stride2_f32)
FILL_PHASES(fill_phases_f64, double, fill_stride1_f64, fill_stride2_f64)

/* Where tap (ky, kx) starts in one channel's phase planes. */
static int64_t tap_offset(const conv_geom *g, int64_t ky, int64_t kx) {
    return opgen_phase_offset(ky * g->d[0], kx * g->d[1], g->s[0], g->s[1], phase_height(g), phase_width(g));
}

/* Depthwise: output channel oc reads input channel oc / (O / C). A plane (image
 * n, channel oc) at a time: the input channel as phase planes (FILL_PHASES, once
 * for all the channels it feeds, rows copied in whole vectors), then each tap's
 * shifted run of the planes summed in the taps' order from the bias (a padded
 * input's zeros added, as ATen's padded convolution adds them), with no border
 * cases. A 3x3 (MobileNet's) sums its nine taps in registers, output row by
 * output row, 8 or 16 values at a time, and stores them straight into the result
 * (a row's last chunk runs into the next row, which overwrites it); any other
 * builds the wide output a block at a time, tap by tap, and copies each row's
 * first OW columns out. The fused batch norm and activation are applied to the
 * values before they are stored. Planes split across threads, each part with its
 * own buffers. */
typedef struct dw_job {
    const conv_geom *g;
    const opgen_tensor *input, *weight, *bias;
    const void *end; /* where the input's values end (FILL_PHASES reads whole chunks before it) */
    opgen_tensor *out;
    int64_t planes;
    int parts;
    const post_job *post; /* applied to each plane once its taps are in, or NULL */
    char *scratch;        /* per part: the phase planes and their slack, then the wide output */
    size_t per;
} dw_job;

/* A part's buffers: the phase planes of one channel, FILL_CHUNK values of
 * slack (the fill's last chunk, a 3x3 row's last reads), and its wide output. */
static size_t dw_part_bytes(const conv_geom *g, size_t es) {
    return ((size_t)(planes_size(g) + FILL_CHUNK + wide_length(g)) * es + 63) & ~(size_t)63;
}

/* A 3x3 depthwise plane from its phase planes ph (tap k at ph + off[k], rows Wq
 * apart): output row by output row, VL values at a time (a constant: whole
 * vectors), each the nine taps summed in registers in the taps' order from the
 * bias b0, then the fused batch norm and activation (pj, channel oc), stored
 * straight into y. A row's last chunk runs on into the next row, which
 * overwrites it; one that would pass the plane's end is stored in part. */
#define DW3X3_SUM                                                                                               \
    (b0 + w0 * p0[q + k] + w1 * p1[q + k] + w2 * p2[q + k] + w3 * p3[q + k] + w4 * p4[q + k] + w5 * p5[q + k] + \
     w6 * p6[q + k] + w7 * p7[q + k] + w8 * p8[q + k])
#define DW3X3_STORE(T, DST, VL)                                  \
    if (!pj)                                                     \
        for (int64_t k = 0; k < (VL); k++) (DST)[k] = DW3X3_SUM; \
    else                                                         \
        POST_RUN(T, act, lo, hi, al, be, DST, (VL), DW3X3_SUM)
#define DW3X3_ROWS(T, VL)                                                                           \
    for (int64_t oy = 0; oy < OH; oy++)                                                             \
        for (int64_t ox = 0; ox < OW; ox += (VL)) {                                                 \
            int64_t q = oy * Wq + ox, left = hw - (oy * OW + ox);                                   \
            T *yo = y + oy * OW + ox, v[VL]; /* v: the compiler sees it alias none of the planes */ \
            DW3X3_STORE(T, v, VL)                                                                   \
            if (left >= (VL))                                                                       \
                for (int k = 0; k < (VL); k++) yo[k] = v[k];                                        \
            else                                                                                    \
                for (int64_t k = 0; k < left; k++) yo[k] = v[k];                                    \
        }
#define DW3X3_PLANE(NAME, T)                                                                                          \
    OPGEN_DISPATCHED static void NAME(const T *ph, const int64_t *off, int64_t Wq, const T *wt, T b0,                 \
                                      const post_job *pj, int64_t oc, T *y, int64_t OH, int64_t OW) {                 \
        const T *restrict p0 = ph + off[0], *restrict p1 = ph + off[1], *restrict p2 = ph + off[2],                   \
                          *restrict p3 = ph + off[3];                                                                 \
        const T *restrict p4 = ph + off[4], *restrict p5 = ph + off[5], *restrict p6 = ph + off[6],                   \
                          *restrict p7 = ph + off[7];                                                                 \
        const T *restrict p8 = ph + off[8];                                                                           \
        T w0 = wt[0], w1 = wt[1], w2 = wt[2], w3 = wt[3], w4 = wt[4], w5 = wt[5], w6 = wt[6], w7 = wt[7], w8 = wt[8]; \
        opgen_post_act act = pj ? pj->act : OPGEN_POST_NONE;                                                          \
        T lo = pj ? (T)pj->lo : 0, hi = pj ? (T)pj->hi : 0;                                                           \
        T al = pj ? ((const T *)pj->ab)[pj->first + oc] : (T)1,                                                       \
          be = pj ? ((const T *)pj->ab)[pj->post->var->sizes[0] + pj->first + oc] : (T)0;                             \
        int64_t hw = OH * OW;                                                                                         \
        if (OW <= 8 || !OPGEN_SPEED_PATHS) /* a build for size: one width */                                          \
            DW3X3_ROWS(T, 8)                                                                                          \
        else                                                                                                          \
            DW3X3_ROWS(T, 16)                                                                                         \
    }
DW3X3_PLANE(dw3x3_plane_f32, float)
DW3X3_PLANE(dw3x3_plane_f64, double)
#include "conv_dw_direct.inc" /* DIRECT3 on x86-64: a 3x3 float plane straight from the input */
#define NAME depthwise_f32
#define T float
#define FILL fill_phases_f32
#define PLANE3 dw3x3_plane_f32
#include "conv_depthwise.inc"
#define NAME depthwise_f64
#define T double
#define FILL fill_phases_f64
#define PLANE3 dw3x3_plane_f64
#include "conv_depthwise.inc"

/* f64: the caller's element type, a constant where it is inlined, so that a build
 * whose kernel keeps Float only links no Double loops (and the same below). */
OPGEN_SPECIALIZED void depthwise(opgen_ctx *ctx, bool f64, const conv_geom *g, const opgen_tensor *input,
                                 const opgen_tensor *weight, const opgen_tensor *bias, const post_job *post,
                                 void *scratch, opgen_tensor *out) {
    size_t es = (size_t)opgen_dtype_size(input->dtype);
    const char *end = (const char *)input->data + es; /* past the input's last value (strides are not negative) */
    for (int d = 0; d < input->dim; d++)
        end += input->sizes[d] ? (size_t)((input->sizes[d] - 1) * input->strides[d]) * es : 0;
    dw_job j = {g, input, weight, bias, end, out, g->N * g->O, 1, post, scratch, dw_part_bytes(g, es)};
    /* threads past ~32K multiply-adds a part; each part a run of whole planes */
    j.parts = opgen_parallel_parts_for(ctx->par, (double)g->N * (double)g->O * (double)(g->OH * g->OW * g->KH * g->KW),
                                       65536.0);
    if (j.parts > j.planes) j.parts = (int)j.planes;
    opgen_parallel_for(ctx->par, j.parts, f64 ? depthwise_f64 : depthwise_f32, &j);
}

/* The im2col matrix of one image's group, [(c, ky, kx), (oy, ox)], zero where
 * padded, is never written whole: the GEMM packs it block by block straight from
 * the input (opgen_gemm_bsource), while the block is in cache. Row by row of the
 * block, panel by panel: a panel's row inside one input row is one strided read
 * (a copy of `width` values at stride 1, the common case); one that crosses
 * output rows or the padding goes run by run, the columns outside zeros. */
typedef struct im2col_src {
    const conv_geom *g;
    const void *x;          /* the group's first input channel of the image */
    int64_t cs, hs, ws;     /* the input's channel, row and column strides */
    int64_t lo[16], hi[16]; /* the first 16 taps' column ranges (tap_columns) */
} im2col_src;
#define NAME im2col_panel_f32
#define T float
#include "conv_im2col.inc"
#define NAME im2col_panel_f64
#define T double
#include "conv_im2col.inc"

#include "conv_winograd.inc" /* CONV_WINOGRAD: float 3x3s of stride 1 as F(2x2, 3x3) */

/* A convolution of one image's group without im2col. Its input is copied once
 * into zero-padded phase planes [Cg, s0, s1, Hq, Wq]: plane (c, py, px) holds the
 * padded input's rows py, py + s0, ... and columns px, px + s1, ... (for stride 1,
 * the padded input itself). im2col's row for (c, ky, kx) is then one plane from
 * row ky*d0 / s0 and column kx*d1 / s1 on, read as one run, and the GEMM reads
 * those rows in place (opgen_gemm_*_rows) into the wide output [og, wide], whose
 * rows are Wq long. Their first OW columns, plus the bias, are the result; a fused
 * batch norm and activation follow on each finished channel. On threads the
 * copy in is split by channel; each thread then takes a range of the wide
 * output's columns (SHIFTED_RANGE), or, where it is narrow, the GEMM splits each
 * chunk and the compaction its channels. */
typedef struct shifted_bufs {
    void *xpad, *wide, *gemm; /* wide and gemm: a slice per part (wide_bytes, gemm_bytes apart) */
    int64_t *brow;
    size_t wide_bytes, gemm_bytes;
} shifted_bufs;
typedef struct shifted_job {
    const conv_geom *g;
    const opgen_tensor *input;
    const void *x, *bias;
    int64_t bstride;
    const shifted_bufs *bf;
    const post_job *pj;
    void *y;
    const void *res; /* the fused residual at y's place (opgen_post.residual), or NULL */
    int parts;
    int64_t j0, nc; /* the chunk of the wide output in the buffer */
    void *wide;     /* that buffer */
    const void *w;  /* the group's weight, rows rsw apart */
    int64_t rsw;
    int64_t range;       /* SHIFTED_RANGE: columns a chunk */
    opgen_chunks chunks; /* SHIFTED_RANGE's, handed out (kernels/chunks.h) */
} shifted_job;
#define FILL shifted_fill_f32
#define COMPACT shifted_compact_f32
#define PHASES fill_phases_f32
#define T float
#include "conv_shifted.inc"
#define FILL shifted_fill_f64
#define COMPACT shifted_compact_f64
#define PHASES fill_phases_f64
#define T double
#include "conv_shifted.inc"
/* Columns lo .. hi of the wide output, chunk by chunk: the GEMM into j->wide (gs
 * its scratch), then the compaction, each split over par's threads (NULL: one). */
OPGEN_SPECIALIZED void shifted_chunks(const opgen_parallel *par, bool f64, shifted_job *j, int64_t lo, int64_t hi,
                                      void *gs) {
    const conv_geom *g = j->g;
    int64_t og = g->O / g->groups, ck = g->Cg * g->KH * g->KW, chunk = wide_chunk(g);
    for (j->j0 = lo; j->j0 < hi; j->j0 += chunk) {
        j->nc = hi - j->j0 < chunk ? hi - j->j0 : chunk;
        if (f64)
            opgen_gemm_f64_rows(par, og, j->nc, ck, 1, j->w, j->rsw, 1, (const double *)j->bf->xpad + j->j0,
                                j->bf->brow, 0, j->wide, j->nc, gs, NULL);
        else
            opgen_gemm_f32_rows(par, og, j->nc, ck, 1, j->w, j->rsw, 1, (const float *)j->bf->xpad + j->j0, j->bf->brow,
                                0, j->wide, j->nc, gs, NULL);
        j->parts = opgen_parallel_parts_for(par, (double)(og * j->nc), 65536.0);
        opgen_parallel_for(par, j->parts, f64 ? shifted_compact_f64 : shifted_compact_f32, j);
    }
}
/* With threads and a wide output of several chunks: each part takes chunks of
 * its columns (kernels/chunks.h: its own stretch first, then a slower part's
 * last), GEMM and compaction alike, in its own buffers, so a chunk is compacted
 * by the core that computed it, while in its L2. Chunks are whole tiles (a
 * multiple of 32 columns): the GEMM computes each column as on one thread
 * (only the wide output's own last column may be one alone: a dot product). */
#define SHIFTED_RANGE(NAME, F64)                                                                               \
    static void NAME(void *arg, int part) {                                                                    \
        shifted_job *j = arg, jj = *j;                                                                         \
        int64_t wide = wide_length(jj.g);                                                                      \
        jj.wide = (char *)jj.bf->wide + (size_t)part * jj.bf->wide_bytes;                                      \
        for (int k; (k = opgen_chunk_take(&j->chunks, part)) >= 0;)                                            \
            shifted_chunks(NULL, F64, &jj, k *jj.range, (k + 1) * jj.range < wide ? (k + 1) * jj.range : wide, \
                           (char *)jj.bf->gemm + (size_t)part * jj.bf->gemm_bytes);                            \
    }
SHIFTED_RANGE(shifted_range_f32, false)
SHIFTED_RANGE(shifted_range_f64, true)
/* Whether the parts take ranges of the wide output (SHIFTED_RANGE): at least 256
 * columns each (eight tiles), so the ranges' ragged ends cost little; else the
 * GEMM splits each chunk and the compaction its channels. */
static bool shifted_ranges(const conv_geom *g, int parts) {
    return parts > 1 && wide_length(g) >= 256 * (int64_t)parts;
}

OPGEN_SPECIALIZED void conv_shifted(opgen_ctx *ctx, bool f64, const conv_geom *g, const opgen_tensor *input,
                                    const void *x, const void *w, int64_t rsw, const void *bias, int64_t bstride,
                                    const shifted_bufs *bf, const post_job *pj, void *y, const void *res) {
    shifted_job j = {g, input, x, bias, bstride, bf, pj, y, res, 1, 0, 0, bf->wide, w, rsw, 0, {{0}, 0}};
    j.parts = opgen_parallel_parts_for(ctx->par, (double)(g->Cg * planes_size(g)), 65536.0);
    opgen_parallel_for(ctx->par, j.parts, f64 ? shifted_fill_f64 : shifted_fill_f32, &j);
    memset((char *)bf->xpad + (size_t)(g->Cg * planes_size(g)) * (f64 ? 8 : 4), 0,
           OPGEN_GEMM_SLACK * (size_t)(f64 ? 8 : 4)); /* read, never used */
    for (int64_t c = 0, q = 0; c < g->Cg; c++)
        for (int64_t ky = 0; ky < g->KH; ky++)
            for (int64_t kx = 0; kx < g->KW; kx++) bf->brow[q++] = c * planes_size(g) + tap_offset(g, ky, kx);
    /* chunk by chunk of the wide output, each compacted while it is in cache */
    if (shifted_ranges(g, opgen_parallel_parts(ctx->par))) { /* four chunks a part, of 256 columns or more */
        int64_t wide = wide_length(g), quarter = wide / (4 * opgen_parallel_parts(ctx->par)) & ~(int64_t)31;
        j.parts = opgen_parallel_parts(ctx->par);
        j.range = quarter < 256 ? 256 : quarter < wide_chunk(g) ? quarter : wide_chunk(g);
        while ((wide + j.range - 1) / j.range > OPGEN_CHUNKS_MAX) j.range *= 2; /* shifted_chunks splits it */
        opgen_chunks_init(&j.chunks, (int)((wide + j.range - 1) / j.range), j.parts);
        opgen_parallel_for(ctx->par, j.parts, f64 ? shifted_range_f64 : shifted_range_f32, &j);
    } else
        shifted_chunks(ctx->par, f64, &j, 0, wide_length(g), bf->gemm);
}

/* A 1x1's pixels (CONV_1X1_GATHERED): the group's input x at the output's
 * positions, as [Cg, OH*OW] in dst. */
#define GATHER(NAME, T)                                                                           \
    static void NAME(const conv_geom *g, const T *x, const opgen_tensor *in, void *dst) {         \
        T *restrict d = dst;                                                                      \
        for (int64_t c = 0; c < g->Cg; c++)                                                       \
            for (int64_t oy = 0; oy < g->OH; oy++) {                                              \
                const T *restrict src = x + c * in->strides[1] + oy * g->s[0] * in->strides[2];   \
                for (int64_t ox = 0; ox < g->OW; ox++) *d++ = src[ox * g->s[1] * in->strides[3]]; \
            }                                                                                     \
    }
GATHER(gather_f32, float)
GATHER(gather_f64, double)

/* A fused residual on paths whose GEMM (or depthwise loop) applied the batch norm
 * alone: y = act(y + residual) in the add's order, y's planes split across
 * threads; y may be the residual itself. */
typedef struct residual_job {
    const post_job *pj;
    void *y;
    const void *res;
    int64_t planes, hw;
    int parts;
} residual_job;
#define RESIDUAL_PASS(NAME, T)                                                            \
    OPGEN_DISPATCHED static void NAME(void *arg, int part) {                              \
        const residual_job *j = arg;                                                      \
        const post_job *pj = j->pj;                                                       \
        T lo = (T)pj->lo, hi = (T)pj->hi;                                                 \
        int64_t p0 = j->planes * part / j->parts, p1 = j->planes * (part + 1) / j->parts; \
        T *y = (T *)j->y + p0 * j->hw;                                                    \
        const T *r = (const T *)j->res + p0 * j->hw;                                      \
        if (pj->post->residual_first) {                                                   \
            POST_ACT(T, pj->post->act, lo, hi, y, (p1 - p0) * j->hw, r[k] + y[k])         \
        } else                                                                            \
            POST_ACT(T, pj->post->act, lo, hi, y, (p1 - p0) * j->hw, y[k] + r[k])         \
    }
RESIDUAL_PASS(residual_pass_f32, float)
RESIDUAL_PASS(residual_pass_f64, double)

/* Whether t is laid out as the convolution's result out (contiguous, same shape). */
static bool same_layout(const opgen_tensor *t, const opgen_tensor *out) {
    if (t->dim != out->dim || t->dtype != out->dtype) return false;
    for (int d = 0; d < t->dim; d++)
        if (t->sizes[d] != out->sizes[d] || (t->sizes[d] > 1 && t->strides[d] != out->strides[d])) return false;
    return true;
}

/* 2-D (out already sized by the caller: [N, O, OH, OW], or a 1-D one's view). */
static opgen_status conv2d(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *input, const opgen_tensor *weight,
                           const opgen_tensor *bias, const conv_geom *gp, opgen_tensor *out) {
    conv_geom g = *gp;
    conv_path path = path_of(&g, input, ctx->prepared != NULL);
    int64_t og = g.O / g.groups, ck = g.Cg * g.KH * g.KW, hw = g.OH * g.OW;
    size_t es = (size_t)opgen_dtype_size(input->dtype);
    shifted_bufs sb = {NULL, NULL, NULL, NULL, 0, 0};
    if (path == CONV_SHIFTED) { /* with ranges (SHIFTED_RANGE), a wide buffer and GEMM scratch per part */
        bool ranges = shifted_ranges(&g, opgen_parallel_parts(ctx->par));
        size_t parts = ranges ? (size_t)opgen_parallel_parts(ctx->par) : 1;
        sb.xpad = opgen_scratch(ctx, (size_t)(g.Cg * planes_size(&g) + OPGEN_GEMM_SLACK) * es);
        sb.wide_bytes = ((size_t)(og * wide_chunk(&g)) * es + 63) & ~(size_t)63;
        sb.gemm_bytes = opgen_gemm_scratch_b_rows(input->dtype, NULL, og, wide_chunk(&g), ck);
        sb.wide = opgen_scratch(ctx, sb.wide_bytes * parts);
        sb.gemm =
            opgen_scratch(ctx, ranges ? sb.gemm_bytes * parts
                                      : opgen_gemm_scratch_b_rows(input->dtype, ctx->par, og, wide_chunk(&g), ck));
        sb.brow = opgen_scratch(ctx, sizeof(int64_t) * (size_t)ck);
    }
    void *dws = path == CONV_DEPTHWISE
                    ? opgen_scratch(ctx, dw_part_bytes(&g, es) * (size_t)opgen_parallel_parts(ctx->par) + 64)
                    : NULL;
    /* the filter is prepared after the load's meta call: its scratch counted then too */
    bool wg_later = ctx->meta && path != CONV_WINOGRAD && input->dtype == OPGEN_DTYPE_Float && winograd_pays(&g, true);
    void *wgs = path == CONV_WINOGRAD || wg_later
                    ? opgen_scratch(ctx, 64 + wg_part_bytes(&g, ctx->prepared || wg_later) *
                                                  (size_t)opgen_parallel_parts(ctx->par))
                    : NULL;
    void *gs = path == CONV_DEPTHWISE || path == CONV_WINOGRAD ? NULL
               : path == CONV_SHIFTED
                   ? sb.gemm
                   : opgen_scratch(ctx, (path == CONV_IM2COL ? opgen_gemm_scratch_from : opgen_gemm_scratch_b_rows)(
                                            input->dtype, ctx->par, og, hw, ck));
    void *gathered = path == CONV_1X1_GATHERED ? opgen_scratch(ctx, (size_t)(g.Cg * hw) * es) : NULL;
    /* the GEMM reads each group's weight as a matrix [og, Cg*KH*KW]: a weight laid
     * out otherwise is copied so first */
    bool flat = weight->strides[3] == 1 && weight->strides[2] == g.KW && weight->strides[1] == g.KH * g.KW &&
                weight->strides[0] == ck;
    opgen_tensor wc = *weight;
    if (!flat) {
        if (opgen_tensor_shape(&wc, weight->dtype, 4, weight->sizes, ctx->err)) return ctx->err->code;
        wc.data = opgen_scratch(ctx, opgen_nbytes(&wc));
    }
    if (ctx->meta) return OPGEN_OK;
    if ((path != CONV_DEPTHWISE && path != CONV_WINOGRAD && !gs) || (path == CONV_DEPTHWISE && !dws) ||
        (path == CONV_WINOGRAD && !wgs) || (path == CONV_1X1_GATHERED && !gathered) || !wc.data ||
        (path == CONV_SHIFTED && (!sb.xpad || !sb.wide || !sb.brow)))
        return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    if (!flat && opgen_copy(ctx, &wc, weight)) return ctx->err->code;
    weight = &wc;
    /* a fused batch norm and activation (opgen_post): its per-channel factors once */
    const opgen_post *post = ctx->post;
    /* a residual the kernel cannot read where it writes is not applied (the
     * executor then runs the ops): another layout, or memory the result shares
     * (but for being the result itself, on the path that reads each value just
     * before it writes it) */
    if (post && post->residual &&
        (!same_layout(post->residual, out) ||
         (opgen_tensors_overlap(post->residual, out) &&
          ((path != CONV_SHIFTED && path != CONV_WINOGRAD) || post->residual->data != out->data))))
        post = NULL;
    /* a residual is added in the shifted path's compaction (and Winograd's output), else after the path
     * (which then applies the batch norm alone) */
    const void *res = post && post->residual ? post->residual->data : NULL;
    bool compacts = path == CONV_SHIFTED || path == CONV_WINOGRAD; /* they add the residual themselves */
    post_job pj0 = {post, 0, NULL, 0, 0, post && (!res || compacts) ? post->act : OPGEN_POST_NONE};
    if (post) {
        void *ab = opgen_scratch(ctx, 2 * (size_t)g.O * es);
        if (!ab) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
        (OPGEN_HAS(mask, OPGEN_DTYPE_Double) && es == 8 ? post_params_f64 : post_params_f32)(post, ab);
        pj0.ab = ab;
        pj0.lo = post->lo ? opgen_scalar_f64(post->lo) : 0, pj0.hi = post->hi ? opgen_scalar_f64(post->hi) : 0;
    }
    OPGEN_FLOAT_SWITCH(mask, input->dtype, ctx, T, {
        {
            if (path == CONV_DEPTHWISE) {
                depthwise(ctx, _Generic((T)0, double: true, default: false), &g, input, weight, bias, post ? &pj0 : NULL, (void *)(((uintptr_t)dws + 63) & ~(uintptr_t)63), out);
}
else {
    for (int64_t n = 0; n < g.N; n++)
        for (int64_t gi = 0; gi < g.groups; gi++) {
            const T *x = (const T *)input->data + n * input->strides[0] + gi * g.Cg * input->strides[1];
            T *y = (T *)out->data + (n * g.O + gi * og) * hw;
            post_job pj = pj0;
            pj.first = gi * og;
            if (path == CONV_WINOGRAD) {
                conv_winograd(ctx, &g, input, (const float *)(const void *)x, weight, bias, ctx->prepared,
                              post ? &pj : NULL, (float *)(void *)y, res ? (const float *)res + (n * g.O) * hw : NULL,
                              wgs);
                continue;
            }
            if (path == CONV_SHIFTED) {
                conv_shifted(ctx,
                             _Generic((T)0, double
                                      : true, default
                                      : false),
                             &g, input, x, (const T *)weight->data + gi * og * weight->strides[0], weight->strides[0],
                             bias ? (const T *)bias->data + gi * og * bias->strides[0] : NULL,
                             bias ? bias->strides[0] : 0, &sb, post ? &pj : NULL, y,
                             res ? (const T *)res + (n * g.O + gi * og) * hw : NULL);
                continue;
            }
            for (int64_t o = 0; bias && o < og; o++) /* the bias first; the product adds to it */
                for (int64_t i = 0; i < hw; i++)
                    y[o * hw + i] = ((const T *)bias->data)[(gi * og + o) * bias->strides[0]];
            /* the weight of the group as a matrix [og, Cg*KH*KW]: rows weight->strides[0] apart */
            const T *w = (const T *)weight->data + gi * og * weight->strides[0];
            /* whole tiles take the batch norm and activation in registers, the rest post_f32 */
            opgen_gemm_epilogue epi = {
                _Generic((T)0, float : post_f32, default : post_f64), &pj, NULL, NULL, 0, pj.lo, pj.hi};
            if (post)
                epi.scale = (const T *)pj.ab + pj.first, epi.shift = (const T *)pj.ab + g.O + pj.first,
                epi.act = (int)pj.act;
            const opgen_gemm_epilogue *ep = post ? &epi : NULL;
            if (OPGEN_SPEED_PATHS && path == CONV_IM2COL) {
                im2col_src src = {&g, x, input->strides[1], input->strides[2], input->strides[3], {0}, {0}};
                for (int64_t kx = 0; kx < g.KW && kx < 16; kx++) tap_columns(&g, kx, &src.lo[kx], &src.hi[kx]);
                opgen_gemm_bsource bs = {_Generic((T)0, float : im2col_panel_f32, default : im2col_panel_f64), &src};
                _Generic((T)0, float
                         : opgen_gemm_f32_from, default
                         : opgen_gemm_f64_from)(ctx->par, og, hw, ck, (T)1, (const void *)w, weight->strides[0],
                                                weight->strides[3], &bs, bias ? (T)1 : (T)0, (void *)y, hw, gs, ep);
            } else { /* 1x1: the input is B, read in place (or its pixels gathered first) */
                const T *xb = x;
                int64_t rsx = input->strides[1], csx = input->strides[3];
                if (OPGEN_SPEED_PATHS && path == CONV_1X1_GATHERED)
                    _Generic((T)0, float
                             : gather_f32, default
                             : gather_f64)(&g, x, input, gathered),
                        xb = gathered, rsx = hw, csx = 1;
                _Generic((T)0, float
                         : opgen_gemm_f32, default
                         : opgen_gemm_f64)(ctx->par, og, hw, ck, (T)1, (const void *)w, weight->strides[0],
                                           weight->strides[3], (const void *)xb, rsx, csx, bias ? (T)1 : (T)0,
                                           (void *)y, hw, gs, ep);
            }
        }
}
}
})
    if (res && !compacts) {
    residual_job rj = {&pj0, out->data, res, g.N * g.O, hw, 1};
    rj.parts = opgen_parallel_parts_for(ctx->par, (double)(g.N * g.O * hw), 65536.0);
    if (rj.parts > g.N * g.O) rj.parts = (int)(g.N * g.O);
    opgen_parallel_for(ctx->par, rj.parts,
                       OPGEN_HAS(mask, OPGEN_DTYPE_Double) && es == 8 ? residual_pass_f64 : residual_pass_f32, &rj);
}
if (post) ctx->post->applied = true;
return OPGEN_OK;
}

/* ---- any rank, and transposed: direct loops ---- */

/* A convolution of 1 to 3 spatial dimensions, padded to 3 with size-1 ones. */
typedef struct conv_nd {
    int nd;
    int64_t N, C, O, Cg, Og, groups, in[3], k[3], out[3], s[3], p[3], d[3], op[3];
    bool transposed;
} conv_nd;

/* A stride, padding, dilation or output_padding list: one value for every
 * dimension (ATen expands a single one), within range. */
static opgen_status conv_param(opgen_ctx *ctx, opgen_int_list l, const char *what, int nd, int64_t lo, int64_t *v) {
    if (l.len != 1 && l.len != (size_t)nd)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %s must have 1 or %d values, not %zu", ctx->op, what, nd, l.len);
    for (int i = 0; i < 3; i++) v[i] = i < nd ? l.data[l.len == 1 ? 0 : i] : (lo > 0 ? 1 : 0);
    for (int i = 0; i < nd; i++)
        if (v[i] < lo || v[i] > (1 << 30))
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %s value %lld is out of range", ctx->op, what,
                              (long long)v[i]);
    return OPGEN_OK;
}

static opgen_status nd_geometry(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight,
                                const opgen_tensor *bias, opgen_int_list stride, opgen_int_list padding,
                                opgen_int_list dilation, bool transposed, opgen_int_list output_padding, int64_t groups,
                                conv_nd *g) {
    g->nd = input->dim - 2, g->transposed = transposed, g->groups = groups;
    if (conv_param(ctx, stride, "stride", g->nd, 1, g->s) || conv_param(ctx, padding, "padding", g->nd, 0, g->p) ||
        conv_param(ctx, dilation, "dilation", g->nd, 1, g->d) ||
        conv_param(ctx, output_padding, "output_padding", g->nd, 0, g->op))
        return ctx->err->code;
    g->N = input->sizes[0], g->C = input->sizes[1];
    int64_t outs = transposed ? (groups > 0 ? weight->sizes[1] * groups : 0) : weight->sizes[0];
    if (groups < 1 || g->C % groups || outs % groups)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %lld groups do not divide %lld input and %lld output channels",
                          ctx->op, (long long)groups, (long long)g->C, (long long)outs);
    if (transposed) { /* weight [C, O / groups, k...] */
        if (weight->sizes[0] != g->C)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE,
                              "%s: a transposed convolution's weight has %lld input channels, the input %lld", ctx->op,
                              (long long)weight->sizes[0], (long long)g->C);
        g->Og = weight->sizes[1], g->O = g->Og * groups, g->Cg = g->C / groups;
    } else { /* weight [O, C / groups, k...] */
        g->O = weight->sizes[0], g->Cg = weight->sizes[1], g->Og = g->O / groups;
        if (g->Cg != g->C / groups)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: weight has %lld input channels per group, the input %lld",
                              ctx->op, (long long)g->Cg, (long long)(g->C / groups));
    }
    if (bias && (bias->dim != 1 || bias->sizes[0] != g->O))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: bias must have %lld elements", ctx->op, (long long)g->O);
    if (input->dtype != weight->dtype || (bias && bias->dtype != input->dtype))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: input, weight and bias must have one dtype", ctx->op);
    for (int i = 0; i < g->nd; i++) { /* as ATen refuses them */
        if (weight->sizes[2 + i] < 1)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the kernel is empty in spatial dimension %d", ctx->op, i);
        if (input->sizes[2 + i] < 1 && g->N > 0 && g->C > 0)
            return OPGEN_FAIL(
                ctx, OPGEN_E_SHAPE,
                "%s: the input is empty in spatial dimension %d; only an empty batch or channel dimension is supported",
                ctx->op, i);
    }
    for (int i = 0; i < 3; i++) {
        g->in[i] = i < g->nd ? input->sizes[2 + i] : 1, g->k[i] = i < g->nd ? weight->sizes[2 + i] : 1;
        int64_t span = g->d[i] * (g->k[i] - 1) + 1;
        if (transposed && g->op[i] >= g->s[i] && g->op[i] >= g->d[i])
            return OPGEN_FAIL(
                ctx, OPGEN_E_INVALID,
                "%s: output_padding %lld must be smaller than either the stride %lld or the dilation %lld", ctx->op,
                (long long)g->op[i], (long long)g->s[i], (long long)g->d[i]);
        g->out[i] = transposed
                        ? (g->in[i] - 1) * g->s[i] - 2 * g->p[i] + span + g->op[i]
                        : (g->in[i] + 2 * g->p[i] - span < 0 ? 0 : (g->in[i] + 2 * g->p[i] - span) / g->s[i] + 1);
        if (g->out[i] < 1 && g->in[i] > 0)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the kernel is larger than the padded input", ctx->op);
    }
    return OPGEN_OK;
}

/* Element offset of (c, position) in a tensor of rank nd + 2, batch n. */
static inline int64_t at(const opgen_tensor *t, int nd, int64_t n, int64_t c, const int64_t *pos) {
    int64_t o = n * t->strides[0] + c * t->strides[1];
    for (int i = 0; i < nd; i++) o += pos[i] * t->strides[2 + i];
    return o;
}

/* out[n, o, y] = bias[o] + sum over c of the group, kernel offsets k of
 * x[n, c, y * s - p + k * d] * w[o, c, k]; transposed, each x[n, c, i] adds
 * x * w[c, o, k] into out[n, o, i * s - p + k * d]. Out is contiguous. */
#define NAME conv_direct_f32
#define T float
#include "conv_direct.inc"
#define NAME conv_direct_f64
#define T double
#include "conv_direct.inc"

static opgen_status conv_direct(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *input, const opgen_tensor *weight,
                                const opgen_tensor *bias, const conv_nd *gp, opgen_tensor *out) {
    conv_nd g = *gp;
    if (ctx->meta) return OPGEN_OK;
    OPGEN_FLOAT_SWITCH(mask, input->dtype, ctx, T,
                       (sizeof(T) == 8 ? conv_direct_f64 : conv_direct_f32)(&g, input, weight, bias, out);)
    return OPGEN_OK;
}

/* 1-D as 2-D of height 1: views of input, weight and out with a size-1 dimension. */
static opgen_tensor height1(const opgen_tensor *t) {
    opgen_tensor v = *t;
    v.dim = 4;
    v.sizes[3] = t->sizes[2], v.strides[3] = t->strides[2];
    v.sizes[2] = 1, v.strides[2] = t->sizes[2] * t->strides[2];
    for (int i = 0; i < 4; i++) v.dim_order[i] = (uint8_t)i;
    return v;
}

/* Half or BFloat16: this kernel on float copies, rounded once. */
static opgen_status convolution_reduced(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight,
                                        const opgen_tensor *bias, opgen_int_list stride, opgen_int_list padding,
                                        opgen_int_list dilation, bool transposed, opgen_int_list output_padding,
                                        int64_t groups, opgen_tensor *out) {
    opgen_tensor w_input, w_weight, w_bias, y_out;
    opgen_standin(&y_out);
    opgen_status st = opgen_widen(ctx, input, &w_input);
    if (!st) st = opgen_widen(ctx, weight, &w_weight);
    if (!st) st = opgen_widen(ctx, bias, &w_bias);
    if (!st)
        st = opgen_portable_convolution_out(ctx, &w_input, weight ? &w_weight : NULL, bias ? &w_bias : NULL, stride,
                                            padding, dilation, transposed, output_padding, groups, &y_out);
    if (!st) st = opgen_narrow(ctx, out, input->dtype, &y_out);
    return st;
}

opgen_status opgen_portable_convolution_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight,
                                            const opgen_tensor *bias, opgen_int_list stride, opgen_int_list padding,
                                            opgen_int_list dilation, bool transposed, opgen_int_list output_padding,
                                            int64_t groups, opgen_tensor *out) {
    uint32_t mask = OPGEN_WITH_FLOAT(OPGEN_KERNEL_DTYPES_opgen_portable_convolution_out);
    if (OPGEN_REDUCED(mask, input->dtype))
        return convolution_reduced(ctx, input, weight, bias, stride, padding, dilation, transposed, output_padding,
                                   groups, out);
    if (input->dim < 3 || input->dim > 5 || weight->dim != input->dim)
        return OPGEN_FAIL(
            ctx, OPGEN_E_SHAPE,
            "%s: takes a 3-d, 4-d or 5-d input (1-D, 2-D or 3-D, batched) and a weight of as many dimensions, got %d-d and %d-d",
            ctx->op, (int)input->dim, (int)weight->dim);
    conv_nd g = {0};
    if (nd_geometry(ctx, input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, &g))
        return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    int64_t sizes[5] = {g.N, g.O, g.out[0], g.out[1], g.out[2]};
    opgen_status st = opgen_out(ctx, out, input->dtype, input->dim, sizes);
    if (st || !opgen_numel(out)) return st;
    if (transposed || input->dim == 5) return conv_direct(ctx, mask, input, weight, bias, &g, out);
    conv_geom g2 = {0};
    if (input->dim == 4) {
        if (conv_geometry(ctx, input, weight, bias, stride, padding, dilation, groups, &g2)) return ctx->err->code;
        return conv2d(ctx, mask, input, weight, bias, &g2, out);
    }
    int64_t s2[2] = {1, g.s[0]}, p2[2] = {0, g.p[0]}, d2[2] = {1, g.d[0]};
    opgen_tensor x = height1(input), w = height1(weight), o = height1(out);
    if (conv_geometry(ctx, &x, &w, bias, (opgen_int_list){s2, 2}, (opgen_int_list){p2, 2}, (opgen_int_list){d2, 2},
                      groups, &g2))
        return ctx->err->code;
    return conv2d(ctx, mask, &x, &w, bias, &g2, &o);
}
