/* A few rows times a BFloat16 or Half matrix read in place (matvec_reduced.c). */
#ifndef OPGEN_MATVEC_REDUCED_H
#define OPGEN_MATVEC_REDUCED_H
#include "opgen/loops.h"

/* Up to this many rows (a decode step's one, a short prompt's few) the matrix is
 * streamed once per row; more take the float GEMM on widened copies. */
#define OPGEN_MATVEC_ROWS 4

/* Whether out[rows, N] = a[rows, K] @ m[K, N] (+ bias[N]), or a batch of them
 * (bmm: a[B, rows, K] @ m[B, K, N]), can run here: m's rows or columns
 * contiguous, one dtype. */
bool opgen_matvec_reduced_fits(const opgen_tensor *a, const opgen_tensor *m, int64_t rows);
opgen_status opgen_matvec_reduced(opgen_ctx *ctx, const opgen_tensor *a, const opgen_tensor *m,
                                  const opgen_tensor *bias, opgen_tensor *out);
#endif
