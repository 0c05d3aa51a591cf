/* sort and topk along one dimension: each slice is copied out (typed), its
 * indices merge-sorted (stable: equal values keep their order, as ATen's stable
 * sort), and values and indices written back. NaN orders above every number, as
 * in ATen. */
#include "opgen/loops.h"
#include "opgen_registry.h"

/* a before b: ascending, or (desc) descending; NaN is the largest value */
#define SORT_BEFORE(a, b, desc) \
    ((desc) ? ((a) > (b) || ((a) != (a) && (b) == (b))) : ((a) < (b) || ((b) != (b) && (a) == (a))))

/* Bottom-up merge sort of idx[0..n) by v[idx[.]], stable; tmp holds n. */
#define SORT_INDICES(T, v, idx, tmp, n, desc)                                                                  \
    do {                                                                                                       \
        int64_t *src_ = (idx), *dst_ = (tmp);                                                                  \
        for (int64_t w_ = 1; w_ < (n); w_ *= 2) {                                                              \
            for (int64_t lo_ = 0; lo_ < (n); lo_ += 2 * w_) {                                                  \
                int64_t mid_ = lo_ + w_ < (n) ? lo_ + w_ : (n), hi_ = lo_ + 2 * w_ < (n) ? lo_ + 2 * w_ : (n); \
                int64_t i_ = lo_, j_ = mid_, k_ = lo_;                                                         \
                while (i_ < mid_ && j_ < hi_) {                                                                \
                    T a_ = (v)[src_[i_]], b_ = (v)[src_[j_]];                                                  \
                    dst_[k_++] = SORT_BEFORE(b_, a_, desc) ? src_[j_++] : src_[i_++];                          \
                }                                                                                              \
                while (i_ < mid_) dst_[k_++] = src_[i_++];                                                     \
                while (j_ < hi_) dst_[k_++] = src_[j_++];                                                      \
            }                                                                                                  \
            int64_t *t_ = src_;                                                                                \
            src_ = dst_, dst_ = t_;                                                                            \
        }                                                                                                      \
        if (src_ != (idx)) memcpy((idx), src_, sizeof(int64_t) * (size_t)(n));                                 \
    } while (0)

/* The first k of each sorted slice of self along dim into values and indices
 * (k = the slice's length: sort). */
OPGEN_SPECIALIZED opgen_status sort_slices(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self, int64_t dim,
                                           int64_t k, bool desc, bool topk, opgen_tensor *values,
                                           opgen_tensor *indices) {
    int32_t d;
    int32_t nd = self->dim ? self->dim : 1;
    if (opgen_wrap_dim(ctx, dim, nd, &d)) return ctx->err->code;
    int64_t len = self->dim ? self->sizes[d] : 1, stride = self->dim ? self->strides[d] : 1;
    if (topk && (k < 0 || k > len))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: selected index k out of range", ctx->op);
    if (!topk) k = len;
    int64_t sizes[OPGEN_MAX_DIM];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->dim);
    if (self->dim) sizes[d] = k;
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, values, self->dtype, self->dim, sizes);
    if (!st) st = opgen_out(ctx, indices, OPGEN_DTYPE_Long, self->dim, sizes);
    if (st) return st;
    size_t es = (size_t)opgen_dtype_size(self->dtype);
    void *buf = opgen_scratch(ctx, es * (size_t)len);
    int64_t *idx = opgen_scratch(ctx, sizeof(int64_t) * (size_t)len),
            *tmp = opgen_scratch(ctx, sizeof(int64_t) * (size_t)len);
    if (ctx->meta || opgen_numel(values) == 0) return OPGEN_OK;
    if (!buf || !idx || !tmp) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    /* every slice: the index of its first element in self, walked over the other dims */
    int64_t outer[OPGEN_MAX_DIM], pos[OPGEN_MAX_DIM] = {0};
    int32_t no = 0;
    int64_t count = 1, ostride[OPGEN_MAX_DIM];
    for (int32_t i = 0; i < self->dim; i++)
        if (i != d) outer[no] = self->sizes[i], ostride[no++] = self->strides[i], count *= self->sizes[i];
    int64_t inner = 1; /* the outs are contiguous: a slice's elements are `inner` apart */
    for (int32_t i = d + 1; i < self->dim; i++) inner *= sizes[i];
    OPGEN_REAL_SWITCH(mask, self->dtype, ctx, T, {
        const T *x = self->data;
        T *v = buf, *ov = values->data;
        int64_t *oi = indices->data;
        for (int64_t s = 0; s < count; s++) {
            int64_t off = 0;
            for (int32_t i = 0; i < no; i++) off += pos[i] * ostride[i];
            for (int64_t j = 0; j < len; j++) v[j] = x[off + j * stride], idx[j] = j;
            SORT_INDICES(T, v, idx, tmp, len, desc);
            int64_t base = (s / inner) * inner * k + s % inner; /* the slice's first element in the outs */
            for (int64_t j = 0; j < k; j++) ov[base + j * inner] = v[idx[j]], oi[base + j * inner] = idx[j];
            for (int32_t i = no - 1; i >= 0; i--) {
                if (++pos[i] < outer[i]) break;
                pos[i] = 0;
            }
        }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_sort_values(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, bool descending,
                                        opgen_tensor *values, opgen_tensor *indices) {
    return sort_slices(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_sort_values, self, dim, 0, descending, false, values,
                       indices);
}

/* topk: the k largest (or smallest) in order; sorted=False allows any order,
 * and gets the sorted one */
opgen_status opgen_portable_topk_values(opgen_ctx *ctx, const opgen_tensor *self, int64_t k, int64_t dim, bool largest,
                                        bool sorted, opgen_tensor *values, opgen_tensor *indices) {
    (void)sorted;
    return sort_slices(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_topk_values, self, dim, k, largest, true, values,
                       indices);
}
