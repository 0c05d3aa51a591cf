/* Advanced indexing: index.Tensor and index_put, ATen's rules. The index list
 * names a Long (or Int) tensor or None per leading dimension; the index tensors
 * broadcast together to shape B. When the indexed dimensions are adjacent, B
 * takes their place in the result; when None separates them, B comes first and
 * the other dimensions follow in order. A bool (or uint8) mask stands for the
 * coordinates of its true elements (expand_masks): the result's size depends on
 * the data, planned at its bound and resized by each run. */
#include "opgen/loops.h"
#include "opgen_registry.h"

typedef struct index_plan {
    int32_t dim;                            /* the result's dims */
    int64_t sizes[OPGEN_MAX_DIM];           /* the result's shape */
    int32_t nb, bpos;                       /* B's dims, where B starts in the result */
    int64_t bsizes[OPGEN_MAX_DIM];          /* B */
    const opgen_tensor *idx[OPGEN_MAX_DIM]; /* per dim of self: its index tensor or NULL */
    int32_t rest[OPGEN_MAX_DIM];            /* for each result dim outside B: the self dim it walks */
} index_plan;

static opgen_status plan_index(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor_list indices, index_plan *p) {
    memset(p, 0, sizeof *p);
    if ((int32_t)indices.len > self->dim)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: too many indices for a %d-d tensor (got %zu)", ctx->op,
                          (int)self->dim, indices.len);
    int32_t first = -1, last = -1, n = 0;
    for (int32_t d = 0; d < (int32_t)indices.len; d++) {
        const opgen_tensor *t = indices.data[d];
        if (!t) continue;
        if (t->dtype != OPGEN_DTYPE_Long && t->dtype != OPGEN_DTYPE_Int)
            return OPGEN_FAIL(ctx, OPGEN_E_DTYPE,
                              "%s: tensors used as indices must be long, int, byte or bool tensors, not %s", ctx->op,
                              opgen_dtype_name(t->dtype));
        /* broadcast into B (numpy rules, aligned at the right) */
        int32_t nd = t->dim > p->nb ? t->dim : p->nb;
        int64_t b[OPGEN_MAX_DIM];
        for (int32_t i = 0; i < nd; i++) {
            int64_t x = i - (nd - p->nb) >= 0 ? p->bsizes[i - (nd - p->nb)] : 1,
                    y = i - (nd - t->dim) >= 0 ? t->sizes[i - (nd - t->dim)] : 1;
            if (x != y && x != 1 && y != 1)
                return OPGEN_FAIL(ctx, OPGEN_E_SHAPE,
                                  "%s: shape mismatch: indexing tensors could not be broadcast together", ctx->op);
            b[i] = x == 1 ? y : x;
        }
        memcpy(p->bsizes, b, sizeof(int64_t) * (size_t)nd);
        p->nb = nd;
        p->idx[d] = t;
        if (first < 0) first = d;
        last = d, n++;
    }
    if (!n) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: at least one index must be a tensor", ctx->op);
    bool adjacent = last - first + 1 == n;
    p->bpos = adjacent ? first : 0;
    int32_t k = 0;
    for (int32_t d = 0; d < self->dim; d++)
        if (!p->idx[d]) p->rest[k++] = d;
    p->dim = self->dim - n + p->nb;
    if (p->dim > OPGEN_MAX_DIM)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the result would have %d dims", ctx->op, (int)p->dim);
    /* the other dims in order around B */
    int64_t sizes[OPGEN_MAX_DIM];
    for (int32_t i = 0, j = 0; i < p->dim; i++)
        sizes[i] = i >= p->bpos && i < p->bpos + p->nb ? p->bsizes[i - p->bpos] : self->sizes[p->rest[j++]];
    memcpy(p->sizes, sizes, sizeof sizes);
    return OPGEN_OK;
}

/* The element offset in self of the result's multi-index r; fails on an index
 * out of range. */
static opgen_status index_offset(opgen_ctx *ctx, const opgen_tensor *self, const index_plan *p, const int64_t *r,
                                 int64_t *off) {
    int64_t o = 0;
    for (int32_t i = 0, j = 0; i < p->dim; i++)
        if (i < p->bpos || i >= p->bpos + p->nb) o += r[i] * self->strides[p->rest[j++]];
    for (int32_t d = 0; d < self->dim; d++) {
        const opgen_tensor *t = p->idx[d];
        if (!t) continue;
        int64_t to = 0; /* t's element at B's index, broadcast */
        for (int32_t i = 0; i < t->dim; i++)
            if (t->sizes[i] != 1) to += r[p->bpos + p->nb - t->dim + i] * t->strides[i];
        int64_t v = t->dtype == OPGEN_DTYPE_Long ? ((const int64_t *)t->data)[to] : ((const int32_t *)t->data)[to];
        if (v < -self->sizes[d] || v >= self->sizes[d])
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: index %lld is out of bounds for dimension %d with size %lld",
                              ctx->op, (long long)v, (int)d, (long long)self->sizes[d]);
        o += (v < 0 ? v + self->sizes[d] : v) * self->strides[d];
    }
    *off = o;
    return OPGEN_OK;
}

/* What a planned out holds of a data-dependent dimension d (the other
 * dimensions as sizes gives them): the bound its program was exported with;
 * INT64_MAX for an out the kernel sizes itself. */
static int64_t planned_rows(const opgen_tensor *out, opgen_dtype dtype, int32_t dim, const int64_t *sizes, int32_t d) {
    int64_t other = opgen_dtype_size(dtype);
    for (int32_t i = 0; i < dim; i++)
        if (i != d) other *= sizes[i];
    return out->capacity && other ? (int64_t)out->capacity / other : INT64_MAX;
}

/* A run's size past the bound: an error naming it. */
static opgen_status bound_check(opgen_ctx *ctx, const opgen_tensor *out, opgen_dtype dtype, int32_t dim,
                                const int64_t *sizes, int32_t d) {
    int64_t rows = planned_rows(out, dtype, dim, sizes, d);
    if (ctx->meta || sizes[d] <= rows) return OPGEN_OK;
    return OPGEN_FAIL(ctx, OPGEN_E_SHAPE,
                      "%s: the result has %lld in dimension %d, past the bound of %lld its program was exported with",
                      ctx->op, (long long)sizes[d], (int)d, (long long)rows);
}

/* At load, a data-dependent dimension d sized for every element is clamped to
 * the bound (torch._check's, which may be smaller). */
static void planned_bound(const opgen_ctx *ctx, const opgen_tensor *out, opgen_dtype dtype, int32_t dim, int64_t *sizes,
                          int32_t d) {
    int64_t rows = planned_rows(out, dtype, dim, sizes, d);
    if (ctx->meta && rows < sizes[d]) sizes[d] = rows;
}

static bool has_mask(opgen_tensor_list l) {
    for (size_t e = 0; e < l.len; e++)
        if (l.data[e] && (l.data[e]->dtype == OPGEN_DTYPE_Bool || l.data[e]->dtype == OPGEN_DTYPE_Byte)) return true;
    return false;
}

/* Bool (or uint8) masks among the indices, as ATen takes them: a k-dim mask over
 * self's dims d .. d+k-1 stands for the k Long index tensors of its true
 * elements' coordinates (nonzero), so the result's shape depends on the data.
 * The coordinates go to scratch (k x the mask's elements, its bound); load
 * plans the result as if every element were true, a run resizes it within
 * that. The expanded list is written to list[] (tensors in store[]). */
static opgen_status expand_masks(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor_list in,
                                 opgen_tensor store[OPGEN_MAX_DIM], const opgen_tensor *list[OPGEN_MAX_DIM],
                                 opgen_tensor_list *out) {
    size_t n = 0;
    for (size_t e = 0, pos = 0; e < in.len; e++) {
        const opgen_tensor *t = in.data[e];
        bool mask = t && (t->dtype == OPGEN_DTYPE_Bool || t->dtype == OPGEN_DTYPE_Byte);
        int32_t k = mask ? t->dim : 1;
        if (mask && k == 0)
            return OPGEN_FAIL(ctx, OPGEN_E_NOT_IMPLEMENTED, "%s: a 0-d boolean index is not supported", ctx->op);
        if (pos + (size_t)k > (size_t)self->dim)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: too many indices for a %d-d tensor", ctx->op, (int)self->dim);
        if (!mask) {
            list[n++] = t, pos++;
            continue;
        }
        for (int32_t i = 0; i < k; i++)
            if (t->sizes[i] != self->sizes[pos + (size_t)i])
                return OPGEN_FAIL(ctx, OPGEN_E_SHAPE,
                                  "%s: the shape of the mask %lld at index %d does not match the shape of the indexed "
                                  "tensor %lld at index %d",
                                  ctx->op, (long long)t->sizes[i], (int)i, (long long)self->sizes[pos + (size_t)i],
                                  (int)(pos + (size_t)i));
        int64_t m = opgen_numel(t), count = 0, idx[OPGEN_MAX_DIM] = {0};
        int64_t *coords = opgen_scratch(ctx, sizeof(int64_t) * (size_t)(m * k));
        if (!ctx->meta && !coords) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
        for (int64_t j = 0; !ctx->meta && j < m; j++, opgen_index_next(t->dim, t->sizes, idx)) {
            int64_t off = 0;
            for (int32_t i = 0; i < k; i++) off += idx[i] * t->strides[i];
            if (!((const uint8_t *)t->data)[off]) continue;
            for (int32_t i = 0; i < k; i++) coords[i * m + count] = idx[i];
            count++;
        }
        for (int32_t i = 0; i < k; i++) { /* coordinate i of the true elements: [count] (the bound, at load) */
            opgen_tensor *c = &store[n];
            memset(c, 0, sizeof *c);
            int64_t len = ctx->meta ? m : count;
            if (opgen_tensor_shape(c, OPGEN_DTYPE_Long, 1, &len, ctx->err)) return ctx->err->code;
            c->data = coords ? coords + i * m : NULL, c->capacity = sizeof(int64_t) * (size_t)m;
            list[n++] = c;
        }
        pos += (size_t)k;
    }
    out->data = list, out->len = n;
    return OPGEN_OK;
}

/* Half and BFloat16 are moved as the 2-byte UInt16 (mask widened to take it). */
static opgen_dtype moved_dtype(uint32_t *mask, opgen_dtype dt) {
    if (dt != OPGEN_DTYPE_Half && dt != OPGEN_DTYPE_BFloat16) return dt;
    if (OPGEN_HAS(*mask, dt)) *mask |= 1u << OPGEN_DTYPE_UInt16;
    return OPGEN_DTYPE_UInt16;
}
static uint16_t add_reduced(uint16_t a, uint16_t b, opgen_dtype dt) {
    if (dt == OPGEN_DTYPE_Half) return opgen_float_to_half(opgen_half_to_float(a) + opgen_half_to_float(b));
    return opgen_float_to_bf16(opgen_bf16_to_float(a) + opgen_bf16_to_float(b));
}

opgen_status opgen_portable_index_Tensor_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor_list indices,
                                             opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_index_Tensor_out;
    index_plan p;
    opgen_tensor store[OPGEN_MAX_DIM];
    const opgen_tensor *list[OPGEN_MAX_DIM];
    bool masked = has_mask(indices);
    if (expand_masks(ctx, self, indices, store, list, &indices) || plan_index(ctx, self, indices, &p))
        return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    if (masked && p.nb == 1) planned_bound(ctx, out, self->dtype, p.dim, p.sizes, p.bpos);
    if (masked && p.nb == 1 && bound_check(ctx, out, self->dtype, p.dim, p.sizes, p.bpos)) return ctx->err->code;
    opgen_status st = opgen_out(ctx, out, self->dtype, p.dim, p.sizes);
    if (st || ctx->meta) return st;
    int64_t n = opgen_numel(out), r[OPGEN_MAX_DIM] = {0}, off;
    if (n && !opgen_numel(self))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: index is out of bounds for an empty tensor", ctx->op);
    opgen_dtype dt = moved_dtype(&mask, self->dtype);
    OPGEN_REAL_SWITCH(mask, dt, ctx, T, {
        const T *x = self->data;
        T *y = out->data;
        for (int64_t k = 0; k < n; k++, opgen_index_next(p.dim, p.sizes, r)) {
            if (index_offset(ctx, self, &p, r, &off)) return ctx->err->code;
            y[k] = x[off];
        }
    })
    return OPGEN_OK;
}

/* index_put: out = self, then out[indices] = values (broadcast to the indexed
 * shape), or += with accumulate. Repeated indices: the last write wins, as on
 * ATen's CPU (accumulate adds them all). */
opgen_status opgen_portable_index_put_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor_list indices,
                                          const opgen_tensor *values, bool accumulate, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_index_put_out;
    index_plan p;
    opgen_tensor store[OPGEN_MAX_DIM];
    const opgen_tensor *list[OPGEN_MAX_DIM];
    if (expand_masks(ctx, self, indices, store, list, &indices) || plan_index(ctx, self, indices, &p))
        return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    if (values->dtype != self->dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: values has dtype %s, self %s", ctx->op,
                          opgen_dtype_name(values->dtype), opgen_dtype_name(self->dtype));
    if (values->dim > p.dim)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: values of %d dims cannot be broadcast to the indexed shape of %d",
                          ctx->op, (int)values->dim, (int)p.dim);
    for (int32_t i = 0; i < values->dim; i++) {
        int64_t want = p.sizes[p.dim - values->dim + i];
        if (values->sizes[i] != 1 && values->sizes[i] != want)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: values of size %lld cannot be broadcast to %lld in dimension %d",
                              ctx->op, (long long)values->sizes[i], (long long)want, (int)(p.dim - values->dim + i));
    }
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    int64_t n = 1, r[OPGEN_MAX_DIM] = {0}, off;
    for (int32_t i = 0; i < p.dim; i++) n *= p.sizes[i];
    if (out->data == self->data) { /* in place (a KV cache, opgen_method's reinplacing): */
        if (memcmp(out->strides, self->strides, sizeof(int64_t) * (size_t)self->dim))
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: out shares self's memory in another layout", ctx->op);
        for (int64_t k = 0; k < n;
             k++, opgen_index_next(p.dim, p.sizes, r)) /* every index checked first: a bad one leaves self whole */
            if (index_offset(ctx, out, &p, r, &off)) return ctx->err->code;
        memset(r, 0, sizeof r);
    } else if ((st = opgen_copy_same(ctx, out, self)))
        return st;
    opgen_dtype dt = moved_dtype(&mask, self->dtype);
    bool sum_reduced = accumulate && dt != self->dtype; /* Half, BFloat16: added in float, rounded once */
    OPGEN_REAL_SWITCH(mask, dt, ctx, T, {
        T *y = out->data;
        const T *v = values->data;
        for (int64_t k = 0; k < n; k++, opgen_index_next(p.dim, p.sizes, r)) {
            if (index_offset(ctx, out, &p, r, &off)) return ctx->err->code;
            T x = v[opgen_bcast_offset(values, p.dim, r)];
            if (sum_reduced)
                y[off] = (T)add_reduced((uint16_t)y[off], (uint16_t)x, self->dtype);
            else
                y[off] = accumulate ? (T)(y[off] + x) : x;
        }
    })
    return OPGEN_OK;
}

/* nonzero: the indices of self's nonzero elements, one row each, in row-major
 * order. The count depends on the data: load sizes the result for every element
 * (its upper bound, which the plan reserves) and a run shrinks it to the count,
 * as ExecuTorch's upper-bounded dynamic shapes. */
opgen_status opgen_portable_nonzero_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    /* the kernel's dtypes are its result's (Long); the input may be any real dtype */
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_nonzero_out, OPGEN_DTYPE_Long, "the result");
    int64_t n = opgen_numel(self), count = 0, idx[OPGEN_MAX_DIM] = {0};
    if (ctx->meta) {
        int64_t bound[2] = {n, self->dim};
        planned_bound(ctx, out, OPGEN_DTYPE_Long, 2, bound, 0);
        return opgen_out(ctx, out, OPGEN_DTYPE_Long, 2, bound);
    }
    OPGEN_REAL_SWITCH(OPGEN_REAL_DTYPES, self->dtype, ctx, T, {
        const T *x = self->data;
        for (int pass = 0; pass < 2; pass++) { /* count, then write */
            int64_t *y = pass ? out->data : NULL;
            memset(idx, 0, sizeof idx);
            for (int64_t k = 0; k < n; k++, opgen_index_next(self->dim, self->sizes, idx)) {
                int64_t off = 0;
                for (int32_t i = 0; i < self->dim; i++) off += idx[i] * self->strides[i];
                if (x[off] == (T)0) continue;
                if (!pass)
                    count++;
                else
                    memcpy(y, idx, sizeof(int64_t) * (size_t)self->dim), y += self->dim;
            }
            int64_t sizes[2] = {count, self->dim};
            if (!pass && bound_check(ctx, out, OPGEN_DTYPE_Long, 2, sizes, 0)) return ctx->err->code;
            opgen_status st = pass ? OPGEN_OK : opgen_out(ctx, out, OPGEN_DTYPE_Long, 2, sizes);
            if (st) return st;
        }
    })
    return OPGEN_OK;
}
