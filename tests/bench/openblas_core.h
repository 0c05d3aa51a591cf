/* OpenBLAS picks its kernels by the CPU's model number at load time; on a VM
 * whose CPUID names no model it falls back to Prescott (SSE3, ~15-30 GFLOP/s
 * here, a fifth of what the CPU can do), and the comparison would flatter opgen.
 * bench_openblas_core() names the core the CPU's features allow (SkylakeX with
 * AVX-512, Haswell with AVX2) in OPENBLAS_CORETYPE and runs the benchmark again
 * with it, with OPENBLAS_NUM_THREADS=1, so that no idle OpenBLAS thread spins on
 * the core opgen's own threads run on (one thread is what is compared;
 * openblas_set_num_threads(1) comes after they started). An OPENBLAS_CORETYPE
 * already set is replaced, and said so: some machines set Haswell for every
 * process, which on a CPU with full-width AVX-512 halves the peer (seen on an
 * AMD EPYC Zen 5 VM, 2026-11-28: sgemm 256^3 at 121 against 222 GFLOP/s).
 * OPGEN_BENCH_OPENBLAS_CORE=NAME chooses another core on purpose. Include once,
 * in the benchmark's main file. */
#ifndef OPGEN_BENCH_OPENBLAS_CORE_H
#define OPGEN_BENCH_OPENBLAS_CORE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *bench_openblas_core(char **argv) {
#if defined(HAVE_OPENBLAS) && defined(__x86_64__) && defined(__linux__)
    const char *set = getenv("OPENBLAS_CORETYPE"), *want = getenv("OPGEN_BENCH_OPENBLAS_CORE");
    const char *core = want && *want                       ? want
                       : __builtin_cpu_supports("avx512f") ? "SkylakeX"
                       : __builtin_cpu_supports("avx2")    ? "Haswell"
                                                           : NULL;
    if (!core) return set && *set ? set : "(detected)";
    const char *threads = getenv("OPENBLAS_NUM_THREADS");
    if (set && !strcmp(set, core) && threads && !strcmp(threads, "1")) return set; /* this is the run with both */
    if (set && *set && strcmp(set, core))
        fprintf(stderr, "bench: OPENBLAS_CORETYPE=%s replaced by %s, %s (OPGEN_BENCH_OPENBLAS_CORE=%s keeps it)\n", set,
                core, want && *want ? "as OPGEN_BENCH_OPENBLAS_CORE says" : "the CPU's best", set);
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
