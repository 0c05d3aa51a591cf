/* The GEMM's own cases (kernels/gemm.h), beside the mm/bmm/addmm conformance
 * cases that reach it through the kernels: a B used transposed (its columns
 * contiguous, as an nn.Linear weight) against few rows of A, which the GEMM
 * computes as C^T = B^T @ A^T. For each shape, dtype, alpha/beta and micro-kernel
 * variant the CPU has:
 * - alpha 1, beta 0 or 1, m and n whole tiles: the same bytes as the same
 *   product with B's rows contiguous (computed the other way round: the same
 *   products summed in the same order; with a ragged side, a last column alone
 *   in one orientation is a dot product, DOT_COLUMN, summed in another order);
 * - C's last column alone as dot products (n of 1, 17, 33 and 49), within the
 *   bound below;
 * - every alpha/beta: within a float64 reference's rounding bound, C's rows ldc
 *   apart (ldc > n) left alone past n, beta 0 ignoring a NaN already in C;
 * - the same bytes split across 2 threads (every product split) as on one;
 * - the scratch opgen_gemm_scratch (opgen_gemm_scratch_b_rows with B's rows
 *   contiguous) asks for is enough (ASan checks the bytes past it: each call
 *   gets exactly that much from malloc). */
#define _POSIX_C_SOURCE 200809L
#include "../runtime-stubs/kernels/gemm.h"
#include "opgen/pool.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static const opgen_parallel *two; /* 2 threads splitting every product, or NULL */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static double uniform(void) { /* splitmix64 into [-1, 1) */
    uint64_t z = (rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u, z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0 * 2 - 1;
}

#define CHECK(cond, ...) ((cond) ? (void)0 : (void)(failures++, fprintf(stderr, "test_gemm: " __VA_ARGS__), fputc('\n', stderr)))

/* One case in type T: C[m x n] (rows ldc apart) = alpha * A[m x k] @ W^T + beta * C, W [n x k]. */
#define GEMM_CASE(NAME, T, GEMM, EPS)                                                                                 \
    static void NAME(int64_t m, int64_t n, int64_t k, T alpha, T beta, const char *variant) {                        \
        int64_t ldc = n + 3;                                                                                          \
        T *a = malloc(sizeof(T) * (size_t)(m * k)), *w = malloc(sizeof(T) * (size_t)(n * k)), *bt = malloc(sizeof(T) * (size_t)(k * n)); \
        T *c0 = malloc(sizeof(T) * (size_t)(m * ldc)), *c[3];                                                         \
        for (int64_t i = 0; i < m * k; i++) a[i] = (T)uniform();                                                     \
        for (int64_t i = 0; i < n * k; i++) w[i] = (T)uniform();                                                     \
        for (int64_t p = 0; p < k; p++)                                                                               \
            for (int64_t j = 0; j < n; j++) bt[p * n + j] = w[j * k + p];                                            \
        for (int64_t i = 0; i < m * ldc; i++) c0[i] = beta == 0 && i % 7 == 0 ? (T)NAN : (T)uniform();               \
        for (int v = 0; v < 3; v++) { /* 0: B transposed; 1: B's rows contiguous; 2: B transposed on 2 threads */    \
            const opgen_parallel *par = v == 2 ? two : NULL;                                                         \
            opgen_dtype dt = sizeof(T) == 8 ? OPGEN_DTYPE_Double : OPGEN_DTYPE_Float; /* B's rows: the smaller scratch */ \
            size_t bytes = v == 1 ? opgen_gemm_scratch_b_rows(dt, par, m, n, k) : opgen_gemm_scratch(dt, par, m, n, k); \
            void *scratch = malloc(bytes ? bytes : 1);                                                                \
            c[v] = malloc(sizeof(T) * (size_t)(m * ldc));                                                             \
            memcpy(c[v], c0, sizeof(T) * (size_t)(m * ldc));                                                          \
            if (v == 1)                                                                                               \
                GEMM(NULL, m, n, k, alpha, a, k, 1, bt, n, 1, beta, c[v], ldc, scratch, NULL);                        \
            else                                                                                                      \
                GEMM(par, m, n, k, alpha, a, k, 1, w, 1, k, beta, c[v], ldc, scratch, NULL);                          \
            free(scratch);                                                                                            \
        }                                                                                                             \
        int bad = 0;                                                                                                  \
        for (int64_t i = 0; i < m && bad < 3; i++)                                                                    \
            for (int64_t j = 0; j < ldc && bad < 3; j++) {                                                            \
                T got = c[0][i * ldc + j], old = c0[i * ldc + j];                                                     \
                if (j >= n) { /* past the row: untouched */                                                          \
                    if (memcmp(&got, &old, sizeof got)) bad++, CHECK(0, "%s %s: C[%lld][%lld] past n was written", #T, variant, (long long)i, (long long)j); \
                    continue;                                                                                         \
                }                                                                                                     \
                double ref = 0, mag = 0;                                                                              \
                for (int64_t p = 0; p < k; p++) ref += (double)a[i * k + p] * (double)w[j * k + p], mag += fabs((double)a[i * k + p] * (double)w[j * k + p]); \
                ref = (double)alpha * ref + (beta == 0 ? 0 : (double)beta * (double)old);                            \
                mag = fabs((double)alpha) * mag + (beta == 0 ? 0 : fabs((double)beta * (double)old));                \
                if (!(fabs((double)got - ref) <= (double)(k + 4) * EPS * mag))                                        \
                    bad++, CHECK(0, "%s %lldx%lldx%lld alpha %g beta %g %s: C[%lld][%lld] = %.9g, want %.9g", #T, (long long)m, (long long)n, (long long)k, (double)alpha, (double)beta, variant, (long long)i, (long long)j, (double)got, ref); \
            }                                                                                                         \
        size_t row = sizeof(T) * (size_t)n;                                                                           \
        for (int64_t i = 0; i < m; i++) {                                                                             \
            if (alpha == 1 && (beta == 0 || beta == 1) && m % 32 == 0 && n % 32 == 0 && memcmp(c[0] + i * ldc, c[1] + i * ldc, row)) \
                CHECK(0, "%s %lldx%lldx%lld beta %g %s: row %lld differs from B's rows contiguous", #T, (long long)m, (long long)n, (long long)k, (double)beta, variant, (long long)i); \
            if (memcmp(c[0] + i * ldc, c[2] + i * ldc, row))                                                         \
                CHECK(0, "%s %lldx%lldx%lld alpha %g beta %g %s: row %lld differs on 2 threads", #T, (long long)m, (long long)n, (long long)k, (double)alpha, (double)beta, variant, (long long)i); \
        }                                                                                                             \
        for (int v = 0; v < 3; v++) free(c[v]);                                                                       \
        free(a), free(w), free(bt), free(c0);                                                                         \
    }
GEMM_CASE(case_f32, float, opgen_gemm_f32, FLT_EPSILON)
GEMM_CASE(case_f64, double, opgen_gemm_f64, DBL_EPSILON)

int main(void) {
    opgen_pool *pool = opgen_pool_create(2);
    static opgen_parallel split_all;
    if (pool) split_all = *opgen_pool_parallel(pool), split_all.min_work = 1, two = &split_all;
    /* m x n x k: one row short of a tile, ragged everywhere, k past one block of
     * k (384), m at the limit of the swap and past it, n just above m, wide n */
    static const int64_t shapes[][3] = {{2, 3, 5}, {3, 9, 17}, {5, 6, 4}, {9, 35, 700}, {16, 300, 288}, {31, 200, 97}, {63, 64, 33}, {64, 130, 1000}, {65, 70, 40}, {7, 2048, 64}, {20, 20, 20},
                                           {3, 1, 50}, {100, 49, 300}, {64, 33, 500}, {200, 17, 400}, {40, 49, 4608}, {32, 96, 100}, {70, 55, 700}};
    static const double ab[][2] = {{1, 0}, {1, 1}, {2, 0.5}, {-0.75, 0}};
    static const char *const names[3] = {"baseline kernels", "AVX2 kernels", "AVX-512 kernels"};
    for (int variant = 2; variant >= 0; variant--) {
        opgen_gemm_use_variant(variant); /* a CPU without it runs its best: the case repeats */
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
            for (size_t x = 0; x < sizeof ab / sizeof *ab; x++) {
                case_f32(shapes[s][0], shapes[s][1], shapes[s][2], (float)ab[x][0], (float)ab[x][1], names[variant]);
                case_f64(shapes[s][0], shapes[s][1], shapes[s][2], ab[x][0], ab[x][1], names[variant]);
            }
    }
    opgen_gemm_use_variant(-1);
    opgen_pool_destroy(pool);
    printf("test_gemm: %zu shapes x %zu alpha/beta x 2 dtypes x 3 kernel variants, B transposed, %d failed\n", sizeof shapes / sizeof *shapes, sizeof ab / sizeof *ab, failures);
    return failures != 0;
}
