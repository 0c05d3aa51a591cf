/* Matrix multiply for the kernels (mm, bmm, addmm, convolution): a packed,
 * cache-blocked GEMM in C11, its micro-kernel written with GCC/Clang vector types
 * and built for the baseline CPU and, on x86-64, for AVX2+FMA and AVX-512 (chosen
 * per call by what the CPU has). No library, no intrinsics.
 *
 *   C[m x n] = alpha * A[m x k] @ B[k x n] + beta * C
 *
 * A and B have any strides (in elements: row stride, column stride); C's rows are
 * ldc elements apart and its columns contiguous. beta 0 writes C without reading
 * it (NaN in C does not propagate, as in BLAS). A B used transposed (csb > 1,
 * rsb 1) against 2-64 rows of A is computed as C^T = B^T @ A^T, through C^T in the
 * scratch (the weight read in place). scratch holds the packed panels:
 * opgen_gemm_scratch() bytes from the call's arena (opgen_scratch), so a run can
 * be planned in advance. With par (opgen/parallel.h), C's rows or columns are
 * split across its threads (each element computed as on one thread), and the
 * scratch holds a slice per part. With epi, every block of C is handed to it once
 * finished (see opgen_gemm_epilogue). */
#ifndef OPGEN_GEMM_H
#define OPGEN_GEMM_H
#include "opgen/parallel.h"
#include "opgen/rt.h"

/* Work on finished blocks of C while they are in cache (a convolution's batch
 * norm and activation): fn(user, c, ldc, row, col, rows, cols) once for every
 * block of C, after its last product, c pointing at C[row][col].
 * When that work is per-row factors and an activation, saying so as well (scale
 * non-NULL) lets the vector micro-kernels apply it to whole tiles in registers as
 * they store them, not reading C back: C = act(C * scale[row] + shift[row]), the
 * product and the sum rounded apart (never one FMA), act 1 (relu: x < 0 to +0) or
 * 2 (clamp to [lo, hi], NaN kept) as opgen_post_act numbers them, in C's type. fn must compute
 * the same (it serves the other blocks), so the bytes do not depend on which
 * tiles took which way. */
typedef struct opgen_gemm_epilogue {
    void (*fn)(void *user, void *c, int64_t ldc, int64_t row, int64_t col, int64_t rows, int64_t cols);
    void *user;
    const void *scale, *shift; /* [m] each, or NULL: fn does it all */
    int act;                   /* 0 none */
    double lo, hi;
} opgen_gemm_epilogue;

/* B as a function rather than a matrix (a convolution's im2col): the GEMM asks
 * for it block by block as it packs, so it is never written whole. fn packs rows
 * p0 .. p0+kc of B's columns j0 .. j0+n into dst as panels `width` columns wide
 * (panel t at dst + t * width * kc, its row p width values at + p * width; the
 * last panel's columns past n zero); it may be called from several threads at
 * once. width divides 64. */
typedef struct opgen_gemm_bsource {
    void (*fn)(void *user, void *dst, int64_t p0, int64_t kc, int64_t j0, int64_t n, int64_t width);
    void *user;
} opgen_gemm_bsource;

size_t opgen_gemm_scratch(opgen_dtype dtype, const opgen_parallel *par, int64_t m, int64_t n, int64_t k);
/* Less, for a call whose B never needs the C^T room: its rows contiguous (csb 1)
 * or anywhere (_rows); for a B function (_from), _from's. */
size_t opgen_gemm_scratch_b_rows(opgen_dtype dtype, const opgen_parallel *par, int64_t m, int64_t n, int64_t k);
size_t opgen_gemm_scratch_from(opgen_dtype dtype, const opgen_parallel *par, int64_t m, int64_t n, int64_t k);
/* For tests: the micro-kernels used from now on are no better than v (0 the
 * baseline's, 1 AVX2's, 2 AVX-512's; -1, the default: the best the CPU has), so
 * a machine with AVX-512 checks the others too. Not for use while a GEMM runs. */
void opgen_gemm_use_variant(int v);
void opgen_gemm_f32(const opgen_parallel *par, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                    int64_t rsa, int64_t csa, const float *b, int64_t rsb, int64_t csb, float beta, float *c,
                    int64_t ldc, void *scratch, const opgen_gemm_epilogue *epi);
void opgen_gemm_f64(const opgen_parallel *par, int64_t m, int64_t n, int64_t k, double alpha, const double *a,
                    int64_t rsa, int64_t csa, const double *b, int64_t rsb, int64_t csb, double beta, double *c,
                    int64_t ldc, void *scratch, const opgen_gemm_epilogue *epi);
/* B's rows anywhere: row p is brow[p] elements past b, its columns contiguous (a
 * convolution's im2col read straight from its zero-padded input, the taps' rows
 * being shifted views of it). Read in place, never packed, a ragged last panel
 * too: every row must be readable for OPGEN_GEMM_SLACK elements past its n
 * (values there are read but never used). */
#define OPGEN_GEMM_SLACK 32
void opgen_gemm_f32_rows(const opgen_parallel *par, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                         int64_t rsa, int64_t csa, const float *b, const int64_t *brow, float beta, float *c,
                         int64_t ldc, void *scratch, const opgen_gemm_epilogue *epi);
void opgen_gemm_f64_rows(const opgen_parallel *par, int64_t m, int64_t n, int64_t k, double alpha, const double *a,
                         int64_t rsa, int64_t csa, const double *b, const int64_t *brow, double beta, double *c,
                         int64_t ldc, void *scratch, const opgen_gemm_epilogue *epi);
void opgen_gemm_f32_from(const opgen_parallel *par, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                         int64_t rsa, int64_t csa, const opgen_gemm_bsource *b, float beta, float *c, int64_t ldc,
                         void *scratch, const opgen_gemm_epilogue *epi);
void opgen_gemm_f64_from(const opgen_parallel *par, int64_t m, int64_t n, int64_t k, double alpha, const double *a,
                         int64_t rsa, int64_t csa, const opgen_gemm_bsource *b, double beta, double *c, int64_t ldc,
                         void *scratch, const opgen_gemm_epilogue *epi);
#endif
