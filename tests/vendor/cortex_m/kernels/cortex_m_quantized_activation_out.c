/* The cortex_m backend's kernel cortex_m_quantized_activation_out for cortex_m::quantized_activation.out:
 *   quantized_activation.out(Tensor input, Tensor lut, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: a 256-entry int8 lookup table (an
 * activation computed ahead of time for the input and output quantization):
 * out[i] = lut[input[i] + 128].
 * Reference: operators.py quantized_activation_impl. */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

opgen_status cortex_m_quantized_activation_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *lut, opgen_tensor *out) {
    if (!input || !lut || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    CM_EXPECT(ctx, input, OPGEN_DTYPE_Char, "input");
    CM_EXPECT(ctx, lut, OPGEN_DTYPE_Char, "lut");
    if (opgen_numel(lut) != 256) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: lut has %lld entries, expected 256", ctx->op, (long long)opgen_numel(lut));
    int32_t st = opgen_out_any(ctx, out, OPGEN_DTYPE_Char, input->dim, input->sizes);
    if (st || ctx->meta) return st;
    int64_t idx[OPGEN_MAX_DIM] = {0}, n = opgen_numel(input), ls = lut->dim ? lut->strides[lut->dim - 1] : 0;
    const int8_t *x = input->data, *t = lut->data;
    for (int64_t i = 0; i < n; i++, opgen_index_next(input->dim, input->sizes, idx))
        ((int8_t *)out->data)[cm_offset(out, idx)] = t[(x[cm_offset(input, idx)] + 128) * ls];
    return OPGEN_OK;
}
