/* ExecuTorch's prim ops, for .pte methods (prim_ops.c): KernelCalls on values
 * (sizes read at run, scalar arithmetic, views sized at run). Each takes the
 * call's values in ExecuTorch's order, its result last, and writes the result;
 * et_view takes self, its result, then the size list's element values. */
#ifndef OPGEN_PRIM_OPS_H
#define OPGEN_PRIM_OPS_H
#include "opgen/exec.h"

enum {
    OPGEN_PRIM_SIZE = 1, /* its first argument is a tensor */
    OPGEN_PRIM_VIEW = 2  /* et_view: argument 1 an int list, its result a tensor sharing argument 0's bytes */
};

typedef struct opgen_prim_op {
    const char *name; /* "aten::sym_size.int", "executorch_prim::add.Scalar" */
    int nargs;        /* the call's values, the result included */
    unsigned flags;
    int32_t (*fn)(const char *name, opgen_ivalue **args, int nargs, opgen_error *err);
} opgen_prim_op;

/* The prim op called name ("ns::op.overload"), or NULL. */
const opgen_prim_op *opgen_prim_find(const char *name);
#endif
