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

int opgen_rt_on_program(const opgen_cli *a, const char *path, bool pattern, opgen_rt_graph_fn graph_fn,
                        opgen_rt_pte_fn pte_fn, void *ctx) {
    opgen_arena ar;
    opgen_arena_init_growing(&ar);
    char *text;
    size_t n;
    opgen_graph g;
    opgen_pte p;
    opgen_error err = {0};
    int rc;
    if (opgen_file_read(path, (size_t)1 << 30, &ar, &text, &n, &err)) {
        rc = opgen_rt_report(&err);
    } else if (opgen_pte_is_program(text, n)) {
        char *gt = NULL;
        size_t gn = 0;
        if (opgen_pte_open(&p, text, n, path, &err))
            rc = opgen_rt_report(&err);
        else if (pte_fn)
            rc = pte_fn(a, ctx, &p, &ar);
        else if (opgen_pte_graph_text(&p, opgen_rt_method_name(a, &p), &ar, &gt, &gn, &err) ||
                 opgen_graph_parse(path, gt, gn, false, &ar, &g, &err))
            rc = opgen_rt_report(&err);
        else
            rc = graph_fn(a, ctx, &g, &ar);
    } else if (!graph_fn) {
        fprintf(stderr, "%s: error: not an ExecuTorch program: the FlatBuffers identifier ET12 is missing\n", path);
        rc = OPGEN_EXIT_BAD_INPUT;
    } else if (opgen_cli_get(a, "--method")) {
        rc = opgen_usage_error(a, "--method '%s': %s is graph text, which has no methods (they are .pte programs')",
                               opgen_cli_get(a, "--method"), path);
    } else if (opgen_graph_parse(path, text, n, pattern, &ar, &g, &err)) {
        rc = opgen_rt_report(&err);
    } else {
        rc = graph_fn(a, ctx, &g, &ar);
    }
    opgen_arena_release(&ar);
    return rc;
}

int opgen_rt_on_graph(const opgen_cli *a, const char *path, bool pattern, opgen_rt_graph_fn fn, void *ctx) {
    return opgen_rt_on_program(a, path, pattern, fn, NULL, ctx);
}

static const opgen_cmd *const commands[] = {&opgen_rt_cmd_run,     &opgen_rt_cmd_info,      &opgen_rt_cmd_print,
                                            &opgen_rt_cmd_lower,   &opgen_rt_cmd_decompose, &opgen_rt_cmd_verify,
                                            &opgen_rt_cmd_compare, &opgen_rt_cmd_generate};

static const opgen_prog opgen_rt = {
    "opgen-rt", NULL,
    "Runs programs (graph text, ExecuTorch .pte) on opgen's runtime: the kernels of this build (and of the backends its runner names), over the generated op tables.",
    commands, sizeof commands / sizeof *commands};

int opgen_rt_main(int argc, char **argv, const opgen_vendor *const *vendors, int nvendors) {
    opgen_rt_ctx ctx = {vendors, nvendors, NULL};
    return opgen_cli_main(&opgen_rt, argc, argv, &ctx);
}
