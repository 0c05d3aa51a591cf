/* opgen-rt's commands (one file each) and what they share. */
#ifndef OPGEN_RT_CLI_H
#define OPGEN_RT_CLI_H
#include "opgen/cli.h"
#include "opgen/cliopt.h"
#include "opgen/exec.h"
#include "opgen/file.h"

extern const opgen_cmd opgen_rt_cmd_run, opgen_rt_cmd_print, opgen_rt_cmd_lower, opgen_rt_cmd_decompose, opgen_rt_cmd_verify;

/* The backends a runner passes (the ctx of every command's run). */
typedef struct opgen_rt_ctx {
    const opgen_vendor *const *vendors;
    int nvendors;
} opgen_rt_ctx;

/* Prints "file:line:col: error: message" and returns exit status 1. */
int opgen_rt_report(const opgen_error *err);
/* Reads and parses the program at path (with `pattern`, a backend-op pattern body),
 * then returns fn(a, ctx, graph, arena); 1 (reported) when it cannot be read. */
int opgen_rt_on_graph(const opgen_cli *a, const char *path, bool pattern, int (*fn)(const opgen_cli *a, void *ctx, const opgen_graph *g, opgen_arena *ar), void *ctx);
#endif
