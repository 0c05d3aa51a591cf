/* The inputs a command names, or the embedded defaults, loaded into a model
 * (inputs.h): the pipeline every subcommand starts with. */
#include "inputs.h"
#include "embedded.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void og_session_init(og_session *s, FILE *errors) {
    memset(s, 0, sizeof *s);
    if (!arena_init_reserved(&s->a, &s->map, &s->maplen)) arena_init(&s->a);
    diag_init(&s->d, errors);
    og_model_init(&s->m, &s->a, &s->d);
    og_backend_init(&s->backend);
}

void og_session_free(og_session *s) {
    og_yaml_kernels_free(&s->kernels);
    og_backend_free(&s->backend);
    og_edge_free(&s->edge);
    og_model_free(&s->m);
    arena_free_reserved(&s->a, s->map, s->maplen);
}

const og_embedded_file *og_embedded_find(const char *name) {
    for (const og_embedded_file *e = og_embedded_files; e->name; e++)
        if (!strcmp(e->name, name)) return e;
    return NULL;
}

/* A file given (path) or embedded, whole into doc, or with item set streamed to it. */
static bool stream(og_session *s, const og_inputs *in, const char *path, const char *embedded, ydoc *doc,
                   ynode_item_fn item, void *ctx) {
    if (path && in->reads) og_outputs_input(in->reads, path);
    if (path) return og_yaml_stream_file(&s->a, &s->d, path, doc, item, ctx);
    if (!embedded) return false;
    const og_embedded_file *e = og_embedded_find(embedded);
    if (e) return og_yaml_stream_buffer(&s->a, &s->d, e->name, e->data, e->len, doc, item, ctx);
    diag_plain(&s->d, "no embedded %s in this build", embedded);
    return false;
}

static bool load(og_session *s, const og_inputs *in, const char *path, const char *embedded, ydoc *doc) {
    return stream(s, in, path, embedded, doc, NULL, NULL);
}

/* tags.yaml: given, or beside native_functions.yaml (as torchgen keeps it), or embedded. */
static const char *tags_path(og_session *s, const og_inputs *in) {
    if (in->tags || !in->native_functions) return in->tags;
    const char *slash = strrchr(in->native_functions, '/');
    int dl = slash ? (int)(slash - in->native_functions + 1) : 0;
    char *p = arena_printf(&s->a, "%.*stags.yaml", dl, in->native_functions);
    if (access(p, F_OK) != 0) {
        diag_plain(&s->d, "no --tags given and no tags.yaml beside %s", in->native_functions);
        return NULL;
    }
    return p;
}

/* Kernel files: their func: entries (custom ops) join the model before grouping.
 * The embedded op set includes the custom ops of yaml/custom_ops.yaml: with the
 * user's own kernel files they are still declared (the embedded edge.yaml
 * constrains them) but their kernels are opgen's, not the user's: left out. */
static bool declare_kernels(og_session *s, const og_inputs *in) {
    static const char *const embedded_kernels[] = {"yaml/kernels.yaml", "yaml/custom_ops.yaml"};
    bool embedded = !in->nkernels && !in->native_functions;
    if (!embedded && !in->native_functions) {
        if (!load(s, in, NULL, "yaml/custom_ops.yaml", &s->custom_ops_doc)) return false;
        og_kernels_declare(&s->m, &s->custom_ops_doc);
    }
    unsigned nk = embedded ? 2 : in->nkernels;
    s->kernel_docs = ARENA_ARRAY(&s->a, ydoc, nk + 1);
    for (unsigned i = 0; i < nk; i++) {
        if (!load(s, in, embedded ? NULL : in->kernels[i], embedded ? embedded_kernels[i] : NULL, &s->kernel_docs[i]))
            return false;
        s->nkernel_docs++;
        og_kernels_declare(&s->m, &s->kernel_docs[i]);
    }
    return true;
}

/* Whether a func: entry declares an op the model has already ("ns::name(...").
 * An ExecuTorch kernel yaml declares ops opgen has too (quantized_decomposed's,
 * dim_order_ops'): in a vendor's build those stay opgen's. */
static bool declared(const og_model *m, const ynode *entry) {
    const ynode *fn = entry->kind == YNODE_MAP ? ymap_get(entry, "func") : NULL;
    const char *s = fn && ynode_is_str(fn) ? fn->s : NULL, *lp = s ? strchr(s, '(') : NULL,
               *sep = s ? strstr(s, "::") : NULL;
    if (!lp) return false;
    char ns[128] = "aten", name[256];
    if (sep && sep < lp && (size_t)(sep - s) < sizeof ns)
        snprintf(ns, sizeof ns, "%.*s", (int)(sep - s), s), s = sep + 2;
    snprintf(name, sizeof name, "%.*s", (int)(lp - s), s);
    return og_model_find(m, ns, name) != NULL;
}

/* A vendor's ops: declared (schemas, ids) like custom ops, after opgen's own,
 * their kernels not loaded: the vendor's own table (opgen skeleton's) has them. */
static bool declare_vendor_ops(og_session *s, const og_inputs *in) {
    s->vendor_docs = ARENA_ARRAY(&s->a, ydoc, in->nvendor_ops + 1);
    for (unsigned i = 0; i < in->nvendor_ops; i++) {
        if (!load(s, in, in->vendor_ops[i], NULL, &s->vendor_docs[i])) return false;
        s->nvendor_ops++;
        const ynode *r = s->vendor_docs[i].root;
        for (size_t k = 0; r && r->kind == YNODE_SEQ && k < r->n; k++)
            if (!declared(&s->m, r->kids[k])) og_model_kernel_yaml_entry(&s->m, r->kids[k]);
    }
    return true;
}

/* Backend ops (and their out= variants) join the model before grouping too: the
 * embedded ones with the embedded op set (its kernels serve some of them), then
 * the files given. */
static bool declare_backend_ops(og_session *s, const og_inputs *in) {
    bool embedded = !in->native_functions;
    unsigned nb = (embedded ? 1 : 0) + in->nbackend_ops;
    s->backend_docs = ARENA_ARRAY(&s->a, ydoc, nb + 1);
    for (unsigned i = 0; i < nb; i++) {
        bool e = embedded && i == 0;
        if (!load(s, in, e ? NULL : in->backend_ops[i - embedded], e ? "yaml/backend_ops.yaml" : NULL,
                  &s->backend_docs[i]))
            return false;
        s->nbackend_docs++;
        og_backend_declare(&s->m, &s->backend_docs[i]);
    }
    return true;
}

/* The edge constraints, streamed (each entry loaded as soon as it is read). */
static bool load_edge(og_session *s, const og_inputs *in) {
    og_edge_begin(&s->m, &s->edge);
    bool ok = stream(s, in, in->edge, "yaml/edge.yaml", &s->edge_doc, og_edge_entry, &s->edge);
    s->has_edge = ok && og_edge_finish(&s->edge, &s->edge_doc);
    return s->has_edge;
}

bool og_session_load(og_session *s, const og_inputs *in) {
    /* native_functions first: a missing one is blamed, not the tags.yaml beside it */
    char *nf_text = NULL;
    size_t nf_len = 0;
    if (in->native_functions) {
        if (in->reads) og_outputs_input(in->reads, in->native_functions);
        if (!og_read_file(&s->a, &s->d, in->native_functions, &nf_text, &nf_len)) return false;
    } else {
        const og_embedded_file *e = og_embedded_find("yaml/native_functions.yaml");
        if (!e) return diag_plain(&s->d, "no embedded yaml/native_functions.yaml in this build"), false;
        nf_text = (char *)e->data, nf_len = e->len;
    }
    const char *tags = tags_path(s, in);
    if (in->native_functions && !in->tags && !tags) return false;
    s->m.dialect = in->torchgen;
    if (!load(s, in, tags, "yaml/tags.yaml", &s->tags)) return false;
    if (!og_model_load_tags(&s->m, &s->tags)) return false;
    /* streamed: each entry is modeled as soon as it is read */
    og_model_begin_native(&s->m);
    const char *nf_name = in->native_functions ? in->native_functions : "yaml/native_functions.yaml";
    if (!og_yaml_stream_buffer(&s->a, &s->d, nf_name, nf_text, nf_len, &s->nf, og_model_native_entry, &s->m))
        return false;
    /* edge constraints: given, or embedded along with an embedded op set */
    bool want_edge = in->edge || (!in->native_functions && in->want_edge);
    bool ok = declare_kernels(s, in) && declare_backend_ops(s, in) && declare_vendor_ops(s, in) &&
              og_model_finish_native(&s->m, &s->nf);
    if (ok && want_edge) ok = load_edge(s, in);
    if (!ok) return false;
    for (unsigned i = 0; i < s->nkernel_docs; i++)
        ok &= og_kernels_load(&s->m, s->has_edge ? &s->edge : NULL, &s->kernel_docs[i], &s->kernels);
    for (unsigned i = 0; i < s->nbackend_docs; i++) ok &= og_backend_load(&s->m, &s->backend_docs[i], &s->backend);
    for (unsigned i = 0; i < s->nvendor_ops; i++) { /* checked as any kernel yaml; the kernels stay the vendor's */
        og_yaml_kernels vendor = {0};
        ok &= og_kernels_load_vendor(&s->m, s->has_edge ? &s->edge : NULL, &s->vendor_docs[i], &vendor);
        og_yaml_kernels_free(&vendor);
    }
    return ok && og_kernels_check(&s->m, &s->kernels, &s->d);
}
