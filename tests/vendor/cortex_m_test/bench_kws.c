/* Benchmark: one keyword-spotting inference (ExecuTorch's DS-CNN .pte for
 * Cortex-M) on the cortex_m backend's portable C kernels: the median time of a
 * run, its planned and load memory, beside the model's multiply-accumulates
 * (counted from the convolutions' and the linear layer's shapes in the program)
 * and what the run makes of them. No goal: the kernels are CMSIS-NN's reference
 * semantics in plain C, a baseline for a vendor's optimised ones.
 * usage: bench_kws [RUNS] CORPUS KWS_DIR */
#define _POSIX_C_SOURCE 200809L
#include "opgen/method.h"
#include "opgen/npy.h"
#include "cortex_m_kernels.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static _Alignas(16) unsigned char program[1 << 17];
static _Alignas(16) unsigned char load_mem[1 << 18], work_mem[1 << 16], io_mem[1 << 16];

static int64_t numel(const opgen_pte *p, const opgen_pte_plan *pl, int32_t v, int dim_of, int64_t *size) {
    opgen_pte_value x;
    opgen_error err = {0};
    if (v < 0 || opgen_pte_value_at(p, pl, (uint32_t)v, &x, &err) || x.kind != OPGEN_EV_TENSOR) return 0;
    int64_t n = 1;
    for (uint32_t d = 0; d < x.t.sizes.len; d++) n *= opgen_pte_i32(p, x.t.sizes, d);
    if (size)
        *size = dim_of >= 0 && (uint32_t)dim_of < x.t.sizes.len ? opgen_pte_i32(p, x.t.sizes, (uint32_t)dim_of) : 1;
    return n;
}

/* Multiply-accumulates of the method: per convolution and linear layer, the
 * output's elements times the weight's elements per output channel. */
static int64_t macs(const opgen_pte *p, const opgen_pte_plan *pl) {
    int64_t total = 0;
    opgen_error err = {0};
    for (uint32_t c = 0; c < pl->chains.len; c++) {
        opgen_pte_vec code;
        if (opgen_pte_chain_at(p, pl, c, &code, &err)) return -1;
        for (uint32_t k = 0; k < code.len; k++) {
            opgen_pte_instr in;
            const char *name, *ov;
            if (opgen_pte_instr_at(p, &code, k, &in, &err) || in.kind != OPGEN_INSTR_KERNEL ||
                opgen_pte_operator_at(p, pl, (uint32_t)in.a, &name, &ov, &err))
                continue;
            bool dw = strstr(name, "depthwise_conv2d") != NULL, conv = strstr(name, "conv2d") != NULL,
                 fc = strstr(name, "linear") != NULL;
            if (!conv && !fc) continue;
            int64_t cout = 1, w = numel(p, pl, opgen_pte_i32(p, in.args, 1), dw ? 3 : 0, &cout),
                    o = numel(p, pl, opgen_pte_i32(p, in.args, in.args.len - 1), -1, NULL);
            total += cout > 0 ? o * (w / cout) : 0;
        }
    }
    return total;
}

int main(int argc, char **argv) {
    int runs = argc > 3 ? atoi(argv[1]) : 21;
    if (argc < 3 || runs < 1) return fprintf(stderr, "usage: bench_kws [RUNS] CORPUS KWS_DIR\n"), 2;
    const char *corpus = argv[argc - 2], *dir = argv[argc - 1];
    char path[4096];
    snprintf(path, sizeof path, "%s/executorch/pte/keyword_spotting.pte", corpus);
    FILE *f = fopen(path, "rb");
    if (!f) return printf("SKIP: %s is absent\n", path), 77;
    size_t n = fread(program, 1, sizeof program, f);
    fclose(f);
    const opgen_vendor *vendors[] = {&opgen_vendor_cortex_m};
    opgen_load_options kernels = {.vendors = vendors, .nvendors = 1};
    opgen_method_options opt = {.kernels = &kernels};
    opgen_error err = {0};
    opgen_pte pte;
    opgen_pte_plan pl;
    opgen_method_memory mem;
    opgen_method *m = NULL;
    opgen_arena la, wa, io;
    double *t_run = calloc((size_t)runs, sizeof *t_run), *t_load = calloc((size_t)runs, sizeof *t_load);
    if (!t_run || !t_load || opgen_pte_open(&pte, program, n, path, &err) ||
        opgen_pte_plan_find(&pte, "forward", &pl, &err))
        return printf("FAIL: %s\n", err.msg), 1;
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        opgen_arena_init(&la, load_mem, sizeof load_mem);
        if (opgen_method_memory_of(&pte, "forward", &opt, &mem, &err) ||
            opgen_method_load(&pte, "forward", &opt, &la, &m, &err))
            return printf("FAIL: %s\n", err.msg), 1;
        t_load[r] = now_ns() - t0;
    }
    opgen_ivalue in = {.kind = OPGEN_GV_TENSOR}, out;
    opgen_arena_init(&io, io_mem, sizeof io_mem);
    snprintf(path, sizeof path, "%s/input1.npy", dir);
    if (opgen_npy_read(path, &io, &in.t, &err)) return printf("FAIL: %s\n", err.msg), 1;
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        opgen_arena_init(&wa, work_mem, sizeof work_mem);
        if (opgen_method_run(m, &in, &wa, &out, &err)) return printf("FAIL: %s\n", err.msg), 1;
        t_run[r] = now_ns() - t0;
    }
    qsort(t_run, (size_t)runs, sizeof *t_run, cmp);
    qsort(t_load, (size_t)runs, sizeof *t_load, cmp);
    int64_t mac = macs(&pte, &pl);
    double run = t_run[runs / 2];
    printf("bench_kws: keyword_spotting.pte on the cortex_m backend, medians of %d runs\n\n", runs);
    printf("| what | value |\n|---|---|\n");
    printf("| one inference | %.3f ms |\n", run / 1e6);
    printf("| load (memory query + load) | %.1f us |\n", t_load[runs / 2] / 1e3);
    printf("| multiply-accumulates | %.2f M (%.0f M MAC/s) |\n", (double)mac / 1e6, (double)mac / run * 1e3);
    printf(
        "| planned memory | %zu bytes |\n| load memory (planned included) | %zu bytes |\n| work memory of a run | %zu bytes |\n",
        mem.planned_bytes, mem.load_bytes, opgen_method_work_bytes(m));
    free(t_run);
    free(t_load);
    return 0;
}
