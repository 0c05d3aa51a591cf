/* Graph text (opgen/graph.h, ../shared/reference/graph-ir.md): the lexer and
 * parser into an opgen_graph, schema defaults, and argument binding by schema
 * shared by the executor, lowering and the CLI. Printing: graph_print.c. */
#include "opgen/graph.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lexer ---- */

enum { T_END, T_NAME /* %x */, T_IDENT, T_INT, T_FLOAT, T_STR, T_PUNCT };

typedef struct tok {
    int kind;
    const char *s; /* text */
    size_t n;
    unsigned line, col;
    int64_t i;
    double f;
} tok;

typedef struct parser {
    const char *file, *p, *e, *line_start;
    unsigned line;
    opgen_arena *a;
    opgen_error *err;
    tok t; /* current token */
    int failed;
} parser;

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static int fail(parser *ps, unsigned line, unsigned col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#include <stdarg.h>
static int fail(parser *ps, unsigned line, unsigned col, const char *fmt, ...) {
    if (!ps->failed) {
        va_list ap;
        va_start(ap, fmt);
        opgen_failv(ps->err, OPGEN_E_PARSE, ps->file, line, col, NULL, fmt, ap);
        va_end(ap);
        ps->failed = 1;
    }
    return OPGEN_E_PARSE;
}

static const char *describe(const tok *t, char *buf, size_t cap) {
    switch (t->kind) {
    case T_END: return "the end of the text";
    case T_STR: return "a string";
    default: snprintf(buf, cap, "'%.*s'", (int)(t->n > 40 ? 40 : t->n), t->s); return buf;
    }
}

static void next(parser *ps) {
    const char *p = ps->p, *e = ps->e;
    for (;;) { /* white space, newlines and comments */
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
        if (p < e && *p == '\n') {
            p++;
            ps->line++;
            ps->line_start = p;
            continue;
        }
        if (p < e && *p == '#') {
            while (p < e && *p != '\n') p++;
            continue;
        }
        break;
    }
    tok *t = &ps->t;
    memset(t, 0, sizeof *t);
    t->s = p;
    t->line = ps->line;
    t->col = (unsigned)(p - ps->line_start) + 1;
    if (p >= e) {
        t->kind = T_END;
    } else if (*p == '%') {
        const char *q = p + 1;
        while (q < e && (is_alpha(*q) || is_digit(*q))) q++;
        t->kind = T_NAME;
        t->n = (size_t)(q - p);
        if (q == p + 1) fail(ps, t->line, t->col, "expected a value name after '%%'");
        p = q;
    } else if (is_alpha(*p)) { /* identifiers, ns::op.overload, torch.float32 */
        const char *q = p;
        for (;;) {
            while (q < e && (is_alpha(*q) || is_digit(*q))) q++;
            if (q + 2 < e && q[0] == ':' && q[1] == ':' && (is_alpha(q[2]) || is_digit(q[2]))) {
                q += 2;
                continue;
            }
            if (q + 1 < e && q[0] == '.' && (is_alpha(q[1]) || is_digit(q[1]))) {
                q += 1;
                continue;
            }
            break;
        }
        t->n = (size_t)(q - p);
        if ((t->n == 3 && !memcmp(p, "inf", 3)) || (t->n == 3 && !memcmp(p, "nan", 3))) {
            t->kind = T_FLOAT;
            t->f = p[0] == 'i' ? INFINITY : NAN;
        } else {
            t->kind = T_IDENT;
        }
        p = q;
    } else if (is_digit(*p) ||
               ((*p == '-' || *p == '+' || *p == '.') && p + 1 < e && (is_digit(p[1]) || p[1] == 'i' || p[1] == '.'))) {
        const char *q = p;
        if (*q == '-' || *q == '+') q++;
        if (e - q >= 3 && !memcmp(q, "inf", 3) && !(q + 3 < e && is_alpha(q[3]))) {
            t->kind = T_FLOAT;
            t->f = *p == '-' ? -INFINITY : INFINITY;
            p = q + 3;
            t->n = (size_t)(p - t->s);
        } else {
            bool isf = false;
            while (q < e && is_digit(*q)) q++;
            if (q < e && *q == '.') {
                isf = true;
                q++;
                while (q < e && is_digit(*q)) q++;
            }
            if (q < e && (*q == 'e' || *q == 'E')) {
                const char *r = q + 1;
                if (r < e && (*r == '-' || *r == '+')) r++;
                if (r < e && is_digit(*r)) {
                    isf = true;
                    q = r;
                    while (q < e && is_digit(*q)) q++;
                }
            }
            t->n = (size_t)(q - p);
            char buf[64];
            if (t->n >= sizeof buf) {
                fail(ps, t->line, t->col, "number too long");
                t->n = sizeof buf - 1;
            }
            memcpy(buf, p, t->n);
            buf[t->n] = 0;
            char *end;
            if (isf) {
                t->kind = T_FLOAT;
                t->f = strtod(buf, &end);
            } else {
                t->kind = T_INT;
                errno = 0;
                t->i = strtoll(buf, &end, 10);
                if (errno) fail(ps, t->line, t->col, "integer '%s' out of range", buf);
            }
            if (*end) fail(ps, t->line, t->col, "malformed number '%s'", buf);
            p = q;
        }
    } else if (*p == '"') {
        const char *q = p + 1;
        while (q < e && *q != '"' && *q != '\n') q += (*q == '\\' && q + 1 < e) ? 2 : 1;
        if (q >= e || *q != '"') fail(ps, t->line, t->col, "unterminated string");
        t->kind = T_STR;
        t->n = (size_t)(q - p) + 1;
        p = q < e ? q + 1 : q;
    } else if (strchr("()[],=:", *p)) {
        t->kind = T_PUNCT;
        t->n = 1;
        p++;
    } else {
        if ((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f)
            fail(ps, t->line, t->col, "unexpected character '%c'", *p);
        else
            fail(ps, t->line, t->col, "unexpected byte 0x%02x", (unsigned)(unsigned char)*p);
        t->kind = T_END;
    }
    ps->p = p;
}

static bool is_punct(const parser *ps, char c) { return ps->t.kind == T_PUNCT && ps->t.s[0] == c; }
static bool is_ident(const parser *ps, const char *w) {
    return ps->t.kind == T_IDENT && ps->t.n == strlen(w) && !memcmp(ps->t.s, w, ps->t.n);
}

static bool expect(parser *ps, char c, const char *what) {
    if (is_punct(ps, c)) {
        next(ps);
        return true;
    }
    char b[64];
    fail(ps, ps->t.line, ps->t.col, "expected %s, found %s", what, describe(&ps->t, b, sizeof b));
    return false;
}

static char *dup(parser *ps, const char *s, size_t n) {
    char *d = opgen_arena_alloc(ps->a, n + 1);
    if (!d) {
        fail(ps, ps->t.line, ps->t.col, "out of memory");
        return (char *)"";
    }
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* Growable arrays in the arena: the old copy is left behind (programs are small). */
static void *grow(parser *ps, void *old, int n, int *cap, size_t elem) {
    if (n < *cap) return old;
    int nc = *cap ? *cap * 2 : 8;
    void *p = opgen_arena_alloc(ps->a, (size_t)nc * elem);
    if (!p) {
        fail(ps, ps->t.line, ps->t.col, "out of memory");
        return old;
    }
    if (old && n) memcpy(p, old, (size_t)n * elem);
    *cap = nc;
    return p;
}

typedef struct builder {
    opgen_graph *g;
    int cap_values, cap_inputs, cap_nodes;
    int *slots; /* open addressing over value names: index + 1, or 0; a power of two */
    int nslots;
} builder;

static uint32_t name_hash(const char *s, size_t n) { /* FNV-1a */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

/* The slot holding %name, or the empty slot where it would go. */
static int *slot_of(const builder *b, const char *s, size_t n) {
    uint32_t mask = (uint32_t)b->nslots - 1, i = name_hash(s, n) & mask;
    for (;; i = (i + 1) & mask) {
        int v = b->slots[i] - 1;
        if (v < 0) return &b->slots[i];
        const char *name = b->g->values[v].name;
        if (!strncmp(name, s, n) && !name[n]) return &b->slots[i];
    }
}

static int find_value(const builder *b, const char *s, size_t n) { return b->nslots ? *slot_of(b, s, n) - 1 : -1; }

/* Keeps the table at most half full, so lookups stay O(1) on long programs. */
static bool reserve_slot(parser *ps, builder *b) {
    if (2 * (b->g->nvalues + 1) <= b->nslots) return true;
    int n = b->nslots ? 2 * b->nslots : 64;
    int *slots = opgen_arena_alloc(ps->a, sizeof(int) * (size_t)n);
    if (!slots) return fail(ps, ps->t.line, ps->t.col, "out of memory"), false;
    memset(slots, 0, sizeof(int) * (size_t)n);
    b->slots = slots;
    b->nslots = n;
    for (int v = 0; v < b->g->nvalues; v++) {
        const char *name = b->g->values[v].name;
        *slot_of(b, name, strlen(name)) = v + 1;
    }
    return true;
}

/* Defines %name (a token T_NAME); returns its index or -1. */
static int define(parser *ps, builder *b, const tok *t, int kind, int producer) {
    opgen_graph *g = b->g;
    int prev = find_value(b, t->s + 1, t->n - 1);
    if (prev >= 0) {
        const opgen_gvalue *v = &g->values[prev];
        if (v->kind == OPGEN_GV_FREE)
            fail(ps, t->line, t->col, "%%%s is defined after its use at %u:%u", v->name, v->line, v->col);
        else
            fail(ps, t->line, t->col, "%%%s is defined twice (first at %u:%u)", v->name, v->line, v->col);
        return -1;
    }
    g->values = grow(ps, g->values, g->nvalues, &b->cap_values, sizeof *g->values);
    if (ps->failed || !reserve_slot(ps, b)) return -1;
    opgen_gvalue *v = &g->values[g->nvalues];
    memset(v, 0, sizeof *v);
    v->name = dup(ps, t->s + 1, t->n - 1);
    if (ps->failed) return -1;
    *slot_of(b, v->name, t->n - 1) = g->nvalues + 1;
    v->kind = kind;
    v->producer = producer;
    v->line = t->line;
    v->col = t->col;
    return g->nvalues++;
}

static int use(parser *ps, builder *b, const tok *t) {
    opgen_graph *g = b->g;
    int i = find_value(b, t->s + 1, t->n - 1);
    if (i >= 0) return i;
    if (!g->pattern) {
        fail(ps, t->line, t->col, "%.*s is used before it is defined", (int)t->n, t->s);
        return -1;
    }
    /* in a pattern, a free name is an argument of the backend op */
    i = define(ps, b, t, OPGEN_GV_FREE, -1);
    if (i < 0) return -1;
    g->inputs = grow(ps, g->inputs, g->ninputs, &b->cap_inputs, sizeof *g->inputs);
    if (!ps->failed) g->inputs[g->ninputs++] = i;
    return i;
}

static bool parse_value(parser *ps, builder *b, opgen_garg *x, int depth) {
    char d[64];
    x->line = ps->t.line;
    x->col = ps->t.col;
    if (depth > 8) return fail(ps, x->line, x->col, "lists nested too deeply"), false;
    switch (ps->t.kind) {
    case T_NAME:
        x->kind = OPGEN_GA_VALUE;
        x->i = use(ps, b, &ps->t);
        next(ps);
        return x->i >= 0;
    case T_INT:
        x->kind = OPGEN_GA_INT;
        x->i = ps->t.i;
        next(ps);
        return true;
    case T_FLOAT:
        x->kind = OPGEN_GA_FLOAT;
        x->f = ps->t.f;
        next(ps);
        return true;
    case T_STR: {
        /* unescape \" \\ \n \t */
        char *s = opgen_arena_alloc(ps->a, ps->t.n);
        if (!s) return fail(ps, x->line, x->col, "out of memory"), false;
        size_t k = 0;
        for (size_t i = 1; i + 1 < ps->t.n; i++) {
            char c = ps->t.s[i];
            if (c == '\\' && i + 2 < ps->t.n) {
                c = ps->t.s[++i];
                c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
            }
            s[k++] = c;
        }
        s[k] = 0;
        x->kind = OPGEN_GA_STR;
        x->s = s;
        next(ps);
        return true;
    }
    case T_IDENT:
        if (is_ident(ps, "True") || is_ident(ps, "False")) {
            x->kind = OPGEN_GA_BOOL;
            x->i = ps->t.s[0] == 'T';
        } else if (is_ident(ps, "None")) {
            x->kind = OPGEN_GA_NONE;
        } else {
            int dt = opgen_dtype_from_torch(ps->t.s, ps->t.n), mf = opgen_memfmt_from_torch(ps->t.s, ps->t.n);
            if (dt >= 0) {
                x->kind = OPGEN_GA_DTYPE;
                x->i = dt;
            } else if (mf >= 0) {
                x->kind = OPGEN_GA_MEMFMT;
                x->i = mf;
            } else {
                return fail(
                           ps, x->line, x->col,
                           "expected a value (%%name, a number, True, False, None, a string, a list, torch.<dtype> or a memory format), found %s",
                           describe(&ps->t, d, sizeof d)),
                       false;
            }
        }
        next(ps);
        return true;
    case T_PUNCT:
        if (is_punct(ps, '[')) {
            next(ps);
            x->kind = OPGEN_GA_LIST;
            int cap = 0;
            while (!is_punct(ps, ']')) {
                x->items = grow(ps, x->items, x->nitems, &cap, sizeof *x->items);
                if (ps->failed) return false;
                opgen_garg *it = &x->items[x->nitems];
                memset(it, 0, sizeof *it);
                if (!parse_value(ps, b, it, depth + 1)) return false;
                x->nitems++;
                if (is_punct(ps, ',')) {
                    next(ps);
                    continue;
                }
                if (!is_punct(ps, ']'))
                    return fail(ps, ps->t.line, ps->t.col, "expected ',' or ']' in a list, found %s",
                                describe(&ps->t, d, sizeof d)),
                           false;
            }
            next(ps);
            return true;
        }
        /* fall through */
    default: return fail(ps, x->line, x->col, "expected a value, found %s", describe(&ps->t, d, sizeof d)), false;
    }
}

static bool parse_node(parser *ps, builder *b) {
    char d[64];
    opgen_graph *g = b->g;
    tok results[16];
    int nres = 0;
    for (;;) {
        if (ps->t.kind != T_NAME)
            return fail(ps, ps->t.line, ps->t.col, "expected a result name like %%y, found %s",
                        describe(&ps->t, d, sizeof d)),
                   false;
        if (nres == 16) return fail(ps, ps->t.line, ps->t.col, "more than 16 results"), false;
        results[nres++] = ps->t;
        next(ps);
        if (!is_punct(ps, ',')) break;
        next(ps);
    }
    if (!expect(ps, '=', "'=' after the results")) return false;
    if (ps->t.kind != T_IDENT || !memchr(ps->t.s, ':', ps->t.n))
        return fail(ps, ps->t.line, ps->t.col, "expected an operator name like aten::add.Tensor, found %s",
                    describe(&ps->t, d, sizeof d)),
               false;
    g->nodes = grow(ps, g->nodes, g->nnodes, &b->cap_nodes, sizeof *g->nodes);
    if (ps->failed) return false;
    opgen_gnode *n = &g->nodes[g->nnodes];
    memset(n, 0, sizeof *n);
    n->op = dup(ps, ps->t.s, ps->t.n);
    n->line = results[0].line;
    n->col = results[0].col;
    next(ps);
    if (!expect(ps, '(', "'(' after the operator name")) return false;
    int cap = 0;
    bool kw_seen = false;
    while (!is_punct(ps, ')')) {
        n->args = grow(ps, n->args, n->nargs, &cap, sizeof *n->args);
        if (ps->failed) return false;
        opgen_garg *x = &n->args[n->nargs];
        memset(x, 0, sizeof *x);
        /* keyword argument: name=value */
        if (ps->t.kind == T_IDENT && ps->p < ps->e && *ps->p == '=' && !memchr(ps->t.s, ':', ps->t.n) &&
            !memchr(ps->t.s, '.', ps->t.n)) {
            tok k = ps->t;
            x->kw = dup(ps, k.s, k.n);
            for (int i = 0; i < n->nargs; i++)
                if (n->args[i].kw && !strcmp(n->args[i].kw, x->kw))
                    return fail(ps, k.line, k.col, "keyword argument '%s' given twice", x->kw), false;
            next(ps);
            next(ps); /* '=' */
            kw_seen = true;
            if (!parse_value(ps, b, x, 0)) return false;
            x->line = k.line;
            x->col = k.col;
        } else {
            if (kw_seen)
                return fail(ps, ps->t.line, ps->t.col, "a positional argument follows a keyword argument"), false;
            if (!parse_value(ps, b, x, 0)) return false;
        }
        n->nargs++;
        if (is_punct(ps, ',')) {
            next(ps);
            continue;
        }
        if (!is_punct(ps, ')'))
            return fail(ps, ps->t.line, ps->t.col, "expected ',' or ')' after an argument, found %s",
                        describe(&ps->t, d, sizeof d)),
                   false;
    }
    next(ps);
    int id = g->nnodes++;
    n = &g->nodes[id];
    n->results = opgen_arena_alloc(ps->a, sizeof(int) * (size_t)nres);
    if (!n->results) return fail(ps, n->line, n->col, "out of memory"), false;
    for (int r = 0; r < nres; r++) {
        n->results[r] = define(ps, b, &results[r], OPGEN_GV_RESULT, id);
        if (n->results[r] < 0) return false;
    }
    n->nresults = nres;
    return true;
}

static bool parse_input(parser *ps, builder *b) {
    char d[64];
    if (ps->t.kind != T_NAME)
        return fail(ps, ps->t.line, ps->t.col, "expected an input like %%x: f32[2, 3], found %s",
                    describe(&ps->t, d, sizeof d)),
               false;
    tok name = ps->t;
    next(ps);
    if (!expect(ps, ':', "':' and a type after the input name")) return false;
    if (ps->t.kind != T_IDENT)
        return fail(ps, ps->t.line, ps->t.col, "expected a type (f32[...], int, float, bool), found %s",
                    describe(&ps->t, d, sizeof d)),
               false;
    int kind = is_ident(ps, "int")     ? OPGEN_GV_INT
               : is_ident(ps, "float") ? OPGEN_GV_FLOAT
               : is_ident(ps, "bool")  ? OPGEN_GV_BOOL
                                       : OPGEN_GV_TENSOR;
    int dt = -1;
    if (kind == OPGEN_GV_TENSOR) {
        dt = opgen_dtype_from_abbrev(ps->t.s, ps->t.n);
        if (dt < 0)
            return fail(
                       ps, ps->t.line, ps->t.col,
                       "unknown dtype '%.*s' (expected b8, u8, i8, i16, i32, i64, f16, bf16, f32, f64, u16, c64, c128)",
                       (int)ps->t.n, ps->t.s),
                   false;
    }
    tok ty = ps->t;
    next(ps);
    int64_t sizes[OPGEN_MAX_DIM];
    int dim = 0;
    if (kind == OPGEN_GV_TENSOR) {
        if (!expect(ps, '[', "'[' and sizes after the dtype")) return false;
        while (!is_punct(ps, ']')) {
            if (ps->t.kind != T_INT || ps->t.i < 0)
                return fail(ps, ps->t.line, ps->t.col, "expected a non-negative size, found %s",
                            describe(&ps->t, d, sizeof d)),
                       false;
            if (dim == OPGEN_MAX_DIM)
                return fail(ps, ps->t.line, ps->t.col, "more than %d dimensions", OPGEN_MAX_DIM), false;
            sizes[dim++] = ps->t.i;
            next(ps);
            if (is_punct(ps, ',')) {
                next(ps);
                continue;
            }
            if (!is_punct(ps, ']'))
                return fail(ps, ps->t.line, ps->t.col, "expected ',' or ']' in the sizes, found %s",
                            describe(&ps->t, d, sizeof d)),
                       false;
        }
        next(ps);
    }
    (void)ty;
    int v = define(ps, b, &name, kind, -1);
    if (v < 0) return false;
    opgen_gvalue *gv = &b->g->values[v];
    if (kind == OPGEN_GV_TENSOR) {
        gv->dtype = (opgen_dtype)dt;
        gv->dim = dim;
        memcpy(gv->sizes, sizes, sizeof(int64_t) * (size_t)dim);
    }
    opgen_graph *g = b->g;
    g->inputs = grow(ps, g->inputs, g->ninputs, &b->cap_inputs, sizeof *g->inputs);
    if (!ps->failed) g->inputs[g->ninputs++] = v;
    return !ps->failed;
}

static bool parse_return(parser *ps, builder *b) {
    char d[64];
    opgen_graph *g = b->g;
    next(ps); /* return */
    bool paren = is_punct(ps, '(');
    if (paren) next(ps);
    g->tuple_return = paren;
    int cap = 0;
    for (;;) {
        if (paren && is_punct(ps, ')') && g->noutputs == 0) break;
        if (ps->t.kind != T_NAME)
            return fail(ps, ps->t.line, ps->t.col, "expected a value to return like %%y, found %s",
                        describe(&ps->t, d, sizeof d)),
                   false;
        g->outputs = grow(ps, g->outputs, g->noutputs, &cap, sizeof *g->outputs);
        if (ps->failed) return false;
        int v = use(ps, b, &ps->t);
        if (v < 0) return false;
        g->outputs[g->noutputs++] = v;
        next(ps);
        if (!paren || !is_punct(ps, ',')) break;
        next(ps);
    }
    if (paren && !expect(ps, ')', "')' after the returned values")) return false;
    if (ps->t.kind != T_END)
        return fail(ps, ps->t.line, ps->t.col, "expected the end of the graph after 'return', found %s",
                    describe(&ps->t, d, sizeof d)),
               false;
    return true;
}

opgen_status opgen_graph_parse(const char *file, const char *text, size_t len, bool pattern, opgen_arena *a,
                               opgen_graph *g, opgen_error *err) {
    memset(g, 0, sizeof *g);
    g->file = file;
    g->pattern = pattern;
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.file = file;
    ps.p = ps.line_start = text;
    ps.e = text + len;
    ps.line = 1;
    ps.a = a;
    ps.err = err;
    builder b;
    memset(&b, 0, sizeof b);
    b.g = g;
    char d[64];
    next(&ps);
    if (!pattern) {
        if (!is_ident(&ps, "graph"))
            return fail(&ps, ps.t.line, ps.t.col, "expected 'graph(' to start the program, found %s",
                        describe(&ps.t, d, sizeof d));
        next(&ps);
        if (!expect(&ps, '(', "'(' after 'graph'")) return OPGEN_E_PARSE;
        while (!is_punct(&ps, ')')) {
            if (!parse_input(&ps, &b)) return OPGEN_E_PARSE;
            if (is_punct(&ps, ',')) {
                next(&ps);
                continue;
            }
            if (!is_punct(&ps, ')'))
                return fail(&ps, ps.t.line, ps.t.col, "expected ',' or ')' after an input, found %s",
                            describe(&ps.t, d, sizeof d));
        }
        next(&ps);
        if (!expect(&ps, ':', "':' after the inputs")) return OPGEN_E_PARSE;
    }
    for (;;) {
        if (ps.failed) return OPGEN_E_PARSE;
        if (is_ident(&ps, "return")) {
            if (!parse_return(&ps, &b)) return OPGEN_E_PARSE;
            break;
        }
        if (ps.t.kind == T_END) return fail(&ps, ps.t.line, ps.t.col, "expected 'return' to end the graph");
        if (!parse_node(&ps, &b)) return OPGEN_E_PARSE;
    }
    return ps.failed ? OPGEN_E_PARSE : OPGEN_OK;
}

/* ---- schema defaults and argument binding (shared by the executor, the lowering
 * library and the generator's backend-op checks) ---- */

/* c10's spellings of a ScalarType default, and ATen's reduction constants. */
static const struct {
    const char *name;
    int kind;
    int64_t value;
} default_words[] = {
    {"None", OPGEN_GA_NONE, 0},
    {"True", OPGEN_GA_BOOL, 1},
    {"False", OPGEN_GA_BOOL, 0},
    {"contiguous_format", OPGEN_GA_MEMFMT, OPGEN_MEMFMT_CONTIGUOUS},
    {"channels_last", OPGEN_GA_MEMFMT, OPGEN_MEMFMT_CHANNELS_LAST},
    {"preserve_format", OPGEN_GA_MEMFMT, OPGEN_MEMFMT_PRESERVE},
    {"long", OPGEN_GA_DTYPE, OPGEN_DTYPE_Long},
    {"int", OPGEN_GA_DTYPE, OPGEN_DTYPE_Int},
    {"float", OPGEN_GA_DTYPE, OPGEN_DTYPE_Float},
    {"double", OPGEN_GA_DTYPE, OPGEN_DTYPE_Double},
    {"bool", OPGEN_GA_DTYPE, OPGEN_DTYPE_Bool},
    {"Mean", OPGEN_GA_INT, 1}, /* at::Reduction */
    {"Sum", OPGEN_GA_INT, 2},
};

/* A number: an int when it reads as one, else a float. */
static bool default_number(const char *d, const char **end, opgen_garg *x) {
    char *e;
    errno = 0;
    long long i = strtoll(d, &e, 10);
    if (e != d && errno == 0 && *e != '.' && *e != 'e' && *e != 'E')
        return x->kind = OPGEN_GA_INT, x->i = i, *end = e, true;
    double f = strtod(d, &e);
    if (e == d) return false;
    return x->kind = OPGEN_GA_FLOAT, x->f = f, *end = e, true;
}

bool opgen_garg_parse_default(opgen_arena *a, const char *d, opgen_garg *x) {
    memset(x, 0, sizeof *x);
    for (size_t k = 0; k < sizeof default_words / sizeof *default_words; k++)
        if (!strcmp(d, default_words[k].name))
            return x->kind = default_words[k].kind, x->i = default_words[k].value, true;
    size_t n = strlen(d);
    if (n >= 2 && (d[0] == '\'' || d[0] == '"') && d[n - 1] == d[0]) {
        char *s = opgen_arena_alloc_bytes(a, n - 1);
        if (!s) return false;
        memcpy(s, d + 1, n - 2);
        s[n - 2] = 0;
        return x->kind = OPGEN_GA_STR, x->s = s, true;
    }
    if (d[0] != '[') {
        const char *end;
        return default_number(d, &end, x) && !*end;
    }
    int cap = 1;
    for (const char *p = d; *p; p++) cap += *p == ',';
    x->kind = OPGEN_GA_LIST;
    x->items = opgen_arena_zalloc(a, sizeof *x->items * (size_t)cap);
    if (!x->items) return false;
    const char *p = d + 1;
    while (*p == ' ') p++;
    while (*p && *p != ']' && x->nitems < cap) {
        if (!default_number(p, &p, &x->items[x->nitems++])) return false;
        while (*p == ',' || *p == ' ') p++;
    }
    return *p == ']' && !p[1];
}

opgen_status opgen_bind_args(const opgen_graph *g, const opgen_gnode *nd, const char *const *names, int nargs, int npos,
                             const opgen_garg **given, opgen_error *err) {
    for (int i = 0; i < nargs; i++) given[i] = NULL;
    int pos = 0;
    for (int k = 0; k < nd->nargs; k++) {
        const opgen_garg *x = &nd->args[k];
        int target = -1;
        if (!x->kw) {
            if (pos >= npos) {
                int got = 0;
                for (int j = 0; j < nd->nargs; j++) got += !nd->args[j].kw;
                return opgen_fail_at(err, OPGEN_E_INVALID, g->file, x->line, x->col,
                                     "%s takes %d positional argument%s, got %d", nd->op, npos, npos == 1 ? "" : "s",
                                     got);
            }
            target = pos++;
        } else {
            for (int i = 0; i < nargs && target < 0; i++)
                if (!strcmp(names[i], x->kw)) target = i;
            if (target < 0)
                return opgen_fail_at(err, OPGEN_E_INVALID, g->file, x->line, x->col, "%s has no argument '%s'", nd->op,
                                     x->kw);
            if (given[target])
                return opgen_fail_at(err, OPGEN_E_INVALID, g->file, x->line, x->col, "argument '%s' of %s given twice",
                                     x->kw, nd->op);
        }
        given[target] = x;
    }
    return OPGEN_OK;
}
