/* opgen-rt's commands (one file each) and what they share. */
#ifndef OPGEN_RT_CLI_H
#define OPGEN_RT_CLI_H
#include "opgen/cli.h"
#include "opgen/cliopt.h"
#include "opgen/exec.h"
#include "opgen/file.h"
#include "opgen/loops.h"
#include "opgen/method.h"

extern const opgen_cmd opgen_rt_cmd_run, opgen_rt_cmd_info, opgen_rt_cmd_print, opgen_rt_cmd_lower,
    opgen_rt_cmd_decompose, opgen_rt_cmd_verify, opgen_rt_cmd_compare, opgen_rt_cmd_generate;

/* The backends a runner passes (the ctx of every command's run). */
typedef struct opgen_rt_ctx {
    const opgen_vendor *const *vendors;
    int nvendors;
    const opgen_parallel *parallel; /* run --threads: the pool kernels split across, or NULL */
} opgen_rt_ctx;

/* Prints "file:line:col: error: message" and returns exit status 1. */
int opgen_rt_report(const opgen_error *err);
typedef int (*opgen_rt_graph_fn)(const opgen_cli *a, void *ctx, const opgen_graph *g, opgen_arena *ar);
typedef int (*opgen_rt_pte_fn)(const opgen_cli *a, void *ctx, const opgen_pte *p, opgen_arena *ar);
/* Reads the program at path: an ExecuTorch .pte goes to pte_fn, or, when that is
 * NULL, becomes graph text (its method, --method or the default: constants as
 * inputs) for graph_fn; graph text (with `pattern`, a backend-op pattern body) is
 * parsed for graph_fn. Returns what the function returns; 1 (reported) when the
 * program cannot be read. */
int opgen_rt_on_program(const opgen_cli *a, const char *path, bool pattern, opgen_rt_graph_fn graph_fn,
                        opgen_rt_pte_fn pte_fn, void *ctx);
int opgen_rt_on_graph(const opgen_cli *a, const char *path, bool pattern, opgen_rt_graph_fn fn, void *ctx);

/* A scalar input from its text: an int, a float, or True/False (gv->kind says which). */
bool opgen_rt_scalar_input(const opgen_gvalue *gv, const char *val, opgen_ivalue *v);
/* A float32 .npy given for a BFloat16 or Half input (numpy has no bfloat16):
 * t converted in a copy, rounded to nearest even; false when out of memory. */
bool opgen_rt_narrow_input(opgen_tensor *t, opgen_dtype want, opgen_arena *ar);
/* DIR/PREFIX0.npy, DIR/PREFIX1.npy, ...: values (a scalar as a 0-d array; a tensor in another
 * dim order copied into logical order first, from ar). */
int opgen_rt_write_outputs(const char *dir, const char *prefix, opgen_ivalue *outputs, int n, opgen_arena *ar);

/* run --profile (cli_profile.c): per-instruction (per-step) times through the
 * method's (graph program's) probe. */
typedef struct opgen_rt_profile {
    const void *prog;                            /* the method or the graph program */
    double (*flops_of)(const void *prog, int k); /* of the last run's shapes */
    const char **names, *unit;                   /* each one's operator; "instructions" or "steps" */
    int n, runs;
    double t0, run_ms, *ms, *flops;
    int *order;
} opgen_rt_profile;
void opgen_rt_profile_probe(void *user, int k, int phase);
opgen_status opgen_rt_profile_begin_method(opgen_rt_profile *pr, opgen_method *m, opgen_arena *ar);
opgen_status opgen_rt_profile_begin_program(opgen_rt_profile *pr, opgen_program *p, opgen_arena *ar);
void opgen_rt_profile_print(opgen_rt_profile *pr);
/* --repeat N (10 with --profile alone): run(ctx) N more times, timed in process;
 * prints "timing: WHAT N more times: median, min" (with --repeat) and the profile
 * (with --profile, begun by the caller). */
int opgen_rt_repeat(const opgen_cli *a, const char *what, int32_t (*run)(void *ctx, opgen_error *err), void *ctx,
                    opgen_rt_profile *prof, opgen_arena *ar);
/* The monotonic clock in ms, and the median of n times (sorting them: v[0] is then the fastest). */
double opgen_rt_now_ms(void);
double opgen_rt_median(double *v, long n);

/* .pte programs: the method a command means (--method, or the only one, or
 * forward); loading it into exactly the memory opgen_method_memory_of reports;
 * running it on --input POSITION=VALUE. */
const char *opgen_rt_method_name(const opgen_cli *a, const opgen_pte *p);
opgen_status opgen_rt_load_method(const opgen_pte *p, const char *name, const opgen_rt_ctx *ctx, bool fallbacks,
                                  uint64_t seed, opgen_rt_profile *profile, opgen_arena *ar, opgen_method **m,
                                  opgen_error *err);
/* run's --seed into *seed (0 when not given), or a usage error's exit status */
int opgen_rt_seed(const opgen_cli *a, uint64_t *seed);
/* run's --repeat: 0 when absent or a count from 1 to 1000000, else a usage error's exit status */
int opgen_rt_repeat_count(const opgen_cli *a);
int opgen_rt_run_pte(const opgen_cli *a, const opgen_rt_ctx *ctx, const opgen_pte *p, opgen_arena *ar);

#endif
