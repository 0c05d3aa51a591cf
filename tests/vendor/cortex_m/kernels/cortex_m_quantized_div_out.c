/* The cortex_m backend's kernel cortex_m_quantized_div_out for cortex_m::quantized_div.out:
 *   quantized_div.out(Tensor self, int self_zero_point, Tensor other, int other_zero_point, int output_zero_point, float output_scale, *, Tensor(a!) out) -> Tensor(a!)
 * Written by opgen skeleton, then filled in: int8 or int16 division, evaluated as the
 * reference does in float32: (a - a_zp) / (b - b_zp) (0 where the divisor is 0),
 * times output_scale, rounded half to even, plus output_zero_point, clamped to the
 * dtype. Shapes must be equal.
 * Reference: operators.py quantized_div_impl. */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include "cortex_m_nn.h"

#define DIV_LOOP(T, LO, HI)                                                                                      \
    do {                                                                                                         \
        const T *a = self->data, *b = other->data;                                                               \
        for (int64_t i = 0; i < n; i++, opgen_index_next(self->dim, self->sizes, idx)) {                         \
            float x = (float)(a[cm_offset(self, idx)] - self_zero_point), y = (float)(b[cm_offset(other, idx)] - other_zero_point); \
            float r = nearbyintf((y != 0 ? x / y : 0.0f) * s) + zp;                                              \
            ((T *)out->data)[cm_offset(out, idx)] = (T)(r < LO ? LO : r > HI ? HI : r);                          \
        }                                                                                                        \
    } while (0)

opgen_status cortex_m_quantized_div_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t self_zero_point, const opgen_tensor *other, int64_t other_zero_point, int64_t output_zero_point, double output_scale, opgen_tensor *out) {
    if (!self || !other || !out) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: an argument is missing", ctx->op);
    if (self->dtype != OPGEN_DTYPE_Char && self->dtype != OPGEN_DTYPE_Short) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: expected int8 or int16 inputs, got %s", ctx->op, opgen_dtype_name(self->dtype));
    CM_EXPECT(ctx, other, self->dtype, "other");
    bool same = self->dim == other->dim;
    for (int32_t d = 0; same && d < self->dim; d++) same = self->sizes[d] == other->sizes[d];
    if (!same) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: broadcasting is not supported: the shapes must be equal", ctx->op);
    int32_t st = opgen_out_any(ctx, out, self->dtype, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    int64_t idx[OPGEN_MAX_DIM] = {0}, n = opgen_numel(self);
    const float s = (float)output_scale, zp = (float)output_zero_point;
    if (self->dtype == OPGEN_DTYPE_Char)
        DIV_LOOP(int8_t, -128.0f, 127.0f);
    else
        DIV_LOOP(int16_t, -32768.0f, 32767.0f);
    return OPGEN_OK;
}
