/* The opgen command line: one file per command (cmd_*.c), each a table of its
 * options (opgen/cliopt.h) and a run function over the library modules. */
#ifndef OG_CMD_H
#define OG_CMD_H
#include "inputs.h"
#include "opgen/cliopt.h"

extern const opgen_cmd og_cmd_check, og_cmd_list, og_cmd_dtypes, og_cmd_generate, og_cmd_select, og_cmd_skeleton,
    og_cmd_coverage;

/* The input options every command takes (--native-functions, --tags, --edge,
 * --kernels, --backend-ops, --torchgen). */
extern const opgen_opt og_input_opts[];
#define OG_INPUTS_TITLE "inputs"

/* The inputs the command line names (pointers into argv; lists owned by `in`,
 * freed by og_cmd_finish). */
void og_inputs_from_args(const opgen_cli *a, og_inputs *in);
/* Loads the inputs into a fresh session; false (errors reported) on bad input. */
bool og_cmd_load(og_session *ss, const og_inputs *in);
/* Reports the session's error count, frees it (ss may be NULL) and the inputs;
 * returns rc. */
int og_cmd_finish(og_session *ss, og_inputs *in, int rc);
#endif
