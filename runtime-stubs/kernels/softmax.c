/* softmax and log_softmax over one dimension, as ATen's CPU kernels compute them
 * in the input's type: m = max(x); softmax = exp(x - m) * (1 / sum exp(x - m));
 * log_softmax = x - (m + log(sum exp(x - m))). */
#include "opgen/loops.h"
#include "opgen_registry.h"

/* One row of len elements, `is` / `os` elements apart in input and output. */
#define SOFTMAX_ROW(T, NAME)                                                                      \
    static void NAME(const void *xv, int64_t is, void *yv, int64_t os, int64_t len, bool take_log) { \
        const T *x = xv;                                                                         \
        T *y = yv;                                                                               \
        T mx = -(T)INFINITY;                                                                     \
        for (int64_t k = 0; k < len; k++) {                                                      \
            T v = x[k * is];                                                                     \
            if (v > mx || v != v) mx = v;                                                        \
        }                                                                                        \
        T sum = 0;                                                                               \
        if (is == 1 && os == 1) {                                                                \
            for (int64_t k = 0; k < len; k++) {                                                  \
                T e = OPGEN_MATH(T, exp)(x[k] - mx);                                             \
                if (!take_log) y[k] = e;                                                         \
                sum += e;                                                                        \
            }                                                                                    \
        } else {                                                                                 \
            for (int64_t k = 0; k < len; k++) {                                                  \
                T e = OPGEN_MATH(T, exp)(x[k * is] - mx);                                        \
                if (!take_log) y[k * os] = e;                                                    \
                sum += e;                                                                        \
            }                                                                                    \
        }                                                                                        \
        if (take_log) {                                                                          \
            T shift = mx + OPGEN_MATH(T, log)(sum);                                              \
            for (int64_t k = 0; k < len; k++) y[k * os] = x[k * is] - shift;                     \
        } else {                                                                                 \
            T inv = (T)1 / sum;                                                                  \
            for (int64_t k = 0; k < len; k++) y[k * os] *= inv;                                  \
        }                                                                                        \
    }
SOFTMAX_ROW(float, softmax_row_f32)
SOFTMAX_ROW(double, softmax_row_f64)
#define SOFTMAX_ROW_OF(T) _Generic((T)0, float: softmax_row_f32, default: softmax_row_f64)

OPGEN_SPECIALIZED int32_t softmax(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self, int64_t dim, bool half_to_float, bool take_log, opgen_tensor *out) {
    int32_t d;
    if (opgen_wrap_dim(ctx, dim, self->dim, &d)) return ctx->err->code;
    if (half_to_float) return OPGEN_FAIL(ctx, OPGEN_E_NOT_IMPLEMENTED, "%s: half_to_float applies to Half inputs, which this kernel does not take", ctx->op);
    if (!opgen_is_float(self->dtype)) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: softmax needs a floating point tensor, not %s", ctx->op, opgen_dtype_name(self->dtype));
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    int32_t st = opgen_out(ctx, out, self->dtype, self->dim, self->sizes);
    if (st || ctx->meta || !opgen_numel(out)) return st;
    /* every row along d: the other dimensions walked by an iterator over a view
     * with d of size 1 */
    int64_t len = self->dim ? self->sizes[d] : 1, is = self->dim ? self->strides[d] : 1, os = self->dim ? out->strides[d] : 1;
    opgen_tensor ov = *out, iv = *self;
    if (self->dim) ov.sizes[d] = iv.sizes[d] = 1;
    opgen_iter it;
    const opgen_tensor *in[1] = {&iv};
    if (opgen_iter_init_strided(ctx, &it, &ov, in, 1)) return ctx->err->code;
    OPGEN_FLOAT_SWITCH(mask, self->dtype, ctx, T, {
        {
            OPGEN_ITER_RUNS(&it, n, p, s, {
                for (int64_t r = 0; r < n; r++) SOFTMAX_ROW_OF(T)(p[1] + r * s[1], is, p[0] + r * s[0], os, len, take_log);
            });
        }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable__softmax_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, bool half_to_float, opgen_tensor *out) {
    return softmax(ctx, OPGEN_KERNEL_DTYPES_opgen_portable__softmax_out, self, dim, half_to_float, false, out);
}
opgen_status opgen_portable__log_softmax_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, bool half_to_float, opgen_tensor *out) {
    return softmax(ctx, OPGEN_KERNEL_DTYPES_opgen_portable__log_softmax_out, self, dim, half_to_float, true, out);
}
