#include "pte.h"
#include "load.h"
#include "strbuf.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The FlatBuffers binary layout, read defensively: a table starts with an i32
 * offset back to its vtable (u16 vtable size, u16 table size, u16 field offsets);
 * tables, vectors and strings are reached through u32 offsets relative to where
 * the offset is stored; a vector is a u32 length and its elements. */
typedef struct fb {
    const unsigned char *b;
    size_t n;
    const char *file;
    diag *d;
    bool failed;
} fb;

static bool bad(fb *f, size_t at, const char *what) {
    if (!f->failed) diag_error(f->d, f->file, 0, 0, "corrupt or truncated program: %s at byte %zu (the file has %zu bytes)", what, at, f->n);
    f->failed = true;
    return false;
}

static bool u32_at(fb *f, size_t at, uint32_t *v, const char *what) {
    if (at > f->n || f->n - at < 4) return bad(f, at, what);
    *v = (uint32_t)f->b[at] | (uint32_t)f->b[at + 1] << 8 | (uint32_t)f->b[at + 2] << 16 | (uint32_t)f->b[at + 3] << 24;
    return true;
}

static bool u16_at(fb *f, size_t at, uint16_t *v, const char *what) {
    if (at > f->n || f->n - at < 2) return bad(f, at, what);
    *v = (uint16_t)(f->b[at] | f->b[at + 1] << 8);
    return true;
}

/* The field `slot` of the table at t: its position, or 0 when absent. */
static size_t field(fb *f, size_t t, unsigned slot, const char *what) {
    uint32_t so;
    if (!u32_at(f, t, &so, what)) return 0;
    int64_t vt = (int64_t)t - (int64_t)(int32_t)so;
    uint16_t vsize, off;
    if (vt < 0 || !u16_at(f, (size_t)vt, &vsize, what)) return bad(f, t, what), 0;
    if (vsize < 4 || vsize % 2) return bad(f, (size_t)vt, what), 0;
    if (4 + 2 * (size_t)slot + 2 > vsize) return 0; /* a field added after this file was written */
    if (!u16_at(f, (size_t)vt + 4 + 2 * slot, &off, what)) return 0;
    if (!off) return 0;
    if ((size_t)off >= f->n - t) return bad(f, t, what), 0;
    return t + off;
}

/* Follows the u32 offset stored at `at`. */
static size_t deref(fb *f, size_t at, const char *what) {
    uint32_t o;
    if (!at || !u32_at(f, at, &o, what)) return 0;
    if (o == 0 || o > f->n - at) return bad(f, at, what), 0;
    return at + o;
}

/* A vector field: its first element's position and its length (0 when absent). */
static size_t vec(fb *f, size_t t, unsigned slot, size_t elem, uint32_t *len, const char *what) {
    *len = 0;
    size_t v = deref(f, field(f, t, slot, what), what);
    if (!v || !u32_at(f, v, len, what)) return 0;
    if ((uint64_t)*len * elem > f->n - v - 4) return *len = 0, bad(f, v, what), 0;
    return v + 4;
}

/* The table at element i of a vector of offsets at v. */
static size_t vec_table(fb *f, size_t v, uint32_t i, const char *what) { return deref(f, v + 4 * (size_t)i, what); }

static const char *str(fb *f, arena *a, size_t t, unsigned slot, const char *what) {
    size_t s = deref(f, field(f, t, slot, what), what);
    uint32_t len;
    if (!s || !u32_at(f, s, &len, what)) return NULL;
    if (len > f->n - s - 4) return bad(f, s, what), NULL;
    return arena_strndup(a, (const char *)f->b + s + 4, len);
}

static int64_t scalar(fb *f, size_t t, unsigned slot, unsigned size, int64_t dflt, const char *what) {
    size_t at = field(f, t, slot, what);
    if (!at) return dflt;
    if (size > f->n - at) return bad(f, at, what), dflt;
    if (size == 1) return (int8_t)f->b[at];
    uint32_t v;
    if (!u32_at(f, at, &v, what)) return dflt;
    return (int32_t)v;
}

enum { EV_TENSOR = 5, EV_TENSOR_LIST = 10, EV_OPT_TENSOR_LIST = 11 };

/* "dtype;dim,order" of the Tensor EValue at values[i]; false if it is not one. */
static bool tensor_meta(fb *f, size_t values, uint32_t nvalues, int32_t i, strbuf *key) {
    if (i < 0 || (uint32_t)i >= nvalues) return bad(f, values, "a value index out of range"), false;
    size_t ev = vec_table(f, values, (uint32_t)i, "an EValue");
    if (!ev) return false;
    int64_t type = scalar(f, ev, 0, 1, 0, "an EValue's type") & 0xff;
    if (type != EV_TENSOR) return false;
    size_t t = deref(f, field(f, ev, 1, "an EValue"), "a Tensor");
    if (!t) return false;
    int dtype = (int)scalar(f, t, 0, 1, 0, "a Tensor's scalar_type");
    uint32_t nsizes, norder;
    vec(f, t, 2, 4, &nsizes, "a Tensor's sizes");
    size_t order = vec(f, t, 3, 1, &norder, "a Tensor's dim_order");
    sb_printf(key, "%d;", dtype);
    if (norder) /* as written */
        for (uint32_t k = 0; k < norder; k++) sb_printf(key, "%s%u", k ? "," : "", f->b[order + k]);
    else /* none written: the default order 0..n-1 */
        for (uint32_t k = 0; k < nsizes; k++) sb_printf(key, "%s%u", k ? "," : "", k);
    return true;
}

/* The tensor a kernel argument contributes to its key: a Tensor, a TensorList's
 * first element, an OptionalTensorList's first present one; else nothing. */
static bool arg_meta(fb *f, size_t values, uint32_t nvalues, int32_t i, strbuf *key) {
    if (i < 0 || (uint32_t)i >= nvalues) return bad(f, values, "an argument index out of range"), false;
    size_t ev = vec_table(f, values, (uint32_t)i, "an EValue");
    if (!ev) return false;
    int64_t type = scalar(f, ev, 0, 1, 0, "an EValue's type") & 0xff;
    if (type == EV_TENSOR) return tensor_meta(f, values, nvalues, i, key);
    if (type != EV_TENSOR_LIST && type != EV_OPT_TENSOR_LIST) return false;
    size_t l = deref(f, field(f, ev, 1, "an EValue"), "a tensor list");
    uint32_t n;
    size_t items = l ? vec(f, l, 0, 4, &n, "a tensor list's items") : 0;
    for (uint32_t k = 0; items && k < n; k++) {
        uint32_t item;
        if (!u32_at(f, items + 4 * (size_t)k, &item, "a tensor list item")) return false;
        if ((int32_t)item == -1) continue; /* None in an optional list */
        return tensor_meta(f, values, nvalues, (int32_t)item, key);
    }
    return false;
}

bool og_pte_read(arena *a, const char *file, const unsigned char *buf, size_t len, og_pte *out, diag *d) {
    fb f = {buf, len, file, d, false};
    memset(out, 0, sizeof *out);
    if (len < 8) return bad(&f, 0, "a file too short for a FlatBuffers header");
    if (memcmp(buf + 4, "ET12", 4) != 0) {
        diag_error(d, file, 0, 0, "not an ExecuTorch program: the FlatBuffers file identifier is '%c%c%c%c', expected 'ET12'", buf[4] >= 32 && buf[4] < 127 ? buf[4] : '?',
                   buf[5] >= 32 && buf[5] < 127 ? buf[5] : '?', buf[6] >= 32 && buf[6] < 127 ? buf[6] : '?', buf[7] >= 32 && buf[7] < 127 ? buf[7] : '?');
        return false;
    }
    uint32_t ro; /* the root table's offset sits at byte 0 (deref() reads 0 as absent) */
    size_t root = u32_at(&f, 0, &ro, "the root table offset") && ro >= 8 && ro < len ? ro : (bad(&f, 0, "the root table offset"), 0);
    uint32_t nplans;
    size_t plans = root ? vec(&f, root, 1, 4, &nplans, "Program.execution_plan") : 0;
    if (f.failed) return false;
    unsigned cap = 16;
    out->calls = og_xmalloc(sizeof *out->calls * cap);
    strbuf key;
    sb_init(&key);
    for (uint32_t p = 0; plans && p < nplans && !f.failed; p++) {
        size_t plan = vec_table(&f, plans, p, "an ExecutionPlan");
        if (!plan) break;
        out->nmethods++;
        const char *method = str(&f, a, plan, 0, "ExecutionPlan.name");
        uint32_t nvalues, nops, nchains;
        size_t values = vec(&f, plan, 2, 4, &nvalues, "ExecutionPlan.values");
        size_t ops = vec(&f, plan, 6, 4, &nops, "ExecutionPlan.operators");
        size_t chains = vec(&f, plan, 5, 4, &nchains, "ExecutionPlan.chains");
        for (uint32_t c = 0; chains && c < nchains && !f.failed; c++) {
            size_t chain = vec_table(&f, chains, c, "a Chain");
            uint32_t ninstr;
            size_t instrs = chain ? vec(&f, chain, 2, 4, &ninstr, "Chain.instructions") : 0;
            for (uint32_t k = 0; instrs && k < ninstr && !f.failed; k++) {
                size_t ins = vec_table(&f, instrs, k, "an Instruction");
                if (!ins) break;
                int64_t type = scalar(&f, ins, 0, 1, 0, "an Instruction's type") & 0xff;
                if (type == 2) out->ndelegate_calls++;
                if (type != 1) continue; /* only KernelCalls need kernels */
                size_t call = deref(&f, field(&f, ins, 1, "an Instruction"), "a KernelCall");
                if (!call) break;
                int64_t opi = scalar(&f, call, 0, 4, 0, "KernelCall.op_index");
                if (opi < 0 || (uint64_t)opi >= nops) {
                    bad(&f, call, "a KernelCall's op_index out of range");
                    break;
                }
                size_t op = vec_table(&f, ops, (uint32_t)opi, "an Operator");
                const char *name = op ? str(&f, a, op, 0, "Operator.name") : NULL, *overload = op ? str(&f, a, op, 1, "Operator.overload") : NULL;
                if (!name) {
                    if (!f.failed) bad(&f, op, "an Operator without a name");
                    break;
                }
                uint32_t nargs;
                size_t args = vec(&f, call, 1, 4, &nargs, "KernelCall.args");
                sb_reset(&key);
                sb_puts(&key, "v1/");
                bool first = true;
                for (uint32_t x = 0; args && x < nargs && !f.failed; x++) {
                    uint32_t idx;
                    if (!u32_at(&f, args + 4 * (size_t)x, &idx, "a KernelCall argument")) break;
                    size_t mark = key.n;
                    if (!first) sb_putc(&key, '|');
                    if (arg_meta(&f, values, nvalues, (int32_t)idx, &key))
                        first = false;
                    else
                        key.n = mark, key.p[mark] = 0;
                }
                if (f.failed) break;
                if (out->ncalls == cap) {
                    out->calls = og_xrealloc(out->calls, sizeof *out->calls * (cap *= 2));
                }
                og_pte_call *pc = &out->calls[out->ncalls++];
                pc->op = overload && *overload ? arena_printf(a, "%s.%s", name, overload) : name;
                pc->key = arena_strndup(a, key.p, key.n);
                pc->method = method ? method : "";
            }
        }
    }
    sb_free(&key);
    if (f.failed) {
        free(out->calls);
        memset(out, 0, sizeof *out);
        return false;
    }
    return true;
}

bool og_pte_read_file(arena *a, const char *path, og_pte *out, diag *d) {
    char *buf;
    size_t n;
    return og_read_file(a, d, path, &buf, &n) && og_pte_read(a, path, (const unsigned char *)buf, n, out, d);
}
