/* Matrix products on the GEMM (gemm.h): mm, bmm and addmm, Float and Double.
 * addmm is ATen's beta * self + alpha * (mat1 @ mat2), self broadcast; beta 0
 * ignores self (its NaN included). */
#include "gemm.h"
#include "opgen/loops.h"
#include "opgen_registry.h"

/* The shapes of a (batched) product and its checks: out[B, N, M] = a[B, N, K] @ m[B, K, M]. */
static int32_t product_shape(opgen_ctx *ctx, const opgen_tensor *a, const opgen_tensor *m, const opgen_tensor *bias, bool batched, int64_t *bnkm) {
    int32_t want = batched ? 3 : 2;
    if (a->dim != want || m->dim != want) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected %d-D tensors, got %d-D and %d-D", ctx->op, (int)want, (int)a->dim, (int)m->dim);
    if (a->dtype != m->dtype || (bias && bias->dtype != a->dtype))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: operands must have one dtype, got %s and %s", ctx->op, opgen_dtype_name(a->dtype), opgen_dtype_name(bias && bias->dtype != a->dtype ? bias->dtype : m->dtype));
    int64_t B = batched ? a->sizes[0] : 1, N = a->sizes[want - 2], K = a->sizes[want - 1], M = m->sizes[want - 1];
    if (m->sizes[want - 2] != K) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: cannot multiply %lldx%lld by %lldx%lld", ctx->op, (long long)N, (long long)K, (long long)m->sizes[want - 2], (long long)M);
    if (batched && m->sizes[0] != B) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: batch sizes differ: %lld and %lld", ctx->op, (long long)B, (long long)m->sizes[0]);
    if (bias) { /* addmm: self broadcasts to [N, M] */
        if (bias->dim > 2 || (bias->dim == 2 && (bias->sizes[0] != 1 && bias->sizes[0] != N)) || (bias->dim >= 1 && bias->sizes[bias->dim - 1] != 1 && bias->sizes[bias->dim - 1] != M))
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: self does not broadcast to %lldx%lld", ctx->op, (long long)N, (long long)M);
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
static size_t batch_slice(opgen_dtype dtype, int64_t N, int64_t M, int64_t K) { return (opgen_gemm_scratch(dtype, NULL, N, M, K) + 63) & ~(size_t)63; }
typedef struct batch_job {
    const opgen_tensor *a, *m;
    void *out;
    char *scratch;
    size_t slice;
    int64_t B, N, K, M;
    double alpha, beta;
    int parts;
    bool f64;
} batch_job;
static void batch_part(void *arg, int part) {
    const batch_job *j = arg;
    size_t es = j->f64 ? 8 : 4;
    void *scratch = j->scratch + (size_t)part * j->slice;
    for (int64_t b = j->B * part / j->parts; b < j->B * (part + 1) / j->parts; b++) {
        const char *pa = (const char *)j->a->data + (size_t)(b * j->a->strides[0]) * es, *pm = (const char *)j->m->data + (size_t)(b * j->m->strides[0]) * es;
        char *po = (char *)j->out + (size_t)(b * j->N * j->M) * es;
        if (j->f64)
            opgen_gemm_f64(NULL, j->N, j->M, j->K, j->alpha, (const double *)pa, j->a->strides[1], j->a->strides[2], (const double *)pm, j->m->strides[1], j->m->strides[2], j->beta, (double *)po, j->M, scratch, NULL);
        else
            opgen_gemm_f32(NULL, j->N, j->M, j->K, (float)j->alpha, (const float *)pa, j->a->strides[1], j->a->strides[2], (const float *)pm, j->m->strides[1], j->m->strides[2], (float)j->beta, (float *)po, j->M, scratch,
                           NULL);
    }
}

/* out[b] = beta * bias + alpha * a[b] @ m[b], for each of B matrices */
OPGEN_SPECIALIZED int32_t matmul(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *a, const opgen_tensor *m, const opgen_tensor *bias, const opgen_scalar *beta,
                                 const opgen_scalar *alpha, bool batched, opgen_tensor *out) {
    int64_t s[4] = {0};
    if (product_shape(ctx, a, m, bias, batched, s)) return ctx->err->code;
    int64_t B = s[0], N = s[1], K = s[2], M = s[3], sizes[3] = {B, N, M};
    OPGEN_CHECK_DTYPE(ctx, mask, a->dtype, "the input");
    int32_t st = opgen_out(ctx, out, a->dtype, batched ? 3 : 2, batched ? sizes : sizes + 1);
    if (st) return st;
    int bparts = OPGEN_SPEED_PATHS && batched ? batch_parts(ctx->par, B, N, M, K) : 1; /* a build for size keeps one way */
    size_t each = opgen_gemm_scratch(a->dtype, ctx->par, N, M, K), split = bparts > 1 ? 64 + (size_t)bparts * batch_slice(a->dtype, N, M, K) : 0;
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
            if (bparts > 1) {
                batch_job j = {a, m, out->data, (char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63), batch_slice(a->dtype, N, M, K), B, N, K, M, (double)al, (double)be, bparts, sizeof(T) == 8};
                opgen_parallel_for(ctx->par, bparts, batch_part, &j);
                return OPGEN_OK;
            }
            for (int64_t b = 0; b < B; b++) {
                const T *pa = (const T *)a->data + (batched ? b * a->strides[0] : 0), *pm = (const T *)m->data + (batched ? b * m->strides[0] : 0);
                T *po = (T *)out->data + b * N * M;
                _Generic((T)0, float: opgen_gemm_f32, default: opgen_gemm_f64)(ctx->par, N, M, K, al, (const void *)pa, a->strides[d], a->strides[d + 1], (const void *)pm, m->strides[d],
                                                                              m->strides[d + 1], be, (void *)po, M, scratch, NULL);
            }
        }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_mm_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *mat2, opgen_tensor *out) {
    return matmul(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_mm_out, self, mat2, NULL, NULL, NULL, false, out);
}
opgen_status opgen_portable_bmm_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *mat2, opgen_tensor *out) {
    return matmul(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_bmm_out, self, mat2, NULL, NULL, NULL, true, out);
}
opgen_status opgen_portable_addmm_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *mat1, const opgen_tensor *mat2, const opgen_scalar *beta, const opgen_scalar *alpha, opgen_tensor *out) {
    return matmul(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_addmm_out, mat1, mat2, self, beta, alpha, false, out);
}
