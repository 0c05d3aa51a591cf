/* The cortex_m backend's kernel cortex_m_pad_out for cortex_m::pad.out:
 *   pad.out(Tensor input, int[] pre_pad, int[] post_pad, int pad_value, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: constant padding of an int8 tensor with
 * pad_value. pre_pad and post_pad give 4 values in physical order (N, H, W, C for a
 * channels-last input, else N, C, H, W), the last rank of them for a smaller tensor.
 * Reference: operators.py pad_impl and _pad_to_logical_order (arm_pad_s8 in op_pad.cpp). */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

opgen_status cortex_m_pad_out(opgen_ctx *ctx, const opgen_tensor *input, opgen_int_list pre_pad, opgen_int_list post_pad, int64_t pad_value, opgen_tensor *out) {
    if (!input || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    CM_EXPECT(ctx, input, OPGEN_DTYPE_Char, "input");
    if (input->dim < 1 || input->dim > 4 || pre_pad.len != 4 || post_pad.len != 4)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: pads a 1- to 4-d tensor with 4 pre and 4 post values", ctx->op);
    static const uint8_t nhwc[4] = {0, 2, 3, 1}, to_logical[4] = {0, 3, 1, 2};
    bool cl = input->dim == 4 && !memcmp(input->dim_order, nhwc, 4);
    int32_t off = 4 - input->dim;
    int64_t pre[4], sizes[4];
    for (int32_t i = 0; i < input->dim; i++) {
        int64_t a = pre_pad.data[cl ? to_logical[off + i] : off + i], b = post_pad.data[cl ? to_logical[off + i] : off + i];
        if (a < 0 || b < 0 || a > (1 << 20) || b > (1 << 20)) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: pads must be between 0 and 2^20", ctx->op);
        pre[i] = a, sizes[i] = input->sizes[i] + a + b;
    }
    int32_t st = opgen_out_ordered(ctx, out, OPGEN_DTYPE_Char, input->dim, sizes, out->capacity || out->data ? NULL : input->dim_order);
    if (st || ctx->meta) return st;
    int64_t idx[OPGEN_MAX_DIM] = {0}, n = opgen_numel(out);
    const int8_t *x = input->data;
    int8_t *o = out->data;
    for (int64_t i = 0; i < n; i++, opgen_index_next(out->dim, out->sizes, idx)) {
        int64_t src = 0;
        bool inside = true;
        for (int32_t k = 0; k < input->dim && inside; k++) {
            int64_t j = idx[k] - pre[k];
            inside = j >= 0 && j < input->sizes[k];
            src += j * input->strides[k];
        }
        o[cm_offset(out, idx)] = inside ? x[src] : (int8_t)pad_value;
    }
    return OPGEN_OK;
}
