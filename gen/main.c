/* opgen: a thin command-line shell over load -> model -> emit (one file per
 * command in gen/cli/). */
#include "cli/cmd.h"
#include "config.h"

static const opgen_cmd *const commands[] = {&og_cmd_check,  &og_cmd_list,     &og_cmd_dtypes,  &og_cmd_generate,
                                            &og_cmd_select, &og_cmd_skeleton, &og_cmd_coverage};

static const opgen_prog opgen = {
    "opgen", OPGEN_VERSION_STRING,
    "Turns operator definitions (native_functions.yaml, tags.yaml, edge.yaml, kernel yaml) into C registries. With no input flags, opgen uses its embedded default op set "
    "(yaml/ in its source).",
    commands, sizeof commands / sizeof *commands};

int main(int argc, char **argv) { return opgen_cli_main(&opgen, argc, argv, NULL); }
