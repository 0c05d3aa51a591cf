/* opgen-rt: the runtime's command line, as a library function so a backend's own
 * runner (opgen skeleton writes one) is opgen-rt with its kernels first. */
#include "cli.h"
#include <stdio.h>

int opgen_rt_report(const opgen_error *err) {
    char msg[1024];
    opgen_error_format(err, msg, sizeof msg);
    fprintf(stderr, "%s\n", msg);
    return OPGEN_EXIT_BAD_INPUT;
}

int opgen_rt_on_graph(const opgen_cli *a, const char *path, bool pattern, int (*fn)(const opgen_cli *a, void *ctx, const opgen_graph *g, opgen_arena *ar), void *ctx) {
    opgen_arena ar;
    opgen_arena_init_growing(&ar);
    char *text;
    size_t n;
    opgen_graph g;
    opgen_error err = {0};
    int rc;
    if (opgen_file_read(path, (size_t)256 << 20, &ar, &text, &n, &err) || opgen_graph_parse(path, text, n, pattern, &ar, &g, &err))
        rc = opgen_rt_report(&err);
    else
        rc = fn(a, ctx, &g, &ar);
    opgen_arena_release(&ar);
    return rc;
}

static const opgen_cmd *const commands[] = {&opgen_rt_cmd_run, &opgen_rt_cmd_print, &opgen_rt_cmd_lower, &opgen_rt_cmd_decompose, &opgen_rt_cmd_verify};

static const opgen_prog opgen_rt = {
    "opgen-rt", NULL, "Runs programs on opgen's runtime: the kernels of this build (and of the backends its runner names), over the generated op tables.", commands,
    sizeof commands / sizeof *commands};

int opgen_rt_main(int argc, char **argv, const opgen_vendor *const *vendors, int nvendors) {
    opgen_rt_ctx ctx = {vendors, nvendors};
    return opgen_cli_main(&opgen_rt, argc, argv, &ctx);
}
