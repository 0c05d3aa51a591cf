/* Graph text printed back (opgen_graph_print: what the parser reads gives the
 * same graph) and two graphs compared (opgen_graph_equal). */
#include "opgen/graph.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- printing ---- */

typedef struct out {
    char *buf;
    size_t cap, n;
} out;

static void put(out *o, const char *s, size_t n) {
    if (o->n < o->cap) memcpy(o->buf + o->n, s, o->n + n <= o->cap ? n : o->cap - o->n);
    o->n += n;
}
static void puts_(out *o, const char *s) { put(o, s, strlen(s)); }
/* numbers only: strings go through puts_, whatever their length */
static void putf(out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void putf(out *o, const char *fmt, ...) {
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) put(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void print_float(out *o, double f) {
    if (isnan(f)) {
        puts_(o, "nan");
        return;
    }
    if (isinf(f)) {
        puts_(o, f < 0 ? "-inf" : "inf");
        return;
    }
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.17g", f);
    /* shortest text that reads back as the same double */
    for (int prec = 1; prec < 17; prec++) {
        char t2[64];
        snprintf(t2, sizeof t2, "%.*g", prec, f);
        if (strtod(t2, NULL) == f) {
            memcpy(tmp, t2, sizeof t2);
            break;
        }
    }
    puts_(o, tmp);
    if (!strpbrk(tmp, ".e")) puts_(o, ".0"); /* stays a float when read back */
}

static void print_arg(out *o, const opgen_graph *g, const opgen_garg *x) {
    if (x->kw) {
        puts_(o, x->kw);
        puts_(o, "=");
    }
    switch (x->kind) {
    case OPGEN_GA_VALUE:
        puts_(o, "%");
        puts_(o, g->values[x->i].name);
        break;
    case OPGEN_GA_INT: putf(o, "%lld", (long long)x->i); break;
    case OPGEN_GA_FLOAT: print_float(o, x->f); break;
    case OPGEN_GA_BOOL: puts_(o, x->i ? "True" : "False"); break;
    case OPGEN_GA_NONE: puts_(o, "None"); break;
    case OPGEN_GA_STR:
        puts_(o, "\"");
        for (const char *s = x->s; *s; s++) {
            if (*s == '"' || *s == '\\') put(o, "\\", 1);
            if (*s == '\n')
                puts_(o, "\\n");
            else if (*s == '\t')
                puts_(o, "\\t");
            else
                put(o, s, 1);
        }
        puts_(o, "\"");
        break;
    case OPGEN_GA_DTYPE: puts_(o, opgen_dtype_torch_name((opgen_dtype)x->i)); break;
    case OPGEN_GA_MEMFMT: puts_(o, opgen_memfmt_torch_name((int)x->i)); break;
    case OPGEN_GA_LIST:
        puts_(o, "[");
        for (int i = 0; i < x->nitems; i++) {
            if (i) puts_(o, ", ");
            opgen_garg item = x->items[i];
            item.kw = NULL;
            print_arg(o, g, &item);
        }
        puts_(o, "]");
        break;
    }
}

size_t opgen_graph_print(const opgen_graph *g, char *buf, size_t cap) {
    out o = {buf, cap, 0};
    const char *indent = "";
    if (!g->pattern) {
        puts_(&o, "graph(");
        for (int i = 0; i < g->ninputs; i++) {
            const opgen_gvalue *v = &g->values[g->inputs[i]];
            if (i) puts_(&o, ", ");
            puts_(&o, "%");
            puts_(&o, v->name);
            puts_(&o, ": ");
            if (v->kind == OPGEN_GV_TENSOR) {
                puts_(&o, opgen_dtype_abbrev(v->dtype));
                puts_(&o, "[");
                for (int k = 0; k < v->dim; k++) putf(&o, "%s%lld", k ? ", " : "", (long long)v->sizes[k]);
                puts_(&o, "]");
            } else {
                puts_(&o, v->kind == OPGEN_GV_INT ? "int" : v->kind == OPGEN_GV_FLOAT ? "float" : "bool");
            }
        }
        puts_(&o, "):\n");
        indent = "  ";
    }
    for (int n = 0; n < g->nnodes; n++) {
        const opgen_gnode *nd = &g->nodes[n];
        puts_(&o, indent);
        for (int r = 0; r < nd->nresults; r++) {
            puts_(&o, r ? ", %" : "%");
            puts_(&o, g->values[nd->results[r]].name);
        }
        puts_(&o, " = ");
        puts_(&o, nd->op);
        puts_(&o, "(");
        for (int i = 0; i < nd->nargs; i++) {
            if (i) puts_(&o, ", ");
            print_arg(&o, g, &nd->args[i]);
        }
        puts_(&o, ")\n");
    }
    puts_(&o, indent);
    puts_(&o, "return ");
    bool paren = g->tuple_return || g->noutputs != 1;
    if (paren) puts_(&o, "(");
    for (int i = 0; i < g->noutputs; i++) {
        puts_(&o, i ? ", %" : "%");
        puts_(&o, g->values[g->outputs[i]].name);
    }
    if (paren) puts_(&o, ")");
    puts_(&o, "\n");
    if (o.n < cap) buf[o.n] = 0;
    return o.n;
}

/* ---- equality ---- */

static bool arg_equal(const opgen_graph *gx, const opgen_garg *x, const opgen_graph *gy, const opgen_garg *y) {
    if (x->kind != y->kind || (!x->kw) != (!y->kw) || (x->kw && strcmp(x->kw, y->kw))) return false;
    switch (x->kind) {
    case OPGEN_GA_VALUE: return !strcmp(gx->values[x->i].name, gy->values[y->i].name);
    case OPGEN_GA_FLOAT: return (isnan(x->f) && isnan(y->f)) || (x->f == y->f && signbit(x->f) == signbit(y->f));
    case OPGEN_GA_STR: return !strcmp(x->s, y->s);
    case OPGEN_GA_LIST:
        if (x->nitems != y->nitems) return false;
        for (int i = 0; i < x->nitems; i++)
            if (!arg_equal(gx, &x->items[i], gy, &y->items[i])) return false;
        return true;
    case OPGEN_GA_NONE: return true;
    default: return x->i == y->i;
    }
}

bool opgen_graph_equal(const opgen_graph *x, const opgen_graph *y) {
    if (x->pattern != y->pattern || x->ninputs != y->ninputs || x->nnodes != y->nnodes || x->noutputs != y->noutputs)
        return false;
    for (int i = 0; i < x->ninputs; i++) {
        const opgen_gvalue *a = &x->values[x->inputs[i]], *b = &y->values[y->inputs[i]];
        if (strcmp(a->name, b->name) || a->kind != b->kind) return false;
        if (a->kind == OPGEN_GV_TENSOR &&
            (a->dtype != b->dtype || a->dim != b->dim || memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->dim)))
            return false;
    }
    for (int n = 0; n < x->nnodes; n++) {
        const opgen_gnode *a = &x->nodes[n], *b = &y->nodes[n];
        if (strcmp(a->op, b->op) || a->nresults != b->nresults || a->nargs != b->nargs) return false;
        for (int r = 0; r < a->nresults; r++)
            if (strcmp(x->values[a->results[r]].name, y->values[b->results[r]].name)) return false;
        for (int i = 0; i < a->nargs; i++)
            if (!arg_equal(x, &a->args[i], y, &b->args[i])) return false;
    }
    for (int i = 0; i < x->noutputs; i++)
        if (strcmp(x->values[x->outputs[i]].name, y->values[y->outputs[i]].name)) return false;
    return true;
}
