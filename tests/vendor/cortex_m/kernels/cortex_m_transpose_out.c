/* The cortex_m backend's kernel cortex_m_transpose_out for cortex_m::transpose.out:
 *   transpose.out(Tensor input, int[] perm, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: the input's dimensions permuted (perm) and laid
 * out anew, for any dtype.
 * Reference: operators.py transpose_impl (input.permute(perm).contiguous(); arm_transpose_s8). */
#include "opgen/loops.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

opgen_status cortex_m_transpose_out(opgen_ctx *ctx, const opgen_tensor *input, opgen_int_list perm, opgen_tensor *out) {
    if (!input || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    if ((int64_t)perm.len != input->dim) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: perm has %zu entries for a %d-d tensor", ctx->op, perm.len, (int)input->dim);
    opgen_tensor view = *input; /* the permuted view the copy reads */
    bool seen[OPGEN_MAX_DIM] = {0};
    for (int32_t i = 0; i < input->dim; i++) {
        int32_t p;
        if (opgen_wrap_dim(ctx, perm.data[i], input->dim, &p)) return ctx->err->code;
        if (seen[p]) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: dimension %d appears twice in perm", ctx->op, (int)p);
        seen[p] = true;
        view.sizes[i] = input->sizes[p], view.strides[i] = input->strides[p];
    }
    int32_t st = opgen_out_any(ctx, out, input->dtype, input->dim, view.sizes);
    if (st || ctx->meta) return st;
    return opgen_copy_same(ctx, out, &view);
}
