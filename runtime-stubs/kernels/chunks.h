/* Chunks of a kernel's work handed out on demand. A kernel starts one part per
 * thread (parallel.h); the chunks are split in as many contiguous ranges, and
 * each part takes its own range's chunks from the front, then, its range done,
 * another's from the back. So each thread works a contiguous stretch first
 * (the rows its core wrote in the layer before, its scratch extended chunk by
 * chunk), and a thread that runs faster (a virtual CPU its host favours, a big
 * core beside a little one) takes over a slower one's last chunks instead of
 * waiting for them: on a 2-vCPU VM whose CPUs differ in speed from minute to
 * minute, fixed halves left one thread idle a fifth of each call. Which part
 * computes a chunk never changes its bytes (every element is one chunk's,
 * summed in the same order); scratch is per part. */
#ifndef OPGEN_KERNELS_CHUNKS_H
#define OPGEN_KERNELS_CHUNKS_H

enum { OPGEN_CHUNK_RANGES = 16, OPGEN_CHUNKS_MAX = 65535 };

#if defined(__STDC_NO_ATOMICS__)
typedef unsigned opgen_chunk_range; /* no atomics: the target runs parts one by one */
#define OPGEN_CHUNK_LOAD(a) (*(a))
#define OPGEN_CHUNK_CAS(a, v, nv) (*(a) = (nv), 1)
#define OPGEN_CHUNK_INIT(a, v) (*(a) = (v))
#else
#include <stdatomic.h>
typedef atomic_uint opgen_chunk_range;
#define OPGEN_CHUNK_LOAD(a) atomic_load_explicit((a), memory_order_relaxed)
#define OPGEN_CHUNK_CAS(a, v, nv) \
    atomic_compare_exchange_weak_explicit((a), (v), (nv), memory_order_relaxed, memory_order_relaxed)
#define OPGEN_CHUNK_INIT(a, v) atomic_init((a), (v))
#endif

/* Ranges of chunk indexes, each its front (low 16 bits) and end (high 16):
 * one word, so a take from either side is one compare-and-swap. The parts'
 * results meet the caller at the scheduler's join, not through these. */
typedef struct opgen_chunks {
    opgen_chunk_range range[OPGEN_CHUNK_RANGES];
    int ranges;
} opgen_chunks;

/* count chunks (at most OPGEN_CHUNKS_MAX) for `parts` parts. */
static inline void opgen_chunks_init(opgen_chunks *c, int count, int parts) {
    c->ranges = parts < 1 ? 1 : parts > OPGEN_CHUNK_RANGES ? OPGEN_CHUNK_RANGES : parts;
    for (int r = 0; r < c->ranges; r++) {
        unsigned lo = (unsigned)((long long)count * r / c->ranges),
                 hi = (unsigned)((long long)count * (r + 1) / c->ranges);
        OPGEN_CHUNK_INIT(&c->range[r], lo | hi << 16);
    }
}

/* Part `part`'s next chunk, or -1 when every chunk is taken. */
static inline int opgen_chunk_take(opgen_chunks *c, int part) {
    for (int i = 0; i < c->ranges; i++) {
        opgen_chunk_range *a = &c->range[(part + i) % c->ranges];
        unsigned v = OPGEN_CHUNK_LOAD(a);
        while ((v & 0xffffu) < v >> 16) /* i == 0: its own range's front; else another's end */
            if (OPGEN_CHUNK_CAS(a, &v, i == 0 ? v + 1 : v - 0x10000u))
                return i == 0 ? (int)(v & 0xffffu) : (int)(v >> 16) - 1;
    }
    return -1;
}

#endif
