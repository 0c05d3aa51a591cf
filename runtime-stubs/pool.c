/* opgen/pool.h: workers that wait between jobs; a job's parts are handed out one
 * by one under the lock (parts are few and large: a kernel splits into as many as
 * there are threads), the caller taking its share.
 *
 * Waiting spins for a while before it sleeps, on both sides: a program's kernel
 * calls follow each other within microseconds, and waking a sleeping thread costs
 * far more than that (on a VM, where an idle virtual CPU is halted, up to a large
 * part of a millisecond), long enough for the caller to take every part itself.
 * A spin lasts at most SPIN_NS, then the thread sleeps on a condition variable. */
#define _POSIX_C_SOURCE 200809L
#include "opgen/pool.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

enum { SPIN_NS = 200000 };

struct opgen_pool {
    opgen_parallel par;
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    pthread_t *threads;
    int nthreads, started;
    /* the job: parts handed out from next; finished counts those done */
    void (*fn)(void *arg, int part);
    void *arg;
    int nparts, next;
    atomic_int finished;
    atomic_ulong generation; /* a new job: workers wake for it once */
    atomic_int stop;
};

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Spins until done(p, x) or SPIN_NS pass; returns done's last answer. */
static bool spin(opgen_pool *p, unsigned long x, bool (*done)(opgen_pool *, unsigned long)) {
    long long until = 0;
    for (int i = 0;; i++) {
        if (done(p, x)) return true;
        relax();
        if (i % 64 == 0) { /* the clock now and then */
            long long t = now_ns();
            if (!until) until = t + SPIN_NS;
            if (t > until) return done(p, x);
        }
    }
}
static bool new_job(opgen_pool *p, unsigned long seen) {
    return atomic_load(&p->stop) || atomic_load(&p->generation) != seen;
}
static bool all_done(opgen_pool *p, unsigned long nparts) { return (unsigned long)atomic_load(&p->finished) == nparts; }

/* Runs parts of the current job until none is left; the lock held on entry and
 * exit (parts are handed out under it, so a worker late from the last job cannot
 * take a part of the next one before it is whole). */
static void take_parts(opgen_pool *p) {
    while (p->next < p->nparts) {
        int part = p->next++;
        pthread_mutex_unlock(&p->lock);
        p->fn(p->arg, part);
        pthread_mutex_lock(&p->lock);
        if (atomic_fetch_add(&p->finished, 1) + 1 == p->nparts) pthread_cond_broadcast(&p->done);
    }
}

static void *worker(void *arg) {
    opgen_pool *p = arg;
    unsigned long seen = 0;
    for (;;) {
        spin(p, seen, new_job);
        pthread_mutex_lock(&p->lock);
        while (!new_job(p, seen)) pthread_cond_wait(&p->work, &p->lock);
        if (atomic_load(&p->stop)) break;
        seen = atomic_load(&p->generation);
        take_parts(p);
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void run(void *user, int nparts, void (*fn)(void *arg, int part), void *arg) {
    opgen_pool *p = user;
    pthread_mutex_lock(&p->lock);
    p->fn = fn, p->arg = arg, p->nparts = nparts, p->next = 0;
    atomic_store(&p->finished, 0);
    atomic_fetch_add(&p->generation, 1);
    pthread_cond_broadcast(&p->work);
    take_parts(p);
    pthread_mutex_unlock(&p->lock);
    if (spin(p, (unsigned long)nparts, all_done)) return;
    pthread_mutex_lock(&p->lock);
    while (!all_done(p, (unsigned long)nparts)) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

opgen_pool *opgen_pool_create(int nthreads) {
    if (nthreads < 1 || nthreads > 256) return NULL;
    opgen_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->threads = calloc((size_t)nthreads, sizeof *p->threads);
    if (!p->threads || pthread_mutex_init(&p->lock, NULL) || pthread_cond_init(&p->work, NULL) ||
        pthread_cond_init(&p->done, NULL)) {
        free(p->threads);
        free(p);
        return NULL;
    }
    p->nthreads = nthreads;
    atomic_init(&p->finished, 0), atomic_init(&p->generation, 0), atomic_init(&p->stop, 0);
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
    atomic_store(&p->stop, 1);
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (int t = 0; t < p->started; t++) pthread_join(p->threads[t], NULL);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p);
}
