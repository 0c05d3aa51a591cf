/* What every opgen command shares: the input options and the session around a run. */
#include "cmd.h"
#include <stdlib.h>

const opgen_opt og_input_opts[] = {
    {"--native-functions", NULL, "F", OPGEN_OPT_FILE, "yaml", 0, NULL,
     "native_functions.yaml to read (default: embedded)"},
    {"--tags", NULL, "T", OPGEN_OPT_FILE, "yaml", 0, NULL, "tags.yaml (default: tags.yaml beside F, else embedded)"},
    {"--kernels", NULL, "K", OPGEN_OPT_FILE, "yaml", OPGEN_OPT_REPEAT, NULL,
     "a kernel yaml in ExecuTorch's format (op:/func: entries with kernels:); func: entries declare custom ops (default: the embedded ones when the other inputs are embedded)"},
    {"--backend-ops", NULL, "B", OPGEN_OPT_FILE, "yaml", OPGEN_OPT_REPEAT, NULL,
     "a backend-op yaml (schemas with their patterns or builtins); with the embedded op set, added to its backend ops"},
    {"--vendor-ops", NULL, "V", OPGEN_OPT_FILE, "yaml", OPGEN_OPT_REPEAT, NULL,
     "a vendor's kernel yaml (ExecuTorch's format) whose func: entries join the op set: their schemas and op ids reach the tables a vendor's runtime is built with, while their kernels stay in the vendor's own table (opgen skeleton's)"},
    {"--edge", NULL, "E", OPGEN_OPT_FILE, "yaml", 0, NULL,
     "edge.yaml dtype constraints (default: the embedded one when the other inputs are embedded)"},
    {"--torchgen", NULL, "V", OPGEN_OPT_TEXT, "1.13|2.6|2.14", 0, "torchgen release",
     "follow the rules of torchgen V: 1.13, 2.6 or 2.14 (default: from the tags the tags file declares: 'out' 2.14, 'pt2_compliant_tag' 2.6, else 1.13)"},
    {0},
};

/* All the values of a repeatable option, as an array (owned by the caller). */
static const char *const *all_of(const opgen_cli *a, const char *name, unsigned *n) {
    *n = (unsigned)opgen_cli_count(a, name);
    const char **v = og_xcalloc(*n + 1, sizeof *v);
    for (unsigned i = 0; i < *n; i++) v[i] = opgen_cli_nth(a, name, (int)i);
    return v;
}

void og_inputs_from_args(const opgen_cli *a, og_inputs *in) {
    in->native_functions = opgen_cli_get(a, "--native-functions");
    in->tags = opgen_cli_get(a, "--tags");
    in->edge = opgen_cli_get(a, "--edge");
    const char *v = opgen_cli_get(a, "--torchgen");
    in->torchgen = v ? og_dialect_find(v) : NULL;
    in->kernels = all_of(a, "--kernels", &in->nkernels);
    in->backend_ops = all_of(a, "--backend-ops", &in->nbackend_ops);
    in->vendor_ops = all_of(a, "--vendor-ops", &in->nvendor_ops);
}

bool og_cmd_load(og_session *ss, const og_inputs *in) {
    og_session_init(ss, stderr);
    return og_session_load(ss, in);
}

int og_cmd_finish(og_session *ss, og_inputs *in, int rc) {
    if (ss) {
        diag_finish(&ss->d);
        og_session_free(ss);
    }
    free((void *)in->kernels);
    free((void *)in->backend_ops);
    free((void *)in->vendor_ops);
    return rc;
}
