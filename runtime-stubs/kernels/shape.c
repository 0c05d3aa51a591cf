/* Data movement: permute_copy, view_copy, expand_copy, clone, cat, ExecuTorch's dim order ops. Any dtype:
 * elements are moved by size (opgen_copy: memcpy of contiguous runs), so no
 * per-dtype code. */
#include "opgen/loops.h"
#include "opgen_registry.h"

opgen_status opgen_portable_permute_copy_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list dims,
                                             opgen_tensor *out) {
    if ((int64_t)dims.len != self->dim)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: %zu dims given for a %d-d tensor", ctx->op, dims.len,
                          (int)self->dim);
    int32_t perm[OPGEN_MAX_DIM];
    int64_t sizes[OPGEN_MAX_DIM];
    bool seen[OPGEN_MAX_DIM] = {0};
    for (int32_t i = 0; i < self->dim; i++) {
        if (opgen_wrap_dim(ctx, dims.data[i], self->dim, &perm[i])) return ctx->err->code;
        if (seen[perm[i]])
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: dimension %d appears twice in dims", ctx->op, (int)perm[i]);
        seen[perm[i]] = true;
        sizes[i] = self->sizes[perm[i]];
    }
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_permute_copy_out, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, sizes);
    if (st || ctx->meta) return st;
    opgen_tensor view = *self; /* self seen in the permuted order */
    for (int32_t i = 0; i < self->dim; i++)
        view.sizes[i] = self->sizes[perm[i]], view.strides[i] = self->strides[perm[i]];
    return opgen_copy(ctx, out, &view);
}

/* view sizes with one -1 inferred */
static opgen_status infer_view(opgen_ctx *ctx, int64_t numel, opgen_int_list size, int64_t *sizes) {
    int infer = -1;
    int64_t known = 1;
    if (size.len > OPGEN_MAX_DIM)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: more than %d dimensions", ctx->op, OPGEN_MAX_DIM);
    for (size_t i = 0; i < size.len; i++) {
        if (size.data[i] == -1) {
            if (infer >= 0) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: only one dimension can be -1", ctx->op);
            infer = (int)i;
        } else if (size.data[i] < 0) {
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: invalid size %lld", ctx->op, (long long)size.data[i]);
        } else {
            known *= size.data[i];
        }
        sizes[i] = size.data[i];
    }
    if (infer >= 0) {
        if (known == 0 || numel % known)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: no size for the -1 dimension makes %lld elements", ctx->op,
                              (long long)numel);
        sizes[infer] = numel / known;
        known *= sizes[infer];
    }
    if (known != numel)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: shape has %lld elements, the input %lld", ctx->op, (long long)known,
                          (long long)numel);
    return OPGEN_OK;
}

opgen_status opgen_portable_view_copy_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list size,
                                          opgen_tensor *out) {
    int64_t sizes[OPGEN_MAX_DIM];
    if (infer_view(ctx, opgen_numel(self), size, sizes)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_view_copy_out, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, (int32_t)size.len, sizes);
    if (st || ctx->meta) return st;
    /* element order is the input's logical order: out seen with self's shape */
    opgen_tensor flat = *out;
    if (opgen_tensor_shape(&flat, out->dtype, self->dim, self->sizes, ctx->err)) return ctx->err->code;
    return opgen_copy(ctx, &flat, self);
}

opgen_status opgen_portable_expand_copy_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list size,
                                            bool implicit, opgen_tensor *out) {
    (void)implicit;
    int32_t dim = (int32_t)size.len;
    if (dim < self->dim || dim > OPGEN_MAX_DIM)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: cannot expand a %d-d tensor to %d dims", ctx->op, (int)self->dim,
                          (int)dim);
    int64_t sizes[OPGEN_MAX_DIM], strides[OPGEN_MAX_DIM];
    for (int32_t i = 0; i < dim; i++) {
        int32_t j = i - (dim - self->dim);
        int64_t s = size.data[i], have = j >= 0 ? self->sizes[j] : 1;
        if (s == -1) {
            if (j < 0)
                return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: -1 is not allowed for a new leading dimension", ctx->op);
            s = have;
        }
        if (s < 0 || (have != 1 && have != s))
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: cannot expand size %lld to %lld in dimension %d", ctx->op,
                              (long long)have, (long long)s, (int)i);
        sizes[i] = s;
        strides[i] = j >= 0 && have != 1 ? self->strides[j] : 0;
    }
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_expand_copy_out, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, dim, sizes);
    if (st || ctx->meta) return st;
    opgen_tensor view = *self; /* self with the expanded dimensions' stride 0 */
    view.dim = dim;
    for (int32_t i = 0; i < dim; i++) view.sizes[i] = sizes[i], view.strides[i] = strides[i];
    return opgen_copy(ctx, out, &view);
}

opgen_status opgen_portable_clone_out(opgen_ctx *ctx, const opgen_tensor *self, const int32_t *memory_format,
                                      opgen_tensor *out) {
    /* outputs are contiguous (channels_last would only reorder memory), but ATen
     * refuses a channels-last format of another rank */
    if (memory_format && *memory_format == OPGEN_MEMFMT_CHANNELS_LAST && self->dim != 4)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: channels_last takes a 4-d tensor, not %d-d", ctx->op,
                          (int)self->dim);
    if (memory_format && *memory_format == OPGEN_MEMFMT_CHANNELS_LAST_3D && self->dim != 5)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: channels_last_3d takes a 5-d tensor, not %d-d", ctx->op,
                          (int)self->dim);
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_clone_out, self->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    return opgen_copy(ctx, out, self);
}

/* self = src, in place: how ExecuTorch's exporter writes a mutated buffer back. src
 * broadcasts to self's shape and converts to its dtype, as ATen's copy_ does; self
 * keeps its shape and memory. A blocking copy only, as ExecuTorch's kernel. */
opgen_status opgen_portable_copy_(opgen_ctx *ctx, opgen_tensor *self, const opgen_tensor *src, bool non_blocking) {
    if (non_blocking)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: only a blocking copy (non_blocking=False) is supported", ctx->op);
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_copy_, self->dtype, "self");
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_copy_, src->dtype, "src");
    int32_t dim = self->dim;
    int64_t sizes[OPGEN_MAX_DIM];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)dim);
    if (opgen_broadcast(ctx, self, src, &dim, sizes)) return ctx->err->code;
    if (dim != self->dim)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: src has %d dimensions, more than self's %d", ctx->op, (int)src->dim,
                          (int)self->dim);
    for (int32_t i = 0; i < dim; i++)
        if (sizes[i] != self->sizes[i])
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE,
                              "%s: src does not broadcast to self: size %lld against self's %lld in dimension %d",
                              ctx->op, (long long)sizes[i], (long long)self->sizes[i], (int)i);
    if (ctx->meta || !opgen_numel(self) || self->data == src->data) return OPGEN_OK;
    return opgen_copy(ctx, self, src);
}

opgen_status opgen_portable_cat_out(opgen_ctx *ctx, opgen_tensor_list tensors, int64_t dim, opgen_tensor *out) {
    const opgen_tensor *ref = NULL;
    for (size_t i = 0; i < tensors.len; i++) /* ATen skips legacy empty 1-d tensors */
        if (!(tensors.data[i]->dim == 1 && tensors.data[i]->sizes[0] == 0)) {
            ref = tensors.data[i];
            break;
        }
    if (!tensors.len) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: expected a non-empty list of tensors", ctx->op);
    for (size_t i = 0; i < tensors.len; i++)
        if (!tensors.data[i]->dim)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: tensor %zu is zero-dimensional, which cannot be concatenated",
                              ctx->op, i);
    if (!ref) ref = tensors.data[0];
    int32_t d;
    if (opgen_wrap_dim(ctx, dim, ref->dim, &d)) return ctx->err->code;
    int64_t sizes[OPGEN_MAX_DIM];
    memcpy(sizes, ref->sizes, sizeof(int64_t) * (size_t)ref->dim);
    sizes[d] = 0;
    for (size_t i = 0; i < tensors.len; i++) {
        const opgen_tensor *t = tensors.data[i];
        if (t->dim == 1 && t->sizes[0] == 0 && ref->dim != 1) continue;
        if (t->dtype != ref->dtype)
            return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: tensor %zu has dtype %s, tensor 0 %s", ctx->op, i,
                              opgen_dtype_name(t->dtype), opgen_dtype_name(ref->dtype));
        if (t->dim != ref->dim)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: tensor %zu has %d dims, expected %d", ctx->op, i, (int)t->dim,
                              (int)ref->dim);
        for (int32_t k = 0; k < t->dim; k++)
            if (k != d && t->sizes[k] != ref->sizes[k])
                return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: tensor %zu has size %lld in dimension %d, expected %lld",
                                  ctx->op, i, (long long)t->sizes[k], (int)k, (long long)ref->sizes[k]);
        sizes[d] += t->sizes[d];
    }
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_cat_out, ref->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, ref->dtype, ref->dim, sizes);
    if (st || ctx->meta) return st;
    int64_t at = 0;
    for (size_t i = 0; i < tensors.len; i++) {
        const opgen_tensor *t = tensors.data[i];
        if (t->dim == 1 && t->sizes[0] == 0 && ref->dim != 1) continue;
        /* a view of out covering this tensor's slice */
        opgen_tensor view = *out;
        memcpy(view.sizes, t->sizes, sizeof(int64_t) * (size_t)t->dim);
        view.data = (char *)out->data + (size_t)(at * out->strides[d]) * (size_t)opgen_dtype_size(out->dtype);
        if (opgen_copy(ctx, &view, t)) return ctx->err->code;
        at += t->sizes[d];
    }
    return OPGEN_OK;
}

/* ExecuTorch's dim order ops: self into out laid out in dim_order (outermost
 * first), or in out's own order when none is given. As ExecuTorch's portable
 * kernels do, non_blocking must be false and dim_order must name every
 * dimension once. */
static opgen_status dim_order_out(opgen_ctx *ctx, const opgen_tensor *self, bool non_blocking,
                                  const opgen_int_list *dim_order, opgen_dtype dtype, opgen_tensor *out) {
    if (non_blocking) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: non_blocking=True is not supported", ctx->op);
    if (!dim_order) return opgen_out_any(ctx, out, dtype, self->dim, self->sizes);
    if ((int64_t)dim_order->len != self->dim)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: dim_order has %zu entries for a %d-d tensor", ctx->op,
                          dim_order->len, (int)self->dim);
    uint8_t order[OPGEN_MAX_DIM];
    for (int32_t i = 0; i < self->dim; i++) {
        if (dim_order->data[i] < 0 || dim_order->data[i] >= self->dim)
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: dim_order entry %lld is not a dimension of a %d-d tensor",
                              ctx->op, (long long)dim_order->data[i], (int)self->dim);
        order[i] = (uint8_t)dim_order->data[i];
    }
    return opgen_out_ordered(ctx, out, dtype, self->dim, self->sizes, order);
}

opgen_status opgen_portable__clone_dim_order_out(opgen_ctx *ctx, const opgen_tensor *self, bool non_blocking,
                                                 const opgen_int_list *dim_order, opgen_tensor *out) {
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable__clone_dim_order_out, self->dtype, "the input");
    opgen_status st = dim_order_out(ctx, self, non_blocking, dim_order, self->dtype, out);
    if (st || ctx->meta) return st;
    return opgen_copy_same(ctx, out, self);
}

/* The dtype may change too: out's (a program plans it); an unallocated out keeps self's. */
opgen_status opgen_portable__to_dim_order_copy_out(opgen_ctx *ctx, const opgen_tensor *self, bool non_blocking,
                                                   const opgen_int_list *dim_order, opgen_tensor *out) {
    opgen_dtype dtype = opgen_result_dtype(ctx, out, self->dtype);
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable__to_dim_order_copy_out, dtype, "the result");
    opgen_status st = dim_order_out(ctx, self, non_blocking, dim_order, dtype, out);
    if (st || ctx->meta) return st;
    return opgen_copy(ctx, out, self);
}
