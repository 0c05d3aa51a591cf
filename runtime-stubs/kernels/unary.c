/* Unary math and activations on the kernel idiom: relu, abs, sigmoid, tanh, exp, gelu
 * (none and tanh), hardtanh and clamp. The transcendental ones (sigmoid, tanh,
 * exp, gelu) compute in double with ATen's formula and round once: nearly always
 * the float nearest the exact value, so never farther from it than ATen's float
 * kernels (Sleef's 1-ulp exp and tanh, its own erf). Integer inputs of float ops
 * give Float, as in ATen. */
#include "opgen/loops.h"
#include "opgen_registry.h"

#ifndef M_SQRT1_2
#define M_SQRT1_2 0.70710678118654752440
#endif

typedef enum { U_RELU, U_ABS, U_SIGMOID, U_TANH, U_EXP, U_GELU, U_GELU_TANH } unop;

/* f(x) in T (float or double), ATen's formula and operation order. */
#define UNARY_F(T, op, x)                                                 \
    (op == U_SIGMOID ? (T)1 / ((T)1 + OPGEN_MATH(T, exp)(-(x)))           \
     : op == U_TANH  ? OPGEN_MATH(T, tanh)(x)                             \
     : op == U_EXP   ? OPGEN_MATH(T, exp)(x)                              \
     : op == U_GELU                                                       \
         ? (x) * (T)0.5 * ((T)1 + OPGEN_MATH(T, erf)((x) * (T)M_SQRT1_2)) \
         : (T)0.5 * (x) *                                                 \
               ((T)1 + OPGEN_MATH(T, tanh)((T)0.7978845608028654 * ((x) + (T)0.044715 * ((x) * (x) * (x))))))

/* relu of contiguous floats, a model's activations: compiled for each vector width
 * (OPGEN_DISPATCHED), 16 values at a time through a local block, so a result in
 * place (y == x) vectorizes too; the generic loop's values (x < 0 ? 0 : x). A
 * build for size (OPGEN_SPEED_PATHS 0) leaves it out. */
OPGEN_DISPATCHED static void relu_f32(const float *x, float *y, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        float v[16];
        for (int k = 0; k < 16; k++) v[k] = x[i + k] < 0.0f ? 0.0f : x[i + k];
        for (int k = 0; k < 16; k++) y[i + k] = v[k];
    }
    for (; i < n; i++) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

/* clamp (hardtanh) of contiguous floats so: MobileNet's ReLU6 where it is not
 * fused into the convolution before it (the generic loop, compiled for the
 * baseline only, took 120 us over MobileNetV2's first 1.2 MB one). An absent
 * bound comes as an infinity; max with lo, then min with hi, as the generic
 * loop: a NaN passes (both comparisons are false for it). */
static inline float clamp1(float a, float lo, float hi) {
    float t = a < lo ? lo : a;
    return t > hi ? hi : t;
}
OPGEN_DISPATCHED static void clamp_f32(const float *x, float *y, int64_t n, float lo, float hi) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        float v[16];
        for (int k = 0; k < 16; k++) v[k] = clamp1(x[i + k], lo, hi);
        for (int k = 0; k < 16; k++) y[i + k] = v[k];
    }
    for (; i < n; i++) y[i] = clamp1(x[i], lo, hi);
}

/* The iteration is one contiguous run of floats, the result in place or apart. */
static bool contiguous_f32(const opgen_iter *it) {
    if (it->ndim != 1 || it->dtype[0] != OPGEN_DTYPE_Float || it->dtype[1] != OPGEN_DTYPE_Float) return false;
    if (it->stride[0][0] != 4 || it->stride[1][0] != 4) return false;
    const char *x = it->data[1], *y = it->data[0];
    return x == y || x + 4 * it->numel <= y || y + 4 * it->numel <= x;
}

/* Float math on float tensors; integer input gives Float (ATen's float ops); relu
 * keeps the dtype (ATen's clamp_min: max(x, 0), so NaN and -0.0 stay), and so
 * does abs (the most negative integer stays itself, as in ATen). */
OPGEN_SPECIALIZED opgen_status unary(opgen_ctx *ctx, uint32_t mask, unop op, const opgen_tensor *self,
                                     opgen_tensor *out) {
    opgen_dtype res = self->dtype;
    if (op == U_RELU || op == U_ABS) {
        if (self->dtype == OPGEN_DTYPE_Bool)
            return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: %s is not defined for Bool", ctx->op,
                              op == U_RELU ? "relu" : "abs");
    } else if (!opgen_is_float(res)) {
        if (op == U_GELU || op == U_GELU_TANH)
            return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: gelu needs a floating point tensor, not %s", ctx->op,
                              opgen_dtype_name(res));
        res = OPGEN_DTYPE_Float;
    }
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    opgen_status st = opgen_out_any(ctx, out, res, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    opgen_iter it;
    const opgen_tensor *in[1] = {self};
    if (opgen_iter_init(ctx, &it, out, in, 1)) return ctx->err->code;
    if (OPGEN_SPEED_PATHS && op == U_RELU && OPGEN_HAS(mask, OPGEN_DTYPE_Float) && contiguous_f32(&it)) {
        relu_f32((const float *)it.data[1], (float *)it.data[0], it.numel);
        return OPGEN_OK;
    }
    OPGEN_REAL_SWITCH(mask, res, ctx, T, {
        if (op == U_RELU)
            OPGEN_MAP1(&it, mask, T, T, OPGEN_LT0(T, x) ? (T)0 : x);
        else if (op == U_ABS)
            OPGEN_MAP1(&it, mask, T, T, OPGEN_ABS(T, x));
        else if (OPGEN_IS_FLOAT_T(T)) /* in double, rounded once: never farther from exact than ATen */
            OPGEN_MAP1(&it, mask, T, double, UNARY_F(double, op, x));
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_relu_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    return unary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_relu_out, U_RELU, self, out);
}
opgen_status opgen_portable_abs_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    return unary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_abs_out, U_ABS, self, out);
}
opgen_status opgen_portable_sigmoid_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    return unary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_sigmoid_out, U_SIGMOID, self, out);
}
opgen_status opgen_portable_tanh_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    return unary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_tanh_out, U_TANH, self, out);
}
opgen_status opgen_portable_exp_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    return unary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_exp_out, U_EXP, self, out);
}
opgen_status opgen_portable_gelu_out(opgen_ctx *ctx, const opgen_tensor *self, const char *approximate,
                                     opgen_tensor *out) {
    unop op;
    if (!strcmp(approximate, "none"))
        op = U_GELU;
    else if (!strcmp(approximate, "tanh"))
        op = U_GELU_TANH;
    else
        return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: approximate must be 'none' or 'tanh', not '%s'", ctx->op,
                          approximate);
    return unary(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_gelu_out, op, self, out);
}

/* clamp and hardtanh: ATen's min(max(x, lo), hi) (lo > hi gives hi), either bound
 * may be absent (clamp), NaN passes through. */
OPGEN_SPECIALIZED opgen_status clamp(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self, const opgen_scalar *lo,
                                     const opgen_scalar *hi, opgen_tensor *out) {
    const opgen_tensor *ts[1] = {self};
    const opgen_scalar *ss[2] = {lo, hi};
    opgen_dtype res = opgen_result_type(ts, 1, ss, 2);
    if (res == OPGEN_DTYPE_Bool) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: not defined for Bool", ctx->op);
    if (!lo && !hi) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: at least one of min and max must be given", ctx->op);
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    opgen_status st = opgen_out_any(ctx, out, res, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    opgen_iter it;
    const opgen_tensor *in[1] = {self};
    if (opgen_iter_init(ctx, &it, out, in, 1)) return ctx->err->code;
    if (OPGEN_SPEED_PATHS && OPGEN_HAS(mask, OPGEN_DTYPE_Float) && res == OPGEN_DTYPE_Float && contiguous_f32(&it)) {
        clamp_f32((const float *)it.data[1], (float *)it.data[0], it.numel, lo ? OPGEN_SCALAR_AS(float, lo) : -INFINITY,
                  hi ? OPGEN_SCALAR_AS(float, hi) : INFINITY);
        return OPGEN_OK;
    }
    OPGEN_REAL_SWITCH(mask, res, ctx, T, {
        T l = lo ? OPGEN_SCALAR_AS(T, lo) : (T)0, h = hi ? OPGEN_SCALAR_AS(T, hi) : (T)0;
        if (lo && hi)
            OPGEN_MAP1(&it, mask, T, T, x != x ? x : (x < l ? l : x) > h ? h : (x < l ? l : x));
        else if (lo)
            OPGEN_MAP1(&it, mask, T, T, x < l ? l : x);
        else
            OPGEN_MAP1(&it, mask, T, T, x > h ? h : x);
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_hardtanh_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *min_val,
                                         const opgen_scalar *max_val, opgen_tensor *out) {
    return clamp(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_hardtanh_out, self, min_val, max_val, out);
}
opgen_status opgen_portable_clamp_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *min,
                                      const opgen_scalar *max, opgen_tensor *out) {
    return clamp(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_clamp_out, self, min, max, out);
}

/* elu and leaky_relu in the tensor's float type, ATen's formulas and order:
 * elu x <= 0 ? (exp(x * input_scale) - 1) * (alpha * scale) : x * scale. */
opgen_status opgen_portable_elu_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *alpha,
                                    const opgen_scalar *scale, const opgen_scalar *input_scale, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_elu_out;
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out_any(ctx, out, self->dtype, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    opgen_iter it;
    const opgen_tensor *in[1] = {self};
    if (opgen_iter_init(ctx, &it, out, in, 1)) return ctx->err->code;
    OPGEN_FLOAT_SWITCH(mask, self->dtype, ctx, T, {
        T neg = OPGEN_SCALAR_AS(T, alpha) * OPGEN_SCALAR_AS(T, scale), pos = OPGEN_SCALAR_AS(T, scale),
          in_s = OPGEN_SCALAR_AS(T, input_scale);
        OPGEN_MAP1(&it, mask, T, T, x <= (T)0 ? ((T)exp((double)(x * in_s)) - (T)1) * neg : x * pos);
    })
    return OPGEN_OK;
}

opgen_status opgen_portable_leaky_relu_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_scalar *negative_slope,
                                           opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_leaky_relu_out;
    OPGEN_CHECK_DTYPE(ctx, mask, self->dtype, "the input");
    opgen_status st = opgen_out_any(ctx, out, self->dtype, self->dim, self->sizes);
    if (st || ctx->meta) return st;
    opgen_iter it;
    const opgen_tensor *in[1] = {self};
    if (opgen_iter_init(ctx, &it, out, in, 1)) return ctx->err->code;
    OPGEN_FLOAT_SWITCH(mask, self->dtype, ctx, T, {
        T slope = OPGEN_SCALAR_AS(T, negative_slope);
        OPGEN_MAP1(&it, mask, T, T, x > (T)0 ? x : x * slope);
    })
    return OPGEN_OK;
}

/* clamp with tensor bounds (either may be absent), ATen's: NaN in a bound gives
 * NaN, else std::min(std::max(x, lo), hi) (a NaN x stays); one bound alone is
 * maximum or minimum (NaN propagates). */
opgen_status opgen_portable_clamp_Tensor_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *min,
                                             const opgen_tensor *max, opgen_tensor *out) {
    uint32_t mask = OPGEN_KERNEL_DTYPES_opgen_portable_clamp_Tensor_out;
    if (!min && !max) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: at least one of min and max must be given", ctx->op);
    const opgen_tensor *ts[3] = {self, min, max};
    opgen_dtype res = opgen_result_type(ts, 3, NULL, 0);
    if (res == OPGEN_DTYPE_Bool) return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: not defined for Bool", ctx->op);
    int32_t d1, dim;
    int64_t s1[OPGEN_MAX_DIM], sizes[OPGEN_MAX_DIM];
    const opgen_tensor *lo = min ? min : self, *hi = max ? max : self;
    if (opgen_broadcast(ctx, self, lo, &d1, s1)) return ctx->err->code;
    opgen_tensor shape;
    memset(&shape, 0, sizeof shape);
    shape.dim = d1;
    memcpy(shape.sizes, s1, sizeof(int64_t) * (size_t)d1);
    if (opgen_broadcast(ctx, &shape, hi, &dim, sizes)) return ctx->err->code;
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    opgen_status st = opgen_out_any(ctx, out, res, dim, sizes);
    if (st || ctx->meta) return st;
    opgen_iter it;
    const opgen_tensor *in[3] = {self, lo, hi};
    if (opgen_iter_init(ctx, &it, out, in, 3)) return ctx->err->code;
    bool has_lo = min, has_hi = max;
    OPGEN_REAL_SWITCH(mask, res, ctx, T, {
        if (has_lo && has_hi)
            OPGEN_MAP3(&it, mask, T, T,
                       OPGEN_ISNAN(T, y) || OPGEN_ISNAN(T, z) ? OPGEN_NAN(T)
                                                              : (z < (x < y ? y : x) ? z : (x < y ? y : x)));
        else if (has_lo)
            OPGEN_MAP3(&it, mask, T, T, ((void)z, OPGEN_ISNAN(T, x) ? x : OPGEN_ISNAN(T, y) ? y : x < y ? y : x));
        else
            OPGEN_MAP3(&it, mask, T, T, ((void)y, OPGEN_ISNAN(T, x) ? x : OPGEN_ISNAN(T, z) ? z : x > z ? z : x));
    })
    return OPGEN_OK;
}
