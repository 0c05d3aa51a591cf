/* opgen-rt run --profile: where a program's time goes, per .pte instruction or
 * graph step, as ExecuTorch's ETDump summary tells it: the method's (program's)
 * probe hook timestamps each (the runtime reads no clock itself); after the timed
 * runs, each one's mean time, its share of the run, and for matrix products and
 * convolutions their FLOP rate. */
#include "cli.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double opgen_rt_now_ms(void) {
#ifdef CLOCK_MONOTONIC
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
#else /* bare metal: the C library's processor clock (semihosting's, on QEMU) */
    return (double)clock() * 1e3 / CLOCKS_PER_SEC;
#endif
}

static int ascending(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double opgen_rt_median(double *v, long n) {
    qsort(v, (size_t)n, sizeof *v, ascending);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void opgen_rt_profile_probe(void *user, int k, int phase) {
    opgen_rt_profile *pr = user;
    if (!pr->ms || k < 0 || k >= pr->n) return;
    if (!phase) {
        pr->t0 = opgen_rt_now_ms();
        return;
    }
    pr->ms[k] += opgen_rt_now_ms() - pr->t0;
    if (pr->runs == 1) pr->flops[k] = pr->flops_of(pr->prog, k); /* shapes of a run */
}

static opgen_status begin(opgen_rt_profile *pr, int n, const char *unit, const void *prog,
                          double (*flops_of)(const void *, int), opgen_arena *ar) {
    pr->n = n, pr->unit = unit, pr->prog = prog, pr->flops_of = flops_of, pr->runs = 0, pr->run_ms = 0;
    pr->ms = opgen_arena_zalloc(ar, sizeof(double) * (size_t)(n + 1));
    pr->flops = opgen_arena_zalloc(ar, sizeof(double) * (size_t)(n + 1));
    pr->order = opgen_arena_zalloc(ar, sizeof(int) * (size_t)(n + 1));
    pr->names = opgen_arena_zalloc(ar, sizeof(char *) * (size_t)(n + 1));
    return pr->ms && pr->flops && pr->order && pr->names ? OPGEN_OK : OPGEN_E_NO_MEMORY;
}

/* A .pte method's instructions */
static double method_flops(const void *m, int k) { return opgen_method_instruction_flops(m, k); }
typedef struct naming { /* names in the order the probe numbers them */
    opgen_rt_profile *pr;
    int k;
} naming;
static void name(naming *nm, const char *op) {
    if (nm->k < nm->pr->n) nm->pr->names[nm->k++] = op;
}
static void instruction_name(void *ctx, const opgen_instr_info *in) {
    name(ctx, in->op ? in->op : opgen_instr_kind_name(in->kind));
}
opgen_status opgen_rt_profile_begin_method(opgen_rt_profile *pr, opgen_method *m, opgen_arena *ar) {
    opgen_status st = begin(pr, opgen_method_ninstructions(m), "instructions", m, method_flops, ar);
    naming nm = {pr, 0};
    if (!st) opgen_method_instructions(m, instruction_name, &nm);
    return st;
}

/* A graph program's steps (its nodes, in order) */
static double step_flops(const void *p, int k) { return opgen_program_step_flops(p, k); }
static void step_name(void *ctx, const opgen_gnode *node, const char *kernel, const char *origin) {
    (void)kernel, (void)origin;
    name(ctx, node->op);
}
opgen_status opgen_rt_profile_begin_program(opgen_rt_profile *pr, opgen_program *p, opgen_arena *ar) {
    opgen_status st = begin(pr, opgen_program_nsteps(p), "steps", p, step_flops, ar);
    naming nm = {pr, 0};
    if (!st) opgen_program_kernels(p, step_name, &nm);
    return st;
}

static const opgen_rt_profile *sorting;
static int by_time(const void *x, const void *y) {
    double a = sorting->ms[*(const int *)x], b = sorting->ms[*(const int *)y];
    return (a < b) - (a > b);
}

/* The instructions (steps) by time, largest first (those under 0.1% of the run summed). */
void opgen_rt_profile_print(opgen_rt_profile *pr) {
    double total = 0;
    if (!pr->runs) return;
    for (int k = 0; k < pr->n; k++) total += pr->ms[k], pr->order[k] = k;
    sorting = pr;
    qsort(pr->order, (size_t)pr->n, sizeof(int), by_time);
    double runs = pr->runs, rest = 0;
    printf("profile: %d runs, %.3f ms a run; its %s %.3f ms (%.1f%% of the run)\n", pr->runs, pr->run_ms / runs,
           pr->unit, total / runs, pr->run_ms > 0 ? 100 * total / pr->run_ms : 0);
    printf("  %5s  %-40s %10s %7s %9s\n", pr->unit[0] == 'i' ? "instr" : "step", "operator", "ms", "share", "GFLOP/s");
    for (int i = 0; i < pr->n; i++) {
        int k = pr->order[i];
        double ms = pr->ms[k] / runs, share = total > 0 ? 100 * pr->ms[k] / total : 0;
        if (share < 0.1) {
            rest += ms;
            continue;
        }
        printf("  %5d  %-40s %10.4f %6.1f%%", k, pr->names[k] ? pr->names[k] : "?", ms, share);
        if (pr->flops[k] > 0 && ms > 0) printf(" %9.2f", pr->flops[k] / (ms * 1e6));
        printf("\n");
    }
    if (rest > 0) printf("  %5s  %-40s %10.4f\n", "", "(the others, each under 0.1%)", rest);
}

int opgen_rt_repeat(const opgen_cli *a, const char *what, int32_t (*run)(void *ctx, opgen_error *err), void *ctx,
                    opgen_rt_profile *prof, opgen_arena *ar) {
    const char *s = opgen_cli_get(a, "--repeat");
    if (!s && !prof) return OPGEN_EXIT_OK;
    long n = s ? atol(s) : 10;
    double *ms = opgen_arena_alloc(ar, sizeof(double) * (size_t)n);
    if (!ms) return fputs("opgen-rt: out of memory\n", stderr), OPGEN_EXIT_BAD_INPUT;
    opgen_error err = {0};
    for (long r = 0; r < n; r++) {
        if (prof) prof->runs++;
        double t0 = opgen_rt_now_ms();
        opgen_status st = run(ctx, &err);
        ms[r] = opgen_rt_now_ms() - t0;
        if (st) return opgen_rt_report(&err);
        if (prof) prof->run_ms += ms[r];
    }
    double med = opgen_rt_median(ms, n);
    if (s) printf("timing: %s %ld more times: median %.3f ms, min %.3f ms\n", what, n, med, ms[0]);
    if (prof) opgen_rt_profile_print(prof);
    return OPGEN_EXIT_OK;
}
