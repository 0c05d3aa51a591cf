/* Vendor backends: `opgen skeleton` writes a compiling backend (a stub kernel per
 * op with a case per dtype, the kernel table, a runner, a meson project) and never
 * overwrites what the vendor changed; `opgen coverage` reads the kernels back and
 * tells implemented cases from stubs, and stubs opgen's own kernels cover. */
#ifndef OG_SKELETON_H
#define OG_SKELETON_H
#include "edge.h"
#include "kernels.h"
#include "select.h"
#include "model.h"
#include "strbuf.h"

typedef struct og_skel_kernel {
    const og_func *func;     /* the op the kernel computes (an out= variant, usually) */
    const char *symbol;      /* its C name */
    og_dtset dtypes;         /* the cases of its dtype switch */
    bool is_default;         /* arg_meta: null -- serves what the op's other kernels do not */
    const char *kernel_name; /* the yaml's, when the symbol differs from it by more than '::' */
} og_skel_kernel;

typedef struct og_skel {
    const char *backend; /* a C identifier */
    og_skel_kernel *kernels;
    unsigned n, cap;
} og_skel;

void og_skel_init(og_skel *k, const char *backend);
void og_skel_free(og_skel *k);
/* One kernel; `hint` narrows its cases to dtypes the source named (0xffffffff: a
 * default kernel, every dtype its dispatch argument allows less those the op's
 * other kernels serve). Kernels of one symbol share one function. */
bool og_skel_add(og_skel *k, const og_model *m, const og_edge *edge, const og_func *f, const char *symbol,
                 og_dtset hint);
/* Every kernel of a vendor's kernel yaml: its kernel names and arg_meta dtypes. */
bool og_skel_add_yaml_kernels(og_skel *k, const og_model *m, const og_edge *edge, const og_yaml_kernels *kernels);
/* A kernel per op: every core op (through its out= variant), or every kernel op
 * the selection keeps; each called BACKEND_[ns_]name_overload. */
bool og_skel_add_ops(og_skel *k, og_model *m, const og_edge *edge, const og_selection *sel);
/* Writes DIR: kernels/<kernel>.c, <backend>_kernels.h, <backend>_registry.c,
 * <backend>_main.c, kernels/meson.build, meson.build, README.md. Files the vendor
 * changed are kept; kernels no longer wanted are reported, never deleted. What
 * happened to each file goes to `report`. */
bool og_skel_write(const og_skel *k, const og_model *m, const char *dir, const char *version, strbuf *report, diag *d);

/* The op x dtype table of a backend folder: implemented, stub, or fallback (a stub
 * whose op and dtype opgen's own kernels serve); markdown or jsonl. */
typedef struct og_opgen_kernels {
    const og_model *m;
    const og_yaml_kernels *kernels;   /* opgen's kernel files */
    const struct og_backend *backend; /* backend ops' fallbacks, or NULL */
} og_opgen_kernels;
bool og_coverage(const char *dir, const og_opgen_kernels *opgen, bool jsonl, strbuf *out, diag *d);
#endif
