/* The Backend dialect (backend.h): backend-op yaml read and checked, each op a
 * schema in its namespace with its pattern of core ops or a builtin kernel. */
#include "backend.h"
#include "strbuf.h"
#include <stdlib.h>
#include <string.h>

#define ERR_AT(m, n, ...) diag_error((m)->d, (n)->file, (n)->line, (n)->col, __VA_ARGS__)

const char *og_builtin_name(og_builtin b) {
    static const char *const names[] = {"",
#define OG_BUILTIN_NAME(n, a, r) #n,
                                        OG_BUILTINS(OG_BUILTIN_NAME)
#undef OG_BUILTIN_NAME
    };
    return (unsigned)b < sizeof names / sizeof *names ? names[b] : "";
}

void og_backend_init(og_backend *b) {
    memset(b, 0, sizeof *b);
    opgen_arena_init_growing(&b->arena);
}

void og_backend_free(og_backend *b) {
    free(b->ops);
    opgen_arena_release(&b->arena);
    memset(b, 0, sizeof *b);
}

void og_backend_declare(og_model *m, const ydoc *doc) {
    const ynode *r = doc->root;
    if (!r || r->kind != YNODE_SEQ) return; /* reported by og_backend_load */
    for (size_t i = 0; i < r->n; i++) og_model_backend_entry(m, r->kids[i]);
}

const og_backend_op *og_backend_find(const og_backend *b, const og_func *f) {
    for (unsigned i = 0; i < b->n; i++)
        if (b->ops[i].func == f || b->ops[i].out == f) return &b->ops[i];
    return NULL;
}

/* ---- positions inside a pattern ---- */

typedef struct checker {
    og_model *m;
    const ydoc *doc;
    const ynode *text; /* the pattern scalar */
    og_backend_op *op;
    unsigned indent; /* a literal block's indentation */
    opgen_arena *ga; /* where parsed patterns live */
} checker;

/* file:line:col of line:col inside the pattern text. A literal block maps line
 * for line (indented); an exact one-line scalar byte for byte; anything else
 * (folded, escaped) points at the scalar. */
static void pattern_pos(const checker *c, unsigned line, unsigned col, unsigned *fl, unsigned *fc) {
    const ynode *t = c->text;
    *fl = t->line;
    *fc = t->col;
    if (!line) return;
    if (t->style == YSTYLE_LITERAL) {
        *fl = t->line + line;
        *fc = c->indent + col;
    } else if (t->exact) {
        size_t off = 0; /* byte offset of line:col in the text */
        for (unsigned l = 1; l < line && off < t->len; off++)
            if (t->s[off] == '\n') l++;
        ynode_pos(t, off + col - 1, fl, fc);
    }
}

static void perr(const checker *c, unsigned line, unsigned col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#include <stdarg.h>
static void perr(const checker *c, unsigned line, unsigned col, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    unsigned fl, fc;
    pattern_pos(c, line, col, &fl, &fc);
    diag_error(c->m->d, c->text->file, fl, fc, "%s", msg);
}

/* The indentation of a literal block: that of its first non-blank line. */
static unsigned block_indent(const ydoc *doc, const ynode *t) {
    if (!doc->src) return 0;
    const char *p = doc->src, *e = doc->src + doc->srclen;
    for (unsigned l = 1; p < e && l <= t->line; p++) /* to the line after the indicator */
        if (*p == '\n') l++;
    while (p < e) {
        const char *q = p;
        while (q < e && *q == ' ') q++;
        if (q < e && *q != '\n' && *q != '\r') return (unsigned)(q - p);
        while (p < e && *p != '\n') p++;
        p++;
    }
    return 0;
}

/* ---- types ---- */

static const og_type *strip_opt(const og_type *t) { return t->kind == OG_TY_OPTIONAL ? t->elem : t; }
static bool is_base(const og_type *t, og_basety b) { return t->kind == OG_TY_BASE && t->base == b; }
static bool is_int(const og_type *t) { return is_base(t, OG_BT_int) || is_base(t, OG_BT_SymInt); }
static bool is_bool(const og_type *t) { return is_base(t, OG_BT_bool) || is_base(t, OG_BT_SymBool); }

/* Does a value of type v fit a parameter of type p (a call would type-check)? */
static bool value_fits(const og_type *p, const og_type *v) {
    if (v->kind == OG_TY_OPTIONAL && p->kind != OG_TY_OPTIONAL) return false;
    p = strip_opt(p);
    v = strip_opt(v);
    if (p->kind == OG_TY_LIST && v->kind == OG_TY_LIST) return value_fits(p->elem, v->elem);
    if (p->kind != OG_TY_BASE || v->kind != OG_TY_BASE) return og_type_equal(p, v);
    if (is_int(p)) return is_int(v);
    if (is_bool(p)) return is_bool(v);
    if (is_base(p, OG_BT_float)) return is_base(v, OG_BT_float) || is_int(v);
    if (is_base(p, OG_BT_Scalar)) return is_base(v, OG_BT_Scalar) || is_base(v, OG_BT_float) || is_int(v) || is_bool(v);
    return p->base == v->base;
}

/* Does a literal fit a parameter of type p? */
static bool literal_fits(const og_type *p, const opgen_garg *x) {
    if (x->kind == OPGEN_GA_NONE) return p->kind == OG_TY_OPTIONAL;
    p = strip_opt(p);
    switch (x->kind) {
    case OPGEN_GA_INT:
        return is_int(p) || is_base(p, OG_BT_float) || is_base(p, OG_BT_Scalar) ||
               (p->kind == OG_TY_LIST && p->size && is_int(p->elem));
    case OPGEN_GA_FLOAT: return is_base(p, OG_BT_float) || is_base(p, OG_BT_Scalar);
    case OPGEN_GA_BOOL: return is_bool(p) || is_base(p, OG_BT_Scalar);
    case OPGEN_GA_STR: return is_base(p, OG_BT_str);
    case OPGEN_GA_DTYPE: return is_base(p, OG_BT_ScalarType);
    case OPGEN_GA_MEMFMT: return is_base(p, OG_BT_MemoryFormat);
    default: return false;
    }
}

const og_type *og_pattern_value_type(const og_backend_op *op, int v) {
    if (op->value_arg[v] >= 0) return op->func->schema->args[op->value_arg[v]].type;
    int n = op->graph.values[v].producer;
    if (n < 0 || !op->nodes[n].func) return NULL;
    const opgen_gnode *nd = op->nodes[n].node;
    for (int r = 0; r < nd->nresults; r++)
        if (nd->results[r] == v && (unsigned)r < op->nodes[n].func->schema->nrets)
            return op->nodes[n].func->schema->rets[r].type;
    return NULL;
}

static const char *type_text(arena *a, const og_type *t) {
    strbuf b;
    sb_init(&b);
    og_print_type(&b, t);
    const char *s = arena_strndup(a, b.p, b.n);
    sb_free(&b);
    return s;
}

/* Checks one argument given for parameter `param` of node op `f`. */
static bool check_arg(checker *c, const og_func *f, const og_arg *param, const opgen_garg *x) {
    og_backend_op *op = c->op;
    if (x->kind == OPGEN_GA_VALUE) {
        const og_type *vt = og_pattern_value_type(op, (int)x->i);
        if (!vt) return true; /* its producer failed: reported there */
        if (value_fits(param->type, vt)) return true;
        perr(c, x->line, x->col, "argument '%s' of %s::%s is %s; %%%s is %s", param->name, f->ns, f->name,
             type_text(c->m->a, param->type), op->graph.values[x->i].name, type_text(c->m->a, vt));
        return false;
    }
    if (x->kind == OPGEN_GA_LIST) {
        const og_type *p = strip_opt(param->type);
        if (p->kind != OG_TY_LIST) {
            perr(c, x->line, x->col, "argument '%s' of %s::%s is %s, not a list", param->name, f->ns, f->name,
                 type_text(c->m->a, param->type));
            return false;
        }
        og_arg elem = *param;
        elem.type = p->elem;
        bool ok = true;
        for (int k = 0; k < x->nitems; k++) ok &= check_arg(c, f, &elem, &x->items[k]);
        return ok;
    }
    if (literal_fits(param->type, x)) return true;
    static const char *const kinds[] = {"a value",  "an integer", "a float",         "a boolean", "None",
                                        "a string", "a dtype",    "a memory format", "a list"};
    perr(c, x->line, x->col, "argument '%s' of %s::%s is %s, not %s", param->name, f->ns, f->name,
         type_text(c->m->a, param->type), kinds[x->kind]);
    return false;
}

/* Binds node n's arguments to its op's schema and checks their types. */
static bool check_node(checker *c, int n) {
    og_backend_op *op = c->op;
    const opgen_gnode *nd = &op->graph.nodes[n];
    og_pnode *pn = &op->nodes[n];
    pn->node = nd;
    pn->file = c->text->file;
    pattern_pos(c, nd->line, nd->col, &pn->line, &pn->col);
    /* the op: "ns::name.overload", the default overload with or without ".default" */
    const char *sep = strstr(nd->op, "::");
    char ns[128], name[256];
    snprintf(ns, sizeof ns, "%.*s", (int)(sep - nd->op), nd->op);
    snprintf(name, sizeof name, "%s", sep + 2);
    size_t nl = strlen(name);
    if (nl > 8 && !strcmp(name + nl - 8, ".default")) name[nl - 8] = 0;
    const og_func *f = og_model_find(c->m, ns, name);
    if (!f) {
        perr(c, nd->line, nd->col, "unknown operator %s", nd->op);
        return false;
    }
    if (f->backend) {
        perr(c, nd->line, nd->col, "%s is a backend op; a pattern is made of core and custom ops", nd->op);
        return false;
    }
    if (!f->custom && !og_func_has_tag(f, c->m->tag_core)) {
        perr(c, nd->line, nd->col, "%s is not a core op (tagged core) or a custom op", nd->op);
        return false;
    }
    if (f->kind != OG_KIND_FUNCTIONAL) {
        perr(c, nd->line, nd->col, "%s is %s; a pattern calls functional ops", nd->op, og_kind_name(f->kind));
        return false;
    }
    const og_schema *s = f->schema;
    if ((unsigned)nd->nresults != s->nrets) {
        perr(c, nd->line, nd->col, "%s returns %u value%s, the node names %d", nd->op, s->nrets,
             s->nrets == 1 ? "" : "s", nd->nresults);
        return false;
    }
    pn->func = f;
    pn->slots = ARENA_ARRAY(c->m->a, const opgen_garg *, s->nargs + 1);
    const char **names = ARENA_ARRAY(c->m->a, const char *, s->nargs + 1);
    for (unsigned i = 0; i < s->nargs; i++) names[i] = s->args[i].name;
    opgen_error err = {0};
    if (opgen_bind_args(&op->graph, nd, names, (int)s->nargs, (int)s->npos, pn->slots, &err)) {
        perr(c, err.line, err.col, "%s", err.msg);
        return false;
    }
    bool ok = true;
    for (unsigned i = 0; i < s->nargs; i++)
        if (pn->slots[i]) ok &= check_arg(c, f, &s->args[i], pn->slots[i]);
    for (unsigned i = 0; i < s->nargs; i++)
        if (!pn->slots[i] && !s->args[i].dflt) {
            perr(c, nd->line, nd->col, "%s: missing argument '%s' (%s)", nd->op, s->args[i].name,
                 type_text(c->m->a, s->args[i].type));
            ok = false;
        }
    return ok;
}

static bool check_builtin(checker *c, const ynode *b) {
    og_backend_op *op = c->op;
    static const struct {
        const char *name;
        int arity;
        og_basety ret;
    } table[] = {
#define OG_BUILTIN_ROW(n, a, r) {#n, a, OG_BT_##r},
        OG_BUILTINS(OG_BUILTIN_ROW)
#undef OG_BUILTIN_ROW
    };
    if (!ynode_is_str(b)) {
        ERR_AT(c->m, b, "'builtin' names a scalar prim, found %s", ynode_describe(b));
        return false;
    }
    unsigned k = 0;
    while (k < sizeof table / sizeof *table && strcmp(table[k].name, b->s)) k++;
    if (k == sizeof table / sizeof *table) {
        strbuf names;
        sb_init(&names);
        for (unsigned i = 0; i < sizeof table / sizeof *table; i++)
            sb_printf(&names, "%s%s", i ? ", " : "", table[i].name);
        ERR_AT(c->m, b, "unknown builtin '%s' (expected one of: %s)", b->s, sb_cstr(&names));
        sb_free(&names);
        return false;
    }
    op->builtin = (og_builtin)(k + 1);
    const og_schema *s = op->func->schema;
    bool ok = s->nargs == (unsigned)table[k].arity && s->nrets == 1;
    for (unsigned i = 0; ok && i < s->nargs; i++) ok = is_int(s->args[i].type);
    const og_type *r = ok ? s->rets[0].type : NULL;
    if (ok)
        ok = table[k].ret == OG_BT_SymInt ? is_int(r)
             : table[k].ret == OG_BT_bool ? is_bool(r)
                                          : is_base(r, OG_BT_float);
    if (!ok) {
        ERR_AT(c->m, b, "builtin %s takes %s and returns %s; %s::%s does not match", b->s,
               table[k].arity == 1 ? "(SymInt a)" : "(SymInt a, SymInt b)",
               table[k].ret == OG_BT_SymInt ? "SymInt"
               : table[k].ret == OG_BT_bool ? "bool"
                                            : "float",
               op->func->ns, op->func->name);
        return false;
    }
    return true;
}

static bool check_pattern(checker *c, const ynode *ignore) {
    og_backend_op *op = c->op;
    og_model *m = c->m;
    const og_schema *s = op->func->schema;
    const ynode *t = c->text;
    if (!ynode_is_str(t)) {
        ERR_AT(m, t, "'pattern' is graph text (see the graph format), found %s", ynode_describe(t));
        return false;
    }
    if (t->style == YSTYLE_LITERAL) c->indent = block_indent(c->doc, t);
    opgen_error err = {0};
    if (opgen_graph_parse(t->file, t->s, t->len, true, c->ga, &op->graph, &err)) {
        perr(c, err.line, err.col, "%s", err.msg);
        return false;
    }
    const opgen_graph *g = &op->graph;
    op->value_arg = ARENA_ARRAY(m->a, int, (size_t)g->nvalues + 1);
    op->ignored = ARENA_ARRAY(m->a, bool, s->nargs + 1);
    bool *used = ARENA_ARRAY(m->a, bool, s->nargs + 1);
    bool ok = true;
    for (int v = 0; v < g->nvalues; v++) op->value_arg[v] = -1;
    /* free names are the op's arguments */
    for (int i = 0; i < g->ninputs; i++) {
        const opgen_gvalue *gv = &g->values[g->inputs[i]];
        for (unsigned a = 0; a < s->nargs; a++)
            if (!strcmp(s->args[a].name, gv->name)) op->value_arg[g->inputs[i]] = (int)a, used[a] = true;
        if (op->value_arg[g->inputs[i]] < 0) {
            strbuf names;
            sb_init(&names);
            for (unsigned a = 0; a < s->nargs; a++) sb_printf(&names, "%s%s", a ? ", " : "", s->args[a].name);
            perr(c, gv->line, gv->col, "%%%s is not an argument of %s::%s (its arguments: %s)", gv->name, op->func->ns,
                 op->func->name, sb_cstr(&names));
            sb_free(&names);
            ok = false;
        }
    }
    if (ignore) {
        if (ignore->kind != YNODE_SEQ) {
            ERR_AT(m, ignore, "'ignore' lists argument names the pattern does not use, found %s",
                   ynode_describe(ignore));
            ok = false;
        }
        for (size_t k = 0; ignore->kind == YNODE_SEQ && k < ignore->n; k++) {
            const ynode *x = ignore->kids[k];
            int a = -1;
            for (unsigned i = 0; ynode_is_str(x) && i < s->nargs; i++)
                if (!strcmp(s->args[i].name, x->s)) a = (int)i;
            if (a < 0) {
                ERR_AT(m, x, "'ignore' names %s, which is not an argument of %s::%s",
                       ynode_is_str(x) ? x->s : ynode_describe(x), op->func->ns, op->func->name);
                ok = false;
            } else if (used[a]) {
                ERR_AT(m, x, "'ignore' names %s, but the pattern uses it", x->s);
                ok = false;
            } else if (!s->args[a].dflt) {
                ERR_AT(m, x, "an ignored argument needs a default (fusion has no value to give it): %s", x->s);
                ok = false;
            } else {
                op->ignored[a] = true;
            }
        }
    }
    for (unsigned a = 0; a < s->nargs; a++)
        if (!used[a] && !op->ignored[a]) {
            perr(c, 1, 1, "argument '%s' of %s::%s is neither used by the pattern nor listed in 'ignore'",
                 s->args[a].name, op->func->ns, op->func->name);
            ok = false;
        }
    if (!ok) return false;
    op->nodes = ARENA_ARRAY(m->a, og_pnode, (size_t)g->nnodes + 1);
    for (int n = 0; n < g->nnodes; n++) ok &= check_node(c, n);
    if (!ok) return false;
    /* what it returns: the op's results, in number and type; tensors (scalar
     * results are a builtin's) */
    for (unsigned r = 0; r < s->nrets; r++)
        if (!og_type_is_plain_tensor(s->rets[r].type)) {
            perr(c, 1, 1, "%s::%s returns %s; a pattern computes tensors (scalar prims are builtins)", op->func->ns,
                 op->func->name, type_text(m->a, s->rets[r].type));
            return false;
        }
    if ((unsigned)g->noutputs != s->nrets) {
        perr(c, 1, 1, "the pattern returns %d value%s; %s::%s returns %u", g->noutputs, g->noutputs == 1 ? "" : "s",
             op->func->ns, op->func->name, s->nrets);
        return false;
    }
    for (int i = 0; i < g->noutputs; i++) {
        const opgen_gvalue *gv = &g->values[g->outputs[i]];
        const og_type *vt = og_pattern_value_type(op, g->outputs[i]);
        if (op->value_arg[g->outputs[i]] >= 0) {
            perr(c, gv->line, gv->col,
                 "the pattern returns its argument %%%s unchanged; a backend op computes its results", gv->name);
            ok = false;
        } else if (vt && !og_type_equal(strip_opt(vt), strip_opt(s->rets[i].type)) &&
                   !value_fits(s->rets[i].type, vt)) {
            perr(c, gv->line, gv->col, "result %d of %s::%s is %s; %%%s is %s", i, op->func->ns, op->func->name,
                 type_text(m->a, s->rets[i].type), gv->name, type_text(m->a, vt));
            ok = false;
        }
    }
    for (int i = 0; i < g->noutputs && ok; i++)
        for (int j = 0; j < i; j++)
            if (g->outputs[i] == g->outputs[j]) {
                perr(c, 1, 1, "the pattern returns %%%s twice", g->values[g->outputs[i]].name);
                ok = false;
            }
    if (!ok) return false;
    size_t n = opgen_graph_print(g, NULL, 0);
    char *text = arena_alloc(m->a, n + 1);
    opgen_graph_print(g, text, n + 1);
    op->pattern = text;
    return true;
}

static bool is_ident(const char *s) {
    if (!*s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return false;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

bool og_backend_load(og_model *m, const ydoc *doc, og_backend *out) {
    unsigned before = m->d->errors;
    const ynode *r = doc->root;
    if (!r || r->kind != YNODE_SEQ) {
        if (r)
            ERR_AT(m, r, "a backend-op file is a list of '- func:' entries, found %s", ynode_describe(r));
        else
            diag_error(m->d, doc->file, 1, 1, "backend-op file is empty");
        return false;
    }
    for (size_t i = 0; i < r->n; i++) {
        const ynode *e = r->kids[i];
        if (e->kind != YNODE_MAP || !ymap_get(e, "func")) {
            ERR_AT(m, e, "expected a backend op entry (a mapping with 'func:'), found %s", ynode_describe(e));
            continue;
        }
        const ynode *fn = ymap_get(e, "func");
        if (!ynode_is_str(fn)) continue; /* reported when declared */
        const char *lp = strchr(fn->s, '(');
        if (!lp) continue;
        char *name = arena_strndup(m->a, fn->s, (size_t)(lp - fn->s));
        char *sep = strstr(name, "::");
        const og_func *f = sep ? (*sep = 0, og_model_find(m, name, sep + 2)) : og_model_find(m, "aten", name);
        if (!f || !f->backend) continue; /* its schema error was reported in pass 1 */
        if (!sep || !strcmp(f->ns, "aten")) {
            ERR_AT(m, fn, "a backend op lives in its own namespace (ns::name), not aten");
            continue;
        }
        if (out->n == out->cap) {
            unsigned nc = out->cap ? 2 * out->cap : 16;
            out->ops = og_xrealloc(out->ops, sizeof *out->ops * nc);
            out->cap = nc;
        }
        og_backend_op *op = &out->ops[out->n];
        memset(op, 0, sizeof *op);
        op->func = f;
        op->entry = e;
        const og_func *o = og_func_out_variant(f);
        op->out = o && o->backend ? o : NULL;
        const ynode *be = ymap_get(e, "backend"), *pat = ymap_get(e, "pattern"), *bi = ymap_get(e, "builtin"),
                    *ig = ymap_get(e, "ignore");
        if (!be || !ynode_is_str(be) || !is_ident(be->s)) {
            ERR_AT(m, be ? be : e, "a backend op names its backend (an identifier): 'backend: NAME'");
            continue;
        }
        op->backend = be->s;
        checker c = {m, doc, pat, op, 0, &out->arena};
        bool ok;
        if (pat && bi) {
            ERR_AT(m, bi, "an entry has a 'pattern' or a 'builtin', not both");
            continue;
        } else if (bi) {
            if (ig) ERR_AT(m, ig, "'ignore' goes with a pattern, not a builtin");
            ok = check_builtin(&c, bi);
        } else if (pat) {
            ok = check_pattern(&c, ig);
        } else {
            ERR_AT(m, e, "a backend op needs a 'pattern' (the core ops it stands for) or a 'builtin'");
            continue;
        }
        if (ok) out->n++;
    }
    return m->d->errors == before;
}
