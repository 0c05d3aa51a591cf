/* The cortex_m backend's kernel cortex_m_quantized_linear_out for cortex_m::quantized_linear.out:
 *   quantized_linear.out(Tensor input, Tensor weights, Tensor? bias, Tensor? kernel_sum, int input_offset, int filter_offset, int output_offset, int[] requantize_multipliers, int[] requantize_shifts, int activation_max, int activation_min, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: int8 fully connected layer. Without kernel_sum,
 * sum((input + input_offset) * (weight + filter_offset)) + bias; with it (the MVE
 * path), sum(input * weight) + sum(input) * filter_offset + kernel_sum; then
 * requantized by the first multiplier and shift, plus output_offset, clamped.
 * Reference: operators.py quantized_linear_impl (arm_fully_connected_s8 in op_quantized_linear.cpp). */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

opgen_status cortex_m_quantized_linear_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weights, const opgen_tensor *bias, const opgen_tensor *kernel_sum, int64_t input_offset, int64_t filter_offset, int64_t output_offset, opgen_int_list requantize_multipliers, opgen_int_list requantize_shifts, int64_t activation_max, int64_t activation_min, opgen_tensor *out) {
    if (!input || !weights || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    CM_EXPECT(ctx, input, OPGEN_DTYPE_Char, "input");
    CM_EXPECT(ctx, weights, OPGEN_DTYPE_Char, "weights");
    if (input->dim < 1 || weights->dim != 2 || weights->sizes[1] != input->sizes[input->dim - 1])
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: weights must be [out_features, in_features] with in_features the input's last size", ctx->op);
    if (!requantize_multipliers.len || !requantize_shifts.len) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: no requantize multiplier or shift", ctx->op);
    int64_t K = weights->sizes[1], NO = weights->sizes[0];
    const opgen_tensor *add = kernel_sum ? kernel_sum : bias;
    if (add && (add->dtype != OPGEN_DTYPE_Int || opgen_numel(add) != NO)) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: bias and kernel_sum must be int32 with one value per output", ctx->op);
    int64_t sizes[OPGEN_MAX_DIM];
    memcpy(sizes, input->sizes, sizeof(int64_t) * (size_t)input->dim);
    sizes[input->dim - 1] = NO;
    int32_t st = opgen_out_any(ctx, out, OPGEN_DTYPE_Char, input->dim, sizes);
    if (st || ctx->meta) return st;
    int64_t rows = K ? opgen_numel(input) / K : 0, m = requantize_multipliers.data[0], sh = requantize_shifts.data[0];
    int64_t idx[OPGEN_MAX_DIM] = {0}; /* the input's leading index, its last one 0 */
    const int8_t *x = input->data, *w = weights->data;
    int8_t *o = out->data;
    int32_t d = input->dim - 1;
    for (int64_t r = 0; r < rows; r++) {
        int64_t xo = cm_offset(input, idx), oo = cm_offset(out, idx), xs = input->strides[d];
        for (int64_t j = 0; j < NO; j++) {
            int64_t acc = 0, xsum = 0;
            for (int64_t k = 0; k < K; k++) {
                int64_t xv = x[xo + k * xs], wv = w[j * weights->strides[0] + k * weights->strides[1]];
                if (kernel_sum)
                    acc += xv * wv, xsum += xv;
                else
                    acc += (xv + input_offset) * (wv + filter_offset);
            }
            acc += kernel_sum ? xsum * filter_offset : 0;
            acc += add ? cm_i32(add, j) : 0;
            int64_t v = (int64_t)cm_requantize((int32_t)(uint32_t)(uint64_t)acc, m, sh) + output_offset;
            o[oo + j * out->strides[d]] = (int8_t)cm_clamp(v, activation_min, activation_max);
        }
        for (int32_t k = d - 1; k >= 0; k--) { /* the next row */
            if (++idx[k] < input->sizes[k]) break;
            idx[k] = 0;
        }
    }
    return OPGEN_OK;
}
