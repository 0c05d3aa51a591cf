/* opgen dtypes: the Edge dtype constraints, listed, or one call checked. */
#include "cmd.h"
#include "emit.h"
#include <stdlib.h>
#include <string.h>

static const opgen_opt opts[] = {
    {"--format", NULL, "F", OPGEN_OPT_TEXT, "text|jsonl|markdown", 0, "format",
     "text (default), jsonl: {\"allowed\": {ARG: [DTYPE...]}, \"op\": OP, \"rows\": N}, or markdown: a table of the dtypes each op's input takes"},
    {"--op", NULL, "OP", OPGEN_OPT_TEXT, NULL, 0, NULL,
     "check one call of OP, its arguments' dtypes given as ARG=DTYPE (returns are __ret_0, ...)"},
    {NULL, NULL, "ARG=DTYPE", OPGEN_OPT_TEXT, NULL, OPGEN_OPT_REPEAT, NULL,
     "with --op: the dtype of an argument or return"},
    {0},
};

static int check_call(const opgen_cli *a, og_session *ss) {
    unsigned n = (unsigned)opgen_cli_count(a, "ARG=DTYPE");
    const char **pairs = og_xcalloc(n + 1, sizeof *pairs);
    for (unsigned i = 0; i < n; i++) pairs[i] = opgen_cli_nth(a, "ARG=DTYPE", (int)i);
    strbuf out;
    sb_init(&out);
    int rc = og_edge_check_call_text(&ss->m, &ss->edge, opgen_cli_get(a, "--op"), pairs, n, &out);
    if (rc == OG_CALL_USAGE)
        rc = opgen_usage_error(a, "%s", sb_cstr(&out));
    else
        fputs(sb_cstr(&out), rc == OG_CALL_VALID ? stdout : stderr);
    sb_free(&out);
    free(pairs);
    return rc;
}

static int run(const opgen_cli *a, void *ctx) {
    (void)ctx;
    og_inputs in = {.want_edge = true};
    og_inputs_from_args(a, &in);
    if (opgen_cli_has(a, "ARG=DTYPE") && !opgen_cli_has(a, "--op"))
        return og_cmd_finish(NULL, &in, opgen_usage_error(a, "ARG=DTYPE pairs go with --op OP"));
    og_session ss;
    if (!og_cmd_load(&ss, &in)) return og_cmd_finish(&ss, &in, OPGEN_EXIT_BAD_INPUT);
    if (!ss.has_edge)
        return og_cmd_finish(
            &ss, &in,
            opgen_usage_error(a, "no edge constraints: give --edge E (only the embedded op set has a default)"));
    if (opgen_cli_has(a, "--op")) return og_cmd_finish(&ss, &in, check_call(a, &ss));
    const char *f = opgen_cli_get(a, "--format");
    bool jsonl = f && !strcmp(f, "jsonl"), md = f && !strcmp(f, "markdown");
    strbuf b;
    sb_init(&b);
    if (md) og_emit_dtypes_markdown_head(&b);
    for (unsigned i = 0; i < ss.edge.nops; i++)
        (md ? og_emit_dtypes_markdown : jsonl ? og_emit_dtypes_jsonl : og_emit_dtypes_text)(&b, &ss.edge.ops[i]);
    fwrite(b.p ? b.p : "", 1, b.n, stdout);
    sb_free(&b);
    return og_cmd_finish(&ss, &in, OPGEN_EXIT_OK);
}

const opgen_cmd og_cmd_dtypes = {
    "dtypes",
    "Edge dtype constraints: list them, or validate one call",
    "Lists, per edge.yaml entry in file order, the dtypes each constrained argument allows (the union over its rows); jsonl has sorted keys and names. With --op, checks one call by "
    "ExecuTorch's rule (some single row accepts every argument given; arguments sharing an alias in that row have one dtype), Scalars and ScalarTypes included, e.g. "
    "opgen dtypes --op aten::add.Tensor self=Float other=Int __ret_0=Float. Exit 0 when the call is valid, 1 with the reason when not.",
    opts,
    og_input_opts,
    OG_INPUTS_TITLE,
    run};
