/* Lowering (opgen/lower.h): a graph program's core-op patterns rewritten into
 * the Backend dialect's ops, as `opgen-rt lower` and load do. */
#include "opgen/lower.h"
#include "opgen_backend.h"
#include "step.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static opgen_status oom(opgen_error *err) { return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory"); }

int opgen_dialect_parse(const char *name) {
    if (!strcmp(name, "aten")) return OPGEN_DIALECT_ATEN;
    if (!strcmp(name, "edge")) return OPGEN_DIALECT_EDGE;
    if (!strcmp(name, "backend")) return OPGEN_DIALECT_BACKEND;
    return -1;
}

/* ---- arguments as values: what was written, or the schema's default ---- */

/* The effective arguments of node nd (op id): given or default, per schema argument;
 * NULL where a default cannot be read (it then only equals another default). */
static const opgen_garg **effective(opgen_arena *a, const opgen_graph *g, const opgen_gnode *nd, int id,
                                    opgen_error *err) {
    const opgen_op *op = &opgen_ops[id];
    const opgen_garg **given = opgen_arena_zalloc(a, sizeof *given * (op->nargs + 1u));
    if (!given) return oom(err), NULL;
    if (opgen_bind_node(g, nd, id, given, err, a)) return NULL;
    for (int i = 0; i < op->nargs; i++) {
        const opgen_arg *arg = &opgen_args[op->first_arg + (unsigned)i];
        if (given[i] || !arg->dflt) continue;
        opgen_garg *x = opgen_arena_zalloc(a, sizeof *x);
        if (!x) return oom(err), NULL;
        if (opgen_garg_parse_default(a, arg->dflt, x)) given[i] = x;
    }
    return given;
}

static bool garg_equal(const opgen_garg *x, const opgen_garg *y) {
    if (!x || !y) return x == y;
    bool xn = x->kind == OPGEN_GA_INT || x->kind == OPGEN_GA_FLOAT,
         yn = y->kind == OPGEN_GA_INT || y->kind == OPGEN_GA_FLOAT;
    if (xn && yn) { /* 1 and 1.0 are one number */
        double a = x->kind == OPGEN_GA_INT ? (double)x->i : x->f, b = y->kind == OPGEN_GA_INT ? (double)y->i : y->f;
        if (x->kind == OPGEN_GA_INT && y->kind == OPGEN_GA_INT) return x->i == y->i;
        return a == b || (a != a && b != b);
    }
    if (x->kind != y->kind) return false;
    switch (x->kind) {
    case OPGEN_GA_STR: return !strcmp(x->s, y->s);
    case OPGEN_GA_NONE: return true;
    case OPGEN_GA_LIST:
        if (x->nitems != y->nitems) return false;
        for (int i = 0; i < x->nitems; i++)
            if (!garg_equal(&x->items[i], &y->items[i])) return false;
        return true;
    default: return x->i == y->i; /* VALUE, BOOL, DTYPE, MEMFMT */
    }
}

/* A deep copy of x (lists included), keyword set to kw. */
static bool garg_copy(opgen_arena *a, const opgen_garg *x, const char *kw, opgen_garg *out) {
    *out = *x;
    out->kw = kw;
    if (x->kind != OPGEN_GA_LIST || !x->nitems) return true;
    out->items = opgen_arena_zalloc(a, sizeof(opgen_garg) * (size_t)x->nitems);
    if (!out->items) return false;
    for (int i = 0; i < x->nitems; i++)
        if (!garg_copy(a, &x->items[i], NULL, &out->items[i])) return false;
    return true;
}

/* ---- a graph being edited: its nodes in order (NULL = removed), values growing ---- */

typedef struct work {
    opgen_arena *a;
    opgen_error *err;
    const opgen_graph *in;
    opgen_gvalue *values;
    int nvalues, capvalues;
    opgen_gnode **nodes;
    int nnodes;
    int *prod; /* per value: the node that defines it, or -1 */
} work;

static opgen_status work_init(work *w, const opgen_graph *in, opgen_arena *a, opgen_error *err) {
    memset(w, 0, sizeof *w);
    w->a = a;
    w->err = err;
    w->in = in;
    w->capvalues = in->nvalues + 16;
    w->values = opgen_arena_zalloc(a, sizeof *w->values * (size_t)w->capvalues);
    w->nodes = opgen_arena_zalloc(a, sizeof *w->nodes * (size_t)(in->nnodes + 1));
    if (!w->values || !w->nodes) return oom(err);
    if (in->nvalues) memcpy(w->values, in->values, sizeof *w->values * (size_t)in->nvalues);
    w->nvalues = in->nvalues;
    for (int n = 0; n < in->nnodes; n++) {
        w->nodes[n] = opgen_arena_zalloc(a, sizeof(opgen_gnode));
        if (!w->nodes[n]) return oom(err);
        *w->nodes[n] = in->nodes[n];
    }
    w->nnodes = in->nnodes;
    return OPGEN_OK;
}

static opgen_status work_producers(work *w) {
    w->prod = opgen_arena_zalloc(w->a, sizeof(int) * (size_t)(w->nvalues + 1));
    if (!w->prod) return oom(w->err);
    for (int v = 0; v < w->nvalues; v++) w->prod[v] = -1;
    for (int n = 0; n < w->nnodes; n++)
        for (int r = 0; w->nodes[n] && r < w->nodes[n]->nresults; r++) w->prod[w->nodes[n]->results[r]] = n;
    return OPGEN_OK;
}

static bool uses(const opgen_garg *x, int v) {
    if (x->kind == OPGEN_GA_VALUE) return x->i == v;
    for (int i = 0; x->kind == OPGEN_GA_LIST && i < x->nitems; i++)
        if (uses(&x->items[i], v)) return true;
    return false;
}

static bool node_uses(const opgen_gnode *nd, int v) {
    for (int k = 0; k < nd->nargs; k++)
        if (uses(&nd->args[k], v)) return true;
    return false;
}

static bool is_output(const opgen_graph *g, int v) {
    for (int i = 0; i < g->noutputs; i++)
        if (g->outputs[i] == v) return true;
    return false;
}

/* The edited graph as a graph: live nodes in order, producers set. */
static opgen_status work_finish(work *w, opgen_graph *out) {
    *out = *w->in;
    out->values = w->values;
    out->nvalues = w->nvalues;
    out->nodes = opgen_arena_zalloc(w->a, sizeof(opgen_gnode) * (size_t)(w->nnodes + 1));
    if (!out->nodes) return oom(w->err);
    out->nnodes = 0;
    for (int v = 0; v < w->nvalues; v++)
        if (w->values[v].kind == OPGEN_GV_RESULT) w->values[v].producer = -1;
    for (int n = 0; n < w->nnodes; n++) {
        if (!w->nodes[n]) continue;
        for (int r = 0; r < w->nodes[n]->nresults; r++) w->values[w->nodes[n]->results[r]].producer = out->nnodes;
        out->nodes[out->nnodes++] = *w->nodes[n];
    }
    return OPGEN_OK;
}

/* ---- patterns ---- */

typedef struct pattern {
    const opgen_backend_op *b;
    opgen_graph g;
    int *ids;                 /* per pattern node: its op id */
    const opgen_garg ***args; /* per pattern node: effective arguments */
    int root;                 /* the node that defines the first returned value */
} pattern;

static opgen_status pattern_load(const opgen_backend_op *b, opgen_arena *a, pattern *p, opgen_error *err) {
    memset(p, 0, sizeof *p);
    p->b = b;
    char file[128];
    snprintf(file, sizeof file, "pattern of %s", opgen_ops[b->op].qualified);
    const char *name = opgen_arena_alloc(a, strlen(file) + 1);
    if (!name) return oom(err);
    memcpy((char *)name, file, strlen(file) + 1);
    if (opgen_graph_parse(name, b->pattern, strlen(b->pattern), true, a, &p->g, err)) return err->code;
    p->ids = opgen_arena_zalloc(a, sizeof(int) * (size_t)(p->g.nnodes + 1));
    p->args = opgen_arena_zalloc(a, sizeof *p->args * (size_t)(p->g.nnodes + 1));
    if (!p->ids || !p->args) return oom(err);
    for (int n = 0; n < p->g.nnodes; n++) {
        p->ids[n] = opgen_node_op(p->g.nodes[n].op);
        if (p->ids[n] < 0) return opgen_fail(err, OPGEN_E_NOT_FOUND, "%s: unknown operator %s", name, p->g.nodes[n].op);
        if (!(p->args[n] = effective(a, &p->g, &p->g.nodes[n], p->ids[n], err))) return err->code;
    }
    p->root = p->g.noutputs ? p->g.values[p->g.outputs[0]].producer : -1;
    if (p->root < 0) return opgen_fail(err, OPGEN_E_INVALID, "%s returns no node's result", name);
    return OPGEN_OK;
}

/* ---- fusion ---- */

typedef struct match {
    const pattern *p;
    work *w;
    int *node_of;             /* pattern node -> graph node, or -1 */
    bool *taken;              /* graph node -> matched already */
    const opgen_garg **bound; /* pattern free value -> what it stands for */
    int *val_of;              /* pattern value -> graph value (node results) */
} match;

static int result_index(const opgen_gnode *nd, int v) {
    for (int r = 0; r < nd->nresults; r++)
        if (nd->results[r] == v) return r;
    return -1;
}

static bool match_node(match *m, int pn, int gn);

static bool match_arg(match *m, const opgen_garg *pe, const opgen_garg *ge) {
    if (!pe || !ge) return pe == ge;
    if (pe->kind == OPGEN_GA_VALUE) {
        const opgen_gvalue *pv = &m->p->g.values[pe->i];
        if (pv->kind == OPGEN_GV_FREE) { /* an argument of the backend op: binds to anything */
            if (!m->bound[pe->i]) {
                m->bound[pe->i] = ge;
                return true;
            }
            return garg_equal(m->bound[pe->i], ge);
        }
        if (ge->kind != OPGEN_GA_VALUE) return false;
        int gp = m->w->prod[ge->i], pp = pv->producer;
        if (gp < 0 || pp < 0) return false;
        if (result_index(&m->p->g.nodes[pp], (int)pe->i) != result_index(m->w->nodes[gp], (int)ge->i)) return false;
        return match_node(m, pp, gp);
    }
    if (pe->kind == OPGEN_GA_LIST) {
        if (ge->kind != OPGEN_GA_LIST || ge->nitems != pe->nitems) return false;
        for (int i = 0; i < pe->nitems; i++)
            if (!match_arg(m, &pe->items[i], &ge->items[i])) return false;
        return true;
    }
    return garg_equal(pe, ge);
}

static bool match_node(match *m, int pn, int gn) {
    if (m->node_of[pn] >= 0) return m->node_of[pn] == gn;
    if (m->taken[gn]) return false;
    const opgen_gnode *pnd = &m->p->g.nodes[pn], *gnd = m->w->nodes[gn];
    int id = m->p->ids[pn];
    if (opgen_node_op(gnd->op) != id || pnd->nresults != gnd->nresults) return false;
    m->node_of[pn] = gn;
    m->taken[gn] = true;
    for (int r = 0; r < pnd->nresults; r++) m->val_of[pnd->results[r]] = gnd->results[r];
    opgen_error e = {0};
    const opgen_garg **ga = effective(m->w->a, m->w->in, gnd, id, &e);
    if (!ga) return false;
    for (int i = 0; i < opgen_ops[id].nargs; i++)
        if (!match_arg(m, m->p->args[pn][i], ga[i])) return false;
    return true;
}

/* Whether an argument bound to a pattern input is (or lists) a value the match
 * itself produces: the call would then read a value it removes. */
static bool binds_inside(const match *m, const opgen_garg *x) {
    if (x && x->kind == OPGEN_GA_VALUE) return m->w->prod[x->i] >= 0 && m->taken[m->w->prod[x->i]];
    for (int i = 0; x && x->kind == OPGEN_GA_LIST && i < x->nitems; i++)
        if (binds_inside(m, &x->items[i])) return true;
    return false;
}

/* Tries the pattern with its root at graph node gn; on success replaces the match
 * by one call and returns true. */
static bool try_fuse(work *w, const pattern *p, int gn, int32_t *st) {
    const opgen_graph *pg = &p->g;
    match m = {p, w, NULL, NULL, NULL, NULL};
    m.node_of = opgen_arena_zalloc(w->a, sizeof(int) * (size_t)(pg->nnodes + 1));
    m.taken = opgen_arena_zalloc(w->a, sizeof(bool) * (size_t)(w->nnodes + 1));
    m.bound = opgen_arena_zalloc(w->a, sizeof *m.bound * (size_t)(pg->nvalues + 1));
    m.val_of = opgen_arena_zalloc(w->a, sizeof(int) * (size_t)(pg->nvalues + 1));
    if (!m.node_of || !m.taken || !m.bound || !m.val_of) return *st = oom(w->err), false;
    for (int n = 0; n < pg->nnodes; n++) m.node_of[n] = -1;
    if (!match_node(&m, p->root, gn)) return false;
    int last = -1;
    for (int n = 0; n < pg->nnodes; n++) {
        if (m.node_of[n] < 0) return false; /* part of the pattern is not upstream of its first result */
        if (m.node_of[n] > last) last = m.node_of[n];
    }
    for (int o = 0; o < pg->noutputs; o++)
        if (pg->values[pg->outputs[o]].producer < 0 || m.node_of[pg->values[pg->outputs[o]].producer] < 0) return false;
    for (int v = 0; v < pg->nvalues; v++)
        if (pg->values[v].kind == OPGEN_GV_FREE && binds_inside(&m, m.bound[v])) return false;
    /* values inside the match: no users outside it; results: used only after it */
    for (int n = 0; n < pg->nnodes; n++)
        for (int r = 0; r < pg->nodes[n].nresults; r++) {
            int pv = pg->nodes[n].results[r], gv = m.val_of[pv];
            bool returned = is_output(pg, pv);
            if (!returned && is_output(w->in, gv)) return false;
            for (int k = 0; k < w->nnodes; k++) {
                if (!w->nodes[k] || m.taken[k] || !node_uses(w->nodes[k], gv)) continue;
                if (!returned || k < last) return false;
            }
        }
    /* the call: the backend op's arguments in schema order, each what its name bound to */
    const opgen_op *bop = &opgen_ops[p->b->op];
    opgen_gnode *call = opgen_arena_zalloc(w->a, sizeof *call);
    if (!call) return *st = oom(w->err), false;
    call->args = opgen_arena_zalloc(w->a, sizeof(opgen_garg) * (size_t)(bop->nargs + 1));
    call->results = opgen_arena_zalloc(w->a, sizeof(int) * (size_t)(pg->noutputs + 1));
    if (!call->args || !call->results) return *st = oom(w->err), false;
    call->op = bop->qualified;
    call->line = w->nodes[gn]->line;
    call->col = w->nodes[gn]->col;
    bool keyword = false; /* after an omitted argument the rest go by name */
    for (int i = 0; i < bop->nargs; i++) {
        const opgen_arg *arg = &opgen_args[bop->first_arg + (unsigned)i];
        const opgen_garg *b = NULL;
        for (int v = 0; v < pg->nvalues; v++)
            if (pg->values[v].kind == OPGEN_GV_FREE && !strcmp(pg->values[v].name, arg->name)) b = m.bound[v];
        if (!b) { /* ignored by the pattern: its default */
            keyword = true;
            continue;
        }
        keyword |= (arg->flags & OPGEN_ARG_KWARG_ONLY) != 0;
        if (!garg_copy(w->a, b, keyword ? arg->name : NULL, &call->args[call->nargs++]))
            return *st = oom(w->err), false;
    }
    for (int o = 0; o < pg->noutputs; o++) call->results[call->nresults++] = m.val_of[pg->outputs[o]];
    for (int n = 0; n < pg->nnodes; n++) w->nodes[m.node_of[n]] = NULL;
    w->nodes[last] = call;
    return true;
}

opgen_status opgen_fuse(const opgen_graph *in, const char *backend, opgen_arena *a, opgen_graph *out, int *nfused,
                        opgen_error *err) {
    if (in->pattern) return opgen_fail(err, OPGEN_E_INVALID, "%s: a pattern is not a program", in->file);
    bool known = !backend;
    for (int b = 0; b < OPGEN_BACKEND_OP_COUNT && !known; b++)
        known = opgen_backend_ops[b].backend && !strcmp(opgen_backend_ops[b].backend, backend);
    if (!known) {
        char names[256] = "";
        size_t n = 0;
        for (int b = 0; b < OPGEN_BACKEND_OP_COUNT; b++) {
            const char *bn = opgen_backend_ops[b].backend;
            bool seen = false;
            for (int c = 0; c < b; c++) seen |= !strcmp(opgen_backend_ops[c].backend, bn);
            if (!seen && n < sizeof names)
                n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "", bn);
        }
        return opgen_fail(err, OPGEN_E_NOT_FOUND, "unknown backend '%s' (known: %s)", backend, names);
    }
    work w;
    opgen_status st = work_init(&w, in, a, err);
    int count = 0;
    for (int b = 0; !st && b < OPGEN_BACKEND_OP_COUNT; b++) {
        const opgen_backend_op *bo = &opgen_backend_ops[b];
        if (!bo->pattern || (backend && strcmp(bo->backend, backend))) continue;
        pattern p;
        if ((st = pattern_load(bo, a, &p, err))) break;
        int root_id = p.ids[p.root];
        for (bool again = true; again && !st;) { /* every match, until none is left */
            again = false;
            if ((st = work_producers(&w))) break;
            for (int n = 0; n < w.nnodes && !again && !st; n++)
                if (w.nodes[n] && opgen_node_op(w.nodes[n]->op) == root_id && try_fuse(&w, &p, n, &st))
                    again = true, count++;
        }
    }
    if (!st) st = work_finish(&w, out);
    if (nfused) *nfused = count;
    return st;
}

/* ---- decomposition ---- */

static bool name_taken(const work *w, const char *s) {
    for (int v = 0; v < w->nvalues; v++)
        if (!strcmp(w->values[v].name, s)) return true;
    return false;
}

/* A new value named after the pattern's, unique in the program. */
static int fresh_value(work *w, const char *base) {
    if (w->nvalues == w->capvalues) {
        int nc = 2 * w->capvalues;
        opgen_gvalue *nv = opgen_arena_zalloc(w->a, sizeof *nv * (size_t)nc);
        if (!nv) return -1;
        memcpy(nv, w->values, sizeof *nv * (size_t)w->nvalues);
        w->values = nv;
        w->capvalues = nc;
    }
    size_t n = strlen(base) + 16;
    char *name = opgen_arena_alloc(w->a, n);
    if (!name) return -1;
    snprintf(name, n, "%s", base);
    for (int k = 1; name_taken(w, name); k++) snprintf(name, n, "%s_%d", base, k);
    opgen_gvalue *v = &w->values[w->nvalues];
    memset(v, 0, sizeof *v);
    v->name = name;
    v->kind = OPGEN_GV_RESULT;
    v->producer = -1;
    return w->nvalues++;
}

/* A pattern argument with the call's arguments put in for the free names. */
static bool substitute(work *w, const pattern *p, const opgen_garg *x, const opgen_garg **bind, const int *val_of,
                       opgen_garg *out) {
    if (x->kind == OPGEN_GA_VALUE) {
        if (p->g.values[x->i].kind == OPGEN_GV_FREE) {
            if (!bind[x->i]) return false;
            return garg_copy(w->a, bind[x->i], x->kw, out);
        }
        *out = *x;
        out->i = val_of[x->i];
        return true;
    }
    *out = *x;
    if (x->kind != OPGEN_GA_LIST || !x->nitems) return true;
    out->items = opgen_arena_zalloc(w->a, sizeof(opgen_garg) * (size_t)x->nitems);
    if (!out->items) return false;
    for (int i = 0; i < x->nitems; i++)
        if (!substitute(w, p, &x->items[i], bind, val_of, &out->items[i])) return false;
    return true;
}

opgen_status opgen_decompose(const opgen_graph *in, opgen_arena *a, opgen_graph *out, int *ninlined, opgen_error *err) {
    if (in->pattern) return opgen_fail(err, OPGEN_E_INVALID, "%s: a pattern is not a program", in->file);
    work w;
    opgen_status st = work_init(&w, in, a, err);
    if (st) return st;
    pattern *pats = opgen_arena_zalloc(a, sizeof *pats * (size_t)(OPGEN_BACKEND_OP_COUNT + 1));
    bool *loaded = opgen_arena_zalloc(a, sizeof(bool) * (size_t)(OPGEN_BACKEND_OP_COUNT + 1));
    /* the new node list: each backend call is replaced by its pattern's nodes */
    int cap = in->nnodes + 16, n_out = 0, count = 0;
    opgen_gnode **nodes = opgen_arena_zalloc(a, sizeof *nodes * (size_t)cap);
    if (!pats || !loaded || !nodes) return oom(err);
    for (int n = 0; n < in->nnodes && !st; n++) {
        opgen_gnode *nd = w.nodes[n];
        int id = opgen_node_op(nd->op), b = -1;
        for (int k = 0; k < OPGEN_BACKEND_OP_COUNT && id >= 0; k++)
            if (opgen_backend_ops[k].op == id && opgen_backend_ops[k].pattern) b = k;
        if (b < 0) { /* not a backend op with a pattern: kept */
            if (n_out == cap) {
                opgen_gnode **nn = opgen_arena_zalloc(a, sizeof *nn * (size_t)(2 * cap));
                if (!nn) return oom(err);
                memcpy(nn, nodes, sizeof *nn * (size_t)n_out);
                nodes = nn;
                cap *= 2;
            }
            nodes[n_out++] = nd;
            continue;
        }
        if (!loaded[b] && (st = pattern_load(&opgen_backend_ops[b], a, &pats[b], err))) break;
        loaded[b] = true;
        const pattern *p = &pats[b];
        const opgen_garg **args = effective(a, in, nd, id, err);
        if (!args) return err->code;
        /* free names -> the call's arguments (or defaults); pattern values -> program values */
        const opgen_garg **bind = opgen_arena_zalloc(a, sizeof *bind * (size_t)(p->g.nvalues + 1));
        int *val_of = opgen_arena_zalloc(a, sizeof(int) * (size_t)(p->g.nvalues + 1));
        if (!bind || !val_of) return oom(err);
        const opgen_op *bop = &opgen_ops[id];
        for (int v = 0; v < p->g.nvalues; v++) {
            if (p->g.values[v].kind != OPGEN_GV_FREE) continue;
            for (int i = 0; i < bop->nargs; i++)
                if (!strcmp(opgen_args[bop->first_arg + (unsigned)i].name, p->g.values[v].name)) bind[v] = args[i];
        }
        for (int o = 0; o < p->g.noutputs && o < nd->nresults; o++) val_of[p->g.outputs[o]] = nd->results[o];
        for (int k = 0; k < p->g.nnodes; k++)
            for (int r = 0; r < p->g.nodes[k].nresults; r++) {
                int pv = p->g.nodes[k].results[r];
                if (is_output(&p->g, pv)) continue;
                if ((val_of[pv] = fresh_value(&w, p->g.values[pv].name)) < 0) return oom(err);
            }
        if (n_out + p->g.nnodes >= cap) {
            int nc = 2 * cap + p->g.nnodes;
            opgen_gnode **nn = opgen_arena_zalloc(a, sizeof *nn * (size_t)nc);
            if (!nn) return oom(err);
            memcpy(nn, nodes, sizeof *nn * (size_t)n_out);
            nodes = nn;
            cap = nc;
        }
        for (int k = 0; k < p->g.nnodes; k++) {
            const opgen_gnode *pn = &p->g.nodes[k];
            opgen_gnode *x = opgen_arena_zalloc(a, sizeof *x);
            if (!x) return oom(err);
            x->op = pn->op;
            x->line = nd->line;
            x->col = nd->col;
            x->nargs = pn->nargs;
            x->args = opgen_arena_zalloc(a, sizeof(opgen_garg) * (size_t)(pn->nargs + 1));
            x->nresults = pn->nresults;
            x->results = opgen_arena_zalloc(a, sizeof(int) * (size_t)(pn->nresults + 1));
            if (!x->args || !x->results) return oom(err);
            for (int i = 0; i < pn->nargs; i++)
                if (!substitute(&w, p, &pn->args[i], bind, val_of, &x->args[i]))
                    return opgen_fail_at(err, OPGEN_E_INVALID, in->file, nd->line, nd->col,
                                         "%s: cannot inline its pattern (an argument has no value)", nd->op);
            for (int r = 0; r < pn->nresults; r++) x->results[r] = val_of[pn->results[r]];
            nodes[n_out++] = x;
        }
        count++;
    }
    if (st) return st;
    w.nodes = nodes;
    w.nnodes = n_out;
    if (ninlined) *ninlined = count;
    return work_finish(&w, out);
}

/* ---- verification ---- */

opgen_status opgen_verify(const opgen_graph *g, opgen_dialect d, opgen_arena *a, opgen_error *err) {
    return opgen_verify_with(g, d, NULL, a, err);
}

opgen_status opgen_verify_with(const opgen_graph *g, opgen_dialect d, const opgen_load_options *opt, opgen_arena *a,
                               opgen_error *err) {
    if (g->pattern) return opgen_fail(err, OPGEN_E_INVALID, "%s: a pattern is not a program", g->file);
    static const char *const names[] = {"aten", "edge", "backend"};
    for (int n = 0; n < g->nnodes; n++) {
        const opgen_gnode *nd = &g->nodes[n];
        int id = opgen_node_op(nd->op);
        if (id < 0)
            return opgen_fail_at(err, OPGEN_E_NOT_FOUND, g->file, nd->line, nd->col, "unknown operator %s", nd->op);
        const opgen_op *op = &opgen_ops[id];
        bool ok = (op->flags & (OPGEN_OP_CORE | OPGEN_OP_CUSTOM)) ||
                  (d == OPGEN_DIALECT_BACKEND && (op->flags & OPGEN_OP_BACKEND));
        /* a vendor's custom op declared only as .out is what a backend program calls */
        bool vendor = d == OPGEN_DIALECT_BACKEND && (op->flags & OPGEN_OP_CUSTOM) && op->kind == OPGEN_KIND_OUT &&
                      opgen_functional_of(id) == id;
        if (!vendor && (!ok || op->kind != OPGEN_KIND_FUNCTIONAL)) {
            const char *why = op->flags & OPGEN_OP_BACKEND        ? "a backend op"
                              : op->kind == OPGEN_KIND_OUT        ? "an out= variant"
                              : op->kind != OPGEN_KIND_FUNCTIONAL ? "not functional"
                                                                  : "not a core op";
            return opgen_fail_at(err, OPGEN_E_INVALID, g->file, nd->line, nd->col, "%s is %s: not in the %s dialect",
                                 nd->op, why, names[d]);
        }
        const opgen_garg **given = opgen_arena_zalloc(a, sizeof *given * (op->nargs + 1u));
        if (!given) return oom(err);
        if (opgen_bind_node(g, nd, id, given, err, a)) return err->code;
        for (int i = 0; i < op->nargs; i++)
            if (!given[i] && !opgen_args[op->first_arg + (unsigned)i].dflt &&
                !(opgen_args[op->first_arg + (unsigned)i].flags & OPGEN_ARG_OUT))
                return opgen_fail_at(err, OPGEN_E_INVALID, g->file, nd->line, nd->col, "%s: missing argument '%s' (%s)",
                                     nd->op, opgen_args[op->first_arg + (unsigned)i].name,
                                     opgen_args[op->first_arg + (unsigned)i].type);
    }
    if (d == OPGEN_DIALECT_ATEN) return OPGEN_OK;
    /* edge: the dtypes that flow through the program, call by call, against the
     * Edge rows: what loading does (kernels' meta steps infer them) */
    opgen_program *p;
    return opgen_program_load_with(g, a, opt, &p, err);
}
