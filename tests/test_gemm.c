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
 * - the same bytes split across 2 threads (every product split) as on one, B
 *   transposed and B's rows contiguous;
 * - the scratch opgen_gemm_scratch (opgen_gemm_scratch_b_rows with B's rows
 *   contiguous) asks for is enough (ASan checks the bytes past it: each call
 *   gets exactly that much from malloc). */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "../runtime-stubs/kernels/gemm.h"
#include "opgen/pool.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const opgen_parallel *two; /* 2 threads splitting every product, or NULL */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static double uniform(void) { /* splitmix64 into [-1, 1) */
    uint64_t z = (rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u, z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0 * 2 - 1;
}

#define NAME case_f32
#define T float
#define T_NAME "float"
#define GEMM opgen_gemm_f32
#define EPS FLT_EPSILON
#include "gemm_case.inc"
#define NAME case_f64
#define T double
#define T_NAME "double"
#define GEMM opgen_gemm_f64
#define EPS DBL_EPSILON
#include "gemm_case.inc"

int main(void) {
    opgen_pool *pool = opgen_pool_create(2);
    static opgen_parallel split_all;
    if (pool) split_all = *opgen_pool_parallel(pool), split_all.min_work = 1, two = &split_all;
    /* m x n x k: one row short of a tile, ragged everywhere, k past one block of
     * k (384), m at the limit of the swap and past it, n just above m, wide n */
    static const int64_t shapes[][3] = {{2, 3, 5},      {3, 9, 17},    {5, 6, 4},       {9, 35, 700},   {16, 300, 288},
                                        {31, 200, 97},  {63, 64, 33},  {64, 130, 1000}, {65, 70, 40},   {7, 2048, 64},
                                        {20, 20, 20},   {3, 1, 50},    {100, 49, 300},  {64, 33, 500},  {200, 17, 400},
                                        {40, 49, 4608}, {32, 96, 100}, {70, 55, 700},   {300, 49, 1000}};
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
    printf("test_gemm: %zu shapes x %zu alpha/beta x 2 dtypes x 3 kernel variants, B transposed, %d failed\n",
           sizeof shapes / sizeof *shapes, sizeof ab / sizeof *ab, failures);
    return failures != 0;
}
