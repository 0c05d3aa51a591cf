/* ATen's views as copies (squeeze, unsqueeze, select, slice, diagonal, alias,
 * as_strided, flip, repeat), their scatters (slice_scatter, select_scatter),
 * constant_pad_nd and fill. Each view is a strided look at the input (sizes,
 * strides, first element), copied into the contiguous out by opgen_copy_same,
 * which moves contiguous runs with memcpy: any dtype, no per-dtype code. */
#include "opgen/loops.h"
#include "opgen_registry.h"

/* A strided look at t: dim, sizes, strides (elements), first element at off. */
typedef struct view {
    int32_t dim;
    int64_t sizes[OPGEN_MAX_DIM], strides[OPGEN_MAX_DIM], off;
} view;

static view view_of(const opgen_tensor *t) {
    view v = {t->dim, {0}, {0}, 0};
    memcpy(v.sizes, t->sizes, sizeof(int64_t) * (size_t)t->dim);
    memcpy(v.strides, t->strides, sizeof(int64_t) * (size_t)t->dim);
    return v;
}

static opgen_tensor as_tensor(const opgen_tensor *t, const view *v) {
    opgen_tensor r = *t;
    r.dim = v->dim;
    memcpy(r.sizes, v->sizes, sizeof(int64_t) * (size_t)v->dim);
    memcpy(r.strides, v->strides, sizeof(int64_t) * (size_t)v->dim);
    for (int32_t i = 0; i < v->dim; i++) r.dim_order[i] = (uint8_t)i;
    if (t->data) r.data = (char *)t->data + v->off * opgen_dtype_size(t->dtype);
    return r;
}

/* out = the view v of self */
static opgen_status copy_view(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self, const view *v,
                              opgen_tensor *out) {
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, v->dim, v->sizes);
    if (st || ctx->meta) return st;
    opgen_tensor src = as_tensor(self, v);
    return opgen_copy_same(ctx, out, &src);
}

static void drop_dim(view *v, int32_t d) {
    for (int32_t i = d; i + 1 < v->dim; i++) v->sizes[i] = v->sizes[i + 1], v->strides[i] = v->strides[i + 1];
    v->dim--;
}

/* ATen's slice bounds: None is the whole range, negatives count from the end,
 * then clamped; step must be positive. */
static opgen_status slice_view(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, const int64_t *start,
                               const int64_t *end, int64_t step, view *v) {
    int32_t d;
    if (opgen_wrap_dim(ctx, dim, self->dim, &d)) return ctx->err->code;
    if (step <= 0) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: slice step must be positive", ctx->op);
    int64_t n = self->sizes[d], s = start ? *start : 0, e = end ? *end : n;
    if (s < 0) s += n;
    if (e < 0) e += n;
    s = s < 0 ? 0 : s > n ? n : s;
    e = e < s ? s : e > n ? n : e;
    *v = view_of(self);
    v->sizes[d] = (e - s + step - 1) / step;
    v->off = s * self->strides[d];
    v->strides[d] *= step;
    return OPGEN_OK;
}

static opgen_status select_view(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, int64_t index, view *v) {
    int32_t d;
    if (self->dim == 0)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: select() cannot be applied to a 0-d tensor", ctx->op);
    if (opgen_wrap_dim(ctx, dim, self->dim, &d)) return ctx->err->code;
    int64_t n = self->sizes[d];
    if (index < -n || index >= n)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: index %lld is out of bounds for dimension %d with size %lld",
                          ctx->op, (long long)index, (int)d, (long long)n);
    *v = view_of(self);
    v->off = (index < 0 ? index + n : index) * self->strides[d];
    drop_dim(v, d);
    return OPGEN_OK;
}

opgen_status opgen_portable_slice_copy_Tensor_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim,
                                                  const int64_t *start, const int64_t *end, int64_t step,
                                                  opgen_tensor *out) {
    view v;
    if (slice_view(ctx, self, dim, start, end, step, &v)) return ctx->err->code;
    return copy_view(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_slice_copy_Tensor_out, self, &v, out);
}
opgen_status opgen_portable_select_copy_int_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim, int64_t index,
                                                opgen_tensor *out) {
    view v;
    if (select_view(ctx, self, dim, index, &v)) return ctx->err->code;
    return copy_view(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_select_copy_int_out, self, &v, out);
}
opgen_status opgen_portable_alias_copy_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    view v = view_of(self);
    return copy_view(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_alias_copy_out, self, &v, out);
}

/* squeeze: the given dimensions that have size 1 go */
static opgen_status squeeze(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self, const int64_t *dims, size_t n,
                            opgen_tensor *out) {
    bool drop[OPGEN_MAX_DIM] = {false};
    for (size_t i = 0; i < n; i++) {
        int32_t d;
        if (opgen_wrap_dim(ctx, dims[i], self->dim, &d)) return ctx->err->code;
        if (self->dim && self->sizes[d] == 1) drop[d] = true;
    }
    view v = view_of(self);
    for (int32_t d = self->dim - 1; d >= 0; d--)
        if (drop[d]) drop_dim(&v, d);
    return copy_view(ctx, mask, self, &v, out);
}
opgen_status opgen_portable_squeeze_copy_dim_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim,
                                                 opgen_tensor *out) {
    return squeeze(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_squeeze_copy_dim_out, self, &dim, 1, out);
}
opgen_status opgen_portable_squeeze_copy_dims_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list dim,
                                                  opgen_tensor *out) {
    return squeeze(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_squeeze_copy_dims_out, self, dim.data, dim.len, out);
}

opgen_status opgen_portable_unsqueeze_copy_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t dim,
                                               opgen_tensor *out) {
    int32_t d;
    if (self->dim >= OPGEN_MAX_DIM)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: more than %d dimensions", ctx->op, OPGEN_MAX_DIM);
    if (opgen_wrap_dim(ctx, dim, self->dim + 1, &d)) return ctx->err->code;
    view v = view_of(self);
    for (int32_t i = v.dim; i > d; i--) v.sizes[i] = v.sizes[i - 1], v.strides[i] = v.strides[i - 1];
    v.sizes[d] = 1;
    v.strides[d] = 0;
    v.dim++;
    return copy_view(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_unsqueeze_copy_out, self, &v, out);
}

/* diagonal: dim1 and dim2 go, the diagonal (shifted by offset) is the last dimension */
opgen_status opgen_portable_diagonal_copy_out(opgen_ctx *ctx, const opgen_tensor *self, int64_t offset, int64_t dim1,
                                              int64_t dim2, opgen_tensor *out) {
    int32_t a, b;
    if (opgen_wrap_dim(ctx, dim1, self->dim, &a) || opgen_wrap_dim(ctx, dim2, self->dim, &b)) return ctx->err->code;
    if (a == b)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: diagonal dimensions cannot be identical %lld, %lld", ctx->op,
                          (long long)dim1, (long long)dim2);
    if (offset > ((int64_t)1 << 40) || offset < -((int64_t)1 << 40))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: offset %lld is out of range", ctx->op, (long long)offset);
    int64_t n1 = self->sizes[a], n2 = self->sizes[b], n;
    view v = view_of(self);
    if (offset >= 0) {
        n = n1 < n2 - offset ? n1 : n2 - offset;
        v.off = offset * self->strides[b];
    } else {
        n = n1 + offset < n2 ? n1 + offset : n2;
        v.off = -offset * self->strides[a];
    }
    if (n <= 0) n = 0, v.off = 0;
    int64_t st = self->strides[a] + self->strides[b];
    drop_dim(&v, a > b ? a : b);
    drop_dim(&v, a > b ? b : a);
    v.sizes[v.dim] = n;
    v.strides[v.dim++] = st;
    return copy_view(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_diagonal_copy_out, self, &v, out);
}

/* as_strided over the input's elements (its storage as far as opgen knows): every
 * element the view reaches must be one of them. */
opgen_status opgen_portable_as_strided_copy_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list size,
                                                opgen_int_list stride, const int64_t *storage_offset,
                                                opgen_tensor *out) {
    if (size.len != stride.len)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: %zu sizes but %zu strides", ctx->op, size.len, stride.len);
    if (size.len > OPGEN_MAX_DIM)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: more than %d dimensions", ctx->op, OPGEN_MAX_DIM);
    view v = {(int32_t)size.len, {0}, {0}, storage_offset ? *storage_offset : 0};
    int64_t last = v.off, numel = 1;
    if (v.off < 0) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: negative storage offset", ctx->op);
    for (size_t i = 0; i < size.len; i++) {
        if (size.data[i] < 0 || stride.data[i] < 0 || size.data[i] > ((int64_t)1 << 40) ||
            stride.data[i] > ((int64_t)1 << 40))
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: sizes and strides must be in [0, 2^40]", ctx->op);
        v.sizes[i] = size.data[i], v.strides[i] = stride.data[i];
        numel *= size.data[i];
        if (size.data[i]) last += (size.data[i] - 1) * stride.data[i];
    }
    if (numel && last >= opgen_numel(self))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the view reaches element %lld of an input of %lld", ctx->op,
                          (long long)last, (long long)opgen_numel(self));
    if (ctx->meta) { /* room for a contiguous copy, whatever the run's layout */
        opgen_tensor flat = *self;
        if (opgen_tensor_shape(&flat, self->dtype, self->dim, self->sizes, ctx->err)) return ctx->err->code;
        (void)opgen_scratch(ctx, opgen_nbytes(&flat));
    }
    if (ctx->meta || opgen_tensor_is_contiguous(self))
        return copy_view(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_as_strided_copy_out, self, &v, out);
    /* another layout: the view is over the elements in logical order, as if the
     * input were contiguous (ExecuTorch's tensors own their memory) */
    opgen_tensor flat = *self;
    if (opgen_tensor_shape(&flat, self->dtype, self->dim, self->sizes, ctx->err)) return ctx->err->code;
    flat.data = opgen_scratch(ctx, opgen_nbytes(&flat));
    if (!flat.data || opgen_copy_same(ctx, &flat, self))
        return ctx->err->code ? ctx->err->code : OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: out of scratch memory", ctx->op);
    return copy_view(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_as_strided_copy_out, &flat, &v, out);
}

/* flip: the flipped dimensions walked backwards (negative strides) */
opgen_status opgen_portable_flip_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list dims, opgen_tensor *out) {
    bool flip[OPGEN_MAX_DIM] = {false};
    for (size_t i = 0; i < dims.len; i++) {
        int32_t d;
        if (opgen_wrap_dim(ctx, dims.data[i], self->dim, &d)) return ctx->err->code;
        if (flip[d])
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: dim %d appears multiple times in the list of dims", ctx->op,
                              (int)d);
        flip[d] = true;
    }
    view v = view_of(self);
    if (opgen_numel(self))
        for (int32_t d = 0; d < self->dim; d++)
            if (flip[d]) v.off += (v.sizes[d] - 1) * v.strides[d], v.strides[d] = -v.strides[d];
    return copy_view(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_flip_out, self, &v, out);
}

/* repeat: out seen as (repeat, size) pairs of dimensions, the input broadcast
 * (stride 0) along each repeat */
opgen_status opgen_portable_repeat_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list repeats,
                                       opgen_tensor *out) {
    int32_t n = (int32_t)repeats.len, off = n - self->dim;
    if (off < 0)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: %d repeats for a %d-d tensor", ctx->op, (int)n, (int)self->dim);
    if (2 * n > OPGEN_MAX_DIM)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: more than %d repeated dimensions", ctx->op, OPGEN_MAX_DIM / 2);
    int64_t sizes[OPGEN_MAX_DIM];
    view pairs = {2 * n, {0}, {0}, 0};
    for (int32_t i = 0; i < n; i++) {
        int64_t s = i >= off ? self->sizes[i - off] : 1, r = repeats.data[i];
        if (r < 0 || r > ((int64_t)1 << 30))
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: repeats must be in [0, 2^30], got %lld", ctx->op,
                              (long long)r);
        sizes[i] = s * r;
        pairs.sizes[2 * i] = r, pairs.sizes[2 * i + 1] = s;
        pairs.strides[2 * i + 1] = i >= off ? self->strides[i - off] : 0;
    }
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_repeat_out, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, n, sizes);
    if (st || ctx->meta) return st;
    opgen_tensor dst = *out, src = as_tensor(self, &pairs);
    if (opgen_tensor_shape(&dst, out->dtype, 2 * n, pairs.sizes, ctx->err)) return ctx->err->code;
    return opgen_copy_same(ctx, &dst, &src);
}

/* out = a copy of self with the view v of it replaced by src (src's shape must be v's) */
static opgen_status scatter_view(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self, const opgen_tensor *src,
                                 const view *v, opgen_tensor *out) {
    if (src->dtype != self->dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: src has dtype %s, self %s", ctx->op, opgen_dtype_name(src->dtype),
                          opgen_dtype_name(self->dtype));
    if (src->dim != v->dim)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: src has %d dims, the slot %d", ctx->op, (int)src->dim, (int)v->dim);
    for (int32_t i = 0; i < v->dim; i++)
        if (src->sizes[i] != v->sizes[i])
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: src has size %lld in dimension %d, the slot %lld", ctx->op,
                              (long long)src->sizes[i], (int)i, (long long)v->sizes[i]);
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    if (opgen_copy_same(ctx, out, self)) return ctx->err->code;
    opgen_tensor slot = as_tensor(out, v);
    return opgen_copy_same(ctx, &slot, src);
}
opgen_status opgen_portable_slice_scatter_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *src,
                                              int64_t dim, const int64_t *start, const int64_t *end, int64_t step,
                                              opgen_tensor *out) {
    opgen_tensor shape = *self; /* out's strides: contiguous */
    if (opgen_tensor_shape(&shape, self->dtype, self->dim, self->sizes, ctx->err)) return ctx->err->code;
    view v;
    if (slice_view(ctx, &shape, dim, start, end, step, &v)) return ctx->err->code;
    return scatter_view(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_slice_scatter_out, self, src, &v, out);
}
opgen_status opgen_portable_select_scatter_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *src,
                                               int64_t dim, int64_t index, opgen_tensor *out) {
    opgen_tensor shape = *self;
    if (opgen_tensor_shape(&shape, self->dtype, self->dim, self->sizes, ctx->err)) return ctx->err->code;
    view v;
    if (select_view(ctx, &shape, dim, index, &v)) return ctx->err->code;
    return scatter_view(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_select_scatter_out, self, src, &v, out);
}

opgen_status opgen_portable_fill_Scalar_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *value,
                                            opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_fill_Scalar_out;
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    return opgen_fill(ctx, mask, out, value);
}

/* constant_pad_nd: pad pairs from the last dimension back (negative ones crop);
 * out filled with value, then the kept part of self copied into place. */
opgen_status opgen_portable_constant_pad_nd_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list pad,
                                                const opgen_scalar *value, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_constant_pad_nd_out;
    if (pad.len % 2 || (int64_t)pad.len > 2 * (int64_t)self->dim)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE,
                          "%s: padding length must be even and at most twice the input's %d dims, got %zu", ctx->op,
                          (int)self->dim, pad.len);
    int64_t sizes[OPGEN_MAX_DIM];
    view in = view_of(self), dst = {self->dim, {0}, {0}, 0};
    int64_t lo[OPGEN_MAX_DIM] = {0}, hi[OPGEN_MAX_DIM] = {0};
    for (size_t i = 0; i < pad.len; i++) {
        if (pad.data[i] > ((int64_t)1 << 30) || pad.data[i] < -((int64_t)1 << 30))
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: padding beyond 2^30", ctx->op);
        int32_t d = self->dim - 1 - (int32_t)(i / 2);
        if (i % 2)
            hi[d] = pad.data[i];
        else
            lo[d] = pad.data[i];
    }
    for (int32_t d = 0; d < self->dim; d++) {
        sizes[d] = self->sizes[d] + lo[d] + hi[d];
        if (sizes[d] < 0)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the padded size of dimension %d would be %lld", ctx->op, (int)d,
                              (long long)sizes[d]);
    }
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, sizes);
    if (st || ctx->meta) return st;
    if (opgen_fill(ctx, mask, out, value)) return ctx->err->code;
    int64_t stride = 1;
    for (int32_t d = self->dim - 1; d >= 0; d--) { /* the overlap of self and out, in each */
        int64_t cut_lo = lo[d] < 0 ? -lo[d] : 0, cut_hi = hi[d] < 0 ? -hi[d] : 0;
        int64_t n = self->sizes[d] - cut_lo - cut_hi;
        if (n <= 0) return OPGEN_OK;
        in.sizes[d] = dst.sizes[d] = n;
        in.off += cut_lo * self->strides[d];
        dst.strides[d] = stride;
        dst.off += (lo[d] > 0 ? lo[d] : 0) * stride;
        stride *= sizes[d];
    }
    opgen_tensor a = as_tensor(out, &dst), b = as_tensor(self, &in);
    return opgen_copy_same(ctx, &a, &b);
}

/* reflection and replication padding of the last k dimensions (padding: k pairs,
 * the last dimension's first); dimensions before them are batch. The input
 * index of an output one: i = o - left, reflected about the edges (no edge
 * repeated) or clamped to them. */
OPGEN_SPECIALIZED opgen_status pad_mode(opgen_ctx *ctx, uint32_t mask, bool reflect, int32_t k,
                                        const opgen_tensor *self, opgen_int_list padding, opgen_tensor *out) {
    if ((int32_t)padding.len != 2 * k)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: padding must have %d values, got %zu", ctx->op, (int)(2 * k),
                          padding.len);
    if (self->dim != k + 1 && self->dim != k + 2)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected a %d-d or %d-d input, got %d-d", ctx->op, (int)(k + 1),
                          (int)(k + 2), (int)self->dim);
    int64_t sizes[OPGEN_MAX_DIM], lo[3] = {0}, n[3] = {1, 1, 1}, m[3] = {1, 1, 1}, st[3] = {0};
    int32_t b = self->dim - k; /* batch dims */
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->dim);
    for (int32_t j = 0; j < k; j++) { /* j: 0 the first padded dimension */
        int32_t d = b + j, pi = 2 * (k - 1 - j);
        int64_t l = padding.data[pi], r = padding.data[pi + 1];
        if (l < -((int64_t)1 << 30) || l > ((int64_t)1 << 30) || r < -((int64_t)1 << 30) || r > ((int64_t)1 << 30))
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: padding beyond 2^30", ctx->op);
        if (reflect && (l >= self->sizes[d] || r >= self->sizes[d]))
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE,
                              "%s: padding (%lld, %lld) must be less than the input's size %lld in dimension %d",
                              ctx->op, (long long)l, (long long)r, (long long)self->sizes[d], (int)d);
        if (!self->sizes[d])
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: dimension %d of the input is empty", ctx->op, (int)d);
        sizes[d] = self->sizes[d] + l + r;
        if (sizes[d] <= 0)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the padded size of dimension %d would be %lld", ctx->op, (int)d,
                              (long long)sizes[d]);
        lo[3 - k + j] = l, n[3 - k + j] = self->sizes[d], m[3 - k + j] = sizes[d], st[3 - k + j] = self->strides[d];
    }
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    int32_t s = opgen_out(ctx, out, self->dtype, self->dim, sizes);
    if (s || ctx->meta) return s;
    int64_t nb = 1, bidx[OPGEN_MAX_DIM] = {0};
    for (int32_t d = 0; d < b; d++) nb *= self->sizes[d];
    OPGEN_REAL_SWITCH(mask, self->dtype, ctx, T, {
        const T *x = self->data;
        T *y = out->data;
        for (int64_t bi = 0; bi < nb; bi++, opgen_index_next(b, self->sizes, bidx)) {
            int64_t base = 0, in[3];
            for (int32_t d = 0; d < b; d++) base += bidx[d] * self->strides[d];
            for (int64_t o0 = 0; o0 < m[0]; o0++)
                for (int64_t o1 = 0; o1 < m[1]; o1++)
                    for (int64_t o2 = 0; o2 < m[2]; o2++) {
                        int64_t o[3] = {o0, o1, o2}, off = base;
                        for (int q = 0; q < 3; q++) {
                            int64_t i = o[q] - lo[q];
                            if (reflect)
                                i = i < 0 ? -i : i >= n[q] ? 2 * (n[q] - 1) - i : i;
                            else
                                i = i < 0 ? 0 : i >= n[q] ? n[q] - 1 : i;
                            in[q] = i;
                            off += in[q] * st[q];
                        }
                        *y++ = x[off];
                    }
        }
    })
    return OPGEN_OK;
}

#define PAD_KERNELS(X)           \
    X(reflection_pad1d, true, 1) \
    X(reflection_pad2d, true, 2) \
    X(reflection_pad3d, true, 3) X(replication_pad2d, false, 2) X(replication_pad3d, false, 3)
#define PAD_DEFINE(name, reflect, k)                                                                           \
    opgen_status opgen_portable_##name##_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list padding, \
                                             opgen_tensor *out) {                                              \
        return pad_mode(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_##name##_out, reflect, k, self, padding, out); \
    }
PAD_KERNELS(PAD_DEFINE)

/* copy: src converted to self's dtype, broadcast to self's shape */
opgen_status opgen_portable_copy_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *src,
                                     bool non_blocking, opgen_tensor *out) {
    (void)non_blocking;
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_copy_out, self->dtype, "the result");
    int32_t dim;
    int64_t sizes[OPGEN_MAX_DIM];
    if (opgen_broadcast(ctx, self, src, &dim, sizes)) return ctx->err->code;
    if (dim != self->dim || memcmp(sizes, self->sizes, sizeof(int64_t) * (size_t)dim))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: src does not broadcast to self's shape", ctx->op);
    opgen_status st = opgen_out_any(ctx, out, self->dtype, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    return opgen_copy(ctx, out, src);
}

/* split_with_sizes_copy: consecutive slices of dim, one per out; the sizes must
 * add up to the dimension. The out list's tensors are the kernel's results (a
 * list type shared with inputs, hence const). */
opgen_status opgen_portable_split_with_sizes_copy_out(opgen_ctx *ctx, const opgen_tensor *self,
                                                      opgen_int_list split_sizes, int64_t dim, opgen_tensor_list out) {
    int32_t d;
    if (opgen_wrap_dim(ctx, dim, self->dim, &d)) return ctx->err->code;
    if (out.len != split_sizes.len)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %zu split sizes, %zu results", ctx->op, split_sizes.len, out.len);
    int64_t total = 0;
    for (size_t i = 0; i < split_sizes.len; i++) {
        if (split_sizes.data[i] < 0)
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: split size %lld is negative", ctx->op,
                              (long long)split_sizes.data[i]);
        total += split_sizes.data[i];
        if (total > self->sizes[d]) break;
    }
    if (total != self->sizes[d])
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: split sizes must sum exactly to %lld (the size of dimension %d)",
                          ctx->op, (long long)self->sizes[d], (int)d);
    int64_t at = 0;
    for (size_t i = 0; i < out.len; i++) {
        int64_t end = at + split_sizes.data[i];
        view v;
        if (slice_view(ctx, self, d, &at, &end, 1, &v)) return ctx->err->code;
        opgen_status st = copy_view(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_split_with_sizes_copy_out, self, &v,
                                    (opgen_tensor *)out.data[i]);
        if (st) return st;
        at = end;
    }
    return OPGEN_OK;
}
