/* Indexing: embedding (rows of weight gathered by Int or Long indices). */
#include "opgen/loops.h"
#include "opgen_registry.h"

opgen_status opgen_portable_embedding_out(opgen_ctx *ctx, const opgen_tensor *weight, const opgen_tensor *indices,
                                          int64_t padding_idx, bool scale_grad_by_freq, bool sparse,
                                          opgen_tensor *out) {
    (void)padding_idx, (void)scale_grad_by_freq, (void)sparse; /* these only change gradients */
    if (weight->dim != 2)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: weight must be 2-d, got %d-d", ctx->op, (int)weight->dim);
    if (indices->dtype != OPGEN_DTYPE_Long && indices->dtype != OPGEN_DTYPE_Int)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: indices must be Int or Long, not %s", ctx->op,
                          opgen_dtype_name(indices->dtype));
    if (indices->dim + 1 > OPGEN_MAX_DIM) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: too many dimensions", ctx->op);
    int64_t sizes[OPGEN_MAX_DIM];
    memcpy(sizes, indices->sizes, sizeof(int64_t) * (size_t)indices->dim);
    sizes[indices->dim] = weight->sizes[1];
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_embedding_out, weight->dtype, "weight");
    opgen_status st = opgen_out(ctx, out, weight->dtype, indices->dim + 1, sizes);
    if (st) return st;
    /* indices in logical order: in place when contiguous, else copied (scratch) */
    bool dense = opgen_tensor_is_contiguous(indices);
    opgen_tensor ids = *indices;
    ids.data = dense ? indices->data : opgen_scratch(ctx, opgen_nbytes(indices));
    if (ctx->meta) return OPGEN_OK;
    if (!ids.data) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    if (!dense && (opgen_tensor_shape(&ids, indices->dtype, indices->dim, indices->sizes, ctx->err) ||
                   opgen_copy(ctx, &ids, indices)))
        return ctx->err->code;
    /* each row a copy of weight's row */
    int64_t V = weight->sizes[0], D = weight->sizes[1], n = opgen_numel(indices);
    size_t es = (size_t)opgen_dtype_size(weight->dtype), ies = (size_t)opgen_dtype_size(indices->dtype);
    opgen_tensor row = *weight, dst = *out;
    row.dim = dst.dim = 1;
    row.sizes[0] = dst.sizes[0] = D;
    row.strides[0] = weight->strides[1], dst.strides[0] = 1;
    for (int64_t b = 0; b < n; b += OPGEN_BLOCK) {
        int64_t m = n - b < OPGEN_BLOCK ? n - b : OPGEN_BLOCK, id[OPGEN_BLOCK];
        opgen_convert_i64(id, (const char *)ids.data + (size_t)b * ies, (int64_t)ies, indices->dtype, m);
        for (int64_t k = 0; k < m; k++) {
            if (id[k] < 0 || id[k] >= V)
                return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: index %lld is out of range for %lld embeddings", ctx->op,
                                  (long long)id[k], (long long)V);
            row.data = (char *)weight->data + (size_t)(id[k] * weight->strides[0]) * es;
            dst.data = (char *)out->data + (size_t)((b + k) * D) * es;
            if (weight->strides[1] == 1 || D <= 1)
                memcpy(dst.data, row.data, (size_t)D * es);
            else if (opgen_copy(ctx, &dst, &row))
                return ctx->err->code;
        }
    }
    return OPGEN_OK;
}

/* ---- index_select, gather, scatter (src, value, add) ---- */

/* An index tensor's values as int64, each checked against n (negatives count
 * from the end, as in ATen's index_select; gather and scatter refuse them). */
static opgen_status index_at(opgen_ctx *ctx, const opgen_tensor *index, int64_t off, int64_t n, bool negative_ok,
                             int64_t *v) {
    int64_t i =
        index->dtype == OPGEN_DTYPE_Int ? ((const int32_t *)index->data)[off] : ((const int64_t *)index->data)[off];
    if (negative_ok && i < 0) i += n;
    if (i < 0 || i >= n)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: index %lld is out of bounds for a dimension of size %lld", ctx->op,
                          (long long)i, (long long)n);
    *v = i;
    return OPGEN_OK;
}

opgen_status opgen_portable_index_select_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim,
                                             const opgen_tensor *index, opgen_tensor *out) {
    int32_t d = 0;
    if (self->dim && opgen_wrap_dim(ctx, dim, self->dim, &d)) return ctx->err->code;
    if (!self->dim && dim != 0 && dim != -1)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: dimension %lld is out of range for a 0-d tensor", ctx->op,
                          (long long)dim);
    if (index->dim > 1)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: index must be 0-d or 1-d, got %d-d", ctx->op, (int)index->dim);
    if (index->dtype != OPGEN_DTYPE_Int && index->dtype != OPGEN_DTYPE_Long)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: index must be Int or Long, not %s", ctx->op,
                          opgen_dtype_name(index->dtype));
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_index_select_out, self->dtype, "the input");
    int64_t sizes[OPGEN_MAX_DIM], n = opgen_numel(index);
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->dim);
    if (self->dim) sizes[d] = n;
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, sizes);
    if (st || ctx->meta) return st;
    int64_t istride = index->dim ? index->strides[0] : 0;
    for (int64_t k = 0; k < n; k++) { /* out's slice k along d = self's slice index[k] */
        int64_t i = 0;
        if (index_at(ctx, index, k * istride, self->dim ? self->sizes[d] : 1, true, &i)) return ctx->err->code;
        opgen_tensor a = *out, b = *self;
        if (self->dim) {
            a.sizes[d] = b.sizes[d] = 1;
            a.data = (char *)out->data + k * out->strides[d] * opgen_dtype_size(out->dtype);
            b.data = (char *)self->data + i * self->strides[d] * opgen_dtype_size(self->dtype);
        }
        if (opgen_copy_same(ctx, &a, &b)) return ctx->err->code;
    }
    return OPGEN_OK;
}

typedef enum { G_GATHER, G_SCATTER, G_SCATTER_VALUE, G_SCATTER_ADD } gatherop;

/* Checks of gather and scatter: index (Long) has self's rank and, beside dim, no
 * larger sizes than self (gather) or src (scatter). */
static opgen_status gather_check(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, const opgen_tensor *index,
                                 const opgen_tensor *src, int32_t *d) {
    if (index->dtype != OPGEN_DTYPE_Long)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: index must be Long, not %s", ctx->op,
                          opgen_dtype_name(index->dtype));
    int32_t rank = self->dim ? self->dim : 1;
    if ((index->dim ? index->dim : 1) != rank)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: index has %d dims, self %d", ctx->op, (int)index->dim,
                          (int)self->dim);
    if (opgen_wrap_dim(ctx, dim, self->dim, d)) return ctx->err->code;
    for (int32_t i = 0; i < index->dim; i++) {
        if (i != *d && self->dim && index->sizes[i] > self->sizes[i])
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: index has size %lld in dimension %d, self %lld", ctx->op,
                              (long long)index->sizes[i], (int)i, (long long)self->sizes[i]);
        if (src && src->dim == index->dim && index->sizes[i] > src->sizes[i])
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: index has size %lld in dimension %d, src %lld", ctx->op,
                              (long long)index->sizes[i], (int)i, (long long)src->sizes[i]);
    }
    if (src && src->dim != index->dim && opgen_numel(index))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: src has %d dims, index %d", ctx->op, (int)src->dim, (int)index->dim);
    if (src && src->dtype != self->dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: src has dtype %s, self %s", ctx->op, opgen_dtype_name(src->dtype),
                          opgen_dtype_name(self->dtype));
    return OPGEN_OK;
}

/* For every element of index (in order): gather reads self at the index along d,
 * the scatters write out there (later elements win, as in ATen's CPU loop). */
OPGEN_SPECIALIZED opgen_status gather_scatter(opgen_ctx *ctx, uint32_t mask, gatherop op, const opgen_tensor *self,
                                              int32_t d, const opgen_tensor *index, const opgen_tensor *src,
                                              const opgen_scalar *value, opgen_tensor *out) {
    int64_t idx[OPGEN_MAX_DIM] = {0}, n = opgen_numel(index), nd = self->dim ? self->sizes[d] : 1;
    opgen_dtype dt = self->dtype; /* Half and BFloat16 are only moved: as the 2-byte UInt16 */
    if (dt == OPGEN_DTYPE_Half || dt == OPGEN_DTYPE_BFloat16) {
        if (OPGEN_HAS(mask, dt)) mask |= 1u << OPGEN_DTYPE_UInt16;
        dt = OPGEN_DTYPE_UInt16;
    }
    OPGEN_REAL_SWITCH(mask, dt, ctx, T, {
        T *y = out->data;
        const T *x = self->data, *s = src ? src->data : NULL;
        T v = value ? (value->dtype == OPGEN_DTYPE_Double ? (T)opgen_scalar_f64(value) : (T)opgen_scalar_i64(value))
                    : (T)0;
        for (int64_t k = 0; k < n; k++, opgen_index_next(index->dim, index->sizes, idx)) {
            int64_t i = 0, io = 0, oo = 0, so = 0, xo = 0;
            for (int32_t j = 0; j < index->dim; j++) io += idx[j] * index->strides[j];
            if (index_at(ctx, index, io, nd, false, &i)) return ctx->err->code;
            for (int32_t j = 0; j < self->dim; j++) {
                int64_t at = j == d ? i : idx[j];
                oo += (op == G_GATHER ? idx[j] : at) * out->strides[j];
                xo += at * self->strides[j];
                if (s) so += idx[j] * src->strides[j];
            }
            if (op == G_GATHER)
                y[oo] = x[xo];
            else if (op == G_SCATTER)
                y[oo] = s[so];
            else if (op == G_SCATTER_VALUE)
                y[oo] = v;
            else
                y[oo] = OPGEN_ADD(T, y[oo], s[so]);
        }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_gather_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, const opgen_tensor *index,
                                       bool sparse_grad, opgen_tensor *out) {
    (void)sparse_grad;
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_gather_out;
    int32_t d;
    if (gather_check(ctx, self, dim, index, NULL, &d)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, index->dim, index->sizes);
    if (st || ctx->meta) return st;
    return gather_scatter(ctx, mask, G_GATHER, self, d, index, NULL, NULL, out);
}

/* out = self, then the scatter into out */
OPGEN_SPECIALIZED opgen_status scatter(opgen_ctx *ctx, uint32_t mask, gatherop op, const opgen_tensor *self,
                                       int64_t dim, const opgen_tensor *index, const opgen_tensor *src,
                                       const opgen_scalar *value, opgen_tensor *out) {
    int32_t d;
    if (gather_check(ctx, self, dim, index, src, &d)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    if (opgen_copy_same(ctx, out, self)) return ctx->err->code;
    return gather_scatter(ctx, mask, op, self, d, index, src, value, out);
}
opgen_status opgen_portable_scatter_src_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim,
                                            const opgen_tensor *index, const opgen_tensor *src, opgen_tensor *out) {
    return scatter(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_scatter_src_out, G_SCATTER, self, dim, index, src, NULL,
                   out);
}
opgen_status opgen_portable_scatter_value_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim,
                                              const opgen_tensor *index, const opgen_scalar *value, opgen_tensor *out) {
    return scatter(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_scatter_value_out, G_SCATTER_VALUE, self, dim, index, NULL,
                   value, out);
}
opgen_status opgen_portable_scatter_add_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim,
                                            const opgen_tensor *index, const opgen_tensor *src, opgen_tensor *out) {
    return scatter(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_scatter_add_out, G_SCATTER_ADD, self, dim, index, src, NULL,
                   out);
}

/* scatter_reduce: out = self; the positions index names along dim combine src's
 * elements by sum, prod, mean, amax or amin (NaN sticks, as in ATen), starting
 * from self's value (include_self) or from the first src element. mean divides
 * by the count (floor division for integers), positions nothing reaches keep
 * self's value. */
typedef enum { SR_SUM, SR_PROD, SR_MEAN, SR_AMAX, SR_AMIN } sreduce;

opgen_status opgen_portable_scatter_reduce_two_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim,
                                                   const opgen_tensor *index, const opgen_tensor *src,
                                                   const char *reduce, bool include_self, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_scatter_reduce_two_out;
    static const char *const names[] = {"sum", "prod", "mean", "amax", "amin"};
    int r = -1;
    for (int k = 0; k < 5; k++)
        if (reduce && !strcmp(reduce, names[k])) r = k;
    if (r < 0)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID,
                          "%s: reduce argument must be either sum, prod, mean, amax or amin, got %s", ctx->op,
                          reduce ? reduce : "None");
    int32_t d;
    if (gather_check(ctx, self, dim, index, src, &d)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, self->sizes);
    int64_t *count = opgen_scratch(ctx, sizeof(int64_t) * (size_t)(opgen_numel(self) + 1));
    if (st || ctx->meta) return st;
    if (!count) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    if (opgen_copy_same(ctx, out, self)) return ctx->err->code;
    int64_t n = opgen_numel(index), nd = self->dim ? self->sizes[d] : 1, total = opgen_numel(out);
    for (int64_t k = 0; k < total; k++) count[k] = include_self ? 1 : 0;
    OPGEN_REAL_SWITCH(mask, self->dtype, ctx, T, {
        T *y = out->data;
        const T *s = src->data;
        int64_t idx[OPGEN_MAX_DIM] = {0};
        for (int64_t k = 0; k < n; k++, opgen_index_next(index->dim, index->sizes, idx)) {
            int64_t i = 0, io = 0, oo = 0, so = 0;
            for (int32_t j = 0; j < index->dim; j++) io += idx[j] * index->strides[j];
            if (index_at(ctx, index, io, nd, false, &i)) return ctx->err->code;
            for (int32_t j = 0; j < self->dim; j++)
                oo += (j == d ? i : idx[j]) * out->strides[j], so += idx[j] * src->strides[j];
            T v = s[so], *at = &y[oo];
            if (count[oo]++ == 0) { /* the first value at a position self does not start */
                *at = v;
                continue;
            }
            switch (r) {
            case SR_SUM:
            case SR_MEAN: *at = OPGEN_ADD(T, *at, v); break;
            case SR_PROD: *at = OPGEN_MUL(T, *at, v); break;
            case SR_AMAX: *at = v != v ? v : *at < v ? v : *at; break;
            default: *at = v != v ? v : v < *at ? v : *at; break;
            }
        }
        if (r == SR_MEAN) /* out is contiguous: count is indexed like it */
            for (int64_t k = 0; k < total; k++) {
                if (count[k] <= 1) continue;
                if ((T)0.5 != (T)0)
                    y[k] = (T)(y[k] / (T)count[k]);
                else
                    y[k] = (T)(int64_t)floor((double)y[k] / (double)count[k]);
            }
    })
    return OPGEN_OK;
}

/* masked_scatter: out = self, and where mask (broadcast to self) is set, in
 * order, the next element of source. */
opgen_status opgen_portable_masked_scatter_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *mask_t,
                                               const opgen_tensor *source, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_masked_scatter_out;
    if (mask_t->dtype != OPGEN_DTYPE_Bool)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE,
                          "%s: masked_scatter_ only supports boolean masks, but got mask with dtype %s", ctx->op,
                          opgen_dtype_name(mask_t->dtype));
    if (source->dtype != self->dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE,
                          "%s: masked_scatter: expected self and source to have same dtypes but got %s and %s", ctx->op,
                          opgen_dtype_name(self->dtype), opgen_dtype_name(source->dtype));
    int32_t bd;
    int64_t bs[OPGEN_MAX_DIM];
    if (opgen_broadcast(ctx, self, mask_t, &bd, bs)) return ctx->err->code;
    if (bd != self->dim || memcmp(bs, self->sizes, sizeof(int64_t) * (size_t)bd))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the mask must broadcast to self's shape", ctx->op);
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, self->sizes);
    opgen_tensor src;
    if (st || opgen_contiguous(ctx, source, &src) || ctx->meta) return st ? st : ctx->err->code;
    if ((st = opgen_copy_same(ctx, out, self))) return st;
    int64_t n = opgen_numel(out), avail = opgen_numel(&src), used = 0, idx[OPGEN_MAX_DIM] = {0};
    const bool *m = mask_t->data;
    OPGEN_REAL_SWITCH(mask, self->dtype, ctx, T, {
        T *y = out->data;
        const T *s = src.data;
        for (int64_t k = 0; k < n; k++, opgen_index_next(self->dim, self->sizes, idx)) {
            if (!m[opgen_bcast_offset(mask_t, self->dim, idx)]) continue;
            if (used == avail)
                return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: number of elements in source < number of ones in mask",
                                  ctx->op);
            y[k] = s[used++];
        }
    })
    return OPGEN_OK;
}

/* An auxiliary result of _embedding_bag (offset2bag, bag_size, max_indices):
 * a program that planned it empty (ExecuTorch does where PyTorch leaves it
 * empty without gradients) keeps it empty (*keep false); else it is sized. */
static opgen_status aux_out(opgen_ctx *ctx, opgen_tensor *t, int32_t dim, const int64_t *sizes, bool *keep) {
    *keep = !((t->capacity || t->data) && opgen_numel(t) == 0);
    return *keep ? opgen_out(ctx, t, OPGEN_DTYPE_Long, dim, sizes) : OPGEN_OK;
}

/* _embedding_bag: bag b reduces the weight rows of indices[offsets[b] ..
 * offsets[b + 1]) (the last bag to the end, unless include_last_offset), skipping
 * padding_idx: mode 0 sums (times per_sample_weights when given), 1 averages, 2
 * takes the elementwise max (its row index in max_indices); an empty bag is
 * zeros. offset2bag is each index's bag, bag_size each bag's count, unless the
 * program planned them empty. (ATen's own auxiliary results vary with its code
 * path and serve its backward.) */
opgen_status opgen_portable__embedding_bag_out(opgen_ctx *ctx, const opgen_tensor *weight, const opgen_tensor *indices,
                                               const opgen_tensor *offsets, bool scale_grad_by_freq, int64_t mode,
                                               bool sparse, const opgen_tensor *per_sample_weights,
                                               bool include_last_offset, int64_t padding_idx, opgen_tensor *out0,
                                               opgen_tensor *out1, opgen_tensor *out2, opgen_tensor *out3) {
    (void)scale_grad_by_freq, (void)sparse;
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable__embedding_bag_out;
    if (weight->dim != 2 || indices->dim != 1 || offsets->dim != 1)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected a 2-d weight and 1-d indices and offsets", ctx->op);
    if (indices->dtype != OPGEN_DTYPE_Long || offsets->dtype != OPGEN_DTYPE_Long)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: indices and offsets must be Long", ctx->op);
    if (mode < 0 || mode > 2)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: mode must be 0 (sum), 1 (mean) or 2 (max), got %lld", ctx->op,
                          (long long)mode);
    if (per_sample_weights && (mode != 0 || opgen_numel(per_sample_weights) != opgen_numel(indices) ||
                               per_sample_weights->dtype != weight->dtype))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID,
                          "%s: per_sample_weights are only supported for mode='sum', one per index, in weight's dtype",
                          ctx->op);
    int64_t n = indices->sizes[0], nb = offsets->sizes[0] - (include_last_offset ? 1 : 0), D = weight->sizes[1],
            rows = weight->sizes[0];
    if (nb < 0) nb = 0;
    OPGEN_CHECK_DTYPE(ctx, mask, weight->dtype, "weight");
    int64_t s0[2] = {nb, D}, s1 = n, s2 = nb, s3[2] = {nb, D};
    opgen_status st = opgen_out(ctx, out0, weight->dtype, 2, s0);
    bool k1 = true, k2 = true, k3 = true; /* the auxiliary results kept (not planned empty) */
    if (!st) st = aux_out(ctx, out1, 1, &s1, &k1);
    if (!st) st = aux_out(ctx, out2, 1, &s2, &k2);
    if (!st) st = mode == 2 ? aux_out(ctx, out3, 2, s3, &k3) : aux_out(ctx, out3, 1, &s2, &k3);
    opgen_tensor ix, of, w, pw;
    if (st || opgen_contiguous(ctx, indices, &ix) || opgen_contiguous(ctx, offsets, &of) ||
        opgen_contiguous(ctx, weight, &w) || (per_sample_weights && opgen_contiguous(ctx, per_sample_weights, &pw)) ||
        ctx->meta)
        return st ? st : ctx->err->code;
    const int64_t *I = ix.data, *O = of.data;
    int64_t *bag_of = k1 ? out1->data : NULL, *size = k2 ? out2->data : NULL, *maxi = k3 ? out3->data : NULL;
    if (maxi) memset(maxi, 0, opgen_nbytes(out3));
    OPGEN_FLOAT_SWITCH(mask, weight->dtype, ctx, T, {
        const T *W = w.data, *P = per_sample_weights ? (const T *)pw.data : NULL;
        T *y = out0->data;
        for (int64_t b = 0; b < nb; b++) {
            int64_t lo = O[b], hi = b + 1 < offsets->sizes[0] ? O[b + 1] : n, count = 0;
            if (lo < 0 || hi > n || lo > hi)
                return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: offsets must be ascending within [0, %lld]", ctx->op,
                                  (long long)n);
            T *row = y + b * D;
            for (int64_t j = 0; j < D; j++) row[j] = 0;
            for (int64_t i = lo; i < hi; i++) {
                if (bag_of) bag_of[i] = b;
                if (I[i] < 0 || I[i] >= rows)
                    return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: index %lld is out of range for %lld embeddings",
                                      ctx->op, (long long)I[i], (long long)rows);
                if (I[i] == padding_idx) continue;
                const T *src = W + I[i] * D;
                for (int64_t j = 0; j < D; j++) {
                    if (mode == 2) {
                        if (count == 0 || src[j] > row[j]) {
                            row[j] = src[j];
                            if (maxi) maxi[b * D + j] = I[i];
                        }
                    } else {
                        row[j] += P ? src[j] * P[i] : src[j];
                    }
                }
                count++;
            }
            if (mode == 1 && count)
                for (int64_t j = 0; j < D; j++) row[j] /= (T)count;
            if (size) size[b] = count;
        }
    })
    return OPGEN_OK;
}
