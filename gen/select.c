/* Selective builds (select.h): which kernels and dtypes a build keeps, from
 * selected_operators.yaml, op lists, .pte programs and graph text. */
#include "select.h"
#include "dtype.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERR_AT(s, n, ...) diag_error((s)->d, (n)->file, (n)->line, (n)->col, __VA_ARGS__)

void og_sel_init(og_selection *s, arena *a, diag *d) {
    memset(s, 0, sizeof *s);
    s->a = a;
    s->d = d;
    strmap_init(&s->by_name, 64);
    sb_init(&s->sources);
}

void og_sel_free(og_selection *s) {
    for (unsigned i = 0; i < s->n; i++) {
        free(s->ops[i].keys);
        free(s->ops[i].debug);
    }
    free(s->ops);
    strmap_free(&s->by_name);
    sb_free(&s->sources);
}

static void add_source(og_selection *s, const char *source) {
    const char *base = strrchr(source, '/');
    base = base ? base + 1 : source;
    if (strstr(sb_cstr(&s->sources), base)) return;
    sb_printf(&s->sources, "%s%s", s->sources.n ? ", " : "", base);
}

static void push(const char ***v, unsigned *n, unsigned *cap, const char *x) {
    for (unsigned i = 0; i < *n; i++)
        if (!strcmp((*v)[i], x)) return;
    if (*n == *cap) {
        unsigned nc = *cap ? 2 * *cap : 4;
        *v = og_xrealloc(*v, sizeof **v * nc);
        *cap = nc;
    }
    (*v)[(*n)++] = x;
}

/* The entry for name, created empty (no dtypes yet) when new. */
static og_sel_op *entry(og_selection *s, const char *name) {
    uintptr_t i = (uintptr_t)strmap_get(&s->by_name, name);
    if (i) return &s->ops[i - 1];
    if (s->n == s->cap) {
        unsigned nc = s->cap ? 2 * s->cap : 32;
        s->ops = og_xrealloc(s->ops, sizeof *s->ops * nc);
        s->cap = nc;
    }
    og_sel_op *o = &s->ops[s->n];
    memset(o, 0, sizeof *o);
    o->name = arena_strndup(s->a, name, strlen(name));
    strmap_put(&s->by_name, o->name, (void *)(uintptr_t)++s->n);
    return o;
}

/* Syntax of a kernel key: "default", or "v1/" then "dtype;d,i,m" entries joined by '|'. */
static const char *key_error(const char *k) {
    if (!strcmp(k, "default")) return NULL;
    if (strncmp(k, "v1/", 3)) return "a kernel key starts with 'v1/' (or is 'default')";
    const char *p = k + 3;
    while (*p) {
        if (!isdigit((unsigned char)*p)) return "each tensor is 'DTYPE;DIM,ORDER' with DTYPE a number";
        long dt = strtol(p, (char **)&p, 10);
        if (dt < 0 || dt >= 32) return "a dtype number is out of range (0 to 31)";
        if (*p++ != ';') return "a dtype number is followed by ';' and the dim order";
        while (isdigit((unsigned char)*p) || *p == ',') p++;
        if (*p == '|')
            p++;
        else if (*p)
            return "tensors are separated by '|'";
    }
    return NULL;
}

/* ExecuTorch's key for an op run with dtype dt everywhere: one "dt;" per tensor
 * argument and per returned tensor (dim orders unknown, left empty). */
static const char *synth_key(arena *a, const og_func *f, int dt) {
    strbuf b;
    sb_init(&b);
    sb_puts(&b, "v1/");
    unsigned n = 0;
    for (unsigned i = 0; i < f->schema->nargs; i++)
        if (og_type_is_tensor_like(f->schema->args[i].type)) sb_printf(&b, "%s%d;", n++ ? "|" : "", dt);
    for (unsigned r = 0; r < f->schema->nrets; r++)
        if (og_type_is_tensor_like(f->schema->rets[r].type)) sb_printf(&b, "%s%d;", n++ ? "|" : "", dt);
    const char *k = arena_strndup(a, b.p, b.n);
    sb_free(&b);
    return k;
}

static bool add(og_selection *s, const char *name, bool all_overloads, const char *key, const og_dtset *dtypes,
                const char *source) {
    og_sel_op *o = entry(s, name);
    o->include_all_overloads |= all_overloads;
    if (!key && !dtypes) o->all_dtypes = true;
    if (dtypes) o->dtypes |= *dtypes;
    if (key) push(&o->keys, &o->nkeys, &o->capkeys, arena_strndup(s->a, key, strlen(key)));
    const char *base = strrchr(source, '/');
    base = base ? base + 1 : source;
    push(&o->debug, &o->ndebug, &o->capdebug, arena_strndup(s->a, base, strlen(base)));
    return true;
}

bool og_sel_add_key(og_selection *s, const char *op, const char *key, const char *source) {
    add_source(s, source);
    return add(s, op, false, key, NULL, source);
}

bool og_sel_add_pte(og_selection *s, const og_pte *p, const char *source) {
    add_source(s, source);
    for (unsigned i = 0; i < p->ncalls; i++)
        if (!add(s, p->calls[i].op, false, p->calls[i].key, NULL, source)) return false;
    return true;
}

static bool want_bool(og_selection *s, const ynode *v, const char *what, bool *out) {
    if (v->kind != YNODE_SCALAR || v->type != YVAL_BOOL) {
        ERR_AT(s, v, "'%s' must be true or false, found %s", what, ynode_describe(v));
        return false;
    }
    *out = v->boolean;
    return true;
}

bool og_sel_load_yaml(og_selection *s, const ydoc *doc) {
    unsigned before = s->d->errors;
    const ynode *r = doc->root;
    if (!r) {
        diag_error(
            s->d, doc->file, 1, 1,
            "the selection is empty; expected selected_operators.yaml's keys (operators, et_kernel_metadata, ...)");
        return false;
    }
    if (r->kind != YNODE_MAP) {
        ERR_AT(s, r, "a selected_operators.yaml is a mapping, found %s", ynode_describe(r));
        return false;
    }
    add_source(s, doc->file);
    static const char *const known[] = {"include_all_operators",
                                        "include_all_non_op_selectives",
                                        "debug_info",
                                        "operators",
                                        "kernel_metadata",
                                        "et_kernel_metadata",
                                        "custom_classes",
                                        "build_features",
                                        NULL};
    const ynode *ops = NULL, *meta = NULL;
    for (size_t i = 0; i < r->n; i++) {
        const ynode *k = r->kids[2 * i], *v = r->kids[2 * i + 1];
        const char *ks = ynode_is_str(k) ? k->s : "";
        unsigned j = 0;
        while (known[j] && strcmp(known[j], ks)) j++;
        if (!known[j]) {
            ERR_AT(
                s, k,
                "unknown key '%s' in a selected_operators.yaml (expected one of: include_all_operators, include_all_non_op_selectives, debug_info, operators, kernel_metadata, "
                "et_kernel_metadata, custom_classes, build_features)",
                ks);
            continue;
        }
        if (!strcmp(ks, "include_all_operators")) {
            bool b;
            if (want_bool(s, v, ks, &b)) s->include_all_operators |= b;
        } else if (!strcmp(ks, "include_all_non_op_selectives")) {
            bool b;
            want_bool(s, v, ks, &b);
        } else if (!strcmp(ks, "operators")) {
            ops = v;
        } else if (!strcmp(ks, "et_kernel_metadata")) {
            meta = v;
        }
    }
    /* the ops this file gives kernel keys for: their dtypes are the keys' */
    strmap keyed;
    strmap_init(&keyed, 16);
    if (meta && !(meta->kind == YNODE_SCALAR && meta->type == YVAL_NULL)) {
        if (meta->kind != YNODE_MAP) {
            ERR_AT(s, meta, "'et_kernel_metadata' maps operator names to lists of kernel keys, found %s",
                   ynode_describe(meta));
        } else {
            for (size_t i = 0; i < meta->n; i++) {
                const ynode *k = meta->kids[2 * i], *v = meta->kids[2 * i + 1];
                if (!ynode_is_str(k)) continue;
                if (v->kind != YNODE_SEQ) {
                    ERR_AT(s, v, "the kernel keys of %s are a list, found %s", k->s, ynode_describe(v));
                    continue;
                }
                strmap_put(&keyed, k->s, (void *)1);
                for (size_t j = 0; j < v->n; j++) {
                    const ynode *key = v->kids[j];
                    const char *e = ynode_is_str(key) ? key_error(key->s) : "a kernel key is a string";
                    if (e) {
                        ERR_AT(s, key, "%s: '%s'", e, ynode_is_str(key) ? key->s : ynode_describe(key));
                        continue;
                    }
                    if (!add(s, k->s, false, key->s, NULL, doc->file)) return strmap_free(&keyed), false;
                }
            }
        }
    }
    if (ops && !(ops->kind == YNODE_SCALAR && ops->type == YVAL_NULL)) {
        if (ops->kind != YNODE_MAP) {
            ERR_AT(s, ops, "'operators' maps operator names to their flags, found %s", ynode_describe(ops));
        } else {
            for (size_t i = 0; i < ops->n; i++) {
                const ynode *k = ops->kids[2 * i], *v = ops->kids[2 * i + 1];
                if (!ynode_is_str(k) || !strstr(k->s, "::")) {
                    ERR_AT(s, k, "an operator is named 'ns::name' or 'ns::name.overload'");
                    continue;
                }
                bool all = true; /* include_all_overloads, like every flag, defaults to true */
                const ynode *dbg = NULL;
                if (v->kind == YNODE_MAP) {
                    for (size_t f = 0; f < v->n; f++) {
                        const ynode *fk = v->kids[2 * f], *fv = v->kids[2 * f + 1];
                        const char *fs = ynode_is_str(fk) ? fk->s : "";
                        bool b;
                        if (!strcmp(fs, "include_all_overloads"))
                            want_bool(s, fv, fs, &all);
                        else if (!strcmp(fs, "is_root_operator") || !strcmp(fs, "is_used_for_training"))
                            want_bool(s, fv, fs, &b);
                        else if (!strcmp(fs, "debug_info"))
                            dbg = fv;
                        else
                            ERR_AT(
                                s, fk,
                                "unknown key '%s' for an operator (expected is_root_operator, is_used_for_training, include_all_overloads, debug_info)",
                                fs);
                    }
                } else if (!(v->kind == YNODE_SCALAR && v->type == YVAL_NULL)) {
                    ERR_AT(s, v, "an operator's entry is a mapping of flags, found %s", ynode_describe(v));
                    continue;
                }
                /* without keys in this file, every dtype; where it was selected from:
                 * its debug_info (so a selection reads back as itself), else this file */
                og_dtset none = 0;
                const char *from = doc->file;
                for (size_t j = 0; dbg && dbg->kind == YNODE_SEQ && j < dbg->n; j++)
                    if (ynode_is_str(dbg->kids[j])) {
                        if (!add(s, k->s, all, NULL, strmap_get(&keyed, k->s) ? &none : NULL, dbg->kids[j]->s))
                            return strmap_free(&keyed), false;
                        from = NULL;
                    }
                if (from && !add(s, k->s, all, NULL, strmap_get(&keyed, k->s) ? &none : NULL, from))
                    return strmap_free(&keyed), false;
            }
        }
    }
    strmap_free(&keyed);
    return s->d->errors == before;
}

/* Index of a model op's kernel: its out= variant, or itself (out= ops, prims). */
static const og_func *kernel_func(const og_func *f) {
    if (f->kind == OG_KIND_OUT) return f;
    const og_func *o = og_func_out_variant(f);
    return o ? o : f;
}

/* Kernel op k with explicit dtypes: recorded as keys too, so the file written
 * says them in ExecuTorch's encoding. */
static bool add_dtypes(og_selection *s, const og_func *k, og_dtset dts, const char *source) {
    const char *name = arena_printf(s->a, "%s::%s", k->ns, k->name);
    for (int dt = 0; dt < 32; dt++)
        if (dts >> dt & 1 && !add(s, name, false, synth_key(s->a, k, dt), &dts, source)) return false;
    return true;
}

bool og_sel_add_list(og_selection *s, const og_model *m, const char *text, const char *source) {
    unsigned before = s->d->errors, items = 0; /* items: names seen */
    add_source(s, source);
    const char *p = text;
    for (;;) {
        while (*p == ',' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (!*p) break;
        if (*p == '#') { /* a comment, to the end of the line */
            while (*p && *p != '\n') p++;
            continue;
        }
        items++;
        const char *e = p;
        while (*e && *e != ',' && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r') e++;
        char *item = arena_strndup(s->a, p, (size_t)(e - p));
        p = e;
        /* "ns::name.overload" then an optional ":Dtype+Dtype" */
        char *sep = strstr(item, "::");
        if (!sep) {
            diag_error(s->d, source, 0, 0, "'%s' is not an operator name (ns::name or ns::name.overload)", item);
            continue;
        }
        char *colon = strchr(sep + 2, ':');
        og_dtset dts = 0;
        bool has_dt = colon != NULL;
        if (colon) {
            *colon = 0;
            for (char *d = colon + 1; *d;) {
                char *plus = strchr(d, '+');
                size_t dl = plus ? (size_t)(plus - d) : strlen(d);
                int dt = og_dtype_parse(d, dl);
                if (dt < 0) {
                    diag_error(s->d, source, 0, 0,
                               "unknown dtype '%.*s' for %s (expected names like Float, Long, Byte)", (int)dl, d, item);
                    has_dt = false;
                    break;
                }
                dts |= 1u << dt;
                d += dl + (plus ? 1 : 0);
            }
            if (!has_dt) continue;
        }
        *sep = 0;
        const char *ns = item, *name = sep + 2;
        char full[512];
        snprintf(full, sizeof full, "%s::%s", ns, name);
        const og_func *f = og_model_find(m, ns, name);
        if (!strchr(name, '.')) { /* a base name: every overload */
            bool any = false;
            for (unsigned i = 0; i < m->nfuncs && !any; i++)
                any = !strcmp(m->funcs[i]->ns, ns) && !strcmp(m->funcs[i]->base_name, name);
            if (!any) {
                diag_error(s->d, source, 0, 0, "unknown operator %s", full);
                continue;
            }
            if (!has_dt) {
                if (!add(s, full, true, NULL, NULL, source)) return false;
                continue;
            }
            for (unsigned i = 0; i < m->nfuncs; i++) /* dtypes go with each kernel op */
                if (!strcmp(m->funcs[i]->ns, ns) && !strcmp(m->funcs[i]->base_name, name)) {
                    const og_func *k = kernel_func(m->funcs[i]);
                    if (!add_dtypes(s, k, dts, source)) return false;
                }
            continue;
        }
        if (!f) {
            diag_error(s->d, source, 0, 0, "unknown operator %s", full);
            continue;
        }
        const og_func *k = kernel_func(f);
        if (has_dt ? !add_dtypes(s, k, dts, source)
                   : !add(s, arena_printf(s->a, "%s::%s", k->ns, k->name), false, NULL, NULL, source))
            return false;
    }
    bool commented = strchr(text, '#') != NULL; /* "# nothing": an empty list on purpose */
    if (!items && !commented)
        diag_error(s->d, source, 0, 0, "no operators in this list (a list of none says so in a # comment)");
    return s->d->errors == before;
}

/* The dtype of the first out argument in a key, with nout out arguments (the key
 * ends with the outs, then the returned values); -1 for "default" or none. */
int og_key_parse(const char *key, og_key_tensor *out, int max) {
    if (strncmp(key, "v1/", 3)) return -1;
    int n = 0;
    for (const char *p = key + 3; *p && n < max; n++) {
        char *end;
        out[n].dtype = (int)strtol(p, &end, 10);
        out[n].ndim = 0;
        for (p = *end == ';' ? end + 1 : end; isdigit((unsigned char)*p);) {
            long d = strtol(p, &end, 10);
            if (out[n].ndim < sizeof out[n].order) out[n].order[out[n].ndim++] = (unsigned char)d;
            p = *end == ',' ? end + 1 : end;
        }
        p = strchr(p, '|');
        if (!p) {
            n++;
            break;
        }
        p++;
    }
    return n;
}

static int key_out_dtype(const char *k, unsigned nout) {
    og_key_tensor ts[64];
    int n = og_key_parse(k, ts, 64);
    if (n <= 0) return -1;
    int at = n - 2 * (int)nout;
    return at >= 0 && nout ? ts[at].dtype : ts[0].dtype;
}

bool og_sel_selects(const og_selection *s, const og_func *f, og_dtset *dtypes) {
    *dtypes = 0;
    if (s->include_all_operators) return *dtypes = 0xffffffffu, true;
    char full[512], base[512];
    snprintf(full, sizeof full, "%s::%s", f->ns, f->name);
    snprintf(base, sizeof base, "%s::%s", f->ns, f->base_name);
    unsigned nout = f->schema->nout;
    bool hit = false;
    for (int pass = 0; pass < 2; pass++) {
        uintptr_t i = (uintptr_t)strmap_get(&s->by_name, pass ? base : full);
        if (!i || (pass && !strcmp(full, base))) continue;
        const og_sel_op *o = &s->ops[i - 1];
        if (pass && !o->include_all_overloads) continue;
        hit = true;
        if (o->all_dtypes) *dtypes = 0xffffffffu;
        *dtypes |= o->dtypes;
        for (unsigned k = 0; k < o->nkeys; k++) {
            int dt = key_out_dtype(o->keys[k], nout);
            if (dt < 0)
                *dtypes = 0xffffffffu; /* "default": the fallback kernel, every dtype */
            else
                *dtypes |= 1u << dt;
        }
    }
    return hit;
}

static void keep_with_out(const og_func *f, bool *keep) {
    const og_func *o = og_func_out_variant(f);
    keep[f->index] = true;
    if (o) keep[o->index] = true;
}

void og_sel_trim_model(const og_selection *s, og_model *m, const og_backend *b) {
    if (s->include_all_operators) return;
    bool *keep = og_xcalloc(m->nfuncs + 1, sizeof *keep);
    if (!keep) return;
    og_dtset dts;
    for (unsigned i = 0; i < m->nfuncs; i++) keep[i] = og_sel_selects(s, m->funcs[i], &dts);
    for (unsigned i = 0; i < m->nfuncs; i++) { /* functional and in-place forms of a kept out= op */
        const og_func *o = og_func_out_variant(m->funcs[i]);
        keep[i] |= o && keep[o->index];
    }
    for (unsigned k = 0; b && k < b->n; k++) {
        const og_backend_op *op = &b->ops[k];
        if (!keep[op->func->index] && !(op->out && keep[op->out->index])) continue;
        keep_with_out(op->func, keep);
        for (int j = 0; j < op->graph.nnodes; j++)
            if (op->nodes[j].func) keep_with_out(op->nodes[j].func, keep);
    }
    og_model_keep(m, keep);
    free(keep);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }
static int cmp_op(const void *a, const void *b) {
    return strcmp(((const og_sel_op *)a)->name, ((const og_sel_op *)b)->name);
}

void og_sel_write_yaml(const og_selection *s, strbuf *out) {
    og_sel_op *ops = og_xmalloc(sizeof *ops * (s->n + 1));
    if (!ops) return;
    if (s->n) memcpy(ops, s->ops, sizeof *ops * s->n);
    qsort(ops, s->n, sizeof *ops, cmp_op);
    sb_puts(out, "build_features: []\ncustom_classes: []\n");
    bool any_keys = false;
    for (unsigned i = 0; i < s->n; i++) any_keys |= ops[i].nkeys > 0;
    sb_puts(out, any_keys ? "et_kernel_metadata:\n" : "et_kernel_metadata: {}\n");
    for (unsigned i = 0; i < s->n; i++) {
        if (!ops[i].nkeys) continue;
        const char **keys = og_xmalloc(sizeof *keys * ops[i].nkeys);
        if (!keys) break;
        memcpy(keys, ops[i].keys, sizeof *keys * ops[i].nkeys);
        qsort(keys, ops[i].nkeys, sizeof *keys, cmp_str);
        sb_printf(out, "  %s:\n", ops[i].name);
        for (unsigned k = 0; k < ops[i].nkeys; k++) sb_printf(out, "  - %s\n", keys[k]);
        free(keys);
    }
    sb_printf(out, "include_all_non_op_selectives: false\ninclude_all_operators: %s\nkernel_metadata: {}\n",
              s->include_all_operators ? "true" : "false");
    sb_puts(out, s->n ? "operators:\n" : "operators: {}\n");
    for (unsigned i = 0; i < s->n; i++) {
        const char **dbg = og_xmalloc(sizeof *dbg * (ops[i].ndebug + 1));
        if (!dbg) break;
        memcpy(dbg, ops[i].debug, sizeof *dbg * ops[i].ndebug);
        qsort(dbg, ops[i].ndebug, sizeof *dbg, cmp_str);
        sb_printf(out, "  %s:\n    debug_info:\n", ops[i].name);
        for (unsigned k = 0; k < ops[i].ndebug; k++) sb_printf(out, "    - %s\n", dbg[k]);
        sb_printf(out, "    include_all_overloads: %s\n    is_root_operator: true\n    is_used_for_training: true\n",
                  ops[i].include_all_overloads ? "true" : "false");
        free(dbg);
    }
    free(ops);
}

bool og_sel_add_ops(og_selection *s, const og_model *m, const char *arg) {
    bool is_file = strchr(arg, '/') || access(arg, F_OK) == 0;
    if (!is_file) return og_sel_add_list(s, m, arg, "--ops");
    char *text;
    size_t n;
    return og_read_file(s->a, s->d, arg, &text, &n) && og_sel_add_list(s, m, text, arg);
}

bool og_sel_add_pte_file(og_selection *s, const char *path) {
    og_pte p = {0};
    bool ok = og_pte_read_file(s->a, path, &p, s->d) && og_sel_add_pte(s, &p, path);
    free(p.calls);
    return ok;
}

bool og_sel_add_yaml_file(og_selection *s, const char *path) {
    ydoc doc;
    return og_yaml_load_file(s->a, s->d, path, &doc) && og_sel_load_yaml(s, &doc);
}

bool og_sel_keys(const og_selection *s, const og_func *f, const char *const **keys, unsigned *n) {
    *keys = NULL, *n = 0;
    og_dtset dts;
    if (!og_sel_selects(s, f, &dts)) return false;
    if (s->include_all_operators) return true;
    char full[512];
    snprintf(full, sizeof full, "%s::%s", f->ns, f->name);
    uintptr_t i = (uintptr_t)strmap_get(&s->by_name, full);
    if (!i) return true; /* selected by its base name: every overload, every key */
    const og_sel_op *o = &s->ops[i - 1];
    if (o->all_dtypes) return true;
    *keys = o->keys, *n = o->nkeys;
    return true;
}
