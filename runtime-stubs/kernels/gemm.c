/* The GEMM (see gemm.h): Goto's blocking. B is packed KC x NC into panels NR
 * columns wide, A MC x KC into panels MR rows high; the micro-kernel keeps an
 * MR x NR block of C in vector registers while it streams a panel of each, one
 * outer product per k. */
#include "chunks.h"
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
#define TILE_POST(T)               \
    typedef struct tile_post_##T { \
        const T *scale, *shift;    \
        int act;                   \
        T lo, hi;                  \
    } tile_post_##T;
TILE_POST(float)
TILE_POST(double)
/* A micro-kernel's type, per element type: micro_fn_float, micro_fn_double. */
#define MICRO_FN(T)                                                                                  \
    typedef void micro_fn_##T(int64_t, const T *restrict, int64_t, const T *restrict, int64_t,       \
                              const int64_t *restrict, T *restrict, int64_t, int64_t, int64_t, T, T, \
                              const tile_post_##T *, int64_t);
MICRO_FN(float)
MICRO_FN(double)

/* The micro-kernel: C[mr x nr] = alpha * (A panel @ B panel) + beta * C, the panels
 * kc long (B: NR values per k, ldb apart, or with boff row p at B + boff[p]; A: MR
 * values per k, packed, or with lda > 0 MR rows of A read where they lie, lda
 * apart). NV vectors of VB bytes make NR. */
#if HAVE_VECTORS
#define MICRO_LOOP(AT, BT, MR, NV, VB, PF)                                                  \
    for (int64_t p = 0; p < kc; p++) {                                                      \
        vec b[NV];                                                                          \
        if (PF && (p & 15) == 0) /* A's rows read in place stream from memory: ask ahead */ \
            UNROLL for (int i = 0; i < MR; i++) __builtin_prefetch(A + i * lda + p + 128);  \
        const __typeof__(*B) *brow = B + (BT);                                              \
        UNROLL for (int v = 0; v < NV; v++) memcpy(&b[v], brow + v * VL, VB);               \
        UNROLL for (int i = 0; i < MR; i++) {                                               \
            vec a = (AT) - (vec){0}; /* a splat: x - 0 is x, so no add is left */           \
            UNROLL for (int v = 0; v < NV; v++) acc[i][v] += a * b[v];                      \
        }                                                                                   \
    }
#define MICRO(NAME, T, IT, VB, MR, NV, ATTR, POST)                                                                   \
    ATTR static void NAME(int64_t kc, const T *restrict A, int64_t lda, const T *restrict B, int64_t ldb,            \
                          const int64_t *restrict boff, T *restrict C, int64_t ldc, int64_t mr, int64_t nr, T alpha, \
                          T beta, const tile_post_##T *post, int64_t prow) {                                         \
        typedef T vec __attribute__((vector_size(VB)));                                                              \
        typedef IT ivec __attribute__((vector_size(VB)));                                                            \
        enum { VL = VB / sizeof(T), NR = NV * VL };                                                                  \
        vec acc[MR][NV];                                                                                             \
        UNROLL for (int i = 0; i < MR; i++) UNROLL for (int v = 0; v < NV; v++) acc[i][v] = (vec){0};                \
        if (lda && boff)                                                                                             \
            MICRO_LOOP(A[i * lda + p], boff[p], MR, NV, VB, 1)                                                       \
        else if (lda)                                                                                                \
            MICRO_LOOP(A[i * lda + p], p *ldb, MR, NV, VB, 1)                                                        \
        else if (boff)                                                                                               \
            MICRO_LOOP(A[p * MR + i], boff[p], MR, NV, VB, 0)                                                        \
        else                                                                                                         \
            MICRO_LOOP(A[p * MR + i], p *ldb, MR, NV, VB, 0)                                                         \
        if (mr == MR && nr == NR) { /* a whole tile: from the registers */                                           \
            UNROLL for (int i = 0; i < MR; i++) UNROLL for (int v = 0; v < NV; v++) {                                \
                vec c = alpha * acc[i][v];                                                                           \
                if (beta != 0) {                                                                                     \
                    vec old;                                                                                         \
                    memcpy(&old, C + i * ldc + v * VL, VB);                                                          \
                    c += beta * old;                                                                                 \
                }                                                                                                    \
                if (post) c = POST(vec, ivec, post, prow + i, c);                                                    \
                memcpy(C + i * ldc + v * VL, &c, VB);                                                                \
            }                                                                                                        \
            return;                                                                                                  \
        }                                                                                                            \
        (void)post, (void)prow;                                                                                      \
        T tile[MR][NR];                                                                                              \
        memcpy(tile, acc, sizeof tile);                                                                              \
        for (int64_t i = 0; i < mr; i++)                                                                             \
            for (int64_t j = 0; j < nr; j++) {                                                                       \
                T *c = C + i * ldc + j;                                                                              \
                *c = beta == 0 ? alpha * tile[i][j] : alpha * tile[i][j] + beta * *c;                                \
            }                                                                                                        \
    }
#else
#define MICRO(NAME, T, IT, VB, MR, NV, ATTR, POST)                                                              \
    static void NAME(int64_t kc, const T *restrict A, int64_t lda, const T *restrict B, int64_t ldb,            \
                     const int64_t *restrict boff, T *restrict C, int64_t ldc, int64_t mr, int64_t nr, T alpha, \
                     T beta, const tile_post_##T *post, int64_t prow) {                                         \
        enum { NR = NV * (VB / sizeof(T)) };                                                                    \
        (void)post, (void)prow;                                                                                 \
        T acc[MR][NR] = {{0}};                                                                                  \
        for (int64_t p = 0; p < kc; p++)                                                                        \
            for (int i = 0; i < MR; i++)                                                                        \
                for (int j = 0; j < NR; j++)                                                                    \
                    acc[i][j] += (lda ? A[i * lda + p] : A[p * MR + i]) * B[(boff ? boff[p] : p * ldb) + j];    \
        for (int64_t i = 0; i < mr; i++)                                                                        \
            for (int64_t j = 0; j < nr; j++) {                                                                  \
                T *c = C + i * ldc + j;                                                                         \
                *c = beta == 0 ? alpha * acc[i][j] : alpha * acc[i][j] + beta * *c;                             \
            }                                                                                                   \
    }
#endif

#if X86
/* A tile's epilogue on one vector c of row r (tile_post): c * scale + shift with
 * the product kept apart from the sum (the empty asm: no FMA may join them, as
 * none does where fn computes it), then relu or clamp by masks, a NaN kept. */
#define SELECT(ivec, m, a, b) (((ivec)(a) & (m)) | ((ivec)(b) & ~(m)))
#define VPOST(vec, ivec, p, r, c)                                   \
    __extension__({                                                 \
        vec x_ = (c) * ((p)->scale[r] - (vec){0});                  \
        __asm__("" : "+v"(x_));                                     \
        x_ += (p)->shift[r] - (vec){0};                             \
        if ((p)->act == 1)                                          \
            x_ = (vec)((ivec)x_ & ~(ivec)(x_ < (vec){0}));          \
        else if ((p)->act == 2) {                                   \
            vec lo_ = (p)->lo - (vec){0}, hi_ = (p)->hi - (vec){0}; \
            x_ = (vec)SELECT(ivec, (ivec)(x_ < lo_), lo_, x_);      \
            x_ = (vec)SELECT(ivec, (ivec)(x_ > hi_), hi_, x_);      \
        }                                                           \
        x_;                                                         \
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
#define DOT_COLUMN(NAME, T, VB, MR, ATTR)                                                                     \
    ATTR static void NAME(int64_t kc, const T *restrict A, int64_t lda, const T *restrict col, T *restrict C, \
                          int64_t ldc, T alpha, T beta) {                                                     \
        typedef T vec __attribute__((vector_size(VB)));                                                       \
        enum { VL = VB / sizeof(T) };                                                                         \
        vec acc[MR];                                                                                          \
        UNROLL for (int i = 0; i < MR; i++) acc[i] = (vec){0};                                                \
        int64_t p = 0;                                                                                        \
        for (; p + VL <= kc; p += VL) {                                                                       \
            vec c, a;                                                                                         \
            memcpy(&c, col + p, VB);                                                                          \
            UNROLL for (int i = 0; i < MR; i++) memcpy(&a, A + i * lda + p, VB), acc[i] += a * c;             \
        }                                                                                                     \
        T h[MR][VL]; /* the partial sums halved and added, all rows at once: a tree, not a chain */           \
        memcpy(h, acc, sizeof h);                                                                             \
        for (int w = VL / 2; w >= 1; w /= 2)                                                                  \
            for (int i = 0; i < MR; i++)                                                                      \
                for (int u = 0; u < w; u++) h[i][u] += h[i][u + w];                                           \
        for (int i = 0; i < MR; i++) {                                                                        \
            T sum = h[i][0];                                                                                  \
            for (int64_t q = p; q < kc; q++) sum += A[i * lda + q] * col[q];                                  \
            T *c = C + i * ldc;                                                                               \
            *c = beta == 0 ? alpha * sum : alpha * sum + beta * *c;                                           \
        }                                                                                                     \
    }
#else
#define DOT_COLUMN(NAME, T, VB, MR, ATTR)                                                                             \
    static void NAME(int64_t kc, const T *restrict A, int64_t lda, const T *restrict col, T *restrict C, int64_t ldc, \
                     T alpha, T beta) {                                                                               \
        for (int i = 0; i < MR; i++) {                                                                                \
            T sum = 0;                                                                                                \
            for (int64_t q = 0; q < kc; q++) sum += A[i * lda + q] * col[q];                                          \
            C[i * ldc] = beta == 0 ? alpha * sum : alpha * sum + beta * C[i * ldc];                                   \
        }                                                                                                             \
    }
#endif
typedef void dot_fn_float(int64_t, const float *restrict, int64_t, const float *restrict, float *restrict, int64_t,
                          float, float);
typedef void dot_fn_double(int64_t, const double *restrict, int64_t, const double *restrict, double *restrict, int64_t,
                           double, double);
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
    return opgen_parallel_parts_for(par, (double)m * (double)n * (double)k * (OPGEN_SPEED_PATHS && m == 1 ? 4 : 1),
                                    262144.0) > 1;
}

/* One part's packed panels, with room to align them to 64 bytes. */
static size_t gemm_slice(opgen_dtype dtype, int64_t m, int64_t n, int64_t k) {
    const gemm_shape *shapes = dtype == OPGEN_DTYPE_Double ? shapes_f64 : shapes_f32;
    size_t es = dtype == OPGEN_DTYPE_Double ? 8 : 4, most = 0;
    for (int v = 0; v < 3; v++) { /* whichever variant the CPU picks at run time fits */
        gemm_shape s = fit(shapes[v], m, n, k);
        size_t bytes = (size_t)(s.mc * s.kc + s.kc * s.nc + OPGEN_SPEED_PATHS * s.kc) * es +
                       128; /* A's panels, B's, a column of B */
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
    return gemm_slice(dtype, m, n, k) *
           (size_t)(worth_splitting(par, m, n, k) ? opgen_parallel_parts(par) : 1); /* a slice per part */
}

/* Parts splitting C by rows each need all of B's panels. Where a B function
 * packs them (a convolution's im2col, gathering each value), they are packed
 * once, by all the parts, into the scratch past their slices: a 7x7
 * convolution's 49 columns once, not once a thread. (Copied rows are cheaper to
 * pack again than to read from another core's cache.) */
static bool shares_b(int parts, int64_t m, int64_t n, bool b_function) {
    return OPGEN_SPEED_PATHS && parts > 1 && m > 1 && m >= n && b_function; /* -Os: no pool, no code */
}

size_t opgen_gemm_scratch_from(opgen_dtype dtype, const opgen_parallel *par, int64_t m, int64_t n, int64_t k) {
    size_t slices = opgen_gemm_scratch_b_rows(dtype, par, m, n, k), most = 0;
    if (!shares_b(worth_splitting(par, m, n, k) ? opgen_parallel_parts(par) : 1, m, n, true)) return slices;
    const gemm_shape *shapes = dtype == OPGEN_DTYPE_Double ? shapes_f64 : shapes_f32;
    for (int v = 0; v < 3; v++) { /* B's panels for whichever variant the CPU picks */
        size_t bytes = (size_t)(k * round_up(n, shapes[v].nr)) * (dtype == OPGEN_DTYPE_Double ? 8 : 4);
        if (bytes > most) most = bytes;
    }
    return slices + 64 + most;
}

/* C^T's bytes in the scratch, 64-aligned, before the swapped problem's slices. */
static size_t transposed_c(opgen_dtype dtype, int64_t m, int64_t n) {
    return ((size_t)(m * n) * (dtype == OPGEN_DTYPE_Double ? 8 : 4) + 63) & ~(size_t)63;
}

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
#define GEMV(NAME, T, ATTR)                                                                                          \
    ATTR static void NAME(int64_t n, int64_t k, T alpha, const T *restrict a, int64_t csa, const T *restrict b,      \
                          int64_t rsb, int64_t csb, T beta, T *restrict c) {                                         \
        if (csb == 1) {                                                                                              \
            for (int64_t j0 = 0; j0 < n; j0 += 256) {                                                                \
                int64_t nb = min64(256, n - j0);                                                                     \
                T acc[256] = {0};                                                                                    \
                for (int64_t p = 0; p < k; p++) {                                                                    \
                    T av = a[p * csa];                                                                               \
                    const T *restrict row = b + p * rsb + j0;                                                        \
                    for (int64_t j = 0; j < nb; j++) acc[j] += av * row[j];                                          \
                }                                                                                                    \
                for (int64_t j = 0; j < nb; j++) c[j0 + j] = alpha * acc[j] + (beta == 0 ? (T)0 : beta * c[j0 + j]); \
            }                                                                                                        \
            return;                                                                                                  \
        }                                                                                                            \
        for (int64_t j = 0; j < n; j++) {                                                                            \
            const T *restrict col = b + j * csb;                                                                     \
            T part[16] = {0}, sum = 0;                                                                               \
            int64_t p = 0;                                                                                           \
            if (rsb == 1 && csa == 1)                                                                                \
                for (; p + 16 <= k; p += 16)                                                                         \
                    for (int u = 0; u < 16; u++) part[u] += a[p + u] * col[p + u];                                   \
            for (int u = 0; u < 16; u++) sum += part[u];                                                             \
            for (; p < k; p++) sum += a[p * csa] * col[p * rsb];                                                     \
            c[j] = alpha * sum + (beta == 0 ? (T)0 : beta * c[j]);                                                   \
        }                                                                                                            \
    }
GEMV(gemv_f32_base, float, )
GEMV(gemv_f64_base, double, )
#if X86
GEMV(gemv_f32_avx2, float, TARGET_AVX2)
GEMV(gemv_f64_avx2, double, TARGET_AVX2)
#define GEMV_OF(T, v)                        \
    ((v) ? _Generic((T)0, float              \
                    : gemv_f32_avx2, default \
                    : gemv_f64_avx2)         \
         : _Generic((T)0, float              \
                    : gemv_f32_base, default \
                    : gemv_f64_base))
#else
#define GEMV_OF(T, v) _Generic((T)0, float : gemv_f32_base, default : gemv_f64_base)
#endif

/* A problem split into parts (rows or columns of C) for threads: each part packs
 * its own panels in its own slice of the scratch. */

/* Per variant: the micro-kernel NR wide, and NR/2 wide (NULL: none). */
#if X86
static micro_fn_float *const micros_f32[3][2] = {
    {micro_f32_base, NULL}, {micro_f32_avx2, micro_f32_avx2_h}, {micro_f32_avx512, micro_f32_avx512_h}};
static micro_fn_double *const micros_f64[3][2] = {
    {micro_f64_base, NULL}, {micro_f64_avx2, micro_f64_avx2_h}, {micro_f64_avx512, micro_f64_avx512_h}};
#else
static micro_fn_float *const micros_f32[3][2] = {
    {micro_f32_base, NULL}, {micro_f32_base, NULL}, {micro_f32_base, NULL}};
static micro_fn_double *const micros_f64[3][2] = {
    {micro_f64_base, NULL}, {micro_f64_base, NULL}, {micro_f64_base, NULL}};
#endif

#define NAME opgen_gemm_f32
#define T float
#define SHAPES shapes_f32
#define MICROS micros_f32
#define DOTS dots_f32
#include "gemm_driver.inc"
#define NAME opgen_gemm_f64
#define T double
#define SHAPES shapes_f64
#define MICROS micros_f64
#define DOTS dots_f64
#include "gemm_driver.inc"
