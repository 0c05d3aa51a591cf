/* Benchmark: whole models. ResNet-18 and MobileNetV2 at full width on a
 * 1x3x224x224 image, as graph programs built here (torchvision's layouts: batch
 * norm as _native_batch_norm_legit_no_training, ReLU6 as hardtanh, the classifier
 * as permute_copy + addmm) with seeded weights (the time does not depend on their
 * values); the corpus's ExecuTorch exports small_cnn (one call) and llama_bench
 * (a decode step), and a llama decode step at stories15M's shape (64.6 MB of
 * weights and caches, past this machine's caches) as graph text (llama_step;
 * OPGEN_BENCH_ONLY=stories110M or llama_bench-shape for two more shapes). Beside
 * them, measured in the same run: OpenBLAS sgemm 256^3 on
 * one thread (the machine's GEMM limit; issue 27 asks ResNet-18 >= 85% of it and
 * MobileNetV2 >= 40%) and the memory bandwidth of one thread streaming a buffer
 * larger than the caches (a decode step reads every weight once; the goal is
 * within 1.5x of that time). With a pool, each graph model runs again on THREADS
 * threads and its outputs must be the same bytes, beside the machine's own limit
 * for threads (copies_ratio_once). Medians of RUNS.
 * OPGEN_BENCH_LLAMA=FILE.pte adds another llama export (one whose weights exceed
 * the caches); OPGEN_BENCH_PROFILE=1 prints each graph model's steps' times
 * (print_steps). Exits 1 when outputs differ across thread counts.
 * usage: bench_models [RUNS [THREADS [CORPUS_DIR]]] */
#define _POSIX_C_SOURCE 200809L
#include "opgen/file.h"
#include "opgen/method.h"
#include "opgen/npy.h"
#ifdef OPGEN_HAVE_POOL
#include "opgen/pool.h"
#endif
#include "../../runtime-stubs/cli/cli.h" /* opgen_rt_now_ms, opgen_rt_median: opgen-rt's clock and median */
#include "../../runtime-stubs/kernels/gemm.h"
#include "openblas_core.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_OPENBLAS
#include <cblas.h>
void openblas_set_num_threads(int);
#endif

static int runs = 7;
static double stream_gbs; /* the memory bandwidth, measured once */

static int fail(const opgen_error *err) {
    char msg[1024];
    opgen_error_format(err, msg, sizeof msg);
    fprintf(stderr, "bench_models: %s\n", msg);
    return 1;
}

/* ---- a graph program, written node by node ---- */
typedef enum { X_INPUT, CONV_W, BN_W, BN_B, BN_MEAN, BN_VAR, FC_W, FC_B, POS, MASK, CACHE, FREQS } init_kind;
typedef struct builder {
    char *decl, *body;
    size_t ndecl, nbody, cap;
    int nvals, nparams;
    init_kind kinds[512];
    double macs;
    const char *decode_of; /* a language model's decode step: its shape's name */
    int64_t pos;           /* and the position it decodes */
    const char *fdt;       /* the float tensors' dtype (graph text's name; NULL: f32) */
} builder;

static void put(char **s, size_t *n, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(*s + *n, cap - *n, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= cap - *n) fputs("bench_models: program text too long\n", stderr), exit(2);
    *n += (size_t)k;
}
static int param_of(builder *b, init_kind kind, const char *dtype, const char *shape) {
    int id = b->nparams++;
    if (id >= (int)(sizeof b->kinds / sizeof b->kinds[0])) fputs("bench_models: too many inputs\n", stderr), exit(2);
    b->kinds[id] = kind;
    put(&b->decl, &b->ndecl, b->cap, "%s%%p%d: %s[%s]", id ? ", " : "", id, dtype, shape);
    return id;
}
static int param(builder *b, init_kind kind, const char *shape) {
    return param_of(b, kind, b->fdt ? b->fdt : "f32", shape);
}
/* %vN = text (the text's "%p" arguments formatted by the caller) */
static int node(builder *b, const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    int id = ++b->nvals;
    put(&b->body, &b->nbody, b->cap, "  %%v%d = %s\n", id, line);
    return id;
}
/* conv (no bias) + batch norm [+ relu or relu6], in [c, h, w] -> out [o, h', w'] */
static int conv_bn(builder *b, int x, bool x_is_param, int64_t c, int64_t *h, int64_t *w, int64_t o, int k, int s,
                   int groups, int act) {
    char shape[64];
    snprintf(shape, sizeof shape, "%lld, %lld, %d, %d", (long long)o, (long long)(c / groups), k, k);
    int wt = param(b, CONV_W, shape);
    int64_t oh = (*h + 2 * (k / 2) - k) / s + 1, ow = (*w + 2 * (k / 2) - k) / s + 1;
    b->macs += (double)o * (double)(c / groups) * k * k * (double)(oh * ow);
    *h = oh, *w = ow;
    int y = node(b, "aten::convolution(%%%s%d, %%p%d, None, [%d, %d], [%d, %d], [1, 1], False, [0, 0], %d)",
                 x_is_param ? "p" : "v", x, wt, s, s, k / 2, k / 2, groups);
    snprintf(shape, sizeof shape, "%lld", (long long)o);
    int g = param(b, BN_W, shape), be = param(b, BN_B, shape), mu = param(b, BN_MEAN, shape),
        var = param(b, BN_VAR, shape);
    b->nvals++;
    put(&b->body, &b->nbody, b->cap,
        "  %%v%d, %%s%d, %%t%d = aten::_native_batch_norm_legit_no_training(%%v%d, %%p%d, %%p%d, %%p%d, %%p%d, 0.1, 1e-05)\n",
        b->nvals, b->nvals, b->nvals, y, g, be, mu, var);
    y = b->nvals;
    if (act == 1) y = node(b, "aten::relu(%%v%d)", y);
    if (act == 6) y = node(b, "aten::hardtanh(%%v%d, 0.0, 6.0)", y);
    return y;
}
static int classifier(builder *b, int x, int64_t c) {
    char shape[64];
    snprintf(shape, sizeof shape, "1000, %lld", (long long)c);
    int wt = param(b, FC_W, shape), bias = param(b, FC_B, "1000");
    b->macs += 1000.0 * (double)c;
    int t = node(b, "aten::permute_copy(%%p%d, [1, 0])", wt);
    return node(b, "aten::addmm(%%p%d, %%v%d, %%v%d)", bias, x, t);
}
static char *finish(builder *b, int out) {
    size_t cap = b->ndecl + b->nbody + 64;
    char *text = malloc(cap);
    snprintf(text, cap, "graph(%s):\n%s  return %%v%d\n", b->decl, b->body, out);
    free(b->decl), free(b->body);
    return text;
}
static void builder_init(builder *b) {
    memset(b, 0, sizeof *b);
    b->cap = 1 << 20;
    b->decl = calloc(1, b->cap), b->body = calloc(1, b->cap);
}

/* torchvision's resnet18: BasicBlocks [2, 2, 2, 2] of widths 64..512 */
static char *resnet18(builder *b) {
    builder_init(b);
    int x = param(b, X_INPUT, "1, 3, 224, 224");
    int64_t h = 224, w = 224, c = 64;
    int y = conv_bn(b, x, true, 3, &h, &w, 64, 7, 2, 1, 1);
    b->nvals++;
    put(&b->body, &b->nbody, b->cap, "  %%v%d, %%i%d = aten::max_pool2d_with_indices(%%v%d, [3, 3], [2, 2], [1, 1])\n",
        b->nvals, b->nvals, y);
    y = b->nvals, h = 56, w = 56;
    for (int stage = 0; stage < 4; stage++)
        for (int blk = 0; blk < 2; blk++) {
            int64_t o = 64 << stage, s = blk == 0 && stage > 0 ? 2 : 1, h0 = h, w0 = w;
            int r = conv_bn(b, y, false, c, &h, &w, o, 3, (int)s, 1, 1);
            r = conv_bn(b, r, false, o, &h, &w, o, 3, 1, 1, 0);
            int sc = y;
            if (s != 1 || c != o) sc = conv_bn(b, y, false, c, &h0, &w0, o, 1, (int)s, 1, 0);
            y = node(b, "aten::relu(%%v%d)", node(b, "aten::add.Tensor(%%v%d, %%v%d)", r, sc));
            c = o;
        }
    y = node(b, "aten::view_copy(%%v%d, [1, 512])", node(b, "aten::_adaptive_avg_pool2d(%%v%d, [1, 1])", y));
    return finish(b, classifier(b, y, 512));
}

/* torchvision's mobilenet_v2: inverted residuals (t, c, n, s), ReLU6 */
static char *mobilenet_v2(builder *b) {
    static const int cfg[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                  {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    builder_init(b);
    int x = param(b, X_INPUT, "1, 3, 224, 224");
    int64_t h = 224, w = 224, c = 32;
    int y = conv_bn(b, x, true, 3, &h, &w, 32, 3, 2, 1, 6);
    for (int i = 0; i < 7; i++)
        for (int n = 0; n < cfg[i][2]; n++) {
            int64_t hid = c * cfg[i][0], o = cfg[i][1];
            int s = n == 0 ? cfg[i][3] : 1, r = y;
            if (cfg[i][0] != 1) r = conv_bn(b, r, false, c, &h, &w, hid, 1, 1, 1, 6);
            r = conv_bn(b, r, false, hid, &h, &w, hid, 3, s, (int)hid, 6);
            r = conv_bn(b, r, false, hid, &h, &w, o, 1, 1, 1, 0);
            y = s == 1 && c == o ? node(b, "aten::add.Tensor(%%v%d, %%v%d)", y, r) : r;
            c = o;
        }
    y = conv_bn(b, y, false, c, &h, &w, 1280, 1, 1, 1, 6);
    y = node(b, "aten::mean.dim(%%v%d, [2, 3])", y);
    return finish(b, classifier(b, y, 1280));
}

/* ---- a llama decode step, as graph text ----
 * ExecuTorch's llama example (examples/models/llama: a KV cache, no custom ops)
 * at one decode position, op by op as its export decomposes it: RMSNorm as
 * mul/mean/add/rsqrt/mul, each linear as permute_copy of the weight + mm, RoPE on
 * (real, imaginary) pairs, the caches updated by index_put, grouped heads
 * repeated by unsqueeze/expand, attention as scaled q and k^T, bmm, the causal
 * mask's row, softmax and bmm, SiLU as sigmoid + mul. The token's embedding row
 * is an input (the lookup reads one row of the table) and so are the caches (the
 * export's buffers). Left out: the export's guard against a fully masked row
 * (eq, logical_not, any, where on [1, heads, 1, max_seq]). So a decode step at
 * shapes whose weights exceed the caches needs no exporter. */
typedef struct llama_shape {
    const char *name;
    int dim, layers, heads, kv_heads, vocab, hidden, max_seq;
    bool bf16; /* weights, caches and activations in bfloat16 */
} llama_shape;
/* llama2.c's TinyStories checkpoints with a 256-position cache (as
 * tests/llama/export.py large exports them), and llama_bench's shape (the
 * corpus's export: the graph beside it costs what the export costs) */
static const llama_shape stories15m = {"stories15M", 288, 6, 6, 6, 32000, 768, 256, false},
                         stories15m_bf16 = {"stories15M-bf16", 288, 6, 6, 6, 32000, 768, 256, true},
                         stories110m = {"stories110M", 768, 12, 12, 12, 32000, 2048, 256, false},
                         llama_bench_shape = {"llama_bench-shape", 128, 4, 8, 4, 4096, 384, 128, false};

/* x [1, in] -> [1, out] */
static int linear(builder *b, int x, int in, int out) {
    char shape[64];
    snprintf(shape, sizeof shape, "%d, %d", out, in);
    int w = param(b, FC_W, shape);
    b->macs += (double)in * out;
    int wt = node(b, "aten::permute_copy(%%p%d, [1, 0])", w);
    return node(b, "aten::mm(%%v%d, %%v%d)", x, wt);
}
static int rms_norm(builder *b, int x, int dim) {
    char shape[16];
    snprintf(shape, sizeof shape, "%d", dim);
    int w = param(b, BN_W, shape);
    int sq = node(b, "aten::mul.Tensor(%%v%d, %%v%d)", x, x);
    int ms = node(b, "aten::mean.dim(%%v%d, [-1], True)", sq);
    int r = node(b, "aten::rsqrt(%%v%d)", node(b, "aten::add.Scalar(%%v%d, 1e-05)", ms));
    int n = node(b, "aten::mul.Tensor(%%v%d, %%v%d)", x, r);
    return node(b, "aten::mul.Tensor(%%v%d, %%p%d)", n, w);
}
/* t [1, n * hd] -> [1, 1, n, hd] rotated; cos, sin [1, 1, 1, hd / 2] */
static int rope(builder *b, int t, int n, int hd, int cos, int sin) {
    int v = node(b, "aten::view_copy(%%v%d, [1, 1, %d, %d, 2])", t, n, hd / 2);
    int re = node(b, "aten::squeeze_copy.dims(%%v%d, [-1])", node(b, "aten::slice_copy.Tensor(%%v%d, -1, 0, 1)", v));
    int im = node(b, "aten::squeeze_copy.dims(%%v%d, [-1])", node(b, "aten::slice_copy.Tensor(%%v%d, -1, 1, 2)", v));
    int rc = node(b, "aten::mul.Tensor(%%v%d, %%v%d)", re, cos),
        is = node(b, "aten::mul.Tensor(%%v%d, %%v%d)", im, sin);
    int rs = node(b, "aten::mul.Tensor(%%v%d, %%v%d)", re, sin),
        ic = node(b, "aten::mul.Tensor(%%v%d, %%v%d)", im, cos);
    int o_re = node(b, "aten::unsqueeze_copy(%%v%d, -1)", node(b, "aten::sub.Tensor(%%v%d, %%v%d)", rc, is));
    int o_im = node(b, "aten::unsqueeze_copy(%%v%d, -1)", node(b, "aten::add.Tensor(%%v%d, %%v%d)", rs, ic));
    int st = node(b, "aten::cat([%%v%d, %%v%d], -1)", o_re, o_im);
    return node(b, "aten::view_copy(%%v%d, [1, 1, %d, %d])", st, n, hd);
}
/* a cache [1, kv_heads, S, hd] seen as [1, heads, S, hd] */
static int repeat_kv(builder *b, int c, const llama_shape *s, int hd) {
    int rep = s->heads / s->kv_heads;
    if (rep == 1) return c;
    int u = node(b, "aten::unsqueeze_copy(%%v%d, 2)", c);
    int e = node(b, "aten::expand_copy(%%v%d, [1, %d, %d, %d, %d])", u, s->kv_heads, rep, s->max_seq, hd);
    return node(b, "aten::view_copy(%%v%d, [1, %d, %d, %d])", e, s->heads, s->max_seq, hd);
}
typedef struct step_inputs {
    int pos, mask, cos, sin;
} step_inputs;
/* x [1, dim] -> the attention's output [1, dim] */
static int attention(builder *b, int x, const llama_shape *s, const step_inputs *in) {
    int hd = s->dim / s->heads, kvd = s->kv_heads * hd, S = s->max_seq;
    int q = linear(b, x, s->dim, s->dim), k = linear(b, x, s->dim, kvd), v = linear(b, x, s->dim, kvd);
    q = node(b, "aten::permute_copy(%%v%d, [0, 2, 1, 3])", rope(b, q, s->heads, hd, in->cos, in->sin));
    k = node(b, "aten::permute_copy(%%v%d, [0, 2, 1, 3])", rope(b, k, s->kv_heads, hd, in->cos, in->sin));
    v = node(b, "aten::permute_copy(%%v%d, [0, 2, 1, 3])",
             node(b, "aten::view_copy(%%v%d, [1, 1, %d, %d])", v, s->kv_heads, hd));
    char shape[64];
    snprintf(shape, sizeof shape, "1, %d, %d, %d", s->kv_heads, S, hd);
    int kc = param(b, CACHE, shape), vc = param(b, CACHE, shape);
    k = repeat_kv(b, node(b, "aten::index_put(%%p%d, [None, None, %%p%d], %%v%d)", kc, in->pos, k), s, hd);
    v = repeat_kv(b, node(b, "aten::index_put(%%p%d, [None, None, %%p%d], %%v%d)", vc, in->pos, v), s, hd);
    double root = sqrt(1.0 / sqrt((double)hd)); /* q k^T / sqrt(hd), scaled on both sides as the export does */
    int qs =
        node(b, "aten::view_copy(%%v%d, [%d, 1, %d])", node(b, "aten::mul.Scalar(%%v%d, %.9g)", q, root), s->heads, hd);
    int kt = node(b, "aten::mul.Scalar(%%v%d, %.9g)", node(b, "aten::permute_copy(%%v%d, [0, 1, 3, 2])", k), root);
    int sc =
        node(b, "aten::bmm(%%v%d, %%v%d)", qs, node(b, "aten::view_copy(%%v%d, [%d, %d, %d])", kt, s->heads, hd, S));
    b->macs += 2.0 * s->heads * hd * S;
    sc = node(b, "aten::add.Tensor(%%v%d, %%v%d)", node(b, "aten::view_copy(%%v%d, [1, %d, 1, %d])", sc, s->heads, S),
              in->mask);
    int p =
        node(b, "aten::view_copy(%%v%d, [%d, 1, %d])", node(b, "aten::_softmax(%%v%d, -1, False)", sc), s->heads, S);
    int o = node(b, "aten::bmm(%%v%d, %%v%d)", p, node(b, "aten::view_copy(%%v%d, [%d, %d, %d])", v, s->heads, S, hd));
    o = node(b, "aten::permute_copy(%%v%d, [0, 2, 1, 3])",
             node(b, "aten::view_copy(%%v%d, [1, %d, 1, %d])", o, s->heads, hd));
    return linear(b, node(b, "aten::view_copy(%%v%d, [1, %d])", o, s->dim), s->dim, s->dim);
}
static int feed_forward(builder *b, int x, const llama_shape *s) {
    int a = linear(b, x, s->dim, s->hidden);
    int silu = node(b, "aten::mul.Tensor(%%v%d, %%v%d)", a, node(b, "aten::sigmoid(%%v%d)", a));
    int g = node(b, "aten::mul.Tensor(%%v%d, %%v%d)", silu, linear(b, x, s->dim, s->hidden));
    return linear(b, g, s->hidden, s->dim);
}
static char *llama_step(builder *b, const llama_shape *s) {
    builder_init(b);
    b->fdt = s->bf16 ? "bf16" : NULL;
    char shape[64];
    int hd = s->dim / s->heads;
    snprintf(shape, sizeof shape, "1, %d", s->dim);
    int x = node(b, "aten::clone(%%p%d)", param(b, X_INPUT, shape));
    step_inputs in;
    in.pos = param_of(b, POS, "i64", "1");
    snprintf(shape, sizeof shape, "%d, %d", s->max_seq, s->max_seq);
    in.mask = node(b, "aten::index.Tensor(%%p%d, [%%p%d])", param(b, MASK, shape), in.pos);
    snprintf(shape, sizeof shape, "%d, %d", s->max_seq, hd / 2);
    int fc = param(b, FREQS, shape), fs = param(b, FREQS, shape);
    in.cos = node(b, "aten::view_copy(%%v%d, [1, 1, 1, %d])", node(b, "aten::index.Tensor(%%p%d, [%%p%d])", fc, in.pos),
                  hd / 2);
    in.sin = node(b, "aten::view_copy(%%v%d, [1, 1, 1, %d])", node(b, "aten::index.Tensor(%%p%d, [%%p%d])", fs, in.pos),
                  hd / 2);
    for (int l = 0; l < s->layers; l++) {
        x = node(b, "aten::add.Tensor(%%v%d, %%v%d)", x, attention(b, rms_norm(b, x, s->dim), s, &in));
        x = node(b, "aten::add.Tensor(%%v%d, %%v%d)", x, feed_forward(b, rms_norm(b, x, s->dim), s));
    }
    b->decode_of = s->name, b->pos = s->max_seq / 2;
    return finish(b, linear(b, rms_norm(b, x, s->dim), s->dim, s->vocab));
}
static char *stories15m_step(builder *b) { return llama_step(b, &stories15m); }
static char *stories15m_bf16_step(builder *b) { return llama_step(b, &stories15m_bf16); }
static char *stories110m_step(builder *b) { return llama_step(b, &stories110m); }
static char *llama_bench_step(builder *b) { return llama_step(b, &llama_bench_shape); }

/* SplitMix64's uniform [lo, hi) */
static uint64_t rng = 27;
static float uniform(float lo, float hi) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull, z = (z ^ (z >> 27)) * 0x94D049BB133111EBull, z ^= z >> 31;
    return lo + (hi - lo) * (float)((double)(z >> 40) / (double)(1ull << 24));
}
static void fill(opgen_tensor *t, init_kind kind, const builder *b) {
    if (t->dtype == OPGEN_DTYPE_BFloat16) { /* the float values, rounded */
        opgen_tensor f = *t;
        int64_t n = opgen_numel(t);
        f.dtype = OPGEN_DTYPE_Float, f.data = malloc(sizeof(float) * (size_t)(n ? n : 1));
        if (!f.data) fputs("bench_models: out of memory\n", stderr), exit(1);
        fill(&f, kind, b);
        for (int64_t i = 0; i < n; i++) ((uint16_t *)t->data)[i] = opgen_float_to_bf16(((float *)f.data)[i]);
        free(f.data);
        return;
    }
    if (kind == POS) {
        *(int64_t *)t->data = b->pos;
        return;
    }
    float *p = t->data;
    if (kind == MASK) { /* causal: row i sees columns 0..i */
        for (int64_t i = 0; i < t->sizes[0]; i++)
            for (int64_t j = 0; j < t->sizes[1]; j++) p[i * t->sizes[1] + j] = j <= i ? 0.0f : -INFINITY;
        return;
    }
    int64_t n = opgen_numel(t), fan_in = n / (t->sizes[0] ? t->sizes[0] : 1);
    float he = sqrtf(6.0f / (float)(fan_in ? fan_in : 1));
    for (int64_t i = 0; i < n; i++)
        p[i] = kind == CONV_W || kind == FC_W                      ? uniform(-he, he)
               : kind == BN_W || kind == BN_VAR                    ? uniform(0.5f, 1.5f)
               : kind == X_INPUT || kind == CACHE || kind == FREQS ? uniform(-1, 1)
                                                                   : uniform(-0.2f, 0.2f);
}

static double sgemm_256_once(void);

/* The machine's own limit for threads, measured beside each threaded run: opgen's
 * GEMM 256^3 (4 calls) on one thread, then a copy of it on each of the pool's
 * threads at once, each copy on its own matrices. The copies share nothing, so
 * on cores of their own they take as long as one alone (1.00); on a VM whose
 * other vCPUs are busy, longer. A job split across those threads can at best
 * take that ratio over the thread count of its one-thread time. */
#ifdef OPGEN_HAVE_POOL
typedef struct gemm_copies {
    float *mem;
    char *scratch;
    size_t per;
    int n;
} gemm_copies;
enum { COPY_N = 256 };
static void gemm_copy(void *arg, int part) {
    const gemm_copies *g = arg;
    float *m = g->mem + (size_t)part * 3 * COPY_N * COPY_N;
    for (int k = 0; k < 4; k++)
        opgen_gemm_f32(NULL, COPY_N, COPY_N, COPY_N, 1, m, COPY_N, 1, m + COPY_N * COPY_N, COPY_N, 1, 0,
                       m + 2 * COPY_N * COPY_N, COPY_N, g->scratch + (size_t)part * g->per, NULL);
}
static double copies_ratio_once(const opgen_parallel *par) {
    static gemm_copies g;
    int n = opgen_parallel_parts(par);
    if (n < 2 || (g.n && n != g.n)) return 0;
    if (!g.n) { /* once, for the pool's thread count (kept to the end: a benchmark) */
        size_t elems = (size_t)3 * COPY_N * COPY_N * (size_t)n;
        g.per = opgen_gemm_scratch(OPGEN_DTYPE_Float, NULL, COPY_N, COPY_N, COPY_N);
        g.mem = malloc(sizeof(float) * elems), g.scratch = malloc(g.per * (size_t)n);
        if (!g.mem || !g.scratch) return 0;
        for (size_t i = 0; i < elems; i++) g.mem[i] = (float)(i % 23) / 8.0f - 1.0f;
        g.n = n;
    }
    double s = opgen_rt_now_ms();
    gemm_copy(&g, 0);
    double one = opgen_rt_now_ms() - s;
    s = opgen_rt_now_ms();
    opgen_parallel_for(par, n, gemm_copy, &g);
    return (opgen_rt_now_ms() - s) / one;
}
#endif

/* OPGEN_BENCH_PROFILE=1: each step's time over the runs, on one thread and on
 * THREADS (the programs' probe hook), printed after the model's row for the steps
 * over 1% of the run: where the time goes, and which steps the threads split
 * well. */
typedef struct step_clock {
    double *ms, t0;
    int n;
    const char **op;
} step_clock;
static void step_probe(void *user, int step, int phase) {
    step_clock *c = user;
    if (step >= c->n) return;
    if (!phase)
        c->t0 = opgen_rt_now_ms();
    else
        c->ms[step] += opgen_rt_now_ms() - c->t0;
}
static void step_node(void *user, const opgen_gnode *node, const char *kernel, const char *origin) {
    step_clock *c = user;
    (void)kernel, (void)origin;
    c->op[c->n++] = node->op;
}
static void print_steps(const char *name, const opgen_program *p, step_clock *c, int npass, int threads) {
    double total = 0;
    for (int k = 0; k < c[0].n; k++) total += c[0].ms[k];
    printf(
        "\n%s, each step over 1%% of the run (means of the runs, ms):\n\n| step | op | MFLOP | one thread | share | GFLOP/s |%s\n|---|---|---|---|---|---|%s\n",
        name, npass > 1 ? " threads | ratio |" : "", npass > 1 ? "---|---|" : "");
    for (int k = 0; k < c[0].n; k++) {
        if (c[0].ms[k] < total / 100) continue;
        double ms = c[0].ms[k] / runs, flops = opgen_program_step_flops(p, k);
        printf("| %d | %s | %.0f | %.3f | %.1f%% |", k, c[0].op[k], flops / 1e6, ms, 100 * c[0].ms[k] / total);
        printf(flops > 0 ? " %.1f |" : " |", flops / 1e6 / ms);
        if (npass > 1) printf(" %.3f on %d | %.2fx |", c[1].ms[k] / runs, threads, c[1].ms[k] / c[0].ms[k]);
        printf("\n");
    }
    printf("\n");
}

/* A decode step's row up to its threads column: its time against streaming
 * BYTES once from memory (stream_gbs), the goal within 1.5x. */
static void decode_row(const char *name, const char *what, double bytes, double ms) {
    double stream = bytes / (stream_gbs * 1e6);
    printf(
        "| %s decode step (%s) | %.3f ms | %.0f tokens/s | streaming its bytes once: %.3f ms; %.2fx of it (goal <= 1.5x) |",
        name, what, ms, 1e3 / ms, stream, ms / stream);
}

/* The scores or logits are finite numbers (a wrong graph, one that masks every
 * position, say, gives NaN) */
static bool finite(const opgen_tensor *t) {
    for (int64_t i = 0; i < opgen_numel(t); i++)
        if (!isfinite(opgen_load_f64(t, i))) return false;
    return true;
}

/* One graph model, loaded once on one thread and once on THREADS, run in
 * alternation with OpenBLAS sgemm 256^3 (round r: sgemm, one thread, threads), so
 * the machine's drift touches all three alike; medians, outputs compared. */
static int graph_model(const char *name, char *(*make)(builder *), int threads, bool with_sgemm, double goal) {
    const char *only = getenv("OPGEN_BENCH_ONLY");
    if (only && *only && strcmp(only, name)) return 0;
    static builder b;
    char *text = make(&b);
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_error err = {0};
    opgen_graph g;
    if (opgen_graph_parse(name, text, strlen(text), false, &a, &g, &err)) return fail(&err);
    opgen_ivalue *in = calloc((size_t)g.ninputs, sizeof *in);
    for (int i = 0; i < g.ninputs; i++) {
        const opgen_gvalue *v = &g.values[g.inputs[i]];
        in[i].kind = OPGEN_GV_TENSOR;
        if (opgen_tensor_alloc(&in[i].t, v->dtype, v->dim, v->sizes, &a, &err)) return fail(&err);
        fill(&in[i].t, b.kinds[i], &b);
    }
    int npass = threads > 1 ? 2 : 1;
    const char *prof_env = getenv("OPGEN_BENCH_PROFILE");
    bool profile = prof_env && *prof_env && strcmp(prof_env, "0");
    step_clock clocks[2] = {{0}, {0}};
    opgen_program *p[2];
    opgen_arena work[2];
    void *work_mem[2] = {NULL, NULL};
    void *pool[2] = {NULL, NULL};
    for (int k = 0; k < npass; k++) {
        opgen_load_options lo = {0};
#ifdef OPGEN_HAVE_POOL
        pool[k] = k ? opgen_pool_create(threads) : NULL;
        lo.parallel = opgen_pool_parallel(pool[k]);
#else
        if (k) npass = 1;
#endif
        if (opgen_program_load_with(&g, &a, &lo, &p[k], &err)) return fail(&err);
        if (profile) {
            int n = opgen_program_nsteps(p[k]);
            clocks[k] = (step_clock){calloc((size_t)n, sizeof(double)), 0, 0, calloc((size_t)n, sizeof(char *))};
            if (!clocks[k].ms || !clocks[k].op) return fputs("bench_models: out of memory\n", stderr), 1;
            opgen_program_kernels(p[k], step_node, &clocks[k]);
            opgen_program_set_probe(p[k], step_probe, &clocks[k]);
        }
        /* the run's memory in one block of the size the program reports, as an
         * application gives it: no allocation (and no page faults) while it runs */
        size_t wb = opgen_program_work_bytes(p[k]);
        work_mem[k] = malloc(wb);
        if (!work_mem[k]) return fputs("bench_models: out of memory\n", stderr), 1;
        memset(work_mem[k], 0, wb);
        opgen_arena_init(&work[k], work_mem[k], wb);
    }
    double t[2][64], sg[64], copies[64] = {0};
    void *first = NULL;
    size_t out_bytes = 0;
    int status = 0;
    for (int r = -1; r < runs; r++) {
        double rate = with_sgemm ? sgemm_256_once() : 0;
        if (r >= 0) sg[r] = rate;
        for (int k = 0; k < npass; k++) {
            opgen_arena_mark m = opgen_arena_save(&work[k]);
            opgen_ivalue out;
            double s = opgen_rt_now_ms();
            if (opgen_program_run(p[k], in, &work[k], &out, &err)) return fail(&err);
            if (r >= 0) t[k][r] = opgen_rt_now_ms() - s;
            size_t nb = opgen_nbytes(&out.t);
            if (!first) {
                first = malloc(nb), memcpy(first, out.t.data, nb), out_bytes = nb;
                if (!finite(&out.t)) fprintf(stderr, "bench_models: %s: a result is not finite\n", name), status = 1;
            } else if (nb != out_bytes || memcmp(first, out.t.data, nb))
                status = 1;
            opgen_arena_restore(&work[k], m);
            if (r < 0 && profile) /* the warm-up run (first touches, cold caches) is not one of the runs */
                memset(clocks[k].ms, 0, sizeof(double) * (size_t)clocks[k].n);
        }
#ifdef OPGEN_HAVE_POOL
        if (r >= 0 && npass > 1) copies[r] = copies_ratio_once(opgen_pool_parallel(pool[1]));
#endif
    }
    double ms = opgen_rt_median(t[0], runs), gf = 2 * b.macs / 1e6 / ms;
    if (b.decode_of) { /* its bytes: every weight and cache (of the mask and rotations tables a row) */
        double bytes = 0;
        char what[64];
        for (int i = 0; i < g.ninputs; i++)
            bytes +=
                b.kinds[i] == FC_W || b.kinds[i] == BN_W || b.kinds[i] == CACHE ? (double)opgen_nbytes(&in[i].t) : 0;
        snprintf(what, sizeof what, "graph text, %.1f MB of weights and caches", bytes / 1e6);
        decode_row(name, what, bytes, ms);
    } else if (with_sgemm && sg[0] > 0) {
        double s = opgen_rt_median(sg, runs);
        printf("| %s, 1x3x224x224 (%.2f GMAC) | %.1f ms | %.1f GFLOP/s | %.0f%% of %.1f GFLOP/s (goal >= %.0f%%) |",
               name, b.macs / 1e9, ms, gf, 100 * gf / s, s, 100 * goal);
    } else
        printf("| %s, 1x3x224x224 (%.2f GMAC) | %.1f ms | %.1f GFLOP/s | |", name, b.macs / 1e9, ms, gf);
    if (npass > 1) {
        double m2 = opgen_rt_median(t[1], runs);
        double c = opgen_rt_median(copies, runs);
        printf(" %.1f ms on %d threads, %.2fx; %s", m2, threads, m2 / ms, status ? "OUTPUTS DIFFER" : "same bytes");
        if (c > 0)
            printf("; the machine: %d GEMMs at once take %.2fx of one, so %.2fx at best", threads, c, c / threads);
        printf(" |\n");
    } else
        printf(" |\n");
    if (profile) print_steps(name, p[0], clocks, npass, threads);
    for (int k = 0; k < 2; k++) free(clocks[k].ms), free(clocks[k].op);
    for (int k = 0; k < npass; k++) free(work_mem[k]);
#ifdef OPGEN_HAVE_POOL
    for (int k = 0; k < 2; k++) opgen_pool_destroy(pool[k]);
#endif
    free(first), free(in), free(text);
    opgen_arena_release(&a);
    return status;
}

/* ---- ExecuTorch programs: one method, loaded once ---- */
typedef struct pte_model {
    opgen_arena files, load, work;
    void *work_mem;
    opgen_pte pte;
    opgen_method *m;
    size_t size;
} pte_model;

/* Loaded as an application does: the run's memory one block of the size the
 * method reports (nothing allocated while it runs). */
static int pte_open(pte_model *pm, const char *path, opgen_error *err) {
    char *bytes;
    opgen_arena_init_growing(&pm->files), opgen_arena_init_growing(&pm->load);
    pm->work_mem = NULL;
    if (opgen_file_read(path, (size_t)1 << 31, &pm->files, &bytes, &pm->size, err) ||
        opgen_pte_open(&pm->pte, bytes, pm->size, path, err))
        return 1;
    if (opgen_method_load(&pm->pte, "forward", NULL, &pm->load, &pm->m, err)) return 1;
    size_t wb = opgen_method_work_bytes(pm->m);
    if (!(pm->work_mem = calloc(1, wb))) return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory"), 1;
    opgen_arena_init(&pm->work, pm->work_mem, wb);
    return 0;
}
static void pte_close(pte_model *pm) {
    free(pm->work_mem), opgen_arena_release(&pm->load), opgen_arena_release(&pm->files);
}

static int small_cnn(const char *corpus) {
    char path[1024];
    pte_model pm;
    opgen_error err = {0};
    snprintf(path, sizeof path, "%s/exir/small_cnn/model.pte", corpus);
    if (pte_open(&pm, path, &err)) return fail(&err);
    int n = opgen_method_ninputs(pm.m);
    opgen_ivalue in[8], out[8];
    for (int i = 0; i < n && i < 8; i++) {
        char f[1100];
        snprintf(f, sizeof f, "%s/exir/small_cnn/inputs/0_%d.npy", corpus, i);
        in[i] = *opgen_method_input(pm.m, i);
        if (opgen_npy_read(f, &pm.files, &in[i].t, &err)) return fail(&err);
    }
    double t[64];
    for (int r = -1; r < runs; r++) {
        opgen_arena_mark mk = opgen_arena_save(&pm.work);
        double s = opgen_rt_now_ms();
        if (opgen_method_run(pm.m, in, &pm.work, out, &err)) return fail(&err);
        if (r >= 0) t[r] = opgen_rt_now_ms() - s;
        opgen_arena_restore(&pm.work, mk);
    }
    printf("| small_cnn.pte (ExecuTorch export), one call | %.3f ms | | | |\n", opgen_rt_median(t, runs));
    pte_close(&pm);
    return 0;
}

/* A decode step: tokens i64[1, 1], input_pos i64[1]; the median over 32 positions. */
static int llama(const char *name, const char *path) {
    pte_model pm;
    opgen_error err = {0};
    if (pte_open(&pm, path, &err)) return fail(&err);
    if (opgen_method_ninputs(pm.m) != 2) return fprintf(stderr, "bench_models: %s: not a llama export\n", path), 1;
    int64_t token = 1, pos = 0;
    opgen_ivalue in[2] = {*opgen_method_input(pm.m, 0), *opgen_method_input(pm.m, 1)}, out[8];
    in[0].t.data = &token, in[1].t.data = &pos;
    double t[64];
    int steps = 32;
    for (int r = -2; r < steps; r++) {
        opgen_arena_mark mk = opgen_arena_save(&pm.work);
        pos = r + 2;
        double s = opgen_rt_now_ms();
        if (opgen_method_run(pm.m, in, &pm.work, out, &err)) return fail(&err);
        if (r >= 0) t[r] = opgen_rt_now_ms() - s;
        opgen_arena_restore(&pm.work, mk);
    }
    char what[32];
    snprintf(what, sizeof what, "%.1f MB program", (double)pm.size / 1e6);
    decode_row(name, what, (double)pm.size, opgen_rt_median(t, steps));
    printf(" |\n");
    pte_close(&pm);
    return 0;
}

/* One thread reading 512 MiB (far past the caches): GB/s, the median of RUNS. */
static double bandwidth(void) {
    size_t n = (size_t)128 << 20;
    float *buf = malloc(n * sizeof *buf);
    if (!buf) return 0;
    for (size_t i = 0; i < n; i++) buf[i] = (float)(i & 7);
    double t[64];
    volatile float sink = 0;
    for (int r = -1; r < runs; r++) {
        float acc[16] = {0};
        double s = opgen_rt_now_ms();
        for (size_t i = 0; i < n; i += 16)
            for (int u = 0; u < 16; u++) acc[u] += buf[i + u];
        if (r >= 0) t[r] = opgen_rt_now_ms() - s;
        for (int u = 0; u < 16; u++) sink += acc[u];
    }
    free(buf);
    (void)sink;
    return (double)(n * sizeof(float)) / 1e6 / opgen_rt_median(t, runs);
}

/* OpenBLAS sgemm 256^3 on one thread: GFLOP/s of 8 calls (0 without OpenBLAS). */
static double sgemm_256_once(void) {
#ifdef HAVE_OPENBLAS
    enum { N = 256 };
    static float *a;
    if (!a) {
        a = malloc(sizeof(float) * 3 * N * N);
        for (int i = 0; i < 2 * N * N; i++) a[i] = (float)(i % 23 - 11) / 8.0f;
    }
    double s = opgen_rt_now_ms();
    for (int k = 0; k < 8; k++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1, a, N, a + N * N, N, 0, a + 2 * N * N, N);
    return 8 * 2.0 * N * N * N / 1e6 / (opgen_rt_now_ms() - s);
#else
    return 0;
#endif
}

int main(int argc, char **argv) {
    const char *core = bench_openblas_core(argv);
    if (argc > 1) runs = atoi(argv[1]) > 0 && atoi(argv[1]) < 64 ? atoi(argv[1]) : 7;
    int threads = argc > 2 ? atoi(argv[2]) : 2;
    const char *corpus = argc > 3 ? argv[3] : NULL;
#ifdef HAVE_OPENBLAS
    openblas_set_num_threads(1);
#endif
    const char *only = getenv("OPGEN_BENCH_ONLY");
    bool all = !only || !*only;
    for (int w = 0; w < 3; w++) sgemm_256_once(); /* warm */
    const char *extra = getenv("OPGEN_BENCH_LLAMA");
    stream_gbs =
        all || (extra && *extra) || !strncmp(only, "stories", 7) || !strncmp(only, "llama", 5) ? bandwidth() : 0;
    bool sg = sgemm_256_once() > 0;
    printf("whole models, medians of %d runs (%s)\n\n", runs, __VERSION__);
    if (sg)
        printf(
            "OpenBLAS (core %s) sgemm 256^3 on one thread runs before each model run; its median beside the model's\n",
            core);
    printf("memory bandwidth, one thread reading 512 MiB: %.1f GB/s\n\n", stream_gbs);
    printf("| model | opgen, one thread | FLOP rate | of sgemm 256^3 | threads |\n|---|---|---|---|---|\n");
    int status = graph_model("ResNet-18", resnet18, threads, sg, 0.85) |
                 graph_model("MobileNetV2", mobilenet_v2, threads, sg, 0.40) |
                 graph_model("stories15M", stories15m_step, threads, false, 0) |
                 graph_model("stories15M-bf16", stories15m_bf16_step, threads, false, 0);
    if (only && !strcmp(only, "stories110M"))
        status |= graph_model("stories110M", stories110m_step, threads, false, 0); /* 0.5 GB: only when named */
    if (only && !strcmp(only, "llama_bench-shape"))
        status |= graph_model("llama_bench-shape", llama_bench_step, threads, false, 0);
    if (corpus && all) {
        char path[1024];
        snprintf(path, sizeof path, "%s/exir/llama_bench/model.pte", corpus);
        FILE *f = fopen(path, "rb");
        if (f) {
            fclose(f);
            status |= small_cnn(corpus) | llama("llama_bench", path);
        } else
            printf("SKIP small_cnn and llama_bench: no corpus at %s\n", corpus);
    }
    if (extra && *extra) status |= llama(extra, extra);
    return status;
}
