/* opgen select: a selected_operators.yaml from programs and op lists. */
#include "cmd.h"
#include "select.h"
#include <string.h>

static const opgen_opt opts[] = {
    {"--pte", NULL, "F", OPGEN_OPT_FILE, "pte", OPGEN_OPT_REPEAT, NULL,
     "an ExecuTorch program: every method's KernelCalls, each with its operator and kernel key (dtype and dim order of each tensor argument); delegated calls need no kernels"},
    {"--graph", NULL, "F", OPGEN_OPT_FILE, "graph", OPGEN_OPT_REPEAT, NULL,
     "a program in opgen's graph text format: its ops and the dtypes that flow through each call (inferred by opgen's runtime)"},
    {"--ops", NULL, "LIST", OPGEN_OPT_FILE, "ops", OPGEN_OPT_REPEAT, NULL,
     "op names separated by commas, spaces or new lines, each optionally with dtypes: aten::add.out:Float+Double; a name without overload selects every overload; a functional name its out= variant; LIST may be a file"},
    {"--selected-operators", NULL, "F", OPGEN_OPT_FILE, "yaml", OPGEN_OPT_REPEAT, NULL,
     "an existing selected_operators.yaml"},
    {"--output", "-o", "OUT.yaml", OPGEN_OPT_OUT, NULL, OPGEN_OPT_REQUIRED, NULL, "the selection to write"},
    {0},
};

/* Every source in command-line order. */
static bool add_sources(const opgen_cli *a, og_session *ss, og_selection *sel) {
    bool ok = true;
    for (int i = 0; ok && i < a->n; i++) {
        const char *name = a->items[i].opt->name, *v = a->items[i].value;
        if (!strcmp(name, "--pte"))
            ok = og_sel_add_pte_file(sel, v);
        else if (!strcmp(name, "--graph"))
            ok = og_sel_add_graph_file(sel, v);
        else if (!strcmp(name, "--ops"))
            ok = og_sel_add_ops(sel, &ss->m, v);
        else if (!strcmp(name, "--selected-operators"))
            ok = og_sel_add_yaml_file(sel, v);
    }
    return ok;
}

static int run(const opgen_cli *a, void *ctx) {
    (void)ctx;
    og_inputs in = {0};
    og_inputs_from_args(a, &in);
    if (!opgen_cli_has(a, "--pte") && !opgen_cli_has(a, "--graph") && !opgen_cli_has(a, "--ops") &&
        !opgen_cli_has(a, "--selected-operators"))
        return og_cmd_finish(
            NULL, &in,
            opgen_usage_error(a, "nothing to select from: give --pte, --graph, --ops or --selected-operators"));
    og_session ss;
    og_session_init(&ss, stderr);
    og_selection sel;
    og_sel_init(&sel, &ss.a, &ss.d);
    /* op lists are checked against the model; programs need none */
    bool ok = !opgen_cli_has(a, "--ops") || og_session_load(&ss, &in);
    ok = ok && add_sources(a, &ss, &sel);
    if (ok) {
        strbuf yaml;
        sb_init(&yaml);
        og_sel_write_yaml(&sel, &yaml);
        ok = og_write_file(opgen_cli_get(a, "--output"), yaml.p ? yaml.p : "", yaml.n, &ss.d);
        sb_free(&yaml);
    }
    og_sel_free(&sel);
    return og_cmd_finish(&ss, &in, ok ? OPGEN_EXIT_OK : OPGEN_EXIT_BAD_INPUT);
}

const opgen_cmd og_cmd_select = {
    "select",
    "write a selected_operators.yaml from programs and op lists",
    "Writes ExecuTorch's selected_operators.yaml for what the sources need, by union. Output is sorted and deterministic; opgen generate --select reads it, and so can "
    "ExecuTorch. Operator lists are checked against the inputs (default: embedded).",
    opts,
    og_input_opts,
    OG_INPUTS_TITLE,
    run};
