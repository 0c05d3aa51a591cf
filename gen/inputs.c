#include "inputs.h"
#include "embedded.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void og_session_init(og_session *s, FILE *errors) {
    memset(s, 0, sizeof *s);
    arena_init(&s->a);
    diag_init(&s->d, errors);
    og_model_init(&s->m, &s->a, &s->d);
    og_backend_init(&s->backend);
}

void og_session_free(og_session *s) {
    og_yaml_kernels_free(&s->kernels);
    og_backend_free(&s->backend);
    og_edge_free(&s->edge);
    og_model_free(&s->m);
    arena_free(&s->a);
    free(s->tags_path);
}

static bool load(og_session *s, const og_inputs *in, const char *path, const char *embedded, ydoc *doc) {
    if (path && in->reads) og_outputs_input(in->reads, path);
    if (path) return yaml_load_file(&s->a, &s->d, path, doc);
    if (!embedded) return false;
    for (const og_embedded_file *e = og_embedded_files; e->name; e++)
        if (!strcmp(e->name, embedded)) return yaml_load_buffer(&s->a, &s->d, e->name, e->data, e->len, doc);
    diag_plain(&s->d, "no embedded %s in this build", embedded);
    return false;
}

bool og_session_load(og_session *s, const og_inputs *in) {
    const char *tags = in->tags;
    if (!tags && in->native_functions) {
        /* torchgen keeps tags.yaml beside native_functions.yaml */
        const char *slash = strrchr(in->native_functions, '/');
        size_t dl = slash ? (size_t)(slash - in->native_functions + 1) : 0;
        s->tags_path = malloc(dl + sizeof "tags.yaml");
        if (!s->tags_path) return false;
        memcpy(s->tags_path, in->native_functions, dl);
        memcpy(s->tags_path + dl, "tags.yaml", sizeof "tags.yaml");
        if (access(s->tags_path, R_OK) != 0) {
            diag_plain(&s->d, "no --tags given and no tags.yaml beside %s", in->native_functions);
            return false;
        }
        tags = s->tags_path;
    }
    s->m.dialect = in->torchgen;
    if (!load(s, in, tags, "yaml/tags.yaml", &s->tags)) return false;
    if (!og_model_load_tags(&s->m, &s->tags)) return false;
    /* streamed: each entry is modeled as soon as it is read */
    og_model_begin_native(&s->m);
    bool ok;
    if (in->native_functions) {
        if (in->reads) og_outputs_input(in->reads, in->native_functions);
        ok = yaml_stream_file(&s->a, &s->d, in->native_functions, &s->nf, og_model_native_entry, &s->m);
    } else {
        const og_embedded_file *e = og_embedded_files;
        while (e->name && strcmp(e->name, "yaml/native_functions.yaml")) e++;
        if (!e->name) {
            diag_plain(&s->d, "no embedded yaml/native_functions.yaml in this build");
            return false;
        }
        ok = yaml_stream_buffer(&s->a, &s->d, e->name, e->data, e->len, &s->nf, og_model_native_entry, &s->m);
    }
    if (!ok) return false;
    /* kernel files: their func: entries (custom ops) join the model before grouping.
     * The embedded op set includes the custom ops of yaml/custom_ops.yaml: with the
     * user's own kernel files they are still declared (the embedded edge.yaml
     * constrains them) but their kernels are opgen's, not the user's: left out. */
    static const char *const embedded_kernels[] = {"yaml/kernels.yaml", "yaml/custom_ops.yaml"};
    bool embedded = !in->nkernels && !in->native_functions;
    if (!embedded && !in->native_functions) {
        if (!load(s, in, NULL, "yaml/custom_ops.yaml", &s->custom_ops_doc)) return false;
        og_kernels_declare(&s->m, &s->custom_ops_doc);
    }
    unsigned nk = embedded ? 2 : in->nkernels;
    for (unsigned i = 0; i < nk && i < 16; i++) {
        if (!load(s, in, embedded ? NULL : in->kernels[i], embedded ? embedded_kernels[i] : NULL, &s->kernel_docs[i])) return false;
        s->nkernel_docs++;
        og_kernels_declare(&s->m, &s->kernel_docs[i]);
    }
    /* backend ops (and their out= variants) join the model before grouping too */
    bool embedded_backend = !in->nbackend_ops && !in->native_functions;
    unsigned nb = embedded_backend ? 1 : in->nbackend_ops;
    for (unsigned i = 0; i < nb && i < 16; i++) {
        if (!load(s, in, embedded_backend ? NULL : in->backend_ops[i], embedded_backend ? "yaml/backend_ops.yaml" : NULL, &s->backend_docs[i])) return false;
        s->nbackend_docs++;
        og_backend_declare(&s->m, &s->backend_docs[i]);
    }
    if (!og_model_finish_native(&s->m, &s->nf)) return false;
    /* edge constraints: given, or embedded along with an embedded op set */
    const char *edge = in->edge;
    if (edge || (!in->native_functions && in->want_edge)) {
        if (!load(s, in, edge, "yaml/edge.yaml", &s->edge_doc)) return false;
        s->has_edge = og_edge_load(&s->m, &s->edge_doc, &s->edge);
        if (!s->has_edge) return false;
    }
    bool ok2 = true;
    for (unsigned i = 0; i < s->nkernel_docs; i++) ok2 &= og_kernels_load(&s->m, s->has_edge ? &s->edge : NULL, &s->kernel_docs[i], &s->kernels);
    for (unsigned i = 0; i < s->nbackend_docs; i++) ok2 &= og_backend_load(&s->m, &s->backend_docs[i], &s->backend);
    return ok2 && og_kernels_check(&s->m, &s->kernels, &s->d);
}
