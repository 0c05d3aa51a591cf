/* Work a kernel splits across threads. The runtime starts no thread itself: an
 * application gives a load its scheduler as an opgen_parallel (opgen/pool.h is a
 * small POSIX-threads one; an application with its own pool wraps that), and
 * kernels split their work into parts through it. Without one (NULL, or one
 * thread) every part runs inline, in order. Parts split the outputs, never a sum:
 * each element is computed by one part in the same order as on one thread, so
 * results are bit-identical whatever the thread count. */
#ifndef OPGEN_PARALLEL_H
#define OPGEN_PARALLEL_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct opgen_parallel {
    int nthreads; /* how many parts at most run at once (the caller's thread included) */
    /* Runs fn(arg, part) for every part in [0, nparts), on any threads, and returns
     * once all have returned. It must not allocate (it runs inside a method's run). */
    void (*run)(void *user, int nparts, void (*fn)(void *arg, int part), void *arg);
    void *user;
    double min_work; /* work (multiply-adds, or elements) below which a kernel runs on one
                        thread; 0: each kernel's own threshold (64^3 for a GEMM) */
} opgen_parallel;

/* How many parts to split into: 1 without threads. */
static inline int opgen_parallel_parts(const opgen_parallel *par) {
    return par && par->nthreads > 1 && par->run ? par->nthreads : 1;
}

/* How many parts work of this size is split into: 1 below par's min_work (when
 * set) or below the kernel's own threshold (when not). */
static inline int opgen_parallel_parts_for(const opgen_parallel *par, double work, double threshold) {
    return work >= (par && par->min_work > 0 ? par->min_work : threshold) ? opgen_parallel_parts(par) : 1;
}

/* fn(arg, part) for part in [0, nparts): across par's threads, or inline. */
static inline void opgen_parallel_for(const opgen_parallel *par, int nparts, void (*fn)(void *arg, int part),
                                      void *arg) {
    if (nparts > 1 && opgen_parallel_parts(par) > 1) {
        par->run(par->user, nparts, fn, arg);
        return;
    }
    for (int p = 0; p < nparts; p++) fn(arg, p);
}

#ifdef __cplusplus
}
#endif
#endif
