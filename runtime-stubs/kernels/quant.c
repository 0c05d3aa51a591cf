/* quantized_decomposed: quantize_per_tensor, dequantize_per_tensor and
 * dequantize_per_channel, with ExecuTorch's arithmetic (float math, round half
 * to even, clamp to [quant_min, quant_max]). */
#include "opgen/loops.h"
#include "opgen_registry.h"
#include "q8.h"

static bool quant_dtype(opgen_dtype d) {
    return d == OPGEN_DTYPE_Byte || d == OPGEN_DTYPE_Char || d == OPGEN_DTYPE_Short || d == OPGEN_DTYPE_Int ||
           d == OPGEN_DTYPE_UInt16;
}

/* ExecuTorch leaves NaN and infinities undefined: infinities saturate, and NaN
 * gives the zero point (as if the value were 0). */
static double quant_clamp(double q, double zp, double lo, double hi) {
    q = q != q ? zp : q;
    return q < lo ? lo : q > hi ? hi : q;
}

/* A dtype's whole range of values. */
static void dtype_range(opgen_dtype dtype, int64_t *lo, int64_t *hi) {
    switch (dtype) {
    case OPGEN_DTYPE_Byte: *lo = 0, *hi = 255; break;
    case OPGEN_DTYPE_Char: *lo = -128, *hi = 127; break;
    case OPGEN_DTYPE_Short: *lo = -32768, *hi = 32767; break;
    case OPGEN_DTYPE_UInt16: *lo = 0, *hi = 65535; break;
    default: *lo = INT32_MIN, *hi = INT32_MAX; break;
    }
}

/* A scale and zero point PyTorch would refuse or that compute nothing: a scale
 * that is not positive and finite, a zero point outside the dtype. Checked in
 * the meta step, so a program is refused at load, the value named. */
static opgen_status check_params(opgen_ctx *ctx, opgen_dtype dtype, double scale, int64_t zero_point) {
    int64_t lo, hi;
    dtype_range(dtype, &lo, &hi);
    if (!(scale > 0) || scale > 3.4e38)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: scale must be positive and finite, not %g", ctx->op, scale);
    if (zero_point < lo || zero_point > hi)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: zero_point %lld is outside %s's range [%lld, %lld]", ctx->op,
                          (long long)zero_point, opgen_dtype_name(dtype), (long long)lo, (long long)hi);
    return OPGEN_OK;
}

static opgen_status check_range(opgen_ctx *ctx, opgen_dtype dtype, int64_t qmin, int64_t qmax) {
    int64_t lo, hi;
    dtype_range(dtype, &lo, &hi);
    if (qmin > qmax || qmin < lo || qmax > hi)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: [%lld, %lld] is not a valid range for %s", ctx->op,
                          (long long)qmin, (long long)qmax, opgen_dtype_name(dtype));
    return OPGEN_OK;
}

opgen_status opgen_portable_quantize_per_tensor_out(opgen_ctx *ctx, const opgen_tensor *input, double scale,
                                                    int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                                    opgen_dtype dtype, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_quantize_per_tensor_out;
    if (!opgen_is_float(input->dtype))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: input must be floating point, not %s", ctx->op,
                          opgen_dtype_name(input->dtype));
    if (!quant_dtype(dtype))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: cannot quantize to %s", ctx->op, opgen_dtype_name(dtype));
    if (check_params(ctx, dtype, scale, zero_point) || check_range(ctx, dtype, quant_min, quant_max))
        return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, dtype, "the result");
    opgen_status st = opgen_out(ctx, out, dtype, input->dim, input->sizes);
    if (st || ctx->meta) return st;
    float inv_scale = 1.0f / (float)scale;
    if (input->dtype == OPGEN_DTYPE_Float && dtype == OPGEN_DTYPE_Char && opgen_tensor_is_contiguous(input) &&
        opgen_tensor_is_contiguous(out)) { /* the same arithmetic, vectorised (q8.h) */
        opgen_q8_requant rq = {inv_scale, (int32_t)zero_point, (int32_t)quant_min, (int32_t)quant_max, 0, 0, 0, 0, 0};
        opgen_q8_quantize_f32(opgen_numel(input), input->data, &rq, out->data);
        return OPGEN_OK;
    }
    double zp = (double)zero_point, lo = (double)quant_min, hi = (double)quant_max;
    float zpf = (float)(int32_t)zero_point;
    opgen_iter it;
    const opgen_tensor *in[1] = {input};
    if (opgen_iter_init(ctx, &it, out, in, 1)) return ctx->err->code;
    /* ExecuTorch: int32(zero_point) + nearbyint(inv_scale * value), a sum in float
     * (it rounds past 2^24), then clamped (in double: NaN-safe) */
    OPGEN_REAL_SWITCH(mask, dtype, ctx, T, {
        OPGEN_MAP1(&it, mask, T, float, (T)(int64_t)quant_clamp((double)(zpf + nearbyintf(inv_scale * x)), zp, lo, hi));
    })
    return OPGEN_OK;
}

/* (q - zero_point) * scale in float, for one channel's (or the whole tensor's) elements */
#define DEQUANT(IT, MASK, T, z, s) OPGEN_MAP1(IT, MASK, T, int64_t, (T)((float)((double)x - (double)(z)) * (s)))

OPGEN_SPECIALIZED opgen_status dequantize(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *input,
                                          const opgen_tensor *scales, const opgen_tensor *zps, double scale, int64_t zp,
                                          int64_t axis, int64_t qmin, int64_t qmax, opgen_dtype dtype,
                                          const opgen_dtype *out_dtype, opgen_tensor *out) {
    if (input->dtype != dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: input has dtype %s, but dtype says %s", ctx->op,
                          opgen_dtype_name(input->dtype), opgen_dtype_name(dtype));
    if (check_range(ctx, dtype, qmin, qmax) || (!scales && check_params(ctx, dtype, scale, zp))) return ctx->err->code;
    int32_t ax = 0;
    int64_t C = 1;
    if (scales) {
        if (opgen_wrap_dim(ctx, axis, input->dim, &ax)) return ctx->err->code;
        C = input->dim ? input->sizes[ax] : 1;
        if (scales->dim != 1 || scales->sizes[0] != C)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: scales must have %lld elements", ctx->op, (long long)C);
        if (zps && (zps->dim != 1 || zps->sizes[0] != C))
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: zero_points must have %lld elements", ctx->op, (long long)C);
    }
    for (int64_t c = 0; ctx->meta && scales && scales->data && c < C; c++) { /* constants, at load */
        double sd;
        int64_t z = 0;
        opgen_convert_f64(
            &sd, (const char *)scales->data + (size_t)(c * scales->strides[0]) * opgen_dtype_size(scales->dtype), 0,
            scales->dtype, 1);
        if (zps && zps->data)
            opgen_convert_i64(&z,
                              (const char *)zps->data + (size_t)(c * zps->strides[0]) * opgen_dtype_size(zps->dtype), 0,
                              zps->dtype, 1);
        if (check_params(ctx, dtype, sd, z)) return ctx->err->code;
    }
    opgen_dtype res = out_dtype ? *out_dtype : OPGEN_DTYPE_Float;
    if (!opgen_is_float(res))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: out_dtype must be floating point, not %s", ctx->op,
                          opgen_dtype_name(res));
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    opgen_status st = opgen_out(ctx, out, res, input->dim, input->sizes);
    if (st || ctx->meta) return st;
    /* per channel: the input and output cut to it along the axis */
    opgen_tensor iv = *input, ov = *out;
    if (scales && input->dim) iv.sizes[ax] = ov.sizes[ax] = 1;
    size_t ies = (size_t)opgen_dtype_size(input->dtype), oes = (size_t)opgen_dtype_size(res);
    for (int64_t c = 0; c < C; c++) {
        float s = (float)scale;
        int64_t z = zp;
        if (scales) { /* the channel's scale and zero point, converted once */
            double sd;
            opgen_convert_f64(&sd,
                              (const char *)scales->data +
                                  (size_t)(c * scales->strides[0]) * (size_t)opgen_dtype_size(scales->dtype),
                              0, scales->dtype, 1);
            s = (float)sd;
            z = 0;
            if (zps)
                opgen_convert_i64(
                    &z, (const char *)zps->data + (size_t)(c * zps->strides[0]) * (size_t)opgen_dtype_size(zps->dtype),
                    0, zps->dtype, 1);
            if (input->dim) {
                iv.data = (char *)input->data + (size_t)(c * input->strides[ax]) * ies;
                ov.data = (char *)out->data + (size_t)(c * out->strides[ax]) * oes;
            }
        }
        opgen_iter it;
        const opgen_tensor *in[1] = {&iv};
        if (opgen_iter_init_strided(ctx, &it, &ov, in, 1)) return ctx->err->code;
        OPGEN_FLOAT_SWITCH(mask, res, ctx, T, { DEQUANT(&it, mask, T, z, s); })
    }
    return OPGEN_OK;
}

opgen_status opgen_portable_dequantize_per_tensor_out(opgen_ctx *ctx, const opgen_tensor *input, double scale,
                                                      int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                                      opgen_dtype dtype, const opgen_dtype *out_dtype,
                                                      opgen_tensor *out) {
    return dequantize(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_dequantize_per_tensor_out, input, NULL, NULL, scale,
                      zero_point, 0, quant_min, quant_max, dtype, out_dtype, out);
}

opgen_status opgen_portable_dequantize_per_channel_out(opgen_ctx *ctx, const opgen_tensor *input,
                                                       const opgen_tensor *scales, const opgen_tensor *zero_points,
                                                       int64_t axis, int64_t quant_min, int64_t quant_max,
                                                       opgen_dtype dtype, const opgen_dtype *out_dtype,
                                                       opgen_tensor *out) {
    return dequantize(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_dequantize_per_channel_out, input, scales, zero_points, 0,
                      0, axis, quant_min, quant_max, dtype, out_dtype, out);
}

/* quantized_decomposed::add, natively: dequantize both operands, add and requantize
 * in one pass over the bytes, through two 256-entry tables, with the fallback's
 * arithmetic step for step (float dequantization, the sum rounded to float, round
 * half to even), so the two agree. Broadcasting and dtypes other than uint8 take the
 * fallback (the pattern on the core kernels). */
opgen_status opgen_native_quantized_add_out(opgen_ctx *ctx, const opgen_tensor *a, double a_scale, int64_t a_zero_point,
                                            int64_t a_quant_min, int64_t a_quant_max, const opgen_tensor *b,
                                            double b_scale, int64_t b_zero_point, int64_t b_quant_min,
                                            int64_t b_quant_max, double out_scale, int64_t out_zero_point,
                                            int64_t out_quant_min, int64_t out_quant_max, opgen_tensor *out) {
    bool simple = a->dtype == OPGEN_DTYPE_Byte && b->dtype == OPGEN_DTYPE_Byte && a->dim == b->dim &&
                  !memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->dim) && opgen_tensor_is_contiguous(a) &&
                  opgen_tensor_is_contiguous(b);
    if (!simple)
        return opgen_fallback_quantized_decomposed_add_out(ctx, a, a_scale, a_zero_point, a_quant_min, a_quant_max, b,
                                                           b_scale, b_zero_point, b_quant_min, b_quant_max, out_scale,
                                                           out_zero_point, out_quant_min, out_quant_max, out);
    if (check_range(ctx, OPGEN_DTYPE_Byte, a_quant_min, a_quant_max) ||
        check_range(ctx, OPGEN_DTYPE_Byte, b_quant_min, b_quant_max) ||
        check_range(ctx, OPGEN_DTYPE_Byte, out_quant_min, out_quant_max))
        return ctx->err->code;
    if (!(out_scale > 0)) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: scale must be positive", ctx->op);
    opgen_status st = opgen_out(ctx, out, OPGEN_DTYPE_Byte, a->dim, a->sizes);
    if (st || ctx->meta) return st;
    float fa[256], fb[256];
    for (int q = 0; q < 256; q++) {
        fa[q] = (float)((double)q - (double)a_zero_point) * (float)a_scale;
        fb[q] = (float)((double)q - (double)b_zero_point) * (float)b_scale;
    }
    float inv_scale = 1.0f / (float)out_scale;
    double zp = (double)out_zero_point;
    const uint8_t *pa = a->data, *pb = b->data;
    uint8_t *po = out->data;
    int64_t n = opgen_numel(a);
    for (int64_t i = 0; i < n; i++) {
        float s = (float)((double)fa[pa[i]] + (double)fb[pb[i]]);
        int64_t q = opgen_f64_to_i64(zp + (double)nearbyintf(inv_scale * s));
        po[i] = (uint8_t)(q < out_quant_min ? out_quant_min : q > out_quant_max ? out_quant_max : q);
    }
    return OPGEN_OK;
}
