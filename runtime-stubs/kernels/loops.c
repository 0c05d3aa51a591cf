/* The block conversions between dtypes, Half and BFloat16, and copy: the hot
 * helpers every kernel shares (the setup is in iter.c). */
#include "opgen/loops.h"

/* ---- Half and BFloat16 ---- */

float opgen_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13); /* inf, NaN */
    } else if (exp) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man) { /* subnormal: normalise */
        int e = -1;
        do {
            e++;
            man <<= 1;
        } while (!(man & 0x400));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t opgen_float_to_half(float f) { /* round to nearest even, as c10::Half does */
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, ax = x & 0x7fffffffu;
    if (ax >= 0x47800000u) return (uint16_t)(sign | (ax > 0x7f800000u ? 0x7e00 : 0x7c00)); /* NaN, or too large: inf */
    if (ax < 0x38800000u) { /* subnormal or zero: add 0.5 and let the FPU round */
        float a;
        memcpy(&a, &ax, 4);
        a += 0.5f;
        uint32_t r;
        memcpy(&r, &a, 4);
        return (uint16_t)(sign | (r - 0x3f000000u));
    }
    ax += 0xc8000fffu + ((ax >> 13) & 1); /* rebias the exponent, round half to even */
    return (uint16_t)(sign | (ax >> 13));
}

/* ---- block conversions ---- */

/* Contiguous BFloat16 to float and back (rounded to nearest even), compiled for
 * each vector width (OPGEN_DISPATCHED): the blocks of every bf16 kernel. Not in
 * a build for size: every program links this file, and the clones' resolvers
 * bring the C library's CPU probe (4.5 KB). */
#if OPGEN_SPEED_PATHS
#define BF16_RUN OPGEN_DISPATCHED static
#else
#define BF16_RUN static
#endif
BF16_RUN void bf16_widen_run(float *d, const uint16_t *s, int64_t n) {
    for (int64_t i = 0; i < n; i++) d[i] = opgen_bf16_to_float(s[i]);
}
BF16_RUN void bf16_round_run(uint16_t *d, const float *s, int64_t n) {
    for (int64_t i = 0; i < n; i++) d[i] = opgen_float_to_bf16(s[i]);
}
BF16_RUN void bf16_scale_run(uint16_t *d, const uint16_t *s, float v, int64_t n) {
    for (int64_t i = 0; i < n; i++) d[i] = opgen_float_to_bf16(opgen_bf16_to_float(s[i]) * v);
}
void opgen_bf16_scale(uint16_t *d, const uint16_t *s, float v, int64_t n) { bf16_scale_run(d, s, v, n); }

/* A value of any dtype as double or int64: used only here, per element of a block
 * being converted. */
#define CVT_FLOAT_TO_INT(T, v) ((T)opgen_f64_to_i64(v)) /* NaN 0, saturated, then wrapped: defined for every value */

#define CVT_LOOP(DT, EXPR_OF_S)                                            \
    do {                                                                   \
        DT *d_ = dst;                                                      \
        for (int64_t i = 0; i < n; i++, s_ += stride) d_[i] = (EXPR_OF_S); \
    } while (0)

/* dst[i] = src element i (any stored dtype), converted to C type DT. */
#define CVT_FROM(DT, IS_FLOAT)                                                                                    \
    switch (sd) {                                                                                                 \
    case OPGEN_DTYPE_Bool: CVT_LOOP(DT, (DT)(*(const bool *)s_)); break;                                          \
    case OPGEN_DTYPE_Byte: CVT_LOOP(DT, (DT)(*(const uint8_t *)s_)); break;                                       \
    case OPGEN_DTYPE_Char: CVT_LOOP(DT, (DT)(*(const int8_t *)s_)); break;                                        \
    case OPGEN_DTYPE_Short: CVT_LOOP(DT, (DT)(*(const int16_t *)s_)); break;                                      \
    case OPGEN_DTYPE_Int: CVT_LOOP(DT, (DT)(*(const int32_t *)s_)); break;                                        \
    case OPGEN_DTYPE_Long: CVT_LOOP(DT, (DT)(*(const int64_t *)s_)); break;                                       \
    case OPGEN_DTYPE_UInt16: CVT_LOOP(DT, (DT)(*(const uint16_t *)s_)); break;                                    \
    case OPGEN_DTYPE_UInt32: CVT_LOOP(DT, (DT)(*(const uint32_t *)s_)); break;                                    \
    case OPGEN_DTYPE_UInt64: CVT_LOOP(DT, (DT)(*(const uint64_t *)s_)); break;                                    \
    case OPGEN_DTYPE_Half:                                                                                        \
        CVT_LOOP(DT, IS_FLOAT ? (DT)opgen_half_to_float(*(const uint16_t *)s_)                                    \
                              : CVT_FLOAT_TO_INT(DT, opgen_half_to_float(*(const uint16_t *)s_)));                \
        break;                                                                                                    \
    case OPGEN_DTYPE_BFloat16:                                                                                    \
        if (OPGEN_SPEED_PATHS && IS_FLOAT && stride == 2 && sizeof(DT) == 4) { /* contiguous: each CPU's width */ \
            bf16_widen_run((float *)dst, src, n);                                                                 \
            break;                                                                                                \
        }                                                                                                         \
        CVT_LOOP(DT, IS_FLOAT ? (DT)opgen_bf16_to_float(*(const uint16_t *)s_)                                    \
                              : CVT_FLOAT_TO_INT(DT, opgen_bf16_to_float(*(const uint16_t *)s_)));                \
        break;                                                                                                    \
    case OPGEN_DTYPE_Float:                                                                                       \
        CVT_LOOP(DT, IS_FLOAT ? (DT)(*(const float *)s_) : CVT_FLOAT_TO_INT(DT, *(const float *)s_));             \
        break;                                                                                                    \
    case OPGEN_DTYPE_Double:                                                                                      \
        CVT_LOOP(DT, IS_FLOAT ? (DT)(*(const double *)s_) : CVT_FLOAT_TO_INT(DT, *(const double *)s_));           \
        break;                                                                                                    \
    default: memset(dst, 0, (size_t)n * sizeof(DT)); break;                                                       \
    }

/* One converter per destination type: a kernel links only those of its compute
 * types (a Float-only build carries one). */
#define CVT_FN(NAME, DT, IS_FLOAT)                                                     \
    void NAME(void *dst, const void *src, int64_t stride, opgen_dtype sd, int64_t n) { \
        const char *s_ = src;                                                          \
        CVT_FROM(DT, IS_FLOAT)                                                         \
    }
CVT_FN(opgen_convert_u8, uint8_t, 0)
CVT_FN(opgen_convert_i8, int8_t, 0)
CVT_FN(opgen_convert_i16, int16_t, 0)
CVT_FN(opgen_convert_i32, int32_t, 0)
CVT_FN(opgen_convert_i64, int64_t, 0)
CVT_FN(opgen_convert_u16, uint16_t, 0)
CVT_FN(opgen_convert_u32, uint32_t, 0)
CVT_FN(opgen_convert_u64, uint64_t, 0)
CVT_FN(opgen_convert_f32, float, 1)
CVT_FN(opgen_convert_f64, double, 1)

void opgen_convert_bool(void *dst, const void *src, int64_t stride, opgen_dtype sd,
                        int64_t n) { /* nonzero is true (NaN too) */
    bool *d = dst;
    double tmp[OPGEN_BLOCK];
    for (int64_t b = 0; b < n; b += OPGEN_BLOCK) {
        int64_t m = n - b < OPGEN_BLOCK ? n - b : OPGEN_BLOCK;
        opgen_convert_f64(tmp, (const char *)src + b * stride, stride, sd, m);
        for (int64_t i = 0; i < m; i++) d[b + i] = tmp[i] != 0;
    }
}

void opgen_convert(void *dst, opgen_dtype dd, const void *src, int64_t stride, opgen_dtype sd, int64_t n) {
    switch (dd) {
    case OPGEN_DTYPE_Bool: opgen_convert_bool(dst, src, stride, sd, n); break;
    case OPGEN_DTYPE_Byte: opgen_convert_u8(dst, src, stride, sd, n); break;
    case OPGEN_DTYPE_Char: opgen_convert_i8(dst, src, stride, sd, n); break;
    case OPGEN_DTYPE_Short: opgen_convert_i16(dst, src, stride, sd, n); break;
    case OPGEN_DTYPE_Int: opgen_convert_i32(dst, src, stride, sd, n); break;
    case OPGEN_DTYPE_Long: opgen_convert_i64(dst, src, stride, sd, n); break;
    case OPGEN_DTYPE_UInt16: opgen_convert_u16(dst, src, stride, sd, n); break;
    case OPGEN_DTYPE_UInt32: opgen_convert_u32(dst, src, stride, sd, n); break;
    case OPGEN_DTYPE_UInt64: opgen_convert_u64(dst, src, stride, sd, n); break;
    case OPGEN_DTYPE_Float: opgen_convert_f32(dst, src, stride, sd, n); break;
    case OPGEN_DTYPE_Double: opgen_convert_f64(dst, src, stride, sd, n); break;
    default: break;
    }
}

void opgen_convert_out(void *dst, int64_t stride, opgen_dtype dd, const void *src, opgen_dtype sd, int64_t n) {
    char *d = dst;
    if (dd == OPGEN_DTYPE_Half || dd == OPGEN_DTYPE_BFloat16) { /* from float (their compute type) */
        float buf[OPGEN_BLOCK];
        for (int64_t b = 0; b < n; b += OPGEN_BLOCK) {
            int64_t m = n - b < OPGEN_BLOCK ? n - b : OPGEN_BLOCK;
            /* float already (the MAP loops' results): read in place (not in a build for size) */
            const float *tmp = (const float *)src + b;
            if (!OPGEN_SPEED_PATHS || sd != OPGEN_DTYPE_Float) {
                opgen_convert(buf, OPGEN_DTYPE_Float, (const char *)src + b * opgen_dtype_size(sd),
                              opgen_dtype_size(sd), sd, m);
                tmp = buf;
            }
            if (OPGEN_SPEED_PATHS && dd == OPGEN_DTYPE_BFloat16 && stride == 2) { /* a plain loop: vectorised */
                bf16_round_run((uint16_t *)(d + b * 2), tmp, m);
                continue;
            }
            for (int64_t i = 0; i < m; i++)
                *(uint16_t *)(d + (b + i) * stride) =
                    dd == OPGEN_DTYPE_Half ? opgen_float_to_half(tmp[i]) : opgen_float_to_bf16(tmp[i]);
        }
        return;
    }
    int64_t es = opgen_dtype_size(dd);
    if (stride == es) {
        opgen_convert(dst, dd, src, opgen_dtype_size(sd), sd, n);
        return;
    }
    char tmp[OPGEN_BLOCK * 8];
    for (int64_t b = 0; b < n; b += OPGEN_BLOCK) {
        int64_t m = n - b < OPGEN_BLOCK ? n - b : OPGEN_BLOCK;
        opgen_convert(tmp, dd, (const char *)src + b * opgen_dtype_size(sd), opgen_dtype_size(sd), sd, m);
        for (int64_t i = 0; i < m; i++) memcpy(d + (b + i) * stride, tmp + i * es, (size_t)es);
    }
}

/* ---- copies ---- */

/* n elements of size es, strided, in one typed loop per call (not per element). */
static void copy_run(char *d, int64_t ds, const char *s, int64_t ss, int64_t n, int64_t es) {
    if (ds == es && ss == es) {
        memcpy(d, s, (size_t)(n * es));
        return;
    }
#define COPY_AS(U)                                                                 \
    for (int64_t i = 0; i < n; i++) *(U *)(d + i * ds) = *(const U *)(s + i * ss); \
    break;
    switch (es) {
    case 1: COPY_AS(uint8_t)
    case 2: COPY_AS(uint16_t)
    case 4: COPY_AS(uint32_t)
    case 8: COPY_AS(uint64_t)
    default:
        for (int64_t i = 0; i < n; i++) memcpy(d + i * ds, s + i * ss, (size_t)es);
        break;
    }
#undef COPY_AS
}

/* One 8 x 8 block: d[b * d1 + a] = s[a * s0 + b], in registers (eight
 * contiguous reads of 8, eight contiguous writes of 8, where the element loop
 * reads or writes 64 lines for them). */
#define BLOCK8(NAME, U)                                                       \
    static inline void NAME(char *d, int64_t d1, const char *s, int64_t s0) { \
        U t[8][8]; /* t[a][b] */                                              \
        for (int a = 0; a < 8; a++) memcpy(t[a], s + a * s0, sizeof t[a]);    \
        for (int b = 0; b < 8; b++) {                                         \
            U row[8];                                                         \
            for (int a = 0; a < 8; a++) row[a] = t[a][b];                     \
            memcpy(d + b * d1, row, sizeof row);                              \
        }                                                                     \
    }
BLOCK8(block8_u32, uint32_t)
#if defined(__SSE2__)
#include <emmintrin.h>
/* 2-byte elements by SSE2's unpacks (x86-64's baseline): compilers leave the
 * element loop above scalar for them. */
static inline void block8_u16(char *d, int64_t d1, const char *s, int64_t s0) {
    __m128i r[8], t[8], u[8];
    for (int a = 0; a < 8; a++) r[a] = _mm_loadu_si128((const __m128i *)(s + a * s0));
    for (int a = 0; a < 8; a += 2) /* pairs of rows: a0 b0 a1 b1 .. */
        t[a] = _mm_unpacklo_epi16(r[a], r[a + 1]), t[a + 1] = _mm_unpackhi_epi16(r[a], r[a + 1]);
    for (int a = 0; a < 8; a += 4) /* fours: a0 b0 c0 d0 a1 b1 c1 d1 .. */
        u[a] = _mm_unpacklo_epi32(t[a], t[a + 2]), u[a + 1] = _mm_unpackhi_epi32(t[a], t[a + 2]),
        u[a + 2] = _mm_unpacklo_epi32(t[a + 1], t[a + 3]), u[a + 3] = _mm_unpackhi_epi32(t[a + 1], t[a + 3]);
    for (int b = 0; b < 4; b++) { /* eights: column 2b, then 2b + 1 */
        _mm_storeu_si128((__m128i *)(d + 2 * b * d1), _mm_unpacklo_epi64(u[b], u[b + 4]));
        _mm_storeu_si128((__m128i *)(d + (2 * b + 1) * d1), _mm_unpackhi_epi64(u[b], u[b + 4]));
    }
}
#else
BLOCK8(block8_u16, uint16_t)
#endif

/* d[i * d1 + j * d0] = s[i * s1 + j * s0] for elements of type U, d0 and s1 its
 * size (each side contiguous along its own axis), in 8 x 8 blocks. Returns the
 * rows (i) it did not do. 4-byte elements (float) and 2-byte ones (bf16, Half: a
 * KV cache's transpose in a decode step). */
#define TRANSPOSE_BLOCKS(NAME, U, BLOCK)                                                                       \
    static int64_t NAME(char *d, int64_t d1, const char *s, int64_t s0, int64_t n0, int64_t n1) {              \
        const int64_t es = (int64_t)sizeof(U);                                                                 \
        int64_t i0 = 0;                                                                                        \
        for (; i0 + 8 <= n1; i0 += 8) {                                                                        \
            int64_t j0 = 0;                                                                                    \
            for (; j0 + 8 <= n0; j0 += 8) BLOCK(d + i0 * d1 + j0 * es, d1, s + j0 * s0 + i0 * es, s0);         \
            for (int64_t i = i0; i < i0 + 8; i++) /* the ragged j end */                                       \
                for (int64_t j = j0; j < n0; j++) memcpy(d + i * d1 + j * es, s + i * es + j * s0, sizeof(U)); \
        }                                                                                                      \
        return n1 - i0;                                                                                        \
    }
TRANSPOSE_BLOCKS(transpose4_blocks, uint32_t, block8_u32)
TRANSPOSE_BLOCKS(transpose2_blocks, uint16_t, block8_u16)

/* An n1 x n0 block whose source runs across the destination's rows (a matrix's
 * permute_copy, a transpose for attention): 4- and 2-byte elements in 8 x 8 register
 * blocks, others in 32 x 32 tiles, so that each cache line read or written
 * serves many elements, not one. */
static void copy_tiled(char *d, int64_t d0, int64_t d1, const char *s, int64_t s0, int64_t s1, int64_t n0, int64_t n1,
                       int64_t es) {
    enum { TILE = 32 };
    if (OPGEN_SPEED_PATHS && (es == 4 || es == 2) && d0 == es && s1 == es) { /* destination order: d0 is es */
        int64_t left = es == 4 ? transpose4_blocks(d, d1, s, s0, n0, n1) : transpose2_blocks(d, d1, s, s0, n0, n1);
        d += (n1 - left) * d1, s += (n1 - left) * s1, n1 = left;
    }
    for (int64_t i0 = 0; i0 < n1; i0 += TILE)
        for (int64_t j0 = 0; j0 < n0; j0 += TILE) {
            int64_t ni = n1 - i0 < TILE ? n1 - i0 : TILE, nj = n0 - j0 < TILE ? n0 - j0 : TILE;
            for (int64_t i = i0; i < i0 + ni; i++) copy_run(d + i * d1 + j0 * d0, d0, s + i * s1 + j0 * s0, s0, nj, es);
        }
}

/* The iteration's two innermost dimensions as such a block: one side's runs
 * contiguous, the other's contiguous across runs instead. Not in a build for size
 * (-Os), which keeps the plain loop. */
static bool transposing(const opgen_iter *it, int64_t es) {
    if (!OPGEN_SPEED_PATHS || it->ndim < 2 || it->size[0] < 8 || it->size[1] < 8) return false;
    return (it->stride[0][0] == es && it->stride[1][1] == es && it->stride[1][0] != es) ||
           (it->stride[1][0] == es && it->stride[0][1] == es && it->stride[0][0] != es);
}

opgen_status opgen_copy_same(opgen_ctx *ctx, opgen_tensor *dst, const opgen_tensor *src) {
    if (dst->dtype != src->dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: a copy from %s to %s needs a conversion", ctx->op,
                          opgen_dtype_name(src->dtype), opgen_dtype_name(dst->dtype));
    opgen_iter it;
    const opgen_tensor *in[1] = {src};
    if (opgen_iter_init_strided(ctx, &it, dst, in, 1)) return ctx->err->code;
    int64_t es = opgen_dtype_size(dst->dtype);
    if (transposing(&it, es)) { /* the outer dimensions one block at a time */
        int64_t n0 = it.size[0], n1 = it.size[1], blocks = it.numel / (n0 * n1), idx[OPGEN_MAX_DIM] = {0};
        char *d = it.data[0];
        const char *sp = it.data[1];
        for (int64_t b = 0; b < blocks; b++) {
            copy_tiled(d, it.stride[0][0], it.stride[0][1], sp, it.stride[1][0], it.stride[1][1], n0, n1, es);
            for (int32_t k = 2; k < it.ndim; k++) {
                d += it.stride[0][k], sp += it.stride[1][k];
                if (++idx[k] < it.size[k]) break;
                d -= it.stride[0][k] * it.size[k], sp -= it.stride[1][k] * it.size[k], idx[k] = 0;
            }
        }
        return OPGEN_OK;
    }
    OPGEN_ITER_RUNS(&it, n, p, s, copy_run(p[0], s[0], p[1], s[1], n, es));
    return OPGEN_OK;
}

opgen_status opgen_copy(opgen_ctx *ctx, opgen_tensor *dst, const opgen_tensor *src) {
    if (dst->dtype == src->dtype) return opgen_copy_same(ctx, dst, src);
    opgen_iter it;
    const opgen_tensor *in[1] = {src};
    if (opgen_iter_init_strided(ctx, &it, dst, in, 1)) return ctx->err->code;
    int64_t es = opgen_dtype_size(dst->dtype);
    bool half = dst->dtype == OPGEN_DTYPE_Half || dst->dtype == OPGEN_DTYPE_BFloat16;
    opgen_dtype mid = half ? OPGEN_DTYPE_Float : dst->dtype;
    OPGEN_ITER_RUNS(&it, n, p, s, {
        for (int64_t b = 0; b < n; b += OPGEN_BLOCK) {
            int64_t m = n - b < OPGEN_BLOCK ? n - b : OPGEN_BLOCK;
            double tmp[OPGEN_BLOCK]; /* 8 bytes an element: room for any dtype */
            opgen_convert(tmp, mid, p[1] + b * s[1], s[1], src->dtype, m);
            if (half)
                opgen_convert_out(p[0] + b * s[0], s[0], dst->dtype, tmp, OPGEN_DTYPE_Float, m);
            else
                copy_run(p[0] + b * s[0], s[0], (const char *)tmp, es, m, es);
        }
    });
    return OPGEN_OK;
}
