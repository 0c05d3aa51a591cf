/* p-norm distances: _cdist_forward between the rows of two (batched) matrices and
 * _pdist_forward between the rows of one (i < j, in order). As ATen's direct
 * kernel: p = 0 counts differing coordinates, 1 sums |d|, 2 takes the root of the
 * sum of squares, inf the largest |d|, any other p the p-th root of the sum of
 * |d|^p. (ATen's cdist switches to a matrix-product formula for p = 2 over 25
 * rows; opgen always computes the direct, more accurate one.) */
#include "opgen/loops.h"
#include "opgen_registry.h"

#define PNORM_DIST(T, a, b, m, as, bs, p, out)                                                                     \
    do {                                                                                                           \
        T acc_ = 0;                                                                                                \
        for (int64_t k_ = 0; k_ < (m); k_++) {                                                                     \
            T d_ = (a)[k_ * (as)] - (b)[k_ * (bs)];                                                                \
            d_ = d_ < 0 ? -d_ : d_;                                                                                \
            if ((p) == 0)                                                                                          \
                acc_ += d_ != 0;                                                                                   \
            else if ((p) == 1)                                                                                     \
                acc_ += d_;                                                                                        \
            else if ((p) == 2)                                                                                     \
                acc_ += d_ * d_;                                                                                   \
            else if (isinf(p))                                                                                     \
                acc_ = d_ > acc_ || d_ != d_ ? d_ : acc_;                                                          \
            else                                                                                                   \
                acc_ += (T)pow(d_, (T)(p));                                                                        \
        }                                                                                                          \
        (out) = (p) == 2 ? (T)sqrt(acc_) : (p) == 0 || (p) == 1 || isinf(p) ? acc_ : (T)pow(acc_, (T)(1.0 / (p))); \
    } while (0)

opgen_status opgen_portable__cdist_forward_out(opgen_ctx *ctx, const opgen_tensor *x1, const opgen_tensor *x2, double p,
                                               const int64_t *compute_mode, opgen_tensor *out) {
    (void)compute_mode;
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable__cdist_forward_out;
    if (x1->dim < 2 || x2->dim < 2)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: cdist only supports at least 2D tensors, X1 got: %dD", ctx->op,
                          (int)(x1->dim < 2 ? x1->dim : x2->dim));
    if (x1->dtype != x2->dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: X1 and X2 must have the same dtype", ctx->op);
    if (!(p >= 0)) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: cdist only supports non-negative p values", ctx->op);
    int64_t m = x1->sizes[x1->dim - 1];
    if (x2->sizes[x2->dim - 1] != m)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: X1 and X2 must have the same number of columns. X1: %lld X2: %lld",
                          ctx->op, (long long)m, (long long)x2->sizes[x2->dim - 1]);
    if (x1->dim != x2->dim)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: X1 and X2 must have the same number of dimensions", ctx->op);
    int64_t sizes[OPGEN_MAX_DIM], batch = 1, P = x1->sizes[x1->dim - 2], R = x2->sizes[x2->dim - 2];
    for (int32_t i = 0; i < x1->dim - 2; i++) {
        if (x1->sizes[i] != x2->sizes[i])
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the batch dimensions of X1 and X2 differ", ctx->op);
        sizes[i] = x1->sizes[i], batch *= x1->sizes[i];
    }
    sizes[x1->dim - 2] = P, sizes[x1->dim - 1] = R;
    OPGEN_CHECK_DTYPE(ctx, mask, x1->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, x1->dtype, x1->dim, sizes);
    opgen_tensor a, b;
    if (st || opgen_contiguous(ctx, x1, &a) || opgen_contiguous(ctx, x2, &b) || ctx->meta)
        return st ? st : ctx->err->code;
    OPGEN_FLOAT_SWITCH(mask, x1->dtype, ctx, T, {
        const T *xa = a.data, *xb = b.data;
        T *y = out->data;
        for (int64_t bi = 0; bi < batch; bi++, xa += P * m, xb += R * m)
            for (int64_t i = 0; i < P; i++)
                for (int64_t j = 0; j < R; j++) PNORM_DIST(T, xa + i * m, xb + j * m, m, 1, 1, p, *y++);
    })
    return OPGEN_OK;
}

opgen_status opgen_portable__pdist_forward_out(opgen_ctx *ctx, const opgen_tensor *self, double p, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable__pdist_forward_out;
    if (self->dim != 2)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: pdist only supports 2D tensors, got: %dD", ctx->op, (int)self->dim);
    if (!(p >= 0)) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: pdist only supports non-negative p values", ctx->op);
    int64_t n = self->sizes[0], m = self->sizes[1], len = n > 1 ? n * (n - 1) / 2 : 0;
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, 1, &len);
    if (st || ctx->meta) return st;
    OPGEN_FLOAT_SWITCH(mask, self->dtype, ctx, T, {
        const T *x = self->data;
        T *y = out->data;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = i + 1; j < n; j++)
                PNORM_DIST(T, x + i * self->strides[0], x + j * self->strides[0], m, self->strides[1], self->strides[1],
                           p, *y++);
    })
    return OPGEN_OK;
}
