/* opgen-rt lower, decompose, verify: one program in, one program (or a verdict) out. */
#include "cli.h"
#include "opgen/lower.h"
#include <stdio.h>
#include <string.h>

static const opgen_opt lower_opts[] = {
    {NULL, NULL, "IN.graph", OPGEN_OPT_FILE, "graph", OPGEN_OPT_REQUIRED, "program", "the program"},
    {"--output", "-o", "OUT.graph", OPGEN_OPT_OUT, NULL, OPGEN_OPT_REQUIRED, NULL, "the lowered program"},
    {"--backend", NULL, "NAME", OPGEN_OPT_TEXT, NULL, 0, NULL, "fuse only this backend's ops"},
    {0},
};
static const opgen_opt decompose_opts[] = {
    {NULL, NULL, "IN.graph", OPGEN_OPT_FILE, "graph", OPGEN_OPT_REQUIRED, "program", "the program"},
    {"--output", "-o", "OUT.graph", OPGEN_OPT_OUT, NULL, OPGEN_OPT_REQUIRED, NULL, "the decomposed program"},
    {0},
};
static const opgen_opt verify_opts[] = {
    {NULL, NULL, "IN.graph", OPGEN_OPT_FILE, "graph", OPGEN_OPT_REQUIRED, "program", "the program"},
    {"--dialect", NULL, "D", OPGEN_OPT_TEXT, "aten|edge|backend", OPGEN_OPT_REQUIRED, "dialect",
     "the dialect to check against"},
    {0},
};

/* The program transformed (lower, decompose) and written to -o, or verified. */
static int transform(const opgen_cli *a, void *ctx, const opgen_graph *g, opgen_arena *ar) {
    const opgen_rt_ctx *rc = ctx;
    opgen_load_options opt = {.vendors = rc ? rc->vendors : NULL, .nvendors = rc ? rc->nvendors : 0};
    const char *cmd = a->cmd->name;
    opgen_graph out;
    opgen_error err = {0};
    if (!strcmp(cmd, "verify"))
        return opgen_verify_with(g, (opgen_dialect)opgen_dialect_parse(opgen_cli_get(a, "--dialect")), &opt, ar, &err)
                   ? opgen_rt_report(&err)
                   : OPGEN_EXIT_OK;
    opgen_status st = !strcmp(cmd, "lower") ? opgen_fuse(g, opgen_cli_get(a, "--backend"), ar, &out, NULL, &err)
                                            : opgen_decompose(g, ar, &out, NULL, &err);
    if (st)
        return err.file[0] ? opgen_rt_report(&err) : opgen_usage_error(a, "%s", err.msg); /* no file: about --backend */
    size_t len = opgen_graph_print(&out, NULL, 0);
    char *buf = opgen_arena_alloc(ar, len + 1);
    if (!buf) return fputs("opgen-rt: out of memory\n", stderr), OPGEN_EXIT_BAD_INPUT;
    opgen_graph_print(&out, buf, len + 1);
    return opgen_file_write(opgen_cli_get(a, "--output"), buf, len, &err) ? opgen_rt_report(&err) : OPGEN_EXIT_OK;
}

static int run(const opgen_cli *a, void *ctx) {
    return opgen_rt_on_graph(a, opgen_cli_get(a, "IN.graph"), false, transform, ctx);
}

const opgen_cmd opgen_rt_cmd_lower = {
    "lower",
    "fuse backend-op patterns into backend-op calls",
    "Finds each backend op's pattern in the program and replaces it by one call of the op (patterns tried in the order of the backend-op yaml; --backend fuses only that "
    "backend's ops).",
    lower_opts,
    NULL,
    NULL,
    run};
const opgen_cmd opgen_rt_cmd_decompose = {"decompose",
                                          "inline every backend op's pattern (the inverse of lower)",
                                          "Inlines every backend op's pattern: a program in core and custom ops only.",
                                          decompose_opts,
                                          NULL,
                                          NULL,
                                          run};
const opgen_cmd opgen_rt_cmd_verify = {
    "verify",
    "check a program against a dialect",
    "Checks the program against a dialect: aten (core and custom ops), edge (and every call's dtypes satisfy an Edge constraint row), backend (backend ops too); prints nothing "
    "and exits 0 when valid, 1 naming the node, line and reason when not.",
    verify_opts,
    NULL,
    NULL,
    run};
