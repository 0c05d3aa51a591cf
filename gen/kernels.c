/* Kernel lists in ExecuTorch's kernel yaml format (kernels.h): op entries
 * naming model ops, func entries declaring custom ops, and their dtypes. */
#include "kernels.h"
#include "abi.h"
#include "strbuf.h"
#include "strmap.h"
#include <stdlib.h>
#include <string.h>

#define ERR_AT(m, n, ...) diag_error((m)->d, (n)->file, (n)->line, (n)->col, __VA_ARGS__)

void og_kernels_declare(og_model *m, const ydoc *doc) {
    const ynode *r = doc->root;
    if (!r || r->kind != YNODE_SEQ) return; /* reported by og_kernels_load */
    for (size_t i = 0; i < r->n; i++) og_model_kernel_yaml_entry(m, r->kids[i]);
}

/* The op an op: entry names ("add.out", "ns::name.overload"), or NULL. */
static const og_func *find_named(og_model *m, const char *s) {
    const char *sep = strstr(s, "::");
    char ns[128] = "aten";
    if (sep && (size_t)(sep - s) < sizeof ns) {
        memcpy(ns, s, (size_t)(sep - s));
        ns[sep - s] = 0;
        s = sep + 2;
    }
    return og_model_find(m, ns, s);
}

static const og_func *resolve(og_model *m, const ynode *v) {
    const og_func *f = find_named(m, v->s);
    if (!f) ERR_AT(m, v, "unknown operator '%s'", v->s);
    return f;
}

static int first_out(const og_func *f) {
    for (unsigned i = 0; i < f->schema->nargs; i++)
        if (f->schema->args[i].cat == OG_ARG_OUT) return (int)i;
    return -1;
}

/* The argument whose dtype a kernel is specialized on: the first out argument;
 * of an in-place op, the one it writes; else the first tensor. */
static int dispatch_arg(const og_func *f) {
    int o = first_out(f);
    for (unsigned i = 0; o < 0 && i < f->schema->nargs; i++)
        if (og_annot_is_write(f->schema->args[i].annot)) o = (int)i;
    for (unsigned i = 0; o < 0 && i < f->schema->nargs; i++)
        if (og_type_is_tensor_like(f->schema->args[i].type)) o = (int)i;
    return o;
}

og_dtset og_out_dtypes(const og_func *f, const og_edge *edge) {
    int o = first_out(f);
    if (o < 0) return OG_EDGE_DTYPES; /* a kernel of an in-place or functional op */
    /* the functional op's constraint on the matching return names the out dtype */
    const og_func *fn = f->group ? f->group->functional : NULL;
    const og_edge_op *e = edge ? og_edge_find(edge, f) : NULL;
    if (e)
        for (unsigned c = 0; c < e->nargs; c++)
            if (e->args[c].index == o || e->args[c].index == -1) return e->args[c].allowed;
    e = edge && fn ? og_edge_find(edge, fn) : NULL;
    if (e)
        for (unsigned c = 0; c < e->nargs; c++)
            if (e->args[c].index == -1) return e->args[c].allowed;
    return OG_EDGE_DTYPES;
}

static char *symbol_of(og_model *m, const char *kernel_name) {
    size_t n = strlen(kernel_name);
    char *s = arena_alloc(m->a, n + 1), *o = s;
    for (const char *p = kernel_name; *p; p++) {
        if (p[0] == ':' && p[1] == ':') {
            *o++ = '_';
            p++;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
    return s;
}

static void add(og_yaml_kernels *l, og_yaml_kernel k) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 32;
        og_yaml_kernel *p = og_xrealloc(l->items, l->cap * sizeof *p);
        l->items = p;
    }
    l->items[l->n++] = k;
}

void og_yaml_kernels_free(og_yaml_kernels *l) {
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* arg_meta: {arg: [TypeAlias, DimOrderAlias]} -> the key (each named argument's
 * dtypes and dim order) and the dtypes of the first out argument. */
static bool kernel_dtypes(og_model *m, const og_func *f, const ynode *entry, const ynode *meta, og_dtset *out,
                          og_kernel_key *key) {
    const ynode *ta = ymap_get(entry, "type_alias"), *da = ymap_get(entry, "dim_order_alias");
    if (meta->kind != YNODE_MAP) {
        ERR_AT(m, meta, "arg_meta must be null or a mapping from argument to [TypeAlias, DimOrderAlias], found %s",
               ynode_describe(meta));
        return false;
    }
    int o = dispatch_arg(f);
    bool ok = true;
    *out = 0;
    key->n = 0;
    key->args = arena_alloc(m->a, (meta->n ? meta->n : 1) * sizeof *key->args);
    for (size_t i = 0; i < meta->n; i++) {
        const ynode *k = meta->kids[2 * i], *v = meta->kids[2 * i + 1];
        int a = -1;
        for (unsigned x = 0; x < f->schema->nargs && ynode_is_str(k); x++)
            if (!strcmp(f->schema->args[x].name, k->s)) a = (int)x;
        if (a < 0) {
            ERR_AT(m, k, "%s has no argument '%s'", f->name, k->kind == YNODE_SCALAR ? k->s : "?");
            ok = false;
            continue;
        }
        if (v->kind != YNODE_SEQ || v->n != 2 || !ynode_is_str(v->kids[0]) || !ynode_is_str(v->kids[1])) {
            ERR_AT(m, v, "expected [TypeAlias, DimOrderAlias] for argument '%s'", k->s);
            ok = false;
            continue;
        }
        const ynode *types = ymap_get(ta, v->kids[0]->s), *orders = ymap_get(da, v->kids[1]->s);
        if (!types) {
            ERR_AT(m, v->kids[0], "undefined type alias '%s'", v->kids[0]->s);
            ok = false;
        }
        if (!orders) {
            ERR_AT(m, v->kids[1], "undefined dim order alias '%s'", v->kids[1]->s);
            ok = false;
        }
        if (!types || !orders) continue;
        og_dtset set = 0;
        for (size_t j = 0; types->kind == YNODE_SEQ && j < types->n; j++) {
            const ynode *d = types->kids[j];
            int dt = ynode_is_str(d) ? og_dtype_parse(d->s, d->len) : -1;
            if (dt < 0) {
                ERR_AT(m, d, "unknown dtype '%s'", d->kind == YNODE_SCALAR ? d->s : "?");
                ok = false;
            } else {
                set |= 1u << dt;
            }
        }
        og_key_arg *ka = &key->args[key->n];
        memset(ka, 0, sizeof *ka);
        ka->arg = (unsigned)a, ka->dtypes = set, ka->same_as = -1;
        if (orders->kind != YNODE_SEQ || orders->n > OG_KEY_MAX_DIM) {
            ERR_AT(m, orders, "a dim order is a list of at most %d dimension numbers", OG_KEY_MAX_DIM);
            ok = false;
        }
        for (size_t j = 0; orders->kind == YNODE_SEQ && j < orders->n && j < OG_KEY_MAX_DIM; j++) {
            const ynode *d = orders->kids[j];
            long dim = d->kind == YNODE_SCALAR && d->type == YVAL_INT ? strtol(d->s, NULL, 10) : -1;
            if (dim < 0 || dim >= (long)orders->n) {
                ERR_AT(m, d, "a dim order lists dimension numbers, each below its length");
                ok = false;
                continue;
            }
            ka->order[ka->ndim++] = (unsigned char)dim;
        }
        ka->alias = v->kids[0]->s;
        for (unsigned j = 0; j < key->n && ka->same_as < 0; j++) /* one type alias: one dtype */
            if (!strcmp(key->args[j].alias, ka->alias)) ka->same_as = (int)j;
        key->n++;
        if (a == o) *out = set;
    }
    if (ok && o >= 0 && !*out) {
        ERR_AT(m, meta, "arg_meta does not name the out argument '%s'", f->schema->args[o].name);
        ok = false;
    }
    return ok;
}

static bool load_kernels(og_model *m, const og_edge *edge, const ydoc *doc, og_yaml_kernels *out, bool vendor);

bool og_kernels_load(og_model *m, const og_edge *edge, const ydoc *doc, og_yaml_kernels *out) {
    return load_kernels(m, edge, doc, out, false);
}
bool og_kernels_load_vendor(og_model *m, const og_edge *edge, const ydoc *doc, og_yaml_kernels *out) {
    return load_kernels(m, edge, doc, out, true);
}

static bool load_kernels(og_model *m, const og_edge *edge, const ydoc *doc, og_yaml_kernels *out, bool vendor) {
    unsigned before = m->d->errors;
    const ynode *r = doc->root;
    if (!r || r->kind != YNODE_SEQ) {
        if (r)
            ERR_AT(m, r, "kernel file must be a list of '- op:' or '- func:' entries, found %s", ynode_describe(r));
        else
            diag_error(m->d, doc->file, 1, 1, "kernel file is empty");
        return false;
    }
    for (size_t i = 0; i < r->n; i++) {
        const ynode *e = r->kids[i];
        if (e->kind != YNODE_MAP) {
            ERR_AT(m, e, "expected a kernel entry (a mapping with 'op:' or 'func:'), found %s", ynode_describe(e));
            continue;
        }
        const ynode *op = ymap_get(e, "op"), *fn = ymap_get(e, "func"), *ks = ymap_get(e, "kernels");
        const og_func *f = NULL;
        if (op && fn) {
            ERR_AT(m, e, "an entry has either 'op:' or 'func:', not both");
            continue;
        }
        if (op) {
            for (size_t k = 0; k < e->n; k++) {
                const ynode *key = e->kids[2 * k];
                const char *s = ynode_is_str(key) ? key->s : "";
                /* ExecuTorch merges native_functions keys given here (tags, dispatch,
                 * cpp_no_default_args) into the op's entry; they change no kernel */
                if (strcmp(s, "op") && strcmp(s, "kernels") && strcmp(s, "type_alias") &&
                    strcmp(s, "dim_order_alias") && !og_model_is_entry_key(s))
                    ERR_AT(
                        m, key,
                        "unknown key '%s' in an 'op:' entry (expected op, kernels, type_alias, dim_order_alias, or a native_functions key)",
                        s);
            }
            if (!ynode_is_str(op)) {
                ERR_AT(m, op, "'op' must be an operator name, found %s", ynode_describe(op));
                continue;
            }
            if (vendor && !find_named(m, op->s))
                continue; /* the vendor's kernel for an op opgen lacks: its own business */
            f = resolve(m, op);
        } else if (fn) {
            if (!ynode_is_str(fn)) continue; /* reported when declared */
            /* the func: entry was declared in pass 1 under its schema's name */
            const char *s = fn->s, *lp = strchr(s, '(');
            if (!lp) continue;
            char *name = arena_strndup(m->a, s, (size_t)(lp - s));
            char *sep = strstr(name, "::");
            f = sep ? (*sep = 0, og_model_find(m, name, sep + 2)) : og_model_find(m, "aten", name);
            if (!f) continue; /* its schema error was reported in pass 1 */
        } else {
            ERR_AT(m, e, "kernel entry has neither 'op:' nor 'func:'");
            continue;
        }
        if (!f) continue;
        if (!ks) continue; /* a declaration without kernels */
        if (ks->kind != YNODE_SEQ) {
            ERR_AT(m, ks, "'kernels' must be a list of {arg_meta, kernel_name}, found %s", ynode_describe(ks));
            continue;
        }
        for (size_t k = 0; k < ks->n; k++) {
            const ynode *kn = ks->kids[k];
            const ynode *meta = ymap_get(kn, "arg_meta"), *name = ymap_get(kn, "kernel_name");
            if (kn->kind != YNODE_MAP || !name || !ynode_is_str(name)) {
                ERR_AT(m, kn, "a kernel is {arg_meta: ..., kernel_name: NAME}");
                continue;
            }
            og_yaml_kernel kk;
            memset(&kk, 0, sizeof kk);
            kk.func = f;
            kk.kernel_name = arena_strndup(m->a, name->s, name->len);
            kk.symbol = symbol_of(m, name->s);
            if (!og_is_c_ident(kk.symbol)) {
                ERR_AT(m, name, "kernel name '%s' does not make a C identifier", name->s);
                continue;
            }
            ynode *copy = ARENA_NEW(m->a, ynode);
            *copy = *name;
            copy->kids = NULL;
            kk.node = copy;
            if (!meta || (meta->kind == YNODE_SCALAR && meta->type == YVAL_NULL)) {
                kk.is_default = true;
                kk.dtypes = og_out_dtypes(f, edge);
            } else if (!kernel_dtypes(m, f, e, meta, &kk.dtypes, &kk.key)) {
                continue;
            }
            add(out, kk);
        }
    }
    return m->d->errors == before;
}

/* The C types of an op's arguments, as one string: its C signature. */
static const char *c_signature(og_model *m, const og_func *f, strbuf *ct) {
    sb_reset(ct);
    for (unsigned i = 0; i < f->schema->nargs; i++)
        sb_printf(ct, "%s, ", og_abi_of(f->schema->args[i].type, og_annot_is_write(f->schema->args[i].annot)).ctype);
    return arena_strndup(m->a, ct->p, ct->n);
}

/* "name.overload" as C identifier characters: quantized_relu_per_tensor_out. */
static const char *ident_of(og_model *m, const og_func *f) {
    char *s = arena_printf(m->a, "%s", f->name);
    for (char *c = s; *c; c++)
        if (*c == '.') *c = '_';
    return s;
}

bool og_kernels_check(og_model *m, og_yaml_kernels *l, diag *d) {
    bool ok = true;
    strmap ops, syms;
    strmap_init(&ops, 64);
    strmap_init(&syms, 64);
    strbuf ct;
    sb_init(&ct);
    const char **sigs = og_xcalloc(l->n + 1, sizeof *sigs);
    for (unsigned k = 0; k < l->n; k++) {
        og_yaml_kernel *kk = &l->items[k];
        if (kk->is_default) { /* dtype-specialized kernels are for backends */
            char key[32];
            snprintf(key, sizeof key, "%u", kk->func->index);
            const og_yaml_kernel *prev = strmap_get(&ops, key);
            if (prev) {
                diag_error(d, kk->node->file, kk->node->line, kk->node->col,
                           "%s::%s has two default kernels (%s and %s)", kk->func->ns, kk->func->name,
                           prev->kernel_name, kk->kernel_name);
                ok = false;
                continue;
            }
            strmap_put(&ops, arena_strndup(m->a, key, strlen(key)), (void *)kk);
        }
        sigs[k] = c_signature(m, kk->func, &ct);
        if (!strmap_get(&syms, kk->symbol)) strmap_put(&syms, kk->symbol, (void *)kk);
    }
    /* A kernel_name serving several ops is one C function where their C signatures
     * agree. Where they differ C++ overloads the name, as ExecuTorch's Cadence HiFi
     * kernels do; C cannot, so the first signature keeps the name and each other
     * gets NAME__<op>: derived from the yaml alone, so deterministic. Only a derived
     * name the yaml gives another kernel of another signature is a contradiction. */
    for (unsigned k = 0; k < l->n; k++) {
        og_yaml_kernel *kk = &l->items[k];
        const og_yaml_kernel *first = sigs[k] ? strmap_get(&syms, kk->symbol) : NULL;
        if (!first || !strcmp(sigs[first - l->items], sigs[k])) continue;
        const og_yaml_kernel *same = NULL; /* an op before it with this name and signature */
        for (unsigned j = 0; j < k && !same; j++)
            if (l->items[j].overloads && !strcmp(l->items[j].overloads, first->symbol) && !strcmp(sigs[j], sigs[k]))
                same = &l->items[j];
        if (same) {
            kk->overloads = same->overloads, kk->symbol = same->symbol;
            continue;
        }
        const char *derived = arena_printf(m->a, "%s__%s", kk->symbol, ident_of(m, kk->func));
        const og_yaml_kernel *taken = strmap_get(&syms, derived);
        if (taken && strcmp(sigs[taken - l->items], sigs[k])) {
            diag_error(
                d, kk->node->file, kk->node->line, kk->node->col,
                "kernel %s serves %s::%s and %s::%s, whose C signatures differ, and %s, the name C would give the second, is another kernel's",
                kk->kernel_name, first->func->ns, first->func->name, kk->func->ns, kk->func->name, derived);
            ok = false;
            continue;
        }
        kk->overloads = first->symbol;
        kk->symbol = derived;
        if (!taken) strmap_put(&syms, derived, (void *)kk);
    }
    free(sigs);
    sb_free(&ct);
    strmap_free(&ops);
    strmap_free(&syms);
    return ok;
}
