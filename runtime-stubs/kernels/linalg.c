/* Matrix products on the GEMM (gemm.h): mm, bmm, addmm and linear, Float and
 * Double; Half and BFloat16 by matmul_any.
 * addmm is ATen's beta * self + alpha * (mat1 @ mat2), self broadcast; beta 0
 * ignores self (its NaN included). */
#include "gemm.h"
#include "matvec_reduced.h"
#include "opgen/loops.h"
#include "opgen_registry.h"
#include <string.h>

/* The shapes of a (batched) product and its checks: out[B, N, M] = a[B, N, K] @ m[B, K, M]. */
static opgen_status product_shape(opgen_ctx *ctx, const opgen_tensor *a, const opgen_tensor *m,
                                  const opgen_tensor *bias, bool batched, int64_t *bnkm) {
    int32_t want = batched ? 3 : 2;
    if (a->dim != want || m->dim != want)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected %d-D tensors, got %d-D and %d-D", ctx->op, (int)want,
                          (int)a->dim, (int)m->dim);
    if (a->dtype != m->dtype || (bias && bias->dtype != a->dtype))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: operands must have one dtype, got %s and %s", ctx->op,
                          opgen_dtype_name(a->dtype),
                          opgen_dtype_name(bias && bias->dtype != a->dtype ? bias->dtype : m->dtype));
    int64_t B = batched ? a->sizes[0] : 1, N = a->sizes[want - 2], K = a->sizes[want - 1], M = m->sizes[want - 1];
    if (m->sizes[want - 2] != K)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: cannot multiply %lldx%lld by %lldx%lld", ctx->op, (long long)N,
                          (long long)K, (long long)m->sizes[want - 2], (long long)M);
    if (batched && m->sizes[0] != B)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: batch sizes differ: %lld and %lld", ctx->op, (long long)B,
                          (long long)m->sizes[0]);
    if (bias) { /* addmm: self broadcasts to [N, M] */
        if (bias->dim > 2 || (bias->dim == 2 && (bias->sizes[0] != 1 && bias->sizes[0] != N)) ||
            (bias->dim >= 1 && bias->sizes[bias->dim - 1] != 1 && bias->sizes[bias->dim - 1] != M))
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: self does not broadcast to %lldx%lld", ctx->op, (long long)N,
                              (long long)M);
    }
    bnkm[0] = B, bnkm[1] = N, bnkm[2] = K, bnkm[3] = M;
    return OPGEN_OK;
}

/* A batch split across threads by whole products: part p takes a range of the
 * batch, each product on its own thread and its own slice of the scratch (the
 * GEMM computes an element the same way on any number of threads, so the bytes
 * are one thread's). Where the batch divides evenly among the threads, or is
 * large against them, and its work pays for threads: a decode step's attention
 * (heads x [1, hd] @ [hd, S]) would otherwise split each small product in two,
 * a job per head. Else (batch_parts 1) each product splits itself. */
static int batch_parts(const opgen_parallel *par, int64_t B, int64_t N, int64_t M, int64_t K) {
    int parts = opgen_parallel_parts(par);
    if (B < 2 || parts < 2 || (B % parts && B < 4 * (int64_t)parts)) return 1;
    double work = (double)B * (double)N * (double)M * (double)K * (N == 1 ? 4 : 1); /* as the GEMM weighs one row */
    return opgen_parallel_parts_for(par, work, 262144.0) > 1 ? (parts < B ? parts : (int)B) : 1;
}
static size_t batch_slice(opgen_dtype dtype, int64_t N, int64_t M, int64_t K) {
    return (opgen_gemm_scratch(dtype, NULL, N, M, K) + 63) & ~(size_t)63;
}

/* A (batched) product's operands: the first matrices, their element strides
 * (batch, 0 when there is one matrix; rows; columns), and, for a batch split,
 * each part's scratch slice. */
typedef struct products {
    const char *a, *m;
    char *out;
    int64_t bsa, rsa, csa, bsm, rsm, csm, N, K, M, B;
    double alpha, beta;
    char *scratch;
    size_t slice;
    int parts;
} products;
/* Per element type: products lo .. hi, each split over par's threads (NULL: on
 * this one), and a batch split's part. */
#define PRODUCTS(NAME, T, GEMM)                                                                                   \
    static void NAME##_run(const products *j, int64_t lo, int64_t hi, const opgen_parallel *par, void *scratch) { \
        for (int64_t b = lo; b < hi; b++)                                                                         \
            GEMM(par, j->N, j->M, j->K, (T)j->alpha, (const T *)j->a + b * j->bsa, j->rsa, j->csa,                \
                 (const T *)j->m + b * j->bsm, j->rsm, j->csm, (T)j->beta, (T *)j->out + b * j->N * j->M, j->M,   \
                 scratch, NULL);                                                                                  \
    }                                                                                                             \
    static void NAME##_part(void *arg, int part) {                                                                \
        const products *j = arg;                                                                                  \
        NAME##_run(j, j->B *part / j->parts, j->B * (part + 1) / j->parts, NULL,                                  \
                   j->scratch + (size_t)part * j->slice);                                                         \
    }
PRODUCTS(products_f32, float, opgen_gemm_f32)
PRODUCTS(products_f64, double, opgen_gemm_f64)

/* out[b] = beta * bias + alpha * a[b] @ m[b], for each of B matrices */
OPGEN_SPECIALIZED opgen_status matmul(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *a, const opgen_tensor *m,
                                      const opgen_tensor *bias, const opgen_scalar *beta, const opgen_scalar *alpha,
                                      bool batched, opgen_tensor *out) {
    int64_t s[4] = {0};
    if (product_shape(ctx, a, m, bias, batched, s)) return ctx->err->code;
    int64_t B = s[0], N = s[1], K = s[2], M = s[3], sizes[3] = {B, N, M};
    OPGEN_CHECK_DTYPE(ctx, mask, a->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, a->dtype, batched ? 3 : 2, batched ? sizes : sizes + 1);
    if (st) return st;
    int bparts =
        OPGEN_SPEED_PATHS && batched ? batch_parts(ctx->par, B, N, M, K) : 1; /* a build for size keeps one way */
    size_t each = opgen_gemm_scratch(a->dtype, ctx->par, N, M, K),
           split = bparts > 1 ? 64 + (size_t)bparts * batch_slice(a->dtype, N, M, K) : 0;
    void *scratch = opgen_scratch(ctx, split > each ? split : each);
    if (ctx->meta) return OPGEN_OK;
    if (!scratch) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    int32_t d = batched ? 1 : 0; /* the row dimension */
    OPGEN_FLOAT_SWITCH(mask, a->dtype, ctx, T, {
        {
            T al = alpha ? OPGEN_SCALAR_AS(T, alpha) : (T)1, be = 0;
            if (bias && (be = OPGEN_SCALAR_AS(T, beta)) != 0) { /* out = self, broadcast: then out = be * out + al * a @ m */
        opgen_iter it;
        const opgen_tensor *in[1] = {bias};
        if (opgen_iter_init(ctx, &it, out, in, 1)) return ctx->err->code;
        OPGEN_MAP1(&it, mask, T, T, x);
            }
            if (al == 0) { /* BLAS's and ATen's alpha 0: the product is not computed (its inf or NaN never show) */
        T *o = out->data;
        if (!be) memset(o, 0, opgen_nbytes(out));
        for (int64_t i = 0; be && i < opgen_numel(out); i++) o[i] = be * o[i];
        return OPGEN_OK;
            }
            products j = {a->data, m->data, out->data, batched ? a->strides[0] : 0, a->strides[d], a->strides[d + 1], batched ? m->strides[0] : 0, m->strides[d], m->strides[d + 1],
                          N, K, M, B, (double)al, (double)be, (char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63), bparts > 1 ? batch_slice(a->dtype, N, M, K) : 0, bparts};
            if (bparts > 1)
                opgen_parallel_for(ctx->par, bparts, _Generic((T)0, float: products_f32_part, default: products_f64_part), &j);
            else
                _Generic((T)0, float: products_f32_run, default: products_f64_run)(&j, 0, B, ctx->par, scratch);
}
})
    return OPGEN_OK;
}

static bool is_one(const opgen_scalar *s) { return !s || opgen_scalar_f64(s) == 1.0; }

/* Half and BFloat16: a few rows against a matrix read in place (a decode step),
 * else the float GEMM on widened copies; in float, rounded once (ATen's CPU). */
OPGEN_SPECIALIZED opgen_status matmul_any(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *a, const opgen_tensor *m,
                                          const opgen_tensor *bias, const opgen_scalar *beta, const opgen_scalar *alpha,
                                          bool batched, opgen_tensor *out) {
    if (!OPGEN_REDUCED(mask, a->dtype)) return matmul(ctx, mask, a, m, bias, beta, alpha, batched, out);
    int64_t s[4] = {0};
    if (product_shape(ctx, a, m, bias, batched, s)) return ctx->err->code;
    if (OPGEN_SPEED_PATHS && is_one(alpha) && (!bias || (is_one(beta) && bias->dim == 1 && bias->sizes[0] == s[3])) &&
        opgen_matvec_reduced_fits(a, m, s[1]))
        return opgen_matvec_reduced(ctx, a, m, bias, out);
    opgen_tensor x, w, b, y;
    opgen_standin(&y);
    opgen_status st = opgen_widen(ctx, a, &x);
    if (!st) st = opgen_widen(ctx, m, &w);
    if (!st) st = opgen_widen(ctx, bias, &b);
    if (!st) st = matmul(ctx, OPGEN_AS_FLOAT(mask), &x, &w, bias ? &b : NULL, beta, alpha, batched, &y);
    return st ? st : opgen_narrow(ctx, out, a->dtype, &y);
}

opgen_status opgen_portable_mm_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *mat2,
                                   opgen_tensor *out) {
    return matmul_any(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_mm_out, self, mat2, NULL, NULL, NULL, false, out);
}
opgen_status opgen_portable_bmm_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *mat2,
                                    opgen_tensor *out) {
    return matmul_any(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_bmm_out, self, mat2, NULL, NULL, NULL, true, out);
}
opgen_status opgen_portable_addmm_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *mat1,
                                      const opgen_tensor *mat2, const opgen_scalar *beta, const opgen_scalar *alpha,
                                      opgen_tensor *out) {
    return matmul_any(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_addmm_out, mat1, mat2, self, beta, alpha, false, out);
}

/* Whether x's leading dimensions (all but the last) are one run of rows: then
 * the rows are [numel / K, K] at strides (its second-to-last stride, its last). */
static bool rows_of(const opgen_tensor *x, int64_t *rs, int64_t *cs) {
    *cs = x->strides[x->dim - 1];
    *rs = x->dim >= 2 ? x->strides[x->dim - 2] : 0;
    for (int32_t i = 0; i + 2 < x->dim; i++)
        if (x->sizes[i] > 1 && x->strides[i] != x->strides[i + 1] * x->sizes[i + 1]) return false;
    return true;
}

static void as_matrix(opgen_tensor *t, int64_t r, int64_t c, int64_t rs, int64_t cs) {
    t->dim = 2, t->sizes[0] = r, t->sizes[1] = c, t->strides[0] = rs, t->strides[1] = cs;
    t->dim_order[0] = 0, t->dim_order[1] = 1;
}

/* linear: input[..., K] @ weight[N, K]^T (+ bias[N]), as ATen's addmm of the
 * rows: the input's leading dimensions flattened (copied contiguous where they
 * are not one run), the weight read transposed in place (its strides swapped). */
opgen_status opgen_portable_linear_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight,
                                       const opgen_tensor *bias, opgen_tensor *out) {
    if (input->dim < 1 || weight->dim != 2)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE,
                          "%s: expected an input of 1 or more dimensions and a 2-D weight, got %d-D and %d-D", ctx->op,
                          (int)input->dim, (int)weight->dim);
    int64_t K = input->sizes[input->dim - 1], N = weight->sizes[0], sizes[OPGEN_MAX_DIM], rs, cs;
    if (weight->sizes[1] != K)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the input's last dimension is %lld, the weight's %lld", ctx->op,
                          (long long)K, (long long)weight->sizes[1]);
    if (bias && (bias->dim != 1 || bias->sizes[0] != N))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: bias must have shape [%lld]", ctx->op, (long long)N);
    memcpy(sizes, input->sizes, sizeof(int64_t) * (size_t)input->dim);
    sizes[input->dim - 1] = N;
    opgen_status st = opgen_out(ctx, out, input->dtype, input->dim, sizes);
    if (st) return st;
    int64_t rows = 1;
    for (int32_t i = 0; i + 1 < input->dim; i++) rows *= input->sizes[i];
    opgen_tensor a = *input, w = *weight, o = *out; /* [rows, K] @ [K, N] -> [rows, N] */
    if (!rows_of(input, &rs, &cs)) {                /* a contiguous copy */
        size_t bytes = (size_t)opgen_numel(input) * (size_t)opgen_dtype_size(input->dtype);
        a.data = opgen_scratch(ctx, bytes), a.capacity = bytes;
        for (int32_t i = input->dim - 1, s = 1; i >= 0; s *= (int32_t)input->sizes[i], i--) a.strides[i] = s;
        for (int32_t i = 0; i < input->dim; i++) a.dim_order[i] = (uint8_t)i;
        if (!ctx->meta && (!a.data || opgen_copy(ctx, &a, input)))
            return ctx->err->code ? ctx->err->code : OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
        rs = K, cs = 1;
    }
    as_matrix(&a, rows, K, rs, cs);
    as_matrix(&w, K, N, weight->strides[1], weight->strides[0]);
    as_matrix(&o, rows, N, N, 1);
    opgen_scalar one = {OPGEN_DTYPE_Long, {.i = 1}};
    return matmul_any(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_linear_out, &a, &w, bias, &one, &one, false, &o);
}
