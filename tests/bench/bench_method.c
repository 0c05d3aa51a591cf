/* Benchmark: .pte methods. A program of N add.out instructions on f32[1]
 * tensors (built with the suite's writer), each adding a constant to the
 * previous result in a planned buffer: load time per instruction (the memory
 * query, then load: reading, binding, meta steps, Edge rows), run time per
 * instruction against the same kernel called directly on the same tensors (the
 * executor's overhead, the median of paired differences; goal: at most 20 ns),
 * program's non_const_buffer_sizes. With the corpus, ExecuTorch's exported mlp
 * and small_cnn loaded and run. Medians of RUNS; exits 1 when a goal is missed
 * (unless --no-check).
 * usage: bench_method [RUNS [CORPUS_DIR] [--no-check]] */
#define _POSIX_C_SOURCE 200809L
#include "opgen/method.h"
#include "opgen/npy.h"
#include "../pte/ptew.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N = 1000 };

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

/* values: 0 the input, 1 the constant, 2 alpha, 3.. the results (planned, 64 bytes apart) */
static uint8_t *chain_program(size_t *len) {
    static pw_value v[N + 3];
    static pw_instr code[N];
    static const float one = 1.0f;
    static const int32_t s1[] = {1};
    v[0] = pw_tensor(6, 1, s1, 1, 0, 0);
    v[1] = pw_tensor(6, 1, s1, 0, 0, 1);
    v[2] = pw_int(1);
    for (int i = 0; i < N; i++) {
        v[3 + i] = pw_tensor(6, 1, s1, 1, 64 * (uint64_t)(1 + i % 2), 0);
        code[i] = (pw_instr){PW_KERNEL, 0, 0, 5, {i ? 2 + i : 0, 1, 2, 3 + i, 3 + i}};
    }
    static pw_plan pl;
    pl = (pw_plan){.name = "forward",
                   .values = v,
                   .nvalues = N + 3,
                   .inputs = {0},
                   .ninputs = 1,
                   .outputs = {N + 2},
                   .noutputs = 1,
                   .ops = {{"aten::add", "out"}},
                   .nops = 1,
                   .code = code,
                   .ncode = N,
                   .buffers = {0, 192},
                   .nbuffers = 2};
    pw_program prog = {.plans = &pl, .nplans = 1, .constants = {&one}, .constant_sizes = {sizeof one}, .nconstants = 1};
    size_t n;
    uint8_t *b = pw_build(&prog, &n), *a = aligned_alloc(16, (n + 15) & ~(size_t)15);
    memcpy(a, b, n);
    free(b);
    *len = n;
    return a;
}

static int goals, missed;

static void chain(int runs) {
    size_t n;
    uint8_t *bytes = chain_program(&n);
    opgen_pte p;
    opgen_error err = {0};
    opgen_method_memory mem;
    if (opgen_pte_open(&p, bytes, n, "chain.pte", &err) || opgen_method_memory_of(&p, "forward", NULL, &mem, &err))
        printf("bench_method: %s\n", err.msg), exit(1);
    void *lm = aligned_alloc(16, (mem.load_bytes + 15) & ~(size_t)15);
    double *t_load = calloc((size_t)runs, sizeof(double)), *t_run = calloc((size_t)runs, sizeof(double)),
           *t_direct = calloc((size_t)runs, sizeof(double));
    opgen_method *m = NULL;
    for (int r = 0; r < runs; r++) {
        opgen_arena a;
        opgen_arena_init(&a, lm, mem.load_bytes);
        double t0 = now_ns();
        if (opgen_method_memory_of(&p, "forward", NULL, &mem, &err) ||
            opgen_method_load(&p, "forward", NULL, &a, &m, &err))
            printf("bench_method: %s\n", err.msg), exit(1);
        t_load[r] = (now_ns() - t0) / N;
    }
    static _Alignas(16) uint8_t work_mem[4096];
    float x = 1.0f;
    opgen_ivalue in = {0}, out;
    in.kind = OPGEN_GV_TENSOR;
    opgen_tensor_shape(&in.t, OPGEN_DTYPE_Float, 1, (int64_t[]){1}, &err);
    in.t.data = &x;
    /* the same additions, the kernel called directly on prepared tensors (one per
     * result, as the method has, their data in two planned places) */
    static opgen_tensor ts[N + 2];
    float buf[3] = {1, 1, 0};
    for (int i = 0; i < N + 2; i++) ts[i] = in.t, ts[i].data = &buf[i < 2 ? i : 2 + i % 2 - 1], ts[i].capacity = 4;
    opgen_scalar alpha = {.dtype = OPGEN_DTYPE_Long, .v.i = 1};
    opgen_ctx ctx = {NULL, &err, "aten::add.out", false, 0, false, -1, NULL, NULL, NULL, 0, NULL};
    /* paired samples: the method's run, then the direct calls, right after; the
     * overhead is the median of their differences (a shared VM's drift cancels) */
    double *t_over = calloc((size_t)runs, sizeof(double));
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int k = 0; k < 20; k++) {
            opgen_arena w;
            opgen_arena_init(&w, work_mem, sizeof work_mem);
            if (opgen_method_run(m, &in, &w, &out, &err)) printf("bench_method: %s\n", err.msg), exit(1);
        }
        t_run[r] = (now_ns() - t0) / (20.0 * N);
        t0 = now_ns();
        for (int k = 0; k < 20; k++)
            for (int i = 0; i < N; i++) opgen_portable_add_out(&ctx, &ts[i ? i + 1 : 0], &ts[1], &alpha, &ts[i + 2]);
        t_direct[r] = (now_ns() - t0) / (20.0 * N);
        t_over[r] = t_run[r] - t_direct[r];
    }
    if (*(float *)out.t.data != (float)(N + 1))
        printf("bench_method: the chain computed %g, not %d\n", (double)*(float *)out.t.data, N + 1), exit(1);
    double run = median(t_run, runs), direct = median(t_direct, runs), over = median(t_over, runs);
    size_t declared = 0;
    opgen_pte_plan pl;
    opgen_pte_plan_at(&p, 0, &pl, &err);
    for (uint32_t b = 1; b < pl.buffer_sizes.len; b++) declared += (size_t)opgen_pte_i64(&p, pl.buffer_sizes, b);
    printf("| a chain of %d add.out on f32[1] | |\n|---|---|\n", N);
    printf("| load (memory query + load), per instruction | %.0f ns |\n", median(t_load, runs));
    printf("| load memory, per instruction | %zu bytes |\n", mem.load_bytes / N);
    printf("| run, per instruction | %.1f ns |\n", run);
    printf("| the kernel called directly | %.1f ns |\n", direct);
    printf("| executor overhead per instruction (goal <= 20 ns) | %.1f ns %s |\n", over,
           over <= 20 ? "(met)" : "(MISSED)");
    printf("| planned memory / the program's non_const_buffer_sizes | %zu / %zu bytes |\n", mem.planned_bytes,
           declared);
    goals += 2;
    missed += over > 20;
    missed += mem.planned_bytes != declared;
    free(t_load), free(t_run), free(t_direct), free(t_over), free(lm), free(bytes);
}

static void corpus_program(const char *dir, const char *name, int runs) {
    char path[4096];
    snprintf(path, sizeof path, "%s/exir/%s/model.pte", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return;
    static _Alignas(16) uint8_t data[1 << 16];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    opgen_pte p;
    opgen_error err = {0};
    opgen_method_memory mem;
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_ivalue in, out[4];
    snprintf(path, sizeof path, "%s/exir/%s/inputs/0_0.npy", dir, name);
    in.kind = OPGEN_GV_TENSOR;
    if (opgen_pte_open(&p, data, n, name, &err) || opgen_method_memory_of(&p, "forward", NULL, &mem, &err) ||
        opgen_npy_read(path, &a, &in.t, &err))
        printf("bench_method: %s: %s\n", name, err.msg), exit(1);
    void *lm = aligned_alloc(16, (mem.load_bytes + 15) & ~(size_t)15), *wm = NULL;
    double *t_load = calloc((size_t)runs, sizeof(double)), *t_run = calloc((size_t)runs, sizeof(double));
    opgen_method *m = NULL;
    for (int r = 0; r < runs; r++) {
        opgen_arena la;
        opgen_arena_init(&la, lm, mem.load_bytes);
        double t0 = now_ns();
        if (opgen_method_load(&p, "forward", NULL, &la, &m, &err))
            printf("bench_method: %s: %s\n", name, err.msg), exit(1);
        t_load[r] = (now_ns() - t0) / 1e3;
    }
    wm = aligned_alloc(16, (opgen_method_work_bytes(m) + 15) & ~(size_t)15);
    for (int r = 0; r < runs; r++) {
        opgen_arena w;
        opgen_arena_init(&w, wm, opgen_method_work_bytes(m));
        double t0 = now_ns();
        if (opgen_method_run(m, &in, &w, out, &err)) printf("bench_method: %s: %s\n", name, err.msg), exit(1);
        t_run[r] = (now_ns() - t0) / 1e3;
    }
    printf("| exir/%s | load %.1f us (%zu bytes, %zu planned) | run %.1f us |\n", name, median(t_load, runs),
           mem.load_bytes, mem.planned_bytes, median(t_run, runs));
    free(t_load), free(t_run), free(lm), free(wm);
    opgen_arena_release(&a);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 15;
    if (runs < 1 || runs > 1000) runs = 15;
    bool check = !(argc > 2 && !strcmp(argv[argc - 1], "--no-check"));
    const char *corpus = argc > 2 && strcmp(argv[2], "--no-check") ? argv[2] : NULL;
    printf("bench_method: medians of %d runs\n\n", runs);
    chain(runs);
    if (corpus) {
        printf("\n| ExecuTorch's exported programs | load | run |\n|---|---|---|\n");
        corpus_program(corpus, "mlp", runs);
        corpus_program(corpus, "small_cnn", runs);
    }
    printf("\nbench_method: %d of %d goals met%s\n", goals - missed, goals, check ? "" : " (not checked: --no-check)");
    return check && missed ? 1 : 0;
}
