/* The Backend dialect at run time:
 *  - every backend op with a pattern: a program calling it, run through its
 *    fallback, gives exactly the bytes of the same program with the pattern
 *    inlined (opgen_decompose) and run on the core kernels;
 *  - quantized_decomposed::add: the native kernel (which the registry prefers)
 *    and the fallback agree within one quantization step, on every pair of
 *    uint8 inputs, for several scales and zero points;
 *  - executorch_prims: Python's semantics, against values Python 3.11 computed
 *    (a // b, a % b, a / b, ...); results outside 64 bits and division by zero
 *    are errors, never a crash.
 * usage: test_backend */
#include "check.h"
#include "opgen/lower.h"
#include "opgen_backend.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs of every dtype from a formula: small integers for quantized bytes,
 * indices in range for embeddings (Long), mixed-sign floats. */
static void fill(opgen_tensor *t, int j) {
    int64_t n = opgen_numel(t);
    for (int64_t k = 0; k < n; k++) {
        int64_t base = k * 37 + j * 11;
        switch (t->dtype) {
        case OPGEN_DTYPE_Byte: ((uint8_t *)t->data)[k] = (uint8_t)(base % 256); break;
        case OPGEN_DTYPE_Char: ((int8_t *)t->data)[k] = (int8_t)(base % 256 - 128); break;
        case OPGEN_DTYPE_Long: ((int64_t *)t->data)[k] = base % 5; break;
        case OPGEN_DTYPE_Float: ((float *)t->data)[k] = (float)(base % 19 - 9) / 8.0f; break;
        default: break;
        }
    }
}

typedef struct run_result {
    int n;
    opgen_ivalue out[8];
} run_result;

/* Parses, loads (fallbacks or not) and runs text on filled inputs; 0 on success. */
static int run(const char *text, bool fallbacks, bool decompose, opgen_arena *a, run_result *r) {
    opgen_graph g, d;
    opgen_error err = {0};
    opgen_program *p;
    opgen_load_options opt = {.fallbacks = fallbacks};
    if (opgen_graph_parse("t.graph", text, strlen(text), false, a, &g, &err))
        return printf("  parse: %s\n", err.msg), 1;
    if (decompose) {
        int n = 0;
        if (opgen_decompose(&g, a, &d, &n, &err)) return printf("  decompose: %s\n", err.msg), 1;
        if (n < 1) return printf("  decompose inlined nothing\n"), 1;
        g = d;
    }
    if (opgen_program_load_with(&g, a, &opt, &p, &err)) return printf("  load: %s\n", err.msg), 1;
    opgen_ivalue in[8];
    memset(in, 0, sizeof in);
    for (int i = 0; i < g.ninputs && i < 8; i++) {
        const opgen_gvalue *gv = &g.values[g.inputs[i]];
        in[i].kind = gv->kind;
        if (gv->kind != OPGEN_GV_TENSOR) continue;
        if (opgen_tensor_alloc(&in[i].t, gv->dtype, gv->dim, gv->sizes, a, &err)) return 1;
        fill(&in[i].t, i);
    }
    r->n = g.noutputs;
    if (opgen_program_run(p, in, a, r->out, &err)) return printf("  run: %s\n", err.msg), 1;
    return 0;
}

static bool same_bytes(const opgen_ivalue *x, const opgen_ivalue *y) {
    if (x->kind != y->kind) return false;
    if (x->kind != OPGEN_GV_TENSOR) return x->i == y->i && x->b == y->b && !memcmp(&x->f, &y->f, sizeof x->f);
    return x->t.dtype == y->t.dtype && x->t.dim == y->t.dim &&
           !memcmp(x->t.sizes, y->t.sizes, sizeof(int64_t) * (size_t)x->t.dim) &&
           !memcmp(x->t.data, y->t.data, opgen_nbytes(&x->t));
}

/* One program per backend op with a pattern (a new backend op without one fails). */
static const struct {
    const char *op, *text;
} programs[] = {
    {"quantized_decomposed::add_relu",
     "graph(%a: u8[4, 16], %b: u8[4, 16]):\n"
     "  %r = quantized_decomposed::add_relu(%a, 0.05, 128, 0, 255, %b, 0.03, 120, 0, 255, 0.07, 125, 0, 255)\n"
     "  return %r\n"},
    {"quantized_decomposed::add",
     "graph(%a: u8[4, 16], %b: u8[4, 16]):\n"
     "  %r = quantized_decomposed::add(%a, 0.05, 128, 0, 255, %b, 0.03, 120, 0, 255, 0.07, 125, 0, 255)\n"
     "  return %r\n"},
    {"quantized_decomposed::add.scalar",
     "graph(%a: u8[4, 16]):\n"
     "  %r = quantized_decomposed::add.scalar(%a, 0.05, 128, 0, 255, torch.uint8, 1.25, 0.06, 100, 0, 255, torch.uint8)\n"
     "  %s = quantized_decomposed::add.scalar(%a, 0.05, 128, 0, 255, torch.uint8, -3, 0.06, 100, 0, 255, torch.uint8)\n"
     "  return (%r, %s)\n"},
    {"quantized_decomposed::embedding_byte", "graph(%w: u8[6, 8], %s: f32[6], %z: i64[6], %i: i64[3, 2]):\n"
                                             "  %r = quantized_decomposed::embedding_byte(%w, %s, %z, 0, 255, %i)\n"
                                             "  %n = quantized_decomposed::embedding_byte(%w, %s, None, 0, 255, %i)\n"
                                             "  return (%r, %n)\n"},
    {"quantized_decomposed::embedding_byte.dtype",
     "graph(%w: i8[6, 8], %s: f32[6], %i: i64[3, 2]):\n"
     "  %r = quantized_decomposed::embedding_byte.dtype(%w, %s, None, -128, 127, %i, dtype=torch.float32)\n"
     "  %n = quantized_decomposed::embedding_byte.dtype(%w, %s, None, -128, 127, %i)\n"
     "  return (%r, %n)\n"},
/* q8: weight scales made positive and small (|s| / 500 + 0.0005), so that the
 * results spread over the int8 range */
#define Q8_SCALES "  %sa = aten::abs(%s)\n  %sm = aten::mul.Scalar(%sa, 0.002)\n  %sc = aten::add.Scalar(%sm, 0.0005)\n"
    {"q8::conv2d", "graph(%x: i8[2, 8, 9, 7], %w: i8[12, 8, 3, 3], %s: f32[12], %b: f32[12]):\n" Q8_SCALES
                   "  %r = q8::conv2d(%x, 0.05, 3, %w, %sc, None, %b, [1, 1], [1, 1], [1, 1], 1, 0.02, -5)\n"
                   "  %n = q8::conv2d(%x, 0.05, 3, %w, %sc, None, None, [2, 1], [0, 2], [1, 2], 1, 0.03, 7)\n"
                   "  return (%r, %n)\n"},
    {"q8::conv2d_relu",
     "graph(%x: i8[1, 8, 6, 5], %w: i8[16, 8, 1, 1], %s: f32[16], %b: f32[16]):\n" Q8_SCALES
     "  %r = q8::conv2d_relu(%x, 0.04, -2, %w, %sc, None, %b, [1, 1], [0, 0], [1, 1], 1, 0.01, -128)\n"
     "  return %r\n"},
    {"q8::conv2d_hardtanh",
     "graph(%x: i8[1, 8, 11, 10], %w: i8[8, 1, 3, 3], %s: f32[8], %b: f32[8], %z: i64[8]):\n" Q8_SCALES
     "  %zz = aten::mul.Scalar(%z, 0)\n"
     "  %r = q8::conv2d_hardtanh(%x, 0.05, 3, %w, %sc, %zz, %b, [2, 2], [1, 1], [1, 1], 8, 0.0, 6.0, 0.03, -100)\n"
     "  return %r\n"},
    {"q8::linear", "graph(%x: i8[3, 20], %w: i8[7, 20], %s: f32[7], %b: f32[7]):\n" Q8_SCALES
                   "  %r = q8::linear(%x, 0.05, 1, %w, %sc, None, %b, 0.3, 4)\n"
                   "  return %r\n"},
    {"q8::add_relu", "graph(%a: i8[4, 16], %b: i8[4, 16]):\n"
                     "  %r = q8::add_relu(%a, 0.05, 12, %b, 0.03, -20, 0.07, -128)\n"
                     "  return %r\n"},
    {"q8::add", "graph(%a: i8[4, 16], %b: i8[4, 16]):\n"
                "  %r = q8::add(%a, 0.05, 12, %b, 0.03, -20, 0.07, 5)\n"
                "  return %r\n"},
    {"q8::relu", "graph(%x: i8[4, 16]):\n"
                 "  %r = q8::relu(%x, 0.05, 12, 0.03, -128)\n"
                 "  return %r\n"},
    {"q8::hardtanh", "graph(%x: i8[4, 16]):\n"
                     "  %r = q8::hardtanh(%x, 0.05, 12, -1.0, 2.5, 0.05, 12)\n"
                     "  return %r\n"},
    {"q8::max_pool2d", "graph(%x: i8[2, 3, 9, 8]):\n"
                       "  %r = q8::max_pool2d(%x, 0.05, 12, [3, 3], [2, 2], [1, 1], [1, 1], False, 0.05, 12)\n"
                       "  return %r\n"},
    {"q8::mean", "graph(%x: i8[2, 5, 4, 6]):\n"
                 "  %r = q8::mean(%x, 0.05, 12, [-1, -2], True, 0.01, -3)\n"
                 "  %n = q8::mean(%x, 0.05, 12, [2, 3], False, 0.02, 9)\n"
                 "  return (%r, %n)\n"},
#undef Q8_SCALES
    {"demo::linear_relu", "graph(%x: f32[5, 4], %w: f32[3, 4], %b: f32[3]):\n"
                          "  %r = demo::linear_relu(%x, %w, %b)\n"
                          "  return %r\n"},
};

static void test_fallback_equals_inlined(void) {
    int covered = 0;
    for (int b = 0; b < OPGEN_BACKEND_OP_COUNT; b++) {
        const opgen_backend_op *bo = &opgen_backend_ops[b];
        if (!bo->pattern) continue;
        const char *name = opgen_ops[bo->op].qualified;
        int k = -1;
        for (size_t i = 0; i < sizeof programs / sizeof *programs; i++)
            if (!strcmp(programs[i].op, name)) k = (int)i;
        CHECK(k >= 0, "%s has no test program", name);
        if (k < 0) continue;
        opgen_arena a;
        opgen_arena_init_growing(&a);
        run_result fb, inl;
        int e1 = run(programs[k].text, true, false, &a, &fb), e2 = run(programs[k].text, false, true, &a, &inl);
        CHECK(!e1 && !e2, "%s: could not run", name);
        if (!e1 && !e2) {
            CHECK(fb.n == inl.n, "%s: %d results through the fallback, %d inlined", name, fb.n, inl.n);
            for (int o = 0; o < fb.n && o < inl.n; o++)
                CHECK(same_bytes(&fb.out[o], &inl.out[o]),
                      "%s: result %d differs between the fallback and the inlined pattern", name, o);
            covered++;
        }
        opgen_arena_release(&a);
    }
    printf("test_backend: %d backend ops, fallback == inlined pattern byte for byte\n", covered);
}

/* Every pair of uint8 inputs (256 x 256), for several quantization parameters. */
static void test_native_quantized_add(void) {
    static const struct {
        double as, bs, os;
        int azp, bzp, ozp, qmin, qmax;
    } params[] = {
        {0.05, 0.05, 0.1, 128, 128, 128, 0, 255},
        {0.02, 0.7, 0.33, 0, 255, 17, 0, 255},
        {1.0, 1.0, 1.0, 0, 0, 0, 0, 255},
        {0.1, 0.1, 0.05, 200, 10, 90, 10, 240},
        {0.003, 0.009, 0.011, 128, 128, 128, 0, 255},
    };
    uint8_t *a = malloc(65536), *b = malloc(65536), *o1 = malloc(65536), *o2 = malloc(65536);
    int64_t sizes[2] = {256, 256};
    int worst = 0, differ = 0;
    for (int i = 0; i < 65536; i++) a[i] = (uint8_t)(i / 256), b[i] = (uint8_t)(i % 256);
    for (size_t k = 0; k < sizeof params / sizeof *params; k++) {
        opgen_error err = {0};
        opgen_tensor ta, tb, t1, t2;
        opgen_tensor_shape(&ta, OPGEN_DTYPE_Byte, 2, sizes, &err);
        tb = t1 = t2 = ta;
        ta.data = a, tb.data = b, t1.data = o1, t2.data = o2;
        ta.capacity = tb.capacity = t1.capacity = t2.capacity = 65536;
        opgen_arena ar;
        opgen_arena_init_growing(&ar);
        opgen_ctx ctx = {&ar, &err, "quantized_decomposed::add", false, 0, false, -1, NULL, NULL, NULL, 0, NULL};
        int s1 = opgen_native_quantized_add_out(&ctx, &ta, params[k].as, params[k].azp, 0, 255, &tb, params[k].bs,
                                                params[k].bzp, 0, 255, params[k].os, params[k].ozp, params[k].qmin,
                                                params[k].qmax, &t1);
        int s2 = opgen_fallback_quantized_decomposed_add_out(&ctx, &ta, params[k].as, params[k].azp, 0, 255, &tb,
                                                             params[k].bs, params[k].bzp, 0, 255, params[k].os,
                                                             params[k].ozp, params[k].qmin, params[k].qmax, &t2);
        CHECK(!s1 && !s2, "params %zu: %s", k, err.msg);
        for (int i = 0; !s1 && !s2 && i < 65536; i++) {
            int d = abs((int)o1[i] - (int)o2[i]);
            if (d > worst) worst = d;
            differ += d != 0;
        }
        opgen_arena_release(&ar);
    }
    CHECK(worst <= 1, "native and fallback quantized add differ by %d steps", worst);
    /* the registry serves the op with the native kernel, and keeps the fallback */
    int id = opgen_op_lookup("quantized_decomposed::add.out");
    CHECK(id >= 0 && opgen_registry[id].fn == (void (*)(void))opgen_native_quantized_add_out,
          "the registry does not prefer the native kernel");
    CHECK(id >= 0 && opgen_registry_find_fallback(id, OPGEN_DTYPE_Byte) &&
              opgen_registry_find_fallback(id, OPGEN_DTYPE_Byte)->fn ==
                  (void (*)(void))opgen_fallback_quantized_decomposed_add_out,
          "the fallback is not kept");
    printf(
        "test_backend: native vs fallback quantized add over %zu x 65536 input pairs: %d differ, at most %d step%s\n",
        sizeof params / sizeof *params, differ, worst, worst == 1 ? "" : "s");
    free(a), free(b), free(o1), free(o2);
}

/* Python 3.11's results: a + b, a - b, a * b, a // b, a % b, -a; a / b; a > b,
 * a < b, a >= b, a <= b, a == b. err: bit k set where op k (add, sub, mul,
 * floordiv, mod, neg, truediv) leaves 64 bits or divides by zero. */
static const struct {
    int64_t a, b, i[6];
    double truediv;
    int cmp[5];
    unsigned err;
} prims[] = {
    {INT64_C(7),
     INT64_C(2),
     {INT64_C(9), INT64_C(5), INT64_C(14), INT64_C(3), INT64_C(1), INT64_C(-7)},
     3.5,
     {1, 0, 1, 0, 0},
     0x00},
    {INT64_C(-7),
     INT64_C(2),
     {INT64_C(-5), INT64_C(-9), INT64_C(-14), INT64_C(-4), INT64_C(1), INT64_C(7)},
     -3.5,
     {0, 1, 0, 1, 0},
     0x00},
    {INT64_C(7),
     INT64_C(-2),
     {INT64_C(5), INT64_C(9), INT64_C(-14), INT64_C(-4), INT64_C(-1), INT64_C(-7)},
     -3.5,
     {1, 0, 1, 0, 0},
     0x00},
    {INT64_C(-7),
     INT64_C(-2),
     {INT64_C(-9), INT64_C(-5), INT64_C(14), INT64_C(3), INT64_C(-1), INT64_C(7)},
     3.5,
     {0, 1, 0, 1, 0},
     0x00},
    {INT64_C(0),
     INT64_C(3),
     {INT64_C(3), INT64_C(-3), INT64_C(0), INT64_C(0), INT64_C(0), INT64_C(0)},
     0.0,
     {0, 1, 0, 1, 0},
     0x00},
    {INT64_C(0),
     INT64_C(-3),
     {INT64_C(-3), INT64_C(3), INT64_C(0), INT64_C(0), INT64_C(0), INT64_C(0)},
     -0.0,
     {1, 0, 1, 0, 0},
     0x00},
    {INT64_C(6),
     INT64_C(3),
     {INT64_C(9), INT64_C(3), INT64_C(18), INT64_C(2), INT64_C(0), INT64_C(-6)},
     2.0,
     {1, 0, 1, 0, 0},
     0x00},
    {INT64_C(-6),
     INT64_C(3),
     {INT64_C(-3), INT64_C(-9), INT64_C(-18), INT64_C(-2), INT64_C(0), INT64_C(6)},
     -2.0,
     {0, 1, 0, 1, 0},
     0x00},
    {INT64_C(1),
     INT64_C(-1),
     {INT64_C(0), INT64_C(2), INT64_C(-1), INT64_C(-1), INT64_C(0), INT64_C(-1)},
     -1.0,
     {1, 0, 1, 0, 0},
     0x00},
    {INT64_C(-1),
     INT64_C(1),
     {INT64_C(0), INT64_C(-2), INT64_C(-1), INT64_C(-1), INT64_C(0), INT64_C(1)},
     -1.0,
     {0, 1, 0, 1, 0},
     0x00},
    {INT64_C(5),
     INT64_C(7),
     {INT64_C(12), INT64_C(-2), INT64_C(35), INT64_C(0), INT64_C(5), INT64_C(-5)},
     0.7142857142857143,
     {0, 1, 0, 1, 0},
     0x00},
    {INT64_C(-5),
     INT64_C(7),
     {INT64_C(2), INT64_C(-12), INT64_C(-35), INT64_C(-1), INT64_C(2), INT64_C(5)},
     -0.7142857142857143,
     {0, 1, 0, 1, 0},
     0x00},
    {INT64_MAX,
     INT64_C(2),
     {INT64_C(0), INT64_C(9223372036854775805), INT64_C(0), INT64_C(4611686018427387903), INT64_C(1),
      INT64_C(-9223372036854775807)},
     4.611686018427388e+18,
     {1, 0, 1, 0, 0},
     0x05},
    {INT64_MIN,
     INT64_C(2),
     {INT64_C(-9223372036854775806), INT64_C(0), INT64_C(0), INT64_C(-4611686018427387904), INT64_C(0), INT64_C(0)},
     -4.611686018427388e+18,
     {0, 1, 0, 1, 0},
     0x26},
    {INT64_MIN,
     INT64_C(3),
     {INT64_C(-9223372036854775805), INT64_C(0), INT64_C(0), INT64_C(-3074457345618258603), INT64_C(1), INT64_C(0)},
     -3.0744573456182584e+18,
     {0, 1, 0, 1, 0},
     0x26},
    {INT64_C(123456789),
     INT64_C(-1000),
     {INT64_C(123455789), INT64_C(123457789), INT64_C(-123456789000), INT64_C(-123457), INT64_C(-211),
      INT64_C(-123456789)},
     -123456.789,
     {1, 0, 1, 0, 0},
     0x00},
    {INT64_C(3),
     INT64_C(3),
     {INT64_C(6), INT64_C(0), INT64_C(9), INT64_C(1), INT64_C(0), INT64_C(-3)},
     1.0,
     {0, 0, 1, 1, 1},
     0x00},
    {INT64_C(-3),
     INT64_C(-3),
     {INT64_C(-6), INT64_C(0), INT64_C(9), INT64_C(1), INT64_C(0), INT64_C(3)},
     1.0,
     {0, 0, 1, 1, 1},
     0x00},
    {INT64_MAX,
     INT64_C(1),
     {INT64_C(0), INT64_C(9223372036854775806), INT64_MAX, INT64_MAX, INT64_C(0), INT64_C(-9223372036854775807)},
     9.223372036854776e+18,
     {1, 0, 1, 0, 0},
     0x01},
    {INT64_MIN,
     INT64_C(-1),
     {INT64_C(0), INT64_C(-9223372036854775807), INT64_C(0), INT64_C(0), INT64_C(0), INT64_C(0)},
     9.223372036854776e+18,
     {0, 1, 0, 1, 0},
     0x2d},
    {INT64_MIN,
     INT64_C(1),
     {INT64_C(-9223372036854775807), INT64_C(0), INT64_MIN, INT64_MIN, INT64_C(0), INT64_C(0)},
     -9.223372036854776e+18,
     {0, 1, 0, 1, 0},
     0x22},
    {INT64_C(4),
     INT64_C(0),
     {INT64_C(4), INT64_C(4), INT64_C(0), INT64_C(0), INT64_C(0), INT64_C(-4)},
     0.0,
     {1, 0, 1, 0, 0},
     0x58},
    {INT64_C(-4),
     INT64_C(0),
     {INT64_C(-4), INT64_C(-4), INT64_C(0), INT64_C(0), INT64_C(0), INT64_C(4)},
     0.0,
     {0, 1, 0, 1, 0},
     0x58},
    {INT64_C(3037000500),
     INT64_C(3037000500),
     {INT64_C(6074001000), INT64_C(0), INT64_C(0), INT64_C(1), INT64_C(0), INT64_C(-3037000500)},
     1.0,
     {0, 0, 1, 1, 1},
     0x04},
    {INT64_C(-3037000499),
     INT64_C(3037000500),
     {INT64_C(1), INT64_C(-6074000999), INT64_C(-9223372033963249500), INT64_C(-1), INT64_C(1), INT64_C(3037000499)},
     -0.9999999996707277,
     {0, 1, 0, 1, 0},
     0x00},
};

static void test_prims(void) {
    static const char text[] = "graph(%a: int, %b: int):\n"
                               "  %add = executorch_prims::add.int(%a, %b)\n"
                               "  %sub = executorch_prims::sub.int(%a, %b)\n"
                               "  %mul = executorch_prims::mul.int(%a, %b)\n"
                               "  %fd = executorch_prims::floordiv.int(%a, %b)\n"
                               "  %mod = executorch_prims::mod.int(%a, %b)\n"
                               "  %neg = executorch_prims::neg.int(%a)\n"
                               "  %td = executorch_prims::truediv.int(%a, %b)\n"
                               "  %gt = executorch_prims::gt.int(%a, %b)\n"
                               "  %lt = executorch_prims::lt.int(%a, %b)\n"
                               "  %ge = executorch_prims::ge.int(%a, %b)\n"
                               "  %le = executorch_prims::le.int(%a, %b)\n"
                               "  %eq = executorch_prims::eq.int(%a, %b)\n"
                               "  return (%add, %sub, %mul, %fd, %mod, %neg, %td, %gt, %lt, %ge, %le, %eq)\n";
    static const char *const names[] = {"add", "sub", "mul", "floordiv", "mod", "neg", "truediv"};
    int checked = 0;
    for (size_t k = 0; k < sizeof prims / sizeof *prims; k++) {
        /* each op alone, so an expected error names that op and no other */
        for (int op = 0; op < 7; op++) {
            char one[256];
            int line = op < 6 ? op + 2 : 8;
            const char *p = text;
            for (int l = 1; l < line; l++) p = strchr(p, '\n') + 1;
            const char *e = strchr(p, '\n');
            snprintf(one, sizeof one, "graph(%%a: int, %%b: int):\n%.*s\n  return %%%s\n", (int)(e - p), p,
                     op == 3   ? "fd"
                     : op == 6 ? "td"
                               : names[op]);
            opgen_arena a;
            opgen_arena_init_growing(&a);
            opgen_graph g;
            opgen_program *pr;
            opgen_error err = {0};
            opgen_ivalue in[2] = {{.kind = OPGEN_GV_INT, .i = prims[k].a}, {.kind = OPGEN_GV_INT, .i = prims[k].b}},
                         out[1];
            int st = opgen_graph_parse("p.graph", one, strlen(one), false, &a, &g, &err) ||
                     opgen_program_load(&g, &a, &pr, &err) || opgen_program_run(pr, in, &a, out, &err);
            bool want_err = prims[k].err >> op & 1;
            if (want_err)
                CHECK(st && err.line == 2, "%lld %s %lld: expected an error at line 2, got %s", (long long)prims[k].a,
                      names[op], (long long)prims[k].b, st ? err.msg : "a value");
            else if (op == 6)
                CHECK(!st && out[0].kind == OPGEN_GV_FLOAT && out[0].f == prims[k].truediv &&
                          signbit(out[0].f) == signbit(prims[k].truediv),
                      "%lld / %lld = %.17g, Python says %.17g (%s)", (long long)prims[k].a, (long long)prims[k].b,
                      out[0].f, prims[k].truediv, err.msg);
            else
                CHECK(!st && out[0].kind == OPGEN_GV_INT && out[0].i == prims[k].i[op],
                      "%s(%lld, %lld) = %lld, Python says %lld (%s)", names[op], (long long)prims[k].a,
                      (long long)prims[k].b, (long long)out[0].i, (long long)prims[k].i[op], err.msg);
            checked++;
            opgen_arena_release(&a);
        }
        /* the comparisons, all in one program */
        opgen_arena a;
        opgen_arena_init_growing(&a);
        opgen_graph g;
        opgen_program *pr;
        opgen_error err = {0};
        static const char cmp[] = "graph(%a: int, %b: int):\n"
                                  "  %gt = executorch_prims::gt.int(%a, %b)\n"
                                  "  %lt = executorch_prims::lt.int(%a, %b)\n"
                                  "  %ge = executorch_prims::ge.int(%a, %b)\n"
                                  "  %le = executorch_prims::le.int(%a, %b)\n"
                                  "  %eq = executorch_prims::eq.int(%a, %b)\n"
                                  "  return (%gt, %lt, %ge, %le, %eq)\n";
        opgen_ivalue in[2] = {{.kind = OPGEN_GV_INT, .i = prims[k].a}, {.kind = OPGEN_GV_INT, .i = prims[k].b}}, out[5];
        int st = opgen_graph_parse("c.graph", cmp, strlen(cmp), false, &a, &g, &err) ||
                 opgen_program_load(&g, &a, &pr, &err) || opgen_program_run(pr, in, &a, out, &err);
        CHECK(!st, "comparisons of %lld, %lld: %s", (long long)prims[k].a, (long long)prims[k].b, err.msg);
        for (int c = 0; !st && c < 5; c++)
            CHECK(out[c].kind == OPGEN_GV_BOOL && out[c].b == prims[k].cmp[c], "comparison %d of %lld, %lld", c,
                  (long long)prims[k].a, (long long)prims[k].b);
        checked += 5;
        opgen_arena_release(&a);
    }
    printf("test_backend: %d prim results against Python (%zu operand pairs)\n", checked, sizeof prims / sizeof *prims);
}

/* The native embedding_byte kernels (only the named rows, kernels/embedding_q.c)
 * against their patterns (the whole table dequantized), byte for byte: uint8
 * and int8 weights, with and without zero points. */
static void test_native_embedding_byte(void) {
    static const char *const texts[] = {
        "graph(%w: u8[6, 8], %s: f32[6], %z: i64[6], %i: i64[3, 2]):\n"
        "  %r = quantized_decomposed::embedding_byte(%w, %s, %z, 0, 255, %i)\n"
        "  %n = quantized_decomposed::embedding_byte(%w, %s, None, 0, 255, %i)\n"
        "  return (%r, %n)\n",
        "graph(%w: i8[7, 12], %s: f32[7], %i: i64[5]):\n"
        "  %r = quantized_decomposed::embedding_byte.dtype(%w, %s, None, -128, 127, %i, dtype=torch.float32)\n"
        "  return %r\n",
    };
    for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
        opgen_arena a;
        opgen_arena_init_growing(&a);
        run_result nat, fb;
        int e1 = run(texts[k], false, false, &a, &nat), e2 = run(texts[k], true, false, &a, &fb);
        CHECK(!e1 && !e2, "embedding_byte program %zu: could not run", k);
        for (int o = 0; !e1 && !e2 && o < nat.n; o++)
            CHECK(same_bytes(&nat.out[o], &fb.out[o]), "embedding_byte program %zu: result %d: native != fallback", k,
                  o);
        opgen_arena_release(&a);
    }
}

/* The q8 ops' native kernels (the integer path) against their fallbacks (the
 * pattern in float): within one quantization step (the float pattern rounds
 * its sums in another order), the same shapes, and results spread over the
 * range (at least 8 distinct values, or half of them: not all saturated). */
static void test_native_q8(void) {
    int ops = 0, values = 0, differ = 0, worst = 0;
    for (size_t k = 0; k < sizeof programs / sizeof *programs; k++) {
        if (strncmp(programs[k].op, "q8::", 4)) continue;
        opgen_arena a;
        opgen_arena_init_growing(&a);
        run_result nat, fb;
        int e1 = run(programs[k].text, false, false, &a, &nat), e2 = run(programs[k].text, true, false, &a, &fb);
        CHECK(!e1 && !e2 && nat.n == fb.n, "%s: could not run", programs[k].op);
        for (int o = 0; !e1 && !e2 && o < nat.n && o < fb.n; o++) {
            const opgen_tensor *x = &nat.out[o].t, *y = &fb.out[o].t;
            bool shaped = x->dtype == OPGEN_DTYPE_Char && y->dtype == OPGEN_DTYPE_Char && x->dim == y->dim &&
                          !memcmp(x->sizes, y->sizes, sizeof(int64_t) * (size_t)x->dim);
            CHECK(shaped, "%s: result %d: native and fallback differ in dtype or shape", programs[k].op, o);
            bool seen[256] = {false};
            int distinct = 0, d = 0;
            for (int64_t i = 0; shaped && i < opgen_numel(x); i++) {
                int v = ((const int8_t *)x->data)[i], w = ((const int8_t *)y->data)[i];
                d = abs(v - w) > d ? abs(v - w) : d;
                differ += v != w, values++;
                distinct += !seen[v + 128], seen[v + 128] = true;
            }
            CHECK(d <= 1, "%s: result %d: native and fallback differ by %d steps", programs[k].op, o, d);
            int64_t want = opgen_numel(x) / 2 < 8 ? opgen_numel(x) / 2 : 8;
            CHECK(distinct >= want, "%s: result %d: only %d distinct values", programs[k].op, o, distinct);
            worst = d > worst ? d : worst;
        }
        ops++;
        opgen_arena_release(&a);
    }
    printf("test_backend: %d q8 ops, native (int8) vs fallback (float): %d of %d values differ, at most %d step%s\n",
           ops, differ, values, worst, worst == 1 ? "" : "s");
}

int main(void) {
    test_fallback_equals_inlined();
    test_native_q8();
    test_native_quantized_add();
    test_native_embedding_byte();
    test_prims();
    printf("test_backend: %d failed\n", failures);
    return failures != 0;
}
