/* Edge dialect dtype constraints (ExecuTorch edge.yaml), bound to the schemas of
 * the model: per op, the constrained arguments, the type aliases, and the rows. */
#ifndef OG_EDGE_H
#define OG_EDGE_H
#include "dtype.h"
#include "model.h"

typedef struct og_edge_arg {
    const char *name; /* schema argument name, or "__ret_N" */
    int index;        /* >= 0: schema argument index; < 0: return -index-1 */
    og_dtset allowed; /* union over the rows of the sets its aliases stand for */
} og_edge_arg;

typedef struct og_edge_op {
    const char *op; /* as written: "aten::add.Tensor" */
    const og_func *func;
    og_edge_arg *args; /* the arguments named in the first row, in that order */
    unsigned nargs;
    og_dtset *aliases; /* T0, T1, ... in file order */
    const char **alias_names;
    unsigned naliases;
    unsigned char *rows; /* nrows x nargs alias indices */
    unsigned nrows;
} og_edge_op;

typedef struct og_edge {
    og_edge_op *ops; /* file order */
    unsigned nops;
    const og_edge_op **by_func; /* by og_func.index: found without a string */
    unsigned nfuncs;
    /* while loading */
    og_model *m;
    og_edge_op **loaded;
    unsigned capops, errors_before;
} og_edge;

/* Loads edge.yaml against a loaded model; errors at file:line:col. */
bool og_edge_load(og_model *m, const ydoc *doc, og_edge *out);
/* The same for a streamed document: begin, one call per entry (a ynode_item_fn:
 * keeps copies, never the nodes), then finish with the document. */
void og_edge_begin(og_model *m, og_edge *out);
void og_edge_entry(void *edge, const ynode *entry);
bool og_edge_finish(og_edge *out, const ydoc *doc);
void og_edge_free(og_edge *e);
/* After og_model_keep renumbered m's ops: og_edge_find by the new ids. */
void og_edge_reindex(og_edge *e, const og_model *m);
/* The constraints of f, or NULL when edge.yaml does not name it. */
const og_edge_op *og_edge_find(const og_edge *e, const og_func *f);

/* Call validation by ExecuTorch's rule: some single row accepts every given
 * argument, and arguments sharing an alias in that row have one dtype.
 * dtypes[i] is the dtype of op->args[i], or -1 when the call does not say.
 * Returns the matching row (0-based), or -1 with the reason in why. */
int og_edge_check_call(const og_edge_op *op, const int *dtypes, strbuf *why);
/* `opgen dtypes --op OP ARG=DTYPE...`: one call written as text ("aten::add.Tensor",
 * {"self=Float", ...}). Returns OG_CALL_VALID with the verdict in out,
 * OG_CALL_INVALID with the reason, or OG_CALL_USAGE when the op, an argument or a
 * dtype is unknown (the message in out). */
enum { OG_CALL_VALID, OG_CALL_INVALID, OG_CALL_USAGE };
int og_edge_check_call_text(const og_model *m, const og_edge *e, const char *op, const char *const *pairs,
                            unsigned npairs, strbuf *out);
#endif
