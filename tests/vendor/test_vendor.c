/* The demo backend (tests/vendor/demo) in a program: its two implemented kernels
 * run, its stub hands mul on to opgen's portable kernel, and results equal a run
 * on opgen's kernels alone. Which kernel ran is proven, not inferred: every entry
 * of the demo's table is called through a spy that logs (kernel, meta?) and then
 * forwards to the demo's own trampoline. */
#include "../check.h"
#include "demo_kernels.h"
#include "opgen/exec.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the spy: the demo's table with every call logged ---- */

#define MAX_LOG 64
static struct {
    const char *kernel;
    bool meta;
    opgen_status st;
} logged[MAX_LOG];
static int nlogged;

static const opgen_kernel_entry *demo_entry(void (*fn)(void)) {
    for (int i = 0; i < opgen_vendor_demo.nkernels; i++)
        if (opgen_vendor_demo.kernels[i].kernel.fn == fn) return &opgen_vendor_demo.kernels[i].kernel;
    return NULL;
}

static opgen_status spy(opgen_ctx *ctx, void (*fn)(void), const opgen_value *args) {
    const opgen_kernel_entry *e = demo_entry(fn);
    opgen_status st = e->call(ctx, fn, args);
    if (nlogged < MAX_LOG) logged[nlogged++] = (__typeof__(logged[0])){e->name, ctx->meta, st};
    return st;
}

static opgen_vendor_kernel spied[16];
static opgen_vendor spy_vendor;

static int calls(const char *kernel, bool meta, opgen_status st) {
    int n = 0;
    for (int i = 0; i < nlogged; i++)
        n += !strcmp(logged[i].kernel, kernel) && logged[i].meta == meta && logged[i].st == st;
    return n;
}

/* ---- the program ---- */

static const char program[] = "graph(%x: f32[2, 3], %y: f32[3], %d: f64[4], %i: i32[3]):\n"
                              "  %s = aten::add.Tensor(%x, %y, alpha=2)\n"
                              "  %r = aten::relu(%s)\n"
                              "  %m = aten::mul.Tensor(%r, %x)\n"
                              "  %rd = aten::relu(%d)\n"
                              "  %ri = aten::relu(%i)\n"
                              "  return (%m, %rd, %ri, %s)\n";

typedef struct ran {
    char node_op[8][64], kernel[8][64];
    int n;
} ran;

static void note_kernel(void *ctx, const opgen_gnode *node, const char *kernel, const char *origin) {
    (void)origin;
    ran *r = ctx;
    if (r->n < 8) {
        snprintf(r->node_op[r->n], sizeof r->node_op[0], "%s", node->op);
        snprintf(r->kernel[r->n++], sizeof r->kernel[0], "%s", kernel);
    }
}

static opgen_tensor tensor(opgen_dtype dt, void *data, int32_t dim, const int64_t *sizes) {
    opgen_tensor t;
    opgen_error err = {0};
    opgen_tensor_shape(&t, dt, dim, sizes, &err);
    t.data = data;
    t.capacity = opgen_nbytes(&t);
    return t;
}

/* Loads and runs the program, with the spied demo backend or without; outputs
 * are copied to out[4] (flat bytes). */
static bool run(bool with_demo, ran *kernels, uint8_t out[4][64], size_t nbytes[4]) {
    opgen_arena a, work;
    opgen_arena_init_growing(&a);
    opgen_arena_init_growing(&work);
    opgen_graph g;
    opgen_error err = {0};
    opgen_program *p = NULL;
    const opgen_vendor *vendors[] = {&spy_vendor};
    opgen_load_options opt = {0};
    opt.vendors = vendors;
    opt.nvendors = with_demo ? 1 : 0;
    bool ok = !opgen_graph_parse("vendor.graph", program, strlen(program), false, &a, &g, &err) &&
              !opgen_program_load_with(&g, &a, &opt, &p, &err);
    CHECK(ok, "load (%s): %s", with_demo ? "demo" : "opgen alone", err.msg);
    if (ok) {
        memset(kernels, 0, sizeof *kernels);
        opgen_program_kernels(p, note_kernel, kernels);
        float x[6] = {-1.5f, 0.25f, 3.0f, -0.0f, 1e30f, -7.0f}, y[3] = {1.0f, -0.5f, NAN};
        double d[4] = {-2.0, 0.0, 2.5, NAN};
        int32_t i[3] = {-3, 0, 4};
        int64_t s23[2] = {2, 3}, s3 = 3, s4 = 4;
        opgen_ivalue in[4] = {{.kind = OPGEN_GV_TENSOR, .t = tensor(OPGEN_DTYPE_Float, x, 2, s23)},
                              {.kind = OPGEN_GV_TENSOR, .t = tensor(OPGEN_DTYPE_Float, y, 1, &s3)},
                              {.kind = OPGEN_GV_TENSOR, .t = tensor(OPGEN_DTYPE_Double, d, 1, &s4)},
                              {.kind = OPGEN_GV_TENSOR, .t = tensor(OPGEN_DTYPE_Int, i, 1, &s3)}};
        opgen_ivalue outs[4];
        ok = !opgen_program_run(p, in, &work, outs, &err);
        CHECK(ok, "run (%s): %s", with_demo ? "demo" : "opgen alone", err.msg);
        for (int k = 0; ok && k < 4; k++) {
            nbytes[k] = opgen_nbytes(&outs[k].t);
            CHECK(nbytes[k] <= 64, "output %d: %zu bytes", k, nbytes[k]);
            if (nbytes[k] <= 64) memcpy(out[k], outs[k].t.data, nbytes[k]);
        }
    }
    opgen_arena_release(&work);
    opgen_arena_release(&a);
    return ok;
}

int main(void) {
    CHECK(opgen_vendor_demo.nkernels == 3 && opgen_vendor_demo.nkernels <= 16,
          "the demo table has %d kernels, expected 3", opgen_vendor_demo.nkernels);
    for (int k = 0; k < opgen_vendor_demo.nkernels && k < 16; k++) {
        spied[k] = opgen_vendor_demo.kernels[k];
        spied[k].kernel.call = spy;
    }
    spy_vendor = (opgen_vendor){"demo", spied, opgen_vendor_demo.nkernels};

    ran with, without;
    uint8_t out_with[4][64], out_without[4][64];
    size_t n_with[4] = {0}, n_without[4] = {0};
    if (!run(true, &with, out_with, n_with) || !run(false, &without, out_without, n_without)) return 1;

    /* what load chose, per node */
    static const char *const want[][2] = {{"aten::add.Tensor", "demo_add_out"},
                                          {"aten::relu", "demo_relu_out"},
                                          {"aten::mul.Tensor", "opgen_portable_mul_out"},
                                          {"aten::relu", "demo_relu_out"},
                                          {"aten::relu", "opgen_portable_relu_out"}};
    CHECK(with.n == 5, "%d nodes traced", with.n);
    for (int k = 0; k < 5 && k < with.n; k++)
        CHECK(!strcmp(with.node_op[k], want[k][0]) && !strcmp(with.kernel[k], want[k][1]),
              "node %d: %s ran on %s, expected %s", k, with.node_op[k], with.kernel[k], want[k][1]);
    for (int k = 0; k < without.n; k++)
        CHECK(!strncmp(without.kernel[k], "opgen_", 6), "without the demo, node %d ran on %s", k, without.kernel[k]);

    /* what actually ran: at load, each demo kernel is asked (meta); mul's stub
     * declines; at run, only the implemented cases compute */
    CHECK(calls("demo_add_out", true, OPGEN_OK) == 1, "demo_add_out at load: %d",
          calls("demo_add_out", true, OPGEN_OK));
    CHECK(calls("demo_relu_out", true, OPGEN_OK) == 2, "demo_relu_out at load: %d (Float and Double)",
          calls("demo_relu_out", true, OPGEN_OK));
    CHECK(calls("demo_mul_out", true, OPGEN_E_NOT_IMPLEMENTED) == 1, "demo_mul_out's stub at load: %d",
          calls("demo_mul_out", true, OPGEN_E_NOT_IMPLEMENTED));
    CHECK(calls("demo_relu_out", true, OPGEN_E_DTYPE) == 1, "demo_relu_out declining Int at load: %d",
          calls("demo_relu_out", true, OPGEN_E_DTYPE));
    CHECK(calls("demo_add_out", false, OPGEN_OK) == 1, "demo_add_out ran %d times",
          calls("demo_add_out", false, OPGEN_OK));
    CHECK(calls("demo_relu_out", false, OPGEN_OK) == 2, "demo_relu_out ran %d times",
          calls("demo_relu_out", false, OPGEN_OK));
    int mul_runs = 0;
    for (int i = 0; i < nlogged; i++) mul_runs += !strcmp(logged[i].kernel, "demo_mul_out") && !logged[i].meta;
    CHECK(mul_runs == 0, "demo_mul_out ran %d times; its stub should have handed mul on at load", mul_runs);
    CHECK(nlogged == 8, "%d calls to the demo's kernels, expected 8", nlogged);

    /* the same results as opgen's own kernels, bit for bit, and the right ones */
    for (int k = 0; k < 4; k++)
        CHECK(n_with[k] == n_without[k] && !memcmp(out_with[k], out_without[k], n_with[k]),
              "output %d differs from opgen's kernels", k);
    const float *s = (const float *)out_with[3], *m = (const float *)out_with[0];
    static const float xs[6] = {-1.5f, 0.25f, 3.0f, -0.0f, 1e30f, -7.0f}, ys[3] = {1.0f, -0.5f, NAN};
    for (int k = 0; k < 6; k++) {
        float e = xs[k] + 2 * ys[k % 3], r = e > 0 || e != e ? e : 0, em = r * xs[k];
        CHECK(s[k] == e || (s[k] != s[k] && e != e), "add[%d] = %g, expected %g", k, s[k], e);
        CHECK(m[k] == em || (m[k] != m[k] && em != em), "mul[%d] = %g, expected %g", k, m[k], em);
    }
    const double *rd = (const double *)out_with[1];
    CHECK(rd[0] == 0 && rd[1] == 0 && rd[2] == 2.5 && rd[3] != rd[3], "relu(Double) = %g %g %g %g", rd[0], rd[1], rd[2],
          rd[3]);
    const int32_t *ri = (const int32_t *)out_with[2];
    CHECK(ri[0] == 0 && ri[1] == 0 && ri[2] == 4, "relu(Int) = %d %d %d", ri[0], ri[1], ri[2]);
    printf("%s: %d calls into the demo backend, %d failures\n", failures ? "FAIL" : "ok", nlogged, failures);
    return failures != 0;
}
