/* opgen-rt on ExecuTorch programs: loading a method into exactly the memory it
 * asks for, inputs by position from the command line, outputs as .npy in
 * logical (contiguous) order. */
#include "cli.h"
#include "opgen/npy.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *opgen_rt_method_name(const opgen_cli *a, const opgen_pte *p) {
    const char *m = opgen_cli_get(a, "--method");
    if (m) return m;
    opgen_pte_plan pl;
    opgen_error err = {0};
    if (p->plans.len == 1 && !opgen_pte_plan_at(p, 0, &pl, &err)) return pl.name;
    return "forward";
}

int32_t opgen_rt_load_method(const opgen_pte *p, const char *name, const opgen_rt_ctx *ctx, bool fallbacks, uint64_t seed, opgen_arena *ar, opgen_method **m, opgen_error *err) {
    opgen_load_options kopt = {.fallbacks = fallbacks, .vendors = ctx ? ctx->vendors : NULL, .nvendors = ctx ? ctx->nvendors : 0, .seed = seed};
    opgen_method_options opt = {&kopt, NULL, 0, NULL, 0, 0};
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
            return fprintf(stderr, "%s: error: method '%s' has %d input%s (0..%d): no input '%.*s'\n", path, method, ninputs, ninputs == 1 ? "" : "s", ninputs - 1, (int)(eq - s), s), OPGEN_EXIT_USAGE;
        for (int j = 0; j < k; j++) {
            const char *t = opgen_cli_nth(a, "--input", j);
            if (strtol(t, NULL, 10) == pos && t[strspn(t, "0123456789")] == '=') return opgen_usage_error(a, "input %ld given twice", pos);
        }
    }
    return OPGEN_EXIT_OK;
}

static int read_input(const opgen_cli *a, const opgen_method *m, int i, const char *path, opgen_arena *ar, opgen_ivalue *v) {
    const opgen_ivalue *want = opgen_method_input(m, i);
    const char *val = given(a, i);
    if (!val) return fprintf(stderr, "%s: error: no value for input %d (give --input %d=...)\n", path, i, i), OPGEN_EXIT_USAGE;
    v->kind = want->kind;
    if (want->kind != OPGEN_GV_TENSOR) {
        opgen_gvalue gv = {.kind = want->kind};
        if (opgen_rt_scalar_input(&gv, val, v)) return OPGEN_EXIT_OK;
        const char *what = want->kind == OPGEN_GV_INT ? "a 64-bit integer" : want->kind == OPGEN_GV_FLOAT ? "a number" : "True or False";
        return fprintf(stderr, "%s: error: input %d is %s, not '%s'\n", path, i, what, val), OPGEN_EXIT_BAD_INPUT;
    }
    opgen_error err = {0};
    if (opgen_npy_read(val, ar, &v->t, &err)) {
        char msg[1024];
        opgen_error_format(&err, msg, sizeof msg);
        return fprintf(stderr, "%s (input %d)\n", msg, i), OPGEN_EXIT_BAD_INPUT;
    }
    const opgen_tensor *t = &want->t;
    if (v->t.dtype == t->dtype && v->t.dim == t->dim && !memcmp(v->t.sizes, t->sizes, sizeof(int64_t) * (size_t)t->dim)) return OPGEN_EXIT_OK;
    char w[160], g[160];
    fprintf(stderr, "%s: error: input %d is %s, but %s holds %s\n", path, i, opgen_type_format(w, sizeof w, t->dtype, t->dim, t->sizes), val,
            opgen_type_format(g, sizeof g, v->t.dtype, v->t.dim, v->t.sizes));
    return OPGEN_EXIT_BAD_INPUT;
}

static void trace_instr(void *ctx, const opgen_instr_info *in) {
    if (in->kind == OPGEN_INSTR_KERNEL)
        fprintf(stderr, "trace: %s: instruction %d: %s -> %s (%s)\n", (const char *)ctx, in->index, in->op, in->kernel, in->origin);
    else
        fprintf(stderr, "trace: %s: instruction %d: %s\n", (const char *)ctx, in->index, opgen_instr_kind_name(in->kind));
}

int opgen_rt_run_pte(const opgen_cli *a, const opgen_rt_ctx *ctx, const opgen_pte *p, opgen_arena *ar) {
    const char *path = p->file, *name = opgen_rt_method_name(a, p);
    opgen_method *m;
    opgen_error err = {0};
    uint64_t seed;
    int bad = opgen_rt_seed(a, &seed);
    if (bad) return bad;
    if (opgen_rt_load_method(p, name, ctx, opgen_cli_has(a, "--fallbacks"), seed, ar, &m, &err)) return opgen_rt_report(&err);
    if (opgen_cli_has(a, "--trace")) opgen_method_instructions(m, trace_instr, (void *)path);
    int ni = opgen_method_ninputs(m), no = opgen_method_noutputs(m);
    int rc = check_positions(a, ni, path, name);
    opgen_ivalue *inputs = opgen_arena_zalloc(ar, sizeof *inputs * (size_t)(ni + 1));
    opgen_ivalue *outputs = opgen_arena_zalloc(ar, sizeof *outputs * (size_t)(no + 1));
    if (!inputs || !outputs) return fputs("opgen-rt: out of memory\n", stderr), OPGEN_EXIT_BAD_INPUT;
    for (int i = 0; i < ni && !rc; i++) rc = read_input(a, m, i, path, ar, &inputs[i]);
    if (rc) return rc;
    size_t wb = opgen_method_work_bytes(m);
    void *block = opgen_arena_alloc(ar, wb + 16);
    opgen_arena work;
    opgen_arena_init(&work, block, block ? wb + 16 : 0);
    if (opgen_method_run(m, inputs, &work, outputs, &err)) return opgen_rt_report(&err);
    return opgen_rt_write_outputs(opgen_cli_get(a, "--output"), outputs, no, ar);
}
