/* opgen-rt print: a program in canonical form (a .pte method as graph text). */
#include "cli.h"
#include <stdio.h>
#include <stdlib.h>

static const opgen_opt opts[] = {
    {NULL, NULL, "PROGRAM", OPGEN_OPT_FILE, "program", OPGEN_OPT_REQUIRED, "program",
     "the program: graph text, or an ExecuTorch .pte"},
    {"--pattern", NULL, NULL, OPGEN_OPT_FLAG, NULL, 0, NULL,
     "read a backend-op pattern body (no header; free names are its arguments)"},
    {"--method", NULL, "NAME", OPGEN_OPT_TEXT, NULL, 0, NULL,
     "a .pte program's method to print (default: forward, or its only one)"},
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

static int run(const opgen_cli *a, void *ctx) {
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
