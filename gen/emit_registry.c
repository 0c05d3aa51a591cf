/* opgen_registry.h: the kernel table of a kernel yaml set (and of the backend
 * ops' fallbacks), with one boxed trampoline per distinct kernel signature. */
#include "abi.h"
#include "emit.h"
#include "tmpl.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The trampoline key of a schema: each parameter's C type and how it is unboxed
 * (Scalar and Scalar? share a C type, not the unboxing). */
void og_kernel_signature(strbuf *b, const og_schema *s) {
    og_kparam ps[96];
    unsigned n = og_kernel_params(s, ps, 96);
    for (unsigned i = 0; i < n; i++) sb_printf(b, "%s=%s;", ps[i].abi.ctype, ps[i].abi.expr);
}

static void emit_expr(strbuf *b, const char *expr, unsigned i) {
    for (const char *p = expr; *p; p++) {
        if (p[0] == '%' && p[1] == 'u') {
            sb_printf(b, "%u", i);
            p++;
        } else {
            sb_putc(b, *p);
        }
    }
}

void og_emit_trampoline(strbuf *b, const char *prefix, unsigned t, const og_schema *s) {
    og_kparam ps[96];
    unsigned n = og_kernel_params(s, ps, 96);
    sb_printf(
        b,
        "static opgen_status %s%u(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {\n    return ((opgen_status(*)(opgen_ctx *",
        prefix, t);
    for (unsigned i = 0; i < n; i++) sb_printf(b, ", %s", ps[i].abi.ctype);
    sb_puts(b, "))fn)(ctx");
    for (unsigned i = 0; i < n; i++) {
        sb_puts(b, ", ");
        emit_expr(b, ps[i].abi.expr, i);
    }
    sb_puts(b, ");\n}\n");
}

const char *og_fallback_symbol(arena *a, const og_func *f) {
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "opgen_fallback_%s_%s", f->ns, f->name);
    for (size_t i = 0; i < b.n; i++)
        if (b.p[i] == '.') b.p[i] = '_';
    const char *s = arena_strndup(a, b.p, b.n);
    sb_free(&b);
    return s;
}

/* The kernel a backend op falls back to: its pattern (or builtin) as C, computing
 * its out= variant (or, for a scalar prim, the op itself), for every dtype. */
static og_yaml_kernel fallback_kernel(const og_model *m, const og_backend_op *op) {
    og_yaml_kernel k;
    memset(&k, 0, sizeof k);
    k.func = op->out ? op->out : op->func;
    k.symbol = og_fallback_symbol(m->a, k.func);
    k.kernel_name = k.symbol;
    k.dtypes = op->out ? og_out_dtypes(op->out, NULL) : 0xffffffffu;
    k.is_default = true;
    return k;
}

/* The place of schema argument a among the call's tensors (a kernel key's order). */
static unsigned tensor_place(const og_func *f, unsigned a) {
    unsigned pos = 0;
    for (unsigned i = 0; i < a; i++) pos += og_type_is_tensor_like(f->schema->args[i].type);
    return pos;
}

/* Whether a program's kernel key ("v1/7;0,1,2,3|...": dtype and dim order of each
 * tensor argument, then of each returned tensor, in order) is one a keyed
 * kernel's arg_meta covers. */
static bool key_covers(const og_func *f, const og_kernel_key *k, const char *sel_key) {
    og_key_tensor ts[64];
    int n = og_key_parse(sel_key, ts, 64);
    for (unsigned i = 0; i < k->n; i++) {
        const og_key_arg *ka = &k->args[i];
        unsigned pos = tensor_place(f, ka->arg);
        if ((int)pos >= n || ts[pos].dtype < 0 || ts[pos].dtype >= 32 || !(ka->dtypes >> ts[pos].dtype & 1u) ||
            ts[pos].ndim != ka->ndim || memcmp(ts[pos].order, ka->order, ka->ndim))
            return false;
        unsigned other = ka->same_as >= 0 ? tensor_place(f, k->args[ka->same_as].arg) : pos;
        if ((int)other < n && ts[other].dtype != ts[pos].dtype) return false;
    }
    return true;
}

/* Which keyed kernels a selection keeps, as ExecuTorch's selective build does:
 * for each key a program calls the op with, the first keyed kernel covering it;
 * the op's default kernel only if some key has none (or a key is "default").
 * Returns whether the default stays. keyed[]: the op's keyed kernels. */
static bool select_keyed(const og_selection *sel, const og_func *f, const og_yaml_kernel **keyed, unsigned nkeyed,
                         bool *keep) {
    const char *const *keys = NULL;
    unsigned nkeys = 0;
    if (sel && !og_sel_keys(sel, f, &keys, &nkeys)) return false;
    if (!nkeys) { /* no selection, or every key */
        for (unsigned k = 0; k < nkeyed; k++) keep[k] = true;
        return true;
    }
    bool need_default = false;
    for (unsigned j = 0; j < nkeys; j++) {
        bool covered = false;
        for (unsigned k = 0; k < nkeyed && !covered; k++)
            if (strcmp(keys[j], "default") && key_covers(f, &keyed[k]->key, keys[j])) keep[k] = covered = true;
        need_default |= !covered;
    }
    return need_default;
}

/* A key as text, for messages: "self Double 0,1,2,3; out Double 0,1,2,3". */
static void key_text(strbuf *b, const og_func *f, const og_kernel_key *k) {
    for (unsigned i = 0; i < k->n; i++) {
        const og_key_arg *ka = &k->args[i];
        sb_printf(b, "%s%s ", i ? "; " : "", f->schema->args[ka->arg].name);
        for (int d = 0, first = 1; d < 32; d++)
            if (ka->dtypes >> d & 1u) sb_printf(b, "%s%s", first ? "" : "|", og_dtype_name(d)), first = 0;
        sb_putc(b, ' ');
        for (unsigned j = 0; j < ka->ndim; j++) sb_printf(b, "%s%u", j ? "," : "", ka->order[j]);
    }
}

bool og_emit_registry(og_outputs *outs, const char *outdir, const char *tdir, const og_model *m,
                      const og_yaml_kernels *kernels, const og_backend *backend, const og_selection *sel,
                      const char *generated_by, diag *d) {
    unsigned n = m->nfuncs;
    const og_yaml_kernel **by_op = og_xcalloc(n + 1, sizeof *by_op);
    og_yaml_kernel *fallbacks = og_xcalloc((backend ? backend->n : 0) + 1, sizeof *fallbacks);
    bool ok = by_op && fallbacks;
    for (unsigned k = 0; ok && k < kernels->n; k++) /* one default kernel per op: og_kernels_check */
        if (kernels->items[k].is_default && og_func_kept(m, kernels->items[k].func))
            by_op[kernels->items[k].func->index] = &kernels->items[k];
    /* keyed kernels (arg_meta), by op id: tried before the op's default kernel */
    const og_yaml_kernel **keyed = og_xcalloc(kernels->n + 1, sizeof *keyed);
    bool *keep_keyed = og_xcalloc(kernels->n + 1, sizeof *keep_keyed),
         *default_out = og_xcalloc(n + 1, sizeof *default_out);
    unsigned nkeyed = 0;
    ok = ok && keyed && keep_keyed && default_out;
    for (unsigned id = 0; ok && id < n; id++) {
        unsigned first = nkeyed;
        for (unsigned k = 0; k < kernels->n; k++)
            if (!kernels->items[k].is_default && kernels->items[k].func->index == id)
                keyed[nkeyed++] = &kernels->items[k];
        if (nkeyed > first)
            default_out[id] = !select_keyed(sel, m->funcs[id], keyed + first, nkeyed - first, keep_keyed + first);
    }
    /* a backend op without a native kernel is served by its fallback */
    for (unsigned b = 0; ok && backend && b < backend->n; b++) {
        fallbacks[b] = fallback_kernel(m, &backend->ops[b]);
        if (og_func_kept(m, fallbacks[b].func) && !by_op[fallbacks[b].func->index])
            by_op[fallbacks[b].func->index] = &fallbacks[b];
    }
    /* The selection: per op the dtypes kept (0: the op is left out). A fallback the
     * build keeps calls its pattern's kernels directly, for any dtype: their code
     * stays (forced), though the registry does not offer them to programs. */
    uint32_t *opmask = og_xcalloc(n + 1, sizeof *opmask);
    bool *forced = og_xcalloc(n + 1, sizeof *forced);
    ok = ok && opmask && forced;
    for (unsigned id = 0; ok && id < n; id++) {
        og_dtset dts = 0;
        if (by_op[id])
            opmask[id] = !sel ? 0xffffffffu : og_sel_selects(sel, m->funcs[id], &dts) && !default_out[id] ? dts : 0;
    }
    for (unsigned b = 0; ok && backend && b < backend->n; b++) {
        unsigned kid = fallbacks[b].func->index;
        if (!og_func_kept(m, fallbacks[b].func) || by_op[kid] != &fallbacks[b] || !(opmask[kid] & fallbacks[b].dtypes))
            continue;
        for (int k = 0; k < backend->ops[b].graph.nnodes; k++) {
            const og_func *o =
                backend->ops[b].nodes[k].func ? og_func_out_variant(backend->ops[b].nodes[k].func) : NULL;
            if (o) forced[o->index] = true;
        }
    }
    /* A kernel symbol may serve several ops of one C signature (checked by
     * og_kernels_check): it is declared once, with the union of their dtypes. */
    typedef struct {
        const og_yaml_kernel *first;
        uint32_t dtypes;
    } symbol_use;
    symbol_use *uses = og_xcalloc(n + kernels->n + (backend ? backend->n : 0) + 1, sizeof *uses);
    unsigned nuses = 0;
    strmap syms, sigs;
    strmap_init(&syms, 64);
    strmap_init(&sigs, 64);
    ok = ok && uses;
    const og_yaml_kernel **declare = og_xcalloc(n + kernels->n + (backend ? backend->n : 0) + 1, sizeof *declare);
    unsigned ndeclare = 0;
    ok = ok && declare;
    for (unsigned id = 0; ok && id <= n; id++) {
        /* the registry's kernels, then fallbacks that a native kernel outranks */
        for (unsigned b = 0; id == n && backend && b < backend->n; b++)
            if (!og_func_kept(m, fallbacks[b].func) || by_op[fallbacks[b].func->index] != &fallbacks[b])
                declare[ndeclare++] = &fallbacks[b];
        if (id < n && by_op[id]) declare[ndeclare++] = by_op[id];
    }
    /* kernels of ops a trimmed build left out: declared with no dtype, so the
     * kernel sources still compile (to nothing) */
    for (unsigned k = 0; ok && k < kernels->n; k++)
        if (!og_func_kept(m, kernels->items[k].func)) declare[ndeclare++] = &kernels->items[k];
    for (unsigned k = 0; ok && k < nkeyed; k++)
        if (keep_keyed[k]) declare[ndeclare++] = keyed[k];
    for (unsigned i = 0; ok && i < ndeclare; i++) {
        const og_yaml_kernel *kk = declare[i];
        unsigned id = kk->func->index;
        uint32_t keep = !og_func_kept(m, kk->func) ? 0
                        : by_op[id] == kk          ? kk->dtypes & (forced[id] ? 0xffffffffu : opmask[id])
                                                   : kk->dtypes;
        uintptr_t u = (uintptr_t)strmap_get(&syms, kk->symbol);
        if (u)
            uses[u - 1].dtypes |= keep;
        else
            uses[nuses] = (symbol_use){kk, keep}, strmap_put(&syms, kk->symbol, (void *)(uintptr_t)++nuses);
    }
    strbuf x, protos, tramps, table, key, masks, fbtable;
    sb_init(&masks);
    sb_init(&x);
    sb_init(&protos);
    sb_init(&tramps);
    sb_init(&table);
    sb_init(&key);
    sb_init(&fbtable);
    unsigned ntramp = 0;
    /* the trampoline of a kernel's signature, emitted on first use */
    unsigned *tramp_of = og_xcalloc(ndeclare + 1, sizeof *tramp_of);
    /* trampolines by number: their schema, and whether a table entry uses them
     * (a selective build must not define unused static functions) */
    const og_schema **tramp_schema = og_xcalloc(ndeclare + 2, sizeof *tramp_schema);
    bool *tramp_used = og_xcalloc(ndeclare + 2, sizeof *tramp_used);
    ok = ok && tramp_of && tramp_schema && tramp_used;
    for (unsigned i = 0; ok && i < ndeclare; i++) {
        const og_schema *s = declare[i]->func->schema;
        sb_reset(&key);
        og_kernel_signature(&key, s);
        uintptr_t t = (uintptr_t)strmap_get(&sigs, sb_cstr(&key));
        if (!t) {
            t = ++ntramp;
            strmap_put(&sigs, arena_strndup(m->a, key.p, key.n), (void *)t);
            tramp_schema[t] = s;
        }
        tramp_of[i] = (unsigned)t;
        const symbol_use *su = &uses[(uintptr_t)strmap_get(&syms, declare[i]->symbol) - 1];
        if (su->first != declare[i]) continue; /* declared with the first op it serves */
        sb_printf(&masks, "#define OPGEN_KERNEL_DTYPES_%s 0x%08xu\n", declare[i]->symbol, su->dtypes);
        sb_printf(&protos, "opgen_status %s(opgen_ctx *ctx", declare[i]->symbol);
        og_print_kernel_params(&protos, s);
        sb_puts(&protos, ");\n");
    }
    for (unsigned id = 0, i = 0; ok && id < n; id++) {
        const og_yaml_kernel *kk = by_op[id];
        if (!kk || !(kk->dtypes & opmask[id])) {
            sb_printf(&table, "    {NULL, NULL, 0u, NULL}, /* %u %s::%s%s */\n", id, m->funcs[id]->ns,
                      m->funcs[id]->name, kk ? " (not selected)" : "");
            continue;
        }
        while (declare[i] != kk) i++;
        uint32_t dts = kk->dtypes & opmask[id];
        sb_printf(&x, "    X(%u, %s, 0x%08xu) \\\n", id, kk->symbol, dts);
        sb_printf(&table, "    {(void (*)(void))%s, opgen_call_%u, 0x%08xu, \"%s\"}, /* %u %s::%s */\n", kk->symbol,
                  tramp_of[i], dts, kk->symbol, id, kk->func->ns, kk->func->name);
        tramp_used[tramp_of[i]] = true;
    }
    /* the keyed kernels a build keeps, by op id, each with its key */
    strbuf kdtable;
    sb_init(&kdtable);
    unsigned nkd = 0;
    for (unsigned k = 0, i = 0; ok && k < nkeyed; k++) {
        if (!keep_keyed[k]) continue;
        const og_yaml_kernel *kk = keyed[k];
        while (declare[i] != kk) i++;
        sb_printf(&kdtable,
                  "    {%u, {(void (*)(void))%s, opgen_call_%u, 0x%08xu, \"%s\"}, %u, (const opgen_key_arg[]){",
                  kk->func->index, kk->symbol, tramp_of[i], kk->dtypes, kk->symbol, kk->key.n);
        for (unsigned a = 0; a < kk->key.n; a++) {
            const og_key_arg *ka = &kk->key.args[a];
            sb_printf(&kdtable, "%s{%u, %d, 0x%08xu, %u, {", a ? ", " : "", ka->arg, ka->same_as, ka->dtypes, ka->ndim);
            for (unsigned j = 0; j < ka->ndim; j++) sb_printf(&kdtable, "%s%u", j ? ", " : "", ka->order[j]);
            sb_puts(&kdtable, "}}");
        }
        sb_puts(&kdtable, "}, \"");
        key_text(&kdtable, kk->func, &kk->key);
        sb_printf(&kdtable, "\"}, /* %s::%s */\n", kk->func->ns, kk->func->name);
        tramp_used[tramp_of[i]] = true;
        nkd++;
    }
    if (!nkd) sb_puts(&kdtable, "    {-1, {NULL, NULL, 0u, NULL}, 0, NULL, NULL},\n");
    /* every fallback, by op id (the backend file's order need not be id order) */
    unsigned nfb = 0;
    for (unsigned id = 0; ok && backend && id < n; id++)
        for (unsigned b = 0; b < backend->n; b++) {
            if (fallbacks[b].func->index != id) continue;
            if (sel && (by_op[id] != &fallbacks[b] || !(opmask[id] & fallbacks[b].dtypes)))
                continue; /* a selective build keeps the fallbacks it serves with */
            unsigned i = 0;
            while (declare[i]->func != fallbacks[b].func || strcmp(declare[i]->symbol, fallbacks[b].symbol)) i++;
            sb_printf(&fbtable, "    {%u, {(void (*)(void))%s, opgen_call_%u, 0x%08xu, \"%s\"}}, /* %s::%s */\n", id,
                      fallbacks[b].symbol, tramp_of[i], fallbacks[b].dtypes, fallbacks[b].symbol, fallbacks[b].func->ns,
                      fallbacks[b].func->name);
            tramp_used[tramp_of[i]] = true;
            nfb++;
        }
    if (!nfb) sb_puts(&fbtable, "    {-1, {NULL, NULL, 0u, NULL}},\n");
    for (unsigned t = 1; ok && t <= ntramp; t++)
        if (tramp_used[t]) og_emit_trampoline(&tramps, "opgen_call_", t, tramp_schema[t]);
    if (x.n >= 3) x.n -= 3, x.p[x.n] = 0; /* the last entry ends the macro */
    if (!n) sb_puts(&table, "    {NULL, NULL, 0u, NULL},\n");
    strbuf selq;
    sb_init(&selq);
    sb_putc(&selq, '"');
    for (const char *c = sel ? sb_cstr(&((og_selection *)sel)->sources) : ""; *c; c++) {
        if (*c == '"' || *c == '\\') sb_putc(&selq, '\\');
        sb_putc(&selq, *c);
    }
    sb_putc(&selq, '"');
    const char *sel_text = sb_cstr(&selq);
    /* the selection's names, for the runtime's code (prim ops are no op of the model) */
    strbuf names;
    sb_init(&names);
    for (unsigned i = 0; sel && !sel->include_all_operators && i < sel->n; i++) {
        sb_puts(&names, "#define OPGEN_SELECTS_");
        for (const char *c = sel->ops[i].name; *c; c++) /* "ns::op.overload": ns_op_overload */
            if (c[0] != ':' || c[1] != ':') sb_putc(&names, isalnum((unsigned char)*c) ? *c : '_');
        sb_puts(&names, " 1\n");
    }
    char count[16], fbcount[16], kdcount[16];
    snprintf(count, sizeof count, "%u", n);
    snprintf(fbcount, sizeof fbcount, "%u", nfb);
    snprintf(kdcount, sizeof kdcount, "%u", nkd);
    og_tvar vars[] = {
        OG_TVAR("generated_by", generated_by),
        OG_TVAR("op_count", count),
        OG_TVAR("registry_xmacro", sb_cstr(&x)),
        OG_TVAR("registry_prototypes", sb_cstr(&protos)),
        OG_TVAR("registry_masks", sb_cstr(&masks)),
        OG_TVAR("trampolines", sb_cstr(&tramps)),
        OG_TVAR("registry_table", sb_cstr(&table)),
        OG_TVAR("fallback_count", fbcount),
        OG_TVAR("fallback_table", sb_cstr(&fbtable)),
        OG_TVAR("selection", sel_text),
        OG_TVAR("keyed_count", kdcount),
        OG_TVAR("keyed_table", sb_cstr(&kdtable)),
        OG_TVAR("selects_all", sel && !sel->include_all_operators ? "0" : "1"),
        OG_TVAR("selects", sb_cstr(&names)),
    };
    if (ok) ok = og_render(outs, outdir, tdir, "opgen_registry.h", vars, sizeof vars / sizeof *vars, d);
    strmap_free(&sigs);
    strmap_free(&syms);
    free(uses);
    free(declare);
    free(tramp_of);
    free(tramp_schema);
    free(tramp_used);
    sb_free(&x);
    sb_free(&masks);
    sb_free(&protos);
    sb_free(&tramps);
    sb_free(&table);
    sb_free(&key);
    sb_free(&fbtable);
    sb_free(&kdtable);
    free(keyed);
    free(keep_keyed);
    free(default_out);
    free(by_op);
    free(fallbacks);
    free(opmask);
    free(forced);
    sb_free(&selq);
    sb_free(&names);
    return ok;
}
