/* The Backend dialect: backend ops declared in a backend-op yaml (see
 * yaml/backend_ops.yaml), each a schema in its namespace, the backend it belongs
 * to, and either a `pattern:` of core and custom ops in the graph text format
 * (its free %names are the op's arguments) or a `builtin:` for scalar prims.
 * The pattern is the op's CompositeImplicit kernel (its fallback) and what the
 * lowering library fuses and decomposes. */
#ifndef OG_BACKEND_H
#define OG_BACKEND_H
#include "model.h"
#include "opgen/graph.h"

/* Scalar prims computed by the runtime with Python's semantics. X(name, arity, result) */
/* clang-format off */
#define OG_BUILTINS(X)                                                                                 \
    X(add, 2, SymInt) X(sub, 2, SymInt) X(mul, 2, SymInt) X(floordiv, 2, SymInt) X(mod, 2, SymInt)     \
    X(neg, 1, SymInt) X(truediv, 2, float) X(eq, 2, bool) X(ne, 2, bool) X(lt, 2, bool) X(le, 2, bool) \
    X(gt, 2, bool) X(ge, 2, bool)
/* clang-format on */

typedef enum {
    OG_BUILTIN_NONE,
#define OG_BUILTIN_ENUM(n, a, r) OG_BUILTIN_##n,
    OG_BUILTINS(OG_BUILTIN_ENUM)
#undef OG_BUILTIN_ENUM
} og_builtin;

const char *og_builtin_name(og_builtin b);

/* One node of a pattern, bound to its operator's schema. */
typedef struct og_pnode {
    const opgen_gnode *node;
    const char *file; /* where it is written (file:line:col in the yaml) */
    unsigned line, col;
    const og_func *func;      /* the core or custom op it calls */
    const opgen_garg **slots; /* per schema argument: the argument given, or NULL (its default) */
} og_pnode;

typedef struct og_backend_op {
    const og_func *func; /* the backend op */
    const og_func *out;  /* its out= variant; NULL for a scalar prim */
    const char *backend; /* "quantized", "executorch_prims", ... */
    og_builtin builtin;  /* or OG_BUILTIN_NONE with a pattern */
    const ynode *entry;
    opgen_graph graph;   /* the pattern; its inputs are schema arguments */
    const char *pattern; /* the pattern in canonical text */
    og_pnode *nodes;     /* graph.nnodes */
    int *value_arg;      /* per graph value: the schema argument a free name stands for, or -1 */
    bool *ignored;       /* per schema argument: listed in `ignore:` */
} og_backend_op;

typedef struct og_backend {
    og_backend_op *ops; /* in file order (the order fusion tries them) */
    unsigned n, cap;
    opgen_arena arena; /* the parsed patterns */
} og_backend;

void og_backend_init(og_backend *b);
void og_backend_free(og_backend *b);
/* Pass 1 (before og_model_finish_native): declare the file's ops and their out= variants. */
void og_backend_declare(og_model *m, const ydoc *doc);
/* Pass 2 (after): read and check every entry's backend, pattern or builtin. */
bool og_backend_load(og_model *m, const ydoc *doc, og_backend *out);
/* The backend op record of f (the op or its out= variant), or NULL. */
const og_backend_op *og_backend_find(const og_backend *b, const og_func *f);
/* The type a pattern value carries: a free name's argument type, a node result's return type. */
const og_type *og_pattern_value_type(const og_backend_op *op, int value);
#endif
