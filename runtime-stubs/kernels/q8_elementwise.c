/* The integer kernels between quantize/dequantize pairs (q8.h): add, quantize,
 * table lookup, max pooling. Each value computed as quantize_per_tensor would,
 * on AVX-512 where the CPU has it, else in C, the same bytes either way. */
#include "q8_arith.h"

#if Q8_X86
/* An operand of an add, 16 values dequantized from int8. */
Q8_AVX512 static inline __m512 q8v_operand(const int8_t *a, __m512i z, __m512 s, __mmask16 m) {
    __m512i x = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, a));
    return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(x, z)), s);
}

Q8_AVX512 static void add_avx512(int64_t n, const int8_t *a, float sa, int32_t za, const int8_t *b, float sb,
                                 int32_t zb, const opgen_q8_requant *rq, int8_t *out) {
    const q8v k = q8v_of(rq);
    const __m512i vza = _mm512_set1_epi32(za), vzb = _mm512_set1_epi32(zb);
    const __m512 vsa = _mm512_set1_ps(sa), vsb = _mm512_set1_ps(sb);
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 m = q8v_mask(n - i);
        __m512 va = q8v_operand(a + i, vza, vsa, m), vb = q8v_operand(b + i, vzb, vsb, m);
        q8v_store16(out + i, m, q8v_quantize(_mm512_add_ps(va, vb), &k));
    }
}
#endif

void opgen_q8_add(int64_t n, const int8_t *a, float sa, int32_t za, const int8_t *b, float sb, int32_t zb,
                  const opgen_q8_requant *rqp, int8_t *out) {
#if Q8_X86
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") && opgen_q8_cap != 0)
        return add_avx512(n, a, sa, za, b, sb, zb, rqp, out);
#endif
    const opgen_q8_requant rq = *rqp;
    for (int64_t i = 0; i < n; i++)
        out[i] = (int8_t)q8_quantize(q8_act((float)(a[i] - za) * sa + (float)(b[i] - zb) * sb, rq), rq);
}

#if Q8_X86
/* 64 lookups at a time: vpermi2b picks from 128 entries by the index's low 7
 * bits, twice, and the top bit chooses. */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void lookup_vbmi(int64_t n, const int8_t *x,
                                                                               const int8_t table[256], int8_t *out) {
    const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
    const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
    for (int64_t i = 0; i < n; i += 64) {
        __mmask64 m = n - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - i)) - 1);
        __m512i v = _mm512_maskz_loadu_epi8(m, x + i);
        __m512i lo = _mm512_permutex2var_epi8(t0, v, t1), hi = _mm512_permutex2var_epi8(t2, v, t3);
        __mmask64 top = _mm512_movepi8_mask(v);
        _mm512_mask_storeu_epi8(out + i, m, _mm512_mask_blend_epi8(top, lo, hi));
    }
}
#endif

#if Q8_X86
Q8_AVX512 static void quantize_avx512(int64_t n, const float *x, const opgen_q8_requant *rq, int8_t *out) {
    const q8v k = q8v_of(rq);
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 m = q8v_mask(n - i);
        q8v_store16(out + i, m, q8v_quantize(_mm512_maskz_loadu_ps(m, x + i), &k));
    }
}
#endif

void opgen_q8_quantize_f32(int64_t n, const float *x, const opgen_q8_requant *rqp, int8_t *out) {
#if Q8_X86
    if (opgen_q8_cap != 0 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        return quantize_avx512(n, x, rqp, out);
#endif
    const opgen_q8_requant rq = *rqp;
    for (int64_t i = 0; i < n; i++) out[i] = (int8_t)q8_quantize(q8_act(x[i], rq), rq);
}

void opgen_q8_lookup(int64_t n, const int8_t *x, const int8_t table[256], int8_t *out) {
#if Q8_X86
    if (opgen_q8_cap != 0 && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw"))
        return lookup_vbmi(n, x, table, out);
#endif
    for (int64_t i = 0; i < n; i++) out[i] = table[(uint8_t)x[i]];
}

#if Q8_X86
/* The sum of n int8 values: vpsadbw of (x + 128) against zero, 64 at a time
 * (the lanes past n zero, not 128). */
Q8_AVX512 static int64_t sum_avx512(const int8_t *x, int64_t n) {
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    __m512i acc = _mm512_setzero_si512();
    for (int64_t j = 0; j < n; j += 64) {
        __mmask64 m = n - j >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - j)) - 1);
        __m512i v = _mm512_maskz_mov_epi8(m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, x + j), flip));
        acc = _mm512_add_epi64(acc, _mm512_sad_epu8(v, _mm512_setzero_si512()));
    }
    return _mm512_reduce_add_epi64(acc) - 128 * n;
}
#endif

static int64_t sum_c(const int8_t *x, int64_t n) {
    int64_t sum = 0;
    for (int64_t j = 0; j < n; j++) sum += x[j];
    return sum;
}

/* n > 0 (the rewrite takes no empty plane) */
void opgen_q8_mean(int64_t planes, int64_t n, const int8_t *x, int32_t zx, float scale, const opgen_q8_requant *rq,
                   int8_t *y) {
    int64_t (*sum)(const int8_t *, int64_t) = sum_c;
#if Q8_X86
    if (opgen_q8_cap != 0 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) sum = sum_avx512;
#endif
    for (int64_t i = 0; i < planes; i++, x += n) {
        double v = (double)scale * (double)(sum(x, n) - n * (int64_t)zx) / (double)n;
        y[i] = (int8_t)opgen_q8_quantize((float)v, rq);
    }
}

/* y[ow] = max(y[ow], r[ow]) for ow in [lo, hi): compiled again for AVX-512. */
#define Q8_MAX_ROW(NAME, ATTR)                                                                    \
    ATTR static void NAME(int8_t *restrict y, const int8_t *restrict r, int64_t lo, int64_t hi) { \
        for (int64_t ow = lo; ow < hi; ow++) y[ow] = r[ow] > y[ow] ? r[ow] : y[ow];               \
    }
Q8_MAX_ROW(max_row_c, )
#if Q8_X86
Q8_MAX_ROW(max_row_avx512, __attribute__((target("avx512f,avx512bw,avx512vl"))))
#endif

/* Rows too wide for opgen_q8_max_pool's buffers: every tap strided. */
static void max_pool_strided(int64_t planes, int64_t H, int64_t W, const int8_t *x, int64_t OH, int64_t OW,
                             const int64_t k[2], const int64_t s[2], const int64_t p[2], const int64_t d[2],
                             int8_t *y) {
    for (int64_t c = 0; c < planes; c++, x += H * W)
        for (int64_t oh = 0; oh < OH; oh++, y += OW) {
            memset(y, -128, (size_t)OW);
            for (int64_t i = 0; i < k[0]; i++) {
                int64_t ih = oh * s[0] - p[0] + i * d[0];
                for (int64_t j = 0; j < k[1] && ih >= 0 && ih < H; j++)
                    for (int64_t ow = 0; ow < OW; ow++) {
                        int64_t iw = ow * s[1] - p[1] + j * d[1];
                        if (iw >= 0 && iw < W && x[ih * W + iw] > y[ow]) y[ow] = x[ih * W + iw];
                    }
            }
        }
}

#if Q8_X86
/* 3x3, stride 2, padding 1 (ResNet's stem): each output row the largest of its
 * three input rows (c, with -128 either side: the padding loses every max),
 * then of three columns: 32 outputs from 64 + 64 bytes, the even bytes
 * (vpmovwb), the odd ones and the odd ones before. */
Q8_AVX512 static void max_pool_3x3s2(int64_t planes, int64_t H, int64_t W, const int8_t *x, int64_t OH, int64_t OW,
                                     int8_t *y) {
    enum { ROW = 4096 };
    int8_t buf[ROW + 128];
    int8_t *c = buf + 1;
    memset(buf, -128, sizeof buf);
    for (int64_t pl = 0; pl < planes; pl++, x += H * W)
        for (int64_t oh = 0; oh < OH; oh++, y += OW) {
            int64_t i0 = 2 * oh - 1 < 0 ? 0 : 2 * oh - 1, i1 = 2 * oh + 2 < H ? 2 * oh + 2 : H;
            for (int64_t iw = 0; iw < W; iw += 64) {
                __mmask64 m = W - iw >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (W - iw)) - 1);
                __m512i v = _mm512_maskz_loadu_epi8(m, x + i0 * W + iw);
                for (int64_t ih = i0 + 1; ih < i1; ih++)
                    v = _mm512_max_epi8(v, _mm512_maskz_loadu_epi8(m, x + ih * W + iw));
                _mm512_mask_storeu_epi8(c + iw, m, v);
            }
            for (int64_t ow = 0; ow < OW; ow += 32) {
                __m512i a = _mm512_loadu_si512(c + 2 * ow), b = _mm512_loadu_si512(c + 2 * ow - 1);
                __m256i e = _mm512_cvtepi16_epi8(a), o = _mm512_cvtepi16_epi8(_mm512_srli_epi16(a, 8));
                __m256i r = _mm256_max_epi8(_mm256_max_epi8(e, o), _mm512_cvtepi16_epi8(b));
                __mmask32 k = OW - ow >= 32 ? ~(__mmask32)0 : (((__mmask32)1 << (OW - ow)) - 1);
                _mm256_mask_storeu_epi8(y + ow, k, r);
            }
        }
}
#endif

/* Separably: the window's rows first (a column's largest, over the whole row,
 * contiguous), then its columns, the row split into its s1 column phases so
 * each tap reads a run. Max is exact in any order. */
void opgen_q8_max_pool(int64_t planes, int64_t H, int64_t W, const int8_t *x, int64_t OH, int64_t OW,
                       const int64_t k[2], const int64_t s[2], const int64_t p[2], const int64_t d[2], int8_t *y) {
    enum { ROW = 4096 };
    int8_t col[ROW], ph[ROW];
    void (*max_row)(int8_t *restrict, const int8_t *restrict, int64_t, int64_t) = max_row_c;
#if Q8_X86
    if (opgen_q8_cap != 0 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        max_row = max_row_avx512;
    if (max_row == max_row_avx512 && k[0] == 3 && k[1] == 3 && s[0] == 2 && s[1] == 2 && p[0] == 1 && p[1] == 1 &&
        d[0] == 1 && d[1] == 1 && W + 64 <= 4096 && OW == W / 2 + (W & 1) && OH == H / 2 + (H & 1))
        return max_pool_3x3s2(planes, H, W, x, OH, OW, y);
#endif
    int64_t Wq = ceil_div(W, s[1]);
    if (W + s[1] > ROW) return max_pool_strided(planes, H, W, x, OH, OW, k, s, p, d, y);
    for (int64_t c = 0; c < planes; c++, x += H * W)
        for (int64_t oh = 0; oh < OH; oh++, y += OW) {
            memset(col, -128, (size_t)W);
            for (int64_t i = 0; i < k[0]; i++) {
                int64_t ih = oh * s[0] - p[0] + i * d[0];
                if (ih >= 0 && ih < H) max_row(col, x + ih * W, 0, W);
            }
            for (int64_t q = 0; q < s[1]; q++)
                for (int64_t m = 0; m * s[1] + q < W; m++) ph[q * Wq + m] = col[m * s[1] + q];
            memset(y, -128, (size_t)OW);
            for (int64_t j = 0; j < k[1]; j++) {
                /* the outputs whose tap j falls inside the row: iw = ow * s1 + o */
                int64_t o = j * d[1] - p[1], lo = o >= 0 ? 0 : ceil_div(-o, s[1]);
                int64_t hi = W - o <= 0 ? 0 : ceil_div(W - o, s[1]);
                hi = hi > OW ? OW : hi;
                int64_t q = ((o % s[1]) + s[1]) % s[1], m0 = (o - q) / s[1]; /* iw = (ow + m0) * s1 + q */
                if (lo < hi) max_row(y, ph + q * Wq + m0, lo, hi);
            }
        }
}
