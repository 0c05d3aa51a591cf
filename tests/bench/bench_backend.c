/* Benchmark: quantized_decomposed::add, the native kernel against the fallback
 * (its pattern on the core kernels: two dequantizes, an add and a quantize, with
 * three float temporaries). Prints medians, ns per element and the speedup.
 * usage: bench_backend [RUNS] */
#define _POSIX_C_SOURCE 200809L
#include "opgen/kernel.h"
#include "opgen_registry.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef opgen_status (*qadd_fn)(opgen_ctx *, const opgen_tensor *, double, int64_t, int64_t, int64_t,
                                const opgen_tensor *, double, int64_t, int64_t, int64_t, double, int64_t, int64_t,
                                int64_t, opgen_tensor *);

static double time_ns(qadd_fn fn, const opgen_tensor *a, const opgen_tensor *b, opgen_tensor *out, int reps, int runs) {
    double *t = malloc(sizeof(double) * (size_t)runs);
    opgen_arena arena;
    opgen_arena_init_growing(&arena);
    opgen_error err = {0};
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int k = 0; k < reps; k++) {
            opgen_arena_mark m = opgen_arena_save(&arena);
            opgen_ctx ctx = {&arena, &err, "quantized_decomposed::add", false, 0, false, -1, NULL, NULL, NULL, 0, NULL};
            if (fn(&ctx, a, 0.05, 128, 0, 255, b, 0.03, 120, 0, 255, 0.07, 125, 0, 255, out)) {
                printf("bench_backend: %s\n", err.msg);
                exit(1);
            }
            opgen_arena_restore(&arena, m); /* the fallback's temporaries */
        }
        t[r] = (now_ns() - t0) / reps;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    double m = t[runs / 2];
    free(t);
    opgen_arena_release(&arena);
    return m;
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 15;
    if (runs < 1) runs = 1;
    static const int64_t counts[] = {1024, 65536, 1 << 20};
    printf("quantized_decomposed::add on uint8, native kernel vs fallback (median of %d):\n", runs);
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        int64_t n = counts[c];
        opgen_error err = {0};
        opgen_tensor a, b, o1, o2;
        opgen_tensor_shape(&a, OPGEN_DTYPE_Byte, 1, &n, &err);
        b = o1 = o2 = a;
        uint8_t *buf = malloc((size_t)n * 4);
        a.data = buf, b.data = buf + n, o1.data = buf + 2 * n, o2.data = buf + 3 * n;
        a.capacity = b.capacity = o1.capacity = o2.capacity = (size_t)n;
        for (int64_t i = 0; i < n; i++) buf[i] = (uint8_t)(i * 37), buf[n + i] = (uint8_t)(i * 101 + 7);
        int reps = n >= (1 << 20) ? 4 : n >= 65536 ? 40 : 2000;
        double nat = time_ns(opgen_native_quantized_add_out, &a, &b, &o1, reps, runs),
               fb = time_ns(opgen_fallback_quantized_decomposed_add_out, &a, &b, &o2, reps, runs);
        int same = 1;
        for (int64_t i = 0; i < n; i++) same &= buf[2 * n + i] == buf[3 * n + i];
        printf("  %8lld elements: native %9.0f ns (%.2f ns/elem), fallback %10.0f ns (%.2f ns/elem): %.1fx%s\n",
               (long long)n, nat, nat / (double)n, fb, fb / (double)n, fb / nat, same ? "" : "  (RESULTS DIFFER)");
        free(buf);
        if (!same) return 1;
    }
    return 0;
}
