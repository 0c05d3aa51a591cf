/* The opgen graph text format (programs, lowering inputs and outputs, backend-op
 * patterns): parse with file:line:col errors, print canonically, compare.
 *
 *   graph(%x: f32[2, 3], %n: int):
 *     %y = aten::add.Tensor(%x, %x, alpha=2)
 *     %a, %b = aten::max.dim(%y, 1)
 *     return (%a, %b)
 */
#ifndef OPGEN_GRAPH_H
#define OPGEN_GRAPH_H
#include "opgen/rt.h"

#ifdef __cplusplus
extern "C" {
#endif

enum opgen_gvalue_kind {
    OPGEN_GV_TENSOR, /* a tensor input: dtype and sizes known */
    OPGEN_GV_INT,    /* a scalar input */
    OPGEN_GV_FLOAT,
    OPGEN_GV_BOOL,
    OPGEN_GV_RESULT, /* a node result: known once the node is bound to its schema */
    OPGEN_GV_FREE,   /* a pattern's free name: an argument of the backend op */
    OPGEN_GV_OTHER   /* a value of another kind (None, a string, a list): in .pte methods */
};

typedef struct opgen_gvalue {
    const char *name; /* without the % */
    int kind;         /* enum opgen_gvalue_kind */
    opgen_dtype dtype;
    int32_t dim;
    int64_t sizes[OPGEN_MAX_DIM];
    int producer; /* node index, or -1 */
    unsigned line, col;
} opgen_gvalue;

enum opgen_garg_kind {
    OPGEN_GA_VALUE, /* %name */
    OPGEN_GA_INT,
    OPGEN_GA_FLOAT,
    OPGEN_GA_BOOL,
    OPGEN_GA_NONE,
    OPGEN_GA_STR,
    OPGEN_GA_DTYPE,  /* torch.float32 */
    OPGEN_GA_MEMFMT, /* torch.contiguous_format */
    OPGEN_GA_LIST    /* [1, 2] or [%a, %b] */
};

/* memory formats: OPGEN_MEMFMT_* (opgen/rt.h) */

typedef struct opgen_garg opgen_garg;
struct opgen_garg {
    int kind;          /* enum opgen_garg_kind */
    const char *kw;    /* keyword name, or NULL for a positional argument */
    int64_t i;         /* INT, DTYPE (the dtype number), MEMFMT, VALUE (value index), BOOL */
    double f;          /* FLOAT */
    const char *s;     /* STR */
    opgen_garg *items; /* LIST */
    int nitems;
    unsigned line, col;
};

typedef struct opgen_gnode {
    const char *op; /* as written: "aten::add.Tensor", "aten::relu" */
    int *results;   /* value indices */
    int nresults;
    opgen_garg *args;
    int nargs;
    unsigned line, col;
} opgen_gnode;

typedef struct opgen_graph {
    const char *file;
    bool pattern; /* a body without header: free names are the inputs */
    opgen_gvalue *values;
    int nvalues;
    int *inputs; /* value indices, in order (for a pattern: order of first use) */
    int ninputs;
    opgen_gnode *nodes;
    int nnodes;
    int *outputs; /* value indices */
    int noutputs;
    bool tuple_return; /* written "return (%a)" */
} opgen_graph;

/* Parses text (`file` names it in errors); everything lives in the arena. */
opgen_status opgen_graph_parse(const char *file, const char *text, size_t len, bool pattern, opgen_arena *a,
                               opgen_graph *g, opgen_error *err);
/* The canonical text into buf; returns its length (ask with cap 0). */
size_t opgen_graph_print(const opgen_graph *g, char *buf, size_t cap);
/* Structural equality (names, shapes, ops, arguments, results). */
bool opgen_graph_equal(const opgen_graph *x, const opgen_graph *y);
/* A schema default ("1", "None", "[0, 0]", "'none'", "long", "Mean",
 * "contiguous_format") as the literal a program would write; false when it is not
 * one. Lists and strings live in the arena. */
bool opgen_garg_parse_default(opgen_arena *a, const char *text, opgen_garg *out);
/* Binds node nd's arguments to the parameters names[0..nargs) of which the first
 * npos may be given by position (all may be given by name): given[i] is the
 * argument written for parameter i, or NULL. Errors name the argument's
 * line:col in g. */
opgen_status opgen_bind_args(const opgen_graph *g, const opgen_gnode *nd, const char *const *names, int nargs, int npos,
                             const opgen_garg **given, opgen_error *err);

/* Dtype names: "f32" <-> Float, "torch.float32" <-> Float. */
int opgen_dtype_from_abbrev(const char *s, size_t n);
const char *opgen_dtype_abbrev(opgen_dtype d);
const char *opgen_dtype_torch_name(opgen_dtype d);
/* "torch.float32" (or an alias, "torch.float") -> its dtype, or -1. */
int opgen_dtype_from_torch(const char *s, size_t n);
/* "torch.channels_last" -> 1 (at::MemoryFormat's number), or -1; and back. */
int opgen_memfmt_from_torch(const char *s, size_t n);
const char *opgen_memfmt_torch_name(int i);
/* A tensor type as the format writes it ("f32[2, 3]") into buf; returns buf. */
const char *opgen_type_format(char *buf, size_t cap, opgen_dtype d, int32_t dim, const int64_t *sizes);

#ifdef __cplusplus
}
#endif
#endif
