/* The .pte reader on programs built here byte by byte (a small FlatBuffers
 * writer): several methods, delegate calls, tensor lists and optional tensor
 * lists, absent optional fields (no dim order, no scalar_type), then every
 * truncation and many corruptions of the buffer: each is an error or the same
 * result, never a read out of bounds (the suite runs this under ASan too).
 * With a corpus folder, also ExecuTorch's own two programs.
 * usage: test_pte [CORPUS_DIR] */
#include "check.h"
#include "pte.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a front-to-back FlatBuffers writer: children after parents, so every
 * offset points forward as the format requires ---- */
typedef struct fbw {
    uint8_t b[16384];
    size_t n;
} fbw;

static size_t align4(fbw *w) {
    while (w->n % 4) w->b[w->n++] = 0;
    return w->n;
}
static void put32(fbw *w, size_t at, uint32_t v) {
    for (int i = 0; i < 4; i++) w->b[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}
static size_t emit32(fbw *w, uint32_t v) {
    size_t at = align4(w);
    put32(w, at, v);
    w->n += 4;
    return at;
}
/* Points the offset at `at` to `target` (later in the buffer). */
static void link(fbw *w, size_t at, size_t target) { put32(w, at, (uint32_t)(target - at)); }

/* A table with nslots 4-byte fields; present[i] says which are written. Returns
 * the table's position; field i is at table + 4 + 4 * i. */
static size_t table(fbw *w, int nslots, const int *present) {
    align4(w);
    size_t vt = w->n;
    uint16_t vsize = (uint16_t)(4 + 2 * nslots);
    w->b[w->n++] = (uint8_t)vsize, w->b[w->n++] = (uint8_t)(vsize >> 8);
    uint16_t tsize = (uint16_t)(4 + 4 * nslots);
    w->b[w->n++] = (uint8_t)tsize, w->b[w->n++] = (uint8_t)(tsize >> 8);
    for (int i = 0; i < nslots; i++) {
        uint16_t off = present[i] ? (uint16_t)(4 + 4 * i) : 0;
        w->b[w->n++] = (uint8_t)off, w->b[w->n++] = (uint8_t)(off >> 8);
    }
    size_t t = align4(w);
    put32(w, t, (uint32_t)(int32_t)(t - vt)); /* soffset: the vtable is before */
    w->n += 4;
    for (int i = 0; i < nslots; i++) emit32(w, 0);
    return t;
}
static size_t slot(size_t t, int i) { return t + 4 + 4 * (size_t)i; }
static size_t string(fbw *w, const char *s) {
    size_t at = emit32(w, (uint32_t)strlen(s));
    memcpy(w->b + w->n, s, strlen(s) + 1);
    w->n += strlen(s) + 1;
    return at;
}
/* A vector of n 4-byte elements (values filled by the caller). */
static size_t vector32(fbw *w, uint32_t n) {
    size_t at = emit32(w, n);
    for (uint32_t i = 0; i < n; i++) emit32(w, 0);
    return at;
}
static size_t bytes(fbw *w, const uint8_t *v, uint32_t n) {
    size_t at = emit32(w, n);
    memcpy(w->b + w->n, v, n);
    w->n += n;
    return at;
}

/* EValue tags and instruction tags of schema/program.fbs */
enum { EV_INT = 2, EV_TENSOR = 5, EV_TENSOR_LIST = 10, EV_OPT_TENSOR_LIST = 11, I_KERNEL = 1, I_DELEGATE = 2 };

/* A Tensor EValue: dtype < 0 leaves scalar_type out (Byte); rank sizes; dim
 * order written when order is given. */
static size_t tensor_value(fbw *w, int dtype, uint32_t rank, const uint8_t *order) {
    size_t ev = table(w, 2, (int[]){1, 1});
    w->b[slot(ev, 0)] = EV_TENSOR;
    size_t t = table(w, 4, (int[]){dtype >= 0, 0, 1, order != NULL});
    link(w, slot(ev, 1), t);
    if (dtype >= 0) w->b[slot(t, 0)] = (uint8_t)dtype;
    size_t sizes = vector32(w, rank);
    for (uint32_t i = 0; i < rank; i++) put32(w, sizes + 4 + 4 * i, 2 + i);
    link(w, slot(t, 2), sizes);
    if (order) link(w, slot(t, 3), bytes(w, order, rank));
    return ev;
}
static size_t list_value(fbw *w, int tag, const int32_t *items, uint32_t n) {
    size_t ev = table(w, 2, (int[]){1, 1});
    w->b[slot(ev, 0)] = (uint8_t)tag;
    size_t l = table(w, 1, (int[]){1});
    link(w, slot(ev, 1), l);
    size_t v = vector32(w, n);
    for (uint32_t i = 0; i < n; i++) put32(w, v + 4 + 4 * i, (uint32_t)items[i]);
    link(w, slot(l, 0), v);
    return ev;
}
static size_t int_value(fbw *w) {
    size_t ev = table(w, 2, (int[]){1, 1});
    w->b[slot(ev, 0)] = EV_INT;
    link(w, slot(ev, 1), table(w, 1, (int[]){0})); /* int_val left at its default, 0 */
    return ev;
}

/* One method: values, operators, one chain of instructions. */
typedef struct call {
    int kind; /* I_KERNEL or I_DELEGATE */
    int op;
    int32_t args[8];
    uint32_t nargs;
} call;

static size_t plan(fbw *w, const char *name, uint32_t nvalues, size_t (*values)(fbw *, size_t *),
                   const char *const ops[][2], uint32_t nops, const call *calls, uint32_t ncalls) {
    size_t p = table(w, 7, (int[]){1, 0, 1, 0, 0, 1, 1});
    link(w, slot(p, 0), string(w, name));
    size_t vv = vector32(w, nvalues), evs[16]; /* the vector first: offsets only point forward */
    size_t nv = values(w, evs);
    for (size_t i = 0; i < nv && i < nvalues; i++) link(w, vv + 4 + 4 * i, evs[i]);
    link(w, slot(p, 2), vv);
    size_t ov = vector32(w, nops);
    link(w, slot(p, 6), ov);
    for (uint32_t i = 0; i < nops; i++) {
        size_t o = table(w, 2, (int[]){1, ops[i][1] != NULL});
        link(w, ov + 4 + 4 * i, o);
        link(w, slot(o, 0), string(w, ops[i][0]));
        if (ops[i][1]) link(w, slot(o, 1), string(w, ops[i][1]));
    }
    size_t cv = vector32(w, 1);
    link(w, slot(p, 5), cv);
    size_t ch = table(w, 4, (int[]){0, 0, 1, 0});
    link(w, cv + 4, ch);
    size_t iv = vector32(w, ncalls);
    link(w, slot(ch, 2), iv);
    for (uint32_t i = 0; i < ncalls; i++) {
        size_t ins = table(w, 2, (int[]){1, 1});
        link(w, iv + 4 + 4 * i, ins);
        w->b[slot(ins, 0)] = (uint8_t)calls[i].kind;
        size_t kc = table(w, 2, (int[]){calls[i].op != 0, 1}); /* op_index 0 left out: its default */
        link(w, slot(ins, 1), kc);
        put32(w, slot(kc, 0), (uint32_t)calls[i].op);
        size_t av = vector32(w, calls[i].nargs);
        for (uint32_t k = 0; k < calls[i].nargs; k++) put32(w, av + 4 + 4 * k, (uint32_t)calls[i].args[k]);
        link(w, slot(kc, 1), av);
    }
    return p;
}

static const uint8_t order01[] = {0, 1}, order10[] = {1, 0};

/* forward: values 0..4 */
static size_t forward_values(fbw *w, size_t *ev) {
    ev[0] = tensor_value(w, 6, 2, order01); /* f32, dim order written */
    ev[1] = tensor_value(w, 6, 2, NULL);    /* f32, no dim order: 0,1 */
    ev[2] = tensor_value(w, 6, 2, order10); /* f32, channels-last-like */
    ev[3] = tensor_value(w, -1, 1, NULL);   /* no scalar_type: Byte */
    ev[4] = int_value(w);
    return 5;
}
/* backward: a TensorList and an OptionalTensorList */
static size_t backward_values(fbw *w, size_t *ev) {
    ev[0] = tensor_value(w, 4, 1, NULL); /* i64 */
    ev[1] = tensor_value(w, 7, 0, NULL); /* f64, 0-d */
    ev[2] = list_value(w, EV_TENSOR_LIST, (const int32_t[]){1, 0}, 2);
    ev[3] = list_value(w, EV_OPT_TENSOR_LIST, (const int32_t[]){-1, 0}, 2);
    ev[4] = int_value(w);
    ev[5] = tensor_value(w, 7, 1, NULL);
    return 6;
}

static size_t build(fbw *w) {
    memset(w, 0, sizeof *w);
    size_t root_at = emit32(w, 0);
    memcpy(w->b + 4, "ET12", 4);
    w->n = 8;
    size_t root = table(w, 2, (int[]){1, 1});
    link(w, root_at, root);
    put32(w, slot(root, 0), 0);
    size_t pv = vector32(w, 2);
    link(w, slot(root, 1), pv);
    static const char *const fops[][2] = {{"aten::add", "out"}, {"aten::relu", ""}};
    const call fcalls[] = {{I_KERNEL, 0, {0, 1, 4, 2, 2}, 5}, {I_DELEGATE, 0, {0}, 1}, {I_KERNEL, 1, {3, 3, 3}, 3}};
    link(w, pv + 4, plan(w, "forward", 5, forward_values, fops, 2, fcalls, 3));
    static const char *const bops[][2] = {{"aten::cat", "out"}, {"aten::index", "Tensor_out"}};
    const call bcalls[] = {{I_KERNEL, 0, {2, 4, 5, 5}, 4}, {I_KERNEL, 1, {0, 3, 5, 5}, 4}};
    link(w, pv + 8, plan(w, "backward", 6, backward_values, bops, 2, bcalls, 2));
    return w->n;
}

static const char *const expected[][3] = {
    {"forward", "aten::add.out", "v1/6;0,1|6;0,1|6;1,0|6;1,0"},
    {"forward", "aten::relu", "v1/0;0|0;0|0;0"},
    {"backward", "aten::cat.out", "v1/7;|7;0|7;0"},
    {"backward", "aten::index.Tensor_out", "v1/4;0|4;0|7;0|7;0"},
};

static bool same(const og_pte *a, const og_pte *b) {
    if (a->ncalls != b->ncalls || a->nmethods != b->nmethods || a->ndelegate_calls != b->ndelegate_calls) return false;
    for (unsigned i = 0; i < a->ncalls; i++)
        if (strcmp(a->calls[i].op, b->calls[i].op) || strcmp(a->calls[i].key, b->calls[i].key)) return false;
    return true;
}

int main(int argc, char **argv) {
    static fbw w;
    size_t n = build(&w);
    arena a;
    arena_init(&a);
    diag quiet;
    diag_init(&quiet, getenv("TEST_PTE_VERBOSE") ? stdout : NULL);
    og_pte p;
    CHECK(og_pte_read(&a, "built.pte", w.b, n, &p, &quiet), "the built program does not read");
    CHECK(p.nmethods == 2 && p.ncalls == 4 && p.ndelegate_calls == 1, "%u methods, %u kernel calls, %u delegate calls",
          p.nmethods, p.ncalls, p.ndelegate_calls);
    for (unsigned i = 0; i < p.ncalls && i < 4; i++)
        CHECK(!strcmp(p.calls[i].method, expected[i][0]) && !strcmp(p.calls[i].op, expected[i][1]) &&
                  !strcmp(p.calls[i].key, expected[i][2]),
              "call %u: %s %s %s, expected %s %s %s", i, p.calls[i].method, p.calls[i].op, p.calls[i].key,
              expected[i][0], expected[i][1], expected[i][2]);
    /* every truncation: an error, or (cutting only trailing padding) the same result */
    unsigned errors = 0;
    for (size_t cut = 0; cut < n; cut++) {
        og_pte q;
        if (og_pte_read(&a, "cut.pte", w.b, cut, &q, &quiet)) {
            CHECK(same(&p, &q), "truncated to %zu bytes, read differently", cut);
            free(q.calls);
        } else {
            errors++;
        }
    }
    CHECK(errors >= n - 4, "only %u of %zu truncations were errors", errors, n);
    /* every byte set to 0x00, 0xff and 0x7f, one at a time: no crash, no hang */
    static fbw c;
    unsigned flips = 0;
    for (size_t at = 0; at < n; at++)
        for (int v = 0; v < 3; v++) {
            c = w;
            c.b[at] = (uint8_t)(v == 0 ? 0x00 : v == 1 ? 0xff : 0x7f);
            og_pte q;
            if (og_pte_read(&a, "flip.pte", c.b, n, &q, &quiet)) free(q.calls);
            flips++;
        }
    free(p.calls);
    /* not a program */
    c = w;
    memcpy(c.b + 4, "TFL3", 4);
    CHECK(!og_pte_read(&a, "tflite.pte", c.b, n, &p, &quiet), "a wrong file identifier was accepted");
    free(p.calls);
    printf("test_pte: built program (2 methods, %zu bytes) read; %zu truncations, %u corruptions survived\n", n, n,
           flips);
    /* ExecuTorch's own programs: exactly the independent reading */
    if (argc > 1) {
        char path[4096];
        static const char *const files[] = {"add_model.pte", "module_linear.pte"};
        static const char *const want[][2][2] = {
            {{"aten::add.out", "v1/6;0|6;|6;0|6;0"}, {NULL, NULL}},
            {{"aten::mul.out", "v1/6;0,1|6;0,1|6;0,1|6;0,1"}, {"aten::add.out", "v1/6;0,1|6;0,1|6;0,1|6;0,1"}}};
        for (int f = 0; f < 2; f++) {
            snprintf(path, sizeof path, "%s/executorch/pte/%s", argv[1], files[f]);
            FILE *fp = fopen(path, "rb");
            if (!fp) {
                printf("SKIP: %s not found\n", path);
                continue;
            }
            fclose(fp);
            og_pte q;
            diag loud;
            diag_init(&loud, stdout);
            CHECK(og_pte_read_file(&a, path, &q, &loud), "%s does not read", path);
            unsigned nw = want[f][1][0] ? 2 : 1;
            CHECK(q.ncalls == nw, "%s: %u calls", files[f], q.ncalls);
            for (unsigned i = 0; i < q.ncalls && i < nw; i++)
                CHECK(!strcmp(q.calls[i].op, want[f][i][0]) && !strcmp(q.calls[i].key, want[f][i][1]), "%s: %s %s",
                      files[f], q.calls[i].op, q.calls[i].key);
            printf("test_pte: %s: %u kernel calls as ExecuTorch lists them\n", files[f], q.ncalls);
            free(q.calls);
        }
    }
    arena_free(&a);
    printf("test_pte: %d failed\n", failures);
    return failures != 0;
}
