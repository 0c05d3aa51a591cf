/* The test suite's .pte writer (ptew.h). */
#include "ptew.h"
#include <stdlib.h>
#include <string.h>

typedef struct wbuf {
    uint8_t *b;
    size_t n, cap;
} wbuf;

static void reserve(wbuf *w, size_t more) {
    if (w->n + more <= w->cap) return;
    while (w->n + more > w->cap) w->cap = w->cap ? 2 * w->cap : 4096;
    w->b = realloc(w->b, w->cap);
    if (!w->b) abort(); /* a test tool: out of memory ends it */
}
static void zeros(wbuf *w, size_t n) {
    reserve(w, n);
    memset(w->b + w->n, 0, n);
    w->n += n;
}
static void pad(wbuf *w, size_t align) {
    if (w->n % align) zeros(w, align - w->n % align);
}
static void put(wbuf *w, size_t at, uint64_t v, int width) {
    for (int i = 0; i < width; i++) w->b[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}
static void link(wbuf *w, size_t at, size_t target) { put(w, at, (uint32_t)(target - at), 4); }

/* A table whose slot i holds width[i] bytes (0: absent); pos[i] gets each field's
 * position. Its vtable comes just before it. */
static size_t table(wbuf *w, int nslots, const int *width, size_t *pos) {
    uint16_t off[16] = {0}, o = 4;
    for (int i = 0; i < nslots; i++)
        if (width[i]) off[i] = o, o = (uint16_t)(o + (width[i] < 4 ? 4 : width[i]));
    pad(w, 4);
    size_t vt = w->n;
    zeros(w, 4 + 2 * (size_t)nslots);
    put(w, vt, (uint64_t)(4 + 2 * nslots), 2);
    put(w, vt + 2, o, 2);
    for (int i = 0; i < nslots; i++) put(w, vt + 4 + 2 * (size_t)i, off[i], 2);
    pad(w, 4);
    size_t t = w->n;
    zeros(w, o);
    put(w, t, (uint32_t)(t - vt), 4);
    for (int i = 0; i < nslots; i++) pos[i] = off[i] ? t + off[i] : 0;
    return t;
}

/* A vector of n elements of elem bytes, its data aligned to `align`: the
 * position of its length; elements at +4. */
static size_t vector(wbuf *w, uint32_t n, size_t elem, size_t align) {
    pad(w, 4);
    while ((w->n + 4) % align) zeros(w, 4);
    size_t at = w->n;
    zeros(w, 4 + (size_t)n * elem);
    put(w, at, n, 4);
    return at;
}
static size_t string(wbuf *w, const char *s) {
    size_t n = strlen(s), at = vector(w, (uint32_t)n + 1, 1, 4);
    put(w, at, n, 4);
    memcpy(w->b + at + 4, s, n);
    return at;
}
static size_t vec_i32(wbuf *w, int n, const int32_t *v) {
    size_t at = vector(w, (uint32_t)n, 4, 4);
    for (int i = 0; i < n; i++) put(w, at + 4 + 4 * (size_t)i, (uint32_t)v[i], 4);
    return at;
}
static size_t vec_i64(wbuf *w, int n, const int64_t *v) {
    size_t at = vector(w, (uint32_t)n, 8, 8);
    for (int i = 0; i < n; i++) put(w, at + 4 + 8 * (size_t)i, (uint64_t)v[i], 8);
    return at;
}
static size_t vec_bytes(wbuf *w, size_t n, const void *v, size_t align) {
    size_t at = vector(w, (uint32_t)n, 1, align);
    if (n) memcpy(w->b + at + 4, v, n);
    return at;
}
/* Links slot position `at` to a vector of tables written by fn, one per item. */
static void tables(wbuf *w, size_t at, int n, size_t (*fn)(wbuf *, const void *, int), const void *ctx) {
    size_t v = vector(w, (uint32_t)n, 4, 4);
    link(w, at, v);
    for (int i = 0; i < n; i++) link(w, v + 4 + 4 * (size_t)i, fn(w, ctx, i));
}

static size_t tensor(wbuf *w, const pw_value *v) {
    size_t f[9];
    int width[9] = {v->dtype >= 0 ? 1 : 0, v->storage_offset ? 4 : 0, 4, v->no_order ? 0 : 4, 0,
                    v->data ? 4 : 0,       v->mem_id ? 4 : 0,         0, v->dynamism ? 1 : 0};
    size_t t = table(w, 9, width, f);
    if (v->dtype >= 0) put(w, f[0], (uint8_t)v->dtype, 1);
    if (v->storage_offset) put(w, f[1], (uint32_t)v->storage_offset, 4);
    if (v->data) put(w, f[5], v->data, 4);
    if (v->dynamism) put(w, f[8], (uint8_t)v->dynamism, 1);
    link(w, f[2], vec_i32(w, v->dim, v->sizes));
    if (!v->no_order) {
        uint8_t order[8];
        for (int d = 0; d < v->dim; d++) order[d] = v->order ? v->order[d] : (uint8_t)d;
        link(w, f[3], vec_bytes(w, (size_t)v->dim, order, 4));
    }
    if (v->mem_id) {
        size_t g[3];
        size_t al = table(w, 3, (int[]){4, 4, v->mem_off >> 32 ? 4 : 0}, g);
        link(w, f[6], al);
        put(w, g[0], (uint32_t)v->mem_id, 4);
        put(w, g[1], (uint32_t)v->mem_off, 4);
        if (v->mem_off >> 32) put(w, g[2], (uint32_t)(v->mem_off >> 32), 4);
    }
    return t;
}

static size_t evalue(wbuf *w, const void *ctx, int i) {
    const pw_value *v = &((const pw_value *)ctx)[i];
    size_t f[2], g[1];
    size_t ev = table(w, 2, (int[]){1, v->kind > PW_NULL ? 4 : 0}, f);
    put(w, f[0], (uint8_t)v->kind, 1);
    size_t x = 0;
    switch (v->kind) {
    case PW_NULL:
    case PW_NONE: return ev;
    case PW_INT: x = table(w, 1, (int[]){8}, g), put(w, g[0], (uint64_t)v->i, 8); break;
    case PW_BOOL: x = table(w, 1, (int[]){1}, g), put(w, g[0], v->b, 1); break;
    case PW_DOUBLE: {
        uint64_t u;
        memcpy(&u, &v->f, 8);
        x = table(w, 1, (int[]){8}, g), put(w, g[0], u, 8);
        break;
    }
    case PW_STRING: x = table(w, 1, (int[]){4}, g), link(w, g[0], string(w, v->s)); break;
    case PW_TENSOR: x = tensor(w, v); break;
    case PW_INT_LIST: x = table(w, 1, (int[]){4}, g), link(w, g[0], vec_i64(w, v->n, v->items)); break;
    case PW_DOUBLE_LIST: {
        int64_t bits[16];
        memcpy(bits, v->d, sizeof(double) * (size_t)v->n);
        x = table(w, 1, (int[]){4}, g), link(w, g[0], vec_i64(w, v->n, bits));
        break;
    }
    case PW_BOOL_LIST: {
        uint8_t b[16];
        for (int k = 0; k < v->n; k++) b[k] = (uint8_t)(v->items[k] != 0);
        x = table(w, 1, (int[]){4}, g), link(w, g[0], vec_bytes(w, (size_t)v->n, b, 4));
        break;
    }
    default: { /* tensor lists: i32 value indices */
        int32_t items[16];
        for (int k = 0; k < v->n; k++) items[k] = (int32_t)v->items[k];
        x = table(w, 1, (int[]){4}, g), link(w, g[0], vec_i32(w, v->n, items));
        break;
    }
    }
    link(w, f[1], x);
    return ev;
}

static size_t instruction(wbuf *w, const void *ctx, int i) {
    const pw_instr *in = &((const pw_instr *)ctx)[i];
    size_t f[2], g[2];
    size_t t = table(w, 2, (int[]){1, 4}, f);
    put(w, f[0], (uint8_t)in->kind, 1);
    bool lists = in->kind == PW_KERNEL || in->kind == PW_DELEGATE;
    size_t x = table(w, in->kind == PW_FREE ? 1 : 2, (int[]){4, 4}, g);
    link(w, f[1], x);
    put(w, g[0], (uint32_t)in->a, 4);
    if (lists)
        link(w, g[1], vec_i32(w, in->n, in->args));
    else if (in->kind != PW_FREE)
        put(w, g[1], (uint32_t)in->b, 4);
    return t;
}

static size_t op(wbuf *w, const void *ctx, int i) {
    const pw_plan *pl = ctx;
    size_t f[2];
    size_t t = table(w, 2, (int[]){4, 4}, f);
    link(w, f[0], string(w, pl->ops[i][0]));
    link(w, f[1], string(w, pl->ops[i][1] ? pl->ops[i][1] : ""));
    return t;
}

static size_t chain(wbuf *w, const void *ctx, int i) {
    const pw_plan *pl = ctx;
    size_t f[4];
    (void)i;
    size_t t = table(w, 4, (int[]){0, 0, 4, 0}, f);
    tables(w, f[2], pl->ncode, instruction, pl->code);
    return t;
}

/* Delegate i: its id, its payload inline (backend_delegate_data[i]). */
static size_t delegate(wbuf *w, const void *ctx, int i) {
    const pw_plan *pl = ctx;
    size_t f[3], g[2];
    size_t t = table(w, 3, (int[]){4, 4, 0}, f);
    link(w, f[0], string(w, pl->delegates[i]));
    size_t ref = table(w, 2, (int[]){1, 4}, g);
    link(w, f[1], ref);
    put(w, g[1], (uint32_t)i, 4);
    return t;
}

static size_t plan(wbuf *w, const void *ctx, int i) {
    const pw_plan *pl = &((const pw_plan *)ctx)[i];
    size_t f[9];
    size_t t = table(w, 9, (int[]){4, 0, 4, 4, 4, 4, 4, pl->ndelegates ? 4 : 0, 4}, f);
    link(w, f[0], string(w, pl->name));
    tables(w, f[2], pl->nvalues, evalue, pl->values);
    link(w, f[3], vec_i32(w, pl->ninputs, pl->inputs));
    link(w, f[4], vec_i32(w, pl->noutputs, pl->outputs));
    tables(w, f[5], 1, chain, pl);
    tables(w, f[6], pl->nops, op, pl);
    if (pl->ndelegates) tables(w, f[7], pl->ndelegates, delegate, pl);
    link(w, f[8], vec_i64(w, pl->nbuffers, pl->buffers));
    return t;
}

static size_t inline_data(wbuf *w, const void *ctx, int i) {
    const pw_plan *pl = ctx;
    size_t f[1];
    size_t t = table(w, 1, (int[]){4}, f);
    link(w, f[0], vec_bytes(w, strlen(pl->delegates[i]), pl->delegates[i], 16)); /* the payload: its id's bytes */
    return t;
}

static size_t constant_buffer(wbuf *w, const void *ctx, int i) {
    const pw_program *p = ctx;
    size_t f[1];
    size_t t = table(w, 1, (int[]){4}, f);
    link(w, f[0], i ? vec_bytes(w, p->constant_sizes[i - 1], p->constants[i - 1], 16) : vec_bytes(w, 0, NULL, 16));
    return t;
}

uint8_t *pw_build(const pw_program *prog, size_t *len) {
    wbuf w = {0};
    zeros(&w, 40); /* root offset, "ET12", the extended header */
    memcpy(w.b + 4, "ET12", 4);
    bool segment = !prog->legacy && prog->nconstants;
    size_t f[7];
    size_t root = table(&w, 7, (int[]){4, 4, prog->legacy ? 4 : 0, 4, segment ? 4 : 0, segment ? 4 : 0, 0}, f);
    link(&w, 0, root);
    tables(&w, f[1], prog->nplans, plan, prog->plans);
    if (prog->legacy) tables(&w, f[2], prog->nconstants + 1, constant_buffer, prog);
    const pw_plan *with_delegates = NULL; /* the inline payloads of the first method that delegates */
    for (int i = 0; i < prog->nplans && !with_delegates; i++)
        if (prog->plans[i].ndelegates) with_delegates = &prog->plans[i];
    tables(&w, f[3], with_delegates ? with_delegates->ndelegates : 0, inline_data, with_delegates);
    int64_t offsets[17] = {0};
    size_t total = 0;
    for (int i = 0; segment && i < prog->nconstants; i++)
        offsets[i + 1] = (int64_t)total, total += (prog->constant_sizes[i] + 15) & ~(size_t)15;
    if (segment) {
        size_t g[2], sv = vector(&w, 1, 4, 4), s;
        link(&w, f[4], sv);
        link(&w, sv + 4, s = table(&w, 2, (int[]){8, 8}, g));
        put(&w, g[1], total, 8);
        size_t cs = table(&w, 2, (int[]){4, 4}, g);
        link(&w, f[5], cs);
        link(&w, g[1], vec_i64(&w, prog->nconstants + 1, offsets));
        (void)s;
    }
    pad(&w, 16);
    size_t fb = w.n;
    memcpy(w.b + 8, "eh00", 4);
    put(&w, 12, 32, 4);
    put(&w, 16, fb, 8);
    put(&w, 24, segment ? fb : 0, 8);
    put(&w, 32, total, 8);
    for (int i = 0; segment && i < prog->nconstants; i++) {
        zeros(&w, (prog->constant_sizes[i] + 15) & ~(size_t)15);
        memcpy(w.b + fb + (size_t)offsets[i + 1], prog->constants[i], prog->constant_sizes[i]);
    }
    *len = w.n;
    return w.b;
}

pw_value pw_tensor(int dtype, int dim, const int32_t *sizes, int mem_id, uint64_t mem_off, uint32_t data) {
    pw_value v = {0};
    v.kind = PW_TENSOR, v.dtype = dtype, v.dim = dim, v.mem_id = mem_id, v.mem_off = mem_off, v.data = data;
    for (int d = 0; d < dim && d < 8; d++) v.sizes[d] = sizes[d];
    return v;
}
pw_value pw_int(int64_t x) { return (pw_value){.kind = PW_INT, .i = x}; }
pw_value pw_double(double x) { return (pw_value){.kind = PW_DOUBLE, .f = x}; }
pw_value pw_bool(bool x) { return (pw_value){.kind = PW_BOOL, .b = x}; }
pw_value pw_null(void) { return (pw_value){.kind = PW_NULL}; }
pw_value pw_string(const char *s) { return (pw_value){.kind = PW_STRING, .s = s}; }
pw_value pw_list(int kind, int n, const int64_t *items) {
    pw_value v = {0};
    v.kind = kind, v.n = n;
    for (int k = 0; k < n && k < 16; k++) v.items[k] = items[k];
    return v;
}
