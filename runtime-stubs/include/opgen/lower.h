/* The lowering library: moves programs between the dialects with the backend ops'
 * patterns (the generated opgen_backend_ops table; nothing here reads yaml).
 *
 *   fuse       finds each pattern as a subgraph and replaces it by one call of its
 *              backend op: pattern arguments bind to any value or literal, the
 *              pattern's literals must be equal, values inside the match may have
 *              no users outside it; patterns are tried in table (file) order.
 *   decompose  inlines every backend op that has a pattern: the inverse.
 *   verify     checks a program against a dialect: aten (core and custom ops only),
 *              edge (and every call's dtypes satisfy an Edge constraint row, with
 *              the dtypes that flow through the program), backend (backend ops too).
 *
 * Results live in the arena; the input graph is not changed. */
#ifndef OPGEN_LOWER_H
#define OPGEN_LOWER_H
#include "opgen/exec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum opgen_dialect { OPGEN_DIALECT_ATEN, OPGEN_DIALECT_EDGE, OPGEN_DIALECT_BACKEND } opgen_dialect;

/* backend: fuse only that backend's ops ("quantized"), or all when NULL. *nfused
 * (may be NULL) receives the number of replacements. */
opgen_status opgen_fuse(const opgen_graph *in, const char *backend, opgen_arena *a, opgen_graph *out, int *nfused,
                        opgen_error *err);
opgen_status opgen_decompose(const opgen_graph *in, opgen_arena *a, opgen_graph *out, int *ninlined, opgen_error *err);
/* OPGEN_OK when valid; otherwise the error names the node, its line and the reason. */
opgen_status opgen_verify(const opgen_graph *g, opgen_dialect d, opgen_arena *a, opgen_error *err);
/* The same with backends' kernels (a vendor runner's): a backend program may call
 * a vendor's ops, which only its kernels serve. */
opgen_status opgen_verify_with(const opgen_graph *g, opgen_dialect d, const opgen_load_options *opt, opgen_arena *a,
                               opgen_error *err);
/* "aten", "edge", "backend" -> the dialect, or -1. */
int opgen_dialect_parse(const char *name);

#ifdef __cplusplus
}
#endif
#endif
