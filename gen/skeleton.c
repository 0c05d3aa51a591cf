/* realpath (a vendor yaml's path relative to the backend) is XSI */
#define _XOPEN_SOURCE 700
#include "skeleton.h"
#include "abi.h"
#include "backend.h"
#include "dtype.h"
#include "embedded.h"
#include "emit.h"
#include "write.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void og_skel_init(og_skel *k, const char *backend) {
    memset(k, 0, sizeof *k);
    k->backend = backend;
}

void og_skel_free(og_skel *k) { free(k->kernels); }

/* The argument a kernel's cases switch on: the first tensor input (or the first
 * element of a tensor list input), else a ScalarType argument; -1: none. */
static int switch_arg(const og_schema *s, bool *list) {
    *list = false;
    for (unsigned i = 0; i < s->nargs; i++) {
        if (s->args[i].cat == OG_ARG_OUT) continue;
        og_abi a = og_abi_of(s->args[i].type, og_annot_is_write(s->args[i].annot));
        if (!strcmp(a.kind, "TENSOR")) return (int)i;
        if (!strcmp(a.kind, "TENSOR_LIST") && s->args[i].type->kind == OG_TY_LIST &&
            s->args[i].type->elem->kind != OG_TY_OPTIONAL)
            return *list = true, (int)i;
    }
    for (unsigned i = 0; i < s->nargs; i++)
        if (!strcmp(og_abi_of(s->args[i].type, false).kind, "DTYPE")) return (int)i;
    return -1;
}

/* The dtypes the switch argument may carry: the Edge constraint of it (on the op,
 * or on its functional form), else every Edge dtype. */
static og_dtset switch_allowed(const og_model *m, const og_edge *edge, const og_func *f, int a) {
    (void)m;
    if (a < 0 || !edge) return OG_EDGE_DTYPES;
    const og_func *forms[2] = {f, f->group ? f->group->functional : NULL};
    for (int k = 0; k < 2; k++) {
        const og_edge_op *e = forms[k] ? og_edge_find(edge, forms[k]) : NULL;
        for (unsigned c = 0; e && c < e->nargs; c++)
            if (e->args[c].index >= 0 &&
                !strcmp(forms[k]->schema->args[e->args[c].index].name, f->schema->args[a].name))
                return e->args[c].allowed;
    }
    return OG_EDGE_DTYPES;
}

bool og_skel_add(og_skel *k, const og_model *m, const og_edge *edge, const og_func *f, const char *symbol,
                 og_dtset hint) {
    bool list;
    og_dtset allowed = switch_allowed(m, edge, f, switch_arg(f->schema, &list));
    og_dtset d = hint & allowed;
    for (unsigned i = 0; i < k->n; i++)
        if (k->kernels[i].func == f && !strcmp(k->kernels[i].symbol, symbol)) { /* seen: more dtypes */
            k->kernels[i].dtypes |= d ? d : allowed;
            k->kernels[i].is_default |= hint == 0xffffffffu;
            return true;
        }
    if (k->n == k->cap) {
        unsigned nc = k->cap ? 2 * k->cap : 32;
        k->kernels = og_xrealloc(k->kernels, sizeof *k->kernels * nc);
        k->cap = nc;
    }
    k->kernels[k->n++] = (og_skel_kernel){f, symbol, d ? d : allowed, hint == 0xffffffffu, NULL};
    return true;
}

bool og_skel_add_yaml_kernels(og_skel *k, const og_model *m, const og_edge *edge, const og_yaml_kernels *kernels) {
    bool ok = true;
    for (unsigned i = 0; ok && i < kernels->n; i++) {
        const og_yaml_kernel *kk = &kernels->items[i];
        ok = og_skel_add(k, m, edge, kk->func, kk->symbol, kk->is_default ? 0xffffffffu : kk->dtypes);
        if (ok && kk->overloads) k->kernels[k->n - 1].kernel_name = kk->kernel_name;
    }
    return ok;
}

/* The kernel op of f for a skeleton over ops: a core op's out= variant (or f, an
 * out= core op), or a selected kernel op; NULL when f gets no kernel. */
static const og_func *kernel_op(const og_model *m, const og_selection *sel, const og_func *f, og_dtset *dts) {
    *dts = 0xffffffffu;
    if (!sel) {
        if (!og_func_has_tag(f, m->tag_core)) return NULL;
        const og_func *o = og_func_out_variant(f);
        return o ? o : f->kind == OG_KIND_OUT ? f : NULL;
    }
    if (f->kind != OG_KIND_OUT && !(f->backend && !og_func_out_variant(f))) return NULL;
    return og_sel_selects(sel, f, dts) ? f : NULL;
}

bool og_skel_add_ops(og_skel *k, og_model *m, const og_edge *edge, const og_selection *sel) {
    bool ok = true;
    for (unsigned i = 0; ok && i < m->nfuncs; i++) {
        og_dtset dts;
        const og_func *kf = kernel_op(m, sel, m->funcs[i], &dts);
        if (!kf) continue;
        bool aten = !strcmp(kf->ns, "aten");
        char *sym = arena_printf(m->a, "%s_%s%s%s", k->backend, aten ? "" : kf->ns, aten ? "" : "_", kf->name);
        for (char *c = sym; *c; c++)
            if (*c == '.') *c = '_';
        ok = og_skel_add(k, m, edge, kf, sym, dts);
    }
    return ok;
}

/* ---- files the vendor owns: a checksum on the first line says whether they are
 * still as opgen wrote them ---- */

static uint64_t fnv(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The C files in dir, sorted (reports and notes come out in one order); -1: none. */
static int is_c_file(const struct dirent *e) {
    size_t l = strlen(e->d_name);
    return l > 2 && !strcmp(e->d_name + l - 2, ".c");
}
static int c_files(const char *dir, struct dirent ***names) { return scandir(dir, names, is_c_file, alphasort); }
static void free_names(struct dirent **names, int n) {
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
}

typedef struct writer {
    const char *dir;
    og_outputs outs;
    strbuf *report;
    const char *version;
    diag *d;
    bool in_the_way; /* something other than a file sits where one goes */
} writer;

/* Queues dir/name = head + body for the atomic commit. */
static void emit(writer *w, const char *name, const char *head, const strbuf *body) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", w->dir, name);
    const char *slash = strrchr(path, '/');
    *(char *)slash = 0;
    strbuf *dst = og_outputs_add(&w->outs, path, slash + 1);
    if (!dst) return;
    sb_puts(dst, head);
    sb_putn(dst, body->p ? body->p : "", body->n);
}

/* Is the file text as opgen wrote it: its first line's checksum that of the rest? */
static bool as_written(const strbuf *old) {
    const char *nl = old->p ? memchr(old->p, '\n', old->n) : NULL;
    const char *ck = old->p ? strstr(old->p, "checksum ") : NULL;
    if (!nl || !ck || ck > nl) return false;
    return strtoull(ck + 9, NULL, 16) == fnv(nl + 1, old->n - (size_t)(nl + 1 - old->p));
}

/* Writes dir/name = a header line (comment style: "c", "#", "md") carrying the
 * checksum of body, then body; keeps a file whose checksum no longer matches. A
 * kept glue file (the table, the build: what new ops change, unlike a kernel)
 * gets opgen's version beside it, name.opgen-new, for the vendor to merge. */
static void put(writer *w, const char *name, const char *style, const strbuf *body, bool glue) {
    char head[160];
    unsigned long long h = fnv(body->p ? body->p : "", body->n);
    if (!strcmp(style, "c"))
        snprintf(head, sizeof head, "/* opgen skeleton %s, checksum %016llx: yours once you change it */\n", w->version,
                 h);
    else if (!strcmp(style, "#"))
        snprintf(head, sizeof head, "# opgen skeleton %s, checksum %016llx: yours once you change it\n", w->version, h);
    else
        snprintf(head, sizeof head, "<!-- opgen skeleton %s, checksum %016llx: yours once you change it -->\n",
                 w->version, h);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", w->dir, name);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        diag_error(w->d, path, 0, 0, "in the way: not a regular file, where opgen skeleton writes one");
        w->in_the_way = true;
        return;
    }
    strbuf old;
    sb_init(&old);
    const char *what = "created";
    if (og_read_file_sb(&old, NULL, path)) {
        size_t hl = strlen(head);
        if (!as_written(&old))
            what = NULL;
        else if (old.n == hl + body->n && !memcmp(old.p, head, hl) &&
                 !memcmp(old.p + hl, body->p ? body->p : "", body->n))
            what = "unchanged";
        else
            what = "updated";
    }
    sb_free(&old);
    if (what) {
        emit(w, name, head, body);
        sb_printf(w->report, "%-9s %s\n", what, name);
    } else if (glue) {
        char alt[600];
        snprintf(alt, sizeof alt, "%s.opgen-new", name);
        emit(w, alt, head, body);
        sb_printf(w->report, "kept      %s (changed by you; opgen's version: %s)\n", name, alt);
    } else {
        sb_printf(w->report, "kept      %s (changed by you)\n", name);
    }
}

/* ---- the sources ---- */

static const char *pname(const og_kparam *p, char *buf, size_t cap) {
    snprintf(buf, cap, "%s%s", p->name, og_abi_reserved(p->name) ? "_" : "");
    return buf;
}

/* Every op a kernel symbol computes (one C function may serve several). */
static void ops_of(const og_skel *k, const char *symbol, strbuf *b) {
    bool first = true;
    for (unsigned i = 0; i < k->n; i++)
        if (!strcmp(k->kernels[i].symbol, symbol)) {
            sb_printf(b, "%s%s::%s", first ? "" : ", ", k->kernels[i].func->ns, k->kernels[i].func->name);
            first = false;
        }
}

/* The argument checks opgen can write, and "(void)x;" for the rest but the switch argument. */
static void kernel_checks(const og_schema *s, int sw, strbuf *b) {
    og_kparam ps[96];
    unsigned n = og_kernel_params(s, ps, 96);
    bool used[96] = {false};
    char nb[128];
    strbuf req;
    sb_init(&req);
    for (unsigned p = 0; p < n; p++) {
        const char *kind = ps[p].abi.kind;
        if (!strcmp(kind, "TENSOR") || !strcmp(kind, "SCALAR") || !strncmp(kind, "RET_", 4)) {
            sb_printf(&req, "%s!%s", req.n ? " || " : "", pname(&ps[p], nb, sizeof nb));
            used[p] = true;
        }
    }
    if (req.n)
        sb_printf(b, "    if (%s) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, \"%%s: an argument is missing\", ctx->op);\n",
                  sb_cstr(&req));
    sb_free(&req);
    for (unsigned p = 0; p < n && p < s->nargs; p++) {
        const og_type *t = s->args[p].type;
        const og_type *u = t->kind == OG_TY_OPTIONAL ? t->elem : t;
        if (!strcmp(ps[p].abi.kind, "TENSOR_LIST") && u->kind == OG_TY_LIST && u->elem->kind != OG_TY_OPTIONAL) {
            pname(&ps[p], nb, sizeof nb);
            sb_printf(
                b,
                "    for (size_t i = 0; i < %s.len; i++)\n        if (!%s.data[i]) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, \"%%s: %s[%%zu] is missing\", ctx->op, i);\n",
                nb, nb, s->args[p].name);
            used[p] = true;
        } else if (!strcmp(ps[p].abi.kind, "INT_LIST") && u->kind == OG_TY_LIST && u->size) {
            pname(&ps[p], nb, sizeof nb);
            sb_printf(
                b,
                "    if (%s.len > %u) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, \"%%s: %s takes at most %u values, got %%zu\", ctx->op, %s.len);\n",
                nb, u->size, s->args[p].name, u->size, nb);
            used[p] = true;
        }
    }
    if (sw >= 0) used[sw] = true;
    for (unsigned p = 0; p < n; p++)
        if (!used[p]) sb_printf(b, "    (void)%s; /* yours to use */\n", pname(&ps[p], nb, sizeof nb));
}

/* The stub cases: a switch over the dtypes of the switch argument. */
static void kernel_switch(const og_skel *k, const og_schema *s, int sw, bool list, og_dtset dts, strbuf *b) {
    og_kparam ps[96];
    og_kernel_params(s, ps, 96);
    char nb[128], sv[160];
    pname(&ps[sw], nb, sizeof nb);
    if (list) {
        sb_printf(b, "    if (!%s.len) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, \"%%s: %s is empty\", ctx->op);\n", nb,
                  s->args[sw].name);
        snprintf(sv, sizeof sv, "%s.data[0]->dtype", nb);
    } else if (!strcmp(ps[sw].abi.kind, "DTYPE")) {
        snprintf(sv, sizeof sv, "%s", nb);
    } else {
        snprintf(sv, sizeof sv, "%s->dtype", nb);
    }
    sb_printf(b, "    switch (%s) {\n", sv);
    for (int d = 0; d < 32; d++) {
        if (!(dts >> d & 1) || !og_dtype_name(d)) continue;
        sb_printf(b, "    case OPGEN_DTYPE_%s:\n        return opgen_not_implemented(ctx, OPGEN_DTYPE_%s);\n",
                  og_dtype_name(d), og_dtype_name(d));
    }
    sb_printf(
        b,
        "    default:\n        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, \"%%s: the %s backend has no case for %%s\", ctx->op, opgen_dtype_name(%s));\n    }\n",
        k->backend, sv);
}

/* kernels/SYMBOL.c of kernel i (templates/skeleton/kernel.c.in). */
static bool kernel_source(const og_skel *k, unsigned i, strbuf *out, diag *d) {
    const og_skel_kernel *kk = &k->kernels[i];
    const og_schema *s = kk->func->schema;
    og_dtset dts = 0;
    for (unsigned j = 0; j < k->n; j++)
        if (!strcmp(k->kernels[j].symbol, kk->symbol)) dts |= k->kernels[j].dtypes;
    strbuf ops, params, body;
    sb_init(&ops);
    sb_init(&params);
    sb_init(&body);
    ops_of(k, kk->symbol, &ops);
    og_print_kernel_params(&params, s);
    bool list;
    int sw = switch_arg(s, &list);
    kernel_checks(s, sw, &body);
    if (sw < 0) /* nothing to switch on: one stub for the whole kernel */
        sb_puts(&body,
                "    return OPGEN_FAIL(ctx, OPGEN_E_NOT_IMPLEMENTED, \"%s: not implemented (a stub)\", ctx->op);\n");
    else
        kernel_switch(k, s, sw, list, dts, &body);
    strbuf note;
    sb_init(&note);
    if (kk->kernel_name) /* a C++ overload made a distinct C name (og_kernels_check) */
        sb_printf(
            &note,
            " * The yaml's kernel_name %s also serves ops of another C signature: C++\n * overloads it, C cannot, so this signature's function is %s.\n",
            kk->kernel_name, kk->symbol);
    og_tvar vars[] = {OG_TVAR("backend", k->backend),  OG_TVAR("symbol", kk->symbol),
                      OG_TVAR("ops", sb_cstr(&ops)),   OG_TVAR("schema", kk->func->schema_text),
                      OG_TVAR("note", sb_cstr(&note)), OG_TVAR("params", sb_cstr(&params)),
                      OG_TVAR("body", sb_cstr(&body))};
    bool ok = og_render_to(out, NULL, "skeleton/kernel.c.in", vars, sizeof vars / sizeof *vars, NULL, d);
    sb_free(&ops);
    sb_free(&note);
    sb_free(&params);
    sb_free(&body);
    return ok;
}

static int cmp_kernel(const void *a, const void *b) {
    const og_skel_kernel *x = a, *y = b;
    int c = strcmp(x->symbol, y->symbol);
    return c ? c : (int)x->func->index - (int)y->func->index;
}

/* The table: per op, kernels for named dtypes before the op's default one, since the
 * runtime takes the first entry whose dtypes fit (ExecuTorch's arg_meta order). */
static int cmp_entry(const void *a, const void *b) {
    const og_skel_kernel *x = *(const og_skel_kernel *const *)a, *y = *(const og_skel_kernel *const *)b;
    int c = strcmp(x->func->ns, y->func->ns);
    if (!c) c = strcmp(x->func->name, y->func->name);
    if (!c) c = (int)x->is_default - (int)y->is_default;
    return c ? c : strcmp(x->symbol, y->symbol);
}

/* A file from a template, written or kept by put(). */
static void put_template(writer *w, const char *name, const char *tname, const char *style, const og_tvar *vars,
                         unsigned n, bool glue) {
    strbuf b;
    sb_init(&b);
    if (og_render_to(&b, NULL, tname, vars, n, NULL, w->d))
        put(w, name, style, &b, glue);
    else
        w->in_the_way = true;
    sb_free(&b);
}

/* kernels/: one file per C function; their names into list (kernels/meson.build). */
static void write_kernels(writer *w, const og_skel *k, strbuf *list) {
    strbuf b;
    sb_init(&b);
    for (unsigned i = 0; i < k->n; i++) {
        if (i && !strcmp(k->kernels[i - 1].symbol, k->kernels[i].symbol)) continue;
        sb_reset(&b);
        if (!kernel_source(k, i, &b, w->d)) w->in_the_way = true;
        char name[512];
        snprintf(name, sizeof name, "kernels/%s.c", k->kernels[i].symbol);
        put(w, name, "c", &b, false);
        sb_printf(list, "  '%s.c',\n", k->kernels[i].symbol);
    }
    sb_free(&b);
}

/* What is in kernels/ but no longer wanted: reported, never deleted. */
static void report_unwanted(writer *w, const og_skel *k, const char *kdir) {
    struct dirent **names = NULL;
    int nnames = c_files(kdir, &names);
    for (int fi = 0; fi < nnames; fi++) {
        const struct dirent *e = names[fi];
        size_t l = strlen(e->d_name);
        bool wanted = false;
        for (unsigned i = 0; i < k->n && !wanted; i++)
            wanted = strlen(k->kernels[i].symbol) == l - 2 && !strncmp(k->kernels[i].symbol, e->d_name, l - 2);
        if (!wanted)
            sb_printf(w->report, "unwanted  kernels/%s (no longer asked for: kept, not built, not registered)\n",
                      e->d_name);
    }
    if (nnames > 0) free_names(names, nnames);
}

/* BACKEND_kernels.h: the prototypes and the table's name. */
static void write_header(writer *w, const og_skel *k) {
    strbuf protos;
    sb_init(&protos);
    for (unsigned i = 0; i < k->n; i++) {
        if (i && !strcmp(k->kernels[i - 1].symbol, k->kernels[i].symbol)) continue;
        sb_printf(&protos, "opgen_status %s(opgen_ctx *ctx", k->kernels[i].symbol);
        og_print_kernel_params(&protos, k->kernels[i].func->schema);
        sb_puts(&protos, ");\n");
    }
    char name[512];
    snprintf(name, sizeof name, "%s_kernels.h", k->backend);
    og_tvar vars[] = {OG_TVAR("backend", k->backend), OG_TVAR("prototypes", sb_cstr(&protos))};
    put_template(w, name, "skeleton/kernels.h.in", "c", vars, 2, true);
    sb_free(&protos);
}

/* BACKEND_registry.c: the table in table order, one trampoline per C signature. */
static void write_registry(writer *w, const og_skel *k, const og_skel_kernel *const *table, arena *a) {
    strmap sigs;
    strmap_init(&sigs, 32);
    strbuf key, reg, tramps;
    sb_init(&key);
    sb_init(&reg);
    sb_init(&tramps);
    unsigned nt = 0;
    for (unsigned i = 0; i < k->n; i++) {
        const og_skel_kernel *kk = table[i];
        sb_reset(&key);
        og_kernel_signature(&key, kk->func->schema);
        uintptr_t t = (uintptr_t)strmap_get(&sigs, sb_cstr(&key));
        if (!t) {
            t = ++nt;
            strmap_put(&sigs, arena_strndup(a, key.p, key.n), (void *)t);
            og_emit_trampoline(&tramps, "call_", (unsigned)t, kk->func->schema);
        }
        sb_printf(&reg, "    {\"%s::%s\", {(void (*)(void))%s, call_%u, 0x%08xu, \"%s\"}},\n", kk->func->ns,
                  kk->func->name, kk->symbol, (unsigned)t, kk->dtypes, kk->symbol);
    }
    if (!k->n) sb_puts(&reg, "    {\"\", {NULL, NULL, 0u, NULL}},\n");
    char count[16], name[512];
    snprintf(count, sizeof count, "%u", k->n);
    snprintf(name, sizeof name, "%s_registry.c", k->backend);
    og_tvar vars[] = {OG_TVAR("backend", k->backend), OG_TVAR("trampolines", sb_cstr(&tramps)),
                      OG_TVAR("table", sb_cstr(&reg)), OG_TVAR("count", count)};
    put_template(w, name, "skeleton/registry.c.in", "c", vars, 4, true);
    strmap_free(&sigs);
    sb_free(&key);
    sb_free(&reg);
    sb_free(&tramps);
}

/* Whether opgen's embedded op set declares ns::name (its own yaml, searched as
 * written: "- func: ns::name(" or, for aten, "- func: name("). */
static bool embedded_declares(const og_func *f) {
    static const char *const files[] = {"yaml/native_functions.yaml", "yaml/custom_ops.yaml", "yaml/backend_ops.yaml"};
    char needle[300];
    bool aten = !strcmp(f->ns, "aten");
    snprintf(needle, sizeof needle, "- func: %s%s%s(", aten ? "" : f->ns, aten ? "" : "::", f->name);
    for (unsigned i = 0; i < sizeof files / sizeof *files; i++) {
        const og_embedded_file *e = og_embedded_find(files[i]);
        if (e && strstr(e->data, needle)) return true;
    }
    return false;
}

/* The kernel yaml files declaring ops opgen's own tables lack (a vendor's func:
 * ops), as a meson list of paths relative to dir; "" when there are none. */
static void vendor_ops_files(const og_skel *k, const char *dir, strbuf *out) {
    char base[PATH_MAX], file[PATH_MAX];
    if (!realpath(dir, base)) return;
    for (unsigned i = 0; i < k->n; i++) {
        const og_func *f = k->kernels[i].func;
        if (!f->custom || !f->func_node || embedded_declares(f) || !realpath(f->func_node->file, file)) continue;
        /* the path from dir to the file: up from dir to their common folder, then down */
        size_t common = 0, bl = strlen(base); /* their common folder: file[0, common) */
        if (!strncmp(base, file, bl) && file[bl] == '/')
            common = bl;
        else
            for (size_t j = 0; base[j] && base[j] == file[j]; j++)
                if (base[j] == '/') common = j;
        strbuf rel;
        sb_init(&rel);
        for (const char *c = base + common; *c; c++)
            if (*c == '/') sb_puts(&rel, "../");
        sb_puts(&rel, file + common + 1);
        char quoted[PATH_MAX + 64];
        snprintf(quoted, sizeof quoted, "meson.current_source_dir() / '%s'", sb_cstr(&rel));
        if (!out->p || !strstr(out->p, quoted)) sb_printf(out, "%s%s", out->n ? ", " : "", quoted);
        sb_free(&rel);
    }
}

/* The runner, the build files and the README. */
static void write_glue(writer *w, const og_skel *k, const strbuf *list, const char *dir) {
    strbuf vendor, runtime;
    sb_init(&vendor);
    sb_init(&runtime);
    vendor_ops_files(k, dir, &vendor);
    if (vendor.n) /* an installed opgen's tables lack the backend's own ops */
        sb_printf(
            &runtime,
            "# The backend's own ops (func: entries of its kernel yaml) must be in the op tables its\n"
            "# runtime is built over: opgen as a subproject (subprojects/opgen) builds one so.\n"
            "opgen_runtime = subproject('opgen', default_options : ['vendor_ops=' + ','.join([%s])]).get_variable('opgen_runtime_dep')",
            sb_cstr(&vendor));
    else
        sb_puts(&runtime, "opgen_runtime = dependency('opgen-runtime', fallback : ['opgen', 'opgen_runtime_dep'])");
    const char *how =
        vendor.n
            ? "Builds opgen as a subproject (subprojects/opgen) over the\n# backend's own ops: an installed opgen's op tables lack them."
            : "Builds against an installed opgen (pkg-config: opgen-runtime) or,\n# without one, against opgen as a subproject (subprojects/opgen).";
    const char *how_readme =
        vendor.n
            ? "The kernel yaml declares ops of the backend's own, which an installed opgen's op\ntables lack: the build takes opgen as a subproject in `subprojects/opgen` and\nbuilds its runtime over them (`-Dvendor_ops`)."
            : "The build finds opgen through pkg-config (`opgen-runtime`, installed by opgen's\n`meson install`) or, without one, as a subproject in `subprojects/opgen`.";
    og_tvar vars[] = {OG_TVAR("backend", k->backend), OG_TVAR("sources", list->p ? list->p : ""),
                      OG_TVAR("runtime", sb_cstr(&runtime)), OG_TVAR("how", how), OG_TVAR("how_readme", how_readme)};
    char name[512];
    snprintf(name, sizeof name, "%s_main.c", k->backend);
    put_template(w, name, "skeleton/main.c.in", "c", vars, 2, true);
    put_template(w, "kernels/meson.build", "skeleton/kernels_meson.build.in", "#", vars, 2, true);
    put_template(w, "meson.build", "skeleton/meson.build.in", "#", vars, 4, true);
    og_tvar rvars[] = {vars[0], vars[1], vars[4]};
    put_template(w, "README.md", "skeleton/README.md.in", "md", rvars, 3, false);
    sb_free(&vendor);
    sb_free(&runtime);
}

/* The kernels in file order, a default kernel's cases cut to what the op's other
 * kernels leave; table[] in table order. */
static og_skel_kernel *sorted_kernels(const og_skel *k, const og_skel_kernel ***table) {
    og_skel_kernel *ks = og_xmalloc(sizeof *ks * (k->n + 1));
    if (k->n) memcpy(ks, k->kernels, sizeof *ks * k->n);
    qsort(ks, k->n, sizeof *ks, cmp_kernel); /* file order: stable and readable */
    for (unsigned i = 0; i < k->n; i++) {
        og_skel_kernel *kk = &ks[i];
        og_dtset rest = kk->dtypes;
        for (unsigned j = 0; kk->is_default && j < k->n; j++)
            if (j != i && ks[j].func == kk->func && !ks[j].is_default) rest &= ~ks[j].dtypes;
        if (rest) kk->dtypes = rest;
    }
    *table = og_xmalloc(sizeof **table * (k->n + 1));
    for (unsigned i = 0; i < k->n; i++) (*table)[i] = &ks[i];
    qsort(*table, k->n, sizeof **table, cmp_entry);
    return ks;
}

bool og_skel_write(const og_skel *k0, const og_model *m, const char *dir, const char *version, strbuf *report,
                   diag *d) {
    char kdir[4096];
    snprintf(kdir, sizeof kdir, "%s/kernels", dir);
    if ((mkdir(dir, 0777) != 0 && errno != EEXIST) || (mkdir(kdir, 0777) != 0 && errno != EEXIST)) {
        diag_error(d, dir, 0, 0, "cannot create the backend folder: %s", strerror(errno));
        return false;
    }
    og_skel k = *k0;
    const og_skel_kernel **table;
    k.kernels = sorted_kernels(k0, &table);
    writer w = {dir, {0}, report, version, d, false};
    og_outputs_init(&w.outs);
    strbuf list;
    sb_init(&list);
    write_kernels(&w, &k, &list);
    report_unwanted(&w, &k, kdir);
    write_header(&w, &k);
    write_registry(&w, &k, table, m->a);
    write_glue(&w, &k, &list, dir);
    unsigned changed = 0;
    bool ok = !w.in_the_way && og_outputs_commit(&w.outs, d, &changed);
    og_outputs_free(&w.outs);
    sb_free(&list);
    free(k.kernels);
    free(table);
    return ok;
}

/* ---- coverage ---- */

typedef struct cell {
    const char *op, *kernel;
    int dtype; /* -1: the one stub of a kernel without a switch */
    int state; /* 0 implemented, 1 stub, 2 fallback */
} cell;

static const char *const states[] = {"implemented", "stub", "fallback"};

static bool push_cell(cell **cells, unsigned *n, unsigned *cap, cell c) {
    if (*n == *cap) {
        unsigned nc = *cap ? 2 * *cap : 64;
        cell *p = og_xrealloc(*cells, sizeof *p * nc);
        if (!p) return false;
        *cells = p;
        *cap = nc;
    }
    (*cells)[(*n)++] = c;
    return true;
}

/* Does opgen itself serve op (by name) for dtype? */
static bool opgen_serves(const og_opgen_kernels *o, const char *op, int dtype) {
    for (unsigned i = 0; o->kernels && i < o->kernels->n; i++) {
        const og_yaml_kernel *kk = &o->kernels->items[i];
        char q[512];
        snprintf(q, sizeof q, "%s::%s", kk->func->ns, kk->func->name);
        if (kk->is_default && !strcmp(q, op) && (dtype < 0 || kk->dtypes >> dtype & 1)) return true;
    }
    for (unsigned b = 0; o->backend && b < o->backend->n; b++) {
        const og_func *f = o->backend->ops[b].out ? o->backend->ops[b].out : o->backend->ops[b].func;
        char q[512];
        snprintf(q, sizeof q, "%s::%s", f->ns, f->name);
        if (!strcmp(q, op)) return true;
    }
    return false;
}

/* Collapses runs of white space: what a case says, whatever its layout. */
static void squeeze(const char *s, size_t n, strbuf *out) {
    bool sp = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            sp = out->n > 0;
            continue;
        }
        if (sp) sb_putc(out, ' ');
        sp = false;
        sb_putc(out, c);
    }
}

static int cmp_cell(const void *a, const void *b) {
    const cell *x = a, *y = b;
    int c = strcmp(x->op, y->op);
    if (c) return c;
    c = strcmp(x->kernel, y->kernel);
    return c ? c : x->dtype - y->dtype;
}

bool og_coverage(const char *dir, const og_opgen_kernels *o, bool jsonl, strbuf *out, diag *d) {
    unsigned errors0 = d->errors;
    char kdir[4096];
    snprintf(kdir, sizeof kdir, "%s/kernels", dir);
    struct dirent **names = NULL;
    int nnames = c_files(kdir, &names);
    if (nnames < 0) {
        diag_error(d, kdir, 0, 0, "cannot read the backend's kernels: %s", strerror(errno));
        return false;
    }
    cell *cells = NULL;
    unsigned n = 0, cap = 0;
    strbuf src, body;
    sb_init(&src);
    sb_init(&body);
    arena *a = o->m->a;
    /* the kernels the build has: those kernels/meson.build lists (files no longer
     * asked for stay in the folder, unbuilt) */
    strbuf built;
    sb_init(&built);
    char mb[8192];
    snprintf(mb, sizeof mb, "%s/meson.build", kdir);
    bool listed = og_read_file_sb(&built, NULL, mb);
    for (int fi = 0; fi < nnames; fi++) {
        const struct dirent *e = names[fi];
        char quoted[1024];
        snprintf(quoted, sizeof quoted, "'%s'", e->d_name);
        if (listed && !strstr(sb_cstr(&built), quoted)) {
            snprintf(mb, sizeof mb, "%s/%s", kdir, e->d_name);
            diag_note(d, mb, 0, 0, "not in kernels/meson.build (not built): left out");
            continue;
        }
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", kdir, e->d_name);
        sb_reset(&src);
        if (!og_read_file_sb(&src, d, path) || !src.p) continue;
        /* the ops, from the comment opgen wrote: "kernel SYMBOL for OP, OP:" */
        const char *h = strstr(src.p, " kernel ");
        const char *f = h ? strstr(h, " for ") : NULL, *eol = f ? strchr(f, '\n') : NULL, *colon = NULL;
        for (const char *c = f; eol && c < eol; c++) /* the op list ends at the line's last colon */
            if (*c == ':' && c[1] != ':' && c[-1] != ':') colon = c;
        const char *fn = h ? h + 8 : NULL;
        if (!f || !colon || !fn) {
            diag_error(d, path, 1, 1, "not a kernel opgen skeleton wrote (no \"kernel NAME for OP:\" comment)");
            continue;
        }
        const char *kernel = arena_strndup(a, fn, (size_t)(f - fn));
        char *ops = arena_strndup(a, f + 5, (size_t)(colon - f - 5));
        /* its cases: from each "case OPGEN_DTYPE_X:" to the next case or default */
        for (char *op = strtok(ops, ", "); op; op = strtok(NULL, ", ")) {
            const char *p = src.p;
            bool any_case = false;
            unsigned first = n;
            while ((p = strstr(p, "case OPGEN_DTYPE_"))) {
                const char *nm = p + 17, *ne = nm;
                while ((*ne >= 'A' && *ne <= 'Z') || (*ne >= 'a' && *ne <= 'z') || (*ne >= '0' && *ne <= '9') ||
                       *ne == '_')
                    ne++;
                int dt = og_dtype_parse(nm, (size_t)(ne - nm));
                const char *bs = ne + (*ne == ':');
                const char *nx = strstr(bs, "case OPGEN_DTYPE_"), *df = strstr(bs, "default:");
                const char *be = nx && (!df || nx < df) ? nx : df ? df : src.p + src.n;
                sb_reset(&body);
                squeeze(bs, (size_t)(be - bs), &body);
                char stub[128];
                snprintf(stub, sizeof stub, "return opgen_not_implemented(ctx, OPGEN_DTYPE_%.*s);", (int)(ne - nm), nm);
                /* an empty case falls through: it is what the next case is (-1 until known) */
                int st = !body.n ? -1 : strcmp(sb_cstr(&body), stub) ? 0 : opgen_serves(o, op, dt) ? 2 : 1;
                if (dt >= 0 && !push_cell(&cells, &n, &cap, (cell){op, kernel, dt, st})) break;
                any_case = true;
                p = be;
            }
            for (unsigned c = n; c-- > first;)
                if (cells[c].state < 0) cells[c].state = c + 1 < n ? cells[c + 1].state : 0;
            if (!any_case) { /* a kernel without a switch: one stub, or your code */
                int st =
                    !strstr(
                        src.p,
                        "return OPGEN_FAIL(ctx, OPGEN_E_NOT_IMPLEMENTED, \"%s: not implemented (a stub)\", ctx->op);")
                        ? 0
                    : opgen_serves(o, op, -1) ? 2
                                              : 1;
                if (!push_cell(&cells, &n, &cap, (cell){op, kernel, -1, st})) break;
            }
        }
    }
    free_names(names, nnames);
    sb_free(&src);
    sb_free(&built);
    sb_free(&body);
    if (n) qsort(cells, n, sizeof *cells, cmp_cell);
    unsigned count[3] = {0, 0, 0};
    for (unsigned i = 0; i < n; i++) count[cells[i].state]++;
    if (jsonl) {
        for (unsigned i = 0; i < n; i++)
            sb_printf(out, "{\"op\": \"%s\", \"kernel\": \"%s\", \"dtype\": \"%s\", \"state\": \"%s\"}\n", cells[i].op,
                      cells[i].kernel, cells[i].dtype < 0 ? "any" : og_dtype_name(cells[i].dtype),
                      states[cells[i].state]);
    } else {
        og_dtset cols = 0;
        bool any = false;
        for (unsigned i = 0; i < n; i++) {
            if (cells[i].dtype >= 0)
                cols |= 1u << cells[i].dtype;
            else
                any = true;
        }
        sb_puts(out, "| op | kernel |");
        if (any) sb_puts(out, " any |");
        for (int dt = 0; dt < 32; dt++)
            if (cols >> dt & 1) sb_printf(out, " %s |", og_dtype_name(dt));
        sb_puts(out, "\n|---|---|");
        if (any) sb_puts(out, "---|");
        for (int dt = 0; dt < 32; dt++)
            if (cols >> dt & 1) sb_puts(out, "---|");
        sb_putc(out, '\n');
        for (unsigned i = 0; i < n;) {
            unsigned j = i;
            while (j < n && !strcmp(cells[j].op, cells[i].op) && !strcmp(cells[j].kernel, cells[i].kernel)) j++;
            sb_printf(out, "| %s | %s |", cells[i].op, cells[i].kernel);
            if (any) {
                const char *s = "";
                for (unsigned c = i; c < j; c++)
                    if (cells[c].dtype < 0) s = states[cells[c].state];
                sb_printf(out, " %s |", s);
            }
            for (int dt = 0; dt < 32; dt++) {
                if (!(cols >> dt & 1)) continue;
                const char *s = "";
                for (unsigned c = i; c < j; c++)
                    if (cells[c].dtype == dt) s = states[cells[c].state];
                sb_printf(out, " %s |", s);
            }
            sb_putc(out, '\n');
            i = j;
        }
        sb_printf(out, "\n%u implemented, %u fallback (a stub opgen's own kernels cover), %u stub, of %u cases\n",
                  count[0], count[2], count[1], n);
    }
    free(cells);
    return d->errors == errors0; /* a file that is not a kernel: no table */
}
