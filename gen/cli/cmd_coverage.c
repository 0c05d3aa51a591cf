/* opgen coverage: which of a backend's kernel cases are implemented. */
#include "cmd.h"
#include "skeleton.h"
#include <string.h>

static const opgen_opt opts[] = {
    {NULL, NULL, "DIR", OPGEN_OPT_DIR, NULL, OPGEN_OPT_REQUIRED, "backend folder",
     "a backend folder opgen skeleton wrote"},
    {"--format", NULL, "F", OPGEN_OPT_TEXT, "markdown|jsonl", 0, "format",
     "markdown (default, with a summary) or jsonl"},
    {0},
};

static int run(const opgen_cli *a, void *ctx) {
    (void)ctx;
    og_inputs in = {0};
    og_inputs_from_args(a, &in);
    og_session ss;
    bool ok = og_cmd_load(&ss, &in);
    strbuf out;
    sb_init(&out);
    og_opgen_kernels opgen = {&ss.m, &ss.kernels, &ss.backend};
    const char *f = opgen_cli_get(a, "--format");
    if (ok) ok = og_coverage(opgen_cli_get(a, "DIR"), &opgen, f && !strcmp(f, "jsonl"), &out, &ss.d);
    if (ok) fputs(sb_cstr(&out), stdout);
    sb_free(&out);
    return og_cmd_finish(&ss, &in, ok ? OPGEN_EXIT_OK : OPGEN_EXIT_BAD_INPUT);
}

const opgen_cmd og_cmd_coverage = {
    "coverage",
    "which of a backend's kernel cases are implemented, stubs or covered",
    "Reads the kernels of a backend folder opgen skeleton wrote (those kernels/meson.build lists) and prints, per op and dtype, whether the case is implemented (changed by "
    "you), a stub (as opgen wrote it), or a fallback: a stub whose op and dtype opgen's own kernels serve (the inputs' kernel files and backend ops; by default the embedded "
    "ones, which opgen's runtime is built from).",
    opts,
    og_input_opts,
    OG_INPUTS_TITLE,
    run};
