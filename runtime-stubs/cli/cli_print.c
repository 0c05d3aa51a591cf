/* opgen-rt print: a program in canonical form (a .pte method as graph text). */
#include "cli.h"
#include "opgen/npy.h"
#include "opgen/pte.h"
#include <stdio.h>
#include <stdlib.h>

static const opgen_opt opts[] = {
    {NULL, NULL, "PROGRAM", OPGEN_OPT_FILE, "program", OPGEN_OPT_REQUIRED, "program",
     "the program: graph text, or an ExecuTorch .pte"},
    {"--pattern", NULL, NULL, OPGEN_OPT_FLAG, NULL, 0, NULL,
     "read a backend-op pattern body (no header; free names are its arguments)"},
    {"--method", NULL, "NAME", OPGEN_OPT_TEXT, NULL, 0, NULL,
     "a .pte program's method to print (default: forward, or its only one)"},
    {"--constants", NULL, "DIR", OPGEN_OPT_OUT, NULL, 0, NULL,
     "a .pte program: also write each constant the graph text takes as input %cN to DIR/cN.npy, so that the "
     "printed (or lowered) program runs on them"},
    {0},
};

static int print(const opgen_cli *a, void *ctx, const opgen_graph *g, opgen_arena *ar) {
    (void)a, (void)ctx;
    size_t len = opgen_graph_print(g, NULL, 0);
    char *out = opgen_arena_alloc(ar, len + 1);
    if (!out) return fputs("opgen-rt: out of memory\n", stderr), OPGEN_EXIT_BAD_INPUT;
    opgen_graph_print(g, out, len + 1);
    fwrite(out, 1, len, stdout);
    return OPGEN_EXIT_OK;
}

/* The method's constants (tensors with data in the program, not planned) as
 * DIR/c<value>.npy (DIR made by run), in their logical order. */
static int write_constants(const opgen_cli *a, const opgen_pte *p, const char *dir, opgen_arena *ar) {
    opgen_error err = {0};
    opgen_pte_plan pl;
    if (opgen_pte_plan_find(p, opgen_rt_method_name(a, p), &pl, &err)) return opgen_rt_report(&err);
    for (uint32_t i = 0; i < pl.values.len; i++) {
        opgen_pte_value v;
        if (opgen_pte_value_at(p, &pl, i, &v, &err)) return opgen_rt_report(&err);
        if (v.kind != OPGEN_EV_TENSOR || v.t.planned || !v.t.data_buffer_idx) continue;
        int64_t sizes[OPGEN_MAX_DIM];
        uint8_t order[OPGEN_MAX_DIM];
        int32_t dim = (int32_t)v.t.sizes.len;
        for (int32_t d = 0; d < dim && d < OPGEN_MAX_DIM; d++) {
            sizes[d] = opgen_pte_i32(p, v.t.sizes, (uint32_t)d);
            order[d] = v.t.dim_order.len ? opgen_pte_u8(p, v.t.dim_order, (uint32_t)d) : (uint8_t)d;
        }
        opgen_tensor t;
        const void *data = NULL;
        char file[4096];
        snprintf(file, sizeof file, "%s/c%u.npy", dir, (unsigned)i);
        if (dim > OPGEN_MAX_DIM ||
            opgen_tensor_shape_ordered(&t, (opgen_dtype)v.t.scalar_type, dim, sizes, order, &err) ||
            opgen_pte_constant(p, v.t.data_buffer_idx, opgen_nbytes(&t), &data, &err))
            return opgen_rt_report(&err);
        t.data = (void *)(uintptr_t)data;
        opgen_tensor c = t; /* in logical order */
        opgen_ctx k = {ar, &err, "constant", false, 0, false, -1, NULL, NULL, NULL, 0, NULL};
        if (!opgen_tensor_is_contiguous(&t) &&
            (opgen_tensor_alloc(&c, t.dtype, t.dim, t.sizes, ar, &err) || opgen_copy_same(&k, &c, &t)))
            return opgen_rt_report(&err);
        if (opgen_npy_write(file, &c, &err))
            return fprintf(stderr, "%s: error: %s\n", file, err.msg), OPGEN_EXIT_BAD_INPUT;
    }
    return OPGEN_EXIT_OK;
}

static int print_pte(const opgen_cli *a, void *ctx, const opgen_pte *p, opgen_arena *ar) {
    opgen_error err = {0};
    char *text = NULL;
    size_t n = 0;
    opgen_graph g;
    if (opgen_pte_graph_text(p, opgen_rt_method_name(a, p), ar, &text, &n, &err) ||
        opgen_graph_parse(opgen_cli_get(a, "PROGRAM"), text, n, false, ar, &g, &err))
        return opgen_rt_report(&err);
    int rc = write_constants(a, p, opgen_cli_get(a, "--constants"), ar);
    return rc ? rc : print(a, ctx, &g, ar);
}

static int run(const opgen_cli *a, void *ctx) {
    const char *dir = opgen_cli_get(a, "--constants");
    if (dir) { /* the directory first: graph text has no constants to put there */
        opgen_error err = {0};
        if (opgen_file_make_dir(dir, &err))
            return fprintf(stderr, "%s: error: %s\n", dir, err.msg), OPGEN_EXIT_BAD_INPUT;
        return opgen_rt_on_program(a, opgen_cli_get(a, "PROGRAM"), opgen_cli_has(a, "--pattern"), print, print_pte,
                                   ctx);
    }
    return opgen_rt_on_graph(a, opgen_cli_get(a, "PROGRAM"), opgen_cli_has(a, "--pattern"), print, ctx);
}

const opgen_cmd opgen_rt_cmd_print = {
    "print",
    "parse a program and print it in canonical form",
    "Parses a program (or, with --pattern, a backend-op pattern body) and prints it in canonical form; errors read FILE:LINE:COL: error: MESSAGE. A .pte "
    "program's method prints as graph text: its inputs, then its constants as inputs, each instruction as its functional op, so lower "
    "and verify work on it.",
    opts,
    NULL,
    NULL,
    run};
