/* An open-addressing hash map from strings to pointers (strmap.h). */
#include "strmap.h"
#include "arena.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Eight bytes at a time, multiply-xorshift mixing: fast on the long signature keys. */
uint32_t strmap_hash(const char *s, size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    const unsigned char *p = (const unsigned char *)s;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8); /* host byte order: the hash only places slots, never orders output */
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    for (size_t i = n; i-- > 0;) w = (w << 8) | p[i];
    h = (h ^ w) * 0x94d049bb133111ebull;
    h ^= h >> 29;
    return (uint32_t)(h ^ (h >> 32));
}

static strmap_slot *new_slots(opgen_arena *a, size_t cap) {
    return a ? ARENA_ARRAY(a, strmap_slot, cap) : og_xcalloc(cap, sizeof(strmap_slot));
}

void strmap_init_in(strmap *m, opgen_arena *a, size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2) cap *= 2;
    m->slots = new_slots(a, cap);
    m->cap = cap;
    m->len = 0;
    m->a = a;
}

void strmap_init(strmap *m, size_t expected) { strmap_init_in(m, NULL, expected); }

void strmap_free(strmap *m) {
    if (!m->a) free(m->slots);
    memset(m, 0, sizeof *m);
}

static strmap_slot *find(const strmap *m, const char *key, size_t n, uint32_t h) {
    size_t mask = m->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        strmap_slot *s = &m->slots[i];
        if (!s->key) return s;
        if (s->hash == h && strncmp(s->key, key, n) == 0 && s->key[n] == 0) return s;
    }
}

/* Where a key known to be absent goes (growing: the keys are distinct). */
static strmap_slot *empty_slot(const strmap *m, uint32_t h) {
    size_t mask = m->cap - 1, i = h & mask;
    while (m->slots[i].key) i = (i + 1) & mask;
    return &m->slots[i];
}

void *strmap_getn(const strmap *m, const char *key, size_t n) {
    if (!m->cap) return NULL;
    strmap_slot *s = find(m, key, n, strmap_hash(key, n));
    return s->key ? s->val : NULL;
}

void *strmap_get(const strmap *m, const char *key) { return strmap_getn(m, key, strlen(key)); }

void *strmap_put(strmap *m, const char *key, void *val) {
    if (!m->cap) strmap_init(m, 8);
    if ((m->len + 1) * 2 > m->cap) {
        strmap old = *m;
        m->cap *= 2;
        m->slots = new_slots(m->a, m->cap);
        for (size_t i = 0; i < old.cap; i++)
            if (old.slots[i].key) *empty_slot(m, old.slots[i].hash) = old.slots[i];
        if (!m->a) free(old.slots);
    }
    size_t n = strlen(key);
    uint32_t h = strmap_hash(key, n);
    strmap_slot *s = find(m, key, n, h);
    if (s->key) return s->val;
    s->key = key;
    s->hash = h;
    s->val = val;
    m->len++;
    return NULL;
}
