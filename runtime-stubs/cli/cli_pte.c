/* opgen-rt on ExecuTorch programs: loading a method into exactly the memory it
 * asks for, inputs by position from the command line, outputs as .npy in
 * logical (contiguous) order. */
#include "cli.h"
#include "opgen/npy.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <dirent.h>
#endif

const char *opgen_rt_method_name(const opgen_cli *a, const opgen_pte *p) {
    const char *m = opgen_cli_get(a, "--method");
    if (m) return m;
    opgen_pte_plan pl;
    opgen_error err = {0};
    if (p->plans.len == 1 && !opgen_pte_plan_at(p, 0, &pl, &err)) return pl.name;
    return "forward";
}

opgen_status opgen_rt_load_method(const opgen_pte *p, const char *name, const opgen_rt_ctx *ctx, bool fallbacks,
                                  uint64_t seed, opgen_rt_profile *profile, opgen_arena *ar, opgen_method **m,
                                  opgen_error *err) {
    opgen_load_options kopt = {.fallbacks = fallbacks,
                               .vendors = ctx ? ctx->vendors : NULL,
                               .nvendors = ctx ? ctx->nvendors : 0,
                               .seed = seed,
                               .parallel = ctx ? ctx->parallel : NULL};
    opgen_method_options opt = {&kopt, NULL, 0, NULL, 0, 0, profile ? opgen_rt_profile_probe : NULL, profile};
    opgen_method_memory mem;
    if (opgen_method_memory_of(p, name, &opt, &mem, err)) return err->code;
    /* exactly what load says it takes: a fixed arena, as a device would give */
    void *block = opgen_arena_alloc(ar, mem.load_bytes + 16);
    if (!block) return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory: the method takes %zu bytes", mem.load_bytes);
    opgen_arena fixed;
    opgen_arena_init(&fixed, block, mem.load_bytes + 16);
    return opgen_method_load(p, name, &opt, &fixed, m, err);
}

/* The value of --input POSITION=VALUE for input i, or NULL. */
static const char *given(const opgen_cli *a, int i) {
    const char *v = NULL;
    for (int k = 0; k < opgen_cli_count(a, "--input"); k++) {
        const char *s = opgen_cli_nth(a, "--input", k), *eq = strchr(s, '=');
        char *end;
        errno = 0;
        long pos = strtol(s, &end, 10);
        if (end == eq && end != s && !errno && pos == i) v = eq + 1;
    }
    return v;
}

/* Every --input names an input of the method by its position, once. */
static int check_positions(const opgen_cli *a, int ninputs, const char *path, const char *method) {
    int n = opgen_cli_count(a, "--input");
    for (int k = 0; k < n; k++) {
        const char *s = opgen_cli_nth(a, "--input", k), *eq = strchr(s, '=');
        char *end;
        errno = 0;
        long pos = strtol(s, &end, 10);
        if (end != eq || end == s || errno || pos < 0 || pos >= ninputs)
            return fprintf(stderr, "%s: error: method '%s' has %d input%s (0..%d): no input '%.*s'\n", path, method,
                           ninputs, ninputs == 1 ? "" : "s", ninputs - 1, (int)(eq - s), s),
                   OPGEN_EXIT_USAGE;
        for (int j = 0; j < k; j++) {
            const char *t = opgen_cli_nth(a, "--input", j);
            if (strtol(t, NULL, 10) == pos && t[strspn(t, "0123456789")] == '=')
                return opgen_usage_error(a, "input %ld given twice", pos);
        }
    }
    return OPGEN_EXIT_OK;
}

/* A scalar input's value from its text: of the declared kind, or (a Null-declared
 * input) an int, else a float, else True/False. */
static int scalar_text(const opgen_method *m, int i, const char *val, const char *path, opgen_ivalue *v) {
    const opgen_ivalue *want = opgen_method_input(m, i);
    static const int any[] = {OPGEN_GV_INT, OPGEN_GV_FLOAT, OPGEN_GV_BOOL};
    bool null = opgen_method_input_is_null(m, i);
    for (int k = 0; k < (null ? 3 : 1); k++) {
        opgen_gvalue gv = {.kind = null ? any[k] : want->kind};
        v->kind = gv.kind;
        if (opgen_rt_scalar_input(&gv, val, v)) return OPGEN_EXIT_OK;
    }
    const char *what = null                           ? "a number or True/False"
                       : want->kind == OPGEN_GV_INT   ? "a 64-bit integer"
                       : want->kind == OPGEN_GV_FLOAT ? "a number"
                                                      : "True or False";
    return fprintf(stderr, "%s: error: input %d is %s, not '%s'\n", path, i, what, val), OPGEN_EXIT_BAD_INPUT;
}

/* A scalar input from a 0-d .npy (the corpus's layout): the kind its dtype says. */
static int scalar_npy(const opgen_tensor *t, int i, const char *file, const char *path, opgen_ivalue *v) {
    if (t->dim != 0)
        return fprintf(stderr, "%s: error: input %d is a scalar, but %s holds a %d-d array\n", path, i, file,
                       (int)t->dim),
               OPGEN_EXIT_BAD_INPUT;
    if (t->dtype == OPGEN_DTYPE_Bool)
        v->kind = OPGEN_GV_BOOL, v->b = *(const bool *)t->data;
    else if (opgen_is_float(t->dtype))
        v->kind = OPGEN_GV_FLOAT, v->f = opgen_load_f64(t, 0);
    else
        v->kind = OPGEN_GV_INT, v->i = opgen_load_i64(t, 0);
    return OPGEN_EXIT_OK;
}

/* Input i from FILE.npy: a tensor of the declared dtype and sizes, or a scalar. */
static int npy_input(const opgen_method *m, int i, const char *file, const char *path, opgen_arena *ar,
                     opgen_ivalue *v) {
    const opgen_ivalue *want = opgen_method_input(m, i);
    opgen_error err = {0};
    opgen_tensor t;
    if (opgen_npy_read(file, ar, &t, &err)) {
        char msg[1024];
        opgen_error_format(&err, msg, sizeof msg);
        return fprintf(stderr, "%s (input %d)\n", msg, i), OPGEN_EXIT_BAD_INPUT;
    }
    if (want->kind != OPGEN_GV_TENSOR) {
        int rc = scalar_npy(&t, i, file, path, v);
        if (!rc && want->kind != OPGEN_GV_OTHER &&
            v->kind != want->kind) /* the declared kind: an int given for a float is that float */
            v->f = v->kind == OPGEN_GV_INT ? (double)v->i : v->f,
            v->i = v->kind == OPGEN_GV_FLOAT ? (int64_t)v->f : v->i, v->kind = want->kind;
        return rc;
    }
    v->kind = OPGEN_GV_TENSOR;
    v->t = t;
    const opgen_tensor *w = &want->t;
    if (!opgen_rt_narrow_input(&v->t, w->dtype, ar))
        return fprintf(stderr, "%s: error: out of memory\n", file), OPGEN_EXIT_BAD_INPUT;
    t = v->t;
    if (opgen_method_input_bound(m, i)) return OPGEN_EXIT_OK; /* any sizes within its bound: the run checks */
    if (t.dtype == w->dtype && t.dim == w->dim && !memcmp(t.sizes, w->sizes, sizeof(int64_t) * (size_t)w->dim))
        return OPGEN_EXIT_OK;
    char ws[160], gs[160];
    fprintf(stderr, "%s: error: input %d is %s, but %s holds %s\n", path, i,
            opgen_type_format(ws, sizeof ws, w->dtype, w->dim, w->sizes), file,
            opgen_type_format(gs, sizeof gs, t.dtype, t.dim, t.sizes));
    return OPGEN_EXIT_BAD_INPUT;
}

static int read_input(const opgen_cli *a, const opgen_method *m, int i, const char *path, opgen_arena *ar,
                      opgen_ivalue *v) {
    const char *val = given(a, i);
    if (!val)
        return fprintf(stderr, "%s: error: no value for input %d (give --input %d=...)\n", path, i, i),
               OPGEN_EXIT_USAGE;
    if (opgen_method_input(m, i)->kind != OPGEN_GV_TENSOR) return scalar_text(m, i, val, path, v);
    return npy_input(m, i, val, path, ar, v);
}

static void trace_instr(void *ctx, const opgen_instr_info *in) {
    if (in->kind == OPGEN_INSTR_KERNEL)
        fprintf(stderr, "trace: %s: instruction %d: %s -> %s (%s)\n", (const char *)ctx, in->index, in->op, in->kernel,
                in->origin);
    else
        fprintf(stderr, "trace: %s: instruction %d: %s\n", (const char *)ctx, in->index,
                opgen_instr_kind_name(in->kind));
}

/* --repeat N and --profile: the last call's inputs run again (opgen_rt_repeat). */
typedef struct method_run {
    opgen_method *m;
    const opgen_ivalue *inputs;
    opgen_ivalue *outputs;
    opgen_arena *work;
} method_run;
static opgen_status run_method_once(void *ctx, opgen_error *err) {
    method_run *r = ctx;
    return opgen_method_run(r->m, r->inputs, r->work, r->outputs, err);
}
static int repeat(const opgen_cli *a, opgen_method *m, const opgen_ivalue *inputs, opgen_ivalue *outputs,
                  opgen_arena *work, opgen_arena *ar, int call, opgen_rt_profile *prof) {
    if (prof && opgen_rt_profile_begin_method(prof, m, ar))
        return fputs("opgen-rt: out of memory\n", stderr), OPGEN_EXIT_BAD_INPUT;
    char what[48];
    snprintf(what, sizeof what, "call %d run", call);
    method_run once = {m, inputs, outputs, work};
    return opgen_rt_repeat(a, what, run_method_once, &once, prof, ar);
}

/* The highest call K that DIR holds a K_I.npy for, or -1 (none, or no way to
 * list a folder here): a call missing below it is an error, not the end. */
static long last_call(const char *dir) {
    long last = -1;
#if defined(__unix__) || defined(__APPLE__)
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        long k, i;
        int n = 0;
        if (sscanf(e->d_name, "%ld_%ld.npy%n", &k, &i, &n) == 2 && n && !e->d_name[n] && k >= 0 && i >= 0 &&
            k < 1000000000L)
            last = k > last ? k : last;
    }
    if (d) closedir(d);
#else
    (void)dir;
#endif
    return last;
}

/* --calls DIR: call k reads DIR/k_i.npy for each input i and writes OUT/k_o.npy,
 * k = 0, 1, ... up to the last the folder holds (a call missing is an error);
 * one loaded method, its state kept. */
static int run_calls(const opgen_cli *a, opgen_method *m, const char *path, opgen_ivalue *inputs, opgen_ivalue *outputs,
                     opgen_arena *work, opgen_arena *ar, opgen_rt_profile *prof) {
    const char *dir = opgen_cli_get(a, "--calls"), *out = opgen_cli_get(a, "--output");
    int ni = opgen_method_ninputs(m), no = opgen_method_noutputs(m), k = 0;
    if (!ni) return opgen_usage_error(a, "--calls: the method takes no inputs; run it without --calls");
    for (long c = 0, last = last_call(dir); c <= last; c++) { /* no call missing up to the last */
        char file[4096];
        snprintf(file, sizeof file, "%s/%ld_0.npy", dir, c);
        if (!opgen_file_exists(file))
            return fprintf(stderr, "%s: error: no such file: call %ld is missing (the folder holds calls up to %ld)\n",
                           file, c, last),
                   OPGEN_EXIT_BAD_INPUT;
    }
    opgen_arena_mark mark = opgen_arena_save(ar);
    for (;; k++) {
        char file[4096], prefix[32];
        snprintf(file, sizeof file, "%s/%d_0.npy", dir, k);
        if (!opgen_file_exists(file)) break;
        opgen_arena_restore(ar, mark); /* the previous call's inputs and outputs are written */
        for (int i = 0; i < ni; i++) {
            snprintf(file, sizeof file, "%s/%d_%d.npy", dir, k, i);
            int rc = npy_input(m, i, file, path, ar, &inputs[i]);
            if (rc) return rc;
        }
        opgen_error err = {0};
        if (opgen_method_run(m, inputs, work, outputs, &err))
            return fprintf(stderr, "call %d: ", k), opgen_rt_report(&err);
        snprintf(prefix, sizeof prefix, "%d_", k);
        int rc = opgen_rt_write_outputs(out, prefix, outputs, no, ar);
        if (rc) return rc;
    }
    if (!k)
        return fprintf(stderr, "%s/0_0.npy: error: no such file: --calls DIR holds call K's input I as DIR/K_I.npy\n",
                       dir),
               OPGEN_EXIT_BAD_INPUT;
    return repeat(a, m, inputs, outputs, work, ar, k - 1, prof);
}

int opgen_rt_repeat_count(const opgen_cli *a) {
    const char *s = opgen_cli_get(a, "--repeat");
    if (s && (atol(s) < 1 || atol(s) > 1000000))
        return opgen_usage_error(a, "--repeat takes a count from 1 to 1000000, not '%s'", s);
    return 0;
}

int opgen_rt_run_pte(const opgen_cli *a, const opgen_rt_ctx *ctx, const opgen_pte *p, opgen_arena *ar) {
    const char *path = p->file, *name = opgen_rt_method_name(a, p);
    opgen_method *m;
    opgen_error err = {0};
    uint64_t seed;
    int bad = opgen_rt_seed(a, &seed);
    if (!bad && opgen_cli_has(a, "--calls") && opgen_cli_has(a, "--input"))
        bad = opgen_usage_error(a, "--calls DIR and --input both give inputs: give one of them");
    if (!bad) bad = opgen_rt_repeat_count(a);
    if (bad) return bad;
    opgen_rt_profile prof = {0};
    opgen_rt_profile *pr = opgen_cli_has(a, "--profile") ? &prof : NULL;
    if (opgen_rt_load_method(p, name, ctx, opgen_cli_has(a, "--fallbacks"), seed, pr, ar, &m, &err))
        return opgen_rt_report(&err);
    if (opgen_cli_has(a, "--trace")) opgen_method_instructions(m, trace_instr, (void *)path);
    int ni = opgen_method_ninputs(m), no = opgen_method_noutputs(m);
    opgen_ivalue *inputs = opgen_arena_zalloc(ar, sizeof *inputs * (size_t)(ni + 1));
    opgen_ivalue *outputs = opgen_arena_zalloc(ar, sizeof *outputs * (size_t)(no + 1));
    size_t wb = opgen_method_work_bytes(m);
    void *block = opgen_arena_alloc(ar, wb + 16);
    if (!inputs || !outputs || !block) return fputs("opgen-rt: out of memory\n", stderr), OPGEN_EXIT_BAD_INPUT;
    opgen_arena work;
    opgen_arena_init(&work, block, wb + 16);
    if (opgen_cli_has(a, "--calls")) return run_calls(a, m, path, inputs, outputs, &work, ar, pr);
    int rc = check_positions(a, ni, path, name);
    for (int i = 0; i < ni && !rc; i++) rc = read_input(a, m, i, path, ar, &inputs[i]);
    if (rc) return rc;
    if (opgen_method_run(m, inputs, &work, outputs, &err)) return opgen_rt_report(&err);
    rc = opgen_rt_write_outputs(opgen_cli_get(a, "--output"), "", outputs, no, ar);
    return rc ? rc : repeat(a, m, inputs, outputs, &work, ar, 0, pr);
}
