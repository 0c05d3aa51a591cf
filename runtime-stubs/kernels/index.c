/* Indexing: embedding (rows of weight gathered by Int or Long indices). */
#include "opgen/loops.h"
#include "opgen_registry.h"

opgen_status opgen_portable_embedding_out(opgen_ctx *ctx, const opgen_tensor *weight, const opgen_tensor *indices, int64_t padding_idx, bool scale_grad_by_freq, bool sparse, opgen_tensor *out) {
    (void)padding_idx, (void)scale_grad_by_freq, (void)sparse; /* these only change gradients */
    if (weight->dim != 2) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: weight must be 2-d, got %d-d", ctx->op, weight->dim);
    if (indices->dtype != OPGEN_DTYPE_Long && indices->dtype != OPGEN_DTYPE_Int) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: indices must be Int or Long, not %s", ctx->op, opgen_dtype_name(indices->dtype));
    if (indices->dim + 1 > OPGEN_MAX_DIM) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: too many dimensions", ctx->op);
    int64_t sizes[OPGEN_MAX_DIM];
    memcpy(sizes, indices->sizes, sizeof(int64_t) * (size_t)indices->dim);
    sizes[indices->dim] = weight->sizes[1];
    OPGEN_CHECK_DTYPE(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_embedding_out, weight->dtype, "weight");
    int32_t st = opgen_out(ctx, out, weight->dtype, indices->dim + 1, sizes);
    if (st) return st;
    /* indices in logical order: in place when contiguous, else copied (scratch) */
    bool dense = opgen_tensor_is_contiguous(indices);
    opgen_tensor ids = *indices;
    ids.data = dense ? indices->data : opgen_scratch(ctx, opgen_nbytes(indices));
    if (ctx->meta) return OPGEN_OK;
    if (!ids.data) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    if (!dense && (opgen_tensor_shape(&ids, indices->dtype, indices->dim, indices->sizes, ctx->err) || opgen_copy(ctx, &ids, indices))) return ctx->err->code;
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
            if (id[k] < 0 || id[k] >= V) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: index %lld is out of range for %lld embeddings", ctx->op, (long long)id[k], (long long)V);
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
