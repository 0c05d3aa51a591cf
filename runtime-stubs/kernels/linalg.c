/* Matrix products (mm, bmm, addmm) and softmax / log_softmax. */
#include "opgen/kernel.h"
#include "opgen_registry.h"

#define IS_FLOATING(T) _Generic((T)0, float: 1, double: 1, default: 0)

/* out[b] = beta * bias + alpha * a[b] @ m[b], for `batch` matrices */
OPGEN_SPECIALIZED int32_t matmul(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *a, const opgen_tensor *m, const opgen_tensor *bias, double beta, double alpha, bool batched, opgen_tensor *out) {
    int32_t want = batched ? 3 : 2;
    if (a->dim != want || m->dim != want) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected %d-D tensors, got %d-D and %d-D", ctx->op, want, a->dim, m->dim);
    if (a->dtype != m->dtype || (bias && bias->dtype != a->dtype))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: operands must have one dtype, got %s and %s", ctx->op, opgen_dtype_name(a->dtype), opgen_dtype_name(bias && bias->dtype != a->dtype ? bias->dtype : m->dtype));
    int64_t B = batched ? a->sizes[0] : 1, N = a->sizes[want - 2], K = a->sizes[want - 1], M = m->sizes[want - 1];
    if (m->sizes[want - 2] != K) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: cannot multiply %lldx%lld by %lldx%lld", ctx->op, (long long)N, (long long)K, (long long)m->sizes[want - 2], (long long)M);
    if (batched && m->sizes[0] != B) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: batch sizes differ: %lld and %lld", ctx->op, (long long)B, (long long)m->sizes[0]);
    int64_t sizes[3] = {B, N, M};
    const int64_t *osz = batched ? sizes : sizes + 1;
    if (bias) { /* addmm: bias broadcasts to [N, M] */
        opgen_tensor shape;
        memset(&shape, 0, sizeof shape);
        shape.dim = 2;
        shape.sizes[0] = N;
        shape.sizes[1] = M;
        int32_t d;
        int64_t bs[OPGEN_MAX_DIM];
        if (opgen_broadcast(ctx, bias, &shape, &d, bs)) return ctx->err->code;
        if (d != 2 || bs[0] != N || bs[1] != M) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: self does not broadcast to %lldx%lld", ctx->op, (long long)N, (long long)M);
    }
    OPGEN_CHECK_DTYPE(ctx, mask, a->dtype, "the input");
    int32_t st = opgen_out(ctx, out, a->dtype, want, osz);
    if (st || ctx->meta) return st;
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        T *o = (T *)out->data;
        for (int64_t b = 0; b < B; b++)
            for (int64_t i = 0; i < N; i++)
                for (int64_t j = 0; j < M; j++) {
                    double acc = 0;
                    for (int64_t k = 0; k < K; k++) {
                        int64_t ia = (batched ? b * a->strides[0] : 0) + i * a->strides[want - 2] + k * a->strides[want - 1];
                        int64_t im = (batched ? b * m->strides[0] : 0) + k * m->strides[want - 2] + j * m->strides[want - 1];
                        acc += opgen_load_f64(a, ia) * opgen_load_f64(m, im);
                    }
                    double v = alpha * acc;
                    if (bias) {
                        int64_t idx[2] = {i, j};
                        v += beta * opgen_load_f64(bias, opgen_bcast_offset(bias, 2, idx));
                    }
                    o[(b * N + i) * M + j] = (T)v;
                }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_mm_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *mat2, opgen_tensor *out) {
    return matmul(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_mm_out, self, mat2, NULL, 0, 1, false, out);
}
opgen_status opgen_portable_bmm_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *mat2, opgen_tensor *out) {
    return matmul(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_bmm_out, self, mat2, NULL, 0, 1, true, out);
}
opgen_status opgen_portable_addmm_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *mat1, const opgen_tensor *mat2, const opgen_scalar *beta, const opgen_scalar *alpha, opgen_tensor *out) {
    return matmul(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_addmm_out, mat1, mat2, self, opgen_scalar_f64(beta), opgen_scalar_f64(alpha), false, out);
}

/* softmax over one dimension, max-subtracted for stability */
OPGEN_SPECIALIZED int32_t softmax(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self, int64_t dim, bool half_to_float, bool take_log, opgen_tensor *out) {
    int32_t d;
    if (opgen_wrap_dim(ctx, dim, self->dim, &d)) return ctx->err->code;
    if (half_to_float) return OPGEN_FAIL(ctx, OPGEN_E_NOT_IMPLEMENTED, "%s: half_to_float applies to Half inputs, which this kernel does not take", ctx->op);
    if (!opgen_is_float(self->dtype)) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: softmax needs a floating point tensor, not %s", ctx->op, opgen_dtype_name(self->dtype));
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    int32_t st = opgen_out(ctx, out, self->dtype, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    int64_t n = opgen_numel(out);
    if (!n) return OPGEN_OK;
    int64_t len = self->dim ? self->sizes[d] : 1, outer = n / len;
    int64_t idx[OPGEN_MAX_DIM] = {0};
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        T *o = (T *)out->data;
        int64_t ostride = self->dim ? out->strides[d] : 1, sstride = self->dim ? self->strides[d] : 1;
        for (int64_t r = 0; r < outer; r++) {
            /* idx walks every position except along d; base offsets of the row */
            int64_t sbase = opgen_bcast_offset(self, self->dim, idx), obase = opgen_bcast_offset(out, out->dim, idx);
            double mx = -INFINITY, sum = 0, logsum;
            for (int64_t k = 0; k < len; k++) {
                double v = opgen_load_f64(self, sbase + k * sstride);
                if (v > mx) mx = v;
            }
            for (int64_t k = 0; k < len; k++) sum += exp(opgen_load_f64(self, sbase + k * sstride) - mx);
            logsum = log(sum);
            for (int64_t k = 0; k < len; k++) {
                double v = opgen_load_f64(self, sbase + k * sstride) - mx;
                o[obase + k * ostride] = (T)(take_log ? v - logsum : exp(v) / sum);
            }
            /* next row: advance every dimension but d */
            for (int32_t i = self->dim - 1; i >= 0; i--) {
                if (i == d) continue;
                if (++idx[i] < self->sizes[i]) break;
                idx[i] = 0;
            }
        }
        (void)IS_FLOATING(T);
    })
    return OPGEN_OK;
}

opgen_status opgen_portable__softmax_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, bool half_to_float, opgen_tensor *out) {
    return softmax(ctx, OPGEN_KERNEL_DTYPES_opgen_portable__softmax_out, self, dim, half_to_float, false, out);
}
opgen_status opgen_portable__log_softmax_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, bool half_to_float, opgen_tensor *out) {
    return softmax(ctx, OPGEN_KERNEL_DTYPES_opgen_portable__log_softmax_out, self, dim, half_to_float, true, out);
}
