/* Integer kernels for quantized programs (q8.h): convolutions and linear
 * layers. A dense convolution is a product of the packed filter (blocks of MR
 * channels) and the input's zero-point-padded phase planes (blocks of NR
 * pixels, four channels interleaved: the four bytes a vpdpbusd or sdot lane
 * multiplies), exact in int32, then requantized as each MR x NR tile finishes.
 * Results do not depend on the variant or the thread count: the sums are exact
 * and one function rounds. Elementwise and pooling: q8_elementwise.c. */
#include "q8_arith.h"

enum { MR = OPGEN_Q8_MR, NR = OPGEN_Q8_NR };

int opgen_q8_cap = -1;

int32_t opgen_q8_quantize(float v, const opgen_q8_requant *rq) { return q8_quantize(q8_act(v, *rq), *rq); }

void opgen_q8_requant_range(opgen_q8_requant *rq) {
    opgen_q8_requant plain = *rq;
    plain.act = 0;
    float lo = (float)rq->qmin, hi = (float)rq->qmax;
    if (rq->act) { /* the activation's bounds, quantized: at least lo, at most hi */
        float a = (float)q8_quantize(rq->act == 1 ? 0.0f : rq->lo, plain);
        lo = a > lo ? a : lo;
    }
    if (rq->act == 2) {
        float b = (float)q8_quantize(rq->hi, plain);
        hi = b < hi ? b : hi;
    }
    rq->qlo = lo, rq->qhi = hi;
}

/* One output channel's row of n results: (acc - comp) requantized. */
static void store_row(const int32_t *restrict acc, int64_t n, int32_t comp, float m, float b, float lo, float hi,
                      int8_t *restrict dst) {
    for (int64_t j = 0; j < n; j++) dst[j] = q8_requant(acc[j] - comp, m, b, lo, hi);
}

#if Q8_X86
Q8_AVX512 static void store_row_avx512(const int32_t *restrict acc, int64_t n, int32_t comp, float m, float b, float lo,
                                       float hi, int8_t *restrict dst) {
    const __m512 vm = _mm512_set1_ps(m), vb = _mm512_set1_ps(b), vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    const __m512i vc = _mm512_set1_epi32(comp);
    for (int64_t j = 0; j < n; j += 16) {
        __mmask16 k = q8v_mask(n - j);
        __m512 a = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_maskz_loadu_epi32(k, acc + j), vc));
        q8v_store16(dst + j, k, q8v_requant(a, vm, vb, vlo, vhi));
    }
}
#endif

/* ---- filters ---- */

/* q8_lanes.inc: whether a dense filter's channels go in the lanes, and that packing */
static bool lanes_fit(const opgen_q8_conv_geom *g, int64_t O);
static void lanes_pack(opgen_q8_filter *f, const int8_t *w, int64_t C, int64_t KH, int64_t KW);
int opgen_q8_lanes = -1;
void opgen_q8_use_lanes(int v) { opgen_q8_lanes = v; }

size_t opgen_q8_filter_bytes(int64_t O, int64_t C, int64_t KH, int64_t KW, bool depthwise) {
    int64_t Kp = ceil_div(C, 4) * 4 * KH * KW, rows = ceil_div(O, MR) * MR;
#if Q8_X86
    rows = rows > ceil_div(O, 16) * 16 ? rows : ceil_div(O, 16) * 16; /* the lanes' layout */
#endif
    size_t w = depthwise ? (size_t)(O * C * KH * KW) : (size_t)(rows * Kp);
    return piece(w) + 3 * piece(sizeof(float) * (size_t)O) + 64;
}

void opgen_q8_filter_pack(opgen_q8_filter *f, void *mem, const int8_t *w, int64_t O, int64_t C, int64_t KH, int64_t KW,
                          bool depthwise, const float *wscale, bool per_channel, float xscale, const float *bias,
                          const opgen_q8_requant *rq, const opgen_q8_conv_geom *at) {
    uint8_t *p = (uint8_t *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    int64_t K = C * KH * KW, C4 = ceil_div(C, 4), Kp = C4 * 4 * KH * KW, nob = ceil_div(O, MR);
    bool lanes = Q8_X86 && !depthwise && (opgen_q8_lanes < 0 ? at && lanes_fit(at, O) : opgen_q8_lanes > 0);
    size_t wbytes = opgen_q8_filter_bytes(O, C, KH, KW, depthwise) - 3 * piece(sizeof(float) * (size_t)O) - 64;
    *f = (opgen_q8_filter){O, K, Kp, depthwise, lanes, (int8_t *)p, w, NULL, NULL, NULL};
    f->wsum = (int32_t *)(p += wbytes);
    f->mul = (float *)(p += piece(sizeof(float) * (size_t)O));
    f->bias = (float *)(p + piece(sizeof(float) * (size_t)O));
    if (depthwise) memcpy(f->w, w, (size_t)(O * K));
    if (lanes) lanes_pack(f, w, C, KH, KW);
    /* dense: per block of MR channels, the k4 groups in the order (c4, kh, kw),
     * each [MR][4]: channel r's weights of input channels c4*4 .. +3 at that tap */
    for (int64_t b = 0; !depthwise && !lanes && b < nob; b++)
        for (int64_t g = 0; g < Kp / 4; g++)
            for (int64_t r = 0; r < MR; r++)
                for (int64_t t = 0; t < 4; t++) {
                    int64_t o = b * MR + r, c = g / (KH * KW) * 4 + t, kh = g / KW % KH, kw = g % KW;
                    f->w[((b * (Kp / 4) + g) * MR + r) * 4 + t] =
                        o < O && c < C ? w[((o * C + c) * KH + kh) * KW + kw] : 0;
                }
    for (int64_t o = 0; o < O; o++) {
        int32_t s = 0;
        for (int64_t k = 0; k < K; k++) s += w[o * K + k];
        f->wsum[o] = s;
        f->mul[o] = xscale * wscale[per_channel ? o : 0] * rq->inv_scale;
        f->bias[o] = (bias ? bias[o] : 0.0f) * rq->inv_scale + (float)rq->zp;
    }
}

/* ---- micro-kernels: acc[MR][NR] = W block (Kp/4 x MR x 4) . B (Kp/4 x NR x 4) ----
 * B's k4 group k is NR pixels of four bytes at B + off[k]: one tap of four
 * input channels, read where the transformed input holds it (no im2col). */

typedef void q8_micro(const uint8_t *restrict B, const int64_t *restrict off, const int8_t *restrict W, int64_t k4n,
                      int32_t *restrict acc);

/* Portable C, B holding int8 values (the input as it is). */
static void micro_c(const uint8_t *restrict B, const int64_t *restrict off, const int8_t *restrict W, int64_t k4n,
                    int32_t *restrict acc) {
    memset(acc, 0, sizeof(int32_t) * MR * NR);
    for (int64_t k = 0; k < k4n; k++, W += 4 * MR)
        for (int r = 0; r < MR; r++) {
            const int8_t *b8 = (const int8_t *)B + off[k];
            int32_t w0 = W[4 * r], w1 = W[4 * r + 1], w2 = W[4 * r + 2], w3 = W[4 * r + 3];
            int32_t *a = acc + r * NR;
            for (int j = 0; j < NR; j++)
                a[j] += b8[4 * j] * w0 + b8[4 * j + 1] * w1 + b8[4 * j + 2] * w2 + b8[4 * j + 3] * w3;
        }
}

#if Q8_X86
/* AVX-512 VNNI: B as uint8 (x + 128); a lane is a pixel, 4 x 16 of them, one
 * vpdpbusd per channel and vector with the channel's four weights broadcast. */
/* Named accumulators, not an array: GCC 12 keeps an array of vectors on the
 * stack, copying it every step. */
#define Q8_ROW_DECL(r) __m512i c##r##0 = Q8_INIT(r), c##r##1 = c##r##0, c##r##2 = c##r##0, c##r##3 = c##r##0;
#define Q8_ROW_STEP(r, NC)                                           \
    {                                                                \
        int32_t wv;                                                  \
        memcpy(&wv, W + 4 * (r), 4);                                 \
        __m512i w = _mm512_set1_epi32(wv);                           \
        c##r##0 = _mm512_dpbusd_epi32(c##r##0, b0, w);               \
        if ((NC) > 1) c##r##1 = _mm512_dpbusd_epi32(c##r##1, b1, w); \
        if ((NC) > 2) c##r##2 = _mm512_dpbusd_epi32(c##r##2, b2, w); \
        if ((NC) > 3) c##r##3 = _mm512_dpbusd_epi32(c##r##3, b3, w); \
    }
/* NC vectors of 16 pixels (a tile's last block may need fewer than 4) */
#define Q8_VNNI_TILE(NC)                                                                                          \
    const __m512i z = _mm512_setzero_si512();                                                                     \
    Q8_ROW_DECL(0)                                                                                                \
    Q8_ROW_DECL(1)                                                                                                \
    Q8_ROW_DECL(2) Q8_ROW_DECL(3) Q8_ROW_DECL(4) Q8_ROW_DECL(5) for (int64_t k = 0; k < k4n; k++, W += 4 * MR) {  \
        const uint8_t *b = B + off[k];                                                                            \
        __m512i b0 = _mm512_loadu_si512(b), b1 = (NC) > 1 ? _mm512_loadu_si512(b + 64) : z;                       \
        __m512i b2 = (NC) > 2 ? _mm512_loadu_si512(b + 128) : z, b3 = (NC) > 3 ? _mm512_loadu_si512(b + 192) : z; \
        Q8_ROW_STEP(0, NC)                                                                                        \
        Q8_ROW_STEP(1, NC) Q8_ROW_STEP(2, NC) Q8_ROW_STEP(3, NC) Q8_ROW_STEP(4, NC) Q8_ROW_STEP(5, NC)            \
    }
#define Q8_ROW_STORE(r)                              \
    _mm512_storeu_si512(acc + (r)*NR, c##r##0);      \
    _mm512_storeu_si512(acc + (r)*NR + 16, c##r##1); \
    _mm512_storeu_si512(acc + (r)*NR + 32, c##r##2); \
    _mm512_storeu_si512(acc + (r)*NR + 48, c##r##3);
#define Q8_VNNI512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define Q8_INIT(r) z
Q8_VNNI512 static void micro_vnni512(const uint8_t *restrict B, const int64_t *restrict off, const int8_t *restrict W,
                                     int64_t k4n, int32_t *restrict acc) {
    Q8_VNNI_TILE(4)
    Q8_ROW_STORE(0) Q8_ROW_STORE(1) Q8_ROW_STORE(2) Q8_ROW_STORE(3) Q8_ROW_STORE(4) Q8_ROW_STORE(5)
}

/* A tile's sums requantized in registers and stored: row r (channel o0 + r) in
 * y[r], its 64 wide pixels' bytes in segments, each a run of lanes that is one
 * output row's (the columns past OW, which the wide output computes, are not
 * stored); a segment's lanes a .. a + len go to y[r] + o .. (a masked store
 * from y[r] + o - a: the bytes outside the mask are neither read nor written). */
enum { Q8_SEGS = 10 }; /* 64 wide pixels in rows of Wq >= 8 make at most 64 / 8 + 2 runs */
typedef struct q8_tile {
    int8_t *y[MR];
    __m512i ncomp[MR]; /* the sums start here: less the zero points' part (comp in store_wide) */
    __m512 m[MR], b[MR], hi;
    __m512i qlo; /* the low bound, as bytes */
    int64_t o[Q8_SEGS], a[Q8_SEGS];
    __mmask64 k[Q8_SEGS];
    int rows, segs;
} q8_tile;

/* 16 sums of row r requantized to int32, clamped above only: the clamp
 * below is done on the narrowed bytes (q8v_store). The results equal
 * q8v_requant's for every finite sum (the sums and factors always are): below
 * lo, the rounded value (an integer bound: rounding keeps the order) or its
 * saturation is below lo too; +inf is clamped to hi before the conversion. */
Q8_AVX512 static inline __m512i q8v_row16(const q8_tile *t, int r, __m512i a) {
    __m512 v = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(a), t->m[r]), t->b[r]);
    return _mm512_cvtps_epi32(_mm512_min_ps(v, t->hi));
}
/* Row r's NC vectors requantized and stored by the tile's segments (lanes
 * past 16 NC are in no segment): narrowed by saturating packs (one uop each;
 * vpmovdb is two), which interleave the four vectors by 128-bit lanes, put
 * back in order by one vpermd, then clamped below as bytes. */
Q8_AVX512 static inline void q8v_store(const q8_tile *t, int r, int nc, __m512i a0, __m512i a1, __m512i a2,
                                       __m512i a3) {
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    __m512i b0 = q8v_row16(t, r, a0), z = _mm512_setzero_si512();
    __m512i b1 = nc > 1 ? q8v_row16(t, r, a1) : z, b2 = nc > 2 ? q8v_row16(t, r, a2) : z;
    __m512i b3 = nc > 3 ? q8v_row16(t, r, a3) : z;
    __m512i q = _mm512_packs_epi16(_mm512_packs_epi32(b0, b1), _mm512_packs_epi32(b2, b3));
    q = _mm512_max_epi8(_mm512_permutexvar_epi32(order, q), t->qlo);
    for (int s = 0; s < t->segs; s++) _mm512_mask_storeu_epi8(t->y[r] + t->o[s] - t->a[s], t->k[s], q);
}
typedef void q8_micro_q(const uint8_t *restrict B, const int64_t *restrict off, const int8_t *restrict W, int64_t k4n,
                        const q8_tile *t);
#undef Q8_INIT
#define Q8_INIT(r) t->ncomp[r]
#define Q8_ROW_REQUANT(r, NC) \
    if ((r) < t->rows) q8v_store(t, r, NC, c##r##0, c##r##1, c##r##2, c##r##3);
#define Q8_MICRO_Q(NAME, NC)                                                                                          \
    Q8_VNNI512 static void NAME(const uint8_t *restrict B, const int64_t *restrict off, const int8_t *restrict W,     \
                                int64_t k4n, const q8_tile *t) {                                                      \
        Q8_VNNI_TILE(NC)                                                                                              \
        Q8_ROW_REQUANT(0, NC)                                                                                         \
        Q8_ROW_REQUANT(1, NC) Q8_ROW_REQUANT(2, NC) Q8_ROW_REQUANT(3, NC) Q8_ROW_REQUANT(4, NC) Q8_ROW_REQUANT(5, NC) \
    }
Q8_MICRO_Q(micro_vnni512_q, 4)
Q8_MICRO_Q(micro_vnni512_q3, 3)
Q8_MICRO_Q(micro_vnni512_q2, 2)
Q8_MICRO_Q(micro_vnni512_q1, 1)
#undef Q8_ROW_DECL
#undef Q8_INIT
#undef Q8_ROW_STEP
#undef Q8_ROW_STORE
#undef Q8_ROW_REQUANT
#undef Q8_MICRO_Q
#undef Q8_VNNI_TILE

/* AVX-VNNI (256-bit vpdpbusd, 16 vector registers): three channels by 32 pixels
 * at a time, four passes over the block. */
__attribute__((target("avx2,avxvnni"))) static void micro_avxvnni(const uint8_t *restrict B,
                                                                  const int64_t *restrict off, const int8_t *restrict W,
                                                                  int64_t k4n, int32_t *restrict acc) {
    for (int r0 = 0; r0 < MR; r0 += 3)
        for (int h = 0; h < 2; h++) {
            __m256i c[3][4];
            for (int r = 0; r < 3; r++)
                for (int i = 0; i < 4; i++) c[r][i] = _mm256_setzero_si256();
            const int8_t *w8 = W + 4 * r0;
            for (int64_t k = 0; k < k4n; k++, w8 += 4 * MR) {
                const uint8_t *b = B + off[k] + 128 * h;
                __m256i b0 = _mm256_loadu_si256((const __m256i *)b), b1 = _mm256_loadu_si256((const __m256i *)(b + 32));
                __m256i b2 = _mm256_loadu_si256((const __m256i *)(b + 64));
                __m256i b3 = _mm256_loadu_si256((const __m256i *)(b + 96));
                for (int r = 0; r < 3; r++) {
                    int32_t wv;
                    memcpy(&wv, w8 + 4 * r, 4);
                    __m256i w = _mm256_set1_epi32(wv);
                    c[r][0] = _mm256_dpbusd_avx_epi32(c[r][0], b0, w);
                    c[r][1] = _mm256_dpbusd_avx_epi32(c[r][1], b1, w);
                    c[r][2] = _mm256_dpbusd_avx_epi32(c[r][2], b2, w);
                    c[r][3] = _mm256_dpbusd_avx_epi32(c[r][3], b3, w);
                }
            }
            for (int r = 0; r < 3; r++)
                for (int i = 0; i < 4; i++)
                    _mm256_storeu_si256((__m256i *)(acc + (r0 + r) * NR + 32 * h + 8 * i), c[r][i]);
        }
}
#endif

#if Q8_X86
/* AVX2 without VNNI: exact 16-bit products (vpmaddwd; vpmaddubsw's 16-bit
 * sums would saturate). A pixel's four bytes widened to int16, times its
 * channel's four weights, leave two int32 partial sums per pixel, added at
 * the end (vphaddd, then vpermq back into pixel order). Three channels by 16
 * pixels at a time, eight passes over the block. */
__attribute__((target("avx2"))) static void micro_avx2(const uint8_t *restrict B, const int64_t *restrict off,
                                                       const int8_t *restrict W, int64_t k4n, int32_t *restrict acc) {
    for (int r0 = 0; r0 < MR; r0 += 3)
        for (int q = 0; q < NR / 16; q++) {
            __m256i c[3][4];
            for (int r = 0; r < 3; r++)
                for (int i = 0; i < 4; i++) c[r][i] = _mm256_setzero_si256();
            const int8_t *w8 = W + 4 * r0;
            for (int64_t k = 0; k < k4n; k++, w8 += 4 * MR) {
                const uint8_t *b = B + off[k] + 64 * q;
                __m256i x[4];
                for (int i = 0; i < 4; i++) x[i] = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(b + 16 * i)));
                for (int r = 0; r < 3; r++) {
                    const int8_t *w = w8 + 4 * r; /* per pixel (w0, w1, w2, w3) as int16 */
                    __m256i wp =
                        _mm256_set1_epi64x((int64_t)((uint64_t)(uint16_t)w[0] | (uint64_t)(uint16_t)w[1] << 16 |
                                                     (uint64_t)(uint16_t)w[2] << 32 | (uint64_t)(uint16_t)w[3] << 48));
                    for (int i = 0; i < 4; i++) c[r][i] = _mm256_add_epi32(c[r][i], _mm256_madd_epi16(x[i], wp));
                }
            }
            for (int r = 0; r < 3; r++)
                for (int i = 0; i < 4; i += 2) { /* pixels 4i .. 4i + 7 */
                    __m256i h = _mm256_permute4x64_epi64(_mm256_hadd_epi32(c[r][i], c[r][i + 1]), 0xD8);
                    _mm256_storeu_si256((__m256i *)(acc + (r0 + r) * NR + 16 * q + 4 * i), h);
                }
        }
}
#endif

#if Q8_SDOT
/* Arm's sdot (int8 x int8 in fours): B as int8, 16 vectors of 4 pixels. */
static void micro_sdot(const uint8_t *restrict B, const int64_t *restrict off, const int8_t *restrict W, int64_t k4n,
                       int32_t *restrict acc) {
    for (int r = 0; r < MR; r++) {
        int32x4_t c[NR / 4];
        for (int i = 0; i < NR / 4; i++) c[i] = vdupq_n_s32(0);
        const int8_t *w = W + 4 * r;
        for (int64_t k = 0; k < k4n; k++, w += 4 * MR) {
            const int8_t *b = (const int8_t *)B + off[k];
            int32_t wv;
            memcpy(&wv, w, 4);
            int8x16_t wq = vreinterpretq_s8_s32(vdupq_n_s32(wv));
            for (int i = 0; i < NR / 4; i++) c[i] = vdotq_s32(c[i], vld1q_s8(b + 16 * i), wq);
        }
        for (int i = 0; i < NR / 4; i++) vst1q_s32(acc + r * NR + 4 * i, c[i]);
    }
}
#endif

/* The variant: its micro-kernel and the offset its B holds the input at. */
typedef void q8_store(const int32_t *restrict, int64_t, int32_t, float, float, float, float, int8_t *restrict);
typedef struct q8_variant {
    q8_micro *fn;
    q8_store *store;
    int32_t offset; /* 128: uint8 (x + 128); 0: int8 as is */
    const char *name;
    bool vbmi; /* depthwise in integers (vpermb) */
} q8_variant;

void opgen_q8_use_variant(int v) { opgen_q8_cap = v; }

#if Q8_X86
/* AVX-VNNI: CPUID leaf 7, subleaf 1, EAX bit 4 (clang 14's
 * __builtin_cpu_supports does not know it), with the OS saving ymm (AVX2). */
static bool has_avxvnni(void) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__builtin_cpu_supports("avx2") || __get_cpuid_max(0, NULL) < 7) return false;
    __cpuid_count(7, 1, a, b, c, d);
    return (a >> 4) & 1u;
}
#endif

static q8_variant q8_pick(void) {
    int cap = opgen_q8_cap < 0 ? 4 : opgen_q8_cap;
#if Q8_X86
    if (cap >= 3 && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl")) {
        if (cap >= 4 && __builtin_cpu_supports("avx512vbmi"))
            return (q8_variant){micro_vnni512, store_row_avx512, 128, "avx512-vnni, vbmi", true};
        return (q8_variant){micro_vnni512, store_row_avx512, 128, "avx512-vnni", false};
    }
#if defined(__clang__) || __GNUC__ >= 11
    if (cap >= 2 && has_avxvnni()) return (q8_variant){micro_avxvnni, store_row, 128, "avx-vnni", false};
#endif
    if (cap >= 1 && __builtin_cpu_supports("avx2")) return (q8_variant){micro_avx2, store_row, 128, "avx2", false};
#endif
#if Q8_SDOT
    if (cap >= 1) return (q8_variant){micro_sdot, store_row, 0, "neon-sdot", false};
#endif
    (void)cap; /* a target with no vector variant */
    return (q8_variant){micro_c, store_row, 0, "portable", false};
}
const char *opgen_q8_variant(void) { return q8_pick().name; }

/* ---- dense convolution ----
 * The input is transformed once per image into its zero-point-padded phase
 * planes (stride s: s0 x s1 planes, the pixels of one row and column phase),
 * four channels interleaved: X[phase][c4][Hq][Wq][4] bytes. A tap (kh, kw) of
 * channels c4*4 .. +3 is then one plane shifted: over the "wide" output (OH rows
 * of Wq pixels, of which the first OW are the result) its bytes for wide pixel p
 * lie at X + off + 4p. The columns past OW are computed and not stored. */

typedef struct q8_conv_job {
    const opgen_q8_conv_geom *g;
    const opgen_q8_filter *f;
    const opgen_q8_requant *rq;
    q8_variant v;
    const int8_t *x; /* this image */
    int8_t *y;
    uint8_t *X;    /* the transformed input, with NR pixels of slack */
    int64_t *off;  /* [Kp/4]: each k4 group's byte offset in X */
    uint8_t *work; /* per part: a tile of int32 sums */
    size_t work_bytes;
    int64_t Hq, Wq, C4, plane, P, nblk, nob, osplit;
    uint64_t phases; /* bit ph * s1 + pw: a tap reads that phase plane (a 1x1 stride-2 filter reads one) */
    int nparts;
    bool fused; /* tiles requantized in registers and stored by segments (micro_vnni512_q) */
    bool lanes; /* the filter's channels in the lanes (q8_lanes.inc) */
    bool own;   /* each part transforms all of x into a copy of its own (lanes_part) */
} q8_conv_job;

static void q8_shape(q8_conv_job *J) {
    const opgen_q8_conv_geom *g = J->g;
    J->Hq = ceil_div(g->H + 2 * g->p[0], g->s[0]), J->Wq = ceil_div(g->W + 2 * g->p[1], g->s[1]);
    J->C4 = ceil_div(g->C, 4);
    /* rows past Hq: a wide pixel's taps reach up to (KH-1)*d/s rows down, plus
     * the last block's slack (one row: no tap reaches down) */
    int64_t below = J->Hq == 1 ? 0 : (g->KH * g->d[0] / g->s[0] + 1) * J->Wq;
    J->plane = 4 * (J->Hq * J->Wq + below + NR + g->KW * g->d[1]);
    J->P = g->OH * J->Wq;
    J->nblk = ceil_div(J->P, NR);
    J->phases = 0;
    for (int64_t kh = 0; kh < g->KH; kh++)
        for (int64_t kw = 0; kw < g->KW; kw++) {
            int64_t ph = kh * g->d[0] % g->s[0] * g->s[1] + kw * g->d[1] % g->s[1];
            J->phases |= ph < 64 ? (uint64_t)1 << ph : ~(uint64_t)0;
        }
}

static size_t transformed_bytes(const q8_conv_job *J) {
    return piece((size_t)(J->g->s[0] * J->g->s[1] * J->C4 * J->plane));
}

#if Q8_X86
/* The bytes r[s * j], j < n <= 16 (s 1 or 2), widened to 32 bits: a stride-2
 * row's every other byte is the low byte of its 16-bit words, read up to its
 * last byte only. */
Q8_AVX512 static inline __m512i strided16(const uint8_t *r, int64_t s, int64_t n) {
    if (s == 1) return _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(q8v_mask(n), r));
    __mmask32 m = (__mmask32)((1u << (2 * n - 1)) - 1);
    return _mm512_cvtepu8_epi32(_mm256_cvtepi16_epi8(_mm256_maskz_loadu_epi8(m, r)));
}

/* d[4j + t] = r[t][s j] + off for j in [j0, j1): 16 pixels of four channels at a time. */
Q8_AVX512 static void interleave4_avx512(uint8_t *d, const uint8_t *const r[4], int64_t s, int64_t j0, int64_t j1,
                                         uint8_t off) {
    const __m512i o = _mm512_set1_epi8((char)off);
    for (; s == 1 && j1 - j0 >= 64; j0 += 64) { /* 64 pixels: a 4 x 64 byte transpose */
        __m512i a = _mm512_loadu_si512(r[0] + j0), b = _mm512_loadu_si512(r[1] + j0);
        __m512i c = _mm512_loadu_si512(r[2] + j0), e = _mm512_loadu_si512(r[3] + j0);
        __m512i ab0 = _mm512_unpacklo_epi8(a, b), ab1 = _mm512_unpackhi_epi8(a, b);
        __m512i ce0 = _mm512_unpacklo_epi8(c, e), ce1 = _mm512_unpackhi_epi8(c, e);
        /* q_i's 128-bit lane L: pixels 16 L + 4 i .. + 3, four bytes each */
        __m512i q0 = _mm512_unpacklo_epi16(ab0, ce0), q1 = _mm512_unpackhi_epi16(ab0, ce0);
        __m512i q2 = _mm512_unpacklo_epi16(ab1, ce1), q3 = _mm512_unpackhi_epi16(ab1, ce1);
        __m512i t0 = _mm512_shuffle_i64x2(q0, q1, 0x44), t1 = _mm512_shuffle_i64x2(q0, q1, 0xEE);
        __m512i t2 = _mm512_shuffle_i64x2(q2, q3, 0x44), t3 = _mm512_shuffle_i64x2(q2, q3, 0xEE);
        _mm512_storeu_si512(d + 4 * j0, _mm512_add_epi8(_mm512_shuffle_i64x2(t0, t2, 0x88), o));
        _mm512_storeu_si512(d + 4 * j0 + 64, _mm512_add_epi8(_mm512_shuffle_i64x2(t0, t2, 0xDD), o));
        _mm512_storeu_si512(d + 4 * j0 + 128, _mm512_add_epi8(_mm512_shuffle_i64x2(t1, t3, 0x88), o));
        _mm512_storeu_si512(d + 4 * j0 + 192, _mm512_add_epi8(_mm512_shuffle_i64x2(t1, t3, 0xDD), o));
    }
    for (int64_t j = j0; j < j1; j += 16) {
        int64_t n = j1 - j < 16 ? j1 - j : 16;
        __m512i v = strided16(r[0] + s * j, s, n);
        v = _mm512_or_si512(v, _mm512_slli_epi32(strided16(r[1] + s * j, s, n), 8));
        v = _mm512_or_si512(v, _mm512_slli_epi32(strided16(r[2] + s * j, s, n), 16));
        v = _mm512_or_si512(v, _mm512_slli_epi32(strided16(r[3] + s * j, s, n), 24));
        _mm512_mask_storeu_epi32(d + 4 * j, q8v_mask(n), _mm512_add_epi8(v, o));
    }
}
#endif

/* Rows i0 .. i1 of phase plane (ph, pw) of channels c4*4 .. +3, and (tail) the
 * slack after its last row. */
static void transform_plane(const q8_conv_job *J, int64_t ph, int64_t pw, int64_t c4, int64_t i0, int64_t i1,
                            bool tail) {
    const opgen_q8_conv_geom *g = J->g;
    uint8_t off = (uint8_t)J->v.offset, pad = (uint8_t)(g->zx + J->v.offset);
    uint8_t *dst = J->X + ((ph * g->s[1] + pw) * J->C4 + c4) * J->plane;
    /* the padding's bytes: rows outside, columns either side, the slack after */
    if (tail) memset(dst + 4 * J->Hq * J->Wq, pad, (size_t)(J->plane - 4 * J->Hq * J->Wq));
    const uint8_t *src[4];
    int nc = 0;
    for (int t = 0; t < 4 && c4 * 4 + t < g->C; t++, nc++) src[t] = (const uint8_t *)J->x + (c4 * 4 + t) * g->H * g->W;
    /* columns j whose input column iw = j * s1 + pw - p1 is inside the row */
    int64_t j0 = pw >= g->p[1] ? 0 : ceil_div(g->p[1] - pw, g->s[1]);
    int64_t j1 = ceil_div(g->W + g->p[1] - pw, g->s[1]);
    j1 = j1 > J->Wq ? J->Wq : j1;
#if Q8_X86
    bool vec = g->s[1] <= 2 && J->v.store == store_row_avx512; /* interleave4_avx512 */
#else
    bool vec = false;
#endif
    for (int64_t i = i0; i < i1; i++) {
        int64_t ih = i * g->s[0] + ph - g->p[0];
        uint8_t *d = dst + 4 * i * J->Wq;
        if (ih < 0 || ih >= g->H || (nc < 4 && !vec)) memset(d, pad, (size_t)(4 * J->Wq));
        if (ih < 0 || ih >= g->H) continue;
        memset(d, pad, (size_t)(4 * j0));
        memset(d + 4 * j1, pad, (size_t)(4 * (J->Wq - j1)));
#if Q8_X86
        if (vec) {
            /* a channel past C reads channel c4 * 4's bytes: its weights are zeros */
            const uint8_t *r[4];
            for (int t = 0; t < 4; t++) r[t] = src[t < nc ? t : 0] + ih * g->W - g->p[1] + pw;
            interleave4_avx512(d, r, g->s[1], j0, j1, off);
            continue;
        }
#endif
        for (int t = 0; t < nc; t++) {
            const uint8_t *r = src[t] + ih * g->W - g->p[1] + pw;
            for (int64_t j = j0; j < j1; j++) d[4 * j + t] = (uint8_t)(r[j * g->s[1]] + off);
        }
    }
}

/* Pixels a .. b of channels c4*4 .. +3 in a one-row plane without padding (a
 * flat filter, q8_flat), and (tail) the slack after the row. */
static void transform_span(const q8_conv_job *J, int64_t c4, int64_t a, int64_t b, bool tail) {
    const opgen_q8_conv_geom *g = J->g;
    uint8_t off = (uint8_t)J->v.offset, *d = J->X + c4 * J->plane;
    if (tail) memset(d + 4 * J->Wq, (uint8_t)(g->zx + J->v.offset), (size_t)(J->plane - 4 * J->Wq));
    int nc = g->C - c4 * 4 < 4 ? (int)(g->C - c4 * 4) : 4;
    const uint8_t *r[4]; /* a channel past C reads channel c4 * 4's bytes: its weights are zeros */
    for (int t = 0; t < 4; t++) r[t] = (const uint8_t *)J->x + (c4 * 4 + (t < nc ? t : 0)) * g->W;
#if Q8_X86
    if (J->v.store == store_row_avx512) {
        interleave4_avx512(d, r, 1, a, b, off);
        return;
    }
#endif
    for (int t = 0; t < 4; t++)
        for (int64_t j = a; j < b; j++) d[4 * j + t] = (uint8_t)(r[t][j] + off);
}

static bool phase_read(const q8_conv_job *J, int64_t phase) { return phase >= 64 || J->phases >> phase & 1; }

/* Where part's pixels start: the wide output in equal ranges of whole vectors
 * (16 pixels), each tiled from its start (a range's last tile may be narrow),
 * so that the parts' vectors differ by one at most. */
static int64_t part_pixel(const q8_conv_job *J, int part) {
    return part >= J->nparts ? J->P : J->P * part / J->nparts / 16 * 16;
}

/* The first plane row part transforms: the rows its tiles read (conv_part's
 * pixels, part_pixel; a neighbour's rows only where a tap reaches past its own), so a
 * thread reads what it wrote, in its own cache; evenly where the tiles split
 * channels instead (fewer pixel blocks than parts). */
static int64_t part_row(const q8_conv_job *J, int part) {
    if (part >= J->nparts) return J->Hq;
    const opgen_q8_conv_geom *g = J->g;
    int64_t r = J->osplit > 1 ? J->Hq * part / J->nparts
                : J->lanes    ? g->OH * g->OW * part / J->nparts / g->OW /* lanes_pixel's row */
                              : part_pixel(J, part) / J->Wq;
    return r < J->Hq ? r : J->Hq;
}

/* A 1x1 filter of stride 1 without padding (q8_flat makes it one row). */
static bool pointwise(const opgen_q8_conv_geom *g) {
    return g->KH == 1 && g->KW == 1 && g->s[0] == 1 && g->s[1] == 1 && g->p[0] == 0 && g->p[1] == 0;
}
/* One row of pixels under a pointwise filter: q8_flat's. */
static bool is_flat(const opgen_q8_conv_geom *g) { return g->H == 1 && pointwise(g); }

/* Rows part_row(part) .. of every plane a tap reads (a 1x1 stride-2 filter
 * reads one phase of four; a flat filter's one row, its pixels as conv_part
 * splits them); the last part also the slack after them. */
static void transform_part(void *arg, int part) {
    const q8_conv_job *J = arg;
    if (is_flat(J->g)) {
        for (int64_t c4 = 0; c4 < J->C4; c4++)
            transform_span(J, c4, part_pixel(J, part), part_pixel(J, part + 1), part == J->nparts - 1);
        return;
    }
    int64_t i0 = part_row(J, part), i1 = part_row(J, part + 1);
    bool tail = part == J->nparts - 1;
    for (int64_t ph = 0; ph < J->g->s[0] * J->g->s[1]; ph++)
        for (int64_t c4 = 0; phase_read(J, ph) && c4 < J->C4 && (i0 < i1 || tail); c4++)
            transform_plane(J, ph / J->g->s[1], ph % J->g->s[1], c4, i0, i1, tail);
}

/* The k4 groups' offsets, in the filter's order (c4, kh, kw). */
static void tap_offsets(const q8_conv_job *J) {
    const opgen_q8_conv_geom *g = J->g;
    int64_t k = 0;
    for (int64_t c4 = 0; c4 < J->C4; c4++)
        for (int64_t kh = 0; kh < g->KH; kh++)
            for (int64_t kw = 0; kw < g->KW; kw++) {
                int64_t rh = kh * g->d[0], rw = kw * g->d[1];
                int64_t phase = (rh % g->s[0]) * g->s[1] + rw % g->s[1];
                J->off[k++] = (phase * J->C4 + c4) * J->plane + 4 * ((rh / g->s[0]) * J->Wq + rw / g->s[1]);
            }
}

/* The stored runs of wide pixels p0 .. p0 + n, one at a time (the walk from
 * q8_run_start): a tile's lanes a .. a + len are output pixels o .. o + len
 * (the columns past OW are computed, not stored). Runs contiguous in both
 * merge: without padding columns a tile is one run. */
typedef struct q8_run {
    int64_t p, end, oh, ow; /* the walk */
    int64_t a, o, len;      /* the run found */
} q8_run;

static q8_run q8_run_start(const q8_conv_job *J, int64_t p0, int64_t n) {
    q8_run r = {p0, p0 + n, p0 / J->Wq, p0 % J->Wq, 0, 0, 0};
    return r;
}

static bool q8_next_run(const q8_conv_job *J, int64_t p0, q8_run *r) {
    const opgen_q8_conv_geom *g = J->g;
    bool found = false;
    for (; r->p < r->end && r->oh < g->OH; r->oh++, r->ow = 0) {
        int64_t run = J->Wq - r->ow < r->end - r->p ? J->Wq - r->ow : r->end - r->p;
        if (r->ow < g->OW) {
            int64_t a = r->p - p0, o = r->oh * g->OW + r->ow, len = g->OW - r->ow < run ? g->OW - r->ow : run;
            if (!found)
                r->a = a, r->o = o, r->len = len, found = true;
            else if (r->a + r->len == a && r->o + r->len == o)
                r->len += len;
            else
                return true; /* the next run starts here */
        }
        r->p += run;
    }
    return found;
}

/* A tile's row of sums (channel o) requantized and stored by runs. */
static void store_wide(const q8_conv_job *J, const int32_t *acc, int64_t p0, int64_t n, int64_t o) {
    const opgen_q8_filter *f = J->f;
    int32_t comp = f->wsum[o] * (J->g->zx + J->v.offset);
    int8_t *y = J->y + o * J->g->OH * J->g->OW;
    for (q8_run r = q8_run_start(J, p0, n); q8_next_run(J, p0, &r);)
        J->v.store(acc + r.a, r.len, comp, f->mul[o], f->bias[o], J->rq->qlo, J->rq->qhi, y + r.o);
}

#if Q8_X86
/* The tiles of wide pixels p0 .. p0 + n through micro_vnni512_q, channel blocks
 * ob0 .. ob1, their runs found once for all; false (nothing done) where they
 * are more than Q8_SEGS (rows under 8 pixels). */
Q8_AVX512 static bool conv_tiles_fused(const q8_conv_job *J, int64_t ob0, int64_t ob1, int64_t p0, int64_t n) {
    const opgen_q8_filter *f = J->f;
    q8_tile t;
    t.segs = 0;
    for (q8_run r = q8_run_start(J, p0, n); q8_next_run(J, p0, &r); t.segs++) {
        if (t.segs == Q8_SEGS) return false;
        t.a[t.segs] = r.a, t.o[t.segs] = r.o;
        t.k[t.segs] = (r.len == 64 ? ~(__mmask64)0 : ((__mmask64)1 << r.len) - 1) << r.a;
    }
    t.qlo = _mm512_set1_epi8((char)(int)J->rq->qlo), t.hi = _mm512_set1_ps(J->rq->qhi);
    static q8_micro_q *const micros[4] = {micro_vnni512_q1, micro_vnni512_q2, micro_vnni512_q3, micro_vnni512_q};
    q8_micro_q *micro = micros[(n - 1) / 16]; /* the vectors the block's pixels fill */
    for (int64_t ob = ob0; ob < ob1; ob++) {
        t.rows = (int)(f->O - ob * MR < MR ? f->O - ob * MR : MR);
        for (int r = t.rows; r < MR; r++) t.ncomp[r] = _mm512_setzero_si512(); /* computed, not stored */
        for (int r = 0; r < t.rows; r++) {
            int64_t o = ob * MR + r;
            t.y[r] = J->y + o * J->g->OH * J->g->OW;
            t.ncomp[r] = _mm512_set1_epi32(-f->wsum[o] * (J->g->zx + 128));
            t.m[r] = _mm512_set1_ps(f->mul[o]), t.b[r] = _mm512_set1_ps(f->bias[o]);
        }
        micro(J->X + 4 * p0, J->off, f->w + ob * MR * f->Kp, f->Kp / 4, &t);
    }
    return true;
}
#endif

/* The tiles of pixels p0 .. p0 + n (n <= NR), channel blocks ob0 .. ob1. */
static void conv_tiles(const q8_conv_job *J, int64_t p0, int64_t n, int64_t ob0, int64_t ob1, int32_t *acc) {
    const opgen_q8_filter *f = J->f;
#if Q8_X86
    if (J->fused && conv_tiles_fused(J, ob0, ob1, p0, n)) return;
#endif
    for (int64_t ob = ob0; ob < ob1; ob++) {
        J->v.fn(J->X + 4 * p0, J->off, f->w + ob * MR * f->Kp, f->Kp / 4, acc);
        for (int r = 0; r < MR && ob * MR + r < f->O; r++) store_wide(J, acc + r * NR, p0, n, ob * MR + r);
    }
}

static void conv_part(void *arg, int part) {
    const q8_conv_job *J = arg;
    int32_t *acc = (int32_t *)(J->work + (size_t)part * J->work_bytes);
    if (J->osplit > 1) { /* fewer blocks than parts: each part all blocks, its share of the channels */
        int64_t ob0 = J->nob * part / J->nparts, ob1 = J->nob * (part + 1) / J->nparts;
        for (int64_t p0 = 0; p0 < J->P; p0 += NR) conv_tiles(J, p0, J->P - p0 < NR ? J->P - p0 : NR, ob0, ob1, acc);
        return;
    }
    for (int64_t p0 = part_pixel(J, part), p1 = part_pixel(J, part + 1); p0 < p1; p0 += NR)
        conv_tiles(J, p0, p1 - p0 < NR ? p1 - p0 : NR, 0, J->nob, acc);
}

/* A flat filter's part in one job: each tile's pixels transformed, then its
 * products, so a part reads only what it wrote, within the tile (no wait for
 * the other parts between). The fused tiles read whole vectors of pixels: up
 * to the part's end (a multiple of 16 but for the last, whose slack it writes
 * first). */
static void flat_part(void *arg, int part) {
    const q8_conv_job *J = arg;
    int32_t *acc = (int32_t *)(J->work + (size_t)part * J->work_bytes);
    int64_t p1 = part_pixel(J, part + 1);
    for (int64_t c4 = 0; part == J->nparts - 1 && c4 < J->C4; c4++) transform_span(J, c4, 0, 0, true);
    for (int64_t p0 = part_pixel(J, part); p0 < p1; p0 += NR) {
        int64_t n = p1 - p0 < NR ? p1 - p0 : NR;
        for (int64_t c4 = 0; c4 < J->C4; c4++) transform_span(J, c4, p0, p0 + n, false);
        conv_tiles(J, p0, n, 0, J->nob, acc);
    }
}

#include "q8_depthwise.inc"
#include "q8_lanes.inc"

/* ---- one pixel (a linear layer of one row): a product of the weights' rows
 * and the input, each output channel's sum over K at a time ---- */

static void dot_rows_c(const q8_conv_job *J, int64_t o0, int64_t o1, int32_t *acc) {
    const int8_t *x = J->x;
    for (int64_t o = o0; o < o1; o++) {
        const int8_t *w = J->f->raw + o * J->f->K;
        int32_t a = 0;
        for (int64_t k = 0; k < J->f->K; k++) a += w[k] * x[k];
        acc[o - o0] = a;
    }
}

#if Q8_X86
/* vpdpbusd of (x + 128) and a row, 64 at a time, summed across the lanes; four
 * rows at a time (four independent sums, x read once for them: one row's chain
 * of products waited on each step's latency). The rows two groups on are
 * fetched meanwhile: a classifier's weights (MobileNetV2's 1.28 MB) come from
 * memory each call, and four rows of a few lines each are too short for the
 * hardware's prefetcher (1000 x 1280 from memory: 84 -> 36 us). */
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void dot_rows_vnni(const q8_conv_job *J, int64_t o0,
                                                                                 int64_t o1, int32_t *acc) {
    int64_t K = J->f->K;
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    for (int64_t o = o0; o < o1; o += 4) {
        const int8_t *w[4];
        for (int i = 0; i < 4; i++) w[i] = J->f->raw + (o + i < o1 ? o + i : o1 - 1) * K;
        const int8_t *ahead = o + 12 <= o1 ? J->f->raw + (o + 8) * K : NULL; /* rows o + 8 .. o + 11 */
        __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
        for (int64_t k = 0; k < K; k += 64) {
            for (int i = 0; ahead && i < 4; i++) _mm_prefetch((const char *)(ahead + i * K + k), _MM_HINT_T0);
            __mmask64 m = K - k >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (K - k)) - 1);
            __m512i xv = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, J->x + k), flip);
            a0 = _mm512_dpbusd_epi32(a0, xv, _mm512_maskz_loadu_epi8(m, w[0] + k));
            a1 = _mm512_dpbusd_epi32(a1, xv, _mm512_maskz_loadu_epi8(m, w[1] + k));
            a2 = _mm512_dpbusd_epi32(a2, xv, _mm512_maskz_loadu_epi8(m, w[2] + k));
            a3 = _mm512_dpbusd_epi32(a3, xv, _mm512_maskz_loadu_epi8(m, w[3] + k));
        }
        const int32_t s[4] = {_mm512_reduce_add_epi32(a0), _mm512_reduce_add_epi32(a1), _mm512_reduce_add_epi32(a2),
                              _mm512_reduce_add_epi32(a3)};
        for (int i = 0; i < 4 && o + i < o1; i++) acc[o - o0 + i] = s[i];
    }
}
#endif

static void pixel_part(void *arg, int part) {
    const q8_conv_job *J = arg;
    const opgen_q8_filter *f = J->f;
    int32_t *acc = (int32_t *)(J->work + (size_t)part * J->work_bytes);
    for (int64_t o0 = f->O * part / J->nparts; o0 < f->O * (part + 1) / J->nparts; o0 += MR * NR) {
        int64_t o1 = f->O * (part + 1) / J->nparts, n = o1 - o0 < MR * NR ? o1 - o0 : MR * NR;
        bool vnni = false; /* the sums of (x + 128): the AVX-512 VNNI variant */
#if Q8_X86
        vnni = J->v.offset == 128 && J->v.store == store_row_avx512;
        if (vnni) dot_rows_vnni(J, o0, o0 + n, acc);
#endif
        for (int64_t i = 0; !vnni && i < n; i++) dot_rows_c(J, o0 + i, o0 + i + 1, acc + i);
        int32_t off = vnni ? 128 : 0;
        for (int64_t i = 0; i < n; i++) { /* each channel its own factors */
            int64_t o = o0 + i;
            J->y[o] = q8_requant(acc[i] - f->wsum[o] * (J->g->zx + off), f->mul[o], f->bias[o], J->rq->qlo, J->rq->qhi);
        }
    }
}

/* ---- the convolution ---- */

/* A 1x1 filter over one pixel (a linear layer's row): no transform, no tile. */
static bool one_pixel(const opgen_q8_conv_geom *g) {
    return g->H == 1 && g->W == 1 && g->KH == 1 && g->KW == 1 && g->OH == 1 && g->OW == 1 && g->p[0] == 0 &&
           g->p[1] == 0;
}

/* A 1x1 filter of stride 1 without padding is the same filter over one row of
 * H*W pixels: a tile is one run of stored pixels whatever the width (rows of
 * 7 took the unfused path), and its parts are flat_part's. */
static opgen_q8_conv_geom q8_flat(const opgen_q8_conv_geom *g) {
    opgen_q8_conv_geom f = *g;
    if (pointwise(g) && !one_pixel(g)) f.W = g->H * g->W, f.H = 1, f.OW = g->OH * g->OW, f.OH = 1;
    return f;
}

static int conv_parts(const opgen_q8_conv_geom *g, const opgen_q8_filter *f, const opgen_parallel *par) {
    double work = (double)f->O * (double)f->K * (double)(g->OH * g->OW);
    return opgen_parallel_parts_for(par, work, f->depthwise ? 65536.0 : 262144.0);
}

static size_t part_bytes(const opgen_q8_conv_geom *g, const opgen_q8_filter *f, int nparts) {
#if Q8_X86
    if (f->lanes) return lanes_part_bytes(g, f->O, nparts);
#else
    (void)nparts;
#endif
    return f->depthwise ? depthwise_part_bytes(g) : piece(sizeof(int32_t) * MR * NR);
}

size_t opgen_q8_conv_scratch(const opgen_q8_conv_geom *given, const opgen_q8_filter *f, const opgen_parallel *par) {
    opgen_q8_conv_geom flat = q8_flat(given);
    const opgen_q8_conv_geom *g = f->depthwise ? given : &flat;
    q8_conv_job J = {.g = g};
    q8_shape(&J);
    size_t X = f->depthwise ? 0 : transformed_bytes(&J) + piece(sizeof(int64_t) * (size_t)(f->Kp / 4));
    int nparts = conv_parts(g, f, par);
    return X + (size_t)nparts * part_bytes(g, f, nparts) + 64;
}

#if Q8_X86
/* Whether n bytes at a and m bytes at b share any. */
static bool q8_overlap(const int8_t *a, int64_t n, const int8_t *b, int64_t m) {
    return (uintptr_t)a < (uintptr_t)(b + m) && (uintptr_t)b < (uintptr_t)(a + n);
}
#endif

void opgen_q8_conv(const opgen_parallel *par, const opgen_q8_conv_geom *given, const opgen_q8_filter *f,
                   const opgen_q8_requant *rq, const int8_t *x, int8_t *y, void *scratch) {
    opgen_q8_conv_geom flat = q8_flat(given);
    const opgen_q8_conv_geom *g = f->depthwise ? given : &flat;
    q8_conv_job J = {.g = g, .f = f, .rq = rq, .v = q8_pick()};
    q8_shape(&J);
    J.nparts = conv_parts(g, f, par);
    J.work_bytes = part_bytes(g, f, J.nparts);
#if Q8_X86
    J.fused = J.v.fn == micro_vnni512; /* a tile of more than Q8_SEGS runs (rows under 8) stores through acc */
#endif
    J.nob = ceil_div(f->O, MR);
    J.lanes = f->lanes && !one_pixel(g);
    /* parts split the channels where the pixels are fewer than parts' blocks, or
     * a plane's are few: a part's share of a 14x14 plane is a line or two, both
     * parts' lines interleaved (MobileNetV2, two threads: 2.10 -> 2.01 ms), and
     * what a part writes is what the next depthwise part reads */
    J.osplit = J.nblk >= J.nparts && given->OH * given->OW >= 256 ? 1 : J.nparts;
#if Q8_X86
    if (J.lanes) J.osplit = lanes_osplit(g, f->O, J.nparts);
#endif
    uint8_t *s = (uint8_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    if (!f->depthwise) {
        J.X = s, s += transformed_bytes(&J);
        J.off = (int64_t *)s, s += piece(sizeof(int64_t) * (size_t)(f->Kp / 4));
        tap_offsets(&J);
    }
    J.work = s;
    for (int64_t n = 0; n < g->N; n++) {
        J.x = x + n * g->C * g->H * g->W;
        J.y = y + n * f->O * g->OH * g->OW;
        if (f->depthwise) {
#if Q8_X86
            if (dw8_use(&J)) {
                opgen_parallel_for(par, J.nparts, depthwise8_part, &J);
                continue;
            }
#endif
            opgen_parallel_for(par, J.nparts, depthwise_part, &J);
            continue;
        }
        if (one_pixel(g)) {
            opgen_parallel_for(par, J.nparts, pixel_part, &J);
            continue;
        }
        if (J.fused && J.osplit == 1 && is_flat(g) && !J.lanes) {
            opgen_parallel_for(par, J.nparts, flat_part, &J);
            continue;
        }
#if Q8_X86
        /* each part its own copy: only where y is not planned over x (a part
         * would write y while another still reads x) */
        J.own = J.lanes && J.osplit > 1 && !q8_overlap(J.x, g->C * g->H * g->W, J.y, f->O * g->OH * g->OW);
        if (J.own) {
            opgen_parallel_for(par, J.nparts, lanes_part, &J);
            continue;
        }
#endif
        opgen_parallel_for(par, J.nparts, transform_part, &J);
#if Q8_X86
        if (J.lanes) {
            opgen_parallel_for(par, J.nparts, lanes_part, &J);
            continue;
        }
#endif
        opgen_parallel_for(par, J.nparts, conv_part, &J);
    }
}
