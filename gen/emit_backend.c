/* opgen_backend.h: the backend ops' pattern table (what the lowering library fuses
 * and decomposes) and their fallback kernels: C that runs each pattern on the core
 * kernels, with temporaries from the runtime's arena, or computes a builtin. */
#include "abi.h"
#include "dtype.h"
#include "emit.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A C string literal of any text (patterns hold newlines). */
static void c_string(strbuf *b, const char *s) {
    sb_putc(b, '"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '\n')
            sb_puts(b, "\\n");
        else if (ch == '"' || ch == '\\')
            sb_printf(b, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f)
            sb_printf(b, "\\%03o", ch);
        else
            sb_putc(b, (char)ch);
    }
    sb_putc(b, '"');
}

/* Text inside a C comment: no comment end. */
static void c_comment_text(strbuf *b, const char *s) {
    for (; *s; s++) {
        sb_putc(b, *s);
        if (s[0] == '*' && s[1] == '/') sb_putc(b, ' ');
    }
}

static void c_double(strbuf *b, double v) {
    if (isnan(v))
        sb_puts(b, "NAN");
    else if (isinf(v))
        sb_puts(b, v < 0 ? "-INFINITY" : "INFINITY");
    else
        sb_printf(b, "%.17g", v);
}

typedef struct fb {
    const og_model *m;
    const og_backend_op *op;
    const og_yaml_kernels *kernels;
    diag *d;
    strbuf *out;            /* the function being written */
    strbuf pre;             /* declarations a call's arguments need */
    unsigned nlocal;        /* numbering of those */
    const char **out_param; /* per graph value: the out parameter it is written to, or NULL */
    bool ok;
} fb;

/* The C name of the fallback parameter for schema argument a. */
static const char *param_name(const fb *f, int a) {
    const char *n = f->op->func->schema->args[a].name;
    return og_abi_reserved(n) ? arena_printf(f->m->a, "%s_", n) : n;
}

static const char *param_name_of(const fb *f, const char *n) {
    return og_abi_reserved(n) ? arena_printf(f->m->a, "%s_", n) : n;
}

/* A pattern value as a tensor pointer: an argument, an out parameter or a temporary. */
static const char *tensor_expr(const fb *f, int v) {
    if (f->op->value_arg[v] >= 0) return param_name(f, f->op->value_arg[v]);
    if (f->out_param[v]) return f->out_param[v];
    return arena_printf(f->m->a, "&og_t_%s", f->op->graph.values[v].name);
}

static void fail_at(fb *f, const og_pnode *pn, const char *fmt, const char *a1, const char *a2) {
    diag_error(f->d, pn->file, pn->line, pn->col, fmt, a1, a2);
    f->ok = false;
}

static bool is_int_abi(const char *kind) { return !strcmp(kind, "INT") || !strcmp(kind, "OPT_INT"); }

/* The fixed size of an int[N] (optional or not), or 0. */
static unsigned strip_size(const og_type *t) {
    if (t->kind == OG_TY_OPTIONAL) t = t->elem;
    return t->kind == OG_TY_LIST ? t->size : 0;
}

/* A C expression of parameter type `abi` (of argument `param`) for a pattern
 * value or literal x; declarations it needs go to f->pre. */
static const char *arg_expr(fb *f, const og_pnode *pn, const og_arg *param, const opgen_garg *x) {
    arena *a = f->m->a;
    og_abi abi = og_abi_of(param->type, og_annot_is_write(param->annot));
    const char *k = abi.kind;
    bool opt = !strncmp(k, "OPT_", 4);
    const char *base = opt ? k + 4 : k;
    unsigned l = f->nlocal++;
    if (x->kind == OPGEN_GA_NONE) return "NULL";
    /* a free name of the op, with its own C type */
    const og_type *vt = x->kind == OPGEN_GA_VALUE ? og_pattern_value_type(f->op, (int)x->i) : NULL;
    bool arg = x->kind == OPGEN_GA_VALUE && f->op->value_arg[x->i] >= 0;
    const char *name = arg ? param_name(f, f->op->value_arg[x->i]) : NULL;
    const char *vkind = vt ? og_abi_of(vt, false).kind : "";
    bool vopt = !strncmp(vkind, "OPT_", 4);
    if (!strcmp(base, "TENSOR")) return tensor_expr(f, (int)x->i);
    if (!strcmp(k, "TENSOR_LIST")) {
        sb_printf(&f->pre, "        const opgen_tensor *og_l%u[] = {", l);
        for (int i = 0; i < x->nitems; i++)
            sb_printf(&f->pre, "%s%s", i ? ", " : "", tensor_expr(f, (int)x->items[i].i));
        sb_puts(&f->pre, "};\n");
        return arena_printf(a, "(opgen_tensor_list){og_l%u, %d}", l, x->nitems);
    }
    if (!strcmp(base, "INT_LIST")) {
        if (arg) return opt == vopt ? name : arena_printf(a, "&%s", name);
        if (x->kind == OPGEN_GA_INT) { /* int[N] x=1 is [1, ..., 1] */
            unsigned n = strip_size(param->type);
            sb_printf(&f->pre, "        int64_t og_l%u[%u] = {", l, n ? n : 1);
            for (unsigned i = 0; i < (n ? n : 1); i++)
                sb_printf(&f->pre, "%sINT64_C(%lld)", i ? ", " : "", (long long)x->i);
            sb_puts(&f->pre, "};\n");
            sb_printf(&f->pre, "        opgen_int_list og_L%u = {og_l%u, %u};\n", l, l, n ? n : 1);
        } else {
            if (x->nitems) {
                sb_printf(&f->pre, "        int64_t og_l%u[] = {", l);
                for (int i = 0; i < x->nitems; i++) {
                    const opgen_garg *it = &x->items[i];
                    if (it->kind == OPGEN_GA_VALUE)
                        sb_printf(&f->pre, "%s%s", i ? ", " : "", param_name(f, f->op->value_arg[it->i]));
                    else
                        sb_printf(&f->pre, "%sINT64_C(%lld)", i ? ", " : "", (long long)it->i);
                }
                sb_puts(&f->pre, "};\n");
            }
            sb_printf(&f->pre, "        opgen_int_list og_L%u = {%s, %d};\n", l,
                      x->nitems ? arena_printf(a, "og_l%u", l) : "NULL", x->nitems);
        }
        return arena_printf(a, opt ? "&og_L%u" : "og_L%u", l);
    }
    /* a single value: its C text, then passed by value or through a local */
    const char *ctype = NULL, *val = NULL;
    if (!strcmp(base, "INT")) {
        ctype = "int64_t";
        val = arg ? name : arena_printf(a, "INT64_C(%lld)", (long long)x->i);
    } else if (!strcmp(base, "FLOAT")) {
        ctype = "double";
        if (arg) {
            val = is_int_abi(vkind) ? arena_printf(a, "(double)%s", name) : name;
        } else {
            strbuf t;
            sb_init(&t);
            c_double(&t, x->kind == OPGEN_GA_INT ? (double)x->i : x->f);
            val = arena_strndup(a, t.p, t.n);
            sb_free(&t);
        }
    } else if (!strcmp(base, "BOOL")) {
        ctype = "bool";
        val = arg ? name : x->i ? "true" : "false";
    } else if (!strcmp(base, "DTYPE")) {
        ctype = "opgen_dtype";
        val = arg ? name : arena_printf(a, "OPGEN_DTYPE_%s", og_dtype_name((int)x->i));
    } else if (!strcmp(base, "STR")) {
        if (arg) return name;
        strbuf t;
        sb_init(&t);
        c_string(&t, x->s);
        const char *s = arena_strndup(a, t.p, t.n);
        sb_free(&t);
        return s;
    } else if (!strcmp(base, "ENUM")) {
        ctype = "int32_t";
        val = arg ? name : arena_printf(a, "%lld", (long long)x->i);
    } else if (!strcmp(base, "SCALAR")) {
        if (arg && (!strcmp(vkind, "SCALAR") || !strcmp(vkind, "OPT_SCALAR")))
            return name; /* already a const opgen_scalar * */
        if (arg)
            sb_printf(&f->pre, "        opgen_scalar og_s%u = {%s, {.%c = %s}};\n", l,
                      is_int_abi(vkind)         ? "OPGEN_DTYPE_Long"
                      : !strcmp(vkind, "FLOAT") ? "OPGEN_DTYPE_Double"
                                                : "OPGEN_DTYPE_Bool",
                      is_int_abi(vkind)         ? 'i'
                      : !strcmp(vkind, "FLOAT") ? 'f'
                                                : 'b',
                      name);
        else if (x->kind == OPGEN_GA_INT)
            sb_printf(&f->pre, "        opgen_scalar og_s%u = {OPGEN_DTYPE_Long, {.i = INT64_C(%lld)}};\n", l,
                      (long long)x->i);
        else if (x->kind == OPGEN_GA_BOOL)
            sb_printf(&f->pre, "        opgen_scalar og_s%u = {OPGEN_DTYPE_Bool, {.b = %s}};\n", l,
                      x->i ? "true" : "false");
        else {
            strbuf t;
            sb_init(&t);
            c_double(&t, x->f);
            sb_printf(&f->pre, "        opgen_scalar og_s%u = {OPGEN_DTYPE_Double, {.f = %s}};\n", l, sb_cstr(&t));
            sb_free(&t);
        }
        return arena_printf(a, "&og_s%u", l);
    } else {
        fail_at(f, pn, "the fallback cannot pass argument '%s' (%s) yet", param->name, abi.ctype);
        return "NULL";
    }
    if (arg && vopt) return opt ? name : arena_printf(a, "*%s", name); /* checked non-None by the caller's types */
    if (!opt) return val;
    sb_printf(&f->pre, "        %s og_v%u = %s;\n", ctype, l, val);
    return arena_printf(a, "&og_v%u", l);
}

/* The default kernel the kernel files give f, or NULL. */
static const og_yaml_kernel *kernel_of(const og_yaml_kernels *ks, const og_func *f) {
    for (unsigned k = 0; k < ks->n; k++)
        if (ks->items[k].is_default && ks->items[k].func == f) return &ks->items[k];
    return NULL;
}

/* One call of a pattern node: the kernel of its op's out= variant, its arguments
 * (given, or the schema's defaults) and its results (temporaries or our outs). */
static void emit_node(fb *f, const og_pnode *pn) {
    const og_func *fn = pn->func, *fo = og_func_out_variant(fn);
    const og_yaml_kernel *k = fo ? kernel_of(f->kernels, fo) : NULL;
    char qual[300];
    snprintf(qual, sizeof qual, "%s::%s", fn->ns, fn->name);
    if (!k) {
        fail_at(f, pn, "the fallback of %s calls %s, which has no out= kernel in the kernel files",
                arena_printf(f->m->a, "%s::%s", f->op->func->ns, f->op->func->name), qual);
        return;
    }
    const og_schema *s = fn->schema, *os = fo->schema;
    sb_reset(&f->pre);
    strbuf call;
    sb_init(&call);
    sb_printf(&call, "%s(&og_ctx", k->symbol);
    for (unsigned i = 0; i < os->nargs; i++) {
        const og_arg *p = &os->args[i];
        if (p->cat == OG_ARG_OUT) { /* the r-th out argument takes the node's r-th result */
            unsigned r = 0;
            for (unsigned j = 0; j < i; j++) r += os->args[j].cat == OG_ARG_OUT;
            sb_printf(&call, ", %s", r < (unsigned)pn->node->nresults ? tensor_expr(f, pn->node->results[r]) : "NULL");
            continue;
        }
        int fi = -1;
        for (unsigned j = 0; j < s->nargs; j++)
            if (!strcmp(s->args[j].name, p->name)) fi = (int)j;
        const opgen_garg *x = fi >= 0 ? pn->slots[fi] : NULL;
        opgen_garg dflt;
        if (!x) {
            if (!p->dflt || !opgen_garg_parse_default(f->m->a, p->dflt, &dflt)) {
                fail_at(f, pn, "the fallback cannot write the default of argument '%s' (%s) in C", p->name,
                        p->dflt ? p->dflt : "none");
                break;
            }
            x = &dflt;
        }
        sb_printf(&call, ", %s", arg_expr(f, pn, p, x));
    }
    sb_puts(&call, ")");
    sb_printf(f->out, "    { /* %s */\n", qual);
    sb_puts(f->out, sb_cstr(&f->pre));
    sb_printf(f->out, "        og_ctx.op = \"%s::%s (pattern: %s)\";\n", f->op->func->ns, f->op->func->name, qual);
    sb_printf(f->out, "        if ((og_st = %s)) return og_st;\n    }\n", sb_cstr(&call));
    sb_free(&call);
}

/* The fallback of one backend op. */
static void emit_fallback(fb *f, strbuf *b) {
    const og_backend_op *op = f->op;
    const og_func *kf = op->out ? op->out : op->func;
    const char *sym = og_fallback_symbol(f->m->a, kf);
    sb_printf(b, "/* %s::%s", op->func->ns, op->func->schema_text);
    if (op->builtin) {
        sb_printf(b, ": the builtin %s, with Python's semantics */\n", og_builtin_name(op->builtin));
        sb_printf(b, "opgen_status %s(opgen_ctx *ctx", sym);
        og_print_kernel_params(b, kf->schema);
        sb_printf(b, ") {\n    return opgen_prim_%s(ctx", og_builtin_name(op->builtin));
        for (unsigned i = 0; i < kf->schema->nargs; i++) sb_printf(b, ", %s", param_name(f, (int)i));
        sb_puts(b, ", ret0);\n}\n\n");
        return;
    }
    sb_puts(b, ", as its pattern:\n");
    for (const char *p = op->pattern; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        sb_puts(b, " *   ");
        char *line = arena_strndup(f->m->a, p, n);
        c_comment_text(b, line);
        sb_putc(b, '\n');
        p += n + (e ? 1 : 0);
    }
    sb_puts(b, " */\n");
    sb_printf(b, "opgen_status %s(opgen_ctx *ctx", sym);
    og_print_kernel_params(b, kf->schema);
    sb_puts(b, ") {\n");
    /* results: the k-th returned value is written to the k-th out argument */
    const opgen_graph *g = &op->graph;
    f->out_param = arena_zalloc(f->m->a, sizeof(char *) * ((size_t)g->nvalues + 1));
    unsigned k = 0;
    for (unsigned i = 0; i < kf->schema->nargs; i++)
        if (kf->schema->args[i].cat == OG_ARG_OUT && k < (unsigned)g->noutputs)
            f->out_param[g->outputs[k++]] = param_name_of(f, kf->schema->args[i].name);
    bool temps = false;
    for (int n = 0; n < g->nnodes; n++)
        for (int r = 0; r < g->nodes[n].nresults; r++) {
            int v = g->nodes[n].results[r];
            if (f->out_param[v]) continue;
            sb_printf(b, "%s og_t_%s = {0}", temps ? "," : "    opgen_tensor", g->values[v].name);
            temps = true;
        }
    if (temps) sb_puts(b, "; /* temporaries: sized by each kernel, memory from the arena */\n");
    for (unsigned a = 0; a < op->func->schema->nargs; a++)
        if (op->ignored[a]) sb_printf(b, "    (void)%s; /* ignored by the pattern */\n", param_name(f, (int)a));
    sb_puts(
        b,
        "    opgen_ctx og_ctx = *ctx; /* the same call, named for the pattern's op in messages */\n    opgen_status og_st;\n");
    f->out = b;
    for (int n = 0; n < g->nnodes; n++) emit_node(f, &op->nodes[n]);
    sb_puts(b, "    ctx->scratch = og_ctx.scratch;\n    return OPGEN_OK;\n}\n\n");
}

/* {op id, kernel op id, backend, builtin, pattern}: the op's row of the table. */
static void table_row(strbuf *table, const og_backend_op *op) {
    const og_func *kf = op->out ? op->out : op->func;
    sb_printf(table, "    {%u, %u, \"%s\", ", op->func->index, kf->index, op->backend);
    if (op->builtin) {
        sb_printf(table, "\"%s\", NULL}, /* %s::%s */\n", og_builtin_name(op->builtin), op->func->ns, op->func->name);
    } else {
        sb_puts(table, "NULL,\n     ");
        c_string(table, op->pattern);
        sb_printf(table, "}, /* %s::%s */\n", op->func->ns, op->func->name);
    }
}

bool og_emit_backend(og_outputs *outs, const char *outdir, const char *tdir, const og_model *m,
                     const og_yaml_kernels *kernels, const og_backend *backend, const char *generated_by, diag *d) {
    strbuf table, fallbacks;
    sb_init(&table);
    sb_init(&fallbacks);
    fb f;
    memset(&f, 0, sizeof f);
    f.m = m;
    f.kernels = kernels;
    f.d = d;
    f.ok = true;
    sb_init(&f.pre);
    unsigned nkept = 0;
    for (unsigned i = 0; i < backend->n; i++) {
        const og_backend_op *op = &backend->ops[i];
        /* a trimmed build's table leaves the op out; its fallback stays, as native
         * kernels call fallbacks directly (unused, the linker drops it) */
        bool kept = og_func_kept(m, op->func);
        nkept += kept;
        if (kept) table_row(&table, op);
        f.op = op;
        f.nlocal = 0;
        emit_fallback(&f, &fallbacks);
    }
    if (!nkept) sb_puts(&table, "    {-1, -1, NULL, NULL, NULL},\n");
    char count[16];
    snprintf(count, sizeof count, "%u", nkept);
    og_tvar vars[] = {
        OG_TVAR("generated_by", generated_by),
        OG_TVAR("backend_count", count),
        OG_TVAR("backend_table", sb_cstr(&table)),
        OG_TVAR("fallbacks", sb_cstr(&fallbacks)),
    };
    bool ok = f.ok && og_render(outs, outdir, tdir, "opgen_backend.h", vars, sizeof vars / sizeof *vars, d);
    sb_free(&f.pre);
    sb_free(&table);
    sb_free(&fallbacks);
    return ok;
}
