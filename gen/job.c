#include "job.h"

#if OPGEN_THREADS
static void *job_thread(void *arg) {
    og_job *j = arg;
    j->run(j->ctx);
    return NULL;
}
#endif

void og_job_start(og_job *j, void (*run)(void *ctx), void *ctx) {
    j->run = run, j->ctx = ctx, j->running = false;
#if OPGEN_THREADS
    j->running = pthread_create(&j->thread, NULL, job_thread, j) == 0;
    if (j->running) return;
#endif
    run(ctx);
}

void og_job_wait(og_job *j) {
#if OPGEN_THREADS
    if (j->running) pthread_join(j->thread, NULL);
#endif
    j->running = false;
}
