/* A few rows times a BFloat16 or Half matrix, the matrix read as it lies: a
 * decode step's projections (linear, mm) on weights stored in 2 bytes. Widening
 * the weight to float first (what the other products do) would move three times
 * its bytes; here each weight element is read once per call and widened in
 * registers. Accumulation is in float, each result rounded once, as ATen's CPU
 * kernels compute these dtypes. */
#include "matvec_reduced.h"
#include <string.h>

enum { LANES = 16, COLS = 4, PREFETCH_GROUPS = 4 };

/* The sum of 16 lanes as a vector folds them: halves added, then halves of
 * those (a chain of 4 additions, not 15; a short row's time went to it). */
static inline float fold16(const float *a) {
    float h8[8], h4[4];
    for (int l = 0; l < 8; l++) h8[l] = a[l] + a[l + 8];
    for (int l = 0; l < 4; l++) h4[l] = h8[l] + h8[l + 4];
    return (h4[0] + h4[2]) + (h4[1] + h4[3]);
}

/* y[c] = x . w[c * ws ..] for COLS columns of K contiguous bf16 values: LANES
 * partial sums per column (one vector), summed in a fixed order, so every
 * vector width gives the same bits. */
OPGEN_DISPATCHED static void dot4_bf16(const float *x, const uint16_t *w, int64_t ws, int64_t K, float *y) {
    float acc[COLS][LANES];
    memset(acc, 0, sizeof acc);
    int64_t k = 0;
    for (; k + LANES <= K; k += LANES)
        for (int c = 0; c < COLS; c++)
            for (int l = 0; l < LANES; l++) acc[c][l] += x[k + l] * opgen_bf16_to_float(w[c * ws + k + l]);
    for (int c = 0; c < COLS; c++) {
        float s = fold16(acc[c]);
        for (int64_t t = k; t < K; t++) s += x[t] * opgen_bf16_to_float(w[c * ws + t]);
        y[c] = s;
    }
}

/* The same in AVX-512 registers (one vector a column, products then sums as
 * above: the same bits); compilers left to themselves split the loop in halves.
 * The four columns' sums are four independent chains, so one column's additions
 * wait on their latency while the others issue. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && !defined(OPGEN_NO_DISPATCH) && \
    (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define DOT4_AVX512 1
__attribute__((target("avx512f"))) static inline __m512 widen16(const uint16_t *w) {
    __m512i h = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)w));
    return _mm512_castsi512_ps(_mm512_slli_epi32(h, 16));
}
/* fold16 in registers: the same additions */
__attribute__((target("avx512f"))) static inline float fold16_avx512(__m512 acc) {
    __m512d a = _mm512_castps_pd(acc);
    __m256 h8 =
        _mm256_add_ps(_mm256_castpd_ps(_mm512_castpd512_pd256(a)), _mm256_castpd_ps(_mm512_extractf64x4_pd(a, 1)));
    __m128 h4 = _mm_add_ps(_mm256_castps256_ps128(h8), _mm256_extractf128_ps(h8, 1));
    __m128 h2 = _mm_add_ps(h4, _mm_movehl_ps(h4, h4));
    return _mm_cvtss_f32(_mm_add_ss(h2, _mm_shuffle_ps(h2, h2, 1)));
}
__attribute__((target("avx512f"))) static void dot4_bf16_avx512(const float *x, const uint16_t *w, int64_t ws,
                                                                int64_t K, float *y) {
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    int64_t k = 0;
    for (; k + LANES <= K; k += LANES) {
        __m512 xv = _mm512_loadu_ps(x + k);
        a0 = _mm512_add_ps(a0, _mm512_mul_ps(xv, widen16(w + k)));
        a1 = _mm512_add_ps(a1, _mm512_mul_ps(xv, widen16(w + ws + k)));
        a2 = _mm512_add_ps(a2, _mm512_mul_ps(xv, widen16(w + 2 * ws + k)));
        a3 = _mm512_add_ps(a3, _mm512_mul_ps(xv, widen16(w + 3 * ws + k)));
    }
    __m512 acc[COLS] = {a0, a1, a2, a3};
    for (int c = 0; c < COLS; c++) {
        float s = fold16_avx512(acc[c]);
        for (int64_t t = k; t < K; t++) s += x[t] * opgen_bf16_to_float(w[c * ws + t]);
        y[c] = s;
    }
}
#endif

static void dot4(const float *x, const uint16_t *w, int64_t ws, int64_t K, float *y) {
#ifdef DOT4_AVX512
    if (__builtin_cpu_supports("avx512f")) return dot4_bf16_avx512(x, w, ws, K, y); /* a flag libgcc set */
#endif
    dot4_bf16(x, w, ws, K, y);
}

/* y[0..n) += a * w[0..n): one row of a row-major matrix (each y in k order) */
OPGEN_DISPATCHED static void axpy_bf16(float a, const uint16_t *w, int64_t n, float *y) {
    for (int64_t i = 0; i < n; i++) y[i] += a * opgen_bf16_to_float(w[i]);
}

static void widen(const uint16_t *w, int64_t n, bool half, float *f) {
    if (half)
        for (int64_t i = 0; i < n; i++) f[i] = opgen_half_to_float(w[i]);
    else
        for (int64_t i = 0; i < n; i++) f[i] = opgen_bf16_to_float(w[i]);
}

typedef struct job {
    const float *x;                     /* the rows, widened: rows x K */
    const uint16_t *w;                  /* the matrix: element (k, n) at k * rs + n * cs, rs or cs 1 */
    const uint16_t *b;                  /* bias[n] or NULL */
    uint16_t *out;                      /* rows x N */
    float *acc;                         /* per part: N floats (axpy) or K floats (a Half column) */
    int64_t rows, K, N, rs, cs, B, wbs; /* B matrices, wbs elements apart (bmm) */
    bool half;
    int parts;
} job;

static inline uint16_t round_to(float v, bool half) { return half ? opgen_float_to_half(v) : opgen_float_to_bf16(v); }
static inline float bias_at(const job *j, int64_t n) {
    return j->b ? (j->half ? opgen_half_to_float(j->b[n]) : opgen_bf16_to_float(j->b[n])) : 0.0f;
}

/* Columns n0 .. n1 when a column is contiguous (rs 1): dot products. */
static void by_columns(const job *j, const uint16_t *wm, int64_t b, int64_t n0, int64_t n1, float *col) {
    for (int64_t r = 0; r < j->rows; r++) {
        const float *x = j->x + (b * j->rows + r) * j->K;
        uint16_t *o = j->out + (b * j->rows + r) * j->N;
        int64_t n = n0;
        float y[COLS];
        for (; !j->half && n + COLS <= n1; n += COLS) {
            /* the group PREFETCH_GROUPS ahead, a line at a time: the hardware
             * prefetcher alone leaves a memory-bound row at a quarter of the
             * machine's bandwidth */
            const char *ahead = (const char *)(wm + (n + PREFETCH_GROUPS * COLS) * j->cs);
            if (n + (PREFETCH_GROUPS + 1) * COLS <= n1 && j->cs == j->K)
                for (int64_t off = 0; off < COLS * j->K * 2; off += 64) __builtin_prefetch(ahead + off);
            dot4(x, wm + n * j->cs, j->cs, j->K, y);
            for (int c = 0; c < COLS; c++) o[n + c] = round_to(y[c] + bias_at(j, n + c), false);
        }
        for (; n < n1; n++) { /* Half, and the last columns */
            widen(wm + n * j->cs, j->K, j->half, col);
            float s = 0;
            for (int64_t k = 0; k < j->K; k++) s += x[k] * col[k];
            o[n] = round_to(s + bias_at(j, n), j->half);
        }
    }
}

/* Columns n0 .. n1 when a row is contiguous (cs 1): rows of the matrix added in. */
static void by_rows(const job *j, const uint16_t *wm, int64_t b, int64_t n0, int64_t n1, float *y) {
    int64_t n = n1 - n0;
    for (int64_t r = 0; r < j->rows; r++) {
        const float *x = j->x + (b * j->rows + r) * j->K;
        uint16_t *o = j->out + (b * j->rows + r) * j->N + n0;
        memset(y, 0, sizeof(float) * (size_t)n);
        for (int64_t k = 0; k < j->K; k++) {
            const uint16_t *w = wm + k * j->rs + n0;
            if (!j->half) {
                axpy_bf16(x[k], w, n, y);
                continue;
            }
            for (int64_t i = 0; i < n; i++) y[i] += x[k] * opgen_half_to_float(w[i]);
        }
        for (int64_t i = 0; i < n; i++) o[i] = round_to(y[i] + bias_at(j, n0 + i), j->half);
    }
}

static void part(void *arg, int p) {
    const job *j = arg;
    int64_t n0 = j->N * p / j->parts, n1 = j->N * (p + 1) / j->parts;
    n0 -= n0 % COLS, n1 = p + 1 == j->parts ? j->N : n1 - n1 % COLS; /* whole column groups: any split, same bits */
    float *acc = j->acc + (size_t)p * (size_t)(j->rs == 1 ? j->K : j->N);
    for (int64_t b = 0; b < j->B; b++) {
        if (j->rs == 1)
            by_columns(j, j->w + b * j->wbs, b, n0, n1, acc);
        else
            by_rows(j, j->w + b * j->wbs, b, n0, n1, acc);
    }
}

bool opgen_matvec_reduced_fits(const opgen_tensor *a, const opgen_tensor *m, int64_t rows) {
    int32_t d = m->dim - 2;
    return rows <= OPGEN_MATVEC_ROWS && (m->dim == 2 || m->dim == 3) &&
           (m->strides[d] == 1 || m->strides[d + 1] == 1) && a->dtype == m->dtype;
}

opgen_status opgen_matvec_reduced(opgen_ctx *ctx, const opgen_tensor *a, const opgen_tensor *m,
                                  const opgen_tensor *bias, opgen_tensor *out) {
    int32_t d = a->dim - 2; /* 1 for bmm: a batch of products */
    int64_t B = d ? a->sizes[0] : 1, rows = a->sizes[d], K = a->sizes[d + 1], N = m->sizes[d + 1];
    int64_t sizes[3] = {B, rows, N};
    opgen_status st = opgen_out(ctx, out, a->dtype, a->dim, sizes + 1 - d);
    if (st) return st;
    bool by_col = m->strides[d] == 1;
    int parts = opgen_parallel_parts_for(ctx->par, (double)(B * rows) * (double)K * (double)N, 262144.0);
    if (N < (int64_t)parts * 64) parts = 1;
    size_t xb = sizeof(float) * (size_t)(B * rows * K), ab = sizeof(float) * (size_t)(by_col ? K : N) * (size_t)parts;
    float *x = opgen_scratch(ctx, xb), *acc = opgen_scratch(ctx, ab);
    opgen_tensor bc;
    if (bias && opgen_contiguous(ctx, bias, &bc)) return ctx->err->code;
    if (ctx->meta) return OPGEN_OK;
    if (!x || !acc) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of scratch memory", ctx->op);
    for (int64_t b = 0; b < B; b++)
        for (int64_t r = 0; r < rows; r++)
            opgen_convert_f32(x + (b * rows + r) * K,
                              (const char *)a->data + (b * (d ? a->strides[0] : 0) + r * a->strides[d]) * 2,
                              a->strides[d + 1] * 2, a->dtype, K);
    job j = {.x = x,
             .w = m->data,
             .b = bias ? bc.data : NULL,
             .out = out->data,
             .acc = acc,
             .rows = rows,
             .K = K,
             .N = N,
             .rs = m->strides[d],
             .cs = m->strides[d + 1],
             .B = B,
             .wbs = d ? m->strides[0] : 0,
             .half = a->dtype == OPGEN_DTYPE_Half,
             .parts = parts};
    opgen_parallel_for(ctx->par, parts, part, &j);
    return OPGEN_OK;
}
