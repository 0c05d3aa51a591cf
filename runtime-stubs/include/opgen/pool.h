/* A small thread pool (POSIX threads) that is an opgen_parallel: give
 * opgen_pool_parallel(pool) to a load (opgen_load_options.parallel) and kernels
 * split their work across its threads. Threads start at create and wait between
 * jobs; a job allocates nothing. Built where the platform has threads (not in a
 * bare-metal build: OPGEN_HAVE_POOL says). */
#ifndef OPGEN_POOL_H
#define OPGEN_POOL_H
#include "opgen/parallel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct opgen_pool opgen_pool;

/* nthreads in all, the caller's included (nthreads - 1 are started), 1 to 256;
 * NULL when they cannot be had (out of memory, no threads). */
opgen_pool *opgen_pool_create(int nthreads);
const opgen_parallel *opgen_pool_parallel(opgen_pool *pool);
/* Stops and joins the threads. */
void opgen_pool_destroy(opgen_pool *pool);

#ifdef __cplusplus
}
#endif
#endif
