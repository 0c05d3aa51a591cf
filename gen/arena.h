/* A bump allocator: the generator's data lives until the run ends, so it is
 * freed in one call and nothing leaks on error paths. */
#ifndef OG_ARENA_H
#define OG_ARENA_H
#include <stddef.h>

typedef struct arena_block arena_block;
typedef struct arena {
    arena_block *head;
    char *cur, *end;
    size_t total; /* bytes requested from malloc, for the memory report */
} arena;

void arena_init(arena *a);
void arena_free(arena *a);
/* Forgets everything allocated, keeping one block for reuse. */
void arena_reset(arena *a);
/* Never returns NULL: out of memory prints a message and exits 3. */
void *arena_alloc(arena *a, size_t n);
void *arena_zalloc(arena *a, size_t n);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_strdup(arena *a, const char *s);
char *arena_printf(arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#define ARENA_NEW(a, T) ((T *)arena_zalloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_zalloc((a), sizeof(T) * (size_t)(n)))
#endif
