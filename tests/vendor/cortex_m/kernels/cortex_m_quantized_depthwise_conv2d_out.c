/* The cortex_m backend's kernel cortex_m_quantized_depthwise_conv2d_out for cortex_m::quantized_depthwise_conv2d.out:
 *   quantized_depthwise_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, int depth_multiplier, int input_offset, int output_offset, Tensor requantize_multipliers, Tensor requantize_shifts, int activation_min, int activation_max, Tensor scratch, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: int8 depthwise convolution (cm_conv2d in
 * cortex_m_nn.h), CMSIS-NN arm_depthwise_conv_wrapper_s8 in op_quantized_depthwise_conv2d.cpp.
 * Reference: operators.py quantized_depthwise_conv2d_impl (groups = input channels). */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

opgen_status cortex_m_quantized_depthwise_conv2d_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight, const opgen_tensor *bias, opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation, int64_t depth_multiplier, int64_t input_offset, int64_t output_offset, const opgen_tensor *requantize_multipliers, const opgen_tensor *requantize_shifts, int64_t activation_min, int64_t activation_max, const opgen_tensor *scratch, opgen_tensor *out) {
    if (!input || !weight || !requantize_multipliers || !requantize_shifts || !scratch || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    if (input->dim == 4 && weight->dim == 4 && weight->sizes[3] != input->sizes[1] * depth_multiplier)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: %lld output channels, and %lld input channels times depth_multiplier %lld", ctx->op, (long long)weight->sizes[3], (long long)input->sizes[1], (long long)depth_multiplier);
    return cm_conv2d(ctx, input, weight, bias, stride, padding, dilation, input_offset, output_offset, requantize_multipliers, requantize_shifts, activation_min, activation_max, true, out);
}
