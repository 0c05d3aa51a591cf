/* The generator's memory (arena.h): an arena over the runtime's growing
 * opgen_arena, and the one out-of-memory path. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, madvise */
#include "arena.h"
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#if OPGEN_ARENA_RESERVE_MIB && UINTPTR_MAX > 0xffffffffu /* 64-bit address space */
#define RESERVE 1
#include <sys/mman.h>
#else
#define RESERVE 0
#endif

bool arena_init_reserved(arena *a, void **map, size_t *maplen) {
#if RESERVE && defined(MAP_ANONYMOUS) && defined(MAP_NORESERVE)
    const size_t huge = (size_t)2 << 20, size = (size_t)OPGEN_ARENA_RESERVE_MIB << 20;
    void *m = mmap(NULL, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return false;
    char *base = (char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
#ifdef MADV_HUGEPAGE
    madvise(base, size, MADV_HUGEPAGE); /* a request: refused, it is 4 KiB pages as before */
#endif
    opgen_arena_init(a, base, size);
    *map = m;
    *maplen = size + huge;
    return true;
#else
    (void)a, (void)map, (void)maplen;
    return false;
#endif
}

void arena_free_reserved(arena *a, void *map, size_t maplen) {
    opgen_arena_release(a);
#if RESERVE
    if (map) munmap(map, maplen);
#else
    (void)map, (void)maplen;
#endif
}

void og_oom(void) {
    fputs("opgen: out of memory\n", stderr);
    exit(3);
}

void *og_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) og_oom();
    return q;
}

void *og_xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) og_oom();
    return p;
}

void *arena_zalloc(arena *a, size_t n) {
    void *p = opgen_arena_zalloc(a, n);
    if (!p) og_oom();
    return p;
}

/* Strings need no alignment: taken from the end of the current block. */
static char *alloc_bytes(arena *a, size_t n) {
    char *p = opgen_arena_alloc_bytes(a, n);
    if (!p) og_oom();
    return p;
}

char *arena_strndup_slow(arena *a, const char *s, size_t n) {
    char *p = alloc_bytes(a, n + 1);
    if (n) memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_strdup(arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(arena *a, const char *fmt, ...) {
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n < sizeof small) return arena_strndup(a, small, (size_t)n);
    char *p = alloc_bytes(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}
