/* Open-addressing hash map from NUL-terminated strings to pointers.
 * Keys are not copied: they must outlive the map (they live in the arena).
 * A map's slots are malloc'd, or taken from an arena (strmap_init_in): a large
 * map then lands in memory the session has already touched (its huge pages)
 * instead of a hundred fresh 4 KiB pages, each a page fault. */
#ifndef OG_STRMAP_H
#define OG_STRMAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct strmap_slot {
    const char *key;
    uint32_t hash;
    void *val;
} strmap_slot;

typedef struct opgen_arena opgen_arena;

typedef struct strmap {
    strmap_slot *slots;
    size_t cap, len;
    opgen_arena *a; /* where the slots come from; NULL: malloc */
} strmap;

uint32_t strmap_hash(const char *s, size_t n);
void strmap_init(strmap *m, size_t expected);
void strmap_init_in(strmap *m, opgen_arena *a, size_t expected); /* freed with the arena */
void strmap_free(strmap *m);
void *strmap_get(const strmap *m, const char *key);
void *strmap_getn(const strmap *m, const char *key, size_t n);
/* Inserts key -> val; returns the existing value and inserts nothing if present. */
void *strmap_put(strmap *m, const char *key, void *val);
#endif
