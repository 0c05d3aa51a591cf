/* Batch norm in inference (_native_batch_norm_legit_no_training), as ATen's CPU
 * kernel: per channel alpha = weight / sqrt(var + eps) and beta = bias - mean *
 * alpha, in the input's type, then out = x * alpha + beta. */
#include "opgen/loops.h"
#include "opgen_registry.h"

/* The three results of a norm's float body rounded into the outs. */
static opgen_status narrow3(opgen_ctx *ctx, opgen_dtype dt, opgen_tensor *y, opgen_tensor *out0, opgen_tensor *out1,
                            opgen_tensor *out2) {
    opgen_status st = opgen_narrow(ctx, out0, dt, &y[0]);
    if (!st) st = opgen_narrow(ctx, out1, dt, &y[1]);
    return st ? st : opgen_narrow(ctx, out2, dt, &y[2]);
}

/* A norm's input, weight and bias widened (the last two may be absent) and its
 * three float stand-in results. */
static opgen_status widen_affine(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight,
                                 const opgen_tensor *bias, opgen_tensor *x, opgen_tensor *w, opgen_tensor *b,
                                 opgen_tensor *y) {
    for (int i = 0; i < 3; i++) opgen_standin(&y[i]);
    opgen_status st = opgen_widen(ctx, input, x);
    if (!st) st = opgen_widen(ctx, weight, w);
    return st ? st : opgen_widen(ctx, bias, b);
}

/* Half and BFloat16 (here and below): the kernel on widened copies, each result
 * rounded once, as ATen's CPU kernels compute them. */
static opgen_status batch_norm_reduced(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight,
                                       const opgen_tensor *bias, const opgen_tensor *running_mean,
                                       const opgen_tensor *running_var, double momentum, double eps, opgen_tensor *out0,
                                       opgen_tensor *out1, opgen_tensor *out2) {
    opgen_tensor x, w, b, m, v, y[3];
    opgen_status st = widen_affine(ctx, input, weight, bias, &x, &w, &b, y);
    if (!st) st = opgen_widen(ctx, running_mean, &m);
    if (!st) st = opgen_widen(ctx, running_var, &v);
    if (!st)
        st = opgen_portable__native_batch_norm_legit_no_training_out(ctx, &x, weight ? &w : NULL, bias ? &b : NULL, &m,
                                                                     &v, momentum, eps, &y[0], &y[1], &y[2]);
    return st ? st : narrow3(ctx, input->dtype, y, out0, out1, out2);
}

opgen_status opgen_portable__native_batch_norm_legit_no_training_out(
    opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight, const opgen_tensor *bias,
    const opgen_tensor *running_mean, const opgen_tensor *running_var, double momentum, double eps, opgen_tensor *out0,
    opgen_tensor *out1, opgen_tensor *out2) {
    uint32_t mask = OPGEN_WITH_FLOAT(OPGEN_KERNEL_DTYPES_opgen_portable__native_batch_norm_legit_no_training_out);
    if (OPGEN_REDUCED(mask, input->dtype))
        return batch_norm_reduced(ctx, input, weight, bias, running_mean, running_var, momentum, eps, out0, out1, out2);
    (void)momentum;
    if (input->dim < 2)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: input needs a channel dimension (at least 2-d)", ctx->op);
    int64_t C = input->sizes[1];
    const opgen_tensor *per[4] = {weight, bias, running_mean, running_var};
    const char *names[4] = {"weight", "bias", "running_mean", "running_var"};
    for (int i = 0; i < 4; i++) {
        if (!per[i]) continue;
        if (per[i]->dim != 1 || per[i]->sizes[0] != C)
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: %s must have %lld elements", ctx->op, names[i], (long long)C);
        if (per[i]->dtype != input->dtype)
            return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: %s has dtype %s, the input %s", ctx->op, names[i],
                              opgen_dtype_name(per[i]->dtype), opgen_dtype_name(input->dtype));
    }
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    int64_t zero = 0;
    opgen_status st = opgen_out(ctx, out0, input->dtype, input->dim, input->sizes);
    if (!st) st = opgen_out(ctx, out1, input->dtype, 1, &zero); /* saved statistics: none in inference */
    if (!st) st = opgen_out(ctx, out2, input->dtype, 1, &zero);
    if (st || ctx->meta) return st;
    /* one channel at a time: the input and output with dimension 1 cut to that channel */
    opgen_tensor iv = *input, ov = *out0;
    iv.sizes[1] = ov.sizes[1] = 1;
    size_t ies = (size_t)opgen_dtype_size(input->dtype);
    OPGEN_FLOAT_SWITCH(mask, input->dtype, ctx, T, {
        for (int64_t c = 0; c < C; c++) {
            T mean = ((const T *)running_mean->data)[c * running_mean->strides[0]],
              var = ((const T *)running_var->data)[c * running_var->strides[0]];
            T invstd = (T)1 / OPGEN_MATH(T, sqrt)(var + (T)eps);
            T alpha = weight ? invstd * ((const T *)weight->data)[c * weight->strides[0]] : invstd;
            T beta = (bias ? ((const T *)bias->data)[c * bias->strides[0]] : (T)0) - mean * alpha;
            iv.data = (char *)input->data + (size_t)(c * input->strides[1]) * ies;
            ov.data = (char *)out0->data + (size_t)(c * out0->strides[1]) * ies;
            opgen_iter it;
            const opgen_tensor *in[1] = {&iv};
            if (opgen_iter_init_strided(ctx, &it, &ov, in, 1)) return ctx->err->code;
            OPGEN_ITER_RUNS(&it, n, p, s, {
                for (int64_t i = 0; i < n; i++) *(T *)(p[0] + i * s[0]) = *(const T *)(p[1] + i * s[1]) * alpha + beta;
            });
        }
    })
    return OPGEN_OK;
}

/* Checks a per-channel (or per-feature) parameter: n elements of the input's dtype. */
static opgen_status param_ok(opgen_ctx *ctx, const opgen_tensor *p, const char *name, int64_t n, opgen_dtype dt) {
    if (!p) return OPGEN_OK;
    if (opgen_numel(p) != n)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: %s must have %lld elements", ctx->op, name, (long long)n);
    if (p->dtype != dt)
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: %s has dtype %s, the input %s", ctx->op, name,
                          opgen_dtype_name(p->dtype), opgen_dtype_name(dt));
    return OPGEN_OK;
}

/* Normalizes G groups of n contiguous elements each (x and y in logical order):
 * mean and variance in double (two passes), rstd = 1 / sqrt(var + eps), then
 * y = (x * rstd - mean * rstd) * w + b with w and b per element of the group
 * (layer norm: wstride 1) or per channel (group norm: a channel every hw). */
#define NORMALIZE(T)                                                                                            \
    static void normalize_##T(const T *x, T *y, int64_t groups, int64_t n, int64_t hw, int64_t cpg, const T *w, \
                              const T *b, double eps, T *mean_out, T *rstd_out) {                               \
        for (int64_t g = 0; g < groups; g++, x += n, y += n) {                                                  \
            double s = 0, m2 = 0;                                                                               \
            for (int64_t i = 0; i < n; i++) s += (double)x[i];                                                  \
            double mean = n ? s / (double)n : NAN;                                                              \
            for (int64_t i = 0; i < n; i++) m2 += ((double)x[i] - mean) * ((double)x[i] - mean);                \
            double var = n ? m2 / (double)n : NAN;                                                              \
            T rstd = (T)(1.0 / sqrt(var + eps)), shift = (T)(-(T)mean * rstd);                                  \
            mean_out[g] = (T)mean, rstd_out[g] = rstd;                                                          \
            for (int64_t i = 0; i < n; i++) {                                                                   \
                int64_t c = hw ? (g % cpg) * (n / hw) + i / hw : i; /* the parameter's index */                 \
                T v = x[i] * rstd + shift;                                                                      \
                y[i] = (w ? v * w[c] : v) + (b ? b[c] : (T)0);                                                  \
            }                                                                                                   \
        }                                                                                                       \
    }
NORMALIZE(float)
NORMALIZE(double)
#define NORMALIZE_OF(T) _Generic((T)0, float : normalize_float, default : normalize_double)

/* Half or BFloat16: this kernel on float copies, rounded once. */
static opgen_status layer_norm_reduced(opgen_ctx *ctx, const opgen_tensor *input, opgen_int_list normalized_shape,
                                       const opgen_tensor *weight, const opgen_tensor *bias, double eps,
                                       opgen_tensor *out0, opgen_tensor *out1, opgen_tensor *out2) {
    opgen_tensor x, w, b, y[3];
    opgen_status st = widen_affine(ctx, input, weight, bias, &x, &w, &b, y);
    if (!st)
        st = opgen_portable_native_layer_norm_out(ctx, &x, normalized_shape, weight ? &w : NULL, bias ? &b : NULL, eps,
                                                  &y[0], &y[1], &y[2]);
    return st ? st : narrow3(ctx, input->dtype, y, out0, out1, out2);
}

opgen_status opgen_portable_native_layer_norm_out(opgen_ctx *ctx, const opgen_tensor *input,
                                                  opgen_int_list normalized_shape, const opgen_tensor *weight,
                                                  const opgen_tensor *bias, double eps, opgen_tensor *out0,
                                                  opgen_tensor *out1, opgen_tensor *out2) {
    uint32_t mask = OPGEN_WITH_FLOAT(OPGEN_KERNEL_DTYPES_opgen_portable_native_layer_norm_out);
    if (OPGEN_REDUCED(mask, input->dtype))
        return layer_norm_reduced(ctx, input, normalized_shape, weight, bias, eps, out0, out1, out2);
    int32_t k = (int32_t)normalized_shape.len, lead = input->dim - k;
    if (k < 1 || lead < 0)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: normalized_shape has %d dims, the input %d", ctx->op, (int)k,
                          (int)input->dim);
    int64_t n = 1, stat[OPGEN_MAX_DIM];
    for (int32_t i = 0; i < input->dim; i++) {
        if (i >= lead && input->sizes[i] != normalized_shape.data[i - lead])
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the input's trailing dimensions do not match normalized_shape",
                              ctx->op);
        if (i >= lead) n *= input->sizes[i];
        stat[i] = i >= lead ? 1 : input->sizes[i];
    }
    if (param_ok(ctx, weight, "weight", n, input->dtype) || param_ok(ctx, bias, "bias", n, input->dtype))
        return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    opgen_status st = opgen_out(ctx, out0, input->dtype, input->dim, input->sizes);
    if (!st) st = opgen_out(ctx, out1, input->dtype, input->dim, stat);
    if (!st) st = opgen_out(ctx, out2, input->dtype, input->dim, stat);
    opgen_tensor x, w, b;
    if (st || opgen_contiguous(ctx, input, &x) || (weight && opgen_contiguous(ctx, weight, &w)) ||
        (bias && opgen_contiguous(ctx, bias, &b)))
        return st ? st : ctx->err->code;
    if (ctx->meta) return OPGEN_OK;
    OPGEN_FLOAT_SWITCH(mask, input->dtype, ctx, T, {
        NORMALIZE_OF(T)
        (x.data, out0->data, n ? opgen_numel(input) / n : 0, n, 0, 1, weight ? w.data : NULL, bias ? b.data : NULL, eps,
         out1->data, out2->data);
    })
    return OPGEN_OK;
}

/* Half or BFloat16: this kernel on float copies, rounded once. */
static opgen_status group_norm_reduced(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight,
                                       const opgen_tensor *bias, int64_t N, int64_t C, int64_t HxW, int64_t group,
                                       double eps, opgen_tensor *out0, opgen_tensor *out1, opgen_tensor *out2) {
    opgen_tensor x, w, b, y[3];
    opgen_status st = widen_affine(ctx, input, weight, bias, &x, &w, &b, y);
    if (!st)
        st = opgen_portable_native_group_norm_out(ctx, &x, weight ? &w : NULL, bias ? &b : NULL, N, C, HxW, group, eps,
                                                  &y[0], &y[1], &y[2]);
    return st ? st : narrow3(ctx, input->dtype, y, out0, out1, out2);
}

opgen_status opgen_portable_native_group_norm_out(opgen_ctx *ctx, const opgen_tensor *input, const opgen_tensor *weight,
                                                  const opgen_tensor *bias, int64_t N, int64_t C, int64_t HxW,
                                                  int64_t group, double eps, opgen_tensor *out0, opgen_tensor *out1,
                                                  opgen_tensor *out2) {
    uint32_t mask = OPGEN_WITH_FLOAT(OPGEN_KERNEL_DTYPES_opgen_portable_native_group_norm_out);
    if (OPGEN_REDUCED(mask, input->dtype))
        return group_norm_reduced(ctx, input, weight, bias, N, C, HxW, group, eps, out0, out1, out2);
    if (input->dim < 2 || input->sizes[0] != N || input->sizes[1] != C || N < 0 || C <= 0 || HxW < 0 ||
        (N && C && HxW && opgen_numel(input) != N * C * HxW))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the input is not N x C x HxW = %lld x %lld x %lld", ctx->op,
                          (long long)N, (long long)C, (long long)HxW);
    if (group <= 0 || C % group)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %lld groups do not divide %lld channels", ctx->op,
                          (long long)group, (long long)C);
    if (param_ok(ctx, weight, "weight", C, input->dtype) || param_ok(ctx, bias, "bias", C, input->dtype))
        return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    int64_t stat[2] = {N, group};
    opgen_status st = opgen_out(ctx, out0, input->dtype, input->dim, input->sizes);
    if (!st) st = opgen_out(ctx, out1, input->dtype, 2, stat);
    if (!st) st = opgen_out(ctx, out2, input->dtype, 2, stat);
    opgen_tensor x, w, b;
    if (st || opgen_contiguous(ctx, input, &x) || (weight && opgen_contiguous(ctx, weight, &w)) ||
        (bias && opgen_contiguous(ctx, bias, &b)))
        return st ? st : ctx->err->code;
    if (ctx->meta) return OPGEN_OK;
    OPGEN_FLOAT_SWITCH(mask, input->dtype, ctx, T, {
        NORMALIZE_OF(T)
        (x.data, out0->data, N * group, C / group * HxW, HxW ? HxW : 1, group, weight ? w.data : NULL,
         bias ? b.data : NULL, eps, out1->data, out2->data);
    })
    return OPGEN_OK;
}

/* Batch norm in training without running statistics: per channel, the mean and
 * biased variance over the batch and spatial positions (in double), saved with
 * invstd = 1 / sqrt(var + eps); out = x * alpha + beta as in inference. */
opgen_status opgen_portable__native_batch_norm_legit_no_stats_out(opgen_ctx *ctx, const opgen_tensor *input,
                                                                  const opgen_tensor *weight, const opgen_tensor *bias,
                                                                  bool training, double momentum, double eps,
                                                                  opgen_tensor *out, opgen_tensor *save_mean,
                                                                  opgen_tensor *save_invstd) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable__native_batch_norm_legit_no_stats_out;
    (void)momentum;
    if (!training)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: without running statistics, batch norm needs training=True",
                          ctx->op);
    if (input->dim < 2)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: input needs a channel dimension (at least 2-d)", ctx->op);
    int64_t N = input->sizes[0], C = input->sizes[1], HW = 1;
    for (int32_t i = 2; i < input->dim; i++) HW *= input->sizes[i];
    if (param_ok(ctx, weight, "weight", C, input->dtype) || param_ok(ctx, bias, "bias", C, input->dtype))
        return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    opgen_status st = opgen_out(ctx, out, input->dtype, input->dim, input->sizes);
    if (!st) st = opgen_out(ctx, save_mean, input->dtype, 1, &C);
    if (!st) st = opgen_out(ctx, save_invstd, input->dtype, 1, &C);
    opgen_tensor x, w, b;
    if (st || opgen_contiguous(ctx, input, &x) || (weight && opgen_contiguous(ctx, weight, &w)) ||
        (bias && opgen_contiguous(ctx, bias, &b)))
        return st ? st : ctx->err->code;
    if (ctx->meta) return OPGEN_OK;
    OPGEN_FLOAT_SWITCH(mask, input->dtype, ctx, T, {
        const T *xs = x.data, *ws = weight ? w.data : NULL, *bs = bias ? b.data : NULL;
        T *y = out->data, *sm = save_mean->data, *si = save_invstd->data;
        for (int64_t c = 0; c < C; c++) {
            double s = 0, m2 = 0, cnt = (double)(N * HW);
            for (int64_t n = 0; n < N; n++)
                for (int64_t i = 0; i < HW; i++) s += (double)xs[(n * C + c) * HW + i];
            double mean = s / cnt;
            for (int64_t n = 0; n < N; n++)
                for (int64_t i = 0; i < HW; i++)
                    m2 += ((double)xs[(n * C + c) * HW + i] - mean) * ((double)xs[(n * C + c) * HW + i] - mean);
            T invstd = (T)(1.0 / sqrt(m2 / cnt + eps));
            sm[c] = (T)mean, si[c] = invstd;
            T alpha = ws ? invstd * ws[c] : invstd, beta = (bs ? bs[c] : (T)0) - (T)mean * alpha;
            for (int64_t n = 0; n < N; n++)
                for (int64_t i = 0; i < HW; i++) y[(n * C + c) * HW + i] = xs[(n * C + c) * HW + i] * alpha + beta;
        }
    })
    return OPGEN_OK;
}

/* The gradient of a normalization over groups of n elements (a layer norm's row,
 * a group norm's (batch, group)): with x_hat = (x - mean) * rstd and g = dy * w,
 * dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat)); element k's weight is
 * w[k / cdiv]. Accumulated in double. */
#define NORM_BACKWARD(T, dy, x, w, mean, rstd, n, cdiv, dx)                             \
    do {                                                                                \
        double sg_ = 0, sgx_ = 0;                                                       \
        for (int64_t k_ = 0; k_ < (n); k_++) {                                          \
            double g_ = (double)(dy)[k_] * ((w) ? (double)(w)[k_ / (cdiv)] : 1.0);      \
            sg_ += g_, sgx_ += g_ * ((double)(x)[k_] - (mean)) * (rstd);                \
        }                                                                               \
        for (int64_t k_ = 0; k_ < (n); k_++) {                                          \
            double g_ = (double)(dy)[k_] * ((w) ? (double)(w)[k_ / (cdiv)] : 1.0),      \
                   xh_ = ((double)(x)[k_] - (mean)) * (rstd);                           \
            (dx)[k_] = (T)((rstd) * (g_ - sg_ / (double)(n)-xh_ * sgx_ / (double)(n))); \
        }                                                                               \
    } while (0)

static opgen_status norm_backward_outs(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *grad_out,
                                       const opgen_tensor *input, int32_t wdim, const int64_t *wsizes,
                                       opgen_tensor *out0, opgen_tensor *out1, opgen_tensor *out2) {
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    if (grad_out->dtype != input->dtype || grad_out->dim != input->dim ||
        memcmp(grad_out->sizes, input->sizes, sizeof(int64_t) * (size_t)input->dim))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: grad_out must have the input's dtype and shape", ctx->op);
    opgen_status st = opgen_out(ctx, out0, input->dtype, input->dim, input->sizes);
    if (!st) st = opgen_out(ctx, out1, input->dtype, wdim, wsizes);
    if (!st) st = opgen_out(ctx, out2, input->dtype, wdim, wsizes);
    return st;
}

/* every output is computed whatever output_mask asks (a planned program has a
 * place for each); without a weight the weight's gradient is still dy * x_hat */
opgen_status opgen_portable_native_layer_norm_backward_out(opgen_ctx *ctx, const opgen_tensor *grad_out,
                                                           const opgen_tensor *input, opgen_int_list normalized_shape,
                                                           const opgen_tensor *mean, const opgen_tensor *rstd,
                                                           const opgen_tensor *weight, const opgen_tensor *bias,
                                                           opgen_bool_list output_mask, opgen_tensor *out0,
                                                           opgen_tensor *out1, opgen_tensor *out2) {
    (void)bias, (void)output_mask;
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_native_layer_norm_backward_out;
    int32_t k = (int32_t)normalized_shape.len;
    if (k < 1 || k > input->dim)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: normalized_shape has %d dims, the input %d", ctx->op, (int)k,
                          (int)input->dim);
    int64_t n = 1, rows = 1;
    for (int32_t i = 0; i < k; i++) {
        if (normalized_shape.data[i] != input->sizes[input->dim - k + i])
            return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the input's trailing dimensions do not match normalized_shape",
                              ctx->op);
        n *= normalized_shape.data[i];
    }
    for (int32_t i = 0; i < input->dim - k; i++) rows *= input->sizes[i];
    if (opgen_numel(mean) != rows || opgen_numel(rstd) != rows || mean->dtype != input->dtype ||
        rstd->dtype != input->dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: mean and rstd must hold one value of the input's dtype per row",
                          ctx->op);
    if (weight && (opgen_numel(weight) != n || weight->dtype != input->dtype))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: weight must be shaped as normalized_shape", ctx->op);
    opgen_status st = norm_backward_outs(ctx, mask, grad_out, input, k, normalized_shape.data, out0, out1, out2);
    opgen_tensor dy, x, mu, rs, w;
    if (st || opgen_contiguous(ctx, grad_out, &dy) || opgen_contiguous(ctx, input, &x) ||
        opgen_contiguous(ctx, mean, &mu) || opgen_contiguous(ctx, rstd, &rs) ||
        (weight && opgen_contiguous(ctx, weight, &w)) || ctx->meta)
        return st ? st : ctx->err->code;
    OPGEN_FLOAT_SWITCH(mask, input->dtype, ctx, T, {
        const T *g = dy.data, *xs = x.data, *m = mu.data, *r = rs.data, *ws = weight ? (const T *)w.data : NULL;
        T *dx = out0->data, *dw = out1->data, *db = out2->data;
        for (int64_t i = 0; i < rows; i++)
            NORM_BACKWARD(T, g + i * n, xs + i * n, ws, (double)m[i], (double)r[i], n, 1, dx + i * n);
        for (int64_t j = 0; j < n; j++) {
            double sw = 0, sb = 0;
            for (int64_t i = 0; i < rows; i++)
                sw += (double)g[i * n + j] * ((double)xs[i * n + j] - (double)m[i]) * (double)r[i],
                    sb += (double)g[i * n + j];
            dw[j] = (T)sw, db[j] = (T)sb;
        }
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_native_group_norm_backward_out(opgen_ctx *ctx, const opgen_tensor *grad_out,
                                                           const opgen_tensor *input, const opgen_tensor *mean,
                                                           const opgen_tensor *rstd, const opgen_tensor *weight,
                                                           int64_t N, int64_t C, int64_t HxW, int64_t group,
                                                           opgen_bool_list output_mask, opgen_tensor *out0,
                                                           opgen_tensor *out1, opgen_tensor *out2) {
    (void)output_mask;
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_native_group_norm_backward_out;
    if (group < 1 || C % group)
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %lld groups do not divide %lld channels", ctx->op,
                          (long long)group, (long long)C);
    if (N < 0 || C < 0 || HxW < 0 || opgen_numel(input) != N * C * HxW)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: the input does not hold N * C * HxW elements", ctx->op);
    if (opgen_numel(mean) != N * group || opgen_numel(rstd) != N * group || mean->dtype != input->dtype ||
        rstd->dtype != input->dtype)
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: mean and rstd must hold N * group values of the input's dtype",
                          ctx->op);
    if (weight && (opgen_numel(weight) != C || weight->dtype != input->dtype))
        return OPGEN_FAIL(ctx, OPGEN_E_SHAPE, "%s: weight must hold C values", ctx->op);
    opgen_status st = norm_backward_outs(ctx, mask, grad_out, input, 1, &C, out0, out1, out2);
    opgen_tensor dy, x, mu, rs, w;
    if (st || opgen_contiguous(ctx, grad_out, &dy) || opgen_contiguous(ctx, input, &x) ||
        opgen_contiguous(ctx, mean, &mu) || opgen_contiguous(ctx, rstd, &rs) ||
        (weight && opgen_contiguous(ctx, weight, &w)) || ctx->meta)
        return st ? st : ctx->err->code;
    int64_t D = C / group, n = D * HxW;
    OPGEN_FLOAT_SWITCH(mask, input->dtype, ctx, T, {
        const T *g = dy.data, *xs = x.data, *m = mu.data, *r = rs.data, *ws = weight ? (const T *)w.data : NULL;
        T *dx = out0->data, *dw = out1->data, *db = out2->data;
        for (int64_t b = 0; b < N; b++)
            for (int64_t gi = 0; gi < group; gi++) {
                int64_t at = (b * C + gi * D) * HxW;
                const T *wg = ws ? ws + gi * D : NULL;
                NORM_BACKWARD(T, g + at, xs + at, wg, (double)m[b * group + gi], (double)r[b * group + gi], n, HxW,
                              dx + at);
            }
        for (int64_t c = 0; c < C; c++) {
            double sw = 0, sb = 0;
            for (int64_t b = 0; b < N; b++) {
                double mb = (double)m[b * group + c / D], rb = (double)r[b * group + c / D];
                for (int64_t k = 0; k < HxW; k++) {
                    int64_t at = (b * C + c) * HxW + k;
                    sw += (double)g[at] * ((double)xs[at] - mb) * rb, sb += (double)g[at];
                }
            }
            dw[c] = (T)sw, db[c] = (T)sb;
        }
    })
    return OPGEN_OK;
}
