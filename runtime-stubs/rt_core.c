/* The runtime's core (opgen/rt.h): errors, the arena, dtype names and sizes,
 * tensor shapes, strides and the one overlap rule. */
#include "opgen/rt.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *opgen_status_text(opgen_status status) {
    static const char *const text[] = {
#define OPGEN_STATUS_TEXT(code, t) t,
        OPGEN_STATUSES(OPGEN_STATUS_TEXT)
#undef OPGEN_STATUS_TEXT
    };
    return status >= 0 && status < OPGEN_STATUS_COUNT ? text[status] : "unknown status";
}

opgen_status opgen_fail_code(opgen_error *err, opgen_status code) {
    if (!err || err->code != OPGEN_OK) return code;
    memset(err, 0, sizeof *err);
    err->code = code;
    const char *t = opgen_status_text(code);
    memcpy(err->msg, t, strlen(t) + 1); /* status texts are short */
    return code;
}

#ifndef OPGEN_NO_ERRMSG
opgen_status opgen_failv(opgen_error *err, opgen_status code, const char *file, unsigned line, unsigned col,
                         const char *prefix, const char *fmt, va_list ap) {
    if (!err || err->code != OPGEN_OK) return code;
    err->code = code;
    err->line = line;
    err->col = col;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    size_t n = (size_t)snprintf(err->msg, sizeof err->msg, "%s", prefix ? prefix : "");
    if (n < sizeof err->msg) vsnprintf(err->msg + n, sizeof err->msg - n, fmt, ap);
    return code;
}

opgen_status opgen_fail(opgen_error *err, opgen_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    opgen_failv(err, code, NULL, 0, 0, NULL, fmt, ap);
    va_end(ap);
    return code;
}

opgen_status opgen_fail_at(opgen_error *err, opgen_status code, const char *file, unsigned line, unsigned col,
                           const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    opgen_failv(err, code, file, line, col, NULL, fmt, ap);
    va_end(ap);
    return code;
}

#endif

void opgen_error_format(const opgen_error *err, char *buf, size_t cap) {
    if (err->line)
        snprintf(buf, cap, "%s:%u:%u: error: %s", err->file, err->line, err->col, err->msg);
    else if (err->file[0])
        snprintf(buf, cap, "%s: error: %s", err->file, err->msg);
    else
        snprintf(buf, cap, "error: %s", err->msg);
}

/* ---- arena ---- */

struct opgen_arena_block {
    opgen_arena_block *next;
    size_t size;
};

void opgen_arena_init(opgen_arena *a, void *buffer, size_t size) {
    memset(a, 0, sizeof *a);
    /* allocations are 16-byte aligned in memory, whatever the buffer's address */
    uintptr_t at = (uintptr_t)buffer, aligned = (at + 15) & ~(uintptr_t)15;
    if (!buffer || size < aligned - at) return;
    a->base = (uint8_t *)aligned;
    a->size = a->capacity = size - (aligned - at);
}

static void release_block(void *p) { free(p); }
static void *obtain_block(size_t n) { return malloc(n); }
static const opgen_arena_heap system_heap = {obtain_block, release_block};

void opgen_arena_init_growing(opgen_arena *a) {
    memset(a, 0, sizeof *a);
    a->grow = true;
    a->heap = &system_heap;
}

/* A new block of at least n payload bytes, first in the list. */
static uint8_t *grow_block(opgen_arena *a, size_t n, opgen_arena_block **out) {
    if (n > SIZE_MAX - sizeof(opgen_arena_block) - 16) return NULL;
    opgen_arena_block *b = a->heap->alloc(sizeof *b + n + 16);
    if (!b) return NULL;
    b->next = a->blocks;
    b->size = n;
    a->blocks = b;
    a->grown += sizeof *b + n + 16;
    *out = b;
    return (uint8_t *)(((uintptr_t)(b + 1) + 15) & ~(uintptr_t)15);
}

void *opgen_arena_alloc(opgen_arena *a, size_t n) {
    size_t start = (a->used + 15) & ~(size_t)15;
    if (n > SIZE_MAX - start) return NULL;
    if (a->base && start + n <= a->size) {
        a->used = start + n;
        if (a->used > a->peak) a->peak = a->used;
        return a->base + start;
    }
    if (!a->grow) return NULL;
    opgen_arena_block *b;
    if (n > OPGEN_ARENA_BLOCK / 4 && a->base) /* its own block; the current one stays */
        return grow_block(a, n, &b);
    uint8_t *p = grow_block(a, n > OPGEN_ARENA_BLOCK ? n : OPGEN_ARENA_BLOCK, &b);
    if (!p) return NULL;
    a->cur = b;
    a->base = p;
    a->size = b->size;
    a->used = n;
    a->peak += n;
    return p;
}

void *opgen_arena_zalloc(opgen_arena *a, size_t n) {
    void *p = opgen_arena_alloc(a, n ? n : 1);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}

void *opgen_arena_alloc_bytes(opgen_arena *a, size_t n) {
    if (a->base && a->size - a->used >= n) {
        a->size -= n;
        return a->base + a->size;
    }
    return opgen_arena_alloc(a, n);
}

opgen_arena_mark opgen_arena_save(const opgen_arena *a) {
    return (opgen_arena_mark){a->blocks, a->cur, a->base, a->size, a->used};
}

void opgen_arena_restore(opgen_arena *a, opgen_arena_mark m) {
    while (a->blocks && a->blocks != m.blocks) { /* blocks grown since the mark */
        opgen_arena_block *next = a->blocks->next;
        a->heap->release(a->blocks);
        a->blocks = next;
    }
    a->cur = m.cur;
    a->base = m.base;
    a->size = m.size;
    a->used = m.used;
}

void opgen_arena_reset(opgen_arena *a) {
    if (!a->grow) { /* a caller's buffer: start it again */
        a->size = a->capacity;
        a->used = 0;
        return;
    }
    opgen_arena_block *keep = a->cur, *b = a->blocks;
    while (b) {
        opgen_arena_block *next = b->next;
        if (b != keep) a->heap->release(b);
        b = next;
    }
    a->blocks = keep;
    if (!keep) {
        a->base = NULL, a->size = a->used = 0;
        return;
    }
    keep->next = NULL;
    a->base = (uint8_t *)(((uintptr_t)(keep + 1) + 15) & ~(uintptr_t)15);
    a->size = keep->size;
    a->used = 0;
}

void opgen_arena_release(opgen_arena *a) {
    opgen_arena_block *b = a->blocks;
    while (b) {
        opgen_arena_block *n = b->next;
        a->heap->release(b);
        b = n;
    }
    a->blocks = a->cur = NULL;
    if (a->grow) a->base = NULL, a->size = a->used = 0;
}

/* ---- tensors ---- */

int opgen_dtype_size(opgen_dtype d) {
    switch (d) {
#define OPGEN_DT_SIZE(name, num, size) \
    case OPGEN_DTYPE_##name: return size;
        OPGEN_DTYPES(OPGEN_DT_SIZE)
#undef OPGEN_DT_SIZE
    default: return 0;
    }
}

const char *opgen_dtype_name(opgen_dtype d) {
    switch (d) {
#define OPGEN_DT_NAME(name, num, size) \
    case OPGEN_DTYPE_##name: return #name;
        OPGEN_DTYPES(OPGEN_DT_NAME)
#undef OPGEN_DT_NAME
    default: return "?";
    }
}

int64_t opgen_bool_check(const void *data, int64_t n) {
    const unsigned char *b = data;
    for (int64_t i = 0; i < n; i++)
        if (b[i] > 1) return i;
    return -1;
}

int64_t opgen_numel(const opgen_tensor *t) {
    int64_t n = 1;
    for (int i = 0; i < t->dim; i++) n *= t->sizes[i];
    return n;
}

size_t opgen_nbytes(const opgen_tensor *t) { return (size_t)opgen_numel(t) * (size_t)opgen_dtype_size(t->dtype); }

size_t opgen_tensor_span(const opgen_tensor *t) {
    int64_t last = 0;
    for (int32_t d = 0; d < t->dim; d++) {
        if (!t->sizes[d]) return t->capacity;
        last += (t->sizes[d] - 1) * t->strides[d];
    }
    size_t reach = (size_t)(last + 1) * (size_t)opgen_dtype_size(t->dtype);
    return reach > t->capacity ? reach : t->capacity;
}

bool opgen_tensors_overlap(const opgen_tensor *a, const opgen_tensor *b) {
    if (!a || !b || !a->data || !b->data) return false;
    uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;
    return a0 < b0 + opgen_tensor_span(b) && b0 < a0 + opgen_tensor_span(a);
}

opgen_status opgen_tensor_shape_ordered(opgen_tensor *t, opgen_dtype dtype, int32_t dim, const int64_t *sizes,
                                        const uint8_t *dim_order, opgen_error *err) {
    if (dim < 0 || dim > OPGEN_MAX_DIM)
        return opgen_fail(err, OPGEN_E_SHAPE, "a tensor has 0 to %d dimensions, not %d", OPGEN_MAX_DIM, (int)dim);
    if (opgen_dtype_size(dtype) == 0) return opgen_fail(err, OPGEN_E_DTYPE, "unknown dtype %d", (int)dtype);
    int64_t extent = 1; /* the product of the sizes with 0 read as 1: bounds numel and every stride */
    for (int i = 0; i < dim; i++) {
        if (sizes[i] < 0)
            return opgen_fail(err, OPGEN_E_SHAPE, "negative size %lld in dimension %d", (long long)sizes[i], i);
        if (sizes[i] && extent > INT64_MAX / 64 / sizes[i]) return opgen_fail(err, OPGEN_E_SHAPE, "tensor too large");
        extent *= sizes[i] ? sizes[i] : 1;
    }
    uint8_t order[OPGEN_MAX_DIM];
    unsigned seen = 0;
    for (int i = 0; i < dim; i++) {
        order[i] = dim_order ? dim_order[i] : (uint8_t)i;
        if (order[i] >= dim || seen >> order[i] & 1u)
            return opgen_fail(err, OPGEN_E_SHAPE, "dim order is not a permutation of 0..%d", (int)dim - 1);
        seen |= 1u << order[i];
    }
    t->dtype = dtype;
    t->dim = dim;
    for (int i = 0; i < dim; i++) t->sizes[i] = sizes[i];
    int64_t stride = 1; /* the last dimension in the order is innermost */
    for (int i = dim - 1; i >= 0; i--) {
        t->strides[order[i]] = stride;
        stride *= sizes[order[i]] ? sizes[order[i]] : 1;
    }
    memcpy(t->dim_order, order, (size_t)dim);
    return OPGEN_OK;
}

opgen_status opgen_tensor_shape(opgen_tensor *t, opgen_dtype dtype, int32_t dim, const int64_t *sizes,
                                opgen_error *err) {
    return opgen_tensor_shape_ordered(t, dtype, dim, sizes, NULL, err);
}

opgen_status opgen_tensor_alloc(opgen_tensor *t, opgen_dtype dtype, int32_t dim, const int64_t *sizes, opgen_arena *a,
                                opgen_error *err) {
    opgen_status st = opgen_tensor_shape(t, dtype, dim, sizes, err);
    if (st) return st;
    size_t n = opgen_nbytes(t);
    t->data = opgen_arena_alloc(a, n ? n : 1);
    if (!t->data) return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory for a %zu-byte tensor", n);
    memset(t->data, 0, n);
    return OPGEN_OK;
}

bool opgen_tensor_is_contiguous(const opgen_tensor *t) {
    if (opgen_numel(t) == 0) return true;
    int64_t stride = 1;
    for (int i = t->dim - 1; i >= 0; i--) {
        if (t->sizes[i] != 1 && t->strides[i] != stride) return false;
        stride *= t->sizes[i];
    }
    return true;
}
