/* quantized_decomposed::embedding_byte and embedding_4bit (.out, .dtype_out),
 * natively: only the rows the indices name are dequantized, as ExecuTorch's Python reference
 * (exir/passes/_quant_patterns_and_replacements.py) computes them through
 * dequantize_per_channel_group: (w - zero_point) * scale in the scales' type
 * (float), then converted to the result's dtype. Weights int8 or uint8, [V, D];
 * scales [V] or [V, G] (G groups of D / G columns), zero points None or like the
 * scales (integer zero points take the pattern, as before). The pattern (a
 * whole-table dequantize) stays the op's fallback. The quant_min/max ranges
 * are not applied, as the reference does not apply them. */
#include "opgen/loops.h"
#include "opgen_registry.h"

static opgen_status check(opgen_ctx *ctx, const opgen_tensor *w, const opgen_tensor *s, const opgen_tensor *z,
                          const opgen_tensor *indices, int64_t D) {
    if (w->dim != 2 || (w->dtype != OPGEN_DTYPE_Char && w->dtype != OPGEN_DTYPE_Byte))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: weight must be 2-D int8 or uint8, got %d-D %s", ctx->op, (int)w->dim,
                          opgen_dtype_name(w->dtype));
    if (s->dtype != OPGEN_DTYPE_Float)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: weight_scales of dtype %s are not supported (Float is)", ctx->op,
                          opgen_dtype_name(s->dtype));
    int64_t groups = s->dim == 2 ? s->sizes[1] : 1;
    if ((s->dim != 1 && s->dim != 2) || s->sizes[0] != w->sizes[0] || groups < 1 || D % groups ||
        (D / groups <= 1 && D > 1))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE,
                          "%s: weight_scales must be [%lld] or [%lld, G], G dividing %lld into groups of 2 or more",
                          ctx->op, (long long)w->sizes[0], (long long)w->sizes[0], (long long)D);
    if (z && (z->dtype != s->dtype || z->dim != s->dim || memcmp(z->sizes, s->sizes, sizeof(int64_t) * (size_t)s->dim)))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: weight_zero_points must be None or have the scales' shape and dtype",
                          ctx->op);
    if (indices->dtype != OPGEN_DTYPE_Long && indices->dtype != OPGEN_DTYPE_Int)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: indices must be Int or Long, not %s", ctx->op,
                          opgen_dtype_name(indices->dtype));
    if (indices->dim + 1 > OPGEN_MAX_DIM) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: too many dimensions", ctx->op);
    return OPGEN_OK;
}

/* Value j of row v: a byte, or (4 bits) byte j / 2's high (j even) or low
 * nibble less 8, as the reference unpacks it: trunc(b / 16) and b mod 16. */
static int32_t weight_at(const opgen_tensor *w, int bits, int64_t v, int64_t j) {
    const char *p = (const char *)w->data + v * w->strides[0] + (bits == 4 ? j / 2 : j) * w->strides[1];
    int32_t b = w->dtype == OPGEN_DTYPE_Char ? *(const int8_t *)p : *(const uint8_t *)p;
    if (bits == 8) return b;
    int32_t q = j % 2 ? ((b % 16) + 16) % 16 : b / 16;
    return (int8_t)(q - 8); /* in int8, as the reference's view(int8).add(-8) */
}

/* One row: D values (w - z) * s in float, group by group, as dtype into dst. */
static void dequantize_row(const opgen_tensor *w, int bits, int64_t D, const opgen_tensor *s, const opgen_tensor *z,
                           int64_t v, float *row, opgen_dtype dtype, void *dst) {
    int64_t G = s->dim == 2 ? s->sizes[1] : 1, gs = D / G;
    for (int64_t g = 0; g < G; g++) {
        float sc = ((const float *)s->data)[v * s->strides[0] + (s->dim == 2 ? g * s->strides[1] : 0)];
        float zp = z ? ((const float *)z->data)[v * z->strides[0] + (z->dim == 2 ? g * z->strides[1] : 0)] : 0.0f;
        for (int64_t j = g * gs; j < (g + 1) * gs; j++) {
            float q = (float)weight_at(w, bits, v, j);
            row[j] = z ? (q - zp) * sc : q * sc; /* without zero points: the integer times the scale */
        }
    }
    opgen_convert_out(dst, opgen_dtype_size(dtype), dtype, row, OPGEN_DTYPE_Float, D);
}

static opgen_status embedding_q(opgen_ctx *ctx, uint32_t mask, int bits, const opgen_tensor *w, const opgen_tensor *s,
                                const opgen_tensor *z, const opgen_tensor *indices, opgen_dtype dtype,
                                opgen_tensor *out) {
    int64_t D = w->dim == 2 ? w->sizes[1] * (bits == 4 ? 2 : 1) : 0;
    if (check(ctx, w, s, z, indices, D)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, dtype, "the result");
    int64_t sizes[OPGEN_MAX_DIM], V = w->sizes[0], n = opgen_numel(indices);
    memcpy(sizes, indices->sizes, sizeof(int64_t) * (size_t)indices->dim);
    sizes[indices->dim] = D;
    opgen_status st = opgen_out(ctx, out, dtype, indices->dim + 1, sizes);
    if (st) return st;
    float *row = opgen_scratch(ctx, sizeof(float) * (size_t)(D ? D : 1));
    opgen_tensor ids = *indices; /* in logical order: in place when contiguous, else copied */
    bool dense = opgen_tensor_is_contiguous(indices);
    ids.data = dense ? indices->data : opgen_scratch(ctx, opgen_nbytes(indices));
    if (ctx->meta) return OPGEN_OK;
    if (!row || !ids.data) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    if (!dense && (opgen_tensor_shape(&ids, indices->dtype, indices->dim, indices->sizes, ctx->err) ||
                   opgen_copy(ctx, &ids, indices)))
        return ctx->err->code;
    size_t es = (size_t)opgen_dtype_size(dtype), ies = (size_t)opgen_dtype_size(indices->dtype);
    for (int64_t k = 0; k < n; k++) {
        int64_t v;
        opgen_convert_i64(&v, (const char *)ids.data + (size_t)k * ies, (int64_t)ies, indices->dtype, 1);
        if (v < 0 || v >= V)
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: index %lld is out of range for %lld embeddings", ctx->op,
                              (long long)v, (long long)V);
        dequantize_row(w, bits, D, s, z, v, row, dtype, (char *)out->data + (size_t)(k * D) * es);
    }
    return OPGEN_OK;
}

opgen_status opgen_native_embedding_byte_out(opgen_ctx *ctx, const opgen_tensor *weight,
                                             const opgen_tensor *weight_scales, const opgen_tensor *weight_zero_points,
                                             int64_t weight_quant_min, int64_t weight_quant_max,
                                             const opgen_tensor *indices, opgen_tensor *out) {
    if (weight_zero_points && weight_zero_points->dtype != weight_scales->dtype) /* integer zero points: the pattern */
        return opgen_fallback_quantized_decomposed_embedding_byte_out(ctx, weight, weight_scales, weight_zero_points,
                                                                      weight_quant_min, weight_quant_max, indices, out);
    return embedding_q(ctx, OPGEN_KERNEL_DTYPES_opgen_native_embedding_byte_out, 8, weight, weight_scales,
                       weight_zero_points, indices, weight_scales->dtype, out);
}

opgen_status opgen_native_embedding_byte_dtype_out(opgen_ctx *ctx, const opgen_tensor *weight,
                                                   const opgen_tensor *weight_scales,
                                                   const opgen_tensor *weight_zero_points, int64_t weight_quant_min,
                                                   int64_t weight_quant_max, const opgen_tensor *indices,
                                                   const opgen_dtype *dtype, opgen_tensor *out) {
    (void)weight_quant_min, (void)weight_quant_max;
    return embedding_q(ctx, OPGEN_KERNEL_DTYPES_opgen_native_embedding_byte_dtype_out, 8, weight, weight_scales,
                       weight_zero_points, indices, dtype ? *dtype : weight_scales->dtype, out);
}

/* embedding_4bit: ExecuTorch asks for the range [-8, 7]. */
static opgen_status range_4bit(opgen_ctx *ctx, int64_t qmin, int64_t qmax) {
    if (qmin == -8 && qmax == 7) return OPGEN_OK;
    return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: expects weight_quant_min -8 and weight_quant_max 7, got %lld and %lld",
                      ctx->op, (long long)qmin, (long long)qmax);
}

opgen_status opgen_portable_embedding_4bit_out(opgen_ctx *ctx, const opgen_tensor *weight,
                                               const opgen_tensor *weight_scales,
                                               const opgen_tensor *weight_zero_points, int64_t weight_quant_min,
                                               int64_t weight_quant_max, const opgen_tensor *indices,
                                               opgen_tensor *out) {
    if (range_4bit(ctx, weight_quant_min, weight_quant_max)) return ctx->err->code;
    return embedding_q(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_embedding_4bit_out, 4, weight, weight_scales,
                       weight_zero_points, indices, weight_scales->dtype, out);
}

opgen_status opgen_portable_embedding_4bit_dtype_out(opgen_ctx *ctx, const opgen_tensor *weight,
                                                     const opgen_tensor *weight_scales,
                                                     const opgen_tensor *weight_zero_points, int64_t weight_quant_min,
                                                     int64_t weight_quant_max, const opgen_tensor *indices,
                                                     const opgen_dtype *dtype, opgen_tensor *out) {
    if (range_4bit(ctx, weight_quant_min, weight_quant_max)) return ctx->err->code;
    return embedding_q(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_embedding_4bit_dtype_out, 4, weight, weight_scales,
                       weight_zero_points, indices, dtype ? *dtype : weight_scales->dtype, out);
}
