/* The C registry headers: opgen_dtypes.h, opgen_ops.h, opgen_kernels.h. The
 * templates hold the fixed text; this file renders the tables that fill them. */
#include "abi.h"
#include "emit.h"
#include "config.h"
#include "embedded.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A C string literal of s (NULL: NULL): at most c_str_max(s) bytes. */
static size_t c_str_max(const char *s) { return s ? 2 * strlen(s) + 2 : 4; }
static char *put_c_str(char *p, const char *s) {
    if (!s) return PUT_LIT(p, "NULL");
    *p++ = '"';
    for (;;) { /* runs without a quote or backslash go in one piece */
        size_t n = strcspn(s, "\"\\");
        p = put_mem(p, s, n);
        if (!s[n]) break;
        *p++ = '\\';
        *p++ = s[n];
        s += n + 1;
    }
    *p++ = '"';
    return p;
}
/* The same for text that needs no escapes (identifiers). */
static char *put_c_plain(char *p, const char *s) {
    if (!s) return PUT_LIT(p, "NULL");
    *p++ = '"';
    p = put_str(p, s);
    *p++ = '"';
    return p;
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

/* x % d by a multiplication (Lemire's fastmod, exact for every 32-bit x and d):
 * the seed search takes about a million of these. */
typedef struct divisor {
    uint64_t m;
    uint32_t d;
} divisor;
static divisor divisor_of(uint32_t d) { return (divisor){UINT64_MAX / d + 1, d}; }
static inline uint32_t mod(divisor v, uint32_t x) {
#ifdef __SIZEOF_INT128__
    return (uint32_t)(((unsigned __int128)(v.m * x) * v.d) >> 64);
#else
    return x % v.d;
#endif
}

/* seeds[nb], slots[n]: slot -> key index. False if no seeds were found. */
static bool perfect_hash(const char *const *keys, unsigned n, unsigned nb, uint32_t *seeds, uint32_t *slots) {
    bucket *bs = og_xcalloc(nb, sizeof *bs);
    unsigned *order = og_xmalloc(sizeof *order * (n + 1)), *fill = og_xcalloc(nb, sizeof *fill);
    char *used = og_xcalloc(n + 1, 1);
    uint32_t *tmp = og_xmalloc(sizeof *tmp * (n + 1));
    uint64_t *hs = og_xmalloc(sizeof *hs * (n + 1));
    bool ok = bs && order && fill && used && tmp && hs;
    divisor by_n = divisor_of(n ? n : 1), by_nb = divisor_of(nb);
    for (unsigned i = 0; ok && i < n; i++) hs[i] = opgen_name_hash(keys[i]);
    for (unsigned i = 0; ok && i < n; i++) bs[mod(by_nb, opgen_hash_mix(hs[i], 0))].n++;
    for (unsigned b = 0, at = 0; ok && b < nb; b++) {
        bs[b].index = b;
        bs[b].first = at;
        at += bs[b].n;
    }
    for (unsigned i = 0; ok && i < n; i++) {
        unsigned b = mod(by_nb, opgen_hash_mix(hs[i], 0));
        order[bs[b].first + fill[b]++] = i;
    }
    if (ok) qsort(bs, nb, sizeof *bs, cmp_bucket);
    for (unsigned k = 0; ok && k < nb; k++) {
        bucket *b = &bs[k];
        seeds[b->index] = 0;
        if (!b->n) continue;
        uint32_t seed;
        uint64_t h0 = hs[order[b->first]];
        for (seed = 1; seed < 1000000; seed++) {
            if (used[mod(by_n, opgen_hash_mix(h0, seed))])
                continue; /* most seeds fail here: the first key's slot is taken */
            unsigned j;
            for (j = 0; j < b->n; j++) {
                uint32_t s = mod(by_n, opgen_hash_mix(hs[order[b->first + j]], seed));
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

/* What the tables are printed from. Each table is one pass over the ops, printed
 * straight into the output as the template reaches it: nothing is rendered twice
 * or held whole in memory. */
typedef struct gen {
    const og_model *m;
    const og_edge *edge;
    unsigned n, nb;               /* ops, hash buckets */
    const char **idents, **names; /* per op: C identifier, "ns::name" */
    uint32_t *seeds, *slots;      /* the perfect hash */
} gen;

static const og_edge_op *edge_of(const gen *g, unsigned id) {
    return g->edge ? og_edge_find(g->edge, g->m->funcs[id]) : NULL;
}
static bool has_kernel(const og_func *f) {
    return f->kind == OG_KIND_OUT || (f->backend && og_schema_returns_scalars(f->schema));
} /* out= kernels, and scalar prims */

/* {name, type, default, annotation, allowed dtypes, ABI, flags}: a hot row, written
 * directly ("0x%08xu, OPGEN_ABI_%s, %u},\n" without printf). */
static void arg_row(strbuf *b, const og_arg *x, og_dtset allowed) {
    og_abi a = og_abi_of(x->type, og_annot_is_write(x->annot));
    unsigned flags = (x->cat >= OG_ARG_KW_PRE ? 1u : 0u) | (x->cat == OG_ARG_OUT ? 2u : 0u) |
                     (og_annot_is_write(x->annot) ? 4u : 0u);
    char *p = sb_begin(b, 96 + c_str_max(x->name) + og_type_max_len(x->type) + c_str_max(x->dflt) + OG_ANNOT_MAX_LEN +
                              strlen(a.kind));
    p = put_c_plain(PUT_LIT(p, "    {"), x->name); /* NULL for an unnamed return */
    p = og_put_type(PUT_LIT(p, ", \""), x->type);
    p = put_c_str(PUT_LIT(p, "\", "), x->dflt);
    if (x->annot)
        p = PUT_LIT(og_put_annot(PUT_LIT(p, ", \""), x->annot), "\", ");
    else
        p = PUT_LIT(p, ", NULL, ");
    p = put_str(PUT_LIT(put_hex32(p, allowed), "u, OPGEN_ABI_"), a.kind);
    p = PUT_LIT(p, ", ");
    *p++ = (char)('0' + flags);
    sb_end(b, PUT_LIT(p, "},\n"));
}

/* The dtypes argument i (returns: -r-1) allows under e (NULL: unconstrained). */
static og_dtset allowed_of(const og_edge_op *e, int i, const og_type *t) {
    og_dtset allowed = default_allowed(t);
    for (unsigned c = 0; e && c < e->nargs; c++)
        if (e->args[c].index == i) allowed = e->args[c].allowed;
    return allowed;
}

static void put_ops_xmacro(strbuf *b, const void *ctx) {
    const gen *g = ctx;
    for (unsigned id = 0; id < g->n; id++) {
        char *p = sb_begin(b, 64 + strlen(g->idents[id]) + strlen(g->names[id]));
        p = id ? PUT_LIT(p, " \\\n    X(") : PUT_LIT(p, "    X("); /* the last entry ends the macro */
        p = put_str(PUT_LIT(put_u(p, id), ", "), g->idents[id]);
        p = put_str(PUT_LIT(p, ", \""), g->names[id]);
        sb_end(b, PUT_LIT(p, "\")"));
    }
}

static void put_op_table(strbuf *b, const void *ctx) {
    const gen *g = ctx;
    unsigned nargs = 0, nrets = 0, ncols = 0, ncells = 0, naliases = 0; /* where the op's rows start */
    for (unsigned id = 0; id < g->n; id++) {
        const og_func *f = g->m->funcs[id];
        const og_schema *s = f->schema;
        const og_edge_op *e = edge_of(g, id);
        const og_func *out = og_func_out_variant(f);
        const char *kind = f->kind == OG_KIND_FUNCTIONAL ? "FUNCTIONAL"
                           : f->kind == OG_KIND_INPLACE  ? "INPLACE"
                           : f->kind == OG_KIND_OUT      ? "OUT"
                           : f->kind == OG_KIND_MUTABLE  ? "MUTABLE"
                                                         : "SCRATCH";
        unsigned ecols = e ? e->nargs : 0, erows = e ? e->nrows : 0;
        unsigned flags = (og_func_has_tag(f, g->m->tag_core) ? 1u : 0u) | (f->custom && !f->backend ? 2u : 0u) |
                         (f->backend ? 4u : 0u);
        char *p = sb_begin(b, 320 + strlen(g->names[id]) + strlen(f->ns) + c_str_max(f->base_name) +
                                  c_str_max(s->name.overload) + c_str_max(f->schema_text));
        p = put_str(PUT_LIT(p, "    {\""), g->names[id]);
        p = put_str(PUT_LIT(p, "\", \""), f->ns);
        p = put_c_plain(PUT_LIT(p, "\", "), f->base_name);
        p = put_c_plain(PUT_LIT(p, ", "), s->name.overload);
        p = put_c_str(PUT_LIT(p, ", "), f->schema_text);
        /* ", %u, %u, %u, %u, %u, %d, %u, %u, %u, %u, OPGEN_KIND_%s, %u},\n", without printf */
        const unsigned cols[] = {nargs, nrets, ncols, ncells, naliases};
        for (unsigned c = 0; c < 5; c++) p = put_u(PUT_LIT(p, ", "), cols[c]);
        p = out ? put_u(PUT_LIT(p, ", "), out->index) : PUT_LIT(p, ", -1");
        const unsigned more[] = {s->nargs, s->nrets, erows, ecols};
        for (unsigned c = 0; c < 4; c++) p = put_u(PUT_LIT(p, ", "), more[c]);
        p = put_u(PUT_LIT(put_str(PUT_LIT(p, ", OPGEN_KIND_"), kind), ", "), flags);
        sb_end(b, PUT_LIT(p, "},\n"));
        nargs += s->nargs;
        nrets += s->nrets;
        ncols += ecols;
        ncells += erows * ecols;
        naliases += e ? e->naliases : 0;
    }
    if (!g->n)
        sb_puts(
            b,
            "    {\"\", \"\", \"\", \"\", \"\", 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, OPGEN_KIND_FUNCTIONAL, 0},\n"); /* C
                                                                                                                  needs
                                                                                                                  an
                                                                                                                  element
                                                                                                                */
}

static void put_arg_rows(strbuf *b, const gen *g, bool rets) {
    unsigned rows = 0;
    for (unsigned id = 0; id < g->n; id++) {
        const og_schema *s = g->m->funcs[id]->schema;
        const og_edge_op *e = edge_of(g, id);
        for (unsigned i = 0; !rets && i < s->nargs; i++, rows++)
            arg_row(b, &s->args[i], allowed_of(e, (int)i, s->args[i].type));
        for (unsigned r = 0; rets && r < s->nrets; r++, rows++) {
            const og_ret *x = &s->rets[r];
            og_arg a = {.name = x->name, .type = x->type, .annot = x->annot, .cat = OG_ARG_POST_SELF};
            arg_row(b, &a, allowed_of(e, -(int)r - 1, x->type));
        }
    }
    if (!rows) sb_puts(b, "    {NULL, NULL, NULL, NULL, 0u, OPGEN_ABI_OPAQUE, 0},\n");
}
static void put_arg_table(strbuf *b, const void *ctx) { put_arg_rows(b, ctx, false); }
static void put_ret_table(strbuf *b, const void *ctx) { put_arg_rows(b, ctx, true); }

/* The Edge tables: per constrained op, its argument columns, its rows of alias
 * indices, its aliases' dtype sets. */
enum { EDGE_COLS, EDGE_CELLS, EDGE_ALIASES };
static void put_edge_table(strbuf *b, const gen *g, int which) {
    unsigned items = 0;
    for (unsigned id = 0; id < g->n; id++) {
        const og_edge_op *e = edge_of(g, id);
        if (!e) continue;
        if (which == EDGE_COLS) {
            sb_puts(b, "    /* "), sb_puts(b, e->op), sb_puts(b, " */");
            for (unsigned c = 0; c < e->nargs; c++) sb_putc(b, ' '), sb_puti(b, e->args[c].index), sb_putc(b, ',');
            sb_putc(b, '\n');
            items += e->nargs;
        } else if (which == EDGE_CELLS) {
            for (unsigned r = 0; r < e->nrows; r++) {
                sb_puts(b, "   ");
                for (unsigned c = 0; c < e->nargs; c++)
                    sb_putc(b, ' '), sb_putu(b, e->rows[(size_t)r * e->nargs + c]), sb_putc(b, ',');
                sb_putc(b, '\n');
            }
            items += e->nrows * e->nargs;
        } else {
            sb_puts(b, "    /* "), sb_puts(b, e->op), sb_puts(b, " */");
            for (unsigned a = 0; a < e->naliases; a++) sb_putc(b, ' '), sb_puthex32(b, e->aliases[a]), sb_puts(b, "u,");
            sb_putc(b, '\n');
            items += e->naliases;
        }
    }
    if (!items) sb_puts(b, which == EDGE_ALIASES ? "    0u,\n" : "    0,\n"); /* C needs an element */
}
static void put_col_table(strbuf *b, const void *ctx) { put_edge_table(b, ctx, EDGE_COLS); }
static void put_cell_table(strbuf *b, const void *ctx) { put_edge_table(b, ctx, EDGE_CELLS); }
static void put_alias_table(strbuf *b, const void *ctx) { put_edge_table(b, ctx, EDGE_ALIASES); }

/* n numbers, `per` to a line, each followed by suffix and a comma. */
static void put_numbers(strbuf *b, const uint32_t *v, unsigned n, unsigned per, const char *suffix) {
    for (unsigned i = 0; i < n; i++) {
        sb_puts(b, i % per ? " " : "    ");
        sb_putu(b, v[i]);
        sb_puts(b, suffix);
        sb_putc(b, ',');
        if (i % per == per - 1 || i + 1 == n) sb_putc(b, '\n');
    }
}
static void put_seed_table(strbuf *b, const void *ctx) {
    const gen *g = ctx;
    put_numbers(b, g->seeds, g->nb, 12, "u");
}
static void put_slot_table(strbuf *b, const void *ctx) {
    const gen *g = ctx;
    if (!g->n) sb_puts(b, "    0,\n");
    put_numbers(b, g->slots, g->n, 16, "");
}

static void put_kernels_xmacro(strbuf *b, const void *ctx) {
    const gen *g = ctx;
    bool first = true;
    for (unsigned id = 0; id < g->n; id++) {
        if (!has_kernel(g->m->funcs[id])) continue;
        sb_puts(b, first ? "    X(" : " \\\n    X("); /* the last entry ends the macro */
        sb_putu(b, id);
        sb_puts(b, ", opgen_kernel_");
        sb_puts(b, g->idents[id]);
        sb_putc(b, ')');
        first = false;
    }
}

static void put_prototypes(strbuf *b, const void *ctx) {
    const gen *g = ctx;
    for (unsigned id = 0; id < g->n; id++) {
        const og_func *f = g->m->funcs[id];
        if (!has_kernel(f)) continue;
        char *p = sb_begin(b, 64 + strlen(f->ns) + strlen(f->schema_text) + strlen(g->idents[id]));
        p = put_str(PUT_LIT(put_str(PUT_LIT(p, "/* "), f->ns), "::"), f->schema_text);
        p = put_str(PUT_LIT(p, " */\nopgen_status opgen_kernel_"), g->idents[id]);
        sb_end(b, PUT_LIT(p, "(opgen_ctx *ctx"));
        og_print_kernel_params(b, f->schema);
        sb_puts(b, ");\n");
    }
}

bool og_render_to(strbuf *out, const char *tdir, const char *tname, const og_tvar *vars, unsigned nvars,
                  og_outputs *reads, diag *d) {
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

bool og_render(og_outputs *outs, const char *outdir, const char *tdir, const char *name, const og_tvar *vars,
               unsigned nvars, diag *d) {
    char tname[128];
    snprintf(tname, sizeof tname, "%s.in", name);
    return og_render_to(og_outputs_add(outs, outdir, name), tdir, tname, vars, nvars, outs, d);
}

bool og_emit_c_headers(og_outputs *outs, const char *outdir, const char *tdir, const og_model *m, const og_edge *edge,
                       const char *generated_by, diag *d) {
    unsigned n = m->nfuncs;
    gen g = {.m = m, .edge = edge, .n = n, .nb = n / 4 + 1};
    g.idents = og_xcalloc(n + 1, sizeof *g.idents);
    g.names = og_xcalloc(n + 1, sizeof *g.names);
    for (unsigned i = 0; i < n; i++) g.names[i] = m->funcs[i]->full_name;
    g.seeds = og_xcalloc(g.nb, sizeof *g.seeds);
    g.slots = og_xcalloc(n + 1, sizeof *g.slots);
    bool ok = perfect_hash(g.names, n, g.nb, g.seeds, g.slots);
    if (!ok) diag_plain(d, "could not build a perfect hash of the operator names");
    /* identifiers: ns_name_overload, made unique by the op id where two collide */
    strbuf t;
    sb_init(&t);
    strmap seen;
    strmap_init(&seen, n);
    for (unsigned i = 0; i < n; i++) {
        sb_reset(&t);
        ident_of(&t, m->funcs[i]);
        char *id = arena_strndup(m->a, t.p, t.n);
        if (strmap_put(&seen, id, (void *)id)) id = arena_printf(m->a, "%s_%u", id, i);
        g.idents[i] = id;
    }
    strmap_free(&seen);
    sb_free(&t);

    strbuf dx;
    sb_init(&dx);
#define OG_DT_ROW(name, num, size) sb_printf(&dx, "%s    X(%s, %d, %d)", dx.n ? " \\\n" : "", #name, num, size);
    OPGEN_DTYPES(OG_DT_ROW)
#undef OG_DT_ROW

    char opcount[16], dtcount[16], edge_mask[16], buckets[16];
    snprintf(opcount, sizeof opcount, "%u", n);
    snprintf(dtcount, sizeof dtcount, "%d", OG_DTYPE_COUNT);
    snprintf(edge_mask, sizeof edge_mask, "0x%08x", (unsigned)OG_EDGE_DTYPES);
    snprintf(buckets, sizeof buckets, "%u", g.nb);
    og_tvar vars[] = {
        OG_TVAR("generated_by", generated_by),
        OG_TVAR("version", OPGEN_VERSION_STRING),
        OG_TVAR("dtype_xmacro", sb_cstr(&dx)),
        OG_TVAR("dtype_count", dtcount),
        OG_TVAR("edge_dtypes", edge_mask),
        OG_TVAR("op_count", opcount),
        OG_TVAR_FN("ops_xmacro", put_ops_xmacro, &g),
        OG_TVAR("hash_buckets", buckets),
        OG_TVAR("name_hash", name_hash_text()),
        OG_TVAR_FN("op_table", put_op_table, &g),
        OG_TVAR_FN("arg_table", put_arg_table, &g),
        OG_TVAR_FN("ret_table", put_ret_table, &g),
        OG_TVAR_FN("col_table", put_col_table, &g),
        OG_TVAR_FN("cell_table", put_cell_table, &g),
        OG_TVAR_FN("alias_table", put_alias_table, &g),
        OG_TVAR_FN("hash_seed_table", put_seed_table, &g),
        OG_TVAR_FN("hash_slot_table", put_slot_table, &g),
        OG_TVAR_FN("kernels_xmacro", put_kernels_xmacro, &g),
        OG_TVAR_FN("prototypes", put_prototypes, &g),
    };
    unsigned nv = sizeof vars / sizeof *vars;
    ok = ok && og_render(outs, outdir, tdir, "opgen_dtypes.h", vars, nv, d) &&
         og_render(outs, outdir, tdir, "opgen_ops.h", vars, nv, d) &&
         og_render(outs, outdir, tdir, "opgen_kernels.h", vars, nv, d);
    sb_free(&dx);
    free(g.seeds);
    free(g.slots);
    free(g.names);
    free(g.idents);
    return ok;
}
