/* opgen skeleton 0.1.0, checksum 89892f55522d59d8: yours once you change it */
/* The cortex_m backend's kernel table (written by opgen skeleton; regenerated while
 * unchanged): per op, the kernel and the dtypes its switch has cases for. */
#include "cortex_m_kernels.h"

static opgen_status call_1(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, double, int64_t, int64_t, int64_t, opgen_dtype, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.f, a[2].v.i, a[3].v.i, a[4].v.i, a[5].v.d, a[6].v.t);
}
static opgen_status call_2(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, const opgen_tensor *, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.t, a[2].v.t);
}
static opgen_status call_3(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, opgen_int_list, opgen_int_list, int64_t, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.il, a[2].v.il, a[3].v.i, a[4].v.t);
}
static opgen_status call_4(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, int64_t, int64_t, int64_t, const opgen_tensor *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.i, a[2].v.i, a[3].v.i, a[4].v.t, a[5].v.i, a[6].v.i, a[7].v.i, a[8].v.i, a[9].v.i, a[10].v.i, a[11].v.i, a[12].v.i, a[13].v.t);
}
static opgen_status call_5(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, opgen_int_list, opgen_int_list, opgen_int_list, bool, int64_t, int64_t, int64_t, const opgen_tensor *, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.il, a[2].v.il, a[3].v.il, a[4].v.b, a[5].v.i, a[6].v.i, a[7].v.i, a[8].v.t, a[9].v.t);
}
static opgen_status call_6(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, int64_t, const opgen_tensor *, int64_t, int64_t, int64_t, int64_t, const opgen_tensor *, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.i, a[2].v.t, a[3].v.i, a[4].v.i, a[5].v.i, a[6].v.i, a[7].v.t, a[8].v.t);
}
static opgen_status call_7(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, const opgen_tensor *, const opgen_tensor *, opgen_int_list, opgen_int_list, opgen_int_list, int64_t, int64_t, const opgen_tensor *, const opgen_tensor *, int64_t, int64_t, const opgen_tensor *, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.t, a[2].v.t, a[3].v.il, a[4].v.il, a[5].v.il, a[6].v.i, a[7].v.i, a[8].v.t, a[9].v.t, a[10].v.i, a[11].v.i, a[12].v.t, a[13].v.t);
}
static opgen_status call_8(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, const opgen_tensor *, const opgen_tensor *, opgen_int_list, opgen_int_list, opgen_int_list, int64_t, int64_t, int64_t, const opgen_tensor *, const opgen_tensor *, int64_t, int64_t, const opgen_tensor *, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.t, a[2].v.t, a[3].v.il, a[4].v.il, a[5].v.il, a[6].v.i, a[7].v.i, a[8].v.i, a[9].v.t, a[10].v.t, a[11].v.i, a[12].v.i, a[13].v.t, a[14].v.t);
}
static opgen_status call_9(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, int64_t, const opgen_tensor *, int64_t, int64_t, double, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.i, a[2].v.t, a[3].v.i, a[4].v.i, a[5].v.f, a[6].v.t);
}
static opgen_status call_10(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, const opgen_tensor *, const opgen_tensor *, const opgen_tensor *, int64_t, int64_t, int64_t, opgen_int_list, opgen_int_list, int64_t, int64_t, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.t, a[2].v.t, a[3].v.t, a[4].v.i, a[5].v.i, a[6].v.i, a[7].v.il, a[8].v.il, a[9].v.i, a[10].v.i, a[11].v.t);
}
static opgen_status call_11(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, opgen_int_list, opgen_int_list, opgen_int_list, opgen_int_list, bool, int64_t, int64_t, int64_t, int64_t, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.il, a[2].v.il, a[3].v.il, a[4].v.il, a[5].v.b, a[6].v.i, a[7].v.i, a[8].v.i, a[9].v.i, a[10].v.t);
}
static opgen_status call_12(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, int64_t, const opgen_tensor *, int64_t, int64_t, int64_t, int64_t, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.i, a[2].v.t, a[3].v.i, a[4].v.i, a[5].v.i, a[6].v.i, a[7].v.t);
}
static opgen_status call_13(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, const opgen_tensor *, const opgen_tensor *, opgen_int_list, opgen_int_list, opgen_int_list, opgen_int_list, int64_t, int64_t, const opgen_tensor *, const opgen_tensor *, int64_t, int64_t, const opgen_tensor *, const opgen_tensor *, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.t, a[2].v.t, a[3].v.il, a[4].v.il, a[5].v.il, a[6].v.il, a[7].v.i, a[8].v.i, a[9].v.t, a[10].v.t, a[11].v.i, a[12].v.i, a[13].v.t, a[14].v.t, a[15].v.t);
}
static opgen_status call_14(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.i, a[2].v.i, a[3].v.i, a[4].v.i, a[5].v.i, a[6].v.i, a[7].v.t);
}
static opgen_status call_15(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, opgen_int_list, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.il, a[2].v.t);
}

static const opgen_vendor_kernel kernels[] = {
    {"cortex_m::dequantize_per_tensor.out", {(void (*)(void))cortex_m_dequantize_per_tensor_out, call_1, 0x08008effu, "cortex_m_dequantize_per_tensor_out"}},
    {"cortex_m::maximum.out", {(void (*)(void))cortex_m_maximum_out, call_2, 0x08008effu, "cortex_m_maximum_out"}},
    {"cortex_m::minimum.out", {(void (*)(void))cortex_m_minimum_out, call_2, 0x08008effu, "cortex_m_minimum_out"}},
    {"cortex_m::pad.out", {(void (*)(void))cortex_m_pad_out, call_3, 0x08008effu, "cortex_m_pad_out"}},
    {"cortex_m::quantize_per_tensor.out", {(void (*)(void))cortex_m_quantize_per_tensor_out, call_1, 0x08008effu, "cortex_m_quantize_per_tensor_out"}},
    {"cortex_m::quantized_activation.out", {(void (*)(void))cortex_m_quantized_activation_out, call_2, 0x08008effu, "cortex_m_quantized_activation_out"}},
    {"cortex_m::quantized_add.out", {(void (*)(void))cortex_m_quantized_add_out, call_4, 0x08008effu, "cortex_m_quantized_add_out"}},
    {"cortex_m::quantized_avg_pool2d.out", {(void (*)(void))cortex_m_quantized_avg_pool2d_out, call_5, 0x08008effu, "cortex_m_quantized_avg_pool2d_out"}},
    {"cortex_m::quantized_batch_matmul.out", {(void (*)(void))cortex_m_quantized_batch_matmul_out, call_6, 0x08008effu, "cortex_m_quantized_batch_matmul_out"}},
    {"cortex_m::quantized_conv2d.out", {(void (*)(void))cortex_m_quantized_conv2d_out, call_7, 0x08008effu, "cortex_m_quantized_conv2d_out"}},
    {"cortex_m::quantized_depthwise_conv2d.out", {(void (*)(void))cortex_m_quantized_depthwise_conv2d_out, call_8, 0x08008effu, "cortex_m_quantized_depthwise_conv2d_out"}},
    {"cortex_m::quantized_div.out", {(void (*)(void))cortex_m_quantized_div_out, call_9, 0x08008effu, "cortex_m_quantized_div_out"}},
    {"cortex_m::quantized_linear.out", {(void (*)(void))cortex_m_quantized_linear_out, call_10, 0x08008effu, "cortex_m_quantized_linear_out"}},
    {"cortex_m::quantized_max_pool2d.out", {(void (*)(void))cortex_m_quantized_max_pool2d_out, call_11, 0x08008effu, "cortex_m_quantized_max_pool2d_out"}},
    {"cortex_m::quantized_mul.out", {(void (*)(void))cortex_m_quantized_mul_out, call_12, 0x08008effu, "cortex_m_quantized_mul_out"}},
    {"cortex_m::quantized_transpose_conv2d.out", {(void (*)(void))cortex_m_quantized_transpose_conv2d_out, call_13, 0x08008effu, "cortex_m_quantized_transpose_conv2d_out"}},
    {"cortex_m::softmax.out", {(void (*)(void))cortex_m_softmax_out, call_14, 0x08008effu, "cortex_m_softmax_out"}},
    {"cortex_m::transpose.out", {(void (*)(void))cortex_m_transpose_out, call_15, 0x08008effu, "cortex_m_transpose_out"}},
};

const opgen_vendor opgen_vendor_cortex_m = {"cortex_m", kernels, 18};
