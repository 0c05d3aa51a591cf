/* opgen skeleton 0.1.0, checksum a24d3111cdc1f167: yours once you change it */
/* The cortex_m backend's kernels (written by opgen skeleton; regenerated while unchanged). */
#ifndef cortex_m_KERNELS_H
#define cortex_m_KERNELS_H
#include "opgen/kernel.h"
#include "opgen/vendor.h"

opgen_status cortex_m_dequantize_per_tensor_out(opgen_ctx *ctx, const opgen_tensor *input, double scale, int64_t zero_point, int64_t quant_min, int64_t quant_max, opgen_dtype dtype, opgen_tensor *out);
opgen_status cortex_m_maximum_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other, opgen_tensor *out);
opgen_status cortex_m_minimum_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other, opgen_tensor *out);
opgen_status cortex_m_pad_out(opgen_ctx *ctx, const opgen_tensor *input, opgen_int_list pre_pad, opgen_int_list post_pad, int64_t pad_value, opgen_tensor *out);
opgen_status cortex_m_quantize_per_tensor_out(opgen_ctx *ctx, const opgen_tensor *input, double scale, int64_t zero_point, int64_t quant_min, int64_t quant_max, opgen_dtype dtype, opgen_tensor *out);
opgen_status cortex_m_quantized_activation_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *lut, opgen_tensor *out);
opgen_status cortex_m_quantized_add_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t self_zero_point, int64_t self_multiplier, int64_t self_shift, const opgen_tensor *other, int64_t other_zero_point, int64_t other_multiplier, int64_t other_shift, int64_t output_zero_point, int64_t output_multiplier, int64_t output_shift, int64_t activation_min, int64_t activation_max, opgen_tensor *out);
opgen_status cortex_m_quantized_avg_pool2d_out(opgen_ctx *ctx, const opgen_tensor *input, opgen_int_list kernel_size, opgen_int_list stride, opgen_int_list padding, bool ceil_mode, int64_t zero_point, int64_t multiplier, int64_t shift, const opgen_tensor *scratch, opgen_tensor *out);
opgen_status cortex_m_quantized_batch_matmul_out(opgen_ctx *ctx, const opgen_tensor *lhs, int64_t lhs_zero_point, const opgen_tensor *rhs_transposed, int64_t rhs_zero_point, int64_t output_zero_point, int64_t output_multiplier, int64_t output_shift, const opgen_tensor *scratch, opgen_tensor *out);
opgen_status cortex_m_quantized_conv2d_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight, const opgen_tensor *bias, opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation, int64_t input_offset, int64_t output_offset, const opgen_tensor *requantize_multipliers, const opgen_tensor *requantize_shifts, int64_t activation_min, int64_t activation_max, const opgen_tensor *scratch, opgen_tensor *out);
opgen_status cortex_m_quantized_depthwise_conv2d_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight, const opgen_tensor *bias, opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation, int64_t depth_multiplier, int64_t input_offset, int64_t output_offset, const opgen_tensor *requantize_multipliers, const opgen_tensor *requantize_shifts, int64_t activation_min, int64_t activation_max, const opgen_tensor *scratch, opgen_tensor *out);
opgen_status cortex_m_quantized_div_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t self_zero_point, const opgen_tensor *other, int64_t other_zero_point, int64_t output_zero_point, double output_scale, opgen_tensor *out);
opgen_status cortex_m_quantized_linear_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weights, const opgen_tensor *bias, const opgen_tensor *kernel_sum, int64_t input_offset, int64_t filter_offset, int64_t output_offset, opgen_int_list requantize_multipliers, opgen_int_list requantize_shifts, int64_t activation_max, int64_t activation_min, opgen_tensor *out);
opgen_status cortex_m_quantized_max_pool2d_out(opgen_ctx *ctx, const opgen_tensor *input, opgen_int_list kernel_size, opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation, bool ceil_mode, int64_t input_zero_point, int64_t output_zero_point, int64_t activation_min, int64_t activation_max, opgen_tensor *out);
opgen_status cortex_m_quantized_mul_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t self_zero_point, const opgen_tensor *other, int64_t other_zero_point, int64_t output_zero_point, int64_t output_multiplier, int64_t output_shift, opgen_tensor *out);
opgen_status cortex_m_quantized_transpose_conv2d_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight, const opgen_tensor *bias, opgen_int_list stride, opgen_int_list padding, opgen_int_list output_padding, opgen_int_list dilation, int64_t input_offset, int64_t output_offset, const opgen_tensor *requantize_multipliers, const opgen_tensor *requantize_shifts, int64_t activation_min, int64_t activation_max, const opgen_tensor *scratch, const opgen_tensor *output_scratch, opgen_tensor *out);
opgen_status cortex_m_softmax_out(opgen_ctx *ctx, const opgen_tensor *input, int64_t dim, int64_t input_zero_point, int64_t output_zero_point, int64_t input_multiplier, int64_t input_shift, int64_t diff_min, opgen_tensor *out);
opgen_status cortex_m_transpose_out(opgen_ctx *ctx, const opgen_tensor *input, opgen_int_list perm, opgen_tensor *out);

/* The table a runner gives opgen (opgen_load_options.vendors, opgen_rt_main). */
extern const opgen_vendor opgen_vendor_cortex_m;
#endif
