/* opgen list: the operators, as text or JSON lines. */
#include "cmd.h"
#include "emit.h"
#include <stdlib.h>
#include <string.h>

static const opgen_opt opts[] = {
    {"--core", NULL, NULL, OPGEN_OPT_FLAG, NULL, 0, NULL, "only entries tagged 'core'"},
    {"--tag", NULL, "NAME", OPGEN_OPT_TEXT, NULL, OPGEN_OPT_REPEAT, NULL,
     "only entries with tag NAME (repeatable: all must match)"},
    {"--namespace", NULL, "NS", OPGEN_OPT_TEXT, NULL, 0, NULL, "only entries in namespace NS"},
    {"--generated", NULL, NULL, OPGEN_OPT_FLAG, NULL, 0, NULL, "also list the functions torchgen would autogenerate"},
    {"--format", NULL, "F", OPGEN_OPT_TEXT, "text|jsonl|out-variants", 0, "format",
     "text (default): 'ns::schema  [tags]'; jsonl: one JSON object per entry with the fields of torchgen-oracle.jsonl; out-variants: 'ns::op ns::op.out', the out= variant of each op's group ('-' if none)"},
    {0},
};

static int run(const opgen_cli *a, void *ctx) {
    (void)ctx;
    og_inputs in = {0};
    og_inputs_from_args(a, &in);
    og_session ss;
    if (!og_cmd_load(&ss, &in)) return og_cmd_finish(&ss, &in, OPGEN_EXIT_BAD_INPUT);
    int ntags = opgen_cli_count(a, "--tag") + opgen_cli_has(a, "--core");
    int *tags = og_xcalloc((size_t)ntags + 1, sizeof *tags);
    for (int t = 0; t < ntags; t++) {
        const char *name = t < opgen_cli_count(a, "--tag") ? opgen_cli_nth(a, "--tag", t) : "core";
        if ((tags[t] = og_model_tag_find(&ss.m, name)) < 0) {
            free(tags);
            return og_cmd_finish(&ss, &in, opgen_usage_error(a, "unknown tag '%s' (not in the tags file)", name));
        }
    }
    const char *f = opgen_cli_get(a, "--format");
    og_list_format format = !f || !strcmp(f, "text") ? OG_LIST_TEXT
                            : !strcmp(f, "jsonl")    ? OG_LIST_JSONL
                                                     : OG_LIST_OUT_VARIANTS;
    strbuf b;
    sb_init(&b);
    og_emit_list(&b, &ss.m, opgen_cli_has(a, "--generated"), opgen_cli_get(a, "--namespace"), tags, (unsigned)ntags,
                 format);
    fwrite(b.p ? b.p : "", 1, b.n, stdout);
    sb_free(&b);
    free(tags);
    return og_cmd_finish(&ss, &in, OPGEN_EXIT_OK);
}

const opgen_cmd og_cmd_list = {"list",
                               "list operators as text or JSON lines",
                               "Lists operator entries in file order.",
                               opts,
                               og_input_opts,
                               OG_INPUTS_TITLE,
                               run};
