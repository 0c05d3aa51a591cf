/* OpenBLAS picks its kernels by the CPU's model number at load time; on a VM
 * whose CPUID names no model it falls back to Prescott (SSE3, ~15-30 GFLOP/s
 * here, a fifth of what the CPU can do), and the comparison would flatter opgen.
 * bench_openblas_core() names the core the CPU's features allow (SkylakeX with
 * AVX-512, Haswell with AVX2) in OPENBLAS_CORETYPE and runs the benchmark again
 * with it, unless the caller set one; and with OPENBLAS_NUM_THREADS=1, so that
 * no idle OpenBLAS thread spins on the core opgen's own threads run on (one
 * thread is what is compared; openblas_set_num_threads(1) comes after they
 * started). Include once, in the benchmark's main file. */
#ifndef OPGEN_BENCH_OPENBLAS_CORE_H
#define OPGEN_BENCH_OPENBLAS_CORE_H
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *bench_openblas_core(char **argv) {
#if defined(HAVE_OPENBLAS) && defined(__x86_64__) && defined(__linux__)
    const char *set = getenv("OPENBLAS_CORETYPE");
    if (set && *set) return set;
    if (!getenv("OPENBLAS_NUM_THREADS")) setenv("OPENBLAS_NUM_THREADS", "1", 1); /* for the run below */
    const char *core = __builtin_cpu_supports("avx512f") ? "SkylakeX" : __builtin_cpu_supports("avx2") ? "Haswell" : NULL;
    if (!core) return "(detected)";
    setenv("OPENBLAS_CORETYPE", core, 1);
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv); /* OpenBLAS read its environment when it was loaded */
    fprintf(stderr, "bench: could not re-run with OPENBLAS_CORETYPE=%s; OpenBLAS's own choice stands\n", core);
    return "(detected)";
#else
    (void)argv;
    return "(none)";
#endif
}
#endif
