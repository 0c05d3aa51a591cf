/* What a .pte program needs, for selections: each KernelCall's operator and
 * kernel key, read with the runtime's reader (opgen/pte.h). */
enum { OG_PTE_KEY_MAX = 16384 }; /* 512 tensor arguments of rank 16 */
#include "pte.h"
#include "load.h"
#include "opgen/pte.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool read_call(arena *a, const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in,
                      og_pte_call *call, char *key, size_t cap, opgen_error *err) {
    const char *name, *overload;
    if (in->a < 0 || opgen_pte_operator_at(p, pl, (uint32_t)in->a, &name, &overload, err)) {
        if (in->a < 0)
            opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0, "a KernelCall's op_index %d is out of range", in->a);
        return false;
    }
    int64_t n = opgen_pte_kernel_key(p, pl, in, key, cap, err);
    if (n < 0) return false;
    if ((size_t)n >= cap)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0, "%s: a kernel key longer than %zu bytes", name, cap),
               false;
    call->op = *overload ? arena_printf(a, "%s.%s", name, overload) : arena_strndup(a, name, strlen(name));
    call->key = arena_strndup(a, key, (size_t)n);
    call->method = arena_strndup(a, pl->name, strlen(pl->name));
    return true;
}

static bool read_plan(arena *a, const opgen_pte *p, uint32_t i, og_pte *out, unsigned *cap, char *key, size_t keycap,
                      opgen_error *err) {
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
            if (!read_call(a, p, &pl, &in, &out->calls[out->ncalls], key, keycap, err)) return false;
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
    char *key = og_xmalloc(OG_PTE_KEY_MAX);
    for (uint32_t i = 0; ok && i < p.plans.len; i++) ok = read_plan(a, &p, i, out, &cap, key, OG_PTE_KEY_MAX, &err);
    free(key);
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
