/* Integer (int8) kernels for quantized programs: convolution and linear layers
 * as int8 x int8 -> int32 products, depthwise convolution, and the elementwise
 * and pooling steps between quantize/dequantize pairs. Activations are int8 with
 * a per-tensor scale and zero point, weights int8 symmetric (zero point 0) with
 * per-channel (or one) scales, as PT2E's XNNPACKQuantizer makes them.
 *
 * A product's result is requantized in float, the way XNNPACK's "fp32"
 * requantization does: q = nearbyint(acc * m + b) (round half to even),
 * clamped to the output's range, where acc is the exact int32 sum, m the
 * input's scale times the channel's weight scale over the output's scale and b
 * the bias over the output's scale plus its zero point (one multiply and one
 * add: float, rounded apart, on every variant). The activation is a clamp of
 * that range (quantize is monotone: clamping before it is clamping after).
 * The dequantized pattern's float sum rounds in another order, so a value at a
 * rounding edge may land one step off; nothing else differs. Elementwise
 * results are requantized as quantize_per_tensor does.
 *
 * The products run on AVX-512 VNNI or AVX-VNNI (vpdpbusd: uint8 x int8 in
 * fours) where the CPU has them, else on AVX2 (exact 16-bit products,
 * vpmaddwd), NEON sdot or portable C; activations enter the
 * products as uint8 (x + 128), the weights' sums correcting for the offset and
 * the zero point. Filters are packed once, at load, into memory the method
 * plans (opgen_q8_filter_bytes). Needs no generated header: built once. */
#ifndef OPGEN_Q8_H
#define OPGEN_Q8_H
#include "opgen/parallel.h"
#include "opgen/rt.h"
#include <stdbool.h>

/* A packed filter: O output channels of K = Cg*KH*KW weights each. */
typedef struct opgen_q8_filter {
    int64_t O, K, Kp;  /* Kp: Cg rounded up to 4, times KH*KW */
    bool depthwise;    /* one input channel per output channel: w is [O][K] */
    bool lanes;        /* dense, the output channels in the vector lanes (q8_lanes.inc) */
    int8_t *w;         /* dense: blocks of OPGEN_Q8_MR channels, [Kp/4][MR][4] each, the
                          k4 groups in the order (input channels / 4, kh, kw); with
                          lanes, blocks of 64 channels, [Kp/4][64][4] each (the last
                          one's channels rounded up to 16) */
    const int8_t *raw; /* dense: the weights as given ([O][K], kept by the caller), for one-pixel products */
    int32_t *wsum;     /* [O]: the sum of each channel's weights (dense) */
    float *mul;        /* [O]: the input's scale times the channel's weight scale, over the output's */
    float *bias;       /* [O]: the bias (or 0) over the output's scale, plus its zero point */
} opgen_q8_filter;

/* Requantization of a result, with its activation (0 none, 1 relu, 2 clamp to
 * [lo, hi]) applied before, as the float pattern applies it. */
typedef struct opgen_q8_requant {
    float inv_scale; /* 1 / scale, rounded to float as ExecuTorch does */
    int32_t zp, qmin, qmax;
    int act;
    float lo, hi;
    float qlo, qhi; /* a product's stored range: [qmin, qmax] within the activation's (opgen_q8_requant_range) */
} opgen_q8_requant;

/* One value requantized (the activation applied): what every kernel here stores. */
int32_t opgen_q8_quantize(float v, const opgen_q8_requant *rq);
/* Sets rq->qlo and rq->qhi from the rest. */
void opgen_q8_requant_range(opgen_q8_requant *rq);

/* A convolution's geometry (2-D, NCHW; a linear layer is one of 1x1 pixels). */
typedef struct opgen_q8_conv_geom {
    int64_t N, C, H, W, KH, KW, OH, OW, s[2], p[2], d[2];
    int32_t zx; /* the input's zero point */
} opgen_q8_conv_geom;

enum { OPGEN_Q8_MR = 6, OPGEN_Q8_NR = 64 };

/* Bytes (64-aligned pieces) a packed filter of O x C x KH x KW takes. */
size_t opgen_q8_filter_bytes(int64_t O, int64_t C, int64_t KH, int64_t KW, bool depthwise);
/* Packs int8 weights w ([O][C][KH][KW]; a linear layer's [O][K] is K x 1 x 1)
 * into mem (w must outlive the filter: a one-pixel product reads it as is): scales per channel (wscale[O]) or one
 * (wscale[0], per_channel false), the input's scale xscale, bias[O] or NULL, for results requantized by rq;
 * at: the geometry it will mostly run at (NULL: none in particular), which picks the layout. It runs at any. */
void opgen_q8_filter_pack(opgen_q8_filter *f, void *mem, const int8_t *w, int64_t O, int64_t C, int64_t KH, int64_t KW,
                          bool depthwise, const float *wscale, bool per_channel, float xscale, const float *bias,
                          const opgen_q8_requant *rq, const opgen_q8_conv_geom *at);
/* Scratch bytes a convolution takes (opgen_scratch from the call's arena). */
size_t opgen_q8_conv_scratch(const opgen_q8_conv_geom *g, const opgen_q8_filter *f, const opgen_parallel *par);
/* y[N][O][OH][OW] (int8) = requant(conv(x[N][C][H][W] (int8), f)). */
void opgen_q8_conv(const opgen_parallel *par, const opgen_q8_conv_geom *g, const opgen_q8_filter *f,
                   const opgen_q8_requant *rq, const int8_t *x, int8_t *y, void *scratch);

/* out = requant(sa * (a - za) + sb * (b - zb)), n elements, each operand's
 * dequantization in float as dequantize_per_tensor computes it. out may be a
 * or b exactly. */
void opgen_q8_add(int64_t n, const int8_t *a, float sa, int32_t za, const int8_t *b, float sb, int32_t zb,
                  const opgen_q8_requant *rq, int8_t *out);
/* out = requant(x), n floats (quantize_per_tensor to int8, exactly). */
void opgen_q8_quantize_f32(int64_t n, const float *x, const opgen_q8_requant *rq, int8_t *out);
/* out[i] = table[(uint8_t)x[i]]: any function of one int8 value (a
 * dequantize -> elementwise op -> quantize chain), precomputed. */
void opgen_q8_lookup(int64_t n, const int8_t *x, const int8_t table[256], int8_t *out);
/* Max pooling on int8 values where the input and output share scale and zero
 * point (max commutes with the monotone dequantization): x [N*C][H][W]. */
void opgen_q8_max_pool(int64_t planes, int64_t H, int64_t W, const int8_t *x, int64_t OH, int64_t OW,
                       const int64_t k[2], const int64_t s[2], const int64_t p[2], const int64_t d[2], int8_t *y);

/* y[i] = requant(scale * (sum_j x[i][j] - n * zx) / n) for planes i of n int8
 * values: a mean over a plane of the dequantized values, their sum exact (in
 * integers), the quotient rounded once to float. */
void opgen_q8_mean(int64_t planes, int64_t n, const int8_t *x, int32_t zx, float scale, const opgen_q8_requant *rq,
                   int8_t *y);

/* For tests: dense filters packed from now on put their output channels in
 * the lanes (1), never (0), or where it pays on the variant in use (-1). */
void opgen_q8_use_lanes(int v);
/* For tests: the product kernels used from now on are no better than v (0
 * portable C, 1 AVX2 or NEON sdot, 2 AVX-VNNI, 3 AVX-512 VNNI, 4 that and VBMI's
 * depthwise; -1, the default: the best the CPU has). */
void opgen_q8_use_variant(int v);
/* The variant in use: "avx512-vnni, vbmi", "avx512-vnni", "avx-vnni", "avx2", "neon-sdot" or "portable". */
const char *opgen_q8_variant(void);

#endif
