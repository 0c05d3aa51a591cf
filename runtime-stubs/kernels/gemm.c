/* The GEMM (see gemm.h): Goto's blocking. B is packed KC x NC into panels NR
 * columns wide, A MC x KC into panels MR rows high; the micro-kernel keeps an
 * MR x NR block of C in vector registers while it streams a panel of each, one
 * outer product per k. */
#include "gemm.h"
#include <string.h>

/* Panel sizes of a micro-kernel, and the blocks around it. */
typedef struct gemm_shape {
    int64_t mr, nr, mc, kc, nc;
} gemm_shape;

#if defined(__GNUC__) || defined(__clang__)
#define HAVE_VECTORS 1
#define UNROLL _Pragma("GCC unroll 16")
#else
#define HAVE_VECTORS 0
#define UNROLL
#endif

#if HAVE_VECTORS && (defined(__x86_64__) || defined(__i386__))
#define X86 1
#define TARGET_AVX2 __attribute__((target("avx2,fma")))
#define TARGET_AVX512 __attribute__((target("avx512f,fma")))
#else
#define X86 0
#endif

/* A build for size (OPGEN_SPEED_PATHS 0) leaves out C's last column alone as dot
 * products (DOT_COLUMN) and C^T = B^T @ A^T for a transposed B (swaps). */

/* An epilogue's per-row factors and activation in C's type (opgen_gemm_epilogue),
 * which a vector micro-kernel applies to a whole tile as it stores it. */
#define TILE_POST(T)                                                                                         \
    typedef struct tile_post_##T {                                                                           \
        const T *scale, *shift;                                                                              \
        int act;                                                                                             \
        T lo, hi;                                                                                            \
    } tile_post_##T;
TILE_POST(float)
TILE_POST(double)
/* A micro-kernel's type, per element type: micro_fn_float, micro_fn_double. */
#define MICRO_FN(T) typedef void micro_fn_##T(int64_t, const T *restrict, int64_t, const T *restrict, int64_t, const int64_t *restrict, T *restrict, int64_t, int64_t, int64_t, T, T, const tile_post_##T *, int64_t);
MICRO_FN(float)
MICRO_FN(double)

/* The micro-kernel: C[mr x nr] = alpha * (A panel @ B panel) + beta * C, the panels
 * kc long (B: NR values per k, ldb apart, or with boff row p at B + boff[p]; A: MR
 * values per k, packed, or with lda > 0 MR rows of A read where they lie, lda
 * apart). NV vectors of VB bytes make NR. */
#if HAVE_VECTORS
#define MICRO_LOOP(AT, BT, MR, NV, VB, PF)                                                                   \
    for (int64_t p = 0; p < kc; p++) {                                                                       \
        vec b[NV];                                                                                           \
        if (PF && (p & 15) == 0) /* A's rows read in place stream from memory: ask ahead */                 \
            UNROLL for (int i = 0; i < MR; i++) __builtin_prefetch(A + i * lda + p + 128);                   \
        const __typeof__(*B) *brow = B + (BT);                                                                         \
        UNROLL for (int v = 0; v < NV; v++) memcpy(&b[v], brow + v * VL, VB);                                 \
        UNROLL for (int i = 0; i < MR; i++) {                                                                \
            vec a = (AT) - (vec){0}; /* a splat: x - 0 is x, so no add is left */                           \
            UNROLL for (int v = 0; v < NV; v++) acc[i][v] += a * b[v];                                       \
        }                                                                                                    \
    }
#define MICRO(NAME, T, IT, VB, MR, NV, ATTR, POST)                                                           \
    ATTR static void NAME(int64_t kc, const T *restrict A, int64_t lda, const T *restrict B, int64_t ldb, const int64_t *restrict boff, T *restrict C, \
                          int64_t ldc, int64_t mr, int64_t nr, T alpha, T beta, const tile_post_##T *post, int64_t prow) { \
        typedef T vec __attribute__((vector_size(VB)));                                                      \
        typedef IT ivec __attribute__((vector_size(VB)));                                                    \
        enum { VL = VB / sizeof(T), NR = NV * VL };                                                          \
        vec acc[MR][NV];                                                                                     \
        UNROLL for (int i = 0; i < MR; i++) UNROLL for (int v = 0; v < NV; v++) acc[i][v] = (vec){0};        \
        if (lda && boff)                                                                                     \
            MICRO_LOOP(A[i * lda + p], boff[p], MR, NV, VB, 1)                                                  \
        else if (lda)                                                                                        \
            MICRO_LOOP(A[i * lda + p], p * ldb, MR, NV, VB, 1)                                                  \
        else if (boff)                                                                                       \
            MICRO_LOOP(A[p * MR + i], boff[p], MR, NV, VB, 0)                                                   \
        else                                                                                                 \
            MICRO_LOOP(A[p * MR + i], p * ldb, MR, NV, VB, 0)                                                   \
        if (mr == MR && nr == NR) { /* a whole tile: from the registers */                                  \
            UNROLL for (int i = 0; i < MR; i++) UNROLL for (int v = 0; v < NV; v++) {                        \
                vec c = alpha * acc[i][v];                                                                   \
                if (beta != 0) {                                                                             \
                    vec old;                                                                                 \
                    memcpy(&old, C + i * ldc + v * VL, VB);                                                  \
                    c += beta * old;                                                                         \
                }                                                                                            \
                if (post) c = POST(vec, ivec, post, prow + i, c);                                    \
                memcpy(C + i * ldc + v * VL, &c, VB);                                                        \
            }                                                                                                \
            return;                                                                                          \
        }                                                                                                    \
        (void)post, (void)prow;                                                                              \
        T tile[MR][NR];                                                                                      \
        memcpy(tile, acc, sizeof tile);                                                                      \
        for (int64_t i = 0; i < mr; i++)                                                                     \
            for (int64_t j = 0; j < nr; j++) {                                                               \
                T *c = C + i * ldc + j;                                                                      \
                *c = beta == 0 ? alpha * tile[i][j] : alpha * tile[i][j] + beta * *c;                        \
            }                                                                                                \
    }
#else
#define MICRO(NAME, T, IT, VB, MR, NV, ATTR, POST)                                                           \
    static void NAME(int64_t kc, const T *restrict A, int64_t lda, const T *restrict B, int64_t ldb, const int64_t *restrict boff, T *restrict C, \
                     int64_t ldc, int64_t mr, int64_t nr, T alpha, T beta, const tile_post_##T *post, int64_t prow) { \
        enum { NR = NV * (VB / sizeof(T)) };                                                                 \
        (void)post, (void)prow;                                                                              \
        T acc[MR][NR] = {{0}};                                                                               \
        for (int64_t p = 0; p < kc; p++)                                                                     \
            for (int i = 0; i < MR; i++)                                                                     \
                for (int j = 0; j < NR; j++) acc[i][j] += (lda ? A[i * lda + p] : A[p * MR + i]) * B[(boff ? boff[p] : p * ldb) + j]; \
        for (int64_t i = 0; i < mr; i++)                                                                     \
            for (int64_t j = 0; j < nr; j++) {                                                               \
                T *c = C + i * ldc + j;                                                                      \
                *c = beta == 0 ? alpha * acc[i][j] : alpha * acc[i][j] + beta * *c;                          \
            }                                                                                                \
    }
#endif

#if X86
/* A tile's epilogue on one vector c of row r (tile_post): c * scale + shift with
 * the product kept apart from the sum (the empty asm: no FMA may join them, as
 * none does where fn computes it), then relu or clamp by masks, a NaN kept. */
#define SELECT(ivec, m, a, b) (((ivec)(a) & (m)) | ((ivec)(b) & ~(m)))
#define VPOST(vec, ivec, p, r, c)                                                                            \
    __extension__({                                                                                          \
        vec x_ = (c) * ((p)->scale[r] - (vec){0});                                                           \
        __asm__("" : "+v"(x_));                                                                              \
        x_ += (p)->shift[r] - (vec){0};                                                                      \
        if ((p)->act == 1)                                                                                   \
            x_ = (vec)((ivec)x_ & ~(ivec)(x_ < (vec){0}));                                                   \
        else if ((p)->act == 2) {                                                                            \
            vec lo_ = (p)->lo - (vec){0}, hi_ = (p)->hi - (vec){0};                                          \
            x_ = (vec)SELECT(ivec, (ivec)(x_ < lo_), lo_, x_);                                               \
            x_ = (vec)SELECT(ivec, (ivec)(x_ > hi_), hi_, x_);                                               \
        }                                                                                                    \
        x_;                                                                                                  \
    })
#endif
#define NO_VPOST(vec, ivec, p, r, c) ((void)sizeof(ivec), (c)) /* the baseline kernels leave the epilogue to fn */

MICRO(micro_f32_base, float, int32_t, 16, 4, 2, , NO_VPOST)
MICRO(micro_f64_base, double, int64_t, 16, 4, 2, , NO_VPOST)
#if X86
MICRO(micro_f32_avx2, float, int32_t, 32, 6, 2, TARGET_AVX2, VPOST)
MICRO(micro_f32_avx512, float, int32_t, 64, 8, 2, TARGET_AVX512, VPOST)
MICRO(micro_f64_avx2, double, int64_t, 32, 6, 2, TARGET_AVX2, VPOST)
MICRO(micro_f64_avx512, double, int64_t, 64, 8, 2, TARGET_AVX512, VPOST)
/* Half as wide (one vector a row), for a row's last NR/2 columns or fewer: a
 * 14x14 output's 196 columns take 6 x 32 + 16, not 7 x 32. */
MICRO(micro_f32_avx2_h, float, int32_t, 32, 6, 1, TARGET_AVX2, VPOST)
MICRO(micro_f32_avx512_h, float, int32_t, 64, 8, 1, TARGET_AVX512, VPOST)
MICRO(micro_f64_avx2_h, double, int64_t, 32, 6, 1, TARGET_AVX2, VPOST)
MICRO(micro_f64_avx512_h, double, int64_t, 64, 8, 1, TARGET_AVX512, VPOST)
#endif

/* A tile one column wide (a row of C's last column, when n is one past whole
 * tiles: a 7x7 output's 49 = 32 + 16 + 1): as an outer product it would cost a whole
 * vector per row for one value; as MR dot products along k, A's rows read in
 * place and the column gathered contiguous (col), it costs 1/VL of that. Each dot
 * sums VL partial sums, then them as a tree (halves added), then the tail:
 * C = alpha * dot + beta * C, as the ragged tiles' store. */
#if HAVE_VECTORS
#define DOT_COLUMN(NAME, T, VB, MR, ATTR)                                                                    \
    ATTR static void NAME(int64_t kc, const T *restrict A, int64_t lda, const T *restrict col, T *restrict C, int64_t ldc, T alpha, T beta) { \
        typedef T vec __attribute__((vector_size(VB)));                                                      \
        enum { VL = VB / sizeof(T) };                                                                        \
        vec acc[MR];                                                                                         \
        UNROLL for (int i = 0; i < MR; i++) acc[i] = (vec){0};                                               \
        int64_t p = 0;                                                                                       \
        for (; p + VL <= kc; p += VL) {                                                                      \
            vec c, a;                                                                                        \
            memcpy(&c, col + p, VB);                                                                         \
            UNROLL for (int i = 0; i < MR; i++) memcpy(&a, A + i * lda + p, VB), acc[i] += a * c;            \
        }                                                                                                    \
        T h[MR][VL]; /* the partial sums halved and added, all rows at once: a tree, not a chain */        \
        memcpy(h, acc, sizeof h);                                                                            \
        for (int w = VL / 2; w >= 1; w /= 2)                                                                 \
            for (int i = 0; i < MR; i++)                                                                     \
                for (int u = 0; u < w; u++) h[i][u] += h[i][u + w];                                          \
        for (int i = 0; i < MR; i++) {                                                                       \
            T sum = h[i][0];                                                                                 \
            for (int64_t q = p; q < kc; q++) sum += A[i * lda + q] * col[q];                                 \
            T *c = C + i * ldc;                                                                              \
            *c = beta == 0 ? alpha * sum : alpha * sum + beta * *c;                                          \
        }                                                                                                    \
    }
#else
#define DOT_COLUMN(NAME, T, VB, MR, ATTR)                                                                    \
    static void NAME(int64_t kc, const T *restrict A, int64_t lda, const T *restrict col, T *restrict C, int64_t ldc, T alpha, T beta) { \
        for (int i = 0; i < MR; i++) {                                                                       \
            T sum = 0;                                                                                       \
            for (int64_t q = 0; q < kc; q++) sum += A[i * lda + q] * col[q];                                 \
            C[i * ldc] = beta == 0 ? alpha * sum : alpha * sum + beta * C[i * ldc];                          \
        }                                                                                                    \
    }
#endif
typedef void dot_fn_float(int64_t, const float *restrict, int64_t, const float *restrict, float *restrict, int64_t, float, float);
typedef void dot_fn_double(int64_t, const double *restrict, int64_t, const double *restrict, double *restrict, int64_t, double, double);
#if !OPGEN_SPEED_PATHS
static dot_fn_float *const dots_f32[3] = {NULL, NULL, NULL};
static dot_fn_double *const dots_f64[3] = {NULL, NULL, NULL};
#else
DOT_COLUMN(dot_f32_base, float, 16, 4, )
DOT_COLUMN(dot_f64_base, double, 16, 4, )
#if X86
DOT_COLUMN(dot_f32_avx2, float, 32, 6, TARGET_AVX2)
DOT_COLUMN(dot_f32_avx512, float, 64, 8, TARGET_AVX512)
DOT_COLUMN(dot_f64_avx2, double, 32, 6, TARGET_AVX2)
DOT_COLUMN(dot_f64_avx512, double, 64, 8, TARGET_AVX512)
static dot_fn_float *const dots_f32[3] = {dot_f32_base, dot_f32_avx2, dot_f32_avx512};
static dot_fn_double *const dots_f64[3] = {dot_f64_base, dot_f64_avx2, dot_f64_avx512};
#else
static dot_fn_float *const dots_f32[3] = {dot_f32_base, dot_f32_base, dot_f32_base};
static dot_fn_double *const dots_f64[3] = {dot_f64_base, dot_f64_base, dot_f64_base};
#endif
#endif

/* The variants, best first: {shape, which CPU feature it needs}. */
enum { BASE, AVX2, AVX512 };
static const gemm_shape shapes_f32[3] = {{4, 8, 64, 256, 512}, {6, 16, 96, 384, 512}, {8, 32, 96, 384, 512}};
static const gemm_shape shapes_f64[3] = {{4, 4, 64, 256, 256}, {6, 8, 96, 256, 256}, {8, 16, 96, 256, 256}};

static int ceiling = AVX512; /* opgen_gemm_use_variant */
void opgen_gemm_use_variant(int v) { ceiling = v < 0 ? AVX512 : v; }

static int best_variant(void) {
    int v = BASE;
#if X86
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma"))
        v = AVX512;
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        v = AVX2;
#endif
    return v < ceiling ? v : ceiling;
}

static int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* The blocks of one problem: no bigger than it needs. */
static gemm_shape fit(gemm_shape s, int64_t m, int64_t n, int64_t k) {
    s.mc = min64(s.mc, round_up(m, s.mr));
    s.nc = min64(s.nc, round_up(n, s.nr));
    s.kc = min64(s.kc, k ? k : 1);
    return s;
}

/* Threads pay off past about 64^3 multiply-adds (or what par says). One row (a
 * decode step's product) reads 4 bytes of B per multiply-add, from memory: each
 * costs about what 4 of a tiled product do (a build for size, whose runtimes
 * have no pool, keeps one rule). */
static bool worth_splitting(const opgen_parallel *par, int64_t m, int64_t n, int64_t k) {
    return opgen_parallel_parts_for(par, (double)m * (double)n * (double)k * (OPGEN_SPEED_PATHS && m == 1 ? 4 : 1), 262144.0) > 1;
}

/* One part's packed panels, with room to align them to 64 bytes. */
static size_t gemm_slice(opgen_dtype dtype, int64_t m, int64_t n, int64_t k) {
    const gemm_shape *shapes = dtype == OPGEN_DTYPE_Double ? shapes_f64 : shapes_f32;
    size_t es = dtype == OPGEN_DTYPE_Double ? 8 : 4, most = 0;
    for (int v = 0; v < 3; v++) { /* whichever variant the CPU picks at run time fits */
        gemm_shape s = fit(shapes[v], m, n, k);
        size_t bytes = (size_t)(s.mc * s.kc + s.kc * s.nc + OPGEN_SPEED_PATHS * s.kc) * es + 128; /* A's panels, B's, a column of B */
        if (bytes > most) most = bytes;
    }
    return (most + 63) & ~(size_t)63;
}

/* A few rows of A against a B used transposed (its columns contiguous: an
 * nn.Linear weight, or a prefill's): packing B would gather all of it on every
 * call, more work than the products for these few rows. The GEMM computes
 * C^T = B^T @ A^T instead, B^T read in place as the A side and A^T (small)
 * packed; C^T goes to the scratch and is moved to C. Chosen by shape alone, so
 * the threads never change which way an element is computed. */
static bool swaps(int64_t m, int64_t n) { return OPGEN_SPEED_PATHS && m > 1 && m <= 64 && n > m; }

size_t opgen_gemm_scratch_b_rows(opgen_dtype dtype, const opgen_parallel *par, int64_t m, int64_t n, int64_t k) {
    return gemm_slice(dtype, m, n, k) * (size_t)(worth_splitting(par, m, n, k) ? opgen_parallel_parts(par) : 1); /* a slice per part */
}

/* C^T's bytes in the scratch, 64-aligned, before the swapped problem's slices. */
static size_t transposed_c(opgen_dtype dtype, int64_t m, int64_t n) { return ((size_t)(m * n) * (dtype == OPGEN_DTYPE_Double ? 8 : 4) + 63) & ~(size_t)63; }

size_t opgen_gemm_scratch(opgen_dtype dtype, const opgen_parallel *par, int64_t m, int64_t n, int64_t k) {
    size_t plain = opgen_gemm_scratch_b_rows(dtype, par, m, n, k);
    if (!swaps(m, n)) return plain;
    size_t swapped = 64 + transposed_c(dtype, m, n) + opgen_gemm_scratch_b_rows(dtype, par, n, m, k);
    return swapped > plain ? swapped : plain;
}

/* The driver, per element type: pack and call the micro-kernel over the tiles. */
/* One row of A (m = 1: a decode step's matrix-vector products): no packing, B
 * read once in the order it lies. Rows of B contiguous: C's row accumulates a[p]
 * times each row of B, a block of columns at a time; columns of B contiguous (a
 * weight used transposed, as nn.Linear's): each C element is a dot product of a
 * with a column, in 16 interleaved partial sums. C = alpha * A @ B + beta * C. */
#define GEMV(NAME, T, ATTR)                                                                                            \
    ATTR static void NAME(int64_t n, int64_t k, T alpha, const T *restrict a, int64_t csa, const T *restrict b, int64_t rsb, \
                          int64_t csb, T beta, T *restrict c) {                                                        \
        if (csb == 1) {                                                                                                \
            for (int64_t j0 = 0; j0 < n; j0 += 256) {                                                                  \
                int64_t nb = min64(256, n - j0);                                                                       \
                T acc[256] = {0};                                                                                      \
                for (int64_t p = 0; p < k; p++) {                                                                      \
                    T av = a[p * csa];                                                                                 \
                    const T *restrict row = b + p * rsb + j0;                                                          \
                    for (int64_t j = 0; j < nb; j++) acc[j] += av * row[j];                                            \
                }                                                                                                      \
                for (int64_t j = 0; j < nb; j++) c[j0 + j] = alpha * acc[j] + (beta == 0 ? (T)0 : beta * c[j0 + j]);  \
            }                                                                                                          \
            return;                                                                                                    \
        }                                                                                                              \
        for (int64_t j = 0; j < n; j++) {                                                                              \
            const T *restrict col = b + j * csb;                                                                       \
            T part[16] = {0}, sum = 0;                                                                                 \
            int64_t p = 0;                                                                                             \
            if (rsb == 1 && csa == 1)                                                                                  \
                for (; p + 16 <= k; p += 16)                                                                           \
                    for (int u = 0; u < 16; u++) part[u] += a[p + u] * col[p + u];                                     \
            for (int u = 0; u < 16; u++) sum += part[u];                                                               \
            for (; p < k; p++) sum += a[p * csa] * col[p * rsb];                                                       \
            c[j] = alpha * sum + (beta == 0 ? (T)0 : beta * c[j]);                                                     \
        }                                                                                                              \
    }
GEMV(gemv_f32_base, float, )
GEMV(gemv_f64_base, double, )
#if X86
GEMV(gemv_f32_avx2, float, TARGET_AVX2)
GEMV(gemv_f64_avx2, double, TARGET_AVX2)
#define GEMV_OF(T, v) ((v) ? _Generic((T)0, float: gemv_f32_avx2, default: gemv_f64_avx2) : _Generic((T)0, float: gemv_f32_base, default: gemv_f64_base))
#else
#define GEMV_OF(T, v) _Generic((T)0, float: gemv_f32_base, default: gemv_f64_base)
#endif

/* A problem split into parts (rows or columns of C) for threads: each part packs
 * its own panels in its own slice of the scratch. */
#define GEMM_DRIVER(NAME, T, SHAPES, MICROS, DOTS)                                                                     \
    typedef struct NAME##_job {                                                                                        \
        int64_t m, n, k, rsa, csa, rsb, csb, ldc, step;                                                                \
        T alpha, beta;                                                                                                 \
        const T *a, *b;                                                                                                \
        T *c;                                                                                                          \
        char *scratch;                                                                                                 \
        const opgen_gemm_epilogue *epi;                                                                                \
        const opgen_gemm_bsource *bsrc;                                                                                \
        const int64_t *brow;                                                                                           \
        tile_post_##T post; /* the epilogue's factors, for whole tiles (scale NULL: none) */                         \
        size_t per;                                                                                                    \
        bool by_rows, direct_b;                                                                                        \
    } NAME##_job;                                                                                                      \
    /* C[i0.., j0..] of size m x n: pack and call the micro-kernel over the tiles */                                  \
    static void NAME##_block(const NAME##_job *jb, int64_t i0m, int64_t m, int64_t j0n, int64_t n, void *scratch) {    \
        int v = best_variant();                                                                                        \
        micro_fn_##T *const *micros = MICROS[v];                                                                       \
        int64_t k = jb->k, rsa = jb->rsa, csa = jb->csa, rsb = jb->rsb, csb = jb->csb, ldc = jb->ldc;                 \
        const T *a = jb->a + i0m * rsa, *b = jb->b ? jb->b + j0n * csb : NULL; /* no B with a B function */           \
        T *c = jb->c + i0m * ldc + j0n, alpha = jb->alpha, beta = jb->beta;                                            \
        gemm_shape s = fit(SHAPES[v], m, n, k);                                                                        \
        T *pa = (T *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63), *pb = pa + s.mc * s.kc;                             \
        for (int64_t j0 = 0; j0 < n; j0 += s.nc) {                                                                     \
            int64_t nc = min64(s.nc, n - j0);                                                                          \
            for (int64_t p0 = 0; p0 < k; p0 += s.kc) {                                                                 \
                int64_t kc = min64(s.kc, k - p0);                                                                      \
                T be = p0 ? (T)1 : beta; /* later slices of k add to what the first wrote */                           \
                /* B[p0.., j0..] into NR-column panels; with its rows contiguous, whole panels \
                 * are read in place (kc rows ldb apart) and only a ragged last one is packed */                    \
                bool direct = csb == 1 && jb->direct_b;                                                                \
                const T *bp = b ? b + p0 * rsb + j0 : NULL;                                                            \
                const int64_t *boff = jb->brow ? jb->brow + p0 : NULL; /* rows anywhere: read in place */             \
                if (jb->bsrc) /* B's function packs the block */                                                       \
                    jb->bsrc->fn(jb->bsrc->user, pb, p0, kc, j0n + j0, nc, s.nr);                                      \
                for (int64_t jr = 0; !jb->bsrc && jr < nc; jr += s.nr) {                                               \
                    T *q = pb + jr * kc;                                                                               \
                    if (direct && (jr + s.nr <= nc || boff)) continue; /* rows anywhere: a ragged panel too */    \
                    for (int64_t p = 0; p < kc; p++, q += s.nr)                                                        \
                        if (csb == 1 && jr + s.nr <= nc)                                                               \
                            memcpy(q, bp + p * rsb + jr, sizeof(T) * (size_t)s.nr);                                   \
                        else                                                                                           \
                            for (int64_t j = 0; j < s.nr; j++) q[j] = jr + j < nc ? b[(p0 + p) * rsb + (j0 + jr + j) * csb] : (T)0; \
                }                                                                                                      \
                for (int64_t i0 = 0; i0 < m; i0 += s.mc) {                                                             \
                    int64_t mc = min64(s.mc, m - i0);                                                                  \
                    T *r = pa; /* A[i0.., p0..] into MR-row panels, but for whole panels of contiguous rows: \
                                * the micro-kernel reads those in place, MR streams of a row each */                 \
                    bool direct_a = csa == 1 && rsa > 0;                                                               \
                    for (int64_t ir = 0; ir < mc; ir += s.mr) {                                                        \
                        const T *ap = a + (i0 + ir) * rsa + p0 * csa;                                                  \
                        if (ir + s.mr <= mc && direct_a)                                                               \
                            r += kc * s.mr;                                                                            \
                        else if (ir + s.mr <= mc) /* a whole panel: no bounds to check */                              \
                            for (int64_t p = 0; p < kc; p++)                                                           \
                                for (int64_t i = 0; i < s.mr; i++) *r++ = ap[i * rsa + p * csa];                       \
                        else                                                                                           \
                            for (int64_t p = 0; p < kc; p++)                                                           \
                                for (int64_t i = 0; i < s.mr; i++) *r++ = ir + i < mc ? ap[i * rsa + p * csa] : (T)0;  \
                    }                                                                                                  \
                    /* C's last column alone goes to dot products (DOT_COLUMN), where A's rows are read in place;   \
                     * a caller splitting C's columns itself (a convolution's ranges) splits them in multiples of 32, \
                     * so that only the matrix's own last column can be one alone, on any number of threads */       \
                    bool dots = OPGEN_SPEED_PATHS && direct_a;                                                               \
                    for (int64_t jr = 0, tw; jr < nc; jr += tw) {                                                      \
                        /* NR/2 columns or fewer left, or NR/2 and the one for the dots: the half-wide kernel */      \
                        int64_t left = nc - jr;                                                                        \
                        bool half = micros[1] && (left <= s.nr / 2 || (dots && left == s.nr / 2 + 1));                 \
                        micro_fn_##T *micro = micros[half];                                                            \
                        tw = left == 1 && dots ? 1 : half ? s.nr / 2 : s.nr;                                           \
                        int64_t nt = min64(tw, left);                                                                  \
                        bool db = direct && (jr + s.nr <= nc || boff);                                                 \
                        bool last = jb->epi && p0 + kc == k; /* the tiles are finished */                              \
                        /* B's tile: in place, or in its packed panel, from column jr % NR on */                      \
                        const T *bt = db ? bp + jr : pb + jr / s.nr * s.nr * kc + jr % s.nr, *bcol = NULL;             \
                        int64_t ldb = db ? rsb : s.nr;                                                                 \
                        const int64_t *bo = db ? boff : NULL;                                                          \
                        if (tw == 1) { /* one column: its dot products, B's column gathered */                         \
                            T *colv = pb + s.kc * s.nc;                                                                \
                            for (int64_t p = 0; p < kc; p++) colv[p] = bt[bo ? bo[p] : p * ldb];                       \
                            bcol = colv;                                                                               \
                        }                                                                                              \
                        for (int64_t ir = 0; ir < mc; ir += s.mr) {                                                    \
                            T *ct = c + (i0 + ir) * ldc + j0 + jr;                                                     \
                            bool da = direct_a && ir + s.mr <= mc;                                                     \
                            int64_t mt = min64(s.mr, mc - ir);                                                         \
                            const tile_post_##T *tp = last && jb->post.scale && v != BASE && mt == s.mr && nt == tw && !bcol ? &jb->post : NULL; \
                            if (bcol && da)                                                                            \
                                DOTS[v](kc, a + (i0 + ir) * rsa + p0, rsa, bcol, ct, ldc, alpha, be);                  \
                            else                                                                                       \
                                micro(kc, da ? a + (i0 + ir) * rsa + p0 : pa + ir * kc, da ? rsa : 0, bt, ldb, bo, ct, ldc, mt, nt, alpha, be, tp, \
                                      i0m + i0 + ir);                                                                  \
                            if (last && !tp) jb->epi->fn(jb->epi->user, ct, ldc, i0m + i0 + ir, j0n + j0 + jr, mt, nt); \
                        }                                                                                              \
                    }                                                                                                  \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    }                                                                                                                  \
    static void NAME##_part(void *arg, int part) {                                                                     \
        const NAME##_job *jb = arg;                                                                                    \
        int64_t total = jb->by_rows ? jb->m : jb->n, lo = min64(total, part * jb->step), hi = min64(total, lo + jb->step); \
        if (lo >= hi) return;                                                                                          \
        void *scratch = jb->scratch + (size_t)part * jb->per;                                                          \
        if (jb->m == 1 && !jb->bsrc && !jb->brow) { /* one row: the columns' dot products or row sums, unpacked */                   \
            GEMV_OF(T, best_variant())(hi - lo, jb->k, jb->alpha, jb->a, jb->csa, jb->b + lo * jb->csb, jb->rsb, jb->csb, jb->beta, jb->c + lo); \
            if (jb->epi) jb->epi->fn(jb->epi->user, jb->c + lo, jb->ldc, 0, lo, 1, hi - lo);                          \
        } else if (jb->by_rows)                                                                                          \
            NAME##_block(jb, lo, hi - lo, 0, jb->n, scratch);                                                          \
        else                                                                                                           \
            NAME##_block(jb, 0, jb->m, lo, hi - lo, scratch);                                                          \
    }                                                                                                                  \
    static void NAME##_run(const opgen_parallel *par, int64_t m, int64_t n, int64_t k, T alpha, const T *a, int64_t rsa, int64_t csa, const T *b, \
                           int64_t rsb, int64_t csb, const int64_t *brow, const opgen_gemm_bsource *bsrc, T beta, T *c, int64_t ldc,  \
                           void *scratch, const opgen_gemm_epilogue *epi) {                                                      \
        if (m <= 0 || n <= 0) return;                                                                                  \
        if (k <= 0) { /* no products: C = beta * C */                                                                  \
            for (int64_t i = 0; i < m; i++)                                                                            \
                for (int64_t j = 0; j < n; j++) c[i * ldc + j] = beta == 0 ? (T)0 : beta * c[i * ldc + j];             \
            if (epi) epi->fn(epi->user, c, ldc, 0, 0, m, n);                                                           \
            return;                                                                                                    \
        }                                                                                                              \
        if (!bsrc && !brow && !epi && rsb == 1 && csb > 1 && swaps(m, n)) { /* C^T = B^T @ A^T (swaps) */             \
            T *ct = (T *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63); /* n x m */                                    \
            char *rest = (char *)ct + transposed_c(sizeof(T) == 8 ? OPGEN_DTYPE_Double : OPGEN_DTYPE_Float, m, n);     \
            if (beta != 0)                                                                                             \
                for (int64_t i = 0; i < m; i++)                                                                        \
                    for (int64_t j = 0; j < n; j++) ct[j * m + i] = c[i * ldc + j];                                    \
            NAME##_run(par, n, m, k, alpha, b, csb, rsb, a, csa, rsa, NULL, NULL, beta, ct, m, rest, NULL);             \
            for (int64_t i = 0; i < m; i++)                                                                            \
                for (int64_t j = 0; j < n; j++) c[i * ldc + j] = ct[j * m + i];                                        \
            return;                                                                                                    \
        }                                                                                                              \
        int parts = worth_splitting(par, m, n, k) ? opgen_parallel_parts(par) : 1;                                     \
        NAME##_job jb = {m, n, k, rsa, csa, rsb, csb, ldc, 0, alpha, beta, a, b, c, scratch, epi, bsrc, brow, {NULL, NULL, 0, 0, 0}, 0, false, false}; \
        if (epi && epi->scale)                                                                                         \
            jb.post = (tile_post_##T){epi->scale, epi->shift, epi->act, (T)epi->lo, (T)epi->hi};                      \
        /* B read in place pays when a panel serves few rows of A (packing it would   \
         * cost as much as using it) and its rows are not a multiple of 4 KiB apart   \
         * (they would fall into the same cache sets) */                              \
        jb.direct_b = brow || (!bsrc && m <= 64 && (rsb * (int64_t)sizeof(T)) % 4096 != 0);                          \
        jb.per = gemm_slice(sizeof(T) == 8 ? OPGEN_DTYPE_Double : OPGEN_DTYPE_Float, m, n, k);                      \
        /* split the longer side of C in multiples of 32 that are whole tiles (MR 6 rows: of 96), so each part's    \
         * tiles are one thread's and no element moves to a ragged tile, which rounds alpha * acc + C once */        \
        jb.by_rows = m > 1 && m >= n;                                                                                  \
        int64_t unit = 32, mr = SHAPES[best_variant()].mr;                                                             \
        while (jb.by_rows && unit % mr) unit += 32;                                                                    \
        jb.step = round_up(((jb.by_rows ? m : n) + parts - 1) / parts, unit);                                          \
        opgen_parallel_for(par, parts, NAME##_part, &jb);                                                              \
    }                                                                                                                  \
    void NAME(const opgen_parallel *par, int64_t m, int64_t n, int64_t k, T alpha, const T *a, int64_t rsa, int64_t csa, const T *b, int64_t rsb, \
              int64_t csb, T beta, T *c, int64_t ldc, void *scratch, const opgen_gemm_epilogue *epi) {                 \
        NAME##_run(par, m, n, k, alpha, a, rsa, csa, b, rsb, csb, NULL, NULL, beta, c, ldc, scratch, epi);              \
    }                                                                                                                  \
    void NAME##_from(const opgen_parallel *par, int64_t m, int64_t n, int64_t k, T alpha, const T *a, int64_t rsa, int64_t csa,  \
                     const opgen_gemm_bsource *b, T beta, T *c, int64_t ldc, void *scratch, const opgen_gemm_epilogue *epi) {   \
        NAME##_run(par, m, n, k, alpha, a, rsa, csa, NULL, 0, 0, NULL, b, beta, c, ldc, scratch, epi);                  \
    }                                                                                                                  \
    void NAME##_rows(const opgen_parallel *par, int64_t m, int64_t n, int64_t k, T alpha, const T *a, int64_t rsa, int64_t csa,  \
                     const T *b, const int64_t *brow, T beta, T *c, int64_t ldc, void *scratch, const opgen_gemm_epilogue *epi) { \
        NAME##_run(par, m, n, k, alpha, a, rsa, csa, b, 0, 1, brow, NULL, beta, c, ldc, scratch, epi);                  \
    }

/* Per variant: the micro-kernel NR wide, and NR/2 wide (NULL: none). */
#if X86
static micro_fn_float *const micros_f32[3][2] = {{micro_f32_base, NULL}, {micro_f32_avx2, micro_f32_avx2_h}, {micro_f32_avx512, micro_f32_avx512_h}};
static micro_fn_double *const micros_f64[3][2] = {{micro_f64_base, NULL}, {micro_f64_avx2, micro_f64_avx2_h}, {micro_f64_avx512, micro_f64_avx512_h}};
#else
static micro_fn_float *const micros_f32[3][2] = {{micro_f32_base, NULL}, {micro_f32_base, NULL}, {micro_f32_base, NULL}};
static micro_fn_double *const micros_f64[3][2] = {{micro_f64_base, NULL}, {micro_f64_base, NULL}, {micro_f64_base, NULL}};
#endif

GEMM_DRIVER(opgen_gemm_f32, float, shapes_f32, micros_f32, dots_f32)
GEMM_DRIVER(opgen_gemm_f64, double, shapes_f64, micros_f64, dots_f64)
