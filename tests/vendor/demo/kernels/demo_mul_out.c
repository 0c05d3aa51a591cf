/* opgen skeleton 0.1.0, checksum 7743832b56d2dfee: yours once you change it */
/* The demo backend's kernel demo_mul_out for aten::mul.out:
 *   mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton: fill it in. A case you write checks its inputs, sizes
 * the outputs with opgen_out, returns there when ctx->meta (program load), then
 * computes. A case left as it is stays a stub: it hands the call on to opgen's own
 * kernel for the op, where there is one (opgen coverage tells stubs from your
 * cases). Once you change this file, opgen skeleton leaves it alone. */
#include "opgen/kernel.h"
#include "demo_kernels.h"

opgen_status demo_mul_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other, opgen_tensor *out) {
    if (!self || !other || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    switch (self->dtype) {
    case OPGEN_DTYPE_Float:
        return opgen_not_implemented(ctx, OPGEN_DTYPE_Float);
    default:
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: the demo backend has no case for %s", ctx->op, opgen_dtype_name(self->dtype));
    }
}
