/* The q8 backend ops' native kernels (yaml/backend_ops.yaml, yaml/kernels.yaml):
 * PT2E's int8 chains, written as one op each by `opgen-rt lower --backend q8`,
 * computed on the integer kernels (q8.h) as a .pte program's chains are at load
 * (rewrite_q8.c), the filter packed at each call into the call's scratch. What
 * the integer kernels cannot take (other dtypes or layouts, grouped filters, a
 * weight zero point other than 0, a scale that is not positive) runs the op's
 * fallback: its pattern on the float kernels, which also refuses what is
 * malformed. In meta mode both are counted: the fallback's temporaries and the
 * integer path's scratch. */
#include "opgen/kernel.h"
#include "opgen/loops.h"
#include "opgen_registry.h"
#include "q8_arith.h"
#include <math.h>

static bool i8(const opgen_tensor *t) { return t->dtype == OPGEN_DTYPE_Char && opgen_tensor_is_contiguous(t); }
static bool f32(const opgen_tensor *t, int64_t n) {
    return t->dtype == OPGEN_DTYPE_Float && opgen_tensor_is_contiguous(t) && opgen_numel(t) == n;
}
static bool scale_ok(double s) { return s > 0 && isfinite(s) && (float)s > 0; }
static bool zp_ok(int64_t z) { return z >= -128 && z <= 127; }

/* Every zero point 0 (or none given); in meta mode (no data yet) n of them. */
static bool zeros(const opgen_tensor *z, int64_t n) {
    if (!z) return true;
    if (opgen_numel(z) != n || !opgen_tensor_is_contiguous(z)) return false;
    for (int64_t i = 0; z->data && i < n; i++) {
        int64_t v;
        opgen_convert_i64(&v, (const char *)z->data + (size_t)i * (size_t)opgen_dtype_size(z->dtype), 0, z->dtype, 1);
        if (v) return false;
    }
    return true;
}

static int64_t pick(opgen_int_list l, int i) { return l.data[l.len == 1 ? 0 : i]; }

/* The requantization into (out_scale, out_zp), after act (0, 1 relu, 2 clamp to [lo, hi]). */
static opgen_q8_requant requant_of(double out_scale, int64_t out_zp, int act, double lo, double hi) {
    opgen_q8_requant rq = {1.0f / (float)out_scale, (int32_t)out_zp, -128, 127, act, (float)lo, (float)hi, 0, 0};
    opgen_q8_requant_range(&rq);
    return rq;
}

static opgen_status no_memory(opgen_ctx *ctx) {
    return ctx->err->code ? ctx->err->code : OPGEN_FAIL(ctx, OPGEN_E_NO_MEMORY, "%s: out of memory", ctx->op);
}

/* A product the integer kernels take: its operands and geometry. */
typedef struct q8_call {
    const opgen_tensor *x, *w, *scales, *bias;
    double x_scale;
    opgen_q8_conv_geom g;
    bool depthwise;
} q8_call;

/* The filter packed into scratch, then the product (in meta mode: both counted,
 * the convolution's scratch for either filter layout). */
static opgen_status q8_run(opgen_ctx *ctx, const q8_call *c, const opgen_q8_requant *rq, opgen_tensor *out) {
    int64_t O = c->w->sizes[0], C = c->w->sizes[1], KH = c->w->dim == 4 ? c->w->sizes[2] : 1;
    int64_t KW = c->w->dim == 4 ? c->w->sizes[3] : 1;
    void *mem = opgen_scratch(ctx, opgen_q8_filter_bytes(O, C, KH, KW, c->depthwise));
    opgen_q8_filter f = {.O = O, .K = C * KH * KW, .Kp = ceil_div(C, 4) * 4 * KH * KW, .depthwise = c->depthwise};
    if (ctx->meta) {
        size_t a = opgen_q8_conv_scratch(&c->g, &f, ctx->par);
        f.lanes = true;
        size_t b = opgen_q8_conv_scratch(&c->g, &f, ctx->par);
        opgen_scratch(ctx, a > b ? a : b);
        return OPGEN_OK;
    }
    if (!mem) return no_memory(ctx);
    opgen_q8_filter_pack(&f, mem, c->w->data, O, C, KH, KW, c->depthwise, c->scales->data, true, (float)c->x_scale,
                         c->bias ? c->bias->data : NULL, rq, &c->g);
    void *scratch = opgen_scratch(ctx, opgen_q8_conv_scratch(&c->g, &f, ctx->par));
    if (!scratch) return no_memory(ctx);
    opgen_q8_conv(ctx->par, &c->g, &f, rq, c->x->data, out->data, scratch);
    return OPGEN_OK;
}

/* The weights and activations the integer kernels take. */
static bool operands_fit(const opgen_tensor *x, double x_scale, int64_t x_zp, const opgen_tensor *w,
                         const opgen_tensor *scales, const opgen_tensor *wzp, const opgen_tensor *bias,
                         double out_scale, int64_t out_zp) {
    int64_t O = w->sizes[0];
    return i8(x) && i8(w) && scale_ok(x_scale) && zp_ok(x_zp) && scale_ok(out_scale) && zp_ok(out_zp) &&
           f32(scales, O) && zeros(wzp, O) && (!bias || f32(bias, O));
}

/* A 2-D convolution the integer kernels take, into c; false otherwise. */
static bool conv_fits(const opgen_tensor *x, const opgen_tensor *w, opgen_int_list stride, opgen_int_list padding,
                      opgen_int_list dilation, int64_t groups, int32_t zx, q8_call *c) {
    if (x->dim != 4 || w->dim != 4 || stride.len < 1 || stride.len > 2 || padding.len < 1 || padding.len > 2 ||
        dilation.len < 1 || dilation.len > 2)
        return false;
    int64_t O = w->sizes[0], C = x->sizes[1];
    c->depthwise = groups > 1 && groups == C && O == C && w->sizes[1] == 1 && w->sizes[2] * w->sizes[3] <= 64;
    if ((groups != 1 || w->sizes[1] != C) && !c->depthwise) return false;
    opgen_q8_conv_geom g = {x->sizes[0], C, x->sizes[2], x->sizes[3], w->sizes[2], w->sizes[3],
                            0,           0, {0, 0},      {0, 0},      {0, 0},      zx};
    for (int i = 0; i < 2; i++) {
        g.s[i] = pick(stride, i), g.p[i] = pick(padding, i), g.d[i] = pick(dilation, i);
        if (g.s[i] < 1 || g.p[i] < 0 || g.d[i] < 1) return false;
    }
    g.OH = (g.H + 2 * g.p[0] - g.d[0] * (g.KH - 1) - 1) / g.s[0] + 1;
    g.OW = (g.W + 2 * g.p[1] - g.d[1] * (g.KW - 1) - 1) / g.s[1] + 1;
    c->g = g;
    return g.N >= 1 && g.OH >= 1 && g.OW >= 1;
}

/* The convolution on int8 into out, or (*taken false) nothing done. */
static opgen_status conv(opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zp, const opgen_tensor *w,
                         const opgen_tensor *scales, const opgen_tensor *wzp, const opgen_tensor *bias,
                         opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation, int64_t groups,
                         double out_scale, int64_t out_zp, opgen_q8_requant rq, opgen_tensor *out, bool *taken) {
    q8_call c = {x, w, scales, bias, x_scale, {0}, false};
    *taken = operands_fit(x, x_scale, x_zp, w, scales, wzp, bias, out_scale, out_zp) &&
             conv_fits(x, w, stride, padding, dilation, groups, (int32_t)x_zp, &c);
    if (!*taken) return OPGEN_OK;
    int64_t sizes[4] = {c.g.N, w->sizes[0], c.g.OH, c.g.OW};
    opgen_status st = opgen_out(ctx, out, OPGEN_DTYPE_Char, 4, sizes);
    return st ? st : q8_run(ctx, &c, &rq, out);
}

/* Each op: in meta mode its fallback first (the result's shape, the checks, its
 * temporaries counted), then the integer path (its scratch counted); at run
 * the integer path, else the fallback. */
#define Q8_NATIVE(call_fallback, call_native) \
    bool taken = false;                       \
    if (ctx->meta) {                          \
        opgen_status st = call_fallback;      \
        if (st) return st;                    \
    }                                         \
    opgen_status st = call_native;            \
    return st || taken ? st : ctx->meta ? OPGEN_OK : call_fallback;

#define CONV_ARGS \
    x, x_scale, x_zero_point, weight, weight_scales, weight_zero_points, bias, stride, padding, dilation, groups
opgen_status opgen_native_q8_conv2d_out(opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zero_point,
                                        const opgen_tensor *weight, const opgen_tensor *weight_scales,
                                        const opgen_tensor *weight_zero_points, const opgen_tensor *bias,
                                        opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation,
                                        int64_t groups, double out_scale, int64_t out_zero_point, opgen_tensor *out){
    Q8_NATIVE(opgen_fallback_q8_conv2d_out(ctx, CONV_ARGS, out_scale, out_zero_point, out),
              conv(ctx, CONV_ARGS, out_scale, out_zero_point, requant_of(out_scale, out_zero_point, 0, 0, 0), out,
                   &taken))}

opgen_status
    opgen_native_q8_conv2d_relu_out(opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zero_point,
                                    const opgen_tensor *weight, const opgen_tensor *weight_scales,
                                    const opgen_tensor *weight_zero_points, const opgen_tensor *bias,
                                    opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation,
                                    int64_t groups, double out_scale, int64_t out_zero_point, opgen_tensor *out) {
    Q8_NATIVE(
        opgen_fallback_q8_conv2d_relu_out(ctx, CONV_ARGS, out_scale, out_zero_point, out),
        conv(ctx, CONV_ARGS, out_scale, out_zero_point, requant_of(out_scale, out_zero_point, 1, 0, 0), out, &taken))
}

static double scalar_of(const opgen_scalar *s) {
    return s->dtype == OPGEN_DTYPE_Bool ? (double)s->v.b : opgen_is_float(s->dtype) ? s->v.f : (double)s->v.i;
}

opgen_status opgen_native_q8_conv2d_hardtanh_out(
    opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zero_point, const opgen_tensor *weight,
    const opgen_tensor *weight_scales, const opgen_tensor *weight_zero_points, const opgen_tensor *bias,
    opgen_int_list stride, opgen_int_list padding, opgen_int_list dilation, int64_t groups, const opgen_scalar *min_val,
    const opgen_scalar *max_val, double out_scale, int64_t out_zero_point, opgen_tensor *out) {
    double lo = scalar_of(min_val), hi = scalar_of(max_val);
    Q8_NATIVE(opgen_fallback_q8_conv2d_hardtanh_out(ctx, CONV_ARGS, min_val, max_val, out_scale, out_zero_point, out),
              lo <= hi ? conv(ctx, CONV_ARGS, out_scale, out_zero_point,
                              requant_of(out_scale, out_zero_point, 2, lo, hi), out, &taken)
                       : OPGEN_OK)
}
#undef CONV_ARGS

/* The linear layer on int8 into out, or (*taken false) nothing done. */
static opgen_status linear(opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zp, const opgen_tensor *w,
                           const opgen_tensor *scales, const opgen_tensor *wzp, const opgen_tensor *bias,
                           double out_scale, int64_t out_zp, opgen_tensor *out, bool *taken) {
    *taken = x->dim == 2 && w->dim == 2 && x->sizes[1] == w->sizes[1] && x->sizes[0] >= 1 &&
             operands_fit(x, x_scale, x_zp, w, scales, wzp, bias, out_scale, out_zp);
    if (!*taken) return OPGEN_OK;
    q8_call c = {x,    w,       scales,
                 bias, x_scale, {x->sizes[0], x->sizes[1], 1, 1, 1, 1, 1, 1, {1, 1}, {0, 0}, {1, 1}, (int32_t)x_zp},
                 false};
    int64_t sizes[2] = {x->sizes[0], w->sizes[0]};
    opgen_q8_requant rq = requant_of(out_scale, out_zp, 0, 0, 0);
    opgen_status st = opgen_out(ctx, out, OPGEN_DTYPE_Char, 2, sizes);
    return st ? st : q8_run(ctx, &c, &rq, out);
}

opgen_status opgen_native_q8_linear_out(opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zero_point,
                                        const opgen_tensor *weight, const opgen_tensor *weight_scales,
                                        const opgen_tensor *weight_zero_points, const opgen_tensor *bias,
                                        double out_scale, int64_t out_zero_point, opgen_tensor *out) {
    Q8_NATIVE(opgen_fallback_q8_linear_out(ctx, x, x_scale, x_zero_point, weight, weight_scales, weight_zero_points,
                                           bias, out_scale, out_zero_point, out),
              linear(ctx, x, x_scale, x_zero_point, weight, weight_scales, weight_zero_points, bias, out_scale,
                     out_zero_point, out, &taken))
}

/* ---- elementwise and pooling ---- */

/* out shaped as x (int8), where x and the scales fit; false: nothing done. */
static bool same_shape(opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zp, double out_scale,
                       int64_t out_zp, opgen_tensor *out, opgen_status *st) {
    if (!i8(x) || !scale_ok(x_scale) || !zp_ok(x_zp) || !scale_ok(out_scale) || !zp_ok(out_zp)) return false;
    *st = opgen_out(ctx, out, OPGEN_DTYPE_Char, x->dim, x->sizes);
    return true;
}

static opgen_status add(opgen_ctx *ctx, const opgen_tensor *a, double a_scale, int64_t a_zp, const opgen_tensor *b,
                        double b_scale, int64_t b_zp, double out_scale, int64_t out_zp, int act, opgen_tensor *out,
                        bool *taken) {
    opgen_status st = OPGEN_OK;
    *taken = i8(b) && scale_ok(b_scale) && zp_ok(b_zp) && a->dim == b->dim &&
             !memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->dim) &&
             same_shape(ctx, a, a_scale, a_zp, out_scale, out_zp, out, &st);
    if (!*taken || st || ctx->meta) return st;
    opgen_q8_requant rq = requant_of(out_scale, out_zp, act, 0, 0);
    opgen_q8_add(opgen_numel(a), a->data, (float)a_scale, (int32_t)a_zp, b->data, (float)b_scale, (int32_t)b_zp, &rq,
                 out->data);
    return OPGEN_OK;
}

#define ADD_ARGS a, a_scale, a_zero_point, b, b_scale, b_zero_point, out_scale, out_zero_point
opgen_status opgen_native_q8_add_out(opgen_ctx *ctx, const opgen_tensor *a, double a_scale, int64_t a_zero_point,
                                     const opgen_tensor *b, double b_scale, int64_t b_zero_point, double out_scale,
                                     int64_t out_zero_point, opgen_tensor *out){
    Q8_NATIVE(opgen_fallback_q8_add_out(ctx, ADD_ARGS, out), add(ctx, ADD_ARGS, 0, out, &taken))}

opgen_status opgen_native_q8_add_relu_out(opgen_ctx *ctx, const opgen_tensor *a, double a_scale, int64_t a_zero_point,
                                          const opgen_tensor *b, double b_scale, int64_t b_zero_point, double out_scale,
                                          int64_t out_zero_point, opgen_tensor *out) {
    Q8_NATIVE(opgen_fallback_q8_add_relu_out(ctx, ADD_ARGS, out), add(ctx, ADD_ARGS, 1, out, &taken))
}
#undef ADD_ARGS

/* Every int8 value's image through dequantize -> activation -> quantize, tabulated. */
static opgen_status lookup(opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zp, int act, double lo,
                           double hi, double out_scale, int64_t out_zp, opgen_tensor *out, bool *taken) {
    opgen_status st = OPGEN_OK;
    *taken = lo <= hi && same_shape(ctx, x, x_scale, x_zp, out_scale, out_zp, out, &st);
    if (!*taken || st || ctx->meta) return st;
    opgen_q8_requant rq = requant_of(out_scale, out_zp, act, lo, hi);
    int8_t table[256];
    for (int v = -128; v < 128; v++)
        table[(uint8_t)v] = (int8_t)opgen_q8_quantize((float)((double)v - (double)x_zp) * (float)x_scale, &rq);
    opgen_q8_lookup(opgen_numel(x), x->data, table, out->data);
    return OPGEN_OK;
}

opgen_status opgen_native_q8_relu_out(opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zero_point,
                                      double out_scale, int64_t out_zero_point, opgen_tensor *out){
    Q8_NATIVE(opgen_fallback_q8_relu_out(ctx, x, x_scale, x_zero_point, out_scale, out_zero_point, out),
              lookup(ctx, x, x_scale, x_zero_point, 1, 0, 0, out_scale, out_zero_point, out, &taken))}

opgen_status opgen_native_q8_hardtanh_out(opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zero_point,
                                          const opgen_scalar *min_val, const opgen_scalar *max_val, double out_scale,
                                          int64_t out_zero_point, opgen_tensor *out) {
    Q8_NATIVE(
        opgen_fallback_q8_hardtanh_out(ctx, x, x_scale, x_zero_point, min_val, max_val, out_scale, out_zero_point, out),
        lookup(ctx, x, x_scale, x_zero_point, 2, scalar_of(min_val), scalar_of(max_val), out_scale, out_zero_point, out,
               &taken))
}

/* Max pooling where the output keeps the input's scale and zero point (max
 * commutes with the monotone dequantization), floor mode. */
static opgen_status max_pool(opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zp, opgen_int_list k,
                             opgen_int_list s, opgen_int_list p, opgen_int_list d, bool ceil_mode, double out_scale,
                             int64_t out_zp, opgen_tensor *out, bool *taken) {
    int64_t kk[2], ss[2], pp[2], dd[2], o[2];
    *taken = x->dim == 4 && i8(x) && !ceil_mode && out_scale == x_scale && out_zp == x_zp && scale_ok(x_scale) &&
             zp_ok(x_zp) && k.len >= 1 && k.len <= 2 && s.len <= 2 && p.len >= 1 && p.len <= 2 && d.len >= 1 &&
             d.len <= 2;
    for (int i = 0; *taken && i < 2; i++) {
        kk[i] = pick(k, i), ss[i] = s.len ? pick(s, i) : kk[i], pp[i] = pick(p, i), dd[i] = pick(d, i);
        o[i] = kk[i] < 1 || ss[i] < 1 || dd[i] < 1 || pp[i] < 0 || 2 * pp[i] > kk[i]
                   ? 0
                   : (x->sizes[2 + i] + 2 * pp[i] - dd[i] * (kk[i] - 1) - 1) / ss[i] + 1;
        *taken = o[i] >= 1;
    }
    if (!*taken) return OPGEN_OK;
    int64_t sizes[4] = {x->sizes[0], x->sizes[1], o[0], o[1]};
    opgen_status st = opgen_out(ctx, out, OPGEN_DTYPE_Char, 4, sizes);
    if (st || ctx->meta) return st;
    opgen_q8_max_pool(x->sizes[0] * x->sizes[1], x->sizes[2], x->sizes[3], x->data, o[0], o[1], kk, ss, pp, dd,
                      out->data);
    return OPGEN_OK;
}

opgen_status opgen_native_q8_max_pool2d_out(opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zero_point,
                                            opgen_int_list kernel_size, opgen_int_list stride, opgen_int_list padding,
                                            opgen_int_list dilation, bool ceil_mode, double out_scale,
                                            int64_t out_zero_point, opgen_tensor *out) {
    Q8_NATIVE(opgen_fallback_q8_max_pool2d_out(ctx, x, x_scale, x_zero_point, kernel_size, stride, padding, dilation,
                                               ceil_mode, out_scale, out_zero_point, out),
              max_pool(ctx, x, x_scale, x_zero_point, kernel_size, stride, padding, dilation, ceil_mode, out_scale,
                       out_zero_point, out, &taken))
}

/* The mean over a 4-d input's last two dimensions (either order, either sign). */
static opgen_status mean(opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zp, const opgen_int_list *dim,
                         bool keepdim, double out_scale, int64_t out_zp, opgen_tensor *out, bool *taken) {
    int64_t d0 = dim && dim->len == 2 ? (dim->data[0] + 4) % 4 : -1,
            d1 = dim && dim->len == 2 ? (dim->data[1] + 4) % 4 : -1;
    *taken = x->dim == 4 && i8(x) && scale_ok(x_scale) && zp_ok(x_zp) && scale_ok(out_scale) && zp_ok(out_zp) &&
             ((d0 == 2 && d1 == 3) || (d0 == 3 && d1 == 2)) && x->sizes[2] * x->sizes[3] > 0;
    if (!*taken) return OPGEN_OK;
    int64_t sizes[4] = {x->sizes[0], x->sizes[1], 1, 1};
    opgen_status st = opgen_out(ctx, out, OPGEN_DTYPE_Char, keepdim ? 4 : 2, sizes);
    if (st || ctx->meta) return st;
    opgen_q8_requant rq = requant_of(out_scale, out_zp, 0, 0, 0);
    opgen_q8_mean(x->sizes[0] * x->sizes[1], x->sizes[2] * x->sizes[3], x->data, (int32_t)x_zp, (float)x_scale, &rq,
                  out->data);
    return OPGEN_OK;
}

opgen_status opgen_native_q8_mean_out(opgen_ctx *ctx, const opgen_tensor *x, double x_scale, int64_t x_zero_point,
                                      const opgen_int_list *dim, bool keepdim, double out_scale, int64_t out_zero_point,
                                      opgen_tensor *out) {
    Q8_NATIVE(opgen_fallback_q8_mean_out(ctx, x, x_scale, x_zero_point, dim, keepdim, out_scale, out_zero_point, out),
              mean(ctx, x, x_scale, x_zero_point, dim, keepdim, out_scale, out_zero_point, out, &taken))
}
