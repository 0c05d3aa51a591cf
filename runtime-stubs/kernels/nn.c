/* Reductions (mean, sum), 2-D convolution, batch norm (inference), max and
 * average pooling, embedding. */
#include "opgen/kernel.h"
#include "opgen_registry.h"

#define IS_FLOATING(T) _Generic((T)0, float: 1, double: 1, default: 0)

/* ---- reductions ---- */

/* Which dimensions a dim list reduces (None or [] reduces all). */
static int32_t reduced_dims(opgen_ctx *ctx, const opgen_tensor *self, const opgen_int_list *dims, bool *red) {
    memset(red, 0, sizeof(bool) * OPGEN_MAX_DIM);
    if (!dims || !dims->len) {
        for (int32_t i = 0; i < self->dim; i++) red[i] = true;
        return OPGEN_OK;
    }
    for (size_t i = 0; i < dims->len; i++) {
        int32_t d;
        if (opgen_wrap_dim(ctx, dims->data[i], self->dim, &d)) return ctx->err->code;
        if (red[d] && self->dim) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: dimension %d appears twice", ctx->op, d);
        red[d] = true;
    }
    return OPGEN_OK;
}

OPGEN_SPECIALIZED int32_t reduce(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self, const opgen_int_list *dims, bool keepdim, opgen_dtype res, bool mean, opgen_tensor *out) {
    bool red[OPGEN_MAX_DIM];
    if (reduced_dims(ctx, self, dims, red)) return ctx->err->code;
    int64_t sizes[OPGEN_MAX_DIM], count = 1;
    int32_t dim = 0;
    for (int32_t i = 0; i < self->dim; i++) {
        if (red[i]) {
            count *= self->sizes[i];
            if (keepdim) sizes[dim++] = 1;
        } else {
            sizes[dim++] = self->sizes[i];
        }
    }
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    int32_t st = opgen_out(ctx, out, res, dim, sizes);
    if (st) return st;
    /* accumulate every input element into its output slot */
    int64_t n = opgen_numel(self), idx[OPGEN_MAX_DIM] = {0}, on = opgen_numel(out);
    double *accf = opgen_scratch(ctx, sizeof(double) * (size_t)on);
    int64_t *acci = opgen_scratch(ctx, sizeof(int64_t) * (size_t)on);
    if (ctx->meta) return OPGEN_OK;
    if (!accf || !acci) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    memset(accf, 0, sizeof(double) * (size_t)on);
    memset(acci, 0, sizeof(int64_t) * (size_t)on);
    for (int64_t e = 0; e < n; e++) {
        int64_t o = 0, so = 0;
        for (int32_t i = 0, k = 0; i < self->dim; i++) {
            so += idx[i] * self->strides[i];
            if (!red[i]) o += idx[i] * out->strides[k++];
            else if (keepdim) k++;
        }
        accf[o] += opgen_load_f64(self, so);
        acci[o] = (int64_t)((uint64_t)acci[o] + (uint64_t)opgen_load_i64(self, so)); /* wraps like ATen, no UB */
        opgen_index_next(self->dim, self->sizes, idx);
    }
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        T *o = (T *)out->data;
        for (int64_t i = 0; i < on; i++) {
            if (IS_FLOATING(T))
                o[i] = (T)(mean ? (count ? accf[i] / (double)count : NAN) : accf[i]);
            else
                o[i] = (T)acci[i];
        }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_mean_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_int_list *dim, bool keepdim, const opgen_dtype *dtype, opgen_tensor *out) {
    opgen_dtype res = dtype ? *dtype : self->dtype;
    if (!opgen_is_float(res)) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: mean needs a floating point result, not %s", ctx->op, opgen_dtype_name(res));
    return reduce(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_mean_out, self, dim, keepdim, res, true, out);
}

opgen_status opgen_portable_sum_IntList_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_int_list *dim, bool keepdim, const opgen_dtype *dtype, opgen_tensor *out) {
    opgen_dtype res = dtype ? *dtype : opgen_is_integral(self->dtype, true) ? OPGEN_DTYPE_Long : self->dtype;
    return reduce(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_sum_IntList_out, self, dim, keepdim, res, false, out);
}

/* ---- convolution ---- */

/* a 2-element parameter list; one value stands for both */
static int32_t pair(opgen_ctx *ctx, opgen_int_list l, const char *what, int64_t dflt, int64_t *v) {
    if (l.len == 0 && dflt >= 0) {
        v[0] = v[1] = dflt;
    } else if (l.len == 1) {
        v[0] = v[1] = l.data[0];
    } else if (l.len == 2) {
        v[0] = l.data[0];
        v[1] = l.data[1];
    } else {
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %s must have 1 or 2 values, not %zu", ctx->op, what, l.len);
    }
    return OPGEN_OK;
}

opgen_status opgen_portable_convolution_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight, const opgen_tensor *bias, opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation, bool transposed, opgen_int_list output_padding, int64_t groups, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_convolution_out;
    (void)output_padding;
    if (transposed) return OPGEN_FAIL(ctx, OPGEN_E_NOT_IMPLEMENTED, "%s: transposed convolution is not implemented", ctx->op);
    if (input->dim != 4 || weight->dim != 4) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: 2-D convolution takes a 4-d input and weight, got %d-d and %d-d", ctx->op, input->dim, weight->dim);
    int64_t s[2] = {0}, p[2] = {0}, dl[2] = {0};
    if (pair(ctx, stride, "stride", -1, s) || pair(ctx, padding, "padding", -1, p) || pair(ctx, dilation, "dilation", -1, dl)) return ctx->err->code;
    int64_t N = input->sizes[0], C = input->sizes[1], H = input->sizes[2], W = input->sizes[3];
    int64_t O = weight->sizes[0], Cg = weight->sizes[1], KH = weight->sizes[2], KW = weight->sizes[3];
    if (groups < 1 || C % groups || O % groups) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %lld groups do not divide %lld input and %lld output channels", ctx->op, (long long)groups, (long long)C, (long long)O);
    if (Cg != C / groups) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: weight has %lld input channels per group, the input %lld", ctx->op, (long long)Cg, (long long)(C / groups));
    if (s[0] < 1 || s[1] < 1 || dl[0] < 1 || dl[1] < 1 || p[0] < 0 || p[1] < 0) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: stride and dilation must be positive, padding non-negative", ctx->op);
    if (bias && (bias->dim != 1 || bias->sizes[0] != O)) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: bias must have %lld elements", ctx->op, (long long)O);
    if (input->dtype != weight->dtype || (bias && bias->dtype != input->dtype)) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: input, weight and bias must have one dtype", ctx->op);
    int64_t nh = H + 2 * p[0] - dl[0] * (KH - 1) - 1, nw = W + 2 * p[1] - dl[1] * (KW - 1) - 1;
    int64_t OH = nh < 0 ? 0 : nh / s[0] + 1, OW = nw < 0 ? 0 : nw / s[1] + 1; /* C's / rounds -1/2 up to 0 */
    if (OH < 1 || OW < 1) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the kernel is larger than the padded input", ctx->op);
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    int64_t sizes[4] = {N, O, OH, OW};
    int32_t st = opgen_out(ctx, out, input->dtype, 4, sizes);
    if (st || ctx->meta) return st;
    int64_t og = O / groups;
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        T *o = (T *)out->data;
        for (int64_t n = 0; n < N; n++)
            for (int64_t oc = 0; oc < O; oc++) {
                int64_t g = oc / og;
                for (int64_t y = 0; y < OH; y++)
                    for (int64_t x = 0; x < OW; x++) {
                        double acc = bias ? opgen_load_f64(bias, oc * bias->strides[0]) : 0;
                        for (int64_t ic = 0; ic < Cg; ic++)
                            for (int64_t ky = 0; ky < KH; ky++) {
                                int64_t iy = y * s[0] - p[0] + ky * dl[0];
                                if (iy < 0 || iy >= H) continue;
                                for (int64_t kx = 0; kx < KW; kx++) {
                                    int64_t ix = x * s[1] - p[1] + kx * dl[1];
                                    if (ix < 0 || ix >= W) continue;
                                    int64_t c = g * Cg + ic;
                                    acc += opgen_load_f64(input, n * input->strides[0] + c * input->strides[1] + iy * input->strides[2] + ix * input->strides[3]) *
                                           opgen_load_f64(weight, oc * weight->strides[0] + ic * weight->strides[1] + ky * weight->strides[2] + kx * weight->strides[3]);
                                }
                            }
                        o[((n * O + oc) * OH + y) * OW + x] = (T)acc;
                    }
            }
    })
    return OPGEN_OK;
}

/* ---- batch norm (inference) ---- */

opgen_status opgen_portable__native_batch_norm_legit_no_training_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight, const opgen_tensor *bias, const opgen_tensor *running_mean, const opgen_tensor *running_var, double momentum, double eps, opgen_tensor *out0, opgen_tensor *out1, opgen_tensor *out2) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable__native_batch_norm_legit_no_training_out;
    (void)momentum;
    if (input->dim < 2) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: input needs a channel dimension (at least 2-d)", ctx->op);
    int64_t C = input->sizes[1];
    const opgen_tensor *per[4] = {weight, bias, running_mean, running_var};
    const char *names[4] = {"weight", "bias", "running_mean", "running_var"};
    for (int i = 0; i < 4; i++) {
        if (!per[i]) continue;
        if (per[i]->dim != 1 || per[i]->sizes[0] != C) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: %s must have %lld elements", ctx->op, names[i], (long long)C);
        if (per[i]->dtype != input->dtype) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: %s has dtype %s, the input %s", ctx->op, names[i], opgen_dtype_name(per[i]->dtype), opgen_dtype_name(input->dtype));
    }
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    int64_t zero = 0;
    int32_t st = opgen_out(ctx, out0, input->dtype, input->dim, input->sizes);
    if (!st) st = opgen_out(ctx, out1, input->dtype, 1, &zero); /* saved statistics: none in inference */
    if (!st) st = opgen_out(ctx, out2, input->dtype, 1, &zero);
    if (st || ctx->meta) return st;
    int64_t n = opgen_numel(input), idx[OPGEN_MAX_DIM] = {0};
    OPGEN_REAL_SWITCH(mask, out0->dtype, ctx, T, {
        T *o = (T *)out0->data;
        for (int64_t e = 0; e < n; e++) {
            int64_t c = idx[1];
            double x = opgen_load_f64(input, opgen_bcast_offset(input, input->dim, idx));
            double inv = 1 / sqrt(opgen_load_f64(running_var, c * running_var->strides[0]) + eps);
            double y = (x - opgen_load_f64(running_mean, c * running_mean->strides[0])) * inv;
            if (weight) y *= opgen_load_f64(weight, c * weight->strides[0]);
            if (bias) y += opgen_load_f64(bias, c * bias->strides[0]);
            o[e] = (T)y;
            opgen_index_next(input->dim, input->sizes, idx);
        }
    })
    return OPGEN_OK;
}

/* ---- pooling ---- */

static int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
    int64_t num = in + 2 * p - d * (k - 1) - 1;
    if (num < 0) return 0; /* the window is larger than the padded input (C's / would round -1/3 up to 0) */
    int64_t o = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
    /* the last window must start inside the input or its left padding */
    if (ceil_mode && (o - 1) * s >= in + p) o--;
    return o;
}

/* 3-d (C, H, W) or 4-d (N, C, H, W): the planes and their size */
static int32_t pool_shape(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list kernel_size, opgen_int_list stride, opgen_int_list padding, const int64_t *dil, bool ceil_mode, int64_t *k, int64_t *s, int64_t *p, int64_t *sizes) {
    if (self->dim != 3 && self->dim != 4) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: expected a 3-d or 4-d input, got %d-d", ctx->op, self->dim);
    if (pair(ctx, kernel_size, "kernel_size", -1, k) || pair(ctx, padding, "padding", -1, p)) return ctx->err->code;
    if (!stride.len)
        s[0] = k[0], s[1] = k[1]; /* stride defaults to the kernel size */
    else if (pair(ctx, stride, "stride", -1, s))
        return ctx->err->code;
    if (k[0] < 1 || k[1] < 1 || s[0] < 1 || s[1] < 1) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: kernel size and stride must be positive", ctx->op);
    if (p[0] < 0 || p[1] < 0 || p[0] * 2 > k[0] || p[1] * 2 > k[1]) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: padding must be at most half the kernel size", ctx->op);
    int32_t hd = self->dim - 2;
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->dim);
    sizes[hd] = pool_out(self->sizes[hd], k[0], s[0], p[0], dil[0], ceil_mode);
    sizes[hd + 1] = pool_out(self->sizes[hd + 1], k[1], s[1], p[1], dil[1], ceil_mode);
    if (sizes[hd] < 1 || sizes[hd + 1] < 1) return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the output would be empty", ctx->op);
    return OPGEN_OK;
}

opgen_status opgen_portable_max_pool2d_with_indices_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list kernel_size, opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation, bool ceil_mode, opgen_tensor *out, opgen_tensor *indices) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_max_pool2d_with_indices_out;
    int64_t k[2] = {0}, s[2] = {0}, p[2] = {0}, dl[2] = {0}, sizes[4];
    if (pair(ctx, dilation, "dilation", 1, dl)) return ctx->err->code;
    if (dl[0] < 1 || dl[1] < 1) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: dilation must be positive", ctx->op);
    if (pool_shape(ctx, self, kernel_size, stride, padding, dl, ceil_mode, k, s, p, sizes)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    int32_t st = opgen_out(ctx, out, self->dtype, self->dim, sizes);
    if (!st) st = opgen_out(ctx, indices, OPGEN_DTYPE_Long, self->dim, sizes);
    if (st || ctx->meta) return st;
    int32_t hd = self->dim - 2;
    int64_t H = self->sizes[hd], W = self->sizes[hd + 1], OH = sizes[hd], OW = sizes[hd + 1];
    int64_t hw = H * W, planes = hw ? opgen_numel(self) / hw : 0;
    int64_t *ix = indices->data;
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        T *o = (T *)out->data;
        for (int64_t pl = 0; pl < planes; pl++) {
            int64_t base = self->dim == 4 ? (pl / self->sizes[1]) * self->strides[0] + (pl % self->sizes[1]) * self->strides[1] : pl * self->strides[0];
            for (int64_t y = 0; y < OH; y++)
                for (int64_t x = 0; x < OW; x++) {
                    double best = -INFINITY;
                    int64_t at = -1;
                    for (int64_t ky = 0; ky < k[0]; ky++) {
                        int64_t iy = y * s[0] - p[0] + ky * dl[0];
                        if (iy < 0 || iy >= H) continue;
                        for (int64_t kx = 0; kx < k[1]; kx++) {
                            int64_t ixx = x * s[1] - p[1] + kx * dl[1];
                            if (ixx < 0 || ixx >= W) continue;
                            double v = opgen_load_f64(self, base + iy * self->strides[hd] + ixx * self->strides[hd + 1]);
                            if (v > best || at < 0 || v != v) {
                                best = v;
                                at = iy * W + ixx;
                                if (v != v) ky = k[0], kx = k[1]; /* NaN wins */
                            }
                        }
                    }
                    o[(pl * OH + y) * OW + x] = (T)best;
                    ix[(pl * OH + y) * OW + x] = at;
                }
        }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_avg_pool2d_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_int_list kernel_size, opgen_int_list stride, opgen_int_list padding, bool ceil_mode, bool count_include_pad, const int64_t *divisor_override, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_avg_pool2d_out;
    int64_t k[2] = {0}, s[2] = {0}, p[2] = {0}, dl[2] = {1, 1}, sizes[4];
    if (pool_shape(ctx, self, kernel_size, stride, padding, dl, ceil_mode, k, s, p, sizes)) return ctx->err->code;
    if (divisor_override && *divisor_override == 0) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: divisor must not be zero", ctx->op);
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    int32_t st = opgen_out(ctx, out, self->dtype, self->dim, sizes);
    if (st || ctx->meta) return st;
    int32_t hd = self->dim - 2;
    int64_t H = self->sizes[hd], W = self->sizes[hd + 1], OH = sizes[hd], OW = sizes[hd + 1];
    int64_t hw = H * W, planes = hw ? opgen_numel(self) / hw : 0;
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        T *o = (T *)out->data;
        for (int64_t pl = 0; pl < planes; pl++) {
            int64_t base = self->dim == 4 ? (pl / self->sizes[1]) * self->strides[0] + (pl % self->sizes[1]) * self->strides[1] : pl * self->strides[0];
            for (int64_t y = 0; y < OH; y++)
                for (int64_t x = 0; x < OW; x++) {
                    /* ATen: the window clipped to the padded input, then to the input */
                    int64_t y0 = y * s[0] - p[0], x0 = x * s[1] - p[1];
                    int64_t y1 = y0 + k[0] < H + p[0] ? y0 + k[0] : H + p[0], x1 = x0 + k[1] < W + p[1] ? x0 + k[1] : W + p[1];
                    int64_t pool = (y1 - y0) * (x1 - x0);
                    if (y0 < 0) y0 = 0;
                    if (x0 < 0) x0 = 0;
                    if (y1 > H) y1 = H;
                    if (x1 > W) x1 = W;
                    double sum = 0;
                    for (int64_t iy = y0; iy < y1; iy++)
                        for (int64_t ixx = x0; ixx < x1; ixx++) sum += opgen_load_f64(self, base + iy * self->strides[hd] + ixx * self->strides[hd + 1]);
                    int64_t div = divisor_override ? *divisor_override : count_include_pad ? pool : (y1 - y0) * (x1 - x0);
                    o[(pl * OH + y) * OW + x] = (T)(div ? sum / (double)div : NAN);
                }
        }
    })
    return OPGEN_OK;
}

/* ---- embedding ---- */

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
    if (st || ctx->meta) return st;
    int64_t n = opgen_numel(indices), D = weight->sizes[1], V = weight->sizes[0], idx[OPGEN_MAX_DIM] = {0};
    size_t es = (size_t)opgen_dtype_size(weight->dtype);
    for (int64_t i = 0; i < n; i++) {
        int64_t row = opgen_load_i64(indices, opgen_bcast_offset(indices, indices->dim, idx));
        if (row < 0 || row >= V) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: index %lld is out of range for %lld embeddings", ctx->op, (long long)row, (long long)V);
        for (int64_t d = 0; d < D; d++)
            memcpy((char *)out->data + (size_t)(i * D + d) * es, (const char *)weight->data + (size_t)(row * weight->strides[0] + d * weight->strides[1]) * es, es);
        opgen_index_next(indices->dim, indices->sizes, idx);
    }
    return OPGEN_OK;
}
