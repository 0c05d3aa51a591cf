/* Reductions that are not sums: amax, amin, any, prod, argmax, argmin, max.dim,
 * min.dim, var, and the scan cumsum. Each walks, for every element of the result
 * (written in order, contiguous), the input elements it reduces: an index walk
 * over the kept dimensions outside and the reduced ones inside, in the input's
 * own strides, a typed loop per dtype. NaN wins in max and min (and its index in
 * the arg forms), ties give the first index, as in ATen; var accumulates in double
 * (ATen's CPU Welford accumulates in double too), two passes. */
#include "opgen/loops.h"
#include "opgen_registry.h"

typedef struct walker {
    int32_t n;
    int64_t size[OPGEN_MAX_DIM], stride[OPGEN_MAX_DIM], idx[OPGEN_MAX_DIM];
    int64_t off, count; /* element offset now; elements walked per round */
} walker;

static inline void walk_next(walker *w) {
    for (int32_t d = w->n - 1; d >= 0; d--) {
        w->off += w->stride[d];
        if (++w->idx[d] < w->size[d]) return;
        w->off -= w->stride[d] * w->size[d];
        w->idx[d] = 0;
    }
}

/* The walkers over t's kept (outer) and reduced (inner) dimensions, and the
 * result's shape (keepdim: reduced dimensions of size 1). */
static void walkers(const opgen_tensor *t, const bool *red, bool keepdim, walker *outer, walker *inner, int32_t *dim,
                    int64_t *sizes) {
    memset(outer, 0, sizeof *outer);
    memset(inner, 0, sizeof *inner);
    outer->count = inner->count = 1;
    *dim = 0;
    for (int32_t i = 0; i < t->dim; i++) {
        walker *w = red[i] ? inner : outer;
        w->size[w->n] = t->sizes[i];
        w->stride[w->n++] = t->strides[i];
        w->count *= t->sizes[i];
        if (!red[i] || keepdim) sizes[(*dim)++] = red[i] ? 1 : t->sizes[i];
    }
}

typedef enum { R_AMAX, R_AMIN, R_ANY, R_PROD } foldop;

/* any and prod: the input read in its own dtype (any: Bool or Byte, 0 or 1;
 * prod: Long from integers, wrapping, or the float type itself). */
static opgen_status any_prod(opgen_ctx *ctx, foldop op, const opgen_tensor *self, opgen_dtype res, walker *o,
                             walker *in, opgen_tensor *out) {
    OPGEN_REAL_SWITCH(OPGEN_REAL_DTYPES, self->dtype, ctx, T, {
        const T *x = self->data;
        for (int64_t k = 0; k < o->count; k++, walk_next(o)) {
            in->off = 0;
            memset(in->idx, 0, sizeof in->idx);
            if (op == R_ANY) { /* Bool or Byte: one byte, 0 or 1 */
                bool acc = false;
                for (int64_t j = 0; j < in->count && !acc; j++, walk_next(in)) acc = x[o->off + in->off] != (T)0;
                ((uint8_t *)out->data)[k] = acc;
            } else if (res == OPGEN_DTYPE_Long) {
                uint64_t acc = 1; /* wrapping */
                for (int64_t j = 0; j < in->count; j++, walk_next(in)) acc *= (uint64_t)(int64_t)x[o->off + in->off];
                ((int64_t *)out->data)[k] = (int64_t)acc;
            } else {
                T acc = 1;
                for (int64_t j = 0; j < in->count; j++, walk_next(in)) acc = OPGEN_MUL(T, acc, x[o->off + in->off]);
                ((T *)out->data)[k] = acc;
            }
        }
    })
    return OPGEN_OK;
}

/* amax, amin, any and prod over the dimensions red marks. */
OPGEN_SPECIALIZED opgen_status fold(opgen_ctx *ctx, uint32_t mask, foldop op, const opgen_tensor *self, const bool *red,
                                    bool keepdim, opgen_dtype res, opgen_tensor *out) {
    walker o, in;
    int32_t dim;
    int64_t sizes[OPGEN_MAX_DIM];
    walkers(self, red, keepdim, &o, &in, &dim, sizes);
    if ((op == R_AMAX || op == R_AMIN) && in.count == 0 && o.count)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: cannot reduce over a dimension of size 0", ctx->op);
    if (op == R_PROD && res != OPGEN_DTYPE_Long && res != self->dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: a %s product of a %s tensor is not implemented", ctx->op,
                          opgen_dtype_name(res), opgen_dtype_name(self->dtype));
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    opgen_status st = opgen_out(ctx, out, res, dim, sizes);
    if (st || ctx->meta) return st;
    if (op == R_ANY || op == R_PROD) return any_prod(ctx, op, self, res, &o, &in, out);
    OPGEN_REAL_SWITCH(mask, res, ctx, T, {
        const T *x = self->data;
        T *y = out->data;
        for (int64_t k = 0; k < o.count; k++, walk_next(&o)) {
            in.off = 0;
            memset(in.idx, 0, sizeof in.idx);
            T acc = x[o.off];
            for (int64_t j = 0; j < in.count; j++, walk_next(&in)) {
                T v = x[o.off + in.off];
                if (OPGEN_ISNAN(T, acc)) break;
                if (OPGEN_ISNAN(T, v) || (op == R_AMAX ? v > acc : v < acc)) acc = v;
            }
            y[k] = acc;
        }
    })
    return OPGEN_OK;
}

static opgen_status dims_of(opgen_ctx *ctx, const opgen_tensor *self, const opgen_int_list *dims, bool *red) {
    return opgen_reduced_dims(ctx, self, dims, red);
}
static opgen_status one_dim(opgen_ctx *ctx, const opgen_tensor *self, int64_t d, bool *red) {
    int64_t v[1] = {d};
    opgen_int_list l = {v, 1};
    return opgen_reduced_dims(ctx, self, &l, red);
}

opgen_status opgen_portable_amax_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list dim, bool keepdim,
                                     opgen_tensor *out) {
    bool red[OPGEN_MAX_DIM];
    if (dims_of(ctx, self, &dim, red)) return ctx->err->code;
    return fold(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_amax_out, R_AMAX, self, red, keepdim, self->dtype, out);
}
opgen_status opgen_portable_amin_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list dim, bool keepdim,
                                     opgen_tensor *out) {
    bool red[OPGEN_MAX_DIM];
    if (dims_of(ctx, self, &dim, red)) return ctx->err->code;
    return fold(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_amin_out, R_AMIN, self, red, keepdim, self->dtype, out);
}

/* any: Bool, or Byte for a Byte input (ATen keeps uint8) */
static opgen_dtype any_dtype(const opgen_tensor *self) {
    return self->dtype == OPGEN_DTYPE_Byte ? OPGEN_DTYPE_Byte : OPGEN_DTYPE_Bool;
}
opgen_status opgen_portable_any_all_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    bool red[OPGEN_MAX_DIM];
    if (dims_of(ctx, self, NULL, red)) return ctx->err->code;
    return fold(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_any_all_out, R_ANY, self, red, false, any_dtype(self), out);
}
opgen_status opgen_portable_any_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, bool keepdim,
                                    opgen_tensor *out) {
    bool red[OPGEN_MAX_DIM];
    if (one_dim(ctx, self, dim, red)) return ctx->err->code;
    return fold(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_any_out, R_ANY, self, red, keepdim, any_dtype(self), out);
}
opgen_status opgen_portable_any_dims_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_int_list *dim,
                                         bool keepdim, opgen_tensor *out) {
    bool red[OPGEN_MAX_DIM];
    if (dims_of(ctx, self, dim, red)) return ctx->err->code;
    return fold(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_any_dims_out, R_ANY, self, red, keepdim, any_dtype(self), out);
}

/* prod: integers and Bool as Long, floats in their own type; or the dtype given */
static opgen_dtype prod_dtype(const opgen_tensor *self, const opgen_dtype *dtype) {
    return dtype ? *dtype : opgen_is_integral(self->dtype, true) ? OPGEN_DTYPE_Long : self->dtype;
}
opgen_status opgen_portable_prod_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_dtype *dtype,
                                     opgen_tensor *out) {
    bool red[OPGEN_MAX_DIM];
    if (dims_of(ctx, self, NULL, red)) return ctx->err->code;
    return fold(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_prod_out, R_PROD, self, red, false, prod_dtype(self, dtype),
                out);
}
opgen_status opgen_portable_prod_int_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, bool keepdim,
                                         const opgen_dtype *dtype, opgen_tensor *out) {
    bool red[OPGEN_MAX_DIM];
    if (one_dim(ctx, self, dim, red)) return ctx->err->code;
    return fold(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_prod_int_out, R_PROD, self, red, keepdim,
                prod_dtype(self, dtype), out);
}

/* The value (when values) and Long index (when indices) of the largest (max) or
 * smallest element along the reduced dimensions; dim None reduces all, indexing
 * the flattened input. */
OPGEN_SPECIALIZED opgen_status arg_reduce(opgen_ctx *ctx, uint32_t mask, bool max, const opgen_tensor *self,
                                          const bool *red, bool keepdim, opgen_tensor *values, opgen_tensor *indices) {
    walker o, in;
    int32_t dim;
    int64_t sizes[OPGEN_MAX_DIM];
    walkers(self, red, keepdim, &o, &in, &dim, sizes);
    if (in.count == 0) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: cannot reduce over a dimension of size 0", ctx->op);
    if (values) OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the result");
    opgen_status st = values ? opgen_out(ctx, values, self->dtype, dim, sizes) : 0;
    if (!st) st = opgen_out(ctx, indices, OPGEN_DTYPE_Long, dim, sizes);
    if (st || ctx->meta) return st;
    OPGEN_REAL_SWITCH(values ? mask : OPGEN_REAL_DTYPES, self->dtype, ctx, T, {
        const T *x = self->data;
        int64_t *ix = indices->data;
        for (int64_t k = 0; k < o.count; k++, walk_next(&o)) {
            in.off = 0;
            memset(in.idx, 0, sizeof in.idx);
            T acc = x[o.off];
            int64_t at = 0;
            for (int64_t j = 0; j < in.count; j++, walk_next(&in)) {
                T v = x[o.off + in.off];
                if (OPGEN_ISNAN(T, acc)) break;
                if (OPGEN_ISNAN(T, v) || (max ? v > acc : v < acc)) acc = v, at = j;
            }
            if (values) ((T *)values->data)[k] = acc;
            ix[k] = at;
        }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_argmax_out(opgen_ctx *ctx, const opgen_tensor *self, const int64_t *dim, bool keepdim,
                                       opgen_tensor *out) {
    bool red[OPGEN_MAX_DIM];
    if (dim ? one_dim(ctx, self, *dim, red) : dims_of(ctx, self, NULL, red)) return ctx->err->code;
    if (!OPGEN_HAS(OPGEN_KERNEL_DTYPES_opgen_portable_argmax_out, OPGEN_DTYPE_Long))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: the result has dtype Long, which this kernel does not handle",
                          ctx->op);
    return arg_reduce(ctx, 0, true, self, red, keepdim && dim, NULL, out);
}
opgen_status opgen_portable_argmin_out(opgen_ctx *ctx, const opgen_tensor *self, const int64_t *dim, bool keepdim,
                                       opgen_tensor *out) {
    bool red[OPGEN_MAX_DIM];
    if (dim ? one_dim(ctx, self, *dim, red) : dims_of(ctx, self, NULL, red)) return ctx->err->code;
    if (!OPGEN_HAS(OPGEN_KERNEL_DTYPES_opgen_portable_argmin_out, OPGEN_DTYPE_Long))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: the result has dtype Long, which this kernel does not handle",
                          ctx->op);
    return arg_reduce(ctx, 0, false, self, red, keepdim && dim, NULL, out);
}
opgen_status opgen_portable_max_dim_max(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, bool keepdim,
                                        opgen_tensor *max, opgen_tensor *max_values) {
    bool red[OPGEN_MAX_DIM];
    if (one_dim(ctx, self, dim, red)) return ctx->err->code;
    return arg_reduce(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_max_dim_max, true, self, red, keepdim, max, max_values);
}
opgen_status opgen_portable_min_dim_min(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, bool keepdim,
                                        opgen_tensor *min, opgen_tensor *min_indices) {
    bool red[OPGEN_MAX_DIM];
    if (one_dim(ctx, self, dim, red)) return ctx->err->code;
    return arg_reduce(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_min_dim_min, false, self, red, keepdim, min, min_indices);
}

/* var: the squared deviations from the mean over n - correction (ATen: a divisor
 * below 0 counts as 0, giving inf or NaN). */
OPGEN_SPECIALIZED opgen_status variance(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self,
                                        const opgen_int_list *dims, double correction, bool keepdim,
                                        opgen_tensor *out) {
    bool red[OPGEN_MAX_DIM];
    if (opgen_reduced_dims(ctx, self, dims, red)) return ctx->err->code;
    walker o, in;
    int32_t dim;
    int64_t sizes[OPGEN_MAX_DIM];
    walkers(self, red, keepdim, &o, &in, &dim, sizes);
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the result");
    opgen_status st = opgen_out(ctx, out, self->dtype, dim, sizes);
    if (st || ctx->meta) return st;
    double div = (double)in.count - correction > 0 ? (double)in.count - correction : 0;
    OPGEN_FLOAT_SWITCH(mask, self->dtype, ctx, T, {
        const T *x = self->data;
        T *y = out->data;
        for (int64_t k = 0; k < o.count; k++, walk_next(&o)) {
            double sum = 0, m2 = 0;
            in.off = 0;
            memset(in.idx, 0, sizeof in.idx);
            for (int64_t j = 0; j < in.count; j++, walk_next(&in)) sum += (double)x[o.off + in.off];
            double mean = sum / (double)in.count;
            for (int64_t j = 0; j < in.count; j++, walk_next(&in))
                m2 += ((double)x[o.off + in.off] - mean) * ((double)x[o.off + in.off] - mean);
            y[k] = (T)(m2 / div);
        }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_var_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_int_list *dim, bool unbiased,
                                    bool keepdim, opgen_tensor *out) {
    return variance(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_var_out, self, dim, unbiased ? 1 : 0, keepdim, out);
}
opgen_status opgen_portable_var_correction_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_int_list *dim,
                                               const opgen_scalar *correction, bool keepdim, opgen_tensor *out) {
    return variance(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_var_correction_out, self, dim,
                    correction ? opgen_scalar_f64(correction) : 1, keepdim, out);
}

/* cumsum: integers and Bool as Long (or the dtype given), a running sum along dim
 * in ATen's accumulate type (double for floats, 64 bits for integers), each
 * partial sum rounded to the result. */
opgen_status opgen_portable_cumsum_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, const opgen_dtype *dtype,
                                       opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_cumsum_out;
    opgen_dtype res = prod_dtype(self, dtype);
    if (res != OPGEN_DTYPE_Long && res != self->dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: a %s sum of a %s tensor is not implemented", ctx->op,
                          opgen_dtype_name(res), opgen_dtype_name(self->dtype));
    int32_t d;
    if (opgen_wrap_dim(ctx, dim, self->dim, &d)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    opgen_status st = opgen_out(ctx, out, res, self->dim, self->sizes);
    if (st || ctx->meta || !opgen_numel(self)) return st;
    bool red[OPGEN_MAX_DIM] = {false};
    if (self->dim) red[d] = true;
    walker o, in;
    int32_t odim;
    int64_t osizes[OPGEN_MAX_DIM];
    walkers(self, red, true, &o, &in, &odim, osizes);
    int64_t inner = 1; /* out's stride along d, in elements (out is contiguous) */
    for (int32_t i = d + 1; i < self->dim; i++) inner *= self->sizes[i];
    OPGEN_REAL_SWITCH(OPGEN_REAL_DTYPES, self->dtype, ctx, T, {
        const T *x = self->data;
        for (int64_t k = 0; k < o.count; k++, walk_next(&o)) {
            int64_t base = (k / inner) * inner * in.count + k % inner;
            in.off = 0;
            memset(in.idx, 0, sizeof in.idx);
            if (OPGEN_IS_FLOAT_T(T)) {
                double acc = 0;
                T *y = (T *)out->data + base;
                for (int64_t j = 0; j < in.count; j++, walk_next(&in))
                    y[j * inner] = (T)(acc += (double)x[o.off + in.off]);
            } else {
                uint64_t acc = 0; /* Long, wrapping */
                int64_t *y = (int64_t *)out->data + base;
                for (int64_t j = 0; j < in.count; j++, walk_next(&in))
                    y[j * inner] = (int64_t)(acc += (uint64_t)(int64_t)x[o.off + in.off]);
            }
        }
    })
    return OPGEN_OK;
}
