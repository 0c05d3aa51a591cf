/* Quantized patterns onto the integer kernels (rewrite.h, kernels/q8.h): the
 * dequantize -> op -> quantize chains PT2E writes, found among a program's
 * steps at load, computed by one step on the int8 tensors while the others no
 * longer run. A chain's fallback is the program's own float ops: what is not
 * matched here runs as written. (Only add and add_relu are also declared as
 * Backend-dialect ops, in yaml/backend_ops.yaml; the others are matched here,
 * not from yaml.)
 *
 *   dq(x), dq(w const) -> convolution [-> relu | hardtanh] -> q    conv2d / depthwise
 *   dq(x), permute(dq(w const)) -> addmm(bias const) -> q          linear
 *   dq(a), dq(b) -> add [-> relu] -> q                             add
 *   dq(x) -> relu | hardtanh -> q                                  a 256-entry table
 *   dq(x) -> max_pool2d_with_indices -> q (same scale, zero point) max on int8
 *   dq(x) -> mean.dim(x, [-1, -2], dtype None) -> q                a plane's mean
 *
 * The weights are packed once, here, into memory the method planned for them;
 * the float tensors between the ops are never written. */
#include "rewrite.h"
#include "kernels/q8.h"
#include "opgen/loops.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#if OPGEN_Q8
/* Which integer kernels this build keeps: those of the ops its selection keeps
 * (a trimmed build links only the ones its program uses), and none where it
 * dequantizes nothing (a float program's build is no larger for them). */
#define Q8_ANY OPGEN_SELECTED(quantized_decomposed_dequantize_per_tensor_out)
#define Q8_CONV (Q8_ANY && (OPGEN_SELECTED(aten_convolution_out) || OPGEN_SELECTED(aten_addmm_out)))
#define Q8_ADD (Q8_ANY && OPGEN_SELECTED(aten_add_out))
#define Q8_LOOKUP (Q8_ANY && (OPGEN_SELECTED(aten_relu_out) || OPGEN_SELECTED(aten_hardtanh_out)))
#define Q8_MAX_POOL (Q8_ANY && OPGEN_SELECTED(aten_max_pool2d_with_indices_out))
#define Q8_MEAN (Q8_ANY && OPGEN_SELECTED(aten_mean_out))

static bool is(const opgen_step *s, const char *qualified) {
    return s && !strcmp(opgen_ops[s->kernel_op].qualified, qualified);
}
static int reads(const opgen_step_seq *q, const opgen_tensor *t) { return q->reads(q->ctx, t); }
static opgen_step *plain(const opgen_step_seq *q, int k) { return k >= 0 && k < q->n ? q->plain(q->ctx, k) : NULL; }
static double scalar(const opgen_scalar *s) {
    return s->dtype == OPGEN_DTYPE_Bool ? (double)s->v.b : opgen_is_float(s->dtype) ? s->v.f : (double)s->v.i;
}
static bool contiguous_i8(const opgen_tensor *t) {
    return t && t->dtype == OPGEN_DTYPE_Char && opgen_tensor_is_contiguous(t);
}

/* The plain step before k that writes t, read by nothing else, or -1. */
static int producer(const opgen_step_seq *q, const opgen_tensor *t, int k) {
    if (reads(q, t) != 1) return -1;
    for (int j = k - 1; j >= 0; j--) {
        opgen_step *s = plain(q, j);
        if (s && s->nres >= 1 && s->res[0] == t) return j;
    }
    return -1;
}

/* An activation's dequantization: dq_per_tensor from int8 (scale, zero point). */
typedef struct q8_in {
    int step;
    const opgen_tensor *x;
    float scale;
    int32_t zp;
    opgen_q8_step *copy; /* the dequantize copies x privately instead (chain_input), or NULL */
} q8_in;

static bool dequantized(const opgen_step_seq *q, const opgen_tensor *t, int k, q8_in *in) {
    in->step = producer(q, t, k);
    const opgen_step *d = plain(q, in->step);
    if (!is(d, "quantized_decomposed::dequantize_per_tensor.out") || !contiguous_i8(d->args[0].v.t) ||
        d->args[5].v.d != OPGEN_DTYPE_Char || d->res[0]->dtype != OPGEN_DTYPE_Float)
        return false;
    in->x = d->args[0].v.t, in->scale = (float)d->args[1].v.f, in->zp = (int32_t)d->args[2].v.i;
    return true;
}

/* The quantize at step k of the result t: into rq and its out. */
static bool quantized(const opgen_step_seq *q, int k, const opgen_tensor *t, opgen_q8_requant *rq, opgen_tensor **out) {
    const opgen_step *s = plain(q, k);
    if (!is(s, "quantized_decomposed::quantize_per_tensor.out") || s->args[0].v.t != t || reads(q, t) != 1 ||
        s->args[5].v.d != OPGEN_DTYPE_Char || !contiguous_i8(s->res[0]))
        return false;
    double scale = s->args[1].v.f; /* the activation (rq->act) stays */
    rq->inv_scale = 1.0f / (float)scale, rq->zp = (int32_t)s->args[2].v.i;
    rq->qmin = (int32_t)s->args[3].v.i, rq->qmax = (int32_t)s->args[4].v.i;
    *out = s->res[0];
    return scale > 0 && rq->qmin >= -128 && rq->qmax <= 127;
}

/* relu or hardtanh at step k on t, as an activation of rq; false otherwise. */
static bool activation(const opgen_step_seq *q, int k, const opgen_tensor *t, opgen_q8_requant *rq) {
    const opgen_step *s = plain(q, k);
    if (!s || s->args[0].v.t != t || reads(q, t) != 1) return false;
    if (is(s, "aten::relu.out")) return rq->act = 1, true;
    if (!is(s, "aten::hardtanh.out")) return false;
    rq->act = 2, rq->lo = (float)scalar(&s->args[1].v.s), rq->hi = (float)scalar(&s->args[2].v.s);
    return rq->lo <= rq->hi;
}

/* A constant int8 weight's dequantization at step d: per channel along axis 0
 * with zero points 0 (or none), or per tensor with zero point 0. */
static bool weight(const opgen_step_seq *q, const opgen_step *d, const opgen_tensor **w, const opgen_tensor **scales,
                   float *scale) {
    if (is(d, "quantized_decomposed::dequantize_per_tensor.out")) {
        *w = d->args[0].v.t, *scales = NULL, *scale = (float)d->args[1].v.f;
        return d->args[2].v.i == 0 && contiguous_i8(*w) && q->constant(q->ctx, *w);
    }
    if (!is(d, "quantized_decomposed::dequantize_per_channel.out") || d->args[3].v.i != 0) return false;
    *w = d->args[0].v.t, *scales = d->args[1].v.t;
    const opgen_tensor *zps = d->args[2].none ? NULL : d->args[2].v.t;
    if (!contiguous_i8(*w) || !q->constant(q->ctx, *w) || !q->constant(q->ctx, *scales) ||
        (*scales)->dtype != OPGEN_DTYPE_Float || !opgen_tensor_is_contiguous(*scales) ||
        (zps && !q->constant(q->ctx, zps)))
        return false;
    for (int64_t c = 0; zps && c < opgen_numel(zps); c++) {
        int64_t z;
        opgen_convert_i64(&z, (const char *)zps->data + (size_t)c * (size_t)opgen_dtype_size(zps->dtype), 0, zps->dtype,
                          1);
        if (z) return false;
    }
    return true;
}

static bool const_bias(const opgen_step_seq *q, const opgen_value *b, int64_t O) {
    return b->none || (b->v.t->dtype == OPGEN_DTYPE_Float && b->v.t->dim == 1 && b->v.t->sizes[0] == O &&
                       opgen_tensor_is_contiguous(b->v.t) && q->constant(q->ctx, b->v.t));
}

/* The filter of weight w (O rows of K), packed into planned memory. */
static bool pack(const opgen_step_seq *q, opgen_q8_step *r, const opgen_tensor *w, const opgen_tensor *scales,
                 float scale, float xscale, const opgen_value *bias, bool depthwise) {
    int64_t O = w->sizes[0], C = w->sizes[1], KH = w->dim == 4 ? w->sizes[2] : 1, KW = w->dim == 4 ? w->sizes[3] : 1;
    if (scales && opgen_numel(scales) != O) return false;
    opgen_q8_requant_range(&r->rq);
    void *mem = q->mem(q->ctx, opgen_q8_filter_bytes(O, C, KH, KW, depthwise));
    if (!mem) return false;
    opgen_q8_filter_pack(&r->f, mem, w->data, O, C, KH, KW, depthwise, scales ? scales->data : &scale, scales != NULL,
                         xscale, bias->none ? NULL : bias->v.t->data, &r->rq, &r->g);
    return true;
}

/* Whether x, last read by the dequantize at `from` in the program as written,
 * keeps its bytes until step k (the memory plan may give them to a tensor
 * written in between; the chain's own steps, gone, write nothing). */
static bool input_kept(const opgen_step_seq *q, const opgen_tensor *x, int from, int k, const int *gone, int ngone) {
    for (int j = from + 1; j < k; j++) {
        bool own = false;
        for (int i = 0; i < ngone; i++) own |= gone[i] == j;
        if (!own && q->clobbers(q->ctx, j, x)) return false;
    }
    return true;
}

/* Where the chain at k reads its input in: in place when x keeps its bytes
 * until k and the result y is not planned over them (or may be: inplace_ok;
 * or, with `staged`, y is computed in planned memory of its own, r->stage,
 * and copied over x after: ExecuTorch plans a stride-2 depthwise's result
 * where its input starts, and y is a quarter of x), else in a private copy (in
 * planned memory, in r's `copy`) that the dequantize at in->step makes instead
 * of dequantizing: in->copy is set. */
static bool chain_input(const opgen_step_seq *q, q8_in *in, int k, const int *gone, int ngone, opgen_q8_step *r,
                        bool inplace_ok, bool staged) {
    in->copy = NULL;
    if (input_kept(q, in->x, in->step, k, gone, ngone)) {
        if (inplace_ok || !opgen_tensors_overlap(in->x, r->y)) return true;
        /* no larger than x: the memory counted for x's copy (pte_exec_plan.c) holds it */
        if (staged && opgen_nbytes(r->y) <= opgen_nbytes(in->x))
            return (r->stage = q->mem(q->ctx, opgen_nbytes(r->y))) != NULL;
    }
    opgen_q8_step *c = q->q8(q->ctx, in->step);
    opgen_tensor *copy = c ? q->mem(q->ctx, sizeof *copy) : NULL;
    void *mem = copy ? q->mem(q->ctx, opgen_nbytes(in->x)) : NULL;
    if (!mem) return false;
    *copy = *in->x, copy->data = mem, copy->capacity = opgen_nbytes(in->x);
    *c = (opgen_q8_step){.kind = OPGEN_Q8_COPY, .x = in->x, .y = copy};
    in->copy = c, in->x = copy;
    return true;
}

/* The chain at k is taken: its dequantizes that copy run the copy, its other
 * steps (gone) no longer run. */
static int commit(const opgen_step_seq *q, const q8_in *ins, int nins, const int *gone, int ngone, int taken) {
    for (int i = 0; i < nins; i++)
        if (ins[i].copy) plain(q, ins[i].step)->q8 = ins[i].copy;
    for (int i = 0; i < ngone; i++)
        if (!(gone[i] == ins[0].step && ins[0].copy) && !(nins > 1 && gone[i] == ins[1].step && ins[1].copy))
            q->drop(q->ctx, gone[i]);
    return taken;
}

/* dq -> relu | hardtanh -> q after step k (writing the int8 tensor t), where that table is
 * the identity clamped to [*lo, *hi] (the same scale and zero point on both
 * sides, as XNNPACKQuantizer writes a standalone activation): a chain ending
 * in t can take it as a narrower range. Its quantize's result goes to *out. */
static bool clamp_after(const opgen_step_seq *q, int k, const opgen_tensor *t, float *lo, float *hi,
                        opgen_tensor **out) {
    q8_in in;
    opgen_q8_requant rq = {0};
    opgen_tensor *o;
    const opgen_step *s = plain(q, k + 2);
    if (!s || reads(q, t) != 1 || !dequantized(q, s->args[0].v.t, k + 2, &in) || in.step != k + 1 || in.x != t ||
        !activation(q, k + 2, s->args[0].v.t, &rq) || !quantized(q, k + 3, s->res[0], &rq, &o) ||
        opgen_numel(t) != opgen_numel(o))
        return false;
    int a = 127, b = -128; /* the values the table keeps: [a, b], all others clamped to a or b */
    for (int v = -128; v < 128; v++) {
        int32_t r = opgen_q8_quantize((float)((double)v - (double)in.zp) * in.scale, &rq);
        if (r == v) a = v < a ? v : a, b = v > b ? v : b;
    }
    for (int v = -128; v < 128 && a <= b; v++)
        if (opgen_q8_quantize((float)((double)v - (double)in.zp) * in.scale, &rq) != (v < a ? a : v > b ? b : v))
            return false;
    *lo = (float)a, *hi = (float)b, *out = o;
    return a <= b;
}

/* convolution at k: 2-D, not transposed, dense or depthwise (one channel a group). */
static int fuse_conv(const opgen_step_seq *q, int k, opgen_step *c, opgen_q8_step *r) {
    q8_in in;
    const opgen_tensor *w, *scales;
    float ws;
    int kw = producer(q, c->args[1].v.t, k), ka = k + 1;
    if (!dequantized(q, c->args[0].v.t, k, &in) || kw < 0 || !weight(q, plain(q, kw), &w, &scales, &ws)) return 0;
    const opgen_tensor *x = in.x, *y = c->res[0];
    if (x->dim != 4 || w->dim != 4 || c->args[6].v.b || y->dim != 4) return 0;
    int64_t groups = c->args[8].v.i, C = x->sizes[1], O = w->sizes[0];
    bool depthwise = groups > 1 && groups == C && O == C && w->sizes[1] == 1 && w->sizes[2] * w->sizes[3] <= 64;
    if (groups != 1 && !depthwise) return 0;
    if (!const_bias(q, &c->args[2], O)) return 0;
    if (activation(q, ka, y, &r->rq)) y = plain(q, ka++)->res[0];
    if (!quantized(q, ka, y, &r->rq, &r->y)) return 0;
    opgen_int_list st = c->args[3].v.il, pd = c->args[4].v.il, dl = c->args[5].v.il;
    r->g = (opgen_q8_conv_geom){x->sizes[0], C,           x->sizes[2], x->sizes[3], w->sizes[2], w->sizes[3],
                                y->sizes[2], y->sizes[3], {0, 0},      {0, 0},      {0, 0},      in.zp};
    for (int i = 0; i < 2; i++) {
        r->g.s[i] = st.len == 1 ? st.data[0] : st.data[i], r->g.p[i] = pd.len == 1 ? pd.data[0] : pd.data[i];
        r->g.d[i] = dl.len == 1 ? dl.data[0] : dl.data[i];
    }
    float lo = -128.0f, hi = 127.0f; /* a standalone activation after, taken as a range */
    if (clamp_after(q, ka, r->y, &lo, &hi, &r->y)) ka += 3;
    int gone[] = {in.step, kw, k + 1, k + 2, k + 3, k + 4, k + 5};
    /* a dense convolution of one image transforms all of x before it writes y */
    if (!chain_input(q, &in, k, gone, 2, r, !depthwise && r->g.N == 1, true)) return 0;
    if (!pack(q, r, w, scales, ws, in.scale, &c->args[2], depthwise)) return 0;
    r->rq.qlo = r->rq.qlo > lo ? r->rq.qlo : lo, r->rq.qhi = r->rq.qhi < hi ? r->rq.qhi : hi;
    r->kind = OPGEN_Q8_CONV, r->x = in.x;
    return commit(q, &in, 1, gone, 2 + (ka - k), ka - k);
}

/* addmm(bias, dq(x), permute_copy(dq(w), [1, 0])) at k: a linear layer. */
static int fuse_linear(const opgen_step_seq *q, int k, opgen_step *c, opgen_q8_step *r) {
    q8_in in;
    const opgen_tensor *w, *scales;
    float ws;
    int kp = producer(q, c->args[2].v.t, k);
    const opgen_step *p = plain(q, kp);
    if (!is(p, "aten::permute_copy.out") || p->args[1].v.il.len != 2 || p->args[1].v.il.data[0] != 1) return 0;
    int kw = producer(q, p->args[0].v.t, kp);
    if (!dequantized(q, c->args[1].v.t, k, &in) || kw < 0 || !weight(q, plain(q, kw), &w, &scales, &ws)) return 0;
    if (in.x->dim != 2 || w->dim != 2 || scalar(&c->args[3].v.s) != 1 || scalar(&c->args[4].v.s) != 1) return 0;
    int64_t O = w->sizes[0];
    if (c->args[0].none || !const_bias(q, &c->args[0], O) || !quantized(q, k + 1, c->res[0], &r->rq, &r->y)) return 0;
    r->g = (opgen_q8_conv_geom){in.x->sizes[0], in.x->sizes[1], 1, 1, 1, 1, 1, 1, {1, 1}, {0, 0}, {1, 1}, in.zp};
    int gone[] = {in.step, kp, kw, k + 1};
    if (!chain_input(q, &in, k, gone, 3, r, r->g.N == 1, true)) return 0;
    if (!pack(q, r, w, scales, ws, in.scale, &c->args[0], false)) return 0;
    r->kind = OPGEN_Q8_CONV, r->x = in.x;
    return commit(q, &in, 1, gone, 4, 1);
}

/* Exactly in place: an elementwise step reads each value before it writes it. */
static bool same_bytes(const opgen_tensor *x, const opgen_tensor *y) {
    return x->data == y->data && opgen_nbytes(x) == opgen_nbytes(y);
}

/* add(dq(a), dq(b), alpha 1) [-> relu] -> q at k, same shapes. */
static int fuse_add(const opgen_step_seq *q, int k, opgen_step *s, opgen_q8_step *r) {
    q8_in in[2];
    const opgen_tensor *y = s->res[0];
    int ka = k + 1;
    if (s->args[0].v.t == s->args[1].v.t || !dequantized(q, s->args[0].v.t, k, &in[0]) ||
        !dequantized(q, s->args[1].v.t, k, &in[1]) || scalar(&s->args[2].v.s) != 1 || in[0].x->dim != in[1].x->dim ||
        memcmp(in[0].x->sizes, in[1].x->sizes, sizeof(int64_t) * (size_t)in[0].x->dim) ||
        opgen_numel(in[0].x) != opgen_numel(y))
        return 0;
    r->rq.act = 0;
    if (activation(q, ka, y, &r->rq)) {
        if (r->rq.act != 1) return 0;
        y = plain(q, ka++)->res[0];
    }
    if (!quantized(q, ka, y, &r->rq, &r->y)) return 0;
    /* a residual's int8 bytes are often reused across the block's convolutions */
    int gone[] = {in[0].step, in[1].step, k + 1, k + 2};
    if (!chain_input(q, &in[0], k, gone, 2, r, same_bytes(in[0].x, r->y), false) ||
        !chain_input(q, &in[1], k, gone, 2, r, same_bytes(in[1].x, r->y), false))
        return 0;
    r->kind = OPGEN_Q8_ADD, r->x = in[0].x, r->x2 = in[1].x;
    r->sa = in[0].scale, r->sb = in[1].scale, r->za = in[0].zp, r->zb = in[1].zp;
    return commit(q, in, 2, gone, 2 + (ka - k), ka - k);
}

/* dq -> relu | hardtanh -> q at k: every int8 value's image, tabulated the way
 * the three kernels compute it (opgen_portable_dequantize's float arithmetic). */
static int fuse_lookup(const opgen_step_seq *q, int k, opgen_step *s, opgen_q8_step *r) {
    q8_in in;
    opgen_q8_requant rq = {0};
    if (!dequantized(q, s->args[0].v.t, k, &in) || !activation(q, k, s->args[0].v.t, &rq) ||
        !quantized(q, k + 1, s->res[0], &rq, &r->y) || opgen_numel(in.x) != opgen_numel(r->y))
        return 0;
    if (!(r->table = q->mem(q->ctx, 256))) return 0;
    for (int v = -128; v < 128; v++) {
        float f = (float)((double)v - (double)in.zp) * in.scale;
        r->table[(uint8_t)v] = (int8_t)opgen_q8_quantize(f, &rq);
    }
    int gone[] = {in.step, k + 1};
    if (!chain_input(q, &in, k, gone, 1, r, same_bytes(in.x, r->y), false)) return 0;
    r->kind = OPGEN_Q8_LOOKUP, r->x = in.x;
    return commit(q, &in, 1, gone, 2, 1);
}

/* dq -> max_pool2d_with_indices -> q, the indices unread, one scale and zero point. */
static int fuse_max_pool(const opgen_step_seq *q, int k, opgen_step *s, opgen_q8_step *r) {
    q8_in in;
    if (s->nres != 2 || reads(q, s->res[1]) || !dequantized(q, s->args[0].v.t, k, &in) ||
        !quantized(q, k + 1, s->res[0], &r->rq, &r->y) || in.x->dim != 4 || r->rq.zp != in.zp ||
        r->rq.inv_scale != 1.0f / in.scale || r->rq.qmin != -128 || r->rq.qmax != 127)
        return 0;
    opgen_int_list l[4] = {s->args[1].v.il, s->args[2].v.il, s->args[3].v.il, s->args[4].v.il};
    for (int i = 0; i < 2; i++) {
        r->pool[0][i] = l[0].data[l[0].len == 1 ? 0 : i];
        r->pool[1][i] = l[1].len ? l[1].data[l[1].len == 1 ? 0 : i] : r->pool[0][i];
        r->pool[2][i] = l[2].data[l[2].len == 1 ? 0 : i], r->pool[3][i] = l[3].data[l[3].len == 1 ? 0 : i];
    }
    int gone[] = {in.step, k + 1};
    if (!chain_input(q, &in, k, gone, 1, r, false, false)) return 0;
    r->kind = OPGEN_Q8_MAX_POOL, r->x = in.x;
    return commit(q, &in, 1, gone, 2, 1);
}

/* dq -> mean over the last two of four dimensions (keepdim or not, its dtype
 * the input's) -> q. */
static int fuse_mean(const opgen_step_seq *q, int k, opgen_step *s, opgen_q8_step *r) {
    q8_in in;
    if (!dequantized(q, s->args[0].v.t, k, &in) || in.x->dim != 4 || s->args[1].none || !s->args[3].none ||
        !quantized(q, k + 1, s->res[0], &r->rq, &r->y) || opgen_numel(r->y) != in.x->sizes[0] * in.x->sizes[1] ||
        in.x->sizes[2] * in.x->sizes[3] == 0)
        return 0;
    opgen_int_list d = s->args[1].v.il; /* dimensions 2 and 3, either order, either sign */
    int64_t d0 = d.len == 2 && d.data[0] < 0 ? d.data[0] + 4 : d.len == 2 ? d.data[0] : -1;
    int64_t d1 = d.len == 2 && d.data[1] < 0 ? d.data[1] + 4 : d.len == 2 ? d.data[1] : -1;
    if (!((d0 == 2 && d1 == 3) || (d0 == 3 && d1 == 2))) return 0;
    int gone[] = {in.step, k + 1};
    if (!chain_input(q, &in, k, gone, 1, r, false, false)) return 0;
    r->kind = OPGEN_Q8_MEAN, r->x = in.x, r->sa = in.scale, r->za = in.zp;
    return commit(q, &in, 1, gone, 2, 1);
}

int opgen_rewrite_q8(const opgen_step_seq *q, int k) {
    opgen_step *s = plain(q, k);
    if (!s || !q->q8 || !q->constant || !q->drop || !q->mem || !q->clobbers) return 0;
    int (*fuse)(const opgen_step_seq *, int, opgen_step *, opgen_q8_step *) =
        Q8_CONV && is(s, "aten::convolution.out")                               ? fuse_conv
        : Q8_CONV && is(s, "aten::addmm.out")                                   ? fuse_linear
        : Q8_ADD && is(s, "aten::add.out")                                      ? fuse_add
        : Q8_LOOKUP && (is(s, "aten::relu.out") || is(s, "aten::hardtanh.out")) ? fuse_lookup
        : Q8_MAX_POOL && is(s, "aten::max_pool2d_with_indices.out")             ? fuse_max_pool
        : Q8_MEAN && is(s, "aten::mean.out")                                    ? fuse_mean
                                                                                : NULL;
    opgen_q8_step *r = fuse ? q->q8(q->ctx, k) : NULL;
    if (!r) return 0;
    memset(r, 0, sizeof *r);
    int n = fuse(q, k, s, r);
    if (n <= 0) return 0;
    s->q8 = r;
    s->scratch = Q8_CONV && r->kind == OPGEN_Q8_CONV ? opgen_q8_conv_scratch(&r->g, &r->f, s->par) : 0;
    return n;
}

const char *opgen_q8_kernel_name(const opgen_q8_step *r) {
    static const char *names[][2] = {{"opgen_q8_conv (int8, %s)", "opgen_q8_depthwise (int8)"},
                                     {"opgen_q8_add (int8)", ""},
                                     {"opgen_q8_lookup (int8, a table)", ""},
                                     {"opgen_q8_max_pool (int8)", ""},
                                     {"opgen_q8_copy (its int8 input, for a chain after)", ""},
                                     {"opgen_q8_mean (int8)", ""}};
    if (r->kind == OPGEN_Q8_CONV && !r->f.depthwise) { /* the product kernels' variant, once */
        static char conv[64];
        if (!conv[0]) snprintf(conv, sizeof conv, names[0][0], opgen_q8_variant());
        return conv;
    }
    return names[r->kind - 1][r->f.depthwise];
}

/* An elementwise or pooling step split across threads: part p takes a range
 * of elements (64-byte aligned) or of planes; each value is computed as on one. */
typedef struct q8_split {
    const opgen_q8_step *r;
    const int8_t *x;
    int8_t *y;
    int64_t n;
    int parts;
} q8_split;

static void split_part(void *arg, int part) {
    const q8_split *S = arg;
    const opgen_q8_step *r = S->r;
    int64_t a = S->n * part / S->parts, b = S->n * (part + 1) / S->parts;
    if (Q8_MAX_POOL && r->kind == OPGEN_Q8_MAX_POOL) {
        int64_t in = r->x->sizes[2] * r->x->sizes[3], out = r->y->sizes[2] * r->y->sizes[3];
        opgen_q8_max_pool(b - a, r->x->sizes[2], r->x->sizes[3], S->x + a * in, r->y->sizes[2], r->y->sizes[3],
                          r->pool[0], r->pool[1], r->pool[2], r->pool[3], S->y + a * out);
        return;
    }
    if (Q8_MEAN && r->kind == OPGEN_Q8_MEAN) {
        int64_t in = r->x->sizes[2] * r->x->sizes[3];
        opgen_q8_mean(b - a, in, S->x + a * in, r->za, r->sa, &r->rq, S->y + a);
        return;
    }
    a = part ? a & ~(int64_t)63 : 0, b = part == S->parts - 1 ? S->n : b & ~(int64_t)63;
    if (Q8_ADD && r->kind == OPGEN_Q8_ADD)
        opgen_q8_add(b - a, S->x + a, r->sa, r->za, (const int8_t *)r->x2->data + a, r->sb, r->zb, &r->rq, S->y + a);
    else if (Q8_LOOKUP && r->kind == OPGEN_Q8_LOOKUP)
        opgen_q8_lookup(b - a, S->x + a, r->table, S->y + a);
    else
        memcpy(S->y + a, S->x + a, (size_t)(b - a));
}

opgen_status opgen_q8_step_run(opgen_step *s, opgen_arena *arena, opgen_error *err) {
    opgen_q8_step *r = s->q8;
    int8_t *y = r->y->data;
    const int8_t *x = r->x->data;
    opgen_ctx ctx = {arena, err, s->name, false, 0, false, -1, NULL, s->par, NULL, 0, NULL};
    void *scratch = s->scratch ? opgen_scratch(&ctx, s->scratch) : NULL;
    if (s->scratch && !scratch)
        return err->code ? err->code : opgen_fail(err, OPGEN_E_NO_MEMORY, "%s: out of memory", s->name);
    if (Q8_CONV && r->kind == OPGEN_Q8_CONV) {
        opgen_q8_conv(s->par, &r->g, &r->f, &r->rq, x, r->stage ? r->stage : y, scratch);
        if (r->stage) memcpy(y, r->stage, opgen_nbytes(r->y));
        return OPGEN_OK;
    }
    bool planes = r->kind == OPGEN_Q8_MAX_POOL || r->kind == OPGEN_Q8_MEAN;
    q8_split S = {r, x, y, planes ? r->x->sizes[0] * r->x->sizes[1] : opgen_numel(r->x), 1};
    S.parts = opgen_parallel_parts_for(s->par, (double)opgen_numel(r->y), 65536.0);
    opgen_parallel_for(s->par, S.parts, split_part, &S);
    return OPGEN_OK;
}
#else
int opgen_rewrite_q8(const opgen_step_seq *q, int k) { return (void)q, (void)k, 0; }
#endif
