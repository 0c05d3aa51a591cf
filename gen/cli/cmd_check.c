/* opgen check: validate the inputs. */
#include "cmd.h"

static const opgen_opt opts[] = {{0}};

static int run(const opgen_cli *a, void *ctx) {
    (void)ctx;
    og_inputs in = {.want_edge = true};
    og_inputs_from_args(a, &in);
    og_session ss;
    bool ok = og_cmd_load(&ss, &in);
    return og_cmd_finish(&ss, &in, ok ? OPGEN_EXIT_OK : OPGEN_EXIT_BAD_INPUT);
}

const opgen_cmd og_cmd_check = {
    "check",
    "validate the inputs; silent on success",
    "Validates the inputs the way torchgen does, and stricter where torchgen is sloppy. Prints nothing on success; otherwise FILE:LINE:COL: error: MESSAGE, at most 20 errors.",
    opts,
    og_input_opts,
    OG_INPUTS_TITLE,
    run};
