/* Benchmark: the cost of resolving a kernel per (op, dtype), and the executor's
 * overhead per node. Built twice: against the embedded op set (with the runtime,
 * so the executor is measured too) and, with BENCH_SYNTHETIC, against a synthetic
 * set of thousands of ops (synth_ops.c), to show that resolution does not grow
 * with the number of registered ops. Prints medians.
 * usage: bench_registry [RUNS] */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef BENCH_SYNTHETIC
#define OPGEN_IMPLEMENTATION /* this program is the registry's one implementation TU */
#include "opgen/kernel.h"
#include "opgen_registry.h"
opgen_status bench_unary_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out) {
    (void)ctx, (void)self, (void)out;
    return OPGEN_OK;
}
#define SET_NAME "synthetic"
#else
#include "opgen/exec.h"
#define SET_NAME "embedded"
#endif

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

typedef struct query {
    const char *name;
    opgen_dtype dtype;
} query;

static volatile uintptr_t sink;

/* The ops of opgen's example programs: resolved in both op sets (synth_ops.c
 * declares them first), so the two figures compare like with like. */
static const char *const program_ops[] = {
    "aten::addmm",       "aten::permute_copy", "aten::relu",
    "aten::_softmax",    "aten::convolution",  "aten::_native_batch_norm_legit_no_training",
    "aten::hardtanh",    "aten::add.Tensor",   "aten::mean.dim",
    "aten::bmm",         "aten::mul.Scalar",   "aten::view_copy",
    "aten::expand_copy", "aten::clone",        "aten::mm",
    "aten::sigmoid"};
enum { NPROGRAM = sizeof program_ops / sizeof *program_ops };

/* One resolution as the loader does it: the node's name to an op id (perfect
 * hash + one strcmp), its out= variant, and the registry entry for the dtype. */
static double resolve_ns(const query *q, int nq, long iters, int runs) {
    double *t = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        uintptr_t acc = 0;
        double t0 = now_ns();
        for (long i = 0; i < iters; i++) {
            const query *x = &q[i % nq];
            int id = opgen_op_lookup(x->name);
            const opgen_kernel_entry *e = opgen_registry_find(opgen_ops[id].out_variant, x->dtype);
            acc += (uintptr_t)e;
        }
        t[r] = (now_ns() - t0) / (double)iters;
        sink += acc;
    }
    double m = median(t, runs);
    free(t);
    return m;
}

static double find_ns(const int *ids, const query *q, int nq, long iters, int runs) {
    double *t = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        uintptr_t acc = 0;
        double t0 = now_ns();
        for (long i = 0; i < iters; i++) acc += (uintptr_t)opgen_registry_find(ids[i % nq], q[i % nq].dtype);
        t[r] = (now_ns() - t0) / (double)iters;
        sink += acc;
    }
    double m = median(t, runs);
    free(t);
    return m;
}

static void bench_resolution(int runs) {
    /* every functional op with a kernel, at the first dtype its kernel takes */
    query *all = malloc(sizeof(query) * (OPGEN_OP_COUNT + 1));
    int *ids = malloc(sizeof(int) * (OPGEN_OP_COUNT + 1));
    int n = 0, nkernels = 0;
    for (int id = 0; id < OPGEN_OP_COUNT; id++) {
        nkernels += opgen_registry[id].fn != NULL;
        int out = opgen_ops[id].out_variant;
        if (opgen_ops[id].kind == OPGEN_KIND_OUT || out < 0 || !opgen_registry[out].fn) continue;
        uint32_t m = opgen_registry[out].dtypes;
        int d = 0;
        while (!(m >> d & 1u)) d++;
        all[n++] = (query){opgen_ops[id].qualified, (opgen_dtype)d};
    }
    uint64_t s = 88172645463325252ULL; /* a fixed shuffle: no sequential walk */
    for (int i = n - 1; i > 0; i--) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        int j = (int)(s % (uint64_t)(i + 1));
        query tmp = all[i];
        all[i] = all[j];
        all[j] = tmp;
    }
    for (int i = 0; i < n; i++) ids[i] = opgen_ops[opgen_op_lookup(all[i].name)].out_variant;
    query prog[NPROGRAM];
    int prog_ids[NPROGRAM];
    for (int i = 0; i < NPROGRAM; i++) {
        int id = opgen_op_lookup(program_ops[i]);
        if (id < 0 || opgen_ops[id].out_variant < 0 ||
            !opgen_registry_find(opgen_ops[id].out_variant, OPGEN_DTYPE_Float)) {
            printf("%s: no Float kernel in the %s op set\n", program_ops[i], SET_NAME);
            exit(1);
        }
        prog[i] = (query){program_ops[i], OPGEN_DTYPE_Float};
        prog_ids[i] = opgen_ops[id].out_variant;
    }
    long iters = 2000000;
    printf("%s op set: %d op ids, %d kernels, registry %zu bytes (%zu per op id)\n", SET_NAME, OPGEN_OP_COUNT, nkernels,
           sizeof opgen_registry[0] * OPGEN_REGISTRY_SIZE, sizeof opgen_registry[0]);
    printf("  resolve name -> op id -> kernel for Float, the %d ops of the example programs: %6.1f ns (median of %d)\n",
           NPROGRAM, resolve_ns(prog, NPROGRAM, iters, runs), runs);
    printf("  registry find (op id, dtype) alone, the same %d ops:                            %6.1f ns\n", NPROGRAM,
           find_ns(prog_ids, prog, NPROGRAM, iters, runs));
    printf("  resolve, all %5d ops with kernels in shuffled order (cache misses included):   %6.1f ns\n", n,
           resolve_ns(all, n, iters, runs));
    printf("  registry find alone, all %5d ops shuffled:                                      %6.1f ns\n", n,
           find_ns(ids, all, n, iters, runs));
    free(all);
    free(ids);
}

#ifndef BENCH_SYNTHETIC
/* The executor's cost per node beyond the kernel's own: a chain of N add.Tensor
 * nodes on 1-element tensors (argument binding, default alpha, dispatch through
 * the trampoline, memory plan), against calling the kernel N times directly. */
static void bench_executor(int runs) {
    enum { N = 1000 };
    size_t cap = 64 + (size_t)N * 48;
    char *text = malloc(cap);
    size_t len = (size_t)snprintf(text, cap, "graph(%%x0: f32[1]):\n");
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(text + len, cap - len, "  %%x%d = aten::add.Tensor(%%x%d, %%x0)\n", i, i - 1);
    len += (size_t)snprintf(text + len, cap - len, "  return %%x%d\n", N);
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_graph g;
    opgen_program *p = NULL;
    opgen_error err = {0};
    double *t_parse = malloc(sizeof(double) * (size_t)runs), *t_load = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) { /* load: bind, meta, Edge rows, kernel lookup, memory plan */
        opgen_arena_release(&a);
        opgen_arena_init_growing(&a);
        double t0 = now_ns();
        if (opgen_graph_parse("bench.graph", text, len, false, &a, &g, &err)) break;
        double t1 = now_ns();
        if (opgen_program_load(&g, &a, &p, &err)) break;
        t_parse[r] = (t1 - t0) / N;
        t_load[r] = (now_ns() - t1) / N;
    }
    if (err.code) {
        printf("executor: %s\n", err.msg);
        exit(1);
    }
    float x = 1.0f;
    int64_t one = 1;
    opgen_ivalue in = {.kind = OPGEN_GV_TENSOR}, out;
    opgen_tensor_shape(&in.t, OPGEN_DTYPE_Float, 1, &one, &err);
    in.t.data = &x;
    in.t.capacity = sizeof x;
    static uint8_t work_buf[1 << 20];
    double *t_run = malloc(sizeof(double) * (size_t)runs), *t_direct = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int k = 0; k < 20; k++) {
            opgen_arena work;
            opgen_arena_init(&work, work_buf, sizeof work_buf);
            if (opgen_program_run(p, &in, &work, &out, &err)) {
                printf("executor: %s\n", err.msg);
                exit(1);
            }
        }
        t_run[r] = (now_ns() - t0) / (20.0 * N);
    }
    /* the same additions, the kernel called directly on prepared tensors */
    float buf[N + 1];
    opgen_tensor ts[N + 1];
    for (int i = 0; i <= N; i++) {
        ts[i] = in.t;
        ts[i].data = &buf[i];
    }
    buf[0] = 1.0f;
    opgen_scalar alpha = {.dtype = OPGEN_DTYPE_Long, .v.i = 1};
    opgen_ctx ctx = {NULL, &err, "aten::add.Tensor", false, 0, false, -1, NULL, NULL, NULL, 0, NULL};
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int k = 0; k < 20; k++)
            for (int i = 1; i <= N; i++) opgen_portable_add_out(&ctx, &ts[i - 1], &ts[0], &alpha, &ts[i]);
        t_direct[r] = (now_ns() - t0) / (20.0 * N);
    }
    double run = median(t_run, runs), direct = median(t_direct, runs);
    printf("executor, a chain of %d add.Tensor nodes on f32[1] (median of %d):\n", N, runs);
    printf("  parse %.0f ns/node, load %.0f ns/node (bind, meta, Edge rows, kernel lookup, plan: %zu bytes)\n",
           median(t_parse, runs), median(t_load, runs), opgen_program_plan_bytes(p));
    printf("  run %.1f ns/node; the kernel called directly %.1f ns; executor overhead %.1f ns/node\n", run, direct,
           run - direct);
    if (*(float *)out.t.data != (float)(N + 1)) {
        printf("executor: the chain computed %g, not %d\n", (double)*(float *)out.t.data, N + 1);
        exit(1);
    }
    free(t_parse);
    free(t_load);
    free(t_run);
    free(t_direct);
    free(text);
    opgen_arena_release(&a);
}
#endif

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 15;
    if (runs < 1) runs = 1;
    bench_resolution(runs);
#ifndef BENCH_SYNTHETIC
    bench_executor(runs);
#endif
    return 0;
}
