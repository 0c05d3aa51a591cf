/* The demo backend's kernel demo_relu_out for aten::relu.out:
 *   relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: Float and Double are the demo
 * backend's own (any strides; NaN stays NaN, as in ATen). */
#include "opgen/kernel.h"
#include "demo_kernels.h"

static void relu_f32(const opgen_tensor *self, float *o, int64_t n) {
    int64_t idx[OPGEN_MAX_DIM] = {0};
    const float *x = self->data;
    for (int64_t i = 0; i < n; i++, opgen_index_next(self->dim, self->sizes, idx)) {
        float v = x[opgen_bcast_offset(self, self->dim, idx)];
        o[i] = v > 0 || v != v ? v : 0;
    }
}

static void relu_f64(const opgen_tensor *self, double *o, int64_t n) {
    int64_t idx[OPGEN_MAX_DIM] = {0};
    const double *x = self->data;
    for (int64_t i = 0; i < n; i++, opgen_index_next(self->dim, self->sizes, idx)) {
        double v = x[opgen_bcast_offset(self, self->dim, idx)];
        o[i] = v > 0 || v != v ? v : 0;
    }
}

opgen_status demo_relu_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    if (!self || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    int32_t st;
    switch (self->dtype) {
    case OPGEN_DTYPE_Float:
        if ((st = opgen_out(ctx, out, OPGEN_DTYPE_Float, self->dim, self->sizes)) || ctx->meta) return st;
        relu_f32(self, out->data, opgen_numel(out));
        return OPGEN_OK;
    case OPGEN_DTYPE_Double:
        if ((st = opgen_out(ctx, out, OPGEN_DTYPE_Double, self->dim, self->sizes)) || ctx->meta) return st;
        relu_f64(self, out->data, opgen_numel(out));
        return OPGEN_OK;
    default:
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: the demo backend has no case for %s", ctx->op, opgen_dtype_name(self->dtype));
    }
}
