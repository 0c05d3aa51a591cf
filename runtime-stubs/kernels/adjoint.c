/* Ops that scatter back what a forward op gathered: the gradients of pooling
 * and embedding, and col2im (the adjoint of im2col). Each zeroes its result and
 * adds, in the forward op's order, every contribution where it came from; float
 * sums in the result's type, as ATen's CPU loops. */
#include "opgen/loops.h"
#include "opgen_registry.h"

/* (N, C, H, W) or (C, H, W): the planes and their height and width */
static opgen_status planes_of(opgen_ctx *ctx, const opgen_tensor *t, int64_t *planes, int64_t *h, int64_t *w) {
    if (t->dim != 3 && t->dim != 4)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected a 3-d or 4-d tensor, got %d-d", ctx->op, (int)t->dim);
    *h = t->sizes[t->dim - 2], *w = t->sizes[t->dim - 1];
    *planes = t->sizes[t->dim - 3] * (t->dim == 4 ? t->sizes[0] : 1);
    return OPGEN_OK;
}

/* grad_output and self contiguous copies, the result shaped as self (zeros) */
static opgen_status grad_setup(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *grad_output, const opgen_tensor *self,
                               opgen_tensor *g, opgen_tensor *out) {
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    if (grad_output->dtype != self->dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: grad_output has dtype %s, self %s", ctx->op,
                          opgen_dtype_name(grad_output->dtype), opgen_dtype_name(self->dtype));
    if (grad_output->dim != self->dim)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: grad_output has %d dims, self %d", ctx->op, (int)grad_output->dim,
                          (int)self->dim);
    opgen_status st = opgen_out(ctx, out, self->dtype, self->dim, self->sizes);
    if (st || opgen_contiguous(ctx, grad_output, g) || ctx->meta) return st ? st : ctx->err->code;
    memset(out->data, 0, opgen_nbytes(out));
    return OPGEN_OK;
}

opgen_status opgen_portable__adaptive_avg_pool2d_backward_out(opgen_ctx *ctx, const opgen_tensor *grad_output,
                                                              const opgen_tensor *self, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable__adaptive_avg_pool2d_backward_out;
    int64_t planes = 0, H = 0, W = 0, gp = 0, OH = 0, OW = 0;
    opgen_tensor g;
    if (planes_of(ctx, self, &planes, &H, &W) || planes_of(ctx, grad_output, &gp, &OH, &OW)) return ctx->err->code;
    if (gp != planes)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: grad_output has %lld planes, self %lld", ctx->op, (long long)gp,
                          (long long)planes);
    opgen_status st = grad_setup(ctx, mask, grad_output, self, &g, out);
    if (st || ctx->meta) return st;
    OPGEN_FLOAT_SWITCH(mask, self->dtype, ctx, T, {
        const T *gy = g.data;
        T *gx = out->data;
        for (int64_t pl = 0; pl < planes; pl++, gy += OH * OW, gx += H * W)
            for (int64_t oy = 0; oy < OH; oy++) {
                int64_t y0 = oy * H / OH, y1 = ((oy + 1) * H + OH - 1) / OH;
                for (int64_t ox = 0; ox < OW; ox++) {
                    int64_t x0 = ox * W / OW, x1 = ((ox + 1) * W + OW - 1) / OW;
                    T v = gy[oy * OW + ox] / (T)(y1 - y0) / (T)(x1 - x0);
                    for (int64_t y = y0; y < y1; y++)
                        for (int64_t x = x0; x < x1; x++) gx[y * W + x] += v;
                }
            }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_avg_pool2d_backward_grad_input(opgen_ctx *ctx, const opgen_tensor *grad_output,
                                                           const opgen_tensor *self, opgen_int_list kernel_size,
                                                           opgen_int_list stride, opgen_int_list padding,
                                                           bool ceil_mode, bool count_include_pad,
                                                           const int64_t *divisor_override, opgen_tensor *grad_input) {
    (void)ceil_mode; /* grad_output's shape already says how many windows there are */
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_avg_pool2d_backward_grad_input;
    int64_t k[2], s[2], p[2], planes = 0, H = 0, W = 0, gp = 0, OH = 0, OW = 0;
    if (opgen_int_pair(ctx, kernel_size, "kernel_size", -1, k) || opgen_int_pair(ctx, padding, "padding", 0, p))
        return ctx->err->code;
    if (!stride.len)
        s[0] = k[0], s[1] = k[1];
    else if (opgen_int_pair(ctx, stride, "stride", -1, s))
        return ctx->err->code;
    if (k[0] < 1 || k[1] < 1 || s[0] < 1 || s[1] < 1 || p[0] < 0 || p[1] < 0)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: kernel size and stride must be positive, padding not negative",
                          ctx->op);
    if (divisor_override && *divisor_override == 0)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: divisor must not be zero", ctx->op);
    if (planes_of(ctx, self, &planes, &H, &W) || planes_of(ctx, grad_output, &gp, &OH, &OW)) return ctx->err->code;
    if (gp != planes)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: grad_output has %lld planes, self %lld", ctx->op, (long long)gp,
                          (long long)planes);
    opgen_tensor g;
    opgen_status st = grad_setup(ctx, mask, grad_output, self, &g, grad_input);
    if (st || ctx->meta) return st;
    OPGEN_FLOAT_SWITCH(mask, self->dtype, ctx, T, {
        const T *gy = g.data;
        T *gx = grad_input->data;
        for (int64_t pl = 0; pl < planes; pl++, gy += OH * OW, gx += H * W)
            for (int64_t oy = 0; oy < OH; oy++)
                for (int64_t ox = 0; ox < OW; ox++) { /* the forward's window and divisor */
                    int64_t y0 = oy * s[0] - p[0], x0 = ox * s[1] - p[1];
                    int64_t y1 = y0 + k[0] < H + p[0] ? y0 + k[0] : H + p[0],
                            x1 = x0 + k[1] < W + p[1] ? x0 + k[1] : W + p[1];
                    int64_t pool = (y1 - y0) * (x1 - x0);
                    y0 = y0 < 0 ? 0 : y0, x0 = x0 < 0 ? 0 : x0, y1 = y1 > H ? H : y1, x1 = x1 > W ? W : x1;
                    int64_t div = divisor_override    ? *divisor_override
                                  : count_include_pad ? pool
                                                      : (y1 - y0) * (x1 - x0);
                    if (!div) continue;
                    T v = gy[oy * OW + ox] / (T)div;
                    for (int64_t y = y0; y < y1; y++)
                        for (int64_t x = x0; x < x1; x++) gx[y * W + x] += v;
                }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_max_pool2d_with_indices_backward_grad_input(
    opgen_ctx *ctx, const opgen_tensor *grad_output, const opgen_tensor *self, opgen_int_list kernel_size,
    opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation, bool ceil_mode, const opgen_tensor *indices,
    opgen_tensor *grad_input) {
    (void)kernel_size, (void)stride, (void)padding, (void)dilation,
        (void)ceil_mode; /* the indices say where each max came from */
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_max_pool2d_with_indices_backward_grad_input;
    int64_t planes = 0, H = 0, W = 0, gp = 0, OH = 0, OW = 0;
    if (planes_of(ctx, self, &planes, &H, &W) || planes_of(ctx, grad_output, &gp, &OH, &OW)) return ctx->err->code;
    if (gp != planes)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: grad_output has %lld planes, self %lld", ctx->op, (long long)gp,
                          (long long)planes);
    if (indices->dtype != OPGEN_DTYPE_Long || opgen_numel(indices) != opgen_numel(grad_output))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: indices must be Long and shaped as grad_output", ctx->op);
    opgen_tensor g, ix;
    opgen_status st = grad_setup(ctx, mask, grad_output, self, &g, grad_input);
    if (st || opgen_contiguous(ctx, indices, &ix) || ctx->meta) return st ? st : ctx->err->code;
    const int64_t *at = ix.data;
    OPGEN_FLOAT_SWITCH(mask, self->dtype, ctx, T, {
        const T *gy = g.data;
        T *gx = grad_input->data;
        for (int64_t pl = 0; pl < planes; pl++, gy += OH * OW, gx += H * W, at += OH * OW)
            for (int64_t o = 0; o < OH * OW; o++) {
                if (at[o] < 0 || at[o] >= H * W)
                    return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: index %lld is out of range for a plane of %lld",
                                      ctx->op, (long long)at[o], (long long)(H * W));
                gx[at[o]] += gy[o];
            }
    })
    return OPGEN_OK;
}

/* embedding_dense_backward: row idx of the result sums the grad rows of every
 * position holding idx (but padding_idx), each scaled by 1 / idx's count with
 * scale_grad_by_freq. */
opgen_status opgen_portable_embedding_dense_backward_out(opgen_ctx *ctx, const opgen_tensor *grad_output,
                                                         const opgen_tensor *indices, int64_t num_weights,
                                                         int64_t padding_idx, bool scale_grad_by_freq,
                                                         opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_embedding_dense_backward_out;
    if (indices->dtype != OPGEN_DTYPE_Long && indices->dtype != OPGEN_DTYPE_Int)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: indices must be Long or Int, not %s", ctx->op,
                          opgen_dtype_name(indices->dtype));
    if (num_weights < 0 || num_weights > ((int64_t)1 << 40))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: num_weights %lld is out of range", ctx->op,
                          (long long)num_weights);
    int64_t n = opgen_numel(indices), dim = grad_output->dim ? grad_output->sizes[grad_output->dim - 1] : 1;
    if (opgen_numel(grad_output) != n * dim)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: grad_output must be shaped as indices plus the embedding dimension",
                          ctx->op);
    OPGEN_CHECK_DTYPE(ctx, mask, grad_output->dtype, "grad_output");
    int64_t sizes[2] = {num_weights, dim};
    opgen_status st = opgen_out(ctx, out, grad_output->dtype, 2, sizes);
    opgen_tensor g, ix;
    int64_t *count = opgen_scratch(ctx, sizeof(int64_t) * (size_t)(num_weights + 1));
    if (st || opgen_contiguous(ctx, grad_output, &g) || opgen_contiguous(ctx, indices, &ix) || ctx->meta)
        return st ? st : ctx->err->code;
    if (!count) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    memset(out->data, 0, opgen_nbytes(out));
    memset(count, 0, sizeof(int64_t) * (size_t)(num_weights + 1));
    for (int64_t i = 0; i < n; i++) {
        int64_t v = ix.dtype == OPGEN_DTYPE_Long ? ((const int64_t *)ix.data)[i] : ((const int32_t *)ix.data)[i];
        if (v < 0 || v >= num_weights)
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: index %lld is out of range for %lld embeddings", ctx->op,
                              (long long)v, (long long)num_weights);
        count[v]++;
    }
    OPGEN_FLOAT_SWITCH(mask, grad_output->dtype, ctx, T, {
        const T *gy = g.data;
        T *gw = out->data;
        for (int64_t i = 0; i < n; i++) {
            int64_t v = ix.dtype == OPGEN_DTYPE_Long ? ((const int64_t *)ix.data)[i] : ((const int32_t *)ix.data)[i];
            if (v == padding_idx) continue;
            T scale = scale_grad_by_freq ? (T)1 / (T)count[v] : (T)1;
            for (int64_t j = 0; j < dim; j++) gw[v * dim + j] += gy[i * dim + j] * scale;
        }
    })
    return OPGEN_OK;
}

/* col2im: (N, C*kh*kw, L) columns summed back into (N, C, H, W) images, each
 * column entry at the pixel its block position and kernel offset name. */
opgen_status opgen_portable_col2im_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list output_size,
                                       opgen_int_list kernel_size, opgen_int_list dilation, opgen_int_list padding,
                                       opgen_int_list stride, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_col2im_out;
    int64_t o[2], k[2], d[2], p[2], s[2];
    if (opgen_int_pair(ctx, output_size, "output_size", -1, o) ||
        opgen_int_pair(ctx, kernel_size, "kernel_size", -1, k) || opgen_int_pair(ctx, dilation, "dilation", -1, d) ||
        opgen_int_pair(ctx, padding, "padding", -1, p) || opgen_int_pair(ctx, stride, "stride", -1, s))
        return ctx->err->code;
    if (k[0] < 1 || k[1] < 1 || d[0] < 1 || d[1] < 1 || s[0] < 1 || s[1] < 1 || p[0] < 0 || p[1] < 0 || o[0] < 1 ||
        o[1] < 1)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID,
                          "%s: kernel size, dilation, stride and output size must be positive, padding not negative",
                          ctx->op);
    if (self->dim != 2 && self->dim != 3)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected a 2-d or 3-d input, got %d-d", ctx->op, (int)self->dim);
    int64_t batch = self->dim == 3 ? self->sizes[0] : 1, rows = self->sizes[self->dim - 2],
            L = self->sizes[self->dim - 1];
    if (rows % (k[0] * k[1]))
        return OPGEN_FAIL(
            ctx, OPGEN_E_SHAPE,
            "%s: expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=%lld and kernel_size=(%lld, %lld)",
            ctx->op, (long long)rows, (long long)k[0], (long long)k[1]);
    int64_t bh = (o[0] + 2 * p[0] - (d[0] * (k[0] - 1) + 1)) / s[0] + 1,
            bw = (o[1] + 2 * p[1] - (d[1] * (k[1] - 1) + 1)) / s[1] + 1;
    if (bh < 1 || bw < 1 || bh * bw != L)
        return OPGEN_FAIL(
            ctx, OPGEN_E_SHAPE,
            "%s: given output_size=(%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), padding=(%lld, %lld), stride=(%lld, %lld), expected size of input's dimension 2 to match the calculated number of sliding blocks %lld * %lld = %lld, but got input.size(2)=%lld",
            ctx->op, (long long)o[0], (long long)o[1], (long long)k[0], (long long)k[1], (long long)d[0],
            (long long)d[1], (long long)p[0], (long long)p[1], (long long)s[0], (long long)s[1], (long long)bh,
            (long long)bw, (long long)(bh * bw), (long long)L);
    int64_t C = rows / (k[0] * k[1]), sizes[4] = {batch, C, o[0], o[1]};
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    int32_t st =
        self->dim == 3 ? opgen_out(ctx, out, self->dtype, 4, sizes) : opgen_out(ctx, out, self->dtype, 3, sizes + 1);
    opgen_tensor x;
    if (st || opgen_contiguous(ctx, self, &x) || ctx->meta) return st ? st : ctx->err->code;
    memset(out->data, 0, opgen_nbytes(out));
    OPGEN_FLOAT_SWITCH(mask, self->dtype, ctx, T, {
        const T *col = x.data;
        T *im = out->data;
        for (int64_t b = 0; b < batch; b++, col += rows * L, im += C * o[0] * o[1])
            for (int64_t r = 0; r < rows; r++) {
                int64_t c = r / (k[0] * k[1]), ky = r / k[1] % k[0], kx = r % k[1];
                for (int64_t by = 0; by < bh; by++) {
                    int64_t y = by * s[0] - p[0] + ky * d[0];
                    if (y < 0 || y >= o[0]) continue;
                    for (int64_t bx = 0; bx < bw; bx++) {
                        int64_t xx = bx * s[1] - p[1] + kx * d[1];
                        if (xx >= 0 && xx < o[1]) im[(c * o[0] + y) * o[1] + xx] += col[r * L + by * bw + bx];
                    }
                }
            }
    })
    return OPGEN_OK;
}
