/* Random ops: rand, randn, randperm and native_dropout, drawn from the program's
 * generator (opgen_random_bits: SplitMix64 seeded by opgen_load_options.seed).
 * PyTorch's own streams (mt19937, Philox) are not reproduced: the values are
 * opgen's, deterministic for a seed, with the distributions ATen gives. */
#include "opgen/loops.h"
#include "opgen_registry.h"

static opgen_status need_rng(opgen_ctx *ctx) {
    return ctx->rng ? OPGEN_OK
                    : OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: a random op needs a program's generator", ctx->op);
}

/* uniform in [0, 1): 24 random bits for Float, 53 for Double */
opgen_status opgen_portable_rand_out(opgen_ctx *ctx, opgen_int_list size, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_rand_out;
    opgen_status st = opgen_factory_out(ctx, mask, size, OPGEN_DTYPE_Float, out);
    if (st || ctx->meta || need_rng(ctx)) return st ? st : ctx->err->code;
    int64_t n = opgen_numel(out);
    OPGEN_FLOAT_SWITCH(mask, out->dtype, ctx, T, {
        T *y = out->data;
        for (int64_t i = 0; i < n; i++)
            y[i] = sizeof(T) == 4 ? (T)((double)(opgen_random_bits(ctx) >> 40) * 0x1p-24) : (T)opgen_random_unit(ctx);
    })
    return OPGEN_OK;
}

/* standard normal: Box-Muller, both values of each pair used */
opgen_status opgen_portable_randn_out(opgen_ctx *ctx, opgen_int_list size, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_randn_out;
    opgen_status st = opgen_factory_out(ctx, mask, size, OPGEN_DTYPE_Float, out);
    if (st || ctx->meta || need_rng(ctx)) return st ? st : ctx->err->code;
    int64_t n = opgen_numel(out);
    OPGEN_FLOAT_SWITCH(mask, out->dtype, ctx, T, {
        T *y = out->data;
        for (int64_t i = 0; i < n; i += 2) {
            double r = sqrt(-2.0 * log(1.0 - opgen_random_unit(ctx))), a = 6.283185307179586 * opgen_random_unit(ctx);
            y[i] = (T)(r * cos(a));
            if (i + 1 < n) y[i + 1] = (T)(r * sin(a));
        }
    })
    return OPGEN_OK;
}

/* a permutation of 0..n-1 (Fisher-Yates) */
opgen_status opgen_portable_randperm_out(opgen_ctx *ctx, int64_t n, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_randperm_out;
    if (n < 0) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: n must be non-negative, got %lld", ctx->op, (long long)n);
    int64_t *p = opgen_scratch(ctx, sizeof(int64_t) * (size_t)(n + 1));
    opgen_status st = opgen_factory_out(ctx, mask, (opgen_int_list){&n, 1}, OPGEN_DTYPE_Long, out);
    if (st || ctx->meta || need_rng(ctx)) return st ? st : ctx->err->code;
    if (!p) return OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
    for (int64_t i = 0; i < n; i++) p[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)(opgen_random_bits(ctx) % (uint64_t)(i + 1)), t = p[i];
        p[i] = p[j], p[j] = t;
    }
    OPGEN_REAL_SWITCH(mask, out->dtype, ctx, T, {
        T *y = out->data;
        for (int64_t i = 0; i < n; i++) y[i] = (T)p[i];
    })
    return OPGEN_OK;
}

/* native_dropout: training (train None or True) keeps each element with
 * probability 1 - p, scaled by 1 / (1 - p), mask = kept; otherwise the input and
 * a mask of ones, as ATen. */
opgen_status opgen_portable_native_dropout_out(opgen_ctx *ctx, const opgen_tensor *input, double p, const bool *train,
                                               opgen_tensor *out0, opgen_tensor *out1) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_native_dropout_out;
    if (!(p >= 0 && p <= 1))
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: dropout probability has to be between 0 and 1, but got %g",
                          ctx->op, p);
    OPGEN_CHECK_DTYPE(ctx, mask, input->dtype, "the input");
    opgen_status st = opgen_out(ctx, out0, input->dtype, input->dim, input->sizes);
    if (!st) st = opgen_out(ctx, out1, OPGEN_DTYPE_Bool, input->dim, input->sizes);
    opgen_tensor x;
    bool training = !train || *train;
    if (st || opgen_contiguous(ctx, input, &x) || ctx->meta || (training && need_rng(ctx)))
        return st ? st : ctx->err->code;
    int64_t n = opgen_numel(out0);
    bool *m = out1->data;
    double keep = 1.0 - p, scale = keep == 0 ? 0 : 1.0 / keep;
    OPGEN_FLOAT_SWITCH(mask, input->dtype, ctx, T, {
        const T *xs = x.data;
        T *y = out0->data;
        for (int64_t i = 0; i < n; i++) {
            m[i] = !training || opgen_random_unit(ctx) < keep;
            y[i] = training ? (xs[i] * (T)m[i]) * (T)scale : xs[i];
        }
    })
    return OPGEN_OK;
}
