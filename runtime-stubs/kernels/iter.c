/* The loops' setup: broadcast, dimension order, merging. Run once per call, so
 * compiled for size with the runtime, not with the kernels' -O3 (see meson.build). */
#include "opgen/loops.h"

typedef struct dimv {
    int64_t size;
    int64_t stride[OPGEN_ITER_MAX];
} dimv;

/* Orders dims innermost first by operand `key`'s strides (a stable insertion sort:
 * ties keep the later dimension inner), drops size-1 dims, merges neighbours that
 * are contiguous in every operand. */
static void order_and_merge(opgen_iter *it, const dimv *dims, int32_t n, int key) {
    dimv d[OPGEN_MAX_DIM];
    int32_t m = 0;
    for (int32_t i = n - 1; i >= 0; i--) /* innermost (last) dimension first */
        if (dims[i].size != 1) d[m++] = dims[i];
    for (int32_t i = 1; i < m; i++) {
        dimv v = d[i];
        int64_t s = v.stride[key] < 0 ? -v.stride[key] : v.stride[key];
        int32_t j = i;
        while (j > 0) {
            int64_t t = d[j - 1].stride[key] < 0 ? -d[j - 1].stride[key] : d[j - 1].stride[key];
            if (t <= s) break;
            d[j] = d[j - 1];
            j--;
        }
        d[j] = v;
    }
    it->ndim = 0;
    for (int32_t i = 0; i < m; i++) {
        if (it->ndim) {
            int32_t a = it->ndim - 1;
            bool merge = true;
            for (int k = 0; k < it->nops && merge; k++) merge = d[i].stride[k] == it->stride[k][a] * it->size[a];
            if (merge) {
                it->size[a] *= d[i].size;
                continue;
            }
        }
        it->size[it->ndim] = d[i].size;
        for (int k = 0; k < it->nops; k++) it->stride[k][it->ndim] = d[i].stride[k];
        it->ndim++;
    }
}

/* Operand k's strides in bytes over out's `dim` dims (0 where it broadcasts). */
static opgen_status broadcast_strides(opgen_ctx *ctx, const opgen_tensor *t, const opgen_tensor *out, dimv *d, int k) {
    int32_t off = out->dim - t->dim;
    if (off < 0)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: a %d-d input does not broadcast to a %d-d result", ctx->op,
                          (int)t->dim, (int)out->dim);
    int64_t es = opgen_dtype_size(t->dtype);
    for (int32_t i = 0; i < out->dim; i++) {
        int32_t j = i - off;
        int64_t s = j >= 0 ? t->sizes[j] : 1;
        if (s != 1 && s != out->sizes[i])
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: shapes do not broadcast: size %lld against %lld in dimension %d",
                              ctx->op, (long long)s, (long long)out->sizes[i], (int)i);
        d[i].stride[k] = s == 1 ? 0 : t->strides[j] * es;
    }
    return OPGEN_OK;
}

static void start(opgen_iter *it, opgen_tensor *out, int nops) {
    memset(it, 0, sizeof *it);
    it->nops = nops;
    it->numel = opgen_numel(out);
    it->data[0] = out->data;
    it->dtype[0] = out->dtype;
}

static opgen_status iter_init(opgen_ctx *ctx, opgen_iter *it, opgen_tensor *out, const opgen_tensor *const *in, int nin,
                              bool dense) {
    if (nin + 1 > OPGEN_ITER_MAX) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: too many operands", ctx->op);
    start(it, out, nin + 1);
    dimv d[OPGEN_MAX_DIM];
    int64_t es = opgen_dtype_size(out->dtype);
    for (int32_t i = 0; i < out->dim; i++) {
        d[i].size = out->sizes[i];
        d[i].stride[0] = out->strides[i] * es;
    }
    for (int k = 0; k < nin; k++) {
        if (broadcast_strides(ctx, in[k], out, d, k + 1)) return ctx->err->code;
        it->data[k + 1] = in[k]->data;
        it->dtype[k + 1] = in[k]->dtype;
    }
    order_and_merge(it, d, out->dim, 0);
    /* the MAP bodies write the innermost run as a contiguous array */
    if (dense && it->numel && it->ndim && it->stride[0][0] != es)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: the result must be dense", ctx->op);
    return OPGEN_OK;
}

opgen_status opgen_iter_init(opgen_ctx *ctx, opgen_iter *it, opgen_tensor *out, const opgen_tensor *const *in,
                             int nin) {
    return iter_init(ctx, it, out, in, nin, true);
}

opgen_status opgen_iter_init_strided(opgen_ctx *ctx, opgen_iter *it, opgen_tensor *out, const opgen_tensor *const *in,
                                     int nin) {
    return iter_init(ctx, it, out, in, nin, false);
}

opgen_status opgen_iter_init_reduce(opgen_ctx *ctx, opgen_iter *it, opgen_tensor *out, const opgen_tensor *in,
                                    const bool *reduced) {
    if (out->dim != in->dim)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: a reduction's result keeps every dimension", ctx->op);
    start(it, out, 2);
    it->numel = opgen_numel(in);
    dimv d[OPGEN_MAX_DIM];
    int64_t eo = opgen_dtype_size(out->dtype), ei = opgen_dtype_size(in->dtype);
    for (int32_t i = 0; i < in->dim; i++) {
        d[i].size = in->sizes[i];
        d[i].stride[0] = reduced[i] ? 0 : out->strides[i] * eo;
        d[i].stride[1] = in->strides[i] * ei;
    }
    it->data[1] = in->data;
    it->dtype[1] = in->dtype;
    order_and_merge(it, d, in->dim, 1); /* the input's memory order: reads stay sequential */
    return OPGEN_OK;
}

const opgen_tensor *opgen_scalar_operand(const opgen_scalar *s, opgen_tensor *t) {
    memset(t, 0, sizeof *t);
    t->dtype = s->dtype;
    t->data = (void *)(uintptr_t)&s->v;
    return t;
}

opgen_status opgen_binary_prepare(opgen_ctx *ctx, uint32_t mask, opgen_dtype res, const opgen_tensor *a,
                                  const opgen_tensor *b, opgen_tensor *out, opgen_iter *it) {
    int32_t dim;
    int64_t sizes[OPGEN_MAX_DIM];
    if (opgen_broadcast(ctx, a, b, &dim, sizes)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    opgen_status st = opgen_out_any(ctx, out, res, dim, sizes);
    if (st || ctx->meta) return st;
    const opgen_tensor *in[2] = {a, b};
    return opgen_iter_init(ctx, it, out, in, 2);
}
