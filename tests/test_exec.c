/* The executor through its C API: a program loads once and runs many times; a
 * SymInt input re-plans shapes per run; the memory plan reuses dead values'
 * space; a fixed caller buffer that is too small is an error, not a crash. */
#include "check.h"
#include "opgen/exec.h"
#include "opgen/kernel.h"
#include "opgen/loops.h"
#include "opgen_registry.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static opgen_program *load(const char *text, opgen_arena *a, opgen_graph *g, opgen_error *err) {
    opgen_program *p = NULL;
    if (opgen_graph_parse("t.graph", text, strlen(text), false, a, g, err) || opgen_program_load(g, a, &p, err))
        return NULL;
    return p;
}

static opgen_tensor f32(float *data, int32_t dim, const int64_t *sizes) {
    opgen_tensor t;
    opgen_error err = {0};
    opgen_tensor_shape(&t, OPGEN_DTYPE_Float, dim, sizes, &err);
    t.data = data;
    t.capacity = opgen_nbytes(&t);
    return t;
}

static void test_static_runs_twice(void) {
    opgen_arena a, work;
    opgen_arena_init_growing(&a);
    opgen_graph g;
    opgen_error err = {0};
    /* ten elementwise steps over 1000 floats: at most two values are live at once */
    char text[2048] = "graph(%x0: f32[1000]):\n";
    for (int i = 0; i < 10; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "  %%x%d = aten::%s(%%x%d)\n", i + 1,
                 i % 2 ? "relu" : "tanh", i);
    strcat(text, "  return %x10\n");
    opgen_program *p = load(text, &a, &g, &err);
    CHECK(p, "load: %s", err.msg);
    if (!p) return opgen_arena_release(&a);
    CHECK(opgen_program_plan_bytes(p) == 2 * 4032,
          "plan %zu bytes, expected two live 4000-byte values (64-byte aligned)", opgen_program_plan_bytes(p));
    float x[1000];
    int64_t n = 1000;
    for (int run = 0; run < 2; run++) {
        for (int i = 0; i < 1000; i++) x[i] = (float)(i - 500 + run) / 100.0f;
        opgen_ivalue in = {.kind = OPGEN_GV_TENSOR, .t = f32(x, 1, &n)}, out;
        static uint8_t buf[16384];
        opgen_arena_init(&work, buf, sizeof buf); /* a fixed buffer: the plan must fit */
        CHECK(!opgen_program_run(p, &in, &work, &out, &err), "run %d: %s", run, err.msg);
        double worst = 0;
        for (int i = 0; i < 1000; i++) {
            double v = x[i];
            for (int k = 0; k < 10; k++) v = k % 2 ? (v > 0 ? v : 0) : tanh(v);
            double d = fabs(v - ((float *)out.t.data)[i]);
            if (d > worst) worst = d;
        }
        CHECK(worst < 1e-6, "run %d: max diff %g", run, worst);
        opgen_arena_release(&work);
    }
    /* too small a buffer: an error naming the need */
    static uint8_t small[1024];
    opgen_arena_init(&work, small, sizeof small);
    opgen_ivalue in = {.kind = OPGEN_GV_TENSOR, .t = f32(x, 1, &n)}, out;
    opgen_error e2 = {0};
    CHECK(opgen_program_run(p, &in, &work, &out, &e2) == OPGEN_E_NO_MEMORY && strstr(e2.msg, "8080 bytes"),
          "small buffer: %s", e2.msg);
    CHECK(opgen_program_work_bytes(p) == 8080, "work bytes %zu: the plan, no scratch, 16 for alignment",
          opgen_program_work_bytes(p));
    /* a wrongly shaped input */
    int64_t n2 = 999;
    opgen_ivalue bad = {.kind = OPGEN_GV_TENSOR, .t = f32(x, 1, &n2)};
    opgen_arena_init_growing(&work);
    opgen_error e3 = {0};
    CHECK(opgen_program_run(p, &bad, &work, &out, &e3) == OPGEN_E_SHAPE &&
              !strcmp(e3.msg, "input %x0 is declared f32[1000], got f32[999]"),
          "bad input: %s", e3.msg);
    opgen_arena_release(&work);
    opgen_arena_release(&a);
}

/* A buffer of exactly opgen_program_work_bytes runs a program whose kernels take
 * scratch (mm: the GEMM's packed panels; a convolution: its im2col) and whose
 * steps each give theirs back. */
static void test_work_bytes_suffice(void) {
    opgen_arena a, work;
    opgen_arena_init_growing(&a);
    opgen_graph g;
    opgen_error err = {0};
    opgen_program *p = load("graph(%x: f32[16, 8]):\n"
                            "  %t = aten::permute_copy(%x, [1, 0])\n"
                            "  %s = aten::mm(%x, %t)\n"
                            "  %v = aten::view_copy(%x, [1, 2, 8, 8])\n"
                            "  %c = aten::convolution(%v, %v, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)\n"
                            "  return (%s, %c)\n",
                            &a, &g, &err);
    CHECK(p, "load: %s", err.msg);
    if (!p) return opgen_arena_release(&a);
    size_t need = opgen_program_work_bytes(p);
    CHECK(need > opgen_arena_cost(opgen_program_plan_bytes(p)) + 16, "work bytes %zu count no scratch (plan %zu)", need,
          opgen_program_plan_bytes(p));
    static float x[16 * 8];
    for (int i = 0; i < 16 * 8; i++) x[i] = (float)(i % 7);
    int64_t sz[2] = {16, 8};
    static uint8_t buf[1 << 16];
    CHECK(need + 32 <= sizeof buf, "the test's buffer is too small for %zu bytes", need);
    if (need + 32 > sizeof buf) return opgen_arena_release(&a);
    uint8_t *base = (uint8_t *)(((uintptr_t)buf + 15) & ~(uintptr_t)15) + 8; /* misaligned on purpose */
    for (int run = 0; run < 3; run++) {
        opgen_arena_init(&work, base, need);
        opgen_ivalue in = {.kind = OPGEN_GV_TENSOR, .t = f32(x, 2, sz)}, out[2];
        opgen_error e = {0};
        CHECK(!opgen_program_run(p, &in, &work, out, &e), "run in %zu bytes: %s", need, e.msg);
        CHECK(work.used <= need, "used %zu of %zu", work.used, need);
    }
    opgen_arena_release(&a);
}

static void test_symint_replans(void) {
    opgen_arena a, work;
    opgen_arena_init_growing(&a);
    opgen_graph g;
    opgen_error err = {0};
    opgen_program *p = load("graph(%x: f32[12], %n: int):\n"
                            "  %v = aten::view_copy(%x, [%n, -1])\n"
                            "  %s = aten::sum.dim_IntList(%v, [1])\n"
                            "  return (%s, %n)\n",
                            &a, &g, &err);
    CHECK(p, "load: %s", err.msg);
    if (!p) return opgen_arena_release(&a);
    float x[12];
    for (int i = 0; i < 12; i++) x[i] = (float)i;
    int64_t twelve = 12;
    const int64_t ns[] = {2, 3, 12, 1, 5, 4};
    for (size_t r = 0; r < sizeof ns / sizeof *ns; r++) {
        opgen_ivalue in[2] = {{.kind = OPGEN_GV_TENSOR, .t = f32(x, 1, &twelve)}, {.kind = OPGEN_GV_INT, .i = ns[r]}},
                     out[2];
        opgen_arena_init_growing(&work);
        opgen_error e = {0};
        int32_t st = opgen_program_run(p, in, &work, out, &e);
        if (12 % ns[r]) {
            CHECK(st == OPGEN_E_SHAPE && e.line == 2 && e.col == 3,
                  "n=%lld: expected a shape error at 2:3, got %d %u:%u %s", (long long)ns[r], (int)st, e.line, e.col,
                  e.msg);
        } else {
            CHECK(st == OPGEN_OK, "n=%lld: %s", (long long)ns[r], e.msg);
            CHECK(!st && out[0].t.dim == 1 && out[0].t.sizes[0] == ns[r] && out[1].kind == OPGEN_GV_INT &&
                      out[1].i == ns[r],
                  "n=%lld: result shape", (long long)ns[r]);
            for (int64_t i = 0; !st && i < ns[r]; i++) {
                int64_t w = 12 / ns[r];
                float want = (float)(w * (i * w) + w * (w - 1) / 2);
                CHECK(((float *)out[0].t.data)[i] == want, "n=%lld: row %lld = %g, want %g", (long long)ns[r],
                      (long long)i, ((float *)out[0].t.data)[i], want);
            }
        }
        opgen_arena_release(&work);
    }
    opgen_arena_release(&a);
}

static void test_load_errors_do_not_leak_state(void) {
    /* a failing load leaves nothing behind but arena memory; many in a row */
    for (int i = 0; i < 100; i++) {
        opgen_arena a;
        opgen_arena_init_growing(&a);
        opgen_graph g;
        opgen_error err = {0};
        CHECK(!load("graph(%x: f32[2, 3]):\n  %r = aten::mm(%x, %x)\n  return %r\n", &a, &g, &err) && err.line == 2,
              "mm 2x3 by 2x3 loaded");
        opgen_arena_release(&a);
    }
}

/* ExecuTorch's dim order ops: the result laid out as dim_order says (values in
 * logical order unchanged), the dtype converted by _to_dim_order_copy into a given
 * out; refusals as ExecuTorch's kernels make them. */
static void test_dim_order_ops(void) {
    const char *good[] = {
        "graph(%x: f32[2, 3, 4, 5]):\n  %y = dim_order_ops::_to_dim_order_copy(%x, dim_order=[0, 2, 3, 1])\n  return %y\n",
        "graph(%x: f32[2, 3, 4, 5]):\n  %y = dim_order_ops::_clone_dim_order(%x, dim_order=[0, 2, 3, 1])\n  %z = dim_order_ops::_clone_dim_order(%y, dim_order=[0, 1, 2, 3])\n  return %z\n"};
    for (int k = 0; k < 2; k++) {
        opgen_arena a;
        opgen_arena_init_growing(&a);
        opgen_graph g;
        opgen_error err = {0};
        opgen_program *p = load(good[k], &a, &g, &err);
        CHECK(p, "dim order program %d: %s", k, err.msg);
        float x[120];
        for (int i = 0; i < 120; i++) x[i] = (float)i;
        int64_t sizes[4] = {2, 3, 4, 5};
        opgen_ivalue in = {.kind = OPGEN_GV_TENSOR, .t = f32(x, 4, sizes)}, out;
        if (p && !opgen_program_run(p, &in, &a, &out, &err)) {
            static const uint8_t nhwc[4] = {0, 2, 3, 1}, nchw[4] = {0, 1, 2, 3};
            CHECK(!memcmp(out.t.dim_order, k ? nchw : nhwc, 4), "program %d: the result's dim order is %u,%u,%u,%u", k,
                  out.t.dim_order[0], out.t.dim_order[1], out.t.dim_order[2], out.t.dim_order[3]);
            int64_t idx[4] = {0}, bad = 0;
            for (int i = 0; i < 120; i++, opgen_index_next(4, sizes, idx)) {
                int64_t off = idx[0] * out.t.strides[0] + idx[1] * out.t.strides[1] + idx[2] * out.t.strides[2] +
                              idx[3] * out.t.strides[3];
                bad += ((const float *)out.t.data)[off] != x[i];
            }
            CHECK(!bad, "program %d: %lld values moved", k, (long long)bad);
            if (!k)
                CHECK(out.t.strides[1] == 1 && out.t.strides[3] == 3, "channels-last strides %lld %lld",
                      (long long)out.t.strides[1], (long long)out.t.strides[3]);
        } else {
            CHECK(0, "dim order program %d does not run: %s", k, err.msg);
        }
        opgen_arena_release(&a);
    }
    /* the kernels directly: a given int32 out takes the conversion; refusals */
    float x[6] = {1.5f, -2.5f, 3, 4, 5, 6};
    int64_t sz[2] = {2, 3};
    opgen_tensor in = f32(x, 2, sz), out;
    int32_t o[6];
    opgen_error err = {0};
    opgen_tensor_shape(&out, OPGEN_DTYPE_Int, 2, sz, &err);
    out.data = o, out.capacity = sizeof o;
    opgen_ctx ctx = {NULL, &err, "dim_order_ops::_to_dim_order_copy.out", false, 0, false, -1, NULL, NULL, NULL,
                     0,    NULL};
    CHECK(!opgen_portable__to_dim_order_copy_out(&ctx, &in, false, NULL, &out) && o[0] == 1 && o[1] == -2 && o[5] == 6,
          "to_dim_order_copy into int32: %s (%d %d)", err.msg, (int)o[0], (int)o[1]);
    int64_t bad_order[2] = {1, 1};
    opgen_int_list l = {bad_order, 2};
    memset(&err, 0, sizeof err);
    CHECK(opgen_portable__clone_dim_order_out(&ctx, &in, true, NULL, &out) &&
              strstr(err.msg, "non_blocking=True is not supported"),
          "non_blocking: %s", err.msg);
    memset(&err, 0, sizeof err);
    opgen_tensor same = out;
    opgen_tensor_shape(&same, OPGEN_DTYPE_Float, 2, sz, &err);
    same.data = o, same.capacity = sizeof o;
    int64_t perm[2] = {1, 0};
    l = (opgen_int_list){perm, 2};
    CHECK(opgen_portable__clone_dim_order_out(&ctx, &in, false, &l, &same) &&
              strstr(err.msg, "out is laid out in another dim order"),
          "a contiguous out for dim_order [1, 0]: %s", err.msg);
    memset(&err, 0, sizeof err);
    l = (opgen_int_list){bad_order, 1};
    CHECK(opgen_portable__clone_dim_order_out(&ctx, &in, false, &l, &same) &&
              strstr(err.msg, "dim_order has 1 entries for a 2-d tensor"),
          "a short dim_order: %s", err.msg);
}

/* Random ops: a seed gives the same values on every fresh load, another seed
 * others; rand lies in [0, 1), randn and rand have their distribution's mean
 * and variance (20000 draws: 5 standard errors), randperm is a permutation,
 * dropout keeps 1 - p of its input, scaled by 1 / (1 - p). */
static void random_run(uint64_t seed, float *u, float *z, int64_t *perm, float *drop, bool *mask) {
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_graph g;
    opgen_error err = {0};
    const char *text =
        "graph(%x: f32[20000]):\n  %u = aten::rand([20000])\n  %z = aten::randn([20000])\n  %p = aten::randperm(1000)\n"
        "  %d, %m = aten::native_dropout(%x, 0.25, True)\n  return (%u, %z, %p, %d, %m)\n";
    opgen_load_options opt = {.seed = seed};
    opgen_program *p = NULL;
    CHECK(!opgen_graph_parse("t.graph", text, strlen(text), false, &a, &g, &err) &&
              !opgen_program_load_with(&g, &a, &opt, &p, &err),
          "load: %s", err.msg);
    static float ones[20000];
    for (int i = 0; i < 20000; i++) ones[i] = 1.0f;
    int64_t n = 20000;
    opgen_ivalue in = {.kind = OPGEN_GV_TENSOR, .t = f32(ones, 1, &n)}, out[5];
    CHECK(p && !opgen_program_run(p, &in, &a, out, &err), "run: %s", err.msg);
    if (p && !err.code) {
        memcpy(u, out[0].t.data, sizeof(float) * 20000), memcpy(z, out[1].t.data, sizeof(float) * 20000);
        memcpy(perm, out[2].t.data, sizeof(int64_t) * 1000);
        memcpy(drop, out[3].t.data, sizeof(float) * 20000), memcpy(mask, out[4].t.data, sizeof(bool) * 20000);
    }
    opgen_arena_release(&a);
}

static void test_random_ops(void) {
    static float u[20000], z[20000], d[20000], u2[20000], z2[20000], d2[20000];
    static int64_t perm[1000], perm2[1000];
    static bool m[20000], m2[20000];
    random_run(7, u, z, perm, d, m);
    random_run(7, u2, z2, perm2, d2, m2);
    CHECK(!memcmp(u, u2, sizeof u) && !memcmp(z, z2, sizeof z) && !memcmp(perm, perm2, sizeof perm) &&
              !memcmp(d, d2, sizeof d),
          "seed 7 gave other values on a second load");
    random_run(8, u2, z2, perm2, d2, m2);
    CHECK(memcmp(u, u2, sizeof u) && memcmp(z, z2, sizeof z) && memcmp(perm, perm2, sizeof perm),
          "seeds 7 and 8 gave the same values");
    double su = 0, su2 = 0, sz = 0, sz2 = 0, kept = 0;
    bool in_range = true, seen[1000] = {0}, dropped_ok = true;
    for (int i = 0; i < 20000; i++) {
        in_range = in_range && u[i] >= 0 && u[i] < 1;
        su += u[i], su2 += (double)u[i] * u[i], sz += z[i], sz2 += (double)z[i] * z[i];
        kept += m[i];
        dropped_ok = dropped_ok && d[i] == (m[i] ? 1.0f / 0.75f : 0.0f);
    }
    double mu = su / 20000, vu = su2 / 20000 - mu * mu, mz = sz / 20000, vz = sz2 / 20000 - mz * mz;
    CHECK(in_range, "rand left [0, 1)");
    CHECK(fabs(mu - 0.5) < 5 * sqrt(1.0 / 12 / 20000) && fabs(vu - 1.0 / 12) < 0.004, "rand: mean %g, variance %g", mu,
          vu);
    CHECK(fabs(mz) < 5 * sqrt(1.0 / 20000) && fabs(vz - 1) < 0.05, "randn: mean %g, variance %g", mz, vz);
    CHECK(fabs(kept / 20000 - 0.75) < 5 * sqrt(0.75 * 0.25 / 20000), "dropout kept %g of its input, not 0.75",
          kept / 20000);
    CHECK(dropped_ok, "dropout's kept values are not scaled by 1 / (1 - p), or its dropped ones are not 0");
    bool is_perm = true;
    for (int i = 0; i < 1000; i++) {
        is_perm = is_perm && perm[i] >= 0 && perm[i] < 1000 && !seen[perm[i]];
        if (perm[i] >= 0 && perm[i] < 1000) seen[perm[i]] = true;
    }
    CHECK(is_perm, "randperm(1000) is not a permutation of 0..999");
}

static void note_kernel(void *ctx, const opgen_gnode *node, const char *kernel, const char *origin) {
    (void)origin;
    if (!strcmp(node->op, "aten::permute_copy") || !strcmp(node->op, "aten::max_pool2d_with_indices"))
        strncat((char *)ctx, kernel, 127 - strlen((char *)ctx));
}

/* Loads text, runs it once on in, and copies its first nout results (bytes[o]
 * bytes each) into got[o]; note (note_kernel: what the permute_copy or pool
 * step runs) writes into kernel what it sees of the steps' kernels. */
typedef void note_fn(void *ctx, const opgen_gnode *node, const char *kernel, const char *origin);
static void run_noted(const char *text, const opgen_ivalue *in, int nout, void **got, const size_t *bytes,
                      note_fn *note, char *kernel) {
    opgen_arena a, work;
    opgen_arena_init_growing(&a);
    opgen_arena_init_growing(&work);
    opgen_graph g;
    opgen_error err = {0};
    opgen_program *p = load(text, &a, &g, &err);
    CHECK(p, "load: %s", err.msg);
    opgen_ivalue out[4];
    if (p) opgen_program_kernels(p, note, kernel);
    CHECK(p && !opgen_program_run(p, in, &work, out, &err), "run: %s", err.msg);
    for (int o = 0; p && !err.code && o < nout; o++) memcpy(got[o], out[o].t.data, bytes[o]);
    opgen_arena_release(&work);
    opgen_arena_release(&a);
}
static void run_copy(const char *text, const opgen_ivalue *in, int nout, void **got, const size_t *bytes,
                     char *kernel) {
    run_noted(text, in, nout, got, bytes, note_kernel, kernel);
}

/* A matrix's permute_copy of an input read only by mm and addmm is a view (no
 * copy), and the products read it in place: the same bytes as when its result is
 * also returned, and so copied. */
static void test_transposed_views(void) {
    static const char *text[2] = {
        "graph(%x: f32[3, 40], %w: f32[24, 40], %b: f32[24]):\n  %t = aten::permute_copy(%w, [1, 0])\n  %y = aten::mm(%x, %t)\n  %z = aten::addmm(%b, %x, %t)\n  return (%y, %z)\n",
        "graph(%x: f32[3, 40], %w: f32[24, 40], %b: f32[24]):\n  %t = aten::permute_copy(%w, [1, 0])\n  %y = aten::mm(%x, %t)\n  %z = aten::addmm(%b, %x, %t)\n  return (%y, %z, %t)\n"};
    static float x[3 * 40], w[24 * 40], b[24];
    for (int i = 0; i < 3 * 40; i++) x[i] = (float)(i % 13 - 6) / 7.0f;
    for (int i = 0; i < 24 * 40; i++) w[i] = (float)(i % 11 - 5) / 9.0f;
    for (int i = 0; i < 24; i++) b[i] = (float)i / 4.0f;
    int64_t sx[2] = {3, 40}, sw[2] = {24, 40}, sb[1] = {24};
    static float got[2][2][3 * 24];
    const size_t bytes[2] = {sizeof got[0][0], sizeof got[0][1]};
    const opgen_ivalue in[3] = {{.kind = OPGEN_GV_TENSOR, .t = f32(x, 2, sx)},
                                {.kind = OPGEN_GV_TENSOR, .t = f32(w, 2, sw)},
                                {.kind = OPGEN_GV_TENSOR, .t = f32(b, 1, sb)}};
    for (int v = 0; v < 2; v++) {
        char kernel[128] = "";
        run_copy(text[v], in, 2, (void *[]){got[v][0], got[v][1]}, bytes, kernel);
        CHECK(!strcmp(kernel, v ? "opgen_portable_permute_copy_out" : "none: a transposed view of its input"),
              "program %d: permute_copy runs %s", v, kernel);
    }
    CHECK(!memcmp(got[0], got[1], sizeof got[0]), "the view's products differ from the copy's");
    double worst = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 24; j++) {
            double dot = 0;
            for (int k = 0; k < 40; k++) dot += (double)x[i * 40 + k] * w[j * 40 + k];
            worst = fmax(worst, fmax(fabs(got[0][0][i * 24 + j] - dot), fabs(got[0][1][i * 24 + j] - (dot + b[j]))));
        }
    CHECK(worst < 1e-5, "products off by %g", worst);
}

/* A copy whose result has its input's bytes (view_copy, unsqueeze_copy) runs as
 * a view, and the plan keeps the bytes alive until the view's last reader (here,
 * through a chain of two views, past steps that would otherwise take that memory);
 * a view of a program input given strided is copied instead. */
static void note_views(void *ctx, const opgen_gnode *node, const char *kernel, const char *origin) {
    (void)origin;
    if (!strcmp(node->op, "aten::view_copy") || !strcmp(node->op, "aten::unsqueeze_copy"))
        strncat((char *)ctx, kernel[0] == 'n' ? "v" : "c", 63 - strlen((char *)ctx));
}
static void test_same_bytes_views(void) {
    static const char *late =
        "graph(%x: f32[64, 64]):\n  %y = aten::relu(%x)\n  %v = aten::view_copy(%y, [4096])\n  %u = aten::unsqueeze_copy(%v, 0)\n"
        "  %a = aten::neg(%x)\n  %b = aten::abs(%a)\n  %c = aten::add.Tensor(%b, %a)\n  %w = aten::unsqueeze_copy(%c, 0)\n"
        "  %d = aten::view_copy(%w, [1, 4096])\n  %r = aten::add.Tensor(%u, %d)\n  return %r\n";
    static float x[64 * 64], got[64 * 64];
    for (int i = 0; i < 64 * 64; i++) x[i] = (float)(i % 17 - 8) / 3.0f, got[i] = NAN;
    int64_t sx[2] = {64, 64};
    char kinds[64] = "";
    const opgen_ivalue in = {.kind = OPGEN_GV_TENSOR, .t = f32(x, 2, sx)};
    run_noted(late, &in, 1, (void *[]){got}, (size_t[]){sizeof got}, note_views, kinds);
    const char *expect = OPGEN_SPEED_PATHS ? "vvvv" : "cccc"; /* a build for size copies */
    CHECK(!strcmp(kinds, expect), "views and copies: %s, expected %s", kinds, expect);
    int wrong = 0;
    for (int i = 0; i < 64 * 64; i++) {
        float y = 0.0f > x[i] ? 0.0f : x[i], na = -x[i], want = y + (fabsf(na) + na);
        wrong += memcmp(&want, &got[i], sizeof want) != 0;
    }
    CHECK(!wrong, "%d elements differ: a view's bytes were overwritten before its last reader", wrong);

    /* a view of an input: the caller's tensor transposed in memory is copied */
    static const char *of_input =
        "graph(%x: f32[8, 6]):\n  %v = aten::view_copy(%x, [48])\n  %r = aten::add.Tensor(%v, %v)\n  return %r\n";
    static float t[6 * 8], twice[48];
    for (int i = 0; i < 48; i++) t[i] = (float)i;
    int64_t s86[2] = {8, 6};
    for (int strided = 0; strided < 2; strided++) {
        opgen_ivalue xi = {.kind = OPGEN_GV_TENSOR, .t = f32(t, 2, s86)};
        if (strided) xi.t.strides[0] = 1, xi.t.strides[1] = 8; /* x[i][j] = t[j * 8 + i] */
        kinds[0] = 0;
        run_noted(of_input, &xi, 1, (void *[]){twice}, (size_t[]){sizeof twice}, note_views, kinds);
        wrong = 0;
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 6; j++) wrong += twice[i * 6 + j] != 2 * t[strided ? j * 8 + i : i * 6 + j];
        CHECK(!wrong, "a view of a %s input: %d elements differ", strided ? "strided" : "contiguous", wrong);
    }
}

/* max_pool2d_with_indices whose indices nothing reads computes the values alone
 * (opgen_ctx.unread): the same bytes as when the indices are returned too, with
 * NaNs of distinct payloads, -inf, -0 and ties in the windows, over 68 geometries (kernel, stride, padding,
 * dilation, ceil mode; Float and Double). */
static int64_t pooled(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) { /* ATen's output size */
    int64_t num = in + 2 * p - d * (k - 1) - 1, o = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
    return ceil_mode && (o - 1) * s >= in + p ? o - 1 : o;
}
static void test_unread_indices(void) {
    static float x[2 * 3 * 29 * 47], got[2][2 * 3 * 29 * 47];
    static double xd[2 * 3 * 29 * 47], gotd[2][2 * 3 * 29 * 47];
    uint32_t rng = 12345;
    /* the first 8 cases ResNet's 3x3 of stride 2 (padding 1 and 0, ceil mode or not, rows of one and of
     * several 16-wide chunks: x86-64's MAX3S2 on AVX-512), then seeded: kernel, stride, padding, dilation,
     * ceil mode */
    for (int c = 0; c < 68; c++) {
        int64_t k[2] = {3, 3}, st[2] = {2, 2}, pd[2] = {c % 2 ? 0 : 1, c % 2 ? 0 : 1}, dl[2] = {1, 1},
                sx[4] = {1 + c % 2, 3, c < 4 ? 29 : 13, c < 4 ? 31 : 47};
        bool ceil_mode = c / 2 % 2, f64 = c % 4 == 3;
        for (int i = 0; c >= 8 && i < 2; i++) {
            rng = rng * 1103515245u + 12345u, k[i] = 1 + (rng >> 16) % 4, st[i] = 1 + (rng >> 20) % 3,
            pd[i] = (rng >> 24) % (k[i] / 2 + 1), dl[i] = 1 + (rng >> 28) % 2;
            sx[2 + i] = k[i] * dl[i] + (rng >> 8) % 23;
        }
        if (c >= 8) rng = rng * 1103515245u + 12345u, ceil_mode = rng >> 31, sx[0] = 1 + (rng >> 20) % 2;
        int64_t oh = pooled(sx[2], k[0], st[0], pd[0], dl[0], ceil_mode),
                ow = pooled(sx[3], k[1], st[1], pd[1], dl[1], ceil_mode), n = sx[0] * sx[1] * sx[2] * sx[3];
        /* NaNs (each its own payload: which one wins shows), -inf, and ties at 0 between +0 and -0 (values
         * of at most 0: which zero wins shows) */
        for (int64_t i = 0; i < n; i++) {
            double v = i % 13 == 0 ? -INFINITY : i % 3 == 0 ? -0.0 : -(double)((i * 7 + c) % 9) / 2.0;
            x[i] = (float)v, xd[i] = v;
            rng = rng * 1103515245u + 12345u;
            if ((rng >> 16) % 10 == 0) {
                uint32_t nf = 0x7fc00000u | (uint32_t)i;
                uint64_t nd = 0x7ff8000000000000u | (uint64_t)i;
                memcpy(&x[i], &nf, 4), memcpy(&xd[i], &nd, 8);
            }
        }
        char text[2][512];
        for (int v = 0; v < 2; v++)
            snprintf(
                text[v], sizeof text[v],
                "graph(%%x: %s[%lld, 3, %lld, %lld]):\n  %%v, %%i = aten::max_pool2d_with_indices(%%x, [%lld, %lld], [%lld, %lld], [%lld, %lld], [%lld, %lld], %s)\n  return %s\n",
                f64 ? "f64" : "f32", (long long)sx[0], (long long)sx[2], (long long)sx[3], (long long)k[0],
                (long long)k[1], (long long)st[0], (long long)st[1], (long long)pd[0], (long long)pd[1],
                (long long)dl[0], (long long)dl[1], ceil_mode ? "True" : "False", v ? "(%v, %i)" : "%v");
        const size_t bytes[1] = {(size_t)(sx[0] * 3 * oh * ow) * (f64 ? 8 : 4)};
        opgen_ivalue in = {.kind = OPGEN_GV_TENSOR, .t = f32(x, 4, sx)};
        if (f64) in.t.dtype = OPGEN_DTYPE_Double, in.t.data = xd, in.t.capacity = opgen_nbytes(&in.t);
        char kernel[128] = "";
        for (int v = 0; v < 2; v++)
            run_copy(text[v], &in, 1, (void *[]){f64 ? (void *)gotd[v] : (void *)got[v]}, bytes, kernel);
        CHECK(!memcmp(f64 ? (void *)gotd[0] : (void *)got[0], f64 ? (void *)gotd[1] : (void *)got[1], bytes[0]),
              "case %d: the values alone differ from the values beside their indices", c);
    }
}

/* Float softmax and log_softmax: rows along the last dimension (contiguous, each
 * pass one vector loop) and the same values along the first (strided rows) give
 * the same bytes; every value is within 3 ulp-scale of a float64 softmax (the
 * exponential within 1 ulp, the sum and the scaling rounding once more each);
 * a NaN in a row makes the row NaN, -inf gives 0 (log: -inf), a row whose every
 * value is -inf is NaN (-inf - -inf), as in ATen; tiny results are subnormals,
 * not zero. */
static void test_softmax_rows(void) {
    enum { R = 5, L = 1037 }; /* 64 vectors and a ragged 13 */
    static float x[R * L], xt[L * R], y[R * L], yt[L * R];
    uint64_t st = 7;
    for (int r = 0; r < R; r++)
        for (int k = 0; k < L; k++) {
            st = st * 6364136223846793005u + 1442695040888963407u;
            float v = (float)((double)(st >> 40) / 16777216.0 * 200 - 100); /* [-100, 100): exponents down to e^-200 */
            x[r * L + k] = r == 1 && k == 600 ? NAN : r == 2 && k % 3 == 0 ? -INFINITY : r == 3 ? -INFINITY : v;
        }
    for (int r = 0; r < R; r++)
        for (int k = 0; k < L; k++) xt[k * R + r] = x[r * L + k];
    int64_t s_rows[2] = {R, L}, s_cols[2] = {L, R};
    for (int take_log = 0; take_log < 2; take_log++) {
        opgen_tensor in = f32(x, 2, s_rows), out = f32(y, 2, s_rows), int_ = f32(xt, 2, s_cols),
                     outt = f32(yt, 2, s_cols);
        opgen_error err = {0};
        opgen_ctx ctx = {NULL, &err, "aten::_softmax.out", false, 0, false, -1, NULL, NULL, NULL, 0, NULL};
        int32_t st1 = take_log ? opgen_portable__log_softmax_out(&ctx, &in, 1, false, &out)
                               : opgen_portable__softmax_out(&ctx, &in, 1, false, &out);
        int32_t st2 = take_log ? opgen_portable__log_softmax_out(&ctx, &int_, 0, false, &outt)
                               : opgen_portable__softmax_out(&ctx, &int_, 0, false, &outt);
        CHECK(!st1 && !st2, "softmax: %s", err.msg);
        int differ = 0, far = 0, nans = 0, subnormal = 0;
        for (int r = 0; r < R; r++) {
            double mx = -INFINITY, sum = 0;
            for (int k = 0; k < L; k++) mx = x[r * L + k] > mx ? x[r * L + k] : mx;
                /* x - max rounds to float first, as in ATen: exp's argument is that */
#define SHIFTED(k) ((double)(float)(x[r * L + (k)] - (float)mx))
            for (int k = 0; k < L; k++) sum += exp(SHIFTED(k));
            for (int k = 0; k < L; k++) {
                float got = y[r * L + k];
                differ += memcmp(&got, &yt[k * R + r], sizeof got) != 0;
                if (r == 1 || r == 3) { /* a NaN, or -inf - -inf */
                    nans += got == got;
                    continue;
                }
                double want = take_log ? SHIFTED(k) - log(sum) : exp(SHIFTED(k)) / sum;
                if (!take_log && got != 0 && fabsf(got) < 1.17549435e-38f) subnormal++;
                if (isinf(want) ? got != want
                                : fabs(got - want) >
                                      3 * 1.1920929e-7 * fabs(want) + (take_log ? 1.1920929e-7 * fabs(mx) : 3e-45))
                    far++;
            }
        }
        CHECK(!differ, "softmax (log %d): %d values differ between contiguous and strided rows", take_log, differ);
#undef SHIFTED
        CHECK(!far, "softmax (log %d): %d values farther than 3 ulp from float64's", take_log, far);
        CHECK(!nans, "softmax (log %d): %d values of NaN rows are not NaN", take_log, nans);
        CHECK(take_log || subnormal > 0, "softmax: no subnormal results (flushed to zero?)");
    }
}

/* relu on contiguous floats (the vectorized path, 16 at a time) against ATen's
 * clamp_min rule, value by value: NaN and -0.0 stay, in place and apart, every
 * length around the vector block and every start within one. */
static void test_relu_contiguous(void) {
    static float x[80], y[80], z[80];
    const float special[6] = {NAN, -0.0f, -INFINITY, INFINITY, -1e-45f, 1e-45f};
    int wrong = 0;
    for (int k = 0; k < 80; k++) x[k] = k % 7 == 3 ? special[(k / 7) % 6] : (float)((k * 37) % 19 - 9) / 4.0f;
    for (int start = 0; start < 16; start++)
        for (int64_t n = 0; start + n <= 64; n += n < 40 ? 1 : 7)
            for (int in_place = 0; in_place < 2; in_place++) {
                memcpy(z, x, sizeof z);
                memset(y, 0x55, sizeof y);
                int64_t size[1] = {n};
                opgen_tensor in = f32(z + start, 1, size), out = f32(in_place ? z + start : y + start, 1, size);
                opgen_error err = {0};
                opgen_ctx ctx = {NULL, &err, "aten::relu.out", false, 0, false, -1, NULL, NULL, NULL, 0, NULL};
                CHECK(!opgen_portable_relu_out(&ctx, &in, &out), "relu: %s", err.msg);
                const float *got = in_place ? z : y;
                for (int k = 0; k < 80; k++) {
                    float want = x[k] < 0 ? 0.0f : x[k];
                    if (k < start || k >= start + n) /* untouched: the input, or the filler */
                        memcpy(&want, in_place ? &x[k] : (const void *)"\x55\x55\x55\x55", sizeof want);
                    wrong += memcmp(&got[k], &want, sizeof want) != 0;
                }
            }
    CHECK(!wrong, "relu: %d values differ from x < 0 ? 0 : x (or were written outside the result)", wrong);
}

/* A transposing copy (permute_copy of the last two dims, or a contiguous source
 * into a transposed destination): every element where it belongs, nothing
 * written outside the result, for 1-, 2-, 4- and 8-byte elements (4: in 8 x 8
 * register blocks) and every size around the block's 8 on either side. */
static void test_transposing_copies(void) {
    static const int64_t dims[] = {1, 7, 8, 9, 15, 16, 17, 33};
    static const opgen_dtype types[] = {OPGEN_DTYPE_Byte, OPGEN_DTYPE_Short, OPGEN_DTYPE_Float, OPGEN_DTYPE_Double};
    static uint8_t src[3 * 33 * 33 * 8 + 8], dst[3 * 33 * 33 * 8 + 8];
    int wrong = 0;
    for (size_t k = 0; k < sizeof src; k++) src[k] = (uint8_t)(k * 131 + k / 251);
    for (int ty = 0; ty < 4; ty++)
        for (int a = 0; a < 8; a++)
            for (int b = 0; b < 8; b++)
                for (int into = 0; into < 2; into++) { /* 0: a permuted source; 1: a permuted destination */
                    int64_t r = dims[a], c = dims[b], es = opgen_dtype_size(types[ty]), sizes[3] = {3, r, c},
                            tsizes[3] = {3, c, r};
                    opgen_tensor x, y;
                    opgen_error err = {0};
                    opgen_tensor_shape(&x, types[ty], 3, sizes, &err),
                        opgen_tensor_shape(&y, types[ty], 3, tsizes, &err);
                    x.data = src, y.data = dst;
                    opgen_tensor *view = into ? &y : &x; /* seen as the other's shape: its last two dims swapped */
                    int64_t t = view->sizes[1];
                    view->sizes[1] = view->sizes[2], view->sizes[2] = t, t = view->strides[1],
                    view->strides[1] = view->strides[2], view->strides[2] = t;
                    memset(dst, 0x5a, sizeof dst);
                    opgen_ctx ctx = {NULL, &err, "copy", false, 0, false, -1, NULL, NULL, NULL, 0, NULL};
                    CHECK(!opgen_copy_same(&ctx, &y, &x), "copy: %s", err.msg);
                    for (int64_t n = 0; n < 3; n++) /* y[n][i][j] (as seen) = x[n][i][j] (as seen) */
                        for (int64_t i = 0; i < y.sizes[1]; i++)
                            for (int64_t j = 0; j < y.sizes[2]; j++)
                                wrong += memcmp(dst + (n * y.strides[0] + i * y.strides[1] + j * y.strides[2]) * es,
                                                src + (n * x.strides[0] + i * x.strides[1] + j * x.strides[2]) * es,
                                                (size_t)es) != 0;
                    for (size_t k = (size_t)(3 * r * c * es); k < sizeof dst; k++) wrong += dst[k] != 0x5a;
                }
    CHECK(!wrong, "transposing copies: %d elements misplaced or written outside the result", wrong);
}

int main(void) {
    test_static_runs_twice();
    test_work_bytes_suffice();
    test_symint_replans();
    test_load_errors_do_not_leak_state();
    test_dim_order_ops();
    test_random_ops();
    test_transposed_views();
    test_same_bytes_views();
    test_unread_indices();
    test_softmax_rows();
    test_relu_contiguous();
    test_transposing_copies();
    printf("test_exec: %d failed\n", failures);
    return failures != 0;
}
