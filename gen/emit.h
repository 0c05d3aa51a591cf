/* Emitters: one per output kind. */
#ifndef OG_EMIT_H
#define OG_EMIT_H
#include "backend.h"
#include "edge.h"
#include "embedded.h"
#include "kernels.h"
#include "select.h"
#include "tmpl.h"
#include "write.h"
#include "model.h"
#include "strbuf.h"

/* `opgen list --format jsonl`: one object per function, the fields of torchgen-oracle.jsonl. */
void og_emit_list_jsonl(strbuf *b, const og_model *m, const og_func *f);
/* `opgen list --format text`: "ns::schema  [tags]". */
void og_emit_list_text(strbuf *b, const og_model *m, const og_func *f);
/* `opgen dtypes --format jsonl`: {"allowed": {arg: [dtypes]}, "op": ..., "rows": N}, keys sorted. */
void og_emit_dtypes_jsonl(strbuf *b, const og_edge_op *op);
void og_emit_dtypes_text(strbuf *b, const og_edge_op *op);
/* `opgen generate`: opgen_dtypes.h, opgen_ops.h and opgen_kernels.h into outdir,
 * from templates in tdir (NULL: the embedded templates/). */
bool og_emit_c_headers(og_outputs *outs, const char *outdir, const char *tdir, const og_model *m, const og_edge *edge, const char *generated_by, diag *d);
/* opgen_registry.h: the kernel table of the default kernels in `kernels`, and of
 * the backend ops' fallbacks (backend may be NULL). */
bool og_emit_registry(og_outputs *outs, const char *outdir, const char *tdir, const og_model *m, const og_yaml_kernels *kernels, const og_backend *backend, const og_selection *sel,
                      const char *generated_by, diag *d);
/* Trampolines: the key of a kernel's C signature (kernels of one key share one),
 * and the trampoline PREFIX<t> that unboxes a[] and calls a kernel of schema s. */
void og_kernel_signature(strbuf *b, const og_schema *s);
void og_emit_trampoline(strbuf *b, const char *prefix, unsigned t, const og_schema *s);
/* "opgen_fallback_quantized_decomposed_add_out": the C name of f's fallback. */
const char *og_fallback_symbol(arena *a, const og_func *f);
/* opgen_backend.h: the backend ops' pattern table and their fallback kernels. */
bool og_emit_backend(og_outputs *outs, const char *outdir, const char *tdir, const og_model *m, const og_yaml_kernels *kernels, const og_backend *backend, const char *generated_by,
                     diag *d);
/* Renders templates/NAME.in (from tdir, or the embedded copy) into outdir/NAME. */
bool og_render(og_outputs *outs, const char *outdir, const char *tdir, const char *name, const og_tvar *vars, unsigned nvars, diag *d);
#endif
