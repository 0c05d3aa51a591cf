/* Work done on a second thread while the caller does its own: og_job_start runs
 * run(ctx) there (here, at once, without threads or when no thread starts), and
 * og_job_wait returns once it is done. What run touches is its own until then. */
#ifndef OG_JOB_H
#define OG_JOB_H
#include "config.h"
#include <stdbool.h>
#if OPGEN_THREADS
#include <pthread.h>
#endif

typedef struct og_job {
    void (*run)(void *ctx);
    void *ctx;
    bool running;
#if OPGEN_THREADS
    pthread_t thread;
#endif
} og_job;

void og_job_start(og_job *j, void (*run)(void *ctx), void *ctx);
void og_job_wait(og_job *j);
#endif
