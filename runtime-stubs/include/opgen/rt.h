/* The opgen runtime core: status codes, errors with messages, the caller's
 * memory arena and tensors. No global mutable state: everything a call needs is
 * passed in. The runtime never prints and never parses yaml. */
#ifndef OPGEN_RT_H
#define OPGEN_RT_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opgen/dtype.h"
#include "opgen/status.h"

#ifdef __cplusplus
extern "C" {
#endif

const char *opgen_status_text(opgen_status status);

/* The first error of a call: a code, a message, and where it happened in the
 * program text when there is one (line 0: no position). */
typedef struct opgen_error {
    opgen_status code;
    unsigned line, col;
    char file[128];
    char msg[384];
} opgen_error;

/* Records an error (only the first one sticks) and returns its code. err may be NULL. */
opgen_status opgen_fail(opgen_error *err, opgen_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
opgen_status opgen_fail_at(opgen_error *err, opgen_status code, const char *file, unsigned line, unsigned col,
                           const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* The one formatter behind them all, for a module's own helper that adds context
 * (a method and instruction, a graph node): prefix (or NULL) and then fmt. */
opgen_status opgen_failv(opgen_error *err, opgen_status code, const char *file, unsigned line, unsigned col,
                         const char *prefix, const char *fmt, va_list ap);
/* Records an error's code alone; its message is the code's text (opgen_status_text). */
opgen_status opgen_fail_code(opgen_error *err, opgen_status code);
/* A build for size may define OPGEN_NO_ERRMSG (as nanopb's PB_NO_ERRMSG): errors
 * keep their codes, the message text and its formatting (printf) are compiled out. */
#ifdef OPGEN_NO_ERRMSG
#define OPGEN_ERRMSG 0 /* code that formats a message first tests it */
/* takes the message's arguments and drops them: once inlined, neither the text
 * nor its formatting is left */
static inline opgen_status opgen_fail_quiet(opgen_error *err, opgen_status code, ...) {
    return opgen_fail_code(err, code), code;
}
#define opgen_fail(err, code, ...) opgen_fail_quiet((err), (code), __VA_ARGS__)
#define opgen_fail_at(err, code, ...) opgen_fail_quiet((err), (code), __VA_ARGS__)
static inline opgen_status opgen_failv_quiet(opgen_error *err, opgen_status code, const char *file, unsigned line,
                                             unsigned col, const char *prefix, const char *fmt, va_list ap) {
    (void)file, (void)line, (void)col, (void)prefix, (void)fmt, (void)ap;
    return opgen_fail_code(err, code);
}
#define opgen_failv opgen_failv_quiet
#else
#define OPGEN_ERRMSG 1
#endif
/* Whether the kernels keep the paths that only buy speed with code and scratch
 * (im2col packing, chunked fills, wide rows, dot-product columns, ...): not in a
 * build for size (-Os, a microcontroller's), which keeps the plain loops. */
/* a##b after expanding a and b: names of the typed bodies in .inc files
 * (OPGEN_PASTE(NAME, _job) is depthwise_f32_job under #define NAME depthwise_f32). */
#define OPGEN_PASTE_(a, b) a##b
#define OPGEN_PASTE(a, b) OPGEN_PASTE_(a, b)

#ifdef __OPTIMIZE_SIZE__
#define OPGEN_SPEED_PATHS 0
#else
#define OPGEN_SPEED_PATHS 1
#endif
/* "file:line:col: error: message" (or "error: message"). */
void opgen_error_format(const opgen_error *err, char *buf, size_t cap);

/* Memory: a bump allocator over the caller's buffer. With `grow` set it asks the
 * system for more blocks instead of failing: a host convenience (the generator and
 * the command-line tools use it); embedded callers give a buffer and never grow. */
typedef struct opgen_arena_block opgen_arena_block;
/* Where a growing arena gets its blocks: the C library's malloc and free, reached
 * only through this table, so a program that never grows an arena (a bare-metal
 * one) links no heap. */
typedef struct opgen_arena_heap {
    void *(*alloc)(size_t n);
    void (*release)(void *p);
} opgen_arena_heap;
typedef struct opgen_arena {
    uint8_t *base;
    size_t size, used, peak;
    opgen_arena_block *blocks; /* grown blocks, newest first; freed by opgen_arena_release */
    opgen_arena_block *cur;    /* the grown block being bumped (base), if any */
    size_t capacity;           /* the caller's buffer: its usable bytes */
    size_t grown;              /* bytes asked of the system in all */
    bool grow;
    const opgen_arena_heap *heap; /* a growing arena's */
} opgen_arena;

/* Bytes of a grown block (requests above a quarter of it get a block of their own,
 * and the current block keeps being bumped). */
#define OPGEN_ARENA_BLOCK ((size_t)64 * 1024)

/* The most dimensions a tensor may have: every value of a loaded program holds a
 * tensor of this capacity. A device build may define a smaller one (for all of
 * the runtime and what includes it): a program with a tensor of more dimensions
 * is then refused at load. */
#ifndef OPGEN_MAX_DIM
#define OPGEN_MAX_DIM 16
#endif
#if OPGEN_MAX_DIM < 4 || OPGEN_MAX_DIM > 16
#error "OPGEN_MAX_DIM: from 4 (an image batch) to 16 (the dim orders of kernel keys)"
#endif
/* Code built with another OPGEN_MAX_DIM than its runtime would misread every
 * tensor: the arenas every user sets up carry it in their names, so such a
 * program does not link (as _FILE_OFFSET_BITS renames glibc's calls). */
#if OPGEN_MAX_DIM != 16
#define OPGEN_DIM_NAME_(name, n) name##_max_dim_##n
#define OPGEN_DIM_NAME(name, n) OPGEN_DIM_NAME_(name, n)
#define opgen_arena_init OPGEN_DIM_NAME(opgen_arena_init, OPGEN_MAX_DIM)
#define opgen_arena_init_growing OPGEN_DIM_NAME(opgen_arena_init_growing, OPGEN_MAX_DIM)
#endif

void opgen_arena_init(opgen_arena *a, void *buffer, size_t size);
void opgen_arena_init_growing(opgen_arena *a);
/* Aligned to 16 bytes; NULL when out of memory. */
void *opgen_arena_alloc(opgen_arena *a, size_t n);
/* The same, zeroed. */
void *opgen_arena_zalloc(opgen_arena *a, size_t n);
/* n bytes with no alignment (text), taken from the far end of the current block;
 * NULL when out of memory. */
void *opgen_arena_alloc_bytes(opgen_arena *a, size_t n);
/* Frees grown blocks (the caller's buffer is the caller's). */
void opgen_arena_release(opgen_arena *a);
/* Forgets everything allocated; a growing arena keeps its current block for reuse. */
void opgen_arena_reset(opgen_arena *a);
/* A point to return to: restoring it gives back everything allocated since. */
typedef struct opgen_arena_mark {
    opgen_arena_block *blocks, *cur;
    uint8_t *base;
    size_t size, used;
} opgen_arena_mark;
opgen_arena_mark opgen_arena_save(const opgen_arena *a);
void opgen_arena_restore(opgen_arena *a, opgen_arena_mark m);

/* A dense tensor. dim_order lists dimensions from outermost to innermost in
 * memory (0, 1, ..., n-1 for contiguous); strides are in elements. */
struct opgen_tensor {
    opgen_dtype dtype;
    int32_t dim;
    int64_t sizes[OPGEN_MAX_DIM];
    int64_t strides[OPGEN_MAX_DIM];
    uint8_t dim_order[OPGEN_MAX_DIM];
    void *data;
    size_t capacity; /* bytes at data; 0 for an output the kernel sizes and allocates */
};
typedef struct opgen_tensor opgen_tensor;

/* Memory formats, as a kernel's MemoryFormat argument and graph text hold them. */
enum { OPGEN_MEMFMT_CONTIGUOUS, OPGEN_MEMFMT_CHANNELS_LAST, OPGEN_MEMFMT_CHANNELS_LAST_3D, OPGEN_MEMFMT_PRESERVE };

int opgen_dtype_size(opgen_dtype d);
const char *opgen_dtype_name(opgen_dtype d);
int64_t opgen_numel(const opgen_tensor *t);
/* The first of n Bool bytes that is neither 0 nor 1 (C's bool holds only those:
 * data from outside is checked before a kernel reads it as bool), or -1. */
int64_t opgen_bool_check(const void *data, int64_t n);
size_t opgen_nbytes(const opgen_tensor *t);
/* Sets sizes, contiguous strides and the default dim order; data is left alone. */
opgen_status opgen_tensor_shape(opgen_tensor *t, opgen_dtype dtype, int32_t dim, const int64_t *sizes,
                                opgen_error *err);
/* The same in a dim order (outermost dimension first; NULL: the default), which
 * must be a permutation of 0..dim-1: strides follow it (channels-last is 0,2,3,1). */
opgen_status opgen_tensor_shape_ordered(opgen_tensor *t, opgen_dtype dtype, int32_t dim, const int64_t *sizes,
                                        const uint8_t *dim_order, opgen_error *err);
/* Shape + zeroed data from the arena. */
opgen_status opgen_tensor_alloc(opgen_tensor *t, opgen_dtype dtype, int32_t dim, const int64_t *sizes, opgen_arena *a,
                                opgen_error *err);
bool opgen_tensor_is_contiguous(const opgen_tensor *t);
/* The bytes t may occupy from its data: as far as its strides reach, or its
 * capacity where larger (a kernel may resize it within that). */
size_t opgen_tensor_span(const opgen_tensor *t);
/* Whether a's and b's spans overlap (false where either has no data): the one
 * overlap rule of the runtime, for kernels and load-time rewrites alike. */
bool opgen_tensors_overlap(const opgen_tensor *a, const opgen_tensor *b);

#ifdef __cplusplus
}
#endif
#endif
