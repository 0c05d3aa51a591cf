/* The C registry headers: opgen_dtypes.h, opgen_ops.h, opgen_kernels.h. The
 * templates hold the fixed text; this file renders the tables that fill them. */
#include "abi.h"
#include "emit.h"
#include "config.h"
#include "embedded.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void c_str(strbuf *b, const char *s) {
    if (!s) {
        sb_puts(b, "NULL");
        return;
    }
    sb_putc(b, '"');
    for (;;) { /* runs without a quote or backslash go in one piece */
        size_t n = strcspn(s, "\"\\");
        sb_putn(b, s, n);
        if (!s[n]) break;
        sb_putc(b, '\\');
        sb_putc(b, s[n]);
        s += n + 1;
    }
    sb_putc(b, '"');
}

/* Dtypes an unconstrained argument may carry. */
static og_dtset default_allowed(const og_type *t) {
    while (t->kind == OG_TY_OPTIONAL || t->kind == OG_TY_LIST) t = t->elem;
    if (t->kind != OG_TY_BASE) return 0;
    if (t->base == OG_BT_Tensor || t->base == OG_BT_ScalarType) return OG_EDGE_DTYPES;
    if (t->base == OG_BT_Scalar) return (1u << 4) | (1u << 7) | (1u << 11); /* Long, Double, Bool */
    return 0;
}

/* ---- perfect hash (hash and displace) ---- */

/* opgen_name_hash and opgen_hash_mix: the very functions opgen_ops.h gets (the
 * name is hashed once, each seed tried costs a remix only). */
#include "opgen_name_hash.h"

/* The text of opgen_name_hash.h that opgen_ops.h gets: all but its first comment. */
static const char *name_hash_text(void) {
    const og_embedded_file *e = og_embedded_find("templates/opgen_name_hash.h");
    const char *end = e ? strstr(e->data, "*/\n") : NULL;
    return end ? end + 3 : "";
}

typedef struct bucket {
    unsigned index, n, first;
} bucket;

static int cmp_bucket(const void *x, const void *y) {
    const bucket *a = x, *b = y;
    if (a->n != b->n) return a->n < b->n ? 1 : -1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* seeds[nb], slots[n]: slot -> key index. False if no seeds were found. */
static bool perfect_hash(const char *const *keys, unsigned n, unsigned nb, uint32_t *seeds, uint32_t *slots) {
    bucket *bs = og_xcalloc(nb, sizeof *bs);
    unsigned *order = og_xmalloc(sizeof *order * (n + 1)), *fill = og_xcalloc(nb, sizeof *fill);
    char *used = og_xcalloc(n + 1, 1);
    uint32_t *tmp = og_xmalloc(sizeof *tmp * (n + 1));
    uint64_t *hs = og_xmalloc(sizeof *hs * (n + 1));
    bool ok = bs && order && fill && used && tmp && hs;
    for (unsigned i = 0; ok && i < n; i++) hs[i] = opgen_name_hash(keys[i]);
    for (unsigned i = 0; ok && i < n; i++) bs[opgen_hash_mix(hs[i], 0) % nb].n++;
    for (unsigned b = 0, at = 0; ok && b < nb; b++) {
        bs[b].index = b;
        bs[b].first = at;
        at += bs[b].n;
    }
    for (unsigned i = 0; ok && i < n; i++) {
        unsigned b = opgen_hash_mix(hs[i], 0) % nb;
        order[bs[b].first + fill[b]++] = i;
    }
    if (ok) qsort(bs, nb, sizeof *bs, cmp_bucket);
    for (unsigned k = 0; ok && k < nb; k++) {
        bucket *b = &bs[k];
        seeds[b->index] = 0;
        if (!b->n) continue;
        uint32_t seed;
        for (seed = 1; seed < 1000000; seed++) {
            unsigned j;
            for (j = 0; j < b->n; j++) {
                uint32_t s = opgen_hash_mix(hs[order[b->first + j]], seed) % n;
                bool clash = used[s];
                for (unsigned q = 0; q < j && !clash; q++) clash = tmp[q] == s;
                if (clash) break;
                tmp[j] = s;
            }
            if (j == b->n) break;
        }
        if (seed == 1000000) {
            ok = false;
            break;
        }
        seeds[b->index] = seed;
        for (unsigned j = 0; j < b->n; j++) {
            used[tmp[j]] = 1;
            slots[tmp[j]] = order[b->first + j];
        }
    }
    free(bs);
    free(order);
    free(fill);
    free(used);
    free(tmp);
    free(hs);
    return ok;
}

/* ---- identifiers ---- */

static void ident_of(strbuf *b, const og_func *f) {
    sb_puts(b, f->ns);
    sb_putc(b, '_');
    sb_puts(b, f->base_name);
    if (f->schema->name.overload[0]) {
        sb_putc(b, '_');
        sb_puts(b, f->schema->name.overload);
    }
}

/* ---- rendering ---- */

typedef struct gen {
    const og_model *m;
    const og_edge *edge;
    const char **idents, **names; /* per op: C identifier, "ns::name" */
    strbuf ops_x, op_table, arg_table, ret_table, col_table, cell_table, alias_table, seed_table, slot_table, kernels_x, protos, scratch;
    unsigned nargs, nrets, ncols, ncells, naliases, nkernels;
} gen;

static void arg_row(strbuf *b, strbuf *tmp, const og_arg *x, og_dtset allowed) {
    og_abi a = og_abi_of(x->type, og_annot_is_write(x->annot));
    strbuf t = *tmp; /* a scratch buffer kept across rows */
    sb_reset(&t);
    og_print_type(&t, x->type);
    sb_puts(b, "    {");
    c_str(b, x->name);
    sb_puts(b, ", ");
    c_str(b, sb_cstr(&t));
    sb_puts(b, ", ");
    c_str(b, x->dflt);
    sb_puts(b, ", ");
    if (x->annot) {
        sb_reset(&t);
        og_print_annot(&t, x->annot);
        c_str(b, sb_cstr(&t));
    } else {
        sb_puts(b, "NULL");
    }
    unsigned flags = (x->cat >= OG_ARG_KW_PRE ? 1u : 0u) | (x->cat == OG_ARG_OUT ? 2u : 0u) | (og_annot_is_write(x->annot) ? 4u : 0u);
    sb_puts(b, ", "); /* ", 0x%08xu, OPGEN_ABI_%s, %u},\n" without printf: a hot row */
    sb_puthex32(b, allowed);
    sb_puts(b, "u, OPGEN_ABI_");
    sb_puts(b, a.kind);
    sb_puts(b, ", ");
    sb_putu(b, flags);
    sb_puts(b, "},\n");
    *tmp = t;
}

static void ret_row(strbuf *b, strbuf *tmp, const og_ret *r, og_dtset allowed) {
    og_arg x;
    memset(&x, 0, sizeof x);
    x.name = r->name;
    x.type = r->type;
    x.annot = r->annot;
    x.cat = OG_ARG_POST_SELF;
    arg_row(b, tmp, &x, allowed);
}

static void op_rows(gen *g, unsigned id) {
    const og_func *f = g->m->funcs[id];
    const og_schema *s = f->schema;
    const og_edge_op *e = g->edge ? og_edge_find(g->edge, f) : NULL;
    const og_func *out = og_func_out_variant(f);
    int out_id = out ? (int)out->index : -1;
    const char *qualified = g->names[id];
    sb_puts(&g->ops_x, "    X(");
    sb_putu(&g->ops_x, id);
    sb_puts(&g->ops_x, ", ");
    sb_puts(&g->ops_x, g->idents[id]);
    sb_puts(&g->ops_x, ", \"");
    sb_puts(&g->ops_x, qualified);
    sb_puts(&g->ops_x, "\") \\\n");
    sb_puts(&g->op_table, "    {\"");
    sb_puts(&g->op_table, qualified);
    sb_puts(&g->op_table, "\", \"");
    sb_puts(&g->op_table, f->ns);
    sb_puts(&g->op_table, "\", ");
    c_str(&g->op_table, f->base_name);
    sb_puts(&g->op_table, ", ");
    c_str(&g->op_table, s->name.overload);
    sb_puts(&g->op_table, ", ");
    c_str(&g->op_table, f->schema_text);
    unsigned ncols = e ? e->nargs : 0, nrows = e ? e->nrows : 0;
    unsigned flags = (og_func_has_tag(f, g->m->tag_core) ? 1u : 0u) | (f->custom && !f->backend ? 2u : 0u) | (f->backend ? 4u : 0u);
    /* ", %u, %u, %u, %u, %u, %d, %u, %u, %u, %u, OPGEN_KIND_%s, %u},\n", without printf */
    const unsigned cols[] = {g->nargs, g->nrets, g->ncols, g->ncells, g->naliases};
    for (unsigned c = 0; c < 5; c++) sb_puts(&g->op_table, ", "), sb_putu(&g->op_table, cols[c]);
    sb_puts(&g->op_table, ", "), sb_puti(&g->op_table, out_id);
    const unsigned more[] = {s->nargs, s->nrets, nrows, ncols};
    for (unsigned c = 0; c < 4; c++) sb_puts(&g->op_table, ", "), sb_putu(&g->op_table, more[c]);
    sb_puts(&g->op_table, ", OPGEN_KIND_");
    sb_puts(&g->op_table, f->kind == OG_KIND_FUNCTIONAL ? "FUNCTIONAL" : f->kind == OG_KIND_INPLACE ? "INPLACE" : f->kind == OG_KIND_OUT ? "OUT" : f->kind == OG_KIND_MUTABLE ? "MUTABLE" : "SCRATCH");
    sb_puts(&g->op_table, ", ");
    sb_putu(&g->op_table, flags);
    sb_puts(&g->op_table, "},\n");
    for (unsigned i = 0; i < s->nargs; i++) {
        og_dtset allowed = default_allowed(s->args[i].type);
        for (unsigned c = 0; e && c < e->nargs; c++)
            if (e->args[c].index == (int)i) allowed = e->args[c].allowed;
        arg_row(&g->arg_table, &g->scratch, &s->args[i], allowed);
    }
    for (unsigned r = 0; r < s->nrets; r++) {
        og_dtset allowed = default_allowed(s->rets[r].type);
        for (unsigned c = 0; e && c < e->nargs; c++)
            if (e->args[c].index == -(int)r - 1) allowed = e->args[c].allowed;
        ret_row(&g->ret_table, &g->scratch, &s->rets[r], allowed);
    }
    g->nargs += s->nargs;
    g->nrets += s->nrets;
    if (e) {
        sb_printf(&g->col_table, "    /* %s */", e->op);
        for (unsigned c = 0; c < e->nargs; c++) sb_putc(&g->col_table, ' '), sb_puti(&g->col_table, e->args[c].index), sb_putc(&g->col_table, ',');
        sb_putc(&g->col_table, '\n');
        for (unsigned r = 0; r < e->nrows; r++) {
            sb_puts(&g->cell_table, "   ");
            for (unsigned c = 0; c < e->nargs; c++) sb_putc(&g->cell_table, ' '), sb_putu(&g->cell_table, e->rows[(size_t)r * e->nargs + c]), sb_putc(&g->cell_table, ',');
            sb_putc(&g->cell_table, '\n');
        }
        sb_printf(&g->alias_table, "    /* %s */", e->op);
        for (unsigned a = 0; a < e->naliases; a++) sb_putc(&g->alias_table, ' '), sb_puthex32(&g->alias_table, e->aliases[a]), sb_puts(&g->alias_table, "u,");
        sb_putc(&g->alias_table, '\n');
        g->ncols += e->nargs;
        g->ncells += e->nrows * e->nargs;
        g->naliases += e->naliases;
    }
    if (f->kind == OG_KIND_OUT || (f->backend && og_schema_returns_scalars(s))) { /* out= kernels, and scalar prims */
        sb_printf(&g->kernels_x, "    X(%u, opgen_kernel_%s) \\\n", id, g->idents[id]);
        sb_printf(&g->protos, "/* %s::%s */\nopgen_status opgen_kernel_%s(opgen_ctx *ctx", f->ns, f->schema_text, g->idents[id]);
        og_print_kernel_params(&g->protos, s);
        sb_puts(&g->protos, ");\n");
        g->nkernels++;
    }
}

/* Removes the trailing " \\\n" of an X-macro list (the last entry ends the macro). */
static void end_xmacro(strbuf *b) {
    if (b->n >= 3 && !strcmp(b->p + b->n - 3, " \\\n")) {
        b->n -= 3;
        b->p[b->n] = 0;
    }
}

bool og_render_to(strbuf *out, const char *tdir, const char *tname, const og_tvar *vars, unsigned nvars, og_outputs *reads, diag *d) {
    if (!tdir) { /* the embedded copy */
        char full[256];
        snprintf(full, sizeof full, "templates/%s", tname);
        const og_embedded_file *e = og_embedded_find(full);
        if (!e) return diag_plain(d, "no embedded template %s in this build", tname), false;
        return og_tmpl_expand(out, tname, e->data, e->len, vars, nvars, d);
    }
    arena a;
    arena_init(&a);
    char *path = arena_printf(&a, "%s/%s", tdir, tname), *text;
    size_t len;
    bool ok = og_read_file(&a, d, path, &text, &len);
    if (ok && reads) og_outputs_input(reads, path);
    ok = ok && og_tmpl_expand(out, path, text, len, vars, nvars, d);
    arena_free(&a);
    return ok;
}

bool og_render(og_outputs *outs, const char *outdir, const char *tdir, const char *name, const og_tvar *vars, unsigned nvars, diag *d) {
    char tname[128];
    snprintf(tname, sizeof tname, "%s.in", name);
    return og_render_to(og_outputs_add(outs, outdir, name), tdir, tname, vars, nvars, outs, d);
}

bool og_emit_c_headers(og_outputs *outs, const char *outdir, const char *tdir, const og_model *m, const og_edge *edge, const char *generated_by, diag *d) {
    gen g;
    memset(&g, 0, sizeof g);
    g.m = m;
    g.edge = edge;
    strbuf *bufs[] = {&g.ops_x, &g.op_table, &g.arg_table, &g.ret_table, &g.col_table, &g.cell_table, &g.alias_table, &g.seed_table, &g.slot_table, &g.kernels_x, &g.protos, &g.scratch};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) sb_init(bufs[i]);

    /* identifiers: ns_name_overload, made unique by the op id where two collide */
    unsigned n = m->nfuncs;
    g.idents = og_xcalloc(n + 1, sizeof *g.idents);
    const char **names = g.names = og_xcalloc(n + 1, sizeof *names);
    strmap seen;
    strmap_init(&seen, n);
    strbuf t;
    sb_init(&t);
    for (unsigned i = 0; i < n; i++) {
        sb_reset(&t);
        ident_of(&t, m->funcs[i]);
        char *id = arena_strndup(m->a, t.p, t.n);
        if (strmap_put(&seen, id, (void *)id)) id = arena_printf(m->a, "%s_%u", id, i);
        g.idents[i] = id;
        names[i] = arena_printf(m->a, "%s::%s", m->funcs[i]->ns, m->funcs[i]->name);
    }
    strmap_free(&seen);
    sb_free(&t);

    for (unsigned i = 0; i < n; i++) op_rows(&g, i);

    unsigned nb = n / 4 + 1;
    uint32_t *seeds = og_xcalloc(nb, sizeof *seeds), *slots = og_xcalloc(n + 1, sizeof *slots);
    bool ok = perfect_hash(names, n, nb, seeds, slots);
    if (!ok) diag_plain(d, "could not build a perfect hash of the operator names");
    for (unsigned b = 0; b < nb; b++) sb_printf(&g.seed_table, "%s%uu,%s", b % 12 ? " " : "    ", seeds[b], b % 12 == 11 || b + 1 == nb ? "\n" : "");
    for (unsigned s = 0; s < n; s++) sb_printf(&g.slot_table, "%s%u,%s", s % 16 ? " " : "    ", slots[s], s % 16 == 15 || s + 1 == n ? "\n" : "");
    free(seeds);
    free(slots);
    free(names);

    /* C needs at least one element per array */
    if (!n) sb_puts(&g.op_table, "    {\"\", \"\", \"\", \"\", \"\", 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, OPGEN_KIND_FUNCTIONAL},\n"), sb_puts(&g.slot_table, "    0,\n");
    if (!g.nargs) sb_puts(&g.arg_table, "    {NULL, NULL, NULL, NULL, 0u, OPGEN_ABI_OPAQUE, 0},\n");
    if (!g.nrets) sb_puts(&g.ret_table, "    {NULL, NULL, NULL, NULL, 0u, OPGEN_ABI_OPAQUE, 0},\n");
    if (!g.ncols) sb_puts(&g.col_table, "    0,\n");
    if (!g.ncells) sb_puts(&g.cell_table, "    0,\n");
    if (!g.naliases) sb_puts(&g.alias_table, "    0u,\n");
    end_xmacro(&g.ops_x);
    end_xmacro(&g.kernels_x);

    strbuf dx;
    sb_init(&dx);
#define OG_DT_ROW(name, num, size) sb_printf(&dx, "    X(%s, %d, %d) \\\n", #name, num, size);
    OPGEN_DTYPES(OG_DT_ROW)
#undef OG_DT_ROW
    end_xmacro(&dx);

    char opcount[16], dtcount[16], edge_mask[16], buckets[16];
    snprintf(opcount, sizeof opcount, "%u", n);
    snprintf(dtcount, sizeof dtcount, "%d", OG_DTYPE_COUNT);
    snprintf(edge_mask, sizeof edge_mask, "0x%08x", (unsigned)OG_EDGE_DTYPES);
    snprintf(buckets, sizeof buckets, "%u", nb);
    og_tvar vars[] = {
        {"generated_by", generated_by},
        {"version", OPGEN_VERSION_STRING},
        {"dtype_xmacro", sb_cstr(&dx)},
        {"dtype_count", dtcount},
        {"edge_dtypes", edge_mask},
        {"op_count", opcount},
        {"ops_xmacro", sb_cstr(&g.ops_x)},
        {"hash_buckets", buckets},
        {"name_hash", name_hash_text()},
        {"op_table", sb_cstr(&g.op_table)},
        {"arg_table", sb_cstr(&g.arg_table)},
        {"ret_table", sb_cstr(&g.ret_table)},
        {"col_table", sb_cstr(&g.col_table)},
        {"cell_table", sb_cstr(&g.cell_table)},
        {"alias_table", sb_cstr(&g.alias_table)},
        {"hash_seed_table", sb_cstr(&g.seed_table)},
        {"hash_slot_table", sb_cstr(&g.slot_table)},
        {"kernels_xmacro", sb_cstr(&g.kernels_x)},
        {"prototypes", sb_cstr(&g.protos)},
    };
    unsigned nv = sizeof vars / sizeof *vars;
    ok = ok && og_render(outs, outdir, tdir, "opgen_dtypes.h", vars, nv, d);
    ok = ok && og_render(outs, outdir, tdir, "opgen_ops.h", vars, nv, d);
    ok = ok && og_render(outs, outdir, tdir, "opgen_kernels.h", vars, nv, d);
    sb_free(&dx);
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) sb_free(bufs[i]);
    free(g.idents);
    return ok;
}
