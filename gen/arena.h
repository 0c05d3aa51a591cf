/* The generator's memory. Its data lives until the run ends, in the runtime's
 * arena (opgen_arena, growing), freed in one call so nothing leaks on error paths.
 * This is also the generator's one out-of-memory path: every allocation goes
 * through here, and running out prints "opgen: out of memory" and exits 3. */
#ifndef OG_ARENA_H
#define OG_ARENA_H
#include "opgen/rt.h"
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef opgen_arena arena;

#if defined(__GNUC__)
__attribute__((noreturn))
#endif
void og_oom(void);
/* realloc/calloc that never return NULL. */
void *og_xrealloc(void *p, size_t n);
void *og_xcalloc(size_t n, size_t size);
static inline void *og_xmalloc(size_t n) { return og_xrealloc(NULL, n); }

static inline void arena_init(arena *a) { opgen_arena_init_growing(a); }
/* The session's arena, for the model: one reservation of address space that pages
 * fill as they are touched, in 2 MiB huge pages where the system gives them (a
 * model takes a few MiB: a handful of page faults instead of a thousand). False
 * when the system refuses: then arena_init. Freed by arena_free_reserved. */
bool arena_init_reserved(arena *a, void **map, size_t *maplen);
void arena_free_reserved(arena *a, void *map, size_t maplen);
static inline void arena_free(arena *a) { opgen_arena_release(a); }
/* Forgets everything allocated, keeping one block for reuse. */
static inline void arena_reset(arena *a) { opgen_arena_reset(a); }
/* Never NULL. */
static inline void *arena_alloc(arena *a, size_t n) {
    void *p = opgen_arena_alloc(a, n ? n : 1);
    if (!p) og_oom();
    return p;
}
void *arena_zalloc(arena *a, size_t n);
char *arena_strndup_slow(arena *a, const char *s, size_t n);
/* Strings need no alignment: taken from the end of the current block. */
static inline char *arena_strndup(arena *a, const char *s, size_t n) {
    if (!a->base || a->size - a->used < n + 1) return arena_strndup_slow(a, s, n);
    a->size -= n + 1;
    char *p = (char *)a->base + a->size;
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}
char *arena_strdup(arena *a, const char *s);
char *arena_printf(arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#define ARENA_NEW(a, T) ((T *)arena_zalloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_zalloc((a), sizeof(T) * (size_t)(n)))
#endif
