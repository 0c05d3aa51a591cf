/* opgen/pool.h: workers that sleep on a condition variable between jobs; a job's
 * parts are handed out one by one under the lock (parts are few and large: a
 * kernel splits into as many as there are threads), the caller taking its share. */
#include "opgen/pool.h"
#include <pthread.h>
#include <stdlib.h>

struct opgen_pool {
    opgen_parallel par;
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    pthread_t *threads;
    int nthreads, started;
    /* the job: parts handed out from next; finished counts those done */
    void (*fn)(void *arg, int part);
    void *arg;
    int nparts, next, finished;
    unsigned long generation; /* a new job: workers wake for it once */
    int stop;
};

/* Runs parts of the current job until none is left; the lock held on entry and exit. */
static void take_parts(opgen_pool *p) {
    while (p->next < p->nparts) {
        int part = p->next++;
        pthread_mutex_unlock(&p->lock);
        p->fn(p->arg, part);
        pthread_mutex_lock(&p->lock);
        if (++p->finished == p->nparts) pthread_cond_broadcast(&p->done);
    }
}

static void *worker(void *arg) {
    opgen_pool *p = arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->generation == seen) pthread_cond_wait(&p->work, &p->lock);
        if (p->stop) break;
        seen = p->generation;
        take_parts(p);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void run(void *user, int nparts, void (*fn)(void *arg, int part), void *arg) {
    opgen_pool *p = user;
    pthread_mutex_lock(&p->lock);
    p->fn = fn, p->arg = arg, p->nparts = nparts, p->next = 0, p->finished = 0;
    p->generation++;
    pthread_cond_broadcast(&p->work);
    take_parts(p);
    while (p->finished < p->nparts) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

opgen_pool *opgen_pool_create(int nthreads) {
    if (nthreads < 1 || nthreads > 256) return NULL;
    opgen_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->threads = calloc((size_t)nthreads, sizeof *p->threads);
    if (!p->threads || pthread_mutex_init(&p->lock, NULL) || pthread_cond_init(&p->work, NULL) || pthread_cond_init(&p->done, NULL)) {
        free(p->threads);
        free(p);
        return NULL;
    }
    p->nthreads = nthreads;
    p->par = (opgen_parallel){nthreads, run, p, 0};
    for (; p->started < nthreads - 1; p->started++)
        if (pthread_create(&p->threads[p->started], NULL, worker, p)) {
            opgen_pool_destroy(p);
            return NULL;
        }
    return p;
}

const opgen_parallel *opgen_pool_parallel(opgen_pool *pool) { return pool ? &pool->par : NULL; }

void opgen_pool_destroy(opgen_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (int t = 0; t < p->started; t++) pthread_join(p->threads[t], NULL);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p);
}
