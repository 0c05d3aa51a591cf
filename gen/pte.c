/* What a .pte program needs, for selections: each KernelCall's operator and
 * kernel key, read with the runtime's reader (opgen/pte.h). */
#include "pte.h"
#include "load.h"
#include "opgen/pte.h"
#include "strbuf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "dtype;order" of value i when it is a tensor (the default order when none is
 * written); false otherwise. */
static bool tensor_key(const opgen_pte *p, const opgen_pte_plan *pl, int64_t i, strbuf *key, opgen_error *err, bool *failed) {
    opgen_pte_value v;
    if (i < 0 || i >= pl->values.len) return false;
    if (opgen_pte_value_at(p, pl, (uint32_t)i, &v, err)) return !(*failed = true);
    if (v.kind != OPGEN_EV_TENSOR) return false;
    sb_printf(key, "%d;", v.t.scalar_type);
    uint32_t n = v.t.dim_order.len ? v.t.dim_order.len : v.t.sizes.len;
    for (uint32_t k = 0; k < n; k++) sb_printf(key, "%s%u", k ? "," : "", v.t.dim_order.len ? opgen_pte_u8(p, v.t.dim_order, k) : k);
    return true;
}

/* The tensor an argument contributes to the key: a Tensor, a TensorList's first
 * element, an OptionalTensorList's first present one; else nothing. */
static bool arg_key(const opgen_pte *p, const opgen_pte_plan *pl, int32_t i, strbuf *key, opgen_error *err, bool *failed) {
    opgen_pte_value v;
    if (i < 0 || (uint32_t)i >= pl->values.len)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0, "a KernelCall argument %d is out of range: method '%s' has %u values", i, pl->name, pl->values.len), !(*failed = true);
    if (opgen_pte_value_at(p, pl, (uint32_t)i, &v, err)) return !(*failed = true);
    if (v.kind == OPGEN_EV_TENSOR) return tensor_key(p, pl, i, key, err, failed);
    if (v.kind != OPGEN_EV_TENSOR_LIST && v.kind != OPGEN_EV_OPT_TENSOR_LIST) return false;
    for (uint32_t k = 0; k < v.items.len; k++) {
        int32_t item = opgen_pte_i32(p, v.items, k);
        if (item != -1) return tensor_key(p, pl, item, key, err, failed);
    }
    return false;
}

static bool read_call(arena *a, const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in, og_pte_call *call, strbuf *key, opgen_error *err) {
    const char *name, *overload;
    if (in->a < 0 || opgen_pte_operator_at(p, pl, (uint32_t)in->a, &name, &overload, err)) {
        if (in->a < 0) opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0, "a KernelCall's op_index %d is out of range", in->a);
        return false;
    }
    sb_reset(key);
    sb_puts(key, "v1/");
    bool failed = false;
    for (uint32_t x = 0; x < in->args.len && !failed; x++) {
        size_t mark = key->n;
        if (key->n > 3) sb_putc(key, '|');
        if (!arg_key(p, pl, opgen_pte_i32(p, in->args, x), key, err, &failed)) key->n = mark, key->p[mark] = 0;
    }
    if (failed) return false;
    call->op = *overload ? arena_printf(a, "%s.%s", name, overload) : arena_strndup(a, name, strlen(name));
    call->key = arena_strndup(a, key->p, key->n);
    call->method = arena_strndup(a, pl->name, strlen(pl->name));
    return true;
}

static bool read_plan(arena *a, const opgen_pte *p, uint32_t i, og_pte *out, unsigned *cap, strbuf *key, opgen_error *err) {
    opgen_pte_plan pl;
    if (opgen_pte_plan_at(p, i, &pl, err)) return false;
    out->nmethods++;
    for (uint32_t c = 0; c < pl.chains.len; c++) {
        opgen_pte_vec instrs;
        if (opgen_pte_chain_at(p, &pl, c, &instrs, err)) return false;
        for (uint32_t k = 0; k < instrs.len; k++) {
            opgen_pte_instr in;
            if (opgen_pte_instr_at(p, &instrs, k, &in, err)) return false;
            out->ndelegate_calls += in.kind == OPGEN_INSTR_DELEGATE;
            if (in.kind != OPGEN_INSTR_KERNEL) continue; /* only KernelCalls need kernels */
            if (out->ncalls == *cap) out->calls = og_xrealloc(out->calls, sizeof *out->calls * (*cap *= 2));
            if (!read_call(a, p, &pl, &in, &out->calls[out->ncalls], key, err)) return false;
            out->ncalls++;
        }
    }
    return true;
}

bool og_pte_read(arena *a, const char *file, const unsigned char *buf, size_t len, og_pte *out, diag *d) {
    memset(out, 0, sizeof *out);
    opgen_pte p;
    opgen_error err = {0};
    bool ok = !opgen_pte_open(&p, buf, len, file, &err);
    unsigned cap = 16;
    out->calls = og_xmalloc(sizeof *out->calls * cap);
    strbuf key;
    sb_init(&key);
    for (uint32_t i = 0; ok && i < p.plans.len; i++) ok = read_plan(a, &p, i, out, &cap, &key, &err);
    sb_free(&key);
    if (!ok) {
        diag_error(d, file, 0, 0, "%s", err.msg);
        free(out->calls);
        memset(out, 0, sizeof *out);
    }
    return ok;
}

bool og_pte_read_file(arena *a, const char *path, og_pte *out, diag *d) {
    char *buf;
    size_t n;
    return og_read_file(a, d, path, &buf, &n) && og_pte_read(a, path, (const unsigned char *)buf, n, out, d);
}
