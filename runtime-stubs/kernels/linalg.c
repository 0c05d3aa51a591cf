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

/* out[b] = beta * bias + alpha * a[b] @ m[b], for each of B matrices */
OPGEN_SPECIALIZED int32_t matmul(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *a, const opgen_tensor *m, const opgen_tensor *bias, const opgen_scalar *beta,
                                 const opgen_scalar *alpha, bool batched, opgen_tensor *out) {
    int64_t s[4] = {0};
    if (product_shape(ctx, a, m, bias, batched, s)) return ctx->err->code;
    int64_t B = s[0], N = s[1], K = s[2], M = s[3], sizes[3] = {B, N, M};
    OPGEN_CHECK_DTYPE(ctx, mask, a->dtype, "the input");
    int32_t st = opgen_out(ctx, out, a->dtype, batched ? 3 : 2, batched ? sizes : sizes + 1);
    if (st) return st;
    void *scratch = opgen_scratch(ctx, opgen_gemm_scratch(a->dtype, ctx->par, N, M, K));
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
