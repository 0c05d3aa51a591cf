/* kernels/chunks.h: chunks handed out on demand. For every count (0 to 70, and
 * the most a counter holds) and every number of parts (1 to 17, past its 16
 * ranges), parts taking in a random order:
 * - every chunk is taken exactly once, then every part is told none is left;
 * - a part takes its own range's chunks first, in increasing order, and only
 *   then others';
 * and with real threads (opgen/pool.h: 2 and 3 parts racing on 20,000 chunks
 * of a few microseconds), again each exactly once; and the pool's jobs
 * themselves: 20,000 jobs back to back of 1 to 9 parts each run every part
 * exactly once and return only after all did (a worker late from one job taking
 * a part of the next, or past its end, fails it), also after the workers slept
 * (a pause past their spin) and with a part that outlasts the caller's spin. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "../runtime-stubs/kernels/chunks.h"
#include "opgen/pool.h"
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng = 0x2545f4914f6cdd1du;
static unsigned next_rand(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng >> 11);
}

static int taken[OPGEN_CHUNKS_MAX];

/* count chunks, parts parts, taken in a random interleaving */
static void interleaved(int count, int parts) {
    opgen_chunks c;
    opgen_chunks_init(&c, count, parts);
    int ranges = parts > OPGEN_CHUNK_RANGES ? OPGEN_CHUNK_RANGES : parts;
    int last[32], stealing[32], done = 0, got = 0;
    for (int p = 0; p < parts; p++) last[p] = -1, stealing[p] = 0;
    memset(taken, 0, sizeof(int) * (size_t)(count ? count : 1));
    while (done < parts) {
        int p = (int)(next_rand() % (unsigned)parts);
        if (last[p] == -2) continue; /* told none is left */
        int k = opgen_chunk_take(&c, p);
        if (k < 0) {
            last[p] = -2, done++;
            continue;
        }
        CHECK(k < count, "count %d parts %d: chunk %d out of range", count, parts, k);
        CHECK(!taken[k]++, "count %d parts %d: chunk %d taken twice", count, parts, k);
        int r = p % ranges, lo = (int)((long long)count * r / ranges), hi = (int)((long long)count * (r + 1) / ranges);
        bool own = k >= lo && k < hi;
        if (own) /* its own range: in order (consecutive unless parts share ranges), never after another's */
            CHECK(!stealing[p] && (parts > ranges ? k > last[p] : k == (last[p] < lo ? lo : last[p] + 1)),
                  "count %d parts %d: part %d took %d of its own after %d", count, parts, p, k, last[p]);
        else
            stealing[p] = 1;
        last[p] = k, got++;
    }
    CHECK(got == count, "count %d parts %d: %d of the chunks taken", count, parts, got);
    for (int p = 0; p < parts; p++)
        CHECK(opgen_chunk_take(&c, p) == -1, "count %d: part %d took after the end", count, p);
}

typedef struct race {
    opgen_chunks c;
    int *by;                 /* the part that took each chunk, + 1 */
    volatile double sink[8]; /* per part: no two threads write one */
} race;
static void race_part(void *arg, int part) {
    race *r = arg;
    for (int k; (k = opgen_chunk_take(&r->c, part)) >= 0;) {
        __atomic_fetch_add(&r->by[k], part + 1, __ATOMIC_RELAXED);
        double s = 0;
        for (int i = 0; i < 200 + (k * 7919) % 400; i++) s += i * 0.5; /* uneven chunks */
        r->sink[part & 7] = s;
    }
}

static void threads(int nthreads) {
    enum { N = 20000 };
    opgen_pool *pool = opgen_pool_create(nthreads);
    CHECK(pool, "pool of %d threads", nthreads);
    if (!pool) return;
    static int by[N];
    for (int round = 0; round < 20; round++) {
        race r;
        r.by = by;
        memset(by, 0, sizeof by);
        opgen_chunks_init(&r.c, N, nthreads);
        opgen_parallel_for(opgen_pool_parallel(pool), nthreads, race_part, &r);
        int twice = 0, none = 0;
        for (int k = 0; k < N; k++) none += !by[k], twice += by[k] > nthreads;
        for (int k = 0, bad = 0; k < N && !bad; k++) /* one part's mark: 1 .. nthreads */
            bad = by[k] < 1 || by[k] > nthreads, CHECK(!bad, "%d threads: chunk %d marked %d", nthreads, k, by[k]);
        CHECK(!none && !twice, "%d threads: %d chunks untaken, %d twice", nthreads, none, twice);
    }
    opgen_pool_destroy(pool);
}

typedef struct {
    _Atomic int *runs; /* per part */
    int slow;          /* part that sleeps first, or -1 */
} job_arg;
static void job_part(void *arg, int part) {
    job_arg *j = arg;
    if (part == j->slow) nanosleep(&(struct timespec){0, 1000000}, NULL); /* past the caller's spin */
    atomic_fetch_add(&j->runs[part], 1);
}

static void jobs(int nthreads) {
    opgen_pool *pool = opgen_pool_create(nthreads);
    CHECK(pool, "pool of %d threads", nthreads);
    if (!pool) return;
    const opgen_parallel *par = opgen_pool_parallel(pool);
    _Atomic int runs[9];
    int bad = 0;
    for (int n = 0; n < 20000 && !bad; n++) {
        int parts = 1 + n % 9;
        for (int i = 0; i < 9; i++) atomic_init(&runs[i], 0);
        job_arg j = {runs, n % 1000 == 999 ? parts - 1 : -1};
        if (n % 5000 == 4999) nanosleep(&(struct timespec){0, 2000000}, NULL); /* the workers fall asleep */
        par->run(par->user, parts, job_part, &j);
        for (int i = 0; i < 9 && !bad; i++) {
            int got = atomic_load(&runs[i]), want = i < parts;
            bad = got != want;
            CHECK(!bad, "%d threads, job %d of %d parts: part %d ran %d times", nthreads, n, parts, i, got);
        }
    }
    opgen_pool_destroy(pool);
}

int main(void) {
    for (int parts = 1; parts <= 17; parts++)
        for (int count = 0; count <= 70; count++)
            for (int rep = 0; rep < 4; rep++) interleaved(count, parts);
    interleaved(OPGEN_CHUNKS_MAX, 3);
    threads(2);
    threads(3);
    jobs(2);
    jobs(3);
    jobs(4);
    printf("test_chunks: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
