/* opgen generate: the C registry headers. */
#include "cmd.h"
#include "generate.h"
#include <stdlib.h>

static const opgen_opt opts[] = {
    {"--output", "-o", "DIR", OPGEN_OPT_OUT, NULL, OPGEN_OPT_REQUIRED, NULL,
     "the folder to write into (created if missing)"},
    {"--depfile", NULL, "FILE", OPGEN_OPT_OUT, NULL, 0, NULL, "write a Makefile-syntax list of every input read"},
    {"--templates", NULL, "DIR", OPGEN_OPT_DIR, NULL, 0, NULL,
     "read the *.h.in templates from DIR instead of the built-in ones"},
    {"--select", NULL, "F", OPGEN_OPT_FILE, "yaml", OPGEN_OPT_REPEAT, NULL,
     "trim the registry to a selected_operators.yaml (repeatable: the union): only the selected kernels, each with only the dtypes its kernel keys name, as compile-time constants the kernels switch on"},
    {0},
};

static int run(const opgen_cli *a, void *ctx) {
    (void)ctx;
    og_inputs in = {.want_edge = true};
    og_inputs_from_args(a, &in);
    og_outputs outs;
    og_outputs_init(&outs);
    in.reads = &outs;
    unsigned n = (unsigned)opgen_cli_count(a, "--select");
    const char **selects = og_xcalloc(n + 1, sizeof *selects);
    for (unsigned i = 0; i < n; i++) selects[i] = opgen_cli_nth(a, "--select", (int)i);
    og_generate_options o = {opgen_cli_get(a, "--output"), opgen_cli_get(a, "--templates"),
                             opgen_cli_get(a, "--depfile"), selects, n};
    og_session ss;
    bool ok = og_cmd_load(&ss, &in) && og_generate(&ss, &outs, &o);
    og_outputs_free(&outs);
    free(selects);
    return og_cmd_finish(&ss, &in, ok ? OPGEN_EXIT_OK : OPGEN_EXIT_BAD_INPUT);
}

const opgen_cmd og_cmd_generate = {
    "generate",
    "write the C registry headers (dtypes, ops, kernel prototypes, registry)",
    "Writes opgen_dtypes.h, opgen_ops.h and opgen_kernels.h into DIR, and with kernel files (the embedded ones by default) opgen_registry.h, the kernel table, and "
    "opgen_backend.h, the backend ops' patterns and fallbacks: the dtype enum, every operator's id, names and schema tables, the dtypes each argument allows and the Edge "
    "constraint rows, an O(1) name -> id lookup, and the C prototype of each out= kernel. Define OPGEN_IMPLEMENTATION in one C file to get the tables. Files are replaced "
    "atomically and only when their content changes; after a failure nothing is replaced.",
    opts,
    og_input_opts,
    OG_INPUTS_TITLE,
    run};
