/* opgen-rt run --profile: where a .pte method's time goes, per instruction, as
 * ExecuTorch's ETDump summary tells it: the method's probe hook timestamps each
 * instruction (the runtime reads no clock itself); after the timed runs, each
 * instruction's mean time, its share of the run, and for matrix products and
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

void opgen_rt_profile_probe(void *user, int instruction, int phase) {
    opgen_rt_profile *pr = user;
    if (!pr->ms || instruction < 0 || instruction >= pr->n) return;
    if (!phase) {
        pr->t0 = opgen_rt_now_ms();
        return;
    }
    pr->ms[instruction] += opgen_rt_now_ms() - pr->t0;
    if (pr->runs == 1) pr->flops[instruction] = opgen_method_instruction_flops(pr->m, instruction); /* shapes of a run */
}

int32_t opgen_rt_profile_begin(opgen_rt_profile *pr, opgen_method *m, opgen_arena *ar) {
    int n = opgen_method_ninstructions(m);
    pr->m = m, pr->n = n, pr->runs = 0, pr->run_ms = 0;
    pr->ms = opgen_arena_zalloc(ar, sizeof(double) * (size_t)(n + 1));
    pr->flops = opgen_arena_zalloc(ar, sizeof(double) * (size_t)(n + 1));
    pr->order = opgen_arena_zalloc(ar, sizeof(int) * (size_t)(n + 1));
    return pr->ms && pr->flops && pr->order ? OPGEN_OK : OPGEN_E_NO_MEMORY;
}

static const opgen_rt_profile *sorting;
static int by_time(const void *x, const void *y) {
    double a = sorting->ms[*(const int *)x], b = sorting->ms[*(const int *)y];
    return (a < b) - (a > b);
}

typedef struct names {
    const char **op;
    int n;
} names;
static void name_of(void *ctx, const opgen_instr_info *in) {
    names *nm = ctx;
    if (nm->n >= 0) nm->op[nm->n++] = in->op ? in->op : opgen_instr_kind_name(in->kind);
}

/* The instructions by time, largest first (those under 0.1% of the run summed). */
void opgen_rt_profile_print(opgen_rt_profile *pr, opgen_arena *ar) {
    double total = 0;
    for (int k = 0; k < pr->n; k++) total += pr->ms[k], pr->order[k] = k;
    names nm = {opgen_arena_zalloc(ar, sizeof(char *) * (size_t)(pr->n + 1)), 0};
    if (!nm.op || !pr->runs) return;
    opgen_method_instructions(pr->m, name_of, &nm);
    sorting = pr;
    qsort(pr->order, (size_t)pr->n, sizeof(int), by_time);
    double runs = pr->runs, rest = 0;
    printf("profile: %d runs, %.3f ms a run; its instructions %.3f ms (%.1f%% of the run)\n", pr->runs, pr->run_ms / runs, total / runs, pr->run_ms > 0 ? 100 * total / pr->run_ms : 0);
    printf("  %5s  %-40s %10s %7s %9s\n", "instr", "operator", "ms", "share", "GFLOP/s");
    for (int i = 0; i < pr->n; i++) {
        int k = pr->order[i];
        double ms = pr->ms[k] / runs, share = total > 0 ? 100 * pr->ms[k] / total : 0;
        if (share < 0.1) {
            rest += ms;
            continue;
        }
        printf("  %5d  %-40s %10.4f %6.1f%%", k, nm.op[k], ms, share);
        if (pr->flops[k] > 0 && ms > 0) printf(" %9.2f", pr->flops[k] / (ms * 1e6));
        printf("\n");
    }
    if (rest > 0) printf("  %5s  %-40s %10.4f\n", "", "(the others, each under 0.1%)", rest);
}
