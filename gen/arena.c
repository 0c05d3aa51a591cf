#include "arena.h"
#include "config.h"
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
    arena_block *next;
    max_align_t align[]; /* payload */
};

void arena_init(arena *a) { memset(a, 0, sizeof *a); }

void arena_free(arena *a) {
    arena_block *b = a->head;
    while (b) {
        arena_block *n = b->next;
        free(b);
        b = n;
    }
    memset(a, 0, sizeof *a);
}

void arena_reset(arena *a) {
    arena_block *b = a->head;
    if (!b) return;
    arena_block *rest = b->next;
    while (rest) { /* the head is the block being bumped; older ones go */
        arena_block *n = rest->next;
        free(rest);
        rest = n;
    }
    b->next = NULL;
    a->cur = (char *)b->align;
    a->end = a->cur + OPGEN_ARENA_BLOCK;
}

static void oom(void) {
    fputs("opgen: out of memory\n", stderr);
    exit(3);
}

void *arena_alloc(arena *a, size_t n) {
    const size_t al = sizeof(max_align_t);
    n = (n + al - 1) & ~(al - 1);
    if (n == 0) n = al;
    if ((size_t)(a->end - a->cur) < n || !a->cur) {
        size_t sz = n > OPGEN_ARENA_BLOCK / 4 ? n : OPGEN_ARENA_BLOCK;
        arena_block *b = malloc(sizeof(arena_block) + sz);
        if (!b) oom();
        a->total += sizeof(arena_block) + sz;
        if (n > OPGEN_ARENA_BLOCK / 4 && a->head) {
            /* big request: own block behind the current one, keep bumping in the head */
            b->next = a->head->next;
            a->head->next = b;
            return (void *)b->align;
        }
        b->next = a->head;
        a->head = b;
        a->cur = (char *)b->align;
        a->end = a->cur + sz;
    }
    void *p = a->cur;
    a->cur += n;
    return p;
}

void *arena_zalloc(arena *a, size_t n) {
    void *p = arena_alloc(a, n);
    memset(p, 0, n);
    return p;
}

/* Strings need no alignment: taken from the end of the current block. */
static char *alloc_bytes(arena *a, size_t n) {
    if (a->cur && (size_t)(a->end - a->cur) >= n) {
        a->end -= n;
        return a->end;
    }
    return arena_alloc(a, n);
}

char *arena_strndup(arena *a, const char *s, size_t n) {
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
