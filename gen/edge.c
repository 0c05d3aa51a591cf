/* Edge dialect dtype constraints (edge.h): ExecuTorch edge.yaml bound to the
 * model's schemas, per op its constrained arguments, type aliases and rows. */
#include "edge.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR_AT(m, n, ...) diag_error((m)->d, (n)->file, (n)->line, (n)->col, __VA_ARGS__)

static bool is_str(og_model *m, const ynode *v, const char *what) {
    if (ynode_is_str(v)) return true;
    ERR_AT(m, v, "%s must be a string, found %s", what, ynode_describe(v));
    return false;
}

/* Only tensors, Scalars and ScalarTypes carry a dtype a row can constrain. */
static bool dtype_bearing(const og_type *t) {
    while (t->kind == OG_TY_OPTIONAL || t->kind == OG_TY_LIST) t = t->elem;
    return t->kind == OG_TY_BASE && (t->base == OG_BT_Tensor || t->base == OG_BT_Scalar || t->base == OG_BT_ScalarType);
}

/* Resolves a constrained argument name: a schema argument or __ret_N. */
static bool resolve_arg(og_model *m, const og_func *f, const ynode *k, int *index) {
    const og_schema *s = f->schema;
    if (!strncmp(k->s, "__ret_", 6)) {
        char *end;
        long r = strtol(k->s + 6, &end, 10);
        if (*end || end == k->s + 6 || r < 0 || (unsigned long)r >= s->nrets) {
            ERR_AT(m, k, "%s has %u return%s; '%s' names none of them", f->name, s->nrets, s->nrets == 1 ? "" : "s",
                   k->s);
            return false;
        }
        if (!dtype_bearing(s->rets[r].type)) {
            ERR_AT(m, k, "return %ld of %s is not a tensor, Scalar or ScalarType and carries no dtype", r, f->name);
            return false;
        }
        *index = -(int)r - 1;
        return true;
    }
    for (unsigned i = 0; i < s->nargs; i++)
        if (!strcmp(s->args[i].name, k->s)) {
            if (!dtype_bearing(s->args[i].type)) {
                ERR_AT(m, k, "argument '%s' of %s is not a tensor, Scalar or ScalarType and carries no dtype", k->s,
                       f->name);
                return false;
            }
            *index = (int)i;
            return true;
        }
    for (unsigned r = 0; r < s->nrets; r++) /* a named return, e.g. max.dim's values */
        if (s->rets[r].name && !strcmp(s->rets[r].name, k->s)) {
            if (!dtype_bearing(s->rets[r].type)) {
                ERR_AT(m, k, "return '%s' of %s is not a tensor, Scalar or ScalarType and carries no dtype", k->s,
                       f->name);
                return false;
            }
            *index = -(int)r - 1;
            return true;
        }
    ERR_AT(m, k, "%s has no argument or return named '%s'", f->name, k->s);
    return false;
}

static const og_func *resolve_op(og_model *m, const ynode *v) {
    const char *s = v->s, *sep = strstr(s, "::");
    char ns[128];
    const char *name = s;
    if (sep) {
        size_t nl = (size_t)(sep - s);
        if (nl >= sizeof ns) nl = sizeof ns - 1;
        memcpy(ns, s, nl);
        ns[nl] = 0;
        name = sep + 2;
    } else {
        strcpy(ns, "aten");
    }
    const og_func *f = og_model_find(m, ns, name);
    if (!f) ERR_AT(m, v, "unknown operator '%s' (not in the native functions)", s);
    return f;
}

static int find_alias(const og_edge_op *op, const char *name) {
    if (name[0] == 'T' && name[1] >= '0' && name[1] <= '9') { /* T<k> is usually the k-th alias */
        unsigned k = (unsigned)strtoul(name + 1, NULL, 10);
        if (k < op->naliases && op->alias_names[k] && !strcmp(op->alias_names[k], name)) return (int)k;
    }
    for (unsigned i = 0; i < op->naliases; i++)
        if (!strcmp(op->alias_names[i], name)) return (int)i;
    return -1;
}

static bool load_op(og_model *m, const ynode *e, og_edge_op *op) {
    unsigned before = m->d->errors;
    memset(op, 0, sizeof *op);
    if (e->kind != YNODE_MAP) {
        ERR_AT(m, e, "expected an edge entry (a mapping with 'func:'), found %s", ynode_describe(e));
        return false;
    }
    const ynode *fn = ymap_get(e, "func"), *inh = NULL, *ns = NULL, *ta = NULL, *tc = NULL;
    if (!fn) {
        ERR_AT(m, e, "edge entry has no 'func:' key");
        return false;
    }
    for (size_t i = 0; i < e->n; i++) {
        const ynode *k = e->kids[2 * i], *v = e->kids[2 * i + 1];
        const char *ks = ynode_is_str(k) ? k->s : "";
        if (!strcmp(ks, "func"))
            continue;
        else if (!strcmp(ks, "inherits"))
            inh = v;
        else if (!strcmp(ks, "namespace"))
            ns = v;
        else if (!strcmp(ks, "type_alias"))
            ta = v;
        else if (!strcmp(ks, "type_constraint"))
            tc = v;
        else
            ERR_AT(
                m, k,
                "unknown key '%s' in an edge entry (expected func, namespace, inherits, type_alias, type_constraint)",
                k->kind == YNODE_SCALAR ? k->s : "?");
    }
    if (!is_str(m, fn, "'func'")) return false;
    op->op = fn->s;
    op->func = resolve_op(m, fn);
    if (!op->func) return false;
    if (ns && is_str(m, ns, "'namespace'") && strcmp(ns->s, "edge"))
        ERR_AT(m, ns, "namespace must be 'edge', found '%s'", ns->s);
    if (inh && is_str(m, inh, "'inherits'")) {
        const og_func *g = resolve_op(m, inh);
        if (g && g != op->func)
            ERR_AT(m, inh, "'inherits' names %s::%s, but func is %s::%s", g->ns, g->name, op->func->ns, op->func->name);
    }
    if (!ta || !tc) {
        ERR_AT(m, e, "edge entry for %s needs 'type_alias' and 'type_constraint'", fn->s);
        return false;
    }
    /* type_alias: {T0: [Float, Double], ...} */
    if (ta->kind != YNODE_MAP) {
        ERR_AT(m, ta, "'type_alias' must map alias names to lists of dtypes, found %s", ynode_describe(ta));
        return false;
    }
    op->naliases = (unsigned)ta->n;
    if (op->naliases > 255) {
        ERR_AT(m, ta, "more than 255 type aliases");
        return false;
    }
    op->aliases = ARENA_ARRAY(m->a, og_dtset, op->naliases + 1);
    op->alias_names = ARENA_ARRAY(m->a, const char *, op->naliases + 1);
    for (unsigned i = 0; i < op->naliases; i++) {
        const ynode *k = ta->kids[2 * i], *v = ta->kids[2 * i + 1];
        if (!is_str(m, k, "an alias name")) continue;
        op->alias_names[i] = k->s;
        if (v->kind != YNODE_SEQ || v->n == 0) {
            ERR_AT(m, v, "alias %s must be a non-empty list of dtype names, found %s", k->s, ynode_describe(v));
            continue;
        }
        for (size_t j = 0; j < v->n; j++) {
            const ynode *d = v->kids[j];
            int dt = ynode_is_str(d) ? og_dtype_parse(d->s, d->len) : -1;
            if (dt < 0)
                ERR_AT(m, d, "unknown dtype '%s' in alias %s", d->kind == YNODE_SCALAR ? d->s : ynode_describe(d),
                       k->s);
            else if (op->aliases[i] & (1u << dt))
                ERR_AT(m, d, "dtype %s is listed twice in alias %s", d->s, k->s);
            else
                op->aliases[i] |= 1u << dt;
        }
    }
    /* type_constraint: rows naming every constrained argument */
    if (tc->kind != YNODE_SEQ || tc->n == 0 || tc->kids[0]->kind != YNODE_MAP || tc->kids[0]->n == 0) {
        ERR_AT(m, tc, "'type_constraint' must be a non-empty list of rows (mappings from argument to alias)");
        return false;
    }
    const ynode *first = tc->kids[0];
    op->nargs = (unsigned)first->n;
    op->args = ARENA_ARRAY(m->a, og_edge_arg, op->nargs);
    for (unsigned a = 0; a < op->nargs; a++) {
        const ynode *k = first->kids[2 * a];
        if (!is_str(m, k, "an argument name")) continue;
        op->args[a].name = k->s;
        resolve_arg(m, op->func, k, &op->args[a].index);
    }
    if (m->d->errors != before) return false;
    op->nrows = (unsigned)tc->n;
    op->rows = ARENA_ARRAY(m->a, unsigned char, (size_t)op->nrows * op->nargs);
    bool *used = og_xcalloc(op->naliases + 1, sizeof *used);
    for (unsigned r = 0; r < op->nrows; r++) {
        const ynode *row = tc->kids[r];
        if (row->kind != YNODE_MAP) {
            ERR_AT(m, row, "a type_constraint row must be a mapping from argument to alias, found %s",
                   ynode_describe(row));
            continue;
        }
        bool few[64], *seen = op->nargs < 64 ? few : og_xmalloc(op->nargs + 1);
        memset(seen, 0, op->nargs + 1);
        for (size_t i = 0; i < row->n; i++) {
            const ynode *k = row->kids[2 * i], *v = row->kids[2 * i + 1];
            int a = -1;
            if (i < op->nargs && ynode_is_str(k) &&
                !strcmp(op->args[i].name, k->s)) /* rows mostly follow the first row's order */
                a = (int)i;
            for (unsigned x = 0; a < 0 && x < op->nargs && ynode_is_str(k); x++)
                if (!strcmp(op->args[x].name, k->s)) a = (int)x;
            if (a < 0) {
                ERR_AT(m, k, "argument '%s' is not in the first row of %s (every row names the same arguments)",
                       k->kind == YNODE_SCALAR ? k->s : "?", fn->s);
                continue;
            }
            seen[a] = true;
            int al = ynode_is_str(v) ? find_alias(op, v->s) : -1;
            if (al < 0) {
                ERR_AT(m, v, "undefined type alias '%s' for argument '%s'", v->kind == YNODE_SCALAR ? v->s : "?", k->s);
                continue;
            }
            used[al] = true;
            op->rows[(size_t)r * op->nargs + (unsigned)a] = (unsigned char)al;
            op->args[a].allowed |= op->aliases[al];
        }
        for (unsigned a = 0; a < op->nargs; a++)
            if (!seen[a])
                ERR_AT(m, row, "row %u of %s misses argument '%s' (named in the first row)", r + 1, fn->s,
                       op->args[a].name);
        if (seen != few) free(seen);
    }
    for (unsigned i = 0; i < op->naliases; i++)
        if (!used[i] && op->alias_names[i])
            ERR_AT(m, ta->kids[2 * i], "type alias %s is defined but no row uses it", op->alias_names[i]);
    free(used);
    return m->d->errors == before;
}

void og_edge_begin(og_model *m, og_edge *out) {
    memset(out, 0, sizeof *out);
    out->m = m;
    out->errors_before = m->d->errors;
    out->nfuncs = m->nfuncs;
    out->by_func = ARENA_ARRAY(m->a, const og_edge_op *, m->nfuncs + 1);
}

/* What an op keeps of its entry's nodes (they are reused once it is loaded). */
static void keep_strings(arena *a, og_edge_op *op) {
    op->op = arena_strdup(a, op->op);
    for (unsigned i = 0; i < op->naliases; i++)
        if (op->alias_names[i]) op->alias_names[i] = arena_strdup(a, op->alias_names[i]);
    for (unsigned i = 0; i < op->nargs; i++)
        if (op->args[i].name) op->args[i].name = arena_strdup(a, op->args[i].name);
}

void og_edge_entry(void *edge, const ynode *e) {
    og_edge *out = edge;
    og_model *m = out->m;
    og_edge_op *op = ARENA_NEW(m->a, og_edge_op);
    if (!load_op(m, e, op)) return;
    keep_strings(m->a, op);
    const og_edge_op *prev = out->by_func[op->func->index];
    if (prev) {
        ERR_AT(m, ymap_get(e, "func"), "%s is constrained twice (also as '%s')", op->op, prev->op);
        return;
    }
    out->by_func[op->func->index] = op;
    if (out->nops == out->capops) {
        out->capops = out->capops ? 2 * out->capops : 256;
        out->loaded = og_xrealloc(out->loaded, out->capops * sizeof *out->loaded);
    }
    out->loaded[out->nops++] = op;
}

bool og_edge_finish(og_edge *out, const ydoc *doc) {
    og_model *m = out->m;
    const ynode *r = doc->root;
    if (!r || r->kind != YNODE_SEQ) {
        if (r)
            ERR_AT(m, r, "edge file must be a list of '- func: ...' entries, found %s", ynode_describe(r));
        else
            diag_error(m->d, doc->file, 1, 1, "edge file is empty; expected a list of '- func: ...' entries");
    }
    /* file order, in one array (by_func points at the copies) */
    out->ops = ARENA_ARRAY(m->a, og_edge_op, out->nops + 1);
    for (unsigned i = 0; i < out->nops; i++) {
        out->ops[i] = *out->loaded[i];
        out->by_func[out->ops[i].func->index] = &out->ops[i];
    }
    free(out->loaded);
    out->loaded = NULL;
    return m->d->errors == out->errors_before;
}

bool og_edge_load(og_model *m, const ydoc *doc, og_edge *out) {
    og_edge_begin(m, out);
    for (size_t i = 0; doc->root && doc->root->kind == YNODE_SEQ && i < doc->root->n; i++)
        og_edge_entry(out, doc->root->kids[i]);
    return og_edge_finish(out, doc);
}

void og_edge_free(og_edge *e) { free(e->loaded); /* the rest is the model's arena */ }

void og_edge_reindex(og_edge *e, const og_model *m) {
    memset(e->by_func, 0, sizeof *e->by_func * (e->nfuncs + 1));
    e->nfuncs = m->nfuncs; /* never more than it was */
    for (unsigned i = 0; i < e->nops; i++)
        if (og_func_kept(m, e->ops[i].func)) e->by_func[e->ops[i].func->index] = &e->ops[i];
}

const og_edge_op *og_edge_find(const og_edge *e, const og_func *f) {
    return f->index < e->nfuncs ? e->by_func[f->index] : NULL;
}

/* The dtype an alias stands for in a row, given the call: the one most of its
 * arguments have (the earliest on a tie), so blame falls on the odd ones out. */
static int alias_dtype(const og_edge_op *op, const unsigned char *row, unsigned alias, const int *dtypes) {
    int best = -1, best_n = 0;
    for (unsigned a = 0; a < op->nargs; a++) {
        if (row[a] != alias || dtypes[a] < 0 || !(op->aliases[alias] >> dtypes[a] & 1)) continue;
        int n = 0;
        for (unsigned b = 0; b < op->nargs; b++) n += row[b] == alias && dtypes[b] == dtypes[a];
        if (n > best_n) best = dtypes[a], best_n = n;
    }
    return best;
}

/* Which given arguments row r rejects: bit a set when op->args[a] fails. */
static uint64_t row_failures(const og_edge_op *op, unsigned r, const int *dtypes) {
    const unsigned char *row = op->rows + (size_t)r * op->nargs;
    uint64_t fail = 0;
    for (unsigned a = 0; a < op->nargs && a < 64; a++) {
        if (dtypes[a] < 0) continue;
        if (!(op->aliases[row[a]] & (1u << dtypes[a])) || alias_dtype(op, row, row[a], dtypes) != dtypes[a])
            fail |= 1ull << a;
    }
    return fail;
}

static void describe_failure(const og_edge_op *op, unsigned r, uint64_t fail, const int *dtypes, strbuf *why) {
    const unsigned char *row = op->rows + (size_t)r * op->nargs;
    sb_printf(why, "  row %u:", r + 1);
    bool first = true;
    for (unsigned a = 0; a < op->nargs && a < 64; a++) {
        if (!(fail >> a & 1)) continue;
        const char *alias = op->alias_names[row[a]];
        sb_printf(why, "%s %s=%s ", first ? "" : ";", op->args[a].name, og_dtype_name(dtypes[a]));
        first = false;
        if (!(op->aliases[row[a]] & (1u << dtypes[a]))) {
            sb_printf(why, "is not in %s [", alias);
            bool f2 = true;
            for (int d = 0; d < OG_DTYPE_COUNT; d++)
                if (op->aliases[row[a]] >> d & 1) sb_printf(why, "%s%s", f2 ? "" : ", ", og_dtype_name(d)), f2 = false;
            sb_putc(why, ']');
        } else {
            int want = alias_dtype(op, row, row[a], dtypes);
            for (unsigned b = 0; b < op->nargs; b++)
                if (row[b] == row[a] && dtypes[b] == want) {
                    sb_printf(why, "must equal %s=%s (both %s)", op->args[b].name, og_dtype_name(dtypes[b]), alias);
                    break;
                }
        }
    }
    sb_putc(why, '\n');
}

int og_edge_check_call(const og_edge_op *op, const int *dtypes, strbuf *why) {
    unsigned best = 65, nbest = 0;
    for (unsigned r = 0; r < op->nrows; r++) {
        uint64_t f = row_failures(op, r, dtypes);
        if (!f) return (int)r;
        unsigned c = (unsigned)__builtin_popcountll(f);
        if (c < best) best = c, nbest = 0;
        if (c == best) nbest++;
    }
    sb_printf(why, "%s: no constraint row accepts (", op->op);
    bool first = true;
    for (unsigned a = 0; a < op->nargs; a++)
        if (dtypes[a] >= 0)
            sb_printf(why, "%s%s=%s", first ? "" : ", ", op->args[a].name, og_dtype_name(dtypes[a])), first = false;
    sb_printf(why, "); %u row%s, the closest fail%s on %u argument%s:\n", op->nrows, op->nrows == 1 ? "" : "s",
              nbest == 1 ? "s" : "", best, best == 1 ? "" : "s");
    unsigned shown = 0;
    for (unsigned r = 0; r < op->nrows && shown < 5; r++) {
        uint64_t f = row_failures(op, r, dtypes);
        if ((unsigned)__builtin_popcountll(f) != best) continue;
        describe_failure(op, r, f, dtypes, why);
        shown++;
    }
    if (nbest > shown) sb_printf(why, "  ... and %u more such rows\n", nbest - shown);
    return -1;
}

/* "aten::add.Tensor" -> the op (a name without namespace is aten's). */
static const og_func *find_op(const og_model *m, const char *opname) {
    const char *sep = strstr(opname, "::");
    if (!sep) return og_model_find(m, "aten", opname);
    char ns[128];
    if ((size_t)(sep - opname) >= sizeof ns) return NULL;
    memcpy(ns, opname, (size_t)(sep - opname));
    ns[sep - opname] = 0;
    return og_model_find(m, ns, sep + 2);
}

/* An op edge.yaml does not constrain: any Edge dtype on its tensor arguments and returns. */
static int check_unconstrained(const og_func *f, const char *arg, int dt, const char *dtname, strbuf *out) {
    bool known = !strncmp(arg, "__ret_", 6) && (unsigned)atoi(arg + 6) < f->schema->nrets;
    for (unsigned i = 0; i < f->schema->nargs && !known; i++)
        known = !strcmp(f->schema->args[i].name, arg) && og_type_is_tensor_like(f->schema->args[i].type);
    if (!known)
        return sb_printf(out, "%s::%s has no tensor argument or return '%s'", f->ns, f->name, arg), OG_CALL_USAGE;
    if (!(OG_EDGE_DTYPES >> dt & 1))
        return sb_printf(out, "%s::%s: %s=%s: %s is not an Edge dtype\n", f->ns, f->name, arg, dtname, dtname),
               OG_CALL_INVALID;
    return OG_CALL_VALID;
}

int og_edge_check_call_text(const og_model *m, const og_edge *e, const char *opname, const char *const *pairs,
                            unsigned npairs, strbuf *out) {
    const og_func *f = find_op(m, opname);
    if (!f) return sb_printf(out, "unknown operator '%s'", opname), OG_CALL_USAGE;
    const og_edge_op *op = og_edge_find(e, f);
    int *dtypes = og_xmalloc(sizeof *dtypes * (op ? op->nargs + 1 : 1));
    for (unsigned i = 0; op && i < op->nargs; i++) dtypes[i] = -1;
    int rc = OG_CALL_VALID;
    for (unsigned p = 0; p < npairs && rc == OG_CALL_VALID; p++) {
        const char *eq = strchr(pairs[p], '=');
        if (!eq) {
            sb_printf(out, "expected ARG=DTYPE, found '%s'", pairs[p]);
            rc = OG_CALL_USAGE;
            break;
        }
        int dt = og_dtype_parse(eq + 1, strlen(eq + 1));
        char *arg = arena_strndup(m->a, pairs[p], (size_t)(eq - pairs[p]));
        if (dt < 0) {
            sb_printf(out, "unknown dtype '%s'", eq + 1);
            rc = OG_CALL_USAGE;
        } else if (!op) {
            rc = check_unconstrained(f, arg, dt, eq + 1, out);
        } else {
            int a = -1;
            for (unsigned i = 0; i < op->nargs; i++)
                if (!strcmp(op->args[i].name, arg)) a = (int)i;
            if (a >= 0) {
                dtypes[a] = dt;
                continue;
            }
            sb_printf(out, "%s constrains ", op->op);
            for (unsigned i = 0; i < op->nargs; i++) sb_printf(out, "%s%s", i ? ", " : "", op->args[i].name);
            sb_printf(out, "; not '%s'", arg);
            rc = OG_CALL_USAGE;
        }
    }
    if (rc == OG_CALL_VALID && !op)
        sb_printf(out, "%s::%s: valid (not in edge.yaml: any Edge dtype, no cross-argument constraint)\n", f->ns,
                  f->name);
    if (rc == OG_CALL_VALID && op) {
        int row = og_edge_check_call(op, dtypes, out);
        if (row >= 0) sb_printf(out, "%s: valid (row %d of %u)\n", op->op, row + 1, op->nrows);
        rc = row >= 0 ? OG_CALL_VALID : OG_CALL_INVALID;
    }
    free(dtypes);
    return rc;
}
