/* Batch norm in inference (_native_batch_norm_legit_no_training), as ATen's CPU
 * kernel: per channel alpha = weight / sqrt(var + eps) and beta = bias - mean *
 * alpha, in the input's type, then out = x * alpha + beta. */
#include "opgen/loops.h"
#include "opgen_registry.h"

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
    /* one channel at a time: the input and output with dimension 1 cut to that channel */
    opgen_tensor iv = *input, ov = *out0;
    iv.sizes[1] = ov.sizes[1] = 1;
    size_t ies = (size_t)opgen_dtype_size(input->dtype);
    OPGEN_FLOAT_SWITCH(mask, input->dtype, ctx, T, {
        
            for (int64_t c = 0; c < C; c++) {
                T mean = ((const T *)running_mean->data)[c * running_mean->strides[0]], var = ((const T *)running_var->data)[c * running_var->strides[0]];
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
