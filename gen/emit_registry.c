/* opgen_registry.h: the kernel table of a kernel yaml set, with one boxed
 * trampoline per distinct kernel signature. */
#include "abi.h"
#include "emit.h"
#include "tmpl.h"
#include <stdlib.h>
#include <string.h>

/* The trampoline key of a schema: each parameter's C type and how it is unboxed
 * (Scalar and Scalar? share a C type, not the unboxing). */
static void signature(strbuf *b, const og_schema *s) {
    for (unsigned i = 0; i < s->nargs; i++) {
        og_abi ab = og_abi_of(s->args[i].type, og_annot_is_write(s->args[i].annot));
        sb_printf(b, "%s=%s;", ab.ctype, ab.expr);
    }
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

bool og_emit_registry(og_outputs *outs, const char *outdir, const char *tdir, const og_model *m, const og_yaml_kernels *kernels, const char *generated_by, diag *d) {
    unsigned n = m->nfuncs;
    const og_yaml_kernel **by_op = calloc(n + 1, sizeof *by_op);
    bool ok = by_op != NULL;
    for (unsigned k = 0; ok && k < kernels->n; k++) /* one default kernel per op: og_kernels_check */
        if (kernels->items[k].is_default) by_op[kernels->items[k].func->index] = &kernels->items[k];
    /* A kernel symbol may serve several ops of one C signature (checked by
     * og_kernels_check): it is declared once, with the union of their dtypes. */
    typedef struct {
        const og_yaml_kernel *first;
        uint32_t dtypes;
    } symbol_use;
    symbol_use *uses = calloc(n + 1, sizeof *uses);
    unsigned nuses = 0;
    strmap syms;
    strmap_init(&syms, 64);
    ok = ok && uses;
    for (unsigned id = 0; ok && id < n; id++) {
        const og_yaml_kernel *kk = by_op[id];
        if (!kk) continue;
        uintptr_t u = (uintptr_t)strmap_get(&syms, kk->symbol);
        if (u)
            uses[u - 1].dtypes |= kk->dtypes;
        else
            uses[nuses] = (symbol_use){kk, kk->dtypes}, strmap_put(&syms, kk->symbol, (void *)(uintptr_t)++nuses);
    }
    strbuf x, protos, tramps, table, key, masks;
    sb_init(&masks);
    sb_init(&x);
    sb_init(&protos);
    sb_init(&tramps);
    sb_init(&table);
    sb_init(&key);
    strmap sigs;
    strmap_init(&sigs, 64);
    unsigned ntramp = 0;
    for (unsigned id = 0; ok && id < n; id++) {
        const og_yaml_kernel *kk = by_op[id];
        if (!kk) {
            sb_printf(&table, "    {NULL, NULL, 0u}, /* %u %s::%s */\n", id, m->funcs[id]->ns, m->funcs[id]->name);
            continue;
        }
        const og_schema *s = kk->func->schema;
        sb_reset(&key);
        signature(&key, s);
        uintptr_t t = (uintptr_t)strmap_get(&sigs, sb_cstr(&key));
        if (!t) {
            t = ++ntramp;
            strmap_put(&sigs, arena_strndup(m->a, key.p, key.n), (void *)t);
            sb_printf(&tramps, "static opgen_status opgen_call_%u(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {\n    return ((opgen_status(*)(opgen_ctx *", (unsigned)t);
            for (unsigned i = 0; i < s->nargs; i++) sb_printf(&tramps, ", %s", og_abi_of(s->args[i].type, og_annot_is_write(s->args[i].annot)).ctype);
            sb_puts(&tramps, "))fn)(ctx");
            for (unsigned i = 0; i < s->nargs; i++) {
                sb_puts(&tramps, ", ");
                emit_expr(&tramps, og_abi_of(s->args[i].type, og_annot_is_write(s->args[i].annot)).expr, i);
            }
            sb_puts(&tramps, ");\n}\n");
        }
        sb_printf(&x, "    X(%u, %s, 0x%08xu) \\\n", id, kk->symbol, kk->dtypes);
        sb_printf(&table, "    {(void (*)(void))%s, opgen_call_%u, 0x%08xu}, /* %u %s::%s */\n", kk->symbol, (unsigned)t, kk->dtypes, id, kk->func->ns, kk->func->name);
        const symbol_use *su = &uses[(uintptr_t)strmap_get(&syms, kk->symbol) - 1];
        if (su->first != kk) continue; /* declared with the first op it serves */
        sb_printf(&masks, "#define OPGEN_KERNEL_DTYPES_%s 0x%08xu\n", kk->symbol, su->dtypes);
        sb_printf(&protos, "opgen_status %s(opgen_ctx *ctx", kk->symbol);
        for (unsigned i = 0; i < s->nargs; i++) {
            const char *ctype = og_abi_of(s->args[i].type, og_annot_is_write(s->args[i].annot)).ctype;
            sb_printf(&protos, ", %s%s%s", ctype, ctype[strlen(ctype) - 1] == '*' ? "" : " ", s->args[i].name);
            if (og_abi_reserved(s->args[i].name)) sb_putc(&protos, '_');
        }
        sb_puts(&protos, ");\n");
    }
    if (x.n >= 3) x.n -= 3, x.p[x.n] = 0; /* the last entry ends the macro */
    if (!n) sb_puts(&table, "    {NULL, NULL, 0u},\n");
    char count[16];
    snprintf(count, sizeof count, "%u", n);
    og_tvar vars[] = {
        {"generated_by", generated_by},   {"op_count", count},        {"registry_xmacro", sb_cstr(&x)},
        {"registry_prototypes", sb_cstr(&protos)}, {"registry_masks", sb_cstr(&masks)}, {"trampolines", sb_cstr(&tramps)}, {"registry_table", sb_cstr(&table)},
    };
    if (ok) ok = og_render(outs, outdir, tdir, "opgen_registry.h", vars, sizeof vars / sizeof *vars, d);
    strmap_free(&sigs);
    strmap_free(&syms);
    free(uses);
    sb_free(&x);
    sb_free(&masks);
    sb_free(&protos);
    sb_free(&tramps);
    sb_free(&table);
    sb_free(&key);
    free(by_op);
    return ok;
}
