/* opgen-rt run: a program (graph text, or a .pte: cli_pte.c) on its inputs, its results as .npy files. */
#include "cli.h"
#include "opgen/loops.h"
#include "opgen/npy.h"
#if OPGEN_HAVE_POOL
#include "opgen/pool.h"
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const opgen_opt opts[] = {
    {NULL, NULL, "PROGRAM", OPGEN_OPT_FILE, "program", OPGEN_OPT_REQUIRED, "program",
     "the program: graph text, or an ExecuTorch .pte"},
    {"--input", "-i", "NAME=VALUE", OPGEN_OPT_INPUT, "npy", OPGEN_OPT_REPEAT, NULL,
     "an input (by name in graph text, by position in a .pte: 0=x.npy): a tensor as a NumPy .npy file (little-endian, C order, logical layout), a scalar as a number, True or False"},
    {"--method", NULL, "NAME", OPGEN_OPT_TEXT, NULL, 0, NULL,
     "the .pte program's method to run (default: forward, or its only one)"},
    {"--output", "-o", "DIR", OPGEN_OPT_OUT, NULL, OPGEN_OPT_REQUIRED, NULL,
     "where the returned values go: DIR/0.npy, DIR/1.npy, ... (a scalar as a 0-d array)"},
    {"--fallbacks", NULL, NULL, OPGEN_OPT_FLAG, NULL, 0, NULL,
     "run backend ops through their fallbacks (their patterns on the core kernels) even where a native kernel serves them"},
    {"--trace", NULL, NULL, OPGEN_OPT_FLAG, NULL, 0, NULL,
     "print, per node, the kernel that runs it and where it comes from (a backend, or opgen)"},
    {"--seed", NULL, "N", OPGEN_OPT_NUMBER, NULL, 0, NULL,
     "where random ops' generator starts (rand, randn, randperm, native_dropout; default 0): a seed gives the same values every run"},
    {"--calls", NULL, "DIR", OPGEN_OPT_DIR, NULL, 0, NULL,
     "a .pte method called again and again, its state kept: call K reads input I from DIR/K_I.npy (a scalar as a 0-d array), K = 0, 1, ... while DIR/K_0.npy exists, and writes output O to OUT/K_O.npy"},
    {"--repeat", NULL, "N", OPGEN_OPT_NUMBER, NULL, 0, NULL,
     "after the run (a .pte method: its call, or the last of --calls), run it N more times on the same inputs and print the median and fastest time"},
    {"--threads", NULL, "N", OPGEN_OPT_NUMBER, NULL, 0, NULL,
     "split kernels' work (matrix products, convolutions) across N threads, the results the same as on one (default 1)"},
    {"--profile", NULL, NULL, OPGEN_OPT_FLAG, NULL, 0, NULL,
     "after the run (a .pte method: its call, or the last of --calls), run it --repeat N (default 10) more times and print each instruction's (graph text: node's) time, share and FLOP rate, largest first"},
    {0},
};

static void trace_step(void *ctx, const opgen_gnode *node, const char *kernel, const char *origin) {
    fprintf(stderr, "trace: %s:%u:%u: %s -> %s (%s)\n", (const char *)ctx, node->line, node->col, node->op, kernel,
            origin);
}

/* The value given for an input (NAME=VALUE, NAME with or without its %), or NULL. */
static const char *given(const opgen_cli *a, const char *name) {
    const char *v = NULL;
    for (int k = 0; k < opgen_cli_count(a, "--input"); k++) {
        const char *s = opgen_cli_nth(a, "--input", k), *eq = strchr(s, '=');
        if (s[0] == '%') s++;
        if ((size_t)(eq - s) == strlen(name) && !strncmp(s, name, (size_t)(eq - s))) v = eq + 1;
    }
    return v;
}

/* Every --input names an input of the program, once. */
static int check_names(const opgen_cli *a, const opgen_graph *g, const char *path) {
    int n = opgen_cli_count(a, "--input");
    for (int k = 0; k < n; k++) {
        const char *s = opgen_cli_nth(a, "--input", k), *eq = strchr(s, '=');
        if (s[0] == '%') s++;
        int len = (int)(eq - s);
        for (int j = 0; j < k; j++) {
            const char *t = opgen_cli_nth(a, "--input", j);
            if (t[0] == '%') t++;
            if (!strncmp(t, s, (size_t)len) && t[len] == '=')
                return opgen_usage_error(a, "input '%.*s' given twice", len, s);
        }
        bool known = false;
        for (int i = 0; i < g->ninputs && !known; i++)
            known = (int)strlen(g->values[g->inputs[i]].name) == len &&
                    !strncmp(g->values[g->inputs[i]].name, s, (size_t)len);
        if (!known)
            return fprintf(stderr, "%s: error: the program has no input %%%.*s\n", path, len, s), OPGEN_EXIT_USAGE;
    }
    return OPGEN_EXIT_OK;
}

bool opgen_rt_narrow_input(opgen_tensor *t, opgen_dtype want, opgen_arena *ar) {
    if (t->dtype != OPGEN_DTYPE_Float || (want != OPGEN_DTYPE_BFloat16 && want != OPGEN_DTYPE_Half)) return true;
    opgen_tensor n;
    opgen_error err = {0};
    if (opgen_tensor_alloc(&n, want, t->dim, t->sizes, ar, &err)) return false;
    opgen_convert_out(n.data, opgen_dtype_size(want), want, t->data, t->dtype, opgen_numel(t));
    *t = n;
    return true;
}

bool opgen_rt_scalar_input(const opgen_gvalue *gv, const char *val, opgen_ivalue *v) {
    char *end = NULL;
    if (gv->kind == OPGEN_GV_INT) {
        errno = 0;
        v->i = strtoll(val, &end, 10);
        if (errno == ERANGE) return false;
    } else if (gv->kind == OPGEN_GV_FLOAT) {
        v->f = strtod(val, &end);
    } else if (!strcmp(val, "True") || !strcmp(val, "true") || !strcmp(val, "1")) {
        return v->b = true;
    } else if (!strcmp(val, "False") || !strcmp(val, "false") || !strcmp(val, "0")) {
        return !(v->b = false);
    }
    return end && end != val && !*end;
}

/* Input i of the program from its --input value. */
static int read_input(const opgen_cli *a, const opgen_graph *g, int i, const char *path, opgen_arena *ar,
                      opgen_ivalue *v) {
    const opgen_gvalue *gv = &g->values[g->inputs[i]];
    const char *val = given(a, gv->name);
    if (!val)
        return fprintf(stderr, "%s:%u:%u: error: no value for input %%%s (give --input %s=...)\n", path, gv->line,
                       gv->col, gv->name, gv->name),
               OPGEN_EXIT_USAGE;
    v->kind = gv->kind;
    if (gv->kind != OPGEN_GV_TENSOR) {
        if (opgen_rt_scalar_input(gv, val, v)) return OPGEN_EXIT_OK;
        const char *want = gv->kind == OPGEN_GV_INT     ? "a 64-bit integer"
                           : gv->kind == OPGEN_GV_FLOAT ? "a number"
                                                        : "True or False";
        return fprintf(stderr, "%s:%u:%u: error: input %%%s is %s, not '%s'\n", path, gv->line, gv->col, gv->name, want,
                       val),
               OPGEN_EXIT_BAD_INPUT;
    }
    opgen_error err = {0};
    if (opgen_npy_read(val, ar, &v->t, &err)) {
        char msg[1024];
        opgen_error_format(&err, msg, sizeof msg);
        return fprintf(stderr, "%s (input %%%s)\n", msg, gv->name), OPGEN_EXIT_BAD_INPUT;
    }
    if (!opgen_rt_narrow_input(&v->t, gv->dtype, ar))
        return fprintf(stderr, "%s: error: out of memory\n", val), OPGEN_EXIT_BAD_INPUT;
    if (v->t.dtype == gv->dtype && v->t.dim == gv->dim &&
        !memcmp(v->t.sizes, gv->sizes, sizeof(int64_t) * (size_t)gv->dim))
        return OPGEN_EXIT_OK;
    char want[160], got[160];
    fprintf(stderr, "%s:%u:%u: error: input %%%s is declared %s, but %s holds %s\n", path, gv->line, gv->col, gv->name,
            opgen_type_format(want, sizeof want, gv->dtype, gv->dim, gv->sizes), val,
            opgen_type_format(got, sizeof got, v->t.dtype, v->t.dim, v->t.sizes));
    return OPGEN_EXIT_BAD_INPUT;
}

/* Outputs in logical order: a tensor in another dim order is copied contiguous. */
static void to_logical(opgen_ivalue *outputs, int n, opgen_arena *ar) {
    for (int i = 0; i < n; i++) {
        opgen_tensor *t = &outputs[i].t;
        if (outputs[i].kind != OPGEN_GV_TENSOR || opgen_tensor_is_contiguous(t)) continue;
        opgen_tensor c;
        opgen_error err = {0};
        if (opgen_tensor_alloc(&c, t->dtype, t->dim, t->sizes, ar, &err)) continue;
        opgen_ctx ctx = {ar, &err, "output", false, 0, false, -1, NULL, NULL, NULL, 0, NULL};
        if (!opgen_copy_same(&ctx, &c, t)) *t = c;
    }
}

int opgen_rt_write_outputs(const char *dir, const char *prefix, opgen_ivalue *outputs, int n, opgen_arena *ar) {
    to_logical(outputs, n, ar);
    opgen_error err = {0};
    if (opgen_file_make_dir(dir, &err)) return fprintf(stderr, "%s: error: %s\n", dir, err.msg), OPGEN_EXIT_BAD_INPUT;
    for (int i = 0; i < n; i++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s%d.npy", dir, prefix, i);
        opgen_tensor t = outputs[i].t;
        union {
            int64_t i;
            double f;
            bool b;
        } scalar;
        if (outputs[i].kind != OPGEN_GV_TENSOR) {
            opgen_dtype d = outputs[i].kind == OPGEN_GV_INT     ? OPGEN_DTYPE_Long
                            : outputs[i].kind == OPGEN_GV_FLOAT ? OPGEN_DTYPE_Double
                                                                : OPGEN_DTYPE_Bool;
            opgen_tensor_shape(&t, d, 0, NULL, &err);
            if (d == OPGEN_DTYPE_Long) scalar.i = outputs[i].i;
            if (d == OPGEN_DTYPE_Double) scalar.f = outputs[i].f;
            if (d == OPGEN_DTYPE_Bool) scalar.b = outputs[i].b;
            t.data = &scalar;
        }
        if (opgen_npy_write(file, &t, &err)) return opgen_rt_report(&err);
    }
    return OPGEN_EXIT_OK;
}

int opgen_rt_seed(const opgen_cli *a, uint64_t *seed) {
    const char *s = opgen_cli_get(a, "--seed");
    *seed = 0;
    if (!s) return 0;
    char *end;
    errno = 0;
    *seed = strtoull(s, &end, 10);
    if (s[0] == '-' || errno || end == s || *end)
        return opgen_usage_error(a, "--seed must be an integer from 0 to 18446744073709551615, not '%s'", s);
    return 0;
}

/* One more run of a graph program for --repeat, its planned memory given back. */
typedef struct graph_run {
    opgen_program *p;
    const opgen_ivalue *inputs;
    opgen_ivalue *outputs;
    opgen_arena *ar;
} graph_run;
static opgen_status run_graph_once(void *ctx, opgen_error *err) {
    graph_run *r = ctx;
    opgen_arena_mark mark = opgen_arena_save(r->ar);
    opgen_status st = opgen_program_run(r->p, r->inputs, r->ar, r->outputs, err);
    opgen_arena_restore(r->ar, mark);
    return st;
}

/* Loads, binds the inputs, runs, writes (then --repeat, --profile). */
static int run_graph(const opgen_cli *a, void *vctx, const opgen_graph *g, opgen_arena *ar) {
    const opgen_rt_ctx *ctx = vctx;
    const char *path = opgen_cli_get(a, "PROGRAM");
    opgen_load_options opt = {.fallbacks = opgen_cli_has(a, "--fallbacks"),
                              .vendors = ctx ? ctx->vendors : NULL,
                              .nvendors = ctx ? ctx->nvendors : 0,
                              .parallel = ctx ? ctx->parallel : NULL};
    int bad = opgen_rt_seed(a, &opt.seed);
    if (!bad && opgen_cli_has(a, "--calls"))
        bad = opgen_usage_error(
            a, "--calls '%s': %s is graph text, which has no state between calls; --calls takes .pte programs",
            opgen_cli_get(a, "--calls"), path);
    if (!bad) bad = opgen_rt_repeat_count(a);
    if (bad) return bad;
    opgen_program *p;
    opgen_error err = {0};
    if (opgen_program_load_with(g, ar, &opt, &p, &err)) return opgen_rt_report(&err);
    if (opgen_cli_has(a, "--trace")) opgen_program_kernels(p, trace_step, (void *)path);
    opgen_rt_profile prof = {0};
    opgen_rt_profile *pr = opgen_cli_has(a, "--profile") ? &prof : NULL;
    if (pr) opgen_program_set_probe(p, opgen_rt_profile_probe, pr);
    int rc = check_names(a, g, path);
    opgen_ivalue *inputs = opgen_arena_zalloc(ar, sizeof *inputs * (size_t)(g->ninputs + 1));
    opgen_ivalue *outputs = opgen_arena_zalloc(ar, sizeof *outputs * (size_t)(g->noutputs + 1));
    if (!inputs || !outputs) return fputs("opgen-rt: out of memory\n", stderr), OPGEN_EXIT_BAD_INPUT;
    for (int i = 0; i < g->ninputs && !rc; i++) rc = read_input(a, g, i, path, ar, &inputs[i]);
    if (!rc && opgen_program_run(p, inputs, ar, outputs, &err)) rc = opgen_rt_report(&err);
    if (!rc) rc = opgen_rt_write_outputs(opgen_cli_get(a, "--output"), "", outputs, g->noutputs, ar);
    if (rc) return rc;
    if (pr && opgen_rt_profile_begin_program(pr, p, ar))
        return fputs("opgen-rt: out of memory\n", stderr), OPGEN_EXIT_BAD_INPUT;
    graph_run once = {p, inputs, outputs, ar};
    return opgen_rt_repeat(a, "run", run_graph_once, &once, pr, ar);
}

static int run_pte(const opgen_cli *a, void *ctx, const opgen_pte *p, opgen_arena *ar) {
    return opgen_rt_run_pte(a, ctx, p, ar);
}

/* --threads N: a pool for the run (N threads in all), given to the load. */
static int run(const opgen_cli *a, void *vctx) {
    opgen_rt_ctx ctx = *(const opgen_rt_ctx *)vctx;
    const char *t = opgen_cli_get(a, "--threads");
    long n = t ? strtol(t, NULL, 10) : 1;
    if (t && (n < 1 || n > 256 || t[strspn(t, "0123456789")]))
        return opgen_usage_error(a, "--threads takes a count from 1 to 256, not '%s'", t);
#if OPGEN_HAVE_POOL
    opgen_pool *pool = n > 1 ? opgen_pool_create((int)n) : NULL;
    if (n > 1 && !pool) return fprintf(stderr, "opgen-rt: cannot start %ld threads\n", n), OPGEN_EXIT_BAD_INPUT;
    ctx.parallel = opgen_pool_parallel(pool);
    int rc = opgen_rt_on_program(a, opgen_cli_get(a, "PROGRAM"), false, run_graph, run_pte, &ctx);
    opgen_pool_destroy(pool);
    return rc;
#else
    if (n > 1)
        return opgen_usage_error(a, "--threads %ld: this build has no threads (a bare-metal or single-threaded build)",
                                 n);
    return opgen_rt_on_program(a, opgen_cli_get(a, "PROGRAM"), false, run_graph, run_pte, &ctx);
#endif
}

const opgen_cmd opgen_rt_cmd_run = {
    "run",
    "run a program; returned values go to DIR/0.npy, 1.npy, ...",
    "Loads the program (graph text: every node bound to its operator's schema, dtypes and shapes inferred; a .pte: its method's instructions bound in ExecuTorch's calling "
    "convention, tensors placed in its planned buffers; a kernel found for every (op, dtype)), runs it on the inputs, and writes each returned value to DIR/0.npy, "
    "DIR/1.npy, ... (a scalar as a 0-d array; tensors in logical, contiguous order).",
    opts,
    NULL,
    NULL,
    run};
