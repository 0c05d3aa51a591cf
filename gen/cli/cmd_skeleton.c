/* opgen skeleton: a compiling backend, a stub kernel per op. */
#include "abi.h"
#include "cmd.h"
#include "config.h"
#include "skeleton.h"

static const opgen_opt opts[] = {
    {"--backend", NULL, "NAME", OPGEN_OPT_TEXT, NULL, OPGEN_OPT_REQUIRED, NULL,
     "the backend's name, a C identifier (kernels are called NAME_...)"},
    {"--select", NULL, "F", OPGEN_OPT_FILE, "yaml", 0, NULL, "a kernel per op a selected_operators.yaml keeps"},
    {"--ops", NULL, "LIST", OPGEN_OPT_FILE, "ops", 0, NULL,
     "a kernel per op of a list (as opgen select --ops takes it)"},
    {"--core", NULL, NULL, OPGEN_OPT_FLAG, NULL, 0, NULL, "a kernel per core op"},
    {"--output", "-o", "DIR", OPGEN_OPT_OUT, NULL, OPGEN_OPT_REQUIRED, NULL, "the backend folder"},
    {0},
};

/* The kernels asked for: a vendor kernel yaml (--kernels), a selection, a list, or the core ops. */
static bool add_kernels(const opgen_cli *a, og_session *ss, og_skel *k) {
    const og_edge *edge = ss->has_edge ? &ss->edge : NULL;
    if (opgen_cli_has(a, "--kernels")) return og_skel_add_yaml_kernels(k, &ss->m, edge, &ss->kernels);
    if (opgen_cli_has(a, "--core")) return og_skel_add_ops(k, &ss->m, edge, NULL);
    og_selection sel;
    og_sel_init(&sel, &ss->a, &ss->d);
    bool ok = opgen_cli_has(a, "--select") ? og_sel_add_yaml_file(&sel, opgen_cli_get(a, "--select"))
                                           : og_sel_add_ops(&sel, &ss->m, opgen_cli_get(a, "--ops"));
    ok = ok && og_skel_add_ops(k, &ss->m, edge, &sel);
    og_sel_free(&sel);
    return ok;
}

static int run(const opgen_cli *a, void *ctx) {
    (void)ctx;
    const char *backend = opgen_cli_get(a, "--backend");
    if (!og_is_c_ident(backend)) return opgen_usage_error(a, "the backend name '%s' must be a C identifier", backend);
    int sources = opgen_cli_has(a, "--kernels") + opgen_cli_has(a, "--select") + opgen_cli_has(a, "--ops") +
                  opgen_cli_has(a, "--core");
    if (sources != 1) return opgen_usage_error(a, "give exactly one of --kernels, --select, --ops, --core");
    og_inputs in = {.want_edge = true};
    og_inputs_from_args(a, &in);
    og_session ss;
    og_skel k;
    og_skel_init(&k, backend);
    bool ok = og_cmd_load(&ss, &in) && add_kernels(a, &ss, &k);
    if (ok && !k.n) {
        diag_plain(&ss.d, "no ops to write kernels for");
        ok = false;
    }
    strbuf report;
    sb_init(&report);
    if (ok) ok = og_skel_write(&k, &ss.m, opgen_cli_get(a, "--output"), OPGEN_VERSION_STRING, &report, &ss.d);
    if (ok) fputs(sb_cstr(&report), stdout);
    sb_free(&report);
    og_skel_free(&k);
    return og_cmd_finish(&ss, &in, ok ? OPGEN_EXIT_OK : OPGEN_EXIT_BAD_INPUT);
}

const opgen_cmd og_cmd_skeleton = {
    "skeleton",
    "write a compiling backend: a stub kernel per op, its table, a runner",
    "Writes a backend that compiles on day one: per kernel a C file (kernels/) with the argument checks opgen can write and a switch over the dtypes the op allows (or the "
    "selection names), every case a stub returning a not-implemented status that names op and dtype; the kernel table (NAME_registry.c), a runner opgen-rt-NAME (NAME_main.c), "
    "and a meson project building them against an installed opgen (pkg-config) or opgen as a subproject. The ops: a vendor kernel yaml in ExecuTorch's format (--kernels: its "
    "kernel names and arg_meta dtypes), a selection, an op list, or every core op. Running it again never overwrites a file you changed (a checksum on its first line tells), "
    "writes files for new ops, and reports kernels no longer asked for.",
    opts,
    og_input_opts,
    OG_INPUTS_TITLE,
    run};
