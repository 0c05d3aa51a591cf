/* What the integer kernels share (q8.c, q8_elementwise.c; private): the
 * target's vector units, the requantizations in C and on AVX-512, and which
 * variants tests allow. */
#ifndef OPGEN_Q8_ARITH_H
#define OPGEN_Q8_ARITH_H
#include "q8.h"
#include <string.h>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define Q8_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define Q8_X86 0
#endif
#if defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)
#define Q8_SDOT 1
#include <arm_neon.h>
#else
#define Q8_SDOT 0
#endif

/* The best variant tests allow (opgen_q8_use_variant); -1: any. */
extern int opgen_q8_cap;

static inline size_t piece(size_t n) { return (n + 63) & ~(size_t)63; }
static inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* ---- requantization: ExecuTorch's quantize_per_tensor, vectorisable ---- */

/* zp + round-half-even(v * inv), clamped to [qmin, qmax]; NaN gives the zero
 * point. Rounds by adding and subtracting 1.5 * 2^23 (exact below 2^22, which the
 * clamp before keeps: anything past it saturates anyway). */
/* The parameters are taken by value: the int8 stores of a loop could alias a
 * struct read through a pointer (char types alias anything), which keeps the
 * loops from vectorising. */
static inline int32_t q8_quantize(float v, opgen_q8_requant rq) {
    float t = v * rq.inv_scale;
    t = t != t ? 0.0f : t;
    t = t < -4194304.0f ? -4194304.0f : t > 4194304.0f ? 4194304.0f : t;
    float r = (t + 12582912.0f) - 12582912.0f + (float)rq.zp;
    r = r < (float)rq.qmin ? (float)rq.qmin : r > (float)rq.qmax ? (float)rq.qmax : r;
    return (int32_t)r;
}

static inline float q8_act(float v, opgen_q8_requant rq) {
    if (rq.act == 1) return v < 0.0f ? 0.0f : v;
    if (rq.act == 2) return v < rq.lo ? rq.lo : v > rq.hi ? rq.hi : v;
    return v;
}

/* A product's sum requantized: acc * m + b (rounded apart: no contraction),
 * within [lo, hi] (NaN gives lo), rounded half to even by adding and
 * subtracting 1.5 * 2^23 (exact: |t| <= 255). */
static inline int8_t q8_requant_f(float a, float m, float b, float lo, float hi) {
    float p = a * m;
    float t = p + b;
    t = t > lo ? t : lo;
    t = t < hi ? t : hi;
    return (int8_t)(int32_t)((t + 12582912.0f) - 12582912.0f);
}
static inline int8_t q8_requant(int32_t acc, float m, float b, float lo, float hi) {
    return q8_requant_f((float)acc, m, b, lo, hi);
}

#if Q8_X86
#define Q8_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))
/* The elementwise requantization on AVX-512, value for value the same as
 * q8_quantize: the activation and NaN as the C comparisons take them, the
 * rounding to nearest even (vcvtps2dq in the default mode, as exact as the
 * 1.5 * 2^23 trick), the clamps. */
typedef struct q8v {
    __m512 lo, hi, inv, zero, big, nbig;
    __m512i zp, qmin, qmax;
    int act;
} q8v;

Q8_AVX512 static inline q8v q8v_of(const opgen_q8_requant *rq) {
    return (q8v){_mm512_set1_ps(rq->act == 1 ? 0.0f : rq->lo),
                 _mm512_set1_ps(rq->hi),
                 _mm512_set1_ps(rq->inv_scale),
                 _mm512_setzero_ps(),
                 _mm512_set1_ps(4194304.0f),
                 _mm512_set1_ps(-4194304.0f),
                 _mm512_set1_epi32(rq->zp),
                 _mm512_set1_epi32(rq->qmin),
                 _mm512_set1_epi32(rq->qmax),
                 rq->act};
}

Q8_AVX512 static inline __m128i q8v_quantize(__m512 v, const q8v *k) {
    if (k->act) /* v < lo ? lo : v (NaN stays) */
        v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, k->lo, _CMP_LT_OQ), v, k->lo);
    if (k->act == 2) v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, k->hi, _CMP_GT_OQ), v, k->hi);
    __m512 t = _mm512_mul_ps(v, k->inv);
    t = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(t, t, _CMP_UNORD_Q), t, k->zero);
    t = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(t, k->nbig, _CMP_LT_OQ), t, k->nbig);
    t = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(t, k->big, _CMP_GT_OQ), t, k->big);
    __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(t), k->zp);
    return _mm512_cvtepi32_epi8(_mm512_min_epi32(_mm512_max_epi32(q, k->qmin), k->qmax));
}

static inline __mmask16 q8v_mask(int64_t left) {
    return left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1);
}

/* 16 bytes stored under a mask. The empty asm keeps the compiler from fusing
 * the narrowing into the store: vpmovdb to memory is microcoded on AMD's Zen 4
 * and 5 (several times slower than to a register and a masked store). */
Q8_AVX512 static inline void q8v_store16(int8_t *dst, __mmask16 k, __m128i v) {
    __asm__("" : "+v"(v));
    _mm_mask_storeu_epi8(dst, k, v);
}

/* q8_requant of 16 float sums: vmaxps returns its second operand for NaN, as
 * the C comparison does; vcvtps2dq rounds half to even. */
Q8_AVX512 static inline __m128i q8v_requant(__m512 a, __m512 m, __m512 b, __m512 lo, __m512 hi) {
    __m512 t = _mm512_add_ps(_mm512_mul_ps(a, m), b);
    t = _mm512_min_ps(_mm512_max_ps(t, lo), hi);
    return _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(t));
}

#endif

#endif
