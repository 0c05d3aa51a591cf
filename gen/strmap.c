#include "strmap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a: small, fast enough, and deterministic across platforms. */
uint32_t strmap_hash(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static void *xcalloc(size_t n, size_t sz) {
    void *p = calloc(n, sz);
    if (!p) {
        fputs("opgen: out of memory\n", stderr);
        exit(3);
    }
    return p;
}

void strmap_init(strmap *m, size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2) cap *= 2;
    m->slots = xcalloc(cap, sizeof *m->slots);
    m->cap = cap;
    m->len = 0;
}

void strmap_free(strmap *m) {
    free(m->slots);
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
        m->slots = xcalloc(m->cap, sizeof *m->slots);
        for (size_t i = 0; i < old.cap; i++)
            if (old.slots[i].key) *find(m, old.slots[i].key, strlen(old.slots[i].key), old.slots[i].hash) = old.slots[i];
        free(old.slots);
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
