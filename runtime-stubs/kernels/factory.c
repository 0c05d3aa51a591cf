/* Factories and conversions: full, full_like, scalar_tensor, empty, empty_strided,
 * arange and _to_copy. Their result's dtype is not a function of their inputs:
 * a .pte plans it into the out, a graph program names it in the functional's
 * dtype argument (opgen_result_dtype reads both), and when neither does it is
 * ATen's default for the op. */
#include "opgen/loops.h"
#include "opgen_registry.h"

/* ATen's dtype of a tensor made from a Scalar when none is given: bool is
 * Bool, an integer Long, a float the default dtype Float. */
static opgen_dtype scalar_default(const opgen_scalar *s) {
    return s->dtype == OPGEN_DTYPE_Double ? OPGEN_DTYPE_Float
           : s->dtype == OPGEN_DTYPE_Bool ? OPGEN_DTYPE_Bool
                                          : OPGEN_DTYPE_Long;
}

static opgen_status filled(opgen_ctx *ctx, uint32_t mask, opgen_dtype dtype, int32_t dim, const int64_t *sizes,
                           const opgen_scalar *value, opgen_tensor *out) {
    OPGEN_CHECK_DTYPE(ctx, mask, dtype, "the result");
    opgen_status st = opgen_out(ctx, out, dtype, dim, sizes);
    if (st || ctx->meta) return st;
    return opgen_fill(ctx, mask, out, value);
}

opgen_status opgen_portable_full_out(opgen_ctx *ctx, opgen_int_list size, const opgen_scalar *fill_value,
                                     opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_full_out;
    opgen_status st = opgen_factory_out(ctx, mask, size, scalar_default(fill_value), out);
    if (st || ctx->meta) return st;
    return opgen_fill(ctx, mask, out, fill_value);
}

opgen_status opgen_portable_full_like_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *fill_value,
                                          const int32_t *memory_format, opgen_tensor *out) {
    (void)memory_format; /* every element holds the same value: any layout is the same */
    opgen_dtype dtype = opgen_result_dtype(ctx, out, self->dtype);
    return filled(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_full_like_out, dtype, self->dim, self->sizes, fill_value,
                  out);
}

/* scalar_tensor's default is Float whatever the Scalar holds, as in ATen */
opgen_status opgen_portable_scalar_tensor_out(opgen_ctx *ctx, const opgen_scalar *s, opgen_tensor *out) {
    opgen_dtype dtype = opgen_result_dtype(ctx, out, OPGEN_DTYPE_Float);
    return filled(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_scalar_tensor_out, dtype, 0, NULL, s, out);
}

/* empty: the shape and dtype asked for; the values are unspecified in ATen,
 * zeros here (planned memory holds what an earlier value left: a run's
 * outputs are deterministic). */
static opgen_status empty(opgen_ctx *ctx, uint32_t mask, opgen_int_list size, opgen_tensor *out) {
    opgen_status st = opgen_factory_out(ctx, mask, size, OPGEN_DTYPE_Float, out);
    if (st || ctx->meta) return st;
    memset(out->data, 0, opgen_nbytes(out));
    return OPGEN_OK;
}

opgen_status opgen_portable_empty_out(opgen_ctx *ctx, opgen_int_list size, const int32_t *memory_format,
                                      opgen_tensor *out) {
    (void)memory_format;
    return empty(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_empty_out, size, out);
}

/* the strides ask for a layout that nothing can observe through a value: the
 * result is dense in its own (or its out's) order */
opgen_status opgen_portable_empty_strided_out(opgen_ctx *ctx, opgen_int_list size, opgen_int_list stride,
                                              opgen_tensor *out) {
    if (stride.len != size.len)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: %zu sizes and %zu strides", ctx->op, size.len, stride.len);
    return empty(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_empty_strided_out, size, out);
}

/* arange: ATen's length, ceil((end - start) / step), in int64 arithmetic for
 * integer results and in double for float ones; element i is start + i * step
 * computed in double (ATen's accumulate type for float on the CPU) or int64. */
opgen_status opgen_portable_arange_start_out(opgen_ctx *ctx, const opgen_scalar *start, const opgen_scalar *end,
                                             const opgen_scalar *step, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_arange_start_out;
    bool any_f =
        start->dtype == OPGEN_DTYPE_Double || end->dtype == OPGEN_DTYPE_Double || step->dtype == OPGEN_DTYPE_Double;
    opgen_dtype dtype = opgen_result_dtype(ctx, out, any_f ? OPGEN_DTYPE_Float : OPGEN_DTYPE_Long);
    OPGEN_CHECK_DTYPE(ctx, mask, dtype, "the result");
    double s0 = opgen_scalar_f64(start), s1 = opgen_scalar_f64(end), ds = opgen_scalar_f64(step);
    if (!isfinite(s0) || !isfinite(s1))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: unsupported range: %g -> %g", ctx->op, s0, s1);
    if (ds == 0 || ds != ds) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: step must be nonzero", ctx->op);
    if ((ds > 0 && s1 < s0) || (ds < 0 && s1 > s0))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: upper bound and larger bound inconsistent with step sign",
                          ctx->op);
    /* the Scalars as the accumulate type: int64 for integer results (1.5 is 1) */
    bool integral = opgen_is_integral(dtype, false);
    int64_t i0 = opgen_f64_to_i64(s0), i1 = opgen_f64_to_i64(s1), di = opgen_f64_to_i64(ds);
    if (integral && (di == 0 || (di > 0 && i1 < i0) || (di < 0 && i1 > i0)))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %s", ctx->op,
                          di ? "upper bound and larger bound inconsistent with step sign" : "step must be nonzero");
    double n = dtype == OPGEN_DTYPE_Long ? (double)((i1 - i0 + di - (di > 0 ? 1 : -1)) / di) : ceil((s1 - s0) / ds);
    if (!(n >= 0 && n < 9.0e15))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: invalid size, possible overflow", ctx->op);
    int64_t len = (int64_t)n;
    opgen_status st = opgen_out(ctx, out, dtype, 1, &len);
    if (st || ctx->meta) return st;
    OPGEN_REAL_SWITCH(mask, dtype, ctx, T, {
        T *p = out->data;
        if (integral)
            for (int64_t k = 0; k < len; k++) p[k] = (T)(i0 + k * di);
        else
            for (int64_t k = 0; k < len; k++) p[k] = (T)(s0 + (double)k * ds);
    })
    return OPGEN_OK;
}

/* _to_copy: self converted to the result's dtype as ATen's to() converts, in
 * the out's dim order. */
opgen_status opgen_portable__to_copy_out(opgen_ctx *ctx, const opgen_tensor *self, bool non_blocking,
                                         const int32_t *memory_format, opgen_tensor *out) {
    (void)non_blocking;
    opgen_dtype dtype = opgen_result_dtype(ctx, out, self->dtype);
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable__to_copy_out, dtype, "the result");
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable__to_copy_out, self->dtype, "the input");
    (void)memory_format; /* the out's order (a .pte's) or contiguous: the values are the same */
    opgen_status st = opgen_out_any(ctx, out, dtype, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    return opgen_copy(ctx, out, self);
}
