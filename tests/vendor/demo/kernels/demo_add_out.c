/* The demo backend's kernel demo_add_out for aten::add.out:
 *   add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: the Float case is the demo backend's
 * own (broadcasting, any strides); other dtypes go to opgen's portable kernel. */
#include "opgen/kernel.h"
#include "demo_kernels.h"

static opgen_status add_f32(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other, const opgen_scalar *alpha, opgen_tensor *out) {
    if (other->dtype != OPGEN_DTYPE_Float) return opgen_not_implemented(ctx, other->dtype); /* mixed dtypes: opgen's kernel promotes */
    int32_t dim;
    int64_t sizes[OPGEN_MAX_DIM], idx[OPGEN_MAX_DIM] = {0};
    int32_t st = opgen_broadcast(ctx, self, other, &dim, sizes);
    if (st || (st = opgen_out(ctx, out, OPGEN_DTYPE_Float, dim, sizes)) || ctx->meta) return st;
    const float *a = self->data, *b = other->data;
    float *o = out->data, k = (float)opgen_scalar_f64(alpha);
    int64_t n = opgen_numel(out);
    for (int64_t i = 0; i < n; i++, opgen_index_next(dim, sizes, idx))
        o[i] = a[opgen_bcast_offset(self, dim, idx)] + k * b[opgen_bcast_offset(other, dim, idx)];
    return OPGEN_OK;
}

opgen_status demo_add_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other, const opgen_scalar *alpha, opgen_tensor *out) {
    if (!self || !other || !alpha || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    switch (self->dtype) {
    case OPGEN_DTYPE_Float:
        return add_f32(ctx, self, other, alpha, out);
    default:
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: the demo backend has no case for %s", ctx->op, opgen_dtype_name(self->dtype));
    }
}
