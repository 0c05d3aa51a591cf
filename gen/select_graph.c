/* Selection from a graph program: opgen's runtime loads it, and its meta steps
 * give each call's dtypes. Compiled twice: into opgen with the runtime
 * (OPGEN_WITH_RUNTIME), and into opgen-boot, which writes the headers the runtime
 * is built from and so cannot have it. */
#include "select.h"
#ifdef OPGEN_WITH_RUNTIME
#include "opgen/exec.h"

typedef struct key_sink {
    og_selection *sel;
    const char *source;
    bool ok;
} key_sink;

static void take_key(void *ctx, const char *op, const char *key) {
    key_sink *k = ctx;
    k->ok &= og_sel_add_key(k->sel, op, key, k->source);
}

bool og_sel_add_graph_file(og_selection *s, const char *path) {
    char *text;
    size_t n;
    if (!og_read_file(s->a, s->d, path, &text, &n)) return false;
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_graph g;
    opgen_program *p;
    opgen_error err = {0};
    key_sink sink = {s, path, true};
    bool ok = !opgen_graph_parse(path, text, n, false, &a, &g, &err) && !opgen_program_load(&g, &a, &p, &err) &&
              !opgen_program_kernel_keys(p, take_key, &sink, &err);
    if (!ok) diag_error(s->d, err.file[0] ? err.file : path, err.line, err.col, "%s", err.msg);
    opgen_arena_release(&a);
    return ok && sink.ok;
}
#else
bool og_sel_add_graph_file(og_selection *s, const char *path) {
    diag_error(s->d, path, 0, 0, "this opgen was built without the runtime, which --graph needs to infer dtypes");
    return false;
}
#endif
